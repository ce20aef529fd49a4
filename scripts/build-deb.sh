#!/usr/bin/env bash
# Debian packages for Debian 12 (bookworm) of the FRR release FARE_FRR
# selects (scripts/frr-target.sh), with the FARE patch series of that release
# (patches/frr-<release>/) added to debian/patches and the bgpd_fare module
# in an add-on binary package frr-fare:
#   FARE_FRR=10.7 (default): FRR 10.7.1 from Debian sid's orig tarball
#     (frr 10.7.1-6: its .dsc and Debian tarball cannot be fetched), packaged
#     with the debian/ of trixie's frr 10.3-3+deb13u1 carried over to 10.7.1
#     (Debian's patches dropped: 10.7.1 has them all; frr.pc not installed),
#     version 10.7.1-0fare1;
#   FARE_FRR=10.3: Debian's own source package frr 10.3-3+deb13u1 (trixie),
#     version 10.3-3+deb13u1+fare1.
# Both with libyang 3 (libyang 3.12.2-1, trixie), which FRR needs and
# bookworm lacks, and the data-plane agent (fare-dpd, libfaredp-dev) from
# this repository's autotools build. Every .deb goes to DEB_DIR/out/ (debug
# symbols to out/debug/, the new source packages to out/source/); install with
#   apt-get install ./build-deb-10.7/out/*.deb
#
# usage: [FARE_FRR=10.3] scripts/build-deb.sh   (as root on Debian 12)
# environment: FARE_FRR (10.7, the default, or 10.3), DEB_DIR (default
#   ./build-deb-<release>), JOBS (default 2),
#   FRR_PROFILES, LIBYANG_PROFILES: build profiles (default none, e.g.
#   "nocheck" to skip the upstream test suites)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
DEB=${DEB_DIR:-$TOP/build-deb-$FARE_FRR}
OUT=$DEB/out
JOBS=${JOBS:-2}
FRR_PROFILES=${FRR_PROFILES:-}
LIBYANG_PROFILES=${LIBYANG_PROFILES:-}
FARE_REV=fare1
# the trixie source package whose debian/ packages FRR 10.7.1
FRR_DEBIAN_BASE=10.3-3+deb13u1
MAINT="FARE for FRR <fare-frr@users.noreply.invalid>"
# frr-fare's packaging: its debian/ files and the header of the patch that
# adds the module's sources (fare-dataplane's is packaging/fare-dataplane/)
PKG=$TOP/packaging/frr-fare

export DEBIAN_FRONTEND=noninteractive
# Debian's own tools only (python3 above all: FRR's configure and its docs
# need Debian's, with Sphinx), as in a clean package build environment
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export DEB_BUILD_OPTIONS="parallel=$JOBS${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}"

log() { printf '[build-deb %s] %s\n' "$(date +%T)" "$*"; }
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }

# build_dep DIR PROFILES: DIR's Build-Depends, with apt (also those that
# this script built itself and installed before).
build_dep() {
	local dir=$1 profiles=$2
	apt_get build-dep -y -qq --no-install-recommends ${profiles:+-P "$profiles"} "$dir" >/dev/null
}

# dpkg_build DIR PROFILES LOG [ARGS]: dpkg-buildpackage, unsigned; its output
# goes to LOG, the end of which is shown on failure.
dpkg_build() {
	local dir=$1 profiles=$2 logf=$3
	shift 3
	(cd "$dir" && dpkg-buildpackage -us -uc ${profiles:+-P"$profiles"} "$@") >"$logf" 2>&1 ||
		{ tail -n 60 "$logf"; log "failed, full log: $logf"; exit 1; }
}

# unpack DSC DIR: a source package with its Debian patches applied (its
# files came through apt, checked against the archive's signed indexes; the
# uploader's signature on the .dsc is not checked again here)
unpack() {
	local out
	out=$(dpkg-source -q --no-copy -x "$1" "$2" 2>&1) || { echo "$out" >&2; exit 1; }
}

# --- tools, sources ------------------------------------------------------
log "tools: dpkg-dev, debhelper, quilt"
apt_get update -qq
apt_get install -y -qq --no-install-recommends build-essential dpkg-dev debhelper \
	quilt fakeroot git ca-certificates debian-archive-keyring >/dev/null
FRR_DEBIAN_BASE=$FRR_DEBIAN_BASE "$TOP/scripts/fetch-sources.sh" "$DEB"

