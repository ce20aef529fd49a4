#!/usr/bin/env bash
# Fetch FRR's and libyang 3.12.2's sources from Debian's archive with a
# project-local apt configuration: the machine's apt sources are not touched.
#
# FARE_FRR=10.7 (the default): FRR 10.7.1's release source, from Debian
# sid's source package frr 10.7.1-6. Only its orig tarball can be fetched
# (the .dsc and .debian.tar.xz are not on the mirror): apt checks it against
# sid's Sources index and it is unpacked as it is, without Debian's patches.
# FARE_FRR=10.3: Debian 13 (trixie)'s source package frr 10.3, with
# Debian's patches. libyang is trixie's 3.12.2 for both. Pinned versions
# first, then the newest 10.3 / 3.12 in trixie.
#
# With FRR_DEBIAN_BASE set (scripts/build-deb.sh does), FARE_FRR=10.7 also
# fetches the Debian tarball (debian/) of trixie's source package frr
# FRR_DEBIAN_BASE (e.g. 10.3-3+deb13u1) into BUILD_DIR/src/debian-base/: the
# packaging that build-deb.sh carries over to 10.7.1.
#
# usage: fetch-sources.sh BUILD_DIR
set -euo pipefail

BUILD=${1:?usage: fetch-sources.sh BUILD_DIR}
FARE_FRR=${FARE_FRR:-10.7}
case $FARE_FRR in
10.3) FRR_PIN=${FRR_VERSION:-10.3-3+deb13u1} ;;
10.7) FRR_PIN=${FRR_VERSION:-10.7.1-6} ;;
*) echo "fetch-sources: FARE_FRR=$FARE_FRR: 10.3 or 10.7" >&2; exit 1 ;;
esac
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
{
	echo "deb-src [signed-by=$keyring] $mirror trixie main"
	[ "$FARE_FRR" = 10.3 ] || echo "deb-src [signed-by=$keyring] $mirror sid main"
} >"$APT/sources.list.new"
# new lists when the sources changed
cmp -s "$APT/sources.list.new" "$APT/sources.list" || rm -f "$APT/lists/.stamp"
mv "$APT/sources.list.new" "$APT/sources.list"

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

# fetch_orig NAME PIN UPSTREAM: only the orig tarball of source package NAME
# at PIN (its .dsc and Debian tarball 404), unpacked as NAME-UPSTREAM
fetch_orig() {
	local name=$1 pin=$2 upstream=$3
	if [ -d "$SRC/$name-$upstream" ]; then
		echo "fetch-sources: $name already unpacked: $SRC/$name-$upstream/"
		return
	fi
	# apt-get fails for the missing files; the tarball it fetched is
	# checked against the Sources index's checksums
	(cd "$SRC" && apt-get "${apt_opts[@]}" source -qq --download-only "$name=$pin" \
		>/dev/null 2>&1 || true)
	[ -f "$SRC/${name}_$upstream.orig.tar.xz" ] ||
		{ echo "fetch-sources: no ${name}_$upstream.orig.tar.xz for $name $pin" >&2; exit 1; }
	(cd "$SRC" && tar xf "${name}_$upstream.orig.tar.xz")
	[ -d "$SRC/$name-$upstream" ] ||
		{ echo "fetch-sources: ${name}_$upstream.orig.tar.xz has no $name-$upstream/" >&2; exit 1; }
	echo "fetch-sources: $name $pin (orig tarball only) in $SRC/$name-$upstream/"
}

# fetch_debian NAME PIN: only the .dsc and the Debian tarball of source
# package NAME at PIN (apt checks them against the Sources index), the
# Debian tarball unpacked in debian-base/NAME_PIN/
fetch_debian() {
	local name=$1 pin=$2 dir=$SRC/debian-base/${1}_$2
	if [ -d "$dir/debian" ]; then
		echo "fetch-sources: $name $pin's debian/ already in $dir/"
		return
	fi
	mkdir -p "$dir"
	(cd "$dir" && apt-get "${apt_opts[@]}" source -qq --download-only --dsc-only "$name=$pin" >/dev/null &&
		apt-get "${apt_opts[@]}" source -qq --download-only --diff-only "$name=$pin" >/dev/null) ||
		{ echo "fetch-sources: no $name $pin (its .dsc and Debian tarball)" >&2; exit 1; }
	(cd "$dir" && tar xf "${name}_$pin.debian.tar.xz")
	echo "fetch-sources: $name $pin's debian/ (Debian tarball only) in $dir/"
}

if [ "$FARE_FRR" = 10.3 ]; then
	fetch frr "$FRR_PIN" "10.3"
else
	fetch_orig frr "$FRR_PIN" "${FRR_PIN%%-*}"
	[ -z "${FRR_DEBIAN_BASE:-}" ] || fetch_debian frr "$FRR_DEBIAN_BASE"
fi
fetch libyang "$LIBYANG_PIN" "3.12"
