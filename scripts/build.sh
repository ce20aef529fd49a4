#!/usr/bin/env bash
# Build everything: libyang 3 into a private prefix, FRR with the FARE
# patch series and the bgpd_fare module, installed into build/install.
# Incremental: a second run rebuilds only what changed.
#
# usage: scripts/build.sh [--asan]   (as root on Debian 12)
#   --asan: FRR, the patches and the module with AddressSanitizer and
#           UndefinedBehaviorSanitizer, in build-asan/ (scripts/run-asan.sh)
# environment: FARE_FRR (10.7, the default: FRR 10.7.1 with the series in
# patches/frr-10.7/; or 10.3: Debian 13's FRR 10.3 with patches/frr-10.3/),
# BUILD (default ./build for 10.7, ./build-frr10.3 for 10.3, ./build-asan
# with --asan), JOBS (default nproc)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
SANITIZE=()
if [ "${1:-}" = "--asan" ]; then
	SANITIZE=(--enable-address-sanitizer --enable-undefined-sanitizer)
	BUILD=${BUILD:-$TOP/build-asan}
fi
. "$TOP/scripts/frr-target.sh"
PATCHES=$FRR_PATCHES
JOBS=${JOBS:-$(nproc)}
PREFIX=$BUILD/install
LYPREFIX=$BUILD/libyang-install
FRR=$BUILD/frr

log() { printf '[build %s] %s\n' "$(date +%T)" "$*"; }

"$TOP/scripts/install-deps.sh"
"$TOP/scripts/fetch-sources.sh" "$BUILD"

FRR_SRC=$(ls -d "$BUILD"/src/frr-"$FARE_FRR"*/ | head -n1)
LY_SRC=$(ls -d "$BUILD"/src/libyang-3.12*/ | head -n1)

# --- libyang -------------------------------------------------------------
if [ ! -f "$LYPREFIX/lib/pkgconfig/libyang.pc" ]; then
	log "libyang: cmake build into $LYPREFIX"
	cmake -S "$LY_SRC" -B "$BUILD/libyang-build" -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_INSTALL_PREFIX="$LYPREFIX" -DCMAKE_INSTALL_LIBDIR=lib \
		-DENABLE_TESTS=OFF -DENABLE_VALGRIND_TESTS=OFF >/dev/null
	make -C "$BUILD/libyang-build" -j"$JOBS" -s >/dev/null
	make -C "$BUILD/libyang-build" -s install >/dev/null
else
	log "libyang: up to date"
fi

# --- FRR work tree with our patch series ----------------------------------
# build/frr is a copy of the Debian source tree. The patches applied to it are
# remembered in build/frr/.fare-applied; when the series changes they are
# reverted and the new series applied, so only touched files get new mtimes.
if [ ! -d "$FRR" ]; then
	log "FRR: new work tree from $FRR_SRC"
	cp -a "$FRR_SRC" "$FRR"
	mkdir -p "$FRR/.fare-applied"
fi
if ! diff -rq "$PATCHES" "$FRR/.fare-applied" >/dev/null 2>&1; then
	if [ -f "$FRR/.fare-applied/series" ]; then
		log "FRR: reverting the previously applied series"
		tac "$FRR/.fare-applied/series" | sed '/^#/d' | while read -r p; do
			[ -n "$p" ] || continue
			patch -d "$FRR" -p1 -R -s -f <"$FRR/.fare-applied/$p"
		done
	fi
	rm -rf "$FRR/.fare-applied" && mkdir -p "$FRR/.fare-applied"
	sed '/^#/d' "$PATCHES/series" | while read -r p; do
		[ -n "$p" ] || continue
		log "FRR: applying $p"
		patch -d "$FRR" -p1 -s -f <"$PATCHES/$p"
		cp "$PATCHES/$p" "$FRR/.fare-applied/$p"
	done
	cp "$PATCHES/series" "$FRR/.fare-applied/series"
fi

