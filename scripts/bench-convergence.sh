#!/usr/bin/env bash
# Benchmark: link failure to the remote leaf's kernel weights, for 1, 1000
# and 10000 prefixes, FARE (draft, averaged) next to FRR's link-bandwidth
# cumulative WCMP. Prints a table; not part of the test suite.
# usage: scripts/bench-convergence.sh   (FARE_BENCH_SIZES=1,1000 to shorten)
set -euo pipefail

exec "$(dirname "$0")/bench-run.sh" fare_bench_convergence "$@"
