#!/usr/bin/env bash
# Benchmark: the cost of FARE at scale. 100,000 prefixes (FARE_BENCH_PREFIXES)
# with 8 equal-cost paths each; plain ECMP, FRR's link-bandwidth WCMP, FARE
# draft and FARE averaged each from a cold start of every bgpd, then one link
# failure. Prints bgpd CPU and peak RSS, failure-to-kernel time and kernel
# events; not part of the test suite.
# usage: scripts/bench-scale.sh   (FARE_BENCH_PREFIXES=20000 to shorten)
set -euo pipefail

exec "$(dirname "$0")/bench-run.sh" fare_bench_scale "$@"
