#!/usr/bin/env bash
# The benchmarks (bench/, doc/benchmarks.rst): each prints a table; none is
# part of the test suite. Run as root on Debian 12.
#
# usage: scripts/bench.sh NAME [pytest args...]
#   convergence  link failure to the remote leaf's kernel weights, for 1,
#       1000 and 10000 prefixes, FARE (draft, averaged) next to FRR's
#       link-bandwidth cumulative WCMP (FARE_BENCH_SIZES=1,1000 to shorten).
#   scale  the cost of FARE at scale: 100,000 prefixes (FARE_BENCH_PREFIXES,
#       e.g. 20000 to shorten) with 8 equal-cost paths each; plain ECMP,
#       FRR's link-bandwidth WCMP, FARE draft and FARE averaged, without
#       and with shared nexthop groups (FARE_BENCH_VARIANTS to pick some),
#       each from a cold start of every bgpd, then a remote event (a
#       spine's link fails) and a local one (leaf2's own link degrades):
#       bgpd CPU and peak RSS, event-to-kernel times and kernel events, the
#       longest bgpd task. FARE_BENCH_TRACE=1 logs the local event in
#       leaf2's bgpd and zebra with microsecond timestamps (not for figures).
#   spine  a spine with 64 BGP sessions (8 leaves, 8 parallel links each)
#       and 200,000 prefixes (FARE_BENCH_SPINE_PREFIXES) carrying 1,000
#       distinct ECMP GroupIDs (FARE_BENCH_SPINE_GROUPS), leaf8 an ingress
#       leaf with sub-groups; the same six variants as scale and
#       ecmp-tagged, plain ECMP whose leaves tag their prefixes with as
#       many route targets as FARE's GroupIDs (FARE_BENCH_VARIANTS):
#       bgpd CPU and peak RSS from a cold start, a local event at the
#       spine (its link to leaf1 degrades), a session reset, the longest
#       bgpd task and the module's own longest task. About 25 min for
#       the six (all seven not timed). FARE_BENCH_SPINE_COLD_ROUNDS=K (1) cold starts every
#       variant K times in all, in turns, and adds their median (min-max):
#       about 1.5 min more per variant and round.
#       FARE_BENCH_SPINE_LOOP_DETECTION=1 configures the leaves with
#       sender-side AS-path loop detection towards the spine.
#       FARE_BENCH_SPINE_UPDATE_DELAY=S gives the spine bgpd's
#       `update-delay S` (each prefix selected and sent once after every
#       session's End-of-RIB).
#       FARE_BENCH_SPINE_TASKS=1 saves the spine's and leaf8's `show event
#       cpu` and `show zebra client` after each cold start.
#       FARE_BENCH_TRACE=1 logs FARE's decisions on the spine and leaf8
#       (not for figures).
#       FARE_BENCH_TRACE_ZEBRA=1 logs each route leaf8's bgpd sends zebra
#       (not for figures).
#   sun  the control-plane cost per GPU server in a multi-plane scale-up
#       network (SUN-1): pods of 64, 1024 and 4096 GPUs
#       (FARE_BENCH_SUN_SIZES=64,1024 to shorten), 8 GPUs per server, 4
#       planes, Y-cables of two sub-ports: one measured server cold started
#       FARE_BENCH_SUN_RUNS times (3) in the running pod, plain ECMP (bgpd
#       without the module) next to FARE's host role; then one sub-port of a
#       remote server's Y-cable fails. Sessions, routes, nexthop groups,
#       bgpd and zebra CPU and memory, the times to the kernel. About 5 min.
#   rss  how far bgpd's resident heap moves with BGP session resets alone:
#       bgpd with FARE next to bgpd without the module, three sessions
#       cleared FARE_BENCH_RSS_STEPS - 1 times (default 6 steps), the heap
#       trimmed (malloc_trim through gdb) before each reading: the trimmed
#       heap RSS, FRR's counted bytes and the input ring buffers per step.
#       About 90 s.
#   dataplane  the FARE data-plane agent (fare-dpd) on a veth fabric in
#       plain `ip netns` namespaces, no FRR: packets per second forwarded by
#       a router with plain hash ECMP against fare-dpd's per-packet spray
#       (same traffic), the per-member split against the 1:1:2:2 weights,
#       and in per-flow mode the agent's memory per 10k tracked flows, its
#       CPU and its rebalance time after a weight change. About a minute;
#       its namespaces are fdpb-<pid>-{s,r,d}, deleted on exit. Environment:
#       FARE_BENCH_SECONDS=6 (per run), FARE_BENCH_RUNS=3,
#       FARE_BENCH_THREADS=<CPUs> (sender threads),
#       FARE_BENCH_FLOWS=10000,50000; the table is also appended to
#       $FARE_REPORT when set. No pytest arguments.
# NAME runs the topotest module bench/fare_bench_NAME (which prints its
# table through fare.common.report) on the project's build, its pytest log
# in $BUILD/fare_bench_NAME.log; dataplane runs bench/dataplane/.
set -euo pipefail

