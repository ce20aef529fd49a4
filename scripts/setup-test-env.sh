#!/usr/bin/env bash
# Prepare this machine for FRR's topotest library with our build: the frr
# user and groups, /etc/frr and /var/run/frr, vtysh where the library runs
# it (/usr/bin/vtysh), and the library's pytest.ini pointing at our daemons.
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

# The topotest library calls /usr/bin/vtysh by that path.
if [ -e /usr/bin/vtysh ] && [ ! -L /usr/bin/vtysh ]; then
	echo "setup-test-env: /usr/bin/vtysh exists and is not ours; leaving it" >&2
else
	ln -sfn "$PREFIX/bin/vtysh" /usr/bin/vtysh
fi

# FRR's test library runs frr-reload.py by the path Debian's package gives
# it (/usr/lib/frr/frr-reload.py).
mkdir -p /usr/lib/frr
if [ -e /usr/lib/frr/frr-reload.py ] && [ ! -L /usr/lib/frr/frr-reload.py ]; then
	echo "setup-test-env: /usr/lib/frr/frr-reload.py exists and is not ours; leaving it" >&2
else
	ln -sfn "$PREFIX/lib/frr/frr-reload.py" /usr/lib/frr/frr-reload.py
fi

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
