#!/usr/bin/env bash
# The patch series as upstream FRR would take it: every patch of
# the series of the FRR release FARE_FRR selects (patches/frr-10.7/series by
# default, patches/frr-10.3/series with FARE_FRR=10.3) is applied with
# `git am` to a clean FRR tree of that release (the sources build.sh
# fetched: 10.7.1's release tarball, Debian 13's 10.3 source), its commit message is checked against FRR's format, FRR's own
# style check (tools/checkpatch.sh) is run on it, and FRR is compiled after
# each step. The last patch includes bgpd/fare/subdir.am, so the module's
# sources (bgpd-fare/) are added at that step, as a distribution does.
# Prints one line per patch and exits non-zero when a step fails.
#
# usage: scripts/check-patches.sh   (as root on Debian 12; uses the build
#        directory's sources and libyang, running scripts/build.sh first if
#        they are missing)
# environment: FARE_FRR (10.7, the default, or 10.3), JOBS (default nproc),
# CHECK_DIR (default build-patchcheck-<release>),
# CHECK_CFLAGS (default -O0: a compile check, so without optimisation; FRR's
# warnings flags are added by its configure either way)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
CHECK=${CHECK_DIR:-$TOP/build-patchcheck-$FARE_FRR}
JOBS=${JOBS:-$(nproc)}
LYPREFIX=$BUILD/libyang-install
TREE=$CHECK/frr
STYLE=$CHECK/style

log() { printf '[check-patches %s] %s\n' "$(date +%T)" "$*"; }

[ -f "$LYPREFIX/lib/pkgconfig/libyang.pc" ] || "$TOP/scripts/build.sh"
FRR_SRC=$(ls -d "$BUILD"/src/frr-"$FARE_FRR"*/ | head -n1)

log "clean FRR tree from $FRR_SRC in $TREE"
rm -rf "$CHECK"
mkdir -p "$CHECK"
# (owned by root: git refuses a tree owned by the tarball's user)
cp -a --no-preserve=ownership "$FRR_SRC" "$TREE"
rm -rf "$TREE/.pc"
git -C "$TREE" init -q
git -C "$TREE" config user.name "FARE for FRR"
git -C "$TREE" config user.email fare-frr@users.noreply.invalid
git -C "$TREE" add -A >/dev/null
git -C "$TREE" commit -q -m "FRR $(basename "$FRR_SRC") (release source)"
git -C "$TREE" worktree add -q --detach "$STYLE" HEAD

log "bootstrap, configure and build the unpatched tree (once)"
(cd "$TREE" && ./bootstrap.sh >"$CHECK/bootstrap.log" 2>&1)
(cd "$TREE" && PKG_CONFIG_PATH="$LYPREFIX/lib/pkgconfig" \
	CPPFLAGS="-I$LYPREFIX/include" LDFLAGS="-L$LYPREFIX/lib -Wl,-rpath,$LYPREFIX/lib" \
	CFLAGS="${CHECK_CFLAGS:--O0}" ./configure --enable-multipath=256 --disable-doc --disable-snmp \
	--disable-scripting --disable-rpki --disable-grpc --disable-fpm \
	--enable-sharpd >"$CHECK/configure.log" 2>&1) ||
	{ tail -n 30 "$CHECK/configure.log"; exit 1; }
make -C "$TREE" -j"$JOBS" >"$CHECK/make-base.log" 2>&1 ||
	{ grep -E ': error:|\*\*\*' "$CHECK/make-base.log" | head -n 20; exit 1; }