LY_DSC=$(ls "$DEB"/src/libyang_3.12*.dsc | head -n1)
mkdir -p "$OUT"
rm -rf "$OUT"/*.deb "$OUT/debug" "$OUT/source"
mkdir -p "$OUT/debug" "$OUT/source"

# collect DIR: the .debs dpkg-buildpackage left in DIR to $OUT, debug
# symbols apart.
collect() {
	local f
	for f in "$1"/*.deb; do
		case $f in
		*-dbgsym_*) cp "$f" "$OUT/debug/" ;;
		*) cp "$f" "$OUT/" ;;
		esac
	done
}

# --- libyang 3 -----------------------------------------------------------
# Rebuilt for bookworm unchanged but for its changelog: the backport version
# 3.12.2-1~bpo12+1 sorts below trixie's 3.12.2-1, which replaces it on an
# upgrade to Debian 13.
LY=$DEB/libyang
ly_ver=$(sed -n 's/^Version: //p' "$LY_DSC")~bpo12+1
# the same libyang, already built for the other FRR release, is taken as it is
for other in "$TOP"/build-deb-*/libyang; do
	[ "$other" != "$LY" ] && ! ls "$LY"/libyang3_"$ly_ver"_*.deb >/dev/null 2>&1 &&
		ls "$other"/libyang3_"$ly_ver"_*.deb >/dev/null 2>&1 || continue
	log "libyang $ly_ver: the packages built in $other"
	rm -rf "$LY" && mkdir -p "$LY" && cp "$other"/*.deb "$LY/"
done
if ls "$LY"/libyang3_"$ly_ver"_*.deb >/dev/null 2>&1; then
	log "libyang $ly_ver: already built in $LY"
else
	log "libyang $ly_ver: source from $(basename "$LY_DSC")"
	rm -rf "$LY" && mkdir -p "$LY"
	unpack "$LY_DSC" "$LY/src"
	(cd "$LY/src" && {
		printf 'libyang (%s) bookworm; urgency=medium\n\n' "$ly_ver"
		printf '  * Rebuild for Debian 12 (bookworm): FRR 10.3 needs libyang 3.\n\n'
		printf ' -- %s  %s\n\n' "$MAINT" "$(date -R)"
		cat debian/changelog
	} >debian/changelog.new && mv debian/changelog.new debian/changelog)
	log "libyang: build dependencies"
	build_dep "$LY/src" "$LIBYANG_PROFILES"
	log "libyang: dpkg-buildpackage -b${LIBYANG_PROFILES:+ -P$LIBYANG_PROFILES}"
	dpkg_build "$LY/src" "$LIBYANG_PROFILES" "$LY/build.log" -b
fi
collect "$LY"
# FRR builds against it: install the library and its headers.
log "libyang: installing libyang3 and libyang-dev (FRR's build dependency)"
apt_get install -y -qq --no-install-recommends --allow-downgrades \
	"$LY"/libyang3_"$ly_ver"_*.deb "$LY"/libyang-dev_"$ly_ver"_*.deb >/dev/null

# --- FRR with the FARE patches and the frr-fare package -------------------
FRR=$DEB/frr
rm -rf "$FRR" && mkdir -p "$FRR"
if [ "$FARE_FRR" = 10.3 ]; then
	FRR_DSC=$(ls "$DEB"/src/frr_10.3*.dsc | head -n1)
	log "FRR: source from $(basename "$FRR_DSC") (Debian's patches applied)"
	unpack "$FRR_DSC" "$FRR/src"
	cp "$(dirname "$FRR_DSC")"/frr_*.orig.tar.* "$FRR/"
	frr_ver=$(cd "$FRR/src" && dpkg-parsechangelog -SVersion)+$FARE_REV
	frr_changes="  * Build for Debian 12 (bookworm) with libyang 3."
else
	# FRR 10.7.1: sid's orig tarball (the release source) with trixie's
	# debian/ carried over. Debian's patches of 10.3 (six CVE backports and a
	# test fix for s390x) are all in FRR 10.7.1 and are dropped; FRR 10.7
	# installs a pkg-config file (frr.pc) for out-of-tree modules, for which
	# trixie's packaging has no -dev package: not installed, as FRR's own
	# debian/ of 10.7 does. The rest of trixie's packaging (rules, install
	# lists, manual pages, maintainer scripts) holds for 10.7.1 as it is:
	# 10.7.1 installs the same files but frr.pc.
	FRR_ORIG=$(ls "$DEB"/src/frr_10.7.*.orig.tar.xz | head -n1)
	base=$DEB/src/debian-base/frr_$FRR_DEBIAN_BASE
	frr_up=$(basename "$FRR_ORIG" .orig.tar.xz)
	frr_up=${frr_up#frr_}
	log "FRR: $(basename "$FRR_ORIG") with the debian/ of trixie's frr $FRR_DEBIAN_BASE"
	mkdir -p "$FRR/src"
	tar -C "$FRR/src" --strip-components=1 -xf "$FRR_ORIG"
	cp "$FRR_ORIG" "$FRR/"
	cp -a "$base/debian" "$FRR/src/debian"
	dropped=$(grep -Ev '^[[:space:]]*(#|$)' "$FRR/src/debian/patches/series" | paste -sd,)
	rm -rf "$FRR/src/debian/patches"
	mkdir -p "$FRR/src/debian/patches"
	: >"$FRR/src/debian/patches/series"
	echo 'usr/lib/*/frr/pkgconfig/frr.pc' >>"$FRR/src/debian/not-installed"
	frr_ver=$frr_up-0$FARE_REV
	frr_changes="  * New upstream release $frr_up (FRR's release source, the orig tarball of
    Debian sid's frr), packaged with the debian/ of trixie's frr
    $FRR_DEBIAN_BASE:
    - Drop Debian's patches, all in $frr_up:
