#!/usr/bin/env bash
# Benchmark: how far bgpd's resident heap moves with BGP session resets
# alone (bench/fare_bench_rss): bgpd with FARE next to bgpd without the
# module, three sessions cleared FARE_BENCH_RSS_STEPS - 1 times (default
# 6 steps), the heap trimmed (malloc_trim through gdb) before each reading.
# Prints the trimmed heap RSS, FRR's counted bytes and the input ring
# buffers per step; not part of the test suite. About 90 s.
# usage: scripts/bench-rss.sh
set -euo pipefail

exec "$(dirname "$0")/bench-run.sh" fare_bench_rss "$@"
