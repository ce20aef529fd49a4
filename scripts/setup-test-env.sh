#!/usr/bin/env bash
# Prepare this machine for FRR's topotest library with our build: the frr
# user and groups, /etc/frr and /var/run/frr, our vtysh and frr-reload.py
# where the library looks for them, and the library's pytest.ini pointing at
# our daemons.
# Our topotests and their library (the package topotests/fare) are linked
# into FRR's tests/topotests/ so that the library's conftest.py applies. Idempotent; run as root after scripts/build.sh.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
PREFIX=$BUILD/install
TT=$BUILD/frr/tests/topotests

getent group frr >/dev/null || groupadd -r frr
getent group frrvty >/dev/null || groupadd -r frrvty
id frr >/dev/null 2>&1 || useradd -r -g frr -G frrvty -d /var/run/frr -s /usr/sbin/nologin frr
id -nG frr | grep -qw frrvty || usermod -a -G frrvty frr
mkdir -p /etc/frr /var/run/frr /var/log/frr
chown frr:frr /etc/frr /var/run/frr /var/log/frr

# The topotest library runs "vtysh" by PATH in the routers (our scripts
# put our build's bin/ first) and /usr/bin/vtysh by that path for munet's
# interactive CLI; FRR's test library runs frr-reload.py by the path
# Debian's package gives it (/usr/lib/frr/frr-reload.py). Each is linked to
# our build's, unless a package installed its own: that one stays (dpkg
# owns it; our topotests do not use it).
link_ours() {
	local ours=$1 path=$2
	if [ -e "$path" ] && [ ! -L "$path" ] && dpkg -S "$path" >/dev/null 2>&1; then
		echo "setup-test-env: $path belongs to package $(dpkg -S "$path" | cut -d: -f1); leaving it" >&2
		return
	fi
	mkdir -p "$(dirname "$path")"
	rm -f "$path"
	ln -s "$ours" "$path"
}
link_ours "$PREFIX/bin/vtysh" /usr/bin/vtysh
link_ours "$PREFIX/lib/frr/frr-reload.py" /usr/lib/frr/frr-reload.py

ini=$TT/pytest.ini
sed -i '/^frrdir = /d' "$ini"
sed -i "s|^\[topogen\]\$|[topogen]\nfrrdir = $PREFIX/lib/frr|" "$ini"
grep -q "^frrdir = $PREFIX/lib/frr" "$ini" || { echo "setup-test-env: cannot set frrdir in $ini" >&2; exit 1; }

# ... with their library, the package fare (topotests/fare/)
for t in "$TOP"/topotests/fare_*/ "$TOP"/topotests/fare/; do
	[ -d "$t" ] || continue
	ln -sfn "${t%/}" "$TT/$(basename "$t")"
done
echo "setup-test-env: ready (frrdir $PREFIX/lib/frr)"