usage() {
	echo "usage: scripts/bench.sh convergence|scale|spine|sun|rss|dataplane [pytest args...]" >&2
	exit 2
}
[ $# -ge 1 ] || usage
NAME=$1
shift
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"

bench_topotest() {
	local name=fare_bench_$1
	shift
	topotest_setup "$TOP/bench/$name"
	export FARE_REPORT=$BUILD/$name.txt
	rm -f "$FARE_REPORT"
	pytest_status -q "$name" "$@" >"$BUILD/$name.log" 2>&1 ||
		{ grep -E '^E ' "$BUILD/$name.log" | head -n 30; exit 1; }
	cat "$FARE_REPORT"
}

bench_dataplane() {
	local dp=$BUILD/core/dataplane pfx=fdpb-$$- tmp rc=0 t
	[ "$(id -u)" = 0 ] || { echo "bench dataplane: run as root" >&2; exit 1; }
	for t in ip nft gcc; do
		command -v $t >/dev/null || { echo "bench dataplane: $t is needed" >&2; exit 1; }
	done
	if [ ! -x "$dp/fare-dpd" ] || [ ! -x "$dp/fare-dp" ]; then
		(cd "$BUILD/core" && make -s)
	fi
	tmp=$(mktemp -d /tmp/fdpb-$$.XXXXXX)
	DP_PFX=$pfx DP_TMP=$tmp DP_DRIVER=
	trap dataplane_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	gcc -O2 -Wall -pthread -o "$tmp/udpgen" "$TOP/bench/dataplane/udpgen.c"
	local ct
	ct=$(command -v conntrack || true)
	# in the background, so that a signal to this script is handled at once
	/usr/bin/python3 "$TOP/bench/dataplane/bench_dataplane.py" --prefix "$pfx" --tmp "$tmp" \
		--dpd "$dp/fare-dpd" --dp "$dp/fare-dp" --udpgen "$tmp/udpgen" ${ct:+--conntrack "$ct"} &
	DP_DRIVER=$!
	wait "$DP_DRIVER" || rc=$?
	DP_DRIVER=
	exit $rc
}

dataplane_cleanup() {
	local ns pid left
	trap - EXIT INT TERM
	if [ -n "$DP_DRIVER" ] && kill -0 "$DP_DRIVER" 2>/dev/null; then
		kill -TERM "$DP_DRIVER" 2>/dev/null || true # it deletes its namespaces
		wait "$DP_DRIVER" 2>/dev/null || true
	fi
	for ns in $(ip netns list | awk '{print $1}' | grep "^$DP_PFX" || true); do
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
	rm -rf "$DP_TMP"
}

case $NAME in
convergence | scale | spine | sun | rss) bench_topotest "$NAME" "$@" ;;
dataplane) bench_dataplane ;;
*) usage ;;
esac
