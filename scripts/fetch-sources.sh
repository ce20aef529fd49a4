#!/usr/bin/env bash
# Fetch the FRR 10.3 and libyang 3.12.2 source packages from Debian trixie
# with a project-local apt configuration: the machine's apt sources are not
# touched. Pinned versions first, then the newest 10.3 / 3.12 in trixie.
#
# usage: fetch-sources.sh BUILD_DIR
set -euo pipefail

BUILD=${1:?usage: fetch-sources.sh BUILD_DIR}
FRR_PIN=${FRR_VERSION:-10.3-3+deb13u1}
LIBYANG_PIN=${LIBYANG_VERSION:-3.12.2-1}

APT=$BUILD/apt
SRC=$BUILD/src
mkdir -p "$APT/lists/partial" "$APT/sources.list.d" "$SRC"

# Reuse the Debian mirror this machine already uses for bookworm.
mirror=$(grep -hsE '^(URIs:|deb )' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources \
		/etc/apt/sources.list.d/*.list 2>/dev/null |
	grep -oE '(https?|file)://[^ ]*/debian/?( |$)' | grep -v security | head -n1 | tr -d " " || true)
mirror=${mirror%/}
[ -n "$mirror" ] || { echo "fetch-sources: no Debian mirror found in /etc/apt" >&2; exit 1; }

keyring=/usr/share/keyrings/debian-archive-keyring.gpg
echo "deb-src [signed-by=$keyring] $mirror trixie main" >"$APT/sources.list"

apt_opts=(-o "Dir::Etc::SourceList=$APT/sources.list"
	-o "Dir::Etc::SourceParts=$APT/sources.list.d"
	-o "Dir::State::Lists=$APT/lists"
	-o "APT::Sandbox::User=root")

if [ ! -f "$APT/lists/.stamp" ] || [ -n "$(find "$APT/lists/.stamp" -mmin +1440)" ]; then
	apt-get "${apt_opts[@]}" update -qq
	touch "$APT/lists/.stamp"
fi

# fetch NAME PIN PREFIX: source package NAME at PIN, else the newest PREFIX*.
fetch() {
	local name=$1 pin=$2 prefix=$3 ver dir
	if ls -d "$SRC/$name"-*/ >/dev/null 2>&1; then
		echo "fetch-sources: $name already unpacked: $(ls -d "$SRC/$name"-*/ | head -n1)"
		return
	fi
	ver=$(apt-cache "${apt_opts[@]}" showsrc "$name" 2>/dev/null |
		awk '/^Version:/ {print $2}' | sort -V | grep -Fx "$pin" || true)
	if [ -z "$ver" ]; then
		ver=$(apt-cache "${apt_opts[@]}" showsrc "$name" 2>/dev/null |
			awk '/^Version:/ {print $2}' | grep "^$prefix" | sort -V | tail -n1)
		[ -n "$ver" ] || { echo "fetch-sources: no $name $prefix* in trixie" >&2; exit 1; }
		echo "fetch-sources: $name $pin not available, using $ver"
	fi
	(cd "$SRC" && apt-get "${apt_opts[@]}" source -qq --download-only "$name=$ver" >/dev/null)
	# Debian's own patches (security fixes) are applied, as in Debian's package.
	(cd "$SRC" && dpkg-source -q -x "$(ls ${name}_*.dsc | head -n1)" >/dev/null)
	echo "fetch-sources: $name $ver in $(ls -d "$SRC/$name"-*/ | head -n1)"
}

fetch frr "$FRR_PIN" "10.3"
fetch libyang "$LIBYANG_PIN" "3.12"