# The module is built inside FRR's tree (so vtysh knows its commands): its
# sources are copied to bgpd/fare, where the last patch (0014) includes its subdir.am.
# cp -u copies only what changed, so make stays incremental, and the build's
# outputs stay out of our tree.
[ ! -L "$FRR/bgpd/fare" ] || rm -f "$FRR/bgpd/fare"
mkdir -p "$FRR/bgpd/fare/core"
cp -u "$TOP"/bgpd-fare/subdir.am "$TOP"/bgpd-fare/*.[ch] "$FRR/bgpd/fare/"
cp -u "$TOP"/bgpd-fare/core/*.[ch] "$FRR/bgpd/fare/core/"

# --- configure + build + install ------------------------------------------
if [ ! -x "$FRR/configure" ]; then
	log "FRR: bootstrap"
	(cd "$FRR" && ./bootstrap.sh >/dev/null 2>&1)
fi
# Not built: the daemons neither the tests, the benchmarks, the demo nor
# FRR's topotest library (which looks for ospfd, ospf6d, ripd, ripngd,
# isisd, pimd, pim6d and pbrd before any test) use. The arguments are kept
# beside the build; a change of them configures again.
FRR_CONFIGURE_ARGS=(--prefix="$PREFIX" --sbindir="$PREFIX/lib/frr"
	--sysconfdir=/etc/frr --localstatedir=/var/run/frr
	--enable-user=frr --enable-group=frr --enable-vty-group=frrvty
	--enable-multipath=256 --disable-doc --disable-snmp
	--disable-scripting --disable-rpki --disable-grpc --disable-fpm
	--enable-sharpd --disable-silent-rules
	--disable-ldpd --disable-eigrpd --disable-babeld --disable-nhrpd
	--disable-vrrpd --disable-fabricd --disable-pathd
	${SANITIZE[@]+"${SANITIZE[@]}"})
if [ ! -f "$FRR/config.status" ] ||
	[ "$(cat "$BUILD/frr-configure.args" 2>/dev/null)" != "${FRR_CONFIGURE_ARGS[*]}" ]; then
	log "FRR: configure"
	(cd "$FRR" && PKG_CONFIG_PATH="$LYPREFIX/lib/pkgconfig" \
		CPPFLAGS="-I$LYPREFIX/include" LDFLAGS="-L$LYPREFIX/lib -Wl,-rpath,$LYPREFIX/lib" \
		./configure "${FRR_CONFIGURE_ARGS[@]}" >"$BUILD/frr-configure.log" 2>&1) ||
		{ tail -n 30 "$BUILD/frr-configure.log"; exit 1; }
	printf '%s' "${FRR_CONFIGURE_ARGS[*]}" >"$BUILD/frr-configure.args"
fi
log "FRR: make -j$JOBS"
make -C "$FRR" -j"$JOBS" >"$BUILD/frr-make.log" 2>&1 ||
	{ grep -E ': error:|\*\*\*|: warning:' "$BUILD/frr-make.log" | head -n 40; exit 1; }
make -C "$FRR" install >"$BUILD/frr-install.log" 2>&1 ||
	{ tail -n 30 "$BUILD/frr-install.log"; exit 1; }
log "FRR installed in $PREFIX (daemons in $PREFIX/lib/frr, module $PREFIX/lib/frr/modules/bgpd_fare.so)"

# --- this repository's own build: the pure cores (unit tests, fuzzing),
# the fabric simulator fare-sim (tools/fare-sim/) and the data-plane agent
# fare-dpd, its CLI fare-dp and libfaredp, installed into the same prefix
# ($PREFIX/sbin, bin, lib, include, lib/systemd/system)
(cd "$TOP" && [ -x configure ] && [ configure -nt configure.ac ] &&
	[ Makefile.in -nt Makefile.am ] || autoreconf -fi >/dev/null 2>&1)
mkdir -p "$BUILD/core"
if [ ! -f "$BUILD/core/Makefile" ] || ! grep -q "^prefix = $PREFIX\$" "$BUILD/core/Makefile"; then
	log "core and data-plane agent: configure"
	(cd "$BUILD/core" && "$TOP/configure" --prefix="$PREFIX" \
		--with-systemdsystemunitdir="$PREFIX/lib/systemd/system" >"$BUILD/core-configure.log" 2>&1) ||
		{ tail -n 30 "$BUILD/core-configure.log"; exit 1; }
fi
log "core and data-plane agent: make"
make -C "$BUILD/core" -j"$JOBS" >"$BUILD/core-make.log" 2>&1 &&
	make -C "$BUILD/core" install >>"$BUILD/core-make.log" 2>&1 ||
	{ grep -E ': error:|\*\*\*|: warning:' "$BUILD/core-make.log" | head -n 40; exit 1; }
log "data-plane agent installed: $PREFIX/sbin/fare-dpd, $PREFIX/bin/fare-dp, $PREFIX/lib/libfaredp.a"
install -D -m 0755 "$BUILD/core/tools/fare-sim/fare-sim" "$PREFIX/bin/fare-sim"
log "fabric simulator installed: $PREFIX/bin/fare-sim"

# --- operator tools: fare-metrics, FARE's show output in the Prometheus
# text format (doc/user/fare-metrics.rst)
install -D -m 0755 "$TOP/tools/fare-metrics" "$PREFIX/bin/fare-metrics"
log "fare-metrics installed: $PREFIX/bin/fare-metrics"