# FRR's commit message format (doc/developer/workflow.rst): "subsystem:
# summary" with the subsystem a directory of the tree, a summary line of at
# most 72 characters, a body, body lines of at most 72 characters (quoted
# command output aside) and a Signed-off-by line.
check_message() {
	local msg=$1 subject
	subject=$(head -n1 <<<"$msg")
	[[ $subject =~ ^([a-z0-9_/.-]+):\ [^\ ] ]] || { echo "subject is not 'subsystem: summary'"; return 1; }
	[ -d "$TREE/${BASH_REMATCH[1]}" ] || { echo "subsystem ${BASH_REMATCH[1]} is not a directory of FRR"; return 1; }
	[ ${#subject} -le 72 ] || { echo "subject longer than 72 characters"; return 1; }
	[ "$(sed -n 2p <<<"$msg")" = "" ] || { echo "no blank line after the subject"; return 1; }
	[ "$(sed -n '3,$p' <<<"$msg" | grep -vc '^Signed-off-by:\|^$')" -gt 0 ] ||
		{ echo "no body"; return 1; }
	! sed -n '3,$p' <<<"$msg" | grep -v '^    ' | grep -q '.\{73\}' ||
		{ echo "body line longer than 72 characters"; return 1; }
	grep -q '^Signed-off-by: .* <.*@.*>$' <<<"$msg" || { echo "no Signed-off-by"; return 1; }
}

failed=0
summary=()
n=0
total=$(sed '/^#/d;/^$/d' "$FRR_PATCHES/series" | wc -l)
while read -r p; do
	[ -n "$p" ] || continue
	n=$((n + 1))
	log "[$n/$total] $p"
	notes=""

	# FRR's style check, on a clean copy of the tree before this patch
	git -C "$STYLE" checkout -q --detach "$(git -C "$TREE" rev-parse HEAD)"
	src=0
	style=$(bash "$TREE/tools/checkpatch.sh" "$FRR_PATCHES/$p" "$STYLE" 2>&1) || src=$?
	printf '%s\n' "$style" >"$CHECK/style-$n.log"
	issues=$(grep -o '| [0-9]* issues' <<<"$style" | awk '{ n += $2 } END { print n + 0 }' || true)
	case $src in
	0) notes+=" style: clean" ;;
	1) notes+=" style: $issues warnings" ;;
	*) notes+=" style: ERRORS ($issues issues)"; failed=1 ;;
	esac

	if ! git -C "$TREE" am -q "$FRR_PATCHES/$p" 2>"$CHECK/am-$n.log"; then
		summary+=("$(printf '%-68s %s' "$p" "DOES NOT APPLY (see $CHECK/am-$n.log)")")
		failed=1
		break
	fi
	if ! why=$(check_message "$(git -C "$TREE" log -1 --format=%B)"); then
		notes+=" message: $why"
		failed=1
	fi

	if grep -q '^+include bgpd/fare/subdir.am' "$FRR_PATCHES/$p"; then
		# the module's sources, as a distribution adds them
		mkdir -p "$TREE/bgpd/fare/core"
		cp "$TOP"/bgpd-fare/subdir.am "$TOP"/bgpd-fare/*.[ch] "$TREE/bgpd/fare/"
		cp "$TOP"/bgpd-fare/core/*.[ch] "$TREE/bgpd/fare/core/"
		notes+=" (with bgpd-fare/ as bgpd/fare/)"
	fi
	t0=$(date +%s)
	if make -C "$TREE" -j"$JOBS" >"$CHECK/make-$n.log" 2>&1; then
		warnings=$(grep -c ': warning:' "$CHECK/make-$n.log" || true)
		summary+=("$(printf '%-68s compiles (%ss, %s warnings)%s' "$p" \
			"$(($(date +%s) - t0))" "$warnings" "$notes")")
	else
		summary+=("$(printf '%-68s DOES NOT COMPILE (see %s)%s' "$p" "$CHECK/make-$n.log" "$notes")")
		failed=1
	fi
done <"$FRR_PATCHES/series"

echo
echo "patch series against FRR $(dpkg-parsechangelog -l "$FRR_SRC/debian/changelog" -S Version 2>/dev/null || basename "$FRR_SRC"):"
printf '  %s\n' "${summary[@]}"
[ "$failed" = 0 ] && echo "every patch applies, is in FRR's format and compiles" ||
	{ echo "FAILED" >&2; exit 1; }
