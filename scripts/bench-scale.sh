#!/usr/bin/env bash
# Benchmark: the cost of FARE at scale. 100,000 prefixes (FARE_BENCH_PREFIXES)
# with 8 equal-cost paths each; plain ECMP, FRR's link-bandwidth WCMP, FARE
# draft and FARE averaged each from a cold start of every bgpd, then one link
# failure. Prints bgpd CPU and peak RSS, failure-to-kernel time and kernel
# events; not part of the test suite.
# usage: scripts/bench-scale.sh   (FARE_BENCH_PREFIXES=20000 to shorten)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD

"$TOP/scripts/build.sh"
"$TOP/scripts/setup-test-env.sh"
ln -sfn "$TOP/bench/fare_bench_scale" "$BUILD/frr/tests/topotests/fare_bench_scale"
export FARE_REPORT=$BUILD/bench-scale.txt
rm -f "$FARE_REPORT"
cd "$BUILD/frr/tests/topotests"
PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest -p no:cacheprovider -q \
	-o log_cli=false fare_bench_scale "$@" >"$BUILD/bench-scale.log" 2>&1 ||
	{ grep -E '^E ' "$BUILD/bench-scale.log" | head -n 30; exit 1; }
cat "$FARE_REPORT"
