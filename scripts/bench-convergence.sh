#!/usr/bin/env bash
# Benchmark: link failure to the remote leaf's kernel weights, for 1, 1000
# and 10000 prefixes, FARE (draft, averaged) next to FRR's link-bandwidth
# cumulative WCMP. Prints a table; not part of the test suite.
# usage: scripts/bench-convergence.sh   (FARE_BENCH_SIZES=1,1000 to shorten)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD

"$TOP/scripts/build.sh"
"$TOP/scripts/setup-test-env.sh"
ln -sfn "$TOP/bench/fare_bench_convergence" "$BUILD/frr/tests/topotests/fare_bench_convergence"
export FARE_REPORT=$BUILD/bench-convergence.txt
rm -f "$FARE_REPORT"
cd "$BUILD/frr/tests/topotests"
PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest -p no:cacheprovider -q \
	-o log_cli=false fare_bench_convergence "$@" >"$BUILD/bench-convergence.log" 2>&1 ||
	{ grep -E '^E ' "$BUILD/bench-convergence.log" | head -n 30; exit 1; }
cat "$FARE_REPORT"
