#!/usr/bin/env bash
# Benchmark: the control-plane cost per GPU server in a multi-plane
# scale-up network (SUN-1). Pods of 64, 1024 and 4096 GPUs
# (FARE_BENCH_SUN_SIZES), 8 GPUs per server, 4 planes, Y-cables of two
# sub-ports: one measured server (8 sessions, N - 8 remote GPU /32s) cold
# started FARE_BENCH_SUN_RUNS times (3) in the running pod, plain ECMP
# (bgpd without the module) next to FARE's host role; then one sub-port of
# a remote server's Y-cable fails. Prints sessions, routes, nexthop groups,
# bgpd and zebra CPU and memory, the times to the kernel; not part of the
# test suite. About 5 minutes.
# usage: scripts/bench-sun.sh   (FARE_BENCH_SUN_SIZES=64,1024 to shorten)
set -euo pipefail

exec "$(dirname "$0")/bench-run.sh" fare_bench_sun "$@"
