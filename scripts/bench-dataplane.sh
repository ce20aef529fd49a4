#!/usr/bin/env bash
# Benchmark: the FARE data-plane agent (fare-dpd) on a veth fabric in plain
# `ip netns` namespaces, no FRR. Packets per second forwarded by a router
# with plain hash ECMP against fare-dpd's per-packet spray (same traffic),
# the per-member split against the 1:1:2:2 weights, and in per-flow mode
# the agent's memory per 10k tracked flows, its CPU and its rebalance time
# after a weight change. Not part of the test suite; about a minute.
# Runs as root; its namespaces are fdpb-<pid>-{s,r,d}, deleted on exit.
# usage: scripts/bench-dataplane.sh
#   FARE_BENCH_SECONDS=6 (per run), FARE_BENCH_RUNS=3, FARE_BENCH_THREADS=<CPUs>
#   (sender threads), FARE_BENCH_FLOWS=10000,50000; the table is also appended
#   to $FARE_REPORT when set. The helpers are in bench/dataplane/.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
DP=$BUILD/core/dataplane

[ "$(id -u)" = 0 ] || { echo "bench-dataplane: run as root" >&2; exit 1; }
for t in ip nft gcc; do
	command -v $t >/dev/null || { echo "bench-dataplane: $t is needed" >&2; exit 1; }
done
if [ ! -x "$DP/fare-dpd" ] || [ ! -x "$DP/fare-dp" ]; then
	(cd "$BUILD/core" && make -s)
fi

PFX=fdpb-$$-
TMP=$(mktemp -d /tmp/fdpb-$$.XXXXXX)

DRIVER=
cleanup() {
	local ns pid left
	trap - EXIT INT TERM
	if [ -n "$DRIVER" ] && kill -0 "$DRIVER" 2>/dev/null; then
		kill -TERM "$DRIVER" 2>/dev/null || true # it deletes its namespaces
		wait "$DRIVER" 2>/dev/null || true
	fi
	for ns in $(ip netns list | awk '{print $1}' | grep "^$PFX" || true); do
		# only processes inside our own namespaces (a fare-dpd left running)
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill "$pid" 2>/dev/null || true
		done
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			left=$(ip netns pids "$ns" 2>/dev/null)
			[ -z "$left" ] && break
			sleep 0.2
		done
		for pid in $left; do
			kill -9 "$pid" 2>/dev/null || true
		done
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

gcc -O2 -Wall -pthread -o "$TMP/udpgen" "$TOP/bench/dataplane/udpgen.c"

CT=$(command -v conntrack || true)
# in the background, so that a signal to this script is handled at once
/usr/bin/python3 "$TOP/bench/dataplane/bench_dataplane.py" --prefix "$PFX" --tmp "$TMP" \
	--dpd "$DP/fare-dpd" --dp "$DP/fare-dp" --udpgen "$TMP/udpgen" ${CT:+--conntrack "$CT"} &
DRIVER=$!
rc=0
wait "$DRIVER" || rc=$?
DRIVER=
exit $rc
