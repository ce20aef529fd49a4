#!/usr/bin/env bash
# Does the patch series apply to FRR's development branch? Every patch of
# the series FARE_FRR selects (patches/frr-10.7/series by default) is
# applied in order to a fresh clone of an FRR git repository, and one line
# per patch says how it went:
#   clean      `git am` applies it as it is (hunks at their line numbers)
#   offset     `git am` applies it, some hunks some lines away
#   3way       only `git am -3` applies it: its context changed upstream,
#              git's three-way merge from the blobs the patch names (those
#              of the FRR release it was written for) places it
#   fuzz       only `patch -p1` with fuzz applies it (committed as it lands)
#   CONFLICT   none of these applies it; the failed hunks follow (file,
#              line, function from the hunk header) and the patch is left
#              out, so later patches are tried on a tree without it
# Nothing is compiled. It is a report for upstreaming, not part of the
# test run or CI, and exits 0 unless the clone or the series is missing
# (CONFLICT lines are the result, not an error; see STRICT below).
#
# usage: scripts/check-upstream.sh [FRR-GIT [REF]]
#   FRR-GIT  a git directory or URL of FRR
#            (default https://github.com/FRRouting/frr.git)
#   REF      the commit, branch or tag to check against (default master)
# environment: FARE_FRR (10.7, the default, or 10.3), CHECK_DIR (the scratch
# clone, default a new directory under /tmp, removed at the end unless
# KEEP=1), STRICT=1 (exit 1 when a patch does not apply as it is: anything
# but clean or offset)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
FRR_GIT=${1:-https://github.com/FRRouting/frr.git}
REF=${2:-master}
SERIES=$FRR_PATCHES/series
[ -f "$SERIES" ] || { echo "no series: $SERIES" >&2; exit 1; }
CHECK=${CHECK_DIR:-$(mktemp -d /tmp/fare-upstream.XXXXXX)}
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$CHECK"' EXIT
TREE=$CHECK/frr
LOG=$CHECK/log

rm -rf "$TREE"
git clone -q --no-checkout "$FRR_GIT" "$TREE"
# REF may be a branch of the source (origin/REF in the clone) or a commit.
BASE=$(git -C "$TREE" rev-parse -q --verify "origin/$REF^{commit}" ||
	git -C "$TREE" rev-parse --verify "$REF^{commit}")
git -C "$TREE" checkout -q -b fare-upstream-check "$BASE"
git -C "$TREE" config user.name "FARE for FRR"
git -C "$TREE" config user.email fare-frr@users.noreply.invalid
echo "FRR $REF at $(git -C "$TREE" log -1 --format='%H (%cd)' --date=iso-strict "$BASE")"
echo "series $SERIES"

# The failed hunks of a patch that does not apply, from a dry run of
# patch(1): "file: hunk N at line L, in <function from the hunk header>".
failed_hunks() {
	local p=$1 file n at func out
	out=$(cd "$TREE" && patch -p1 --dry-run -f <"$p" 2>&1 || true)
	printf '%s\n' "$out" | while IFS= read -r line; do
		case $line in
		"checking file "*) echo "${line#checking file }" >"$CHECK/file" ;;
		"Hunk #"*FAILED*)
			file=$(cat "$CHECK/file")
			n=${line#Hunk #}
			n=${n%% *}
			# Function of hunk n of that file, from the patch's @@ lines.
			func=$(awk -v f="$file" -v n="$n" '
				/^\+\+\+ / { cur = substr($2, 3); h = 0 }
				/^@@ / && cur == f { h++; if (h == n) {
					sub(/^@@ [^@]* @@ ?/, ""); print; exit } }' "$p")
			at=${line#*FAILED at }
			echo "    $file: hunk $n, line ${at%.}, in ${func:-?}"
			;;
		esac
	done
}

bad=0
while read -r name; do
	case $name in '' | '#'*) continue ;; esac
	p=$FRR_PATCHES/$name
	dry=$(cd "$TREE" && patch -p1 --dry-run -f --fuzz=0 <"$p" 2>&1 || true)
	if git -C "$TREE" am -q "$p" >"$LOG" 2>&1; then
		if grep -q 'offset' <<<"$dry"; then
			echo "offset    $name"
			grep -o '^Hunk #[0-9]* succeeded at [0-9]* (offset [-0-9]* lines*)' <<<"$dry" |
				sed 's/^/    /' | head -n 5
		else
			echo "clean     $name"
		fi
		continue
	fi
	git -C "$TREE" am --abort
	bad=1
	if git -C "$TREE" am -q -3 "$p" >"$LOG" 2>&1; then
		echo "3way      $name"
		continue
	fi
	conflicted=$(git -C "$TREE" diff --name-only --diff-filter=U | paste -sd' ')
	git -C "$TREE" am --abort
	# Try patch(1) with its default fuzz inside a stopped `git am`, so that
	# the commit keeps the patch's message.
	git -C "$TREE" am -q "$p" >"$LOG" 2>&1 || true
	if (cd "$TREE" && patch -p1 --dry-run -s -f <"$p" >/dev/null 2>&1); then
		fuzzout=$(cd "$TREE" && patch -p1 -f <"$p" 2>&1)
		find "$TREE" -name '*.orig' -newer "$p" -delete
		git -C "$TREE" add -A
		git -C "$TREE" am --continue -q >"$LOG" 2>&1
		echo "fuzz      $name"
		grep -o '^Hunk #[0-9]* succeeded at [0-9]* with fuzz [0-9]*.*' <<<"$fuzzout" |
			sed 's/^/    /'
		continue
	fi
	git -C "$TREE" am --abort
	echo "CONFLICT  $name (3-way merge conflicts in: ${conflicted:-?})"
	failed_hunks "$p"
done <"$SERIES"

[ "${STRICT:-0}" = 1 ] && exit $bad
exit 0