$(sed 's/,/, /g' <<<"$dropped." | fold -s -w 68 | sed 's/ *$//; s/^/      /')
    - debian/not-installed: frr.pc, FRR's new pkg-config file.
  * Build for Debian 12 (bookworm) with libyang 3."
	log "FRR: Debian's 10.3 patches dropped (in $frr_up): ${dropped//,/ }"
fi

# Our patch series, in the order of its series file, after Debian's own.
mkdir -p "$FRR/src/debian/patches/fare"
n=0
while read -r p; do
	case $p in '' | '#'*) continue ;; esac
	cp "$FRR_PATCHES/$p" "$FRR/src/debian/patches/fare/$p"
	echo "fare/$p" >>"$FRR/src/debian/patches/series"
	n=$((n + 1))
done <"$FRR_PATCHES/series"
log "FRR: $n patches from ${FRR_PATCHES#"$TOP"/}/series added to debian/patches/fare/"

# The module's sources, as the build assembles them (scripts/build.sh), go in
# as one more patch that creates bgpd/fare/ (its header:
# packaging/frr-fare/module-sources.patch.in, with the maintainer and date).
modpatch=debian/patches/fare/bgpd-fare-module-sources.patch
mkdir -p "$FRR/mod/a" "$FRR/mod/b/bgpd/fare/core"
cp "$TOP"/bgpd-fare/subdir.am "$TOP"/bgpd-fare/*.[ch] "$FRR/mod/b/bgpd/fare/"
cp "$TOP"/bgpd-fare/core/*.[ch] "$FRR/mod/b/bgpd/fare/core/"
{
	sed -e "s|@MAINT@|$MAINT|" -e "s|@DATE@|$(date +%F)|" "$PKG/module-sources.patch.in"
	# (diff exits 1 when the trees differ, as they always do here)
	(cd "$FRR/mod" && { diff -Nru a b || [ $? -eq 1 ]; }) |
		sed -E 's/^((---|\+\+\+) [^[:space:]]+)[[:space:]].*/\1/'
} >"$FRR/src/$modpatch"
echo "fare/$(basename "$modpatch")" >>"$FRR/src/debian/patches/series"
log "FRR: module sources as $modpatch ($(grep -c '^+++ ' "$FRR/src/$modpatch") files)"

# Apply now, exactly (no fuzz), as dpkg-source would.
(cd "$FRR/src" && QUILT_PATCHES=debian/patches quilt push -a -q --fuzz=0 >"$FRR/quilt.log" 2>&1) ||
	{ cat "$FRR/quilt.log"; log "FRR: a patch does not apply"; exit 1; }

# The add-on package, like frr-snmp and frr-rpki-rtrlib: its stanza of
# debian/control, its install list and README.Debian (packaging/frr-fare/debian/).
{
	echo
	cat "$PKG/debian/frr-fare.control"
} >>"$FRR/src/debian/control"
cp "$PKG/debian/frr-fare.install" "$PKG/debian/frr-fare.README.Debian" "$FRR/src/debian/"

