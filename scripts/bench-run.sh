#!/usr/bin/env bash
# Run one benchmark module of bench/ (a topotest module that prints a
# table through fare_common.report) on the project's build, and print its
# table. Used by scripts/bench-convergence.sh, scripts/bench-scale.sh and
# scripts/bench-sun.sh.
# usage: scripts/bench-run.sh NAME [pytest args...]   NAME: fare_bench_scale
set -euo pipefail

NAME=${1:?usage: bench-run.sh NAME [pytest args...]}
shift
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"

"$TOP/scripts/build.sh"
"$TOP/scripts/setup-test-env.sh"
ln -sfn "$TOP/bench/$NAME" "$BUILD/frr/tests/topotests/$NAME"
export FARE_REPORT=$BUILD/$NAME.txt
rm -f "$FARE_REPORT"
cd "$BUILD/frr/tests/topotests"
PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest -p no:cacheprovider -q \
	-o log_cli=false "$NAME" "$@" >"$BUILD/$NAME.log" 2>&1 ||
	{ grep -E '^E ' "$BUILD/$NAME.log" | head -n 30; exit 1; }
cat "$FARE_REPORT"