# changelog: the new version, what was added
npatches=$(grep -c '^fare/' "$FRR/src/debian/patches/series")
(cd "$FRR/src" && {
	printf 'frr (%s) bookworm; urgency=medium\n\n' "$frr_ver"
	cat <<EOF
  * Add FARE (Path Bandwidth weighted ECMP, draft-xu-idr-fare):
    - debian/patches/fare/: the FARE patch series ($((npatches - 1)) patches: hooks
      for bgpd modules, exact and 16-bit nexthop weights in zebra) and the
      bgpd_fare module's sources as bgpd/fare/.
    - New binary package frr-fare with the module bgpd_fare.so.
$frr_changes

EOF
	printf ' -- %s  %s\n\n' "$MAINT" "$(date -R)"
	cat debian/changelog
} >debian/changelog.new && mv debian/changelog.new debian/changelog)
log "FRR: version $frr_ver"

log "FRR: build dependencies"
build_dep "$FRR/src" "$FRR_PROFILES"
log "FRR: dpkg-buildpackage (source and binaries${FRR_PROFILES:+, profiles $FRR_PROFILES}), log $FRR/build.log"
dpkg_build "$FRR/src" "$FRR_PROFILES" "$FRR/build.log"
collect "$FRR"
cp "$FRR"/frr_"$frr_ver".dsc "$FRR"/frr_"$frr_ver".debian.tar.* "$FRR"/frr_*.orig.tar.* "$OUT/source/"

# --- the data-plane agent: fare-dpd and libfaredp-dev ------------------------
# A source package of its own, fare-dataplane, from this repository's
# autotools build (configure.ac, Makefile.am: the agent, its CLI, libfaredp
# and the pure cores with their unit tests, fare-sim's among them: built, not
# packaged; its test reads the topotests' expected weights) and
# packaging/fare-dataplane/.
DP=$DEB/dataplane
dp_ver=$(sed -n 's/^AC_INIT(\[fare-frr\], *\[\([^]]*\)\].*/\1/p' "$TOP/configure.ac")
[ -n "$dp_ver" ] || { log "data plane: no version in configure.ac's AC_INIT"; exit 1; }
dp_src=$DP/fare-dataplane-$dp_ver
log "data plane: source package fare-dataplane $dp_ver-1 from this repository"
rm -rf "$DP" && mkdir -p "$dp_src"
(cd "$TOP" && git ls-files -z -- configure.ac Makefile.am README.md bgpd-fare/core \
	dataplane tests/unit tests/fuzz tools/fare-sim topotests/fare/expected_weights.txt |
	tar --null -T - -cf -) | tar -C "$dp_src" -xf -
(cd "$DP" && tar --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime="@$(git -C "$TOP" log -1 --format=%ct)" \
	-cJf "fare-dataplane_$dp_ver.orig.tar.xz" "fare-dataplane-$dp_ver")
cp -r "$TOP/packaging/fare-dataplane/debian" "$dp_src/"
{
	printf 'fare-dataplane (%s-1) bookworm; urgency=medium\n\n' "$dp_ver"
	printf '  * The FARE data-plane agent: fare-dpd and fare-dp (fare-dpd),\n'
	printf '    libfaredp for RDMA applications (libfaredp-dev).\n\n'
	printf ' -- %s  %s\n' "$MAINT" "$(date -R)"
} >"$dp_src/debian/changelog"
log "data plane: build dependencies"
build_dep "$dp_src" ""
log "data plane: dpkg-buildpackage (source and binaries), log $DP/build.log"
dpkg_build "$dp_src" "" "$DP/build.log"
collect "$DP"
cp "$DP"/fare-dataplane_"$dp_ver"* "$OUT/source/"
rm -f "$OUT"/source/*.buildinfo "$OUT"/source/*.changes

# --- checks --------------------------------------------------------------
# (contents listed first: grep -q would cut dpkg-deb's pipe)
fare_files=$(dpkg-deb -c "$(ls "$OUT"/frr-fare_"$frr_ver"_*.deb)")
frr_files=$(dpkg-deb -c "$(ls "$OUT"/frr_"$frr_ver"_*.deb)")
grep -q '/frr/modules/bgpd_fare\.so$' <<<"$fare_files" || { log "frr-fare has no bgpd_fare.so"; exit 1; }
! grep -q 'bgpd_fare\.so' <<<"$frr_files" || { log "the frr package carries bgpd_fare.so"; exit 1; }
log "packages in $OUT:"
for f in "$OUT"/*.deb; do
	printf '  %-28s %-28s %s\n' "$(dpkg-deb -f "$f" Package)" "$(dpkg-deb -f "$f" Version)" \
		"$(dpkg-deb -f "$f" Architecture)"
done
log "install them with: apt-get install $OUT/*.deb   (or ./*.deb inside $OUT)"
