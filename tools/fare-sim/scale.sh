#!/usr/bin/env bash
# fare-sim at scale: time and peak memory (/usr/bin/time -v) of the runs
# doc/user/fare-sim.rst reports: a 3-stage fabric of 32,768 GPUs and a
# 5-stage one of 131,072 GPUs, 5% of the links failed and 10% halved.
# Not part of the test run.
#
# usage: tools/fare-sim/scale.sh      environment: FARE_SIM (the program)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${FARE_SIM:-$TOP/build/core/tools/fare-sim/fare-sim}
CLOS3=gen:clos3:leaves=512,spines=64,gbps=800
CLOS5=gen:clos5:pods=64,leaves=32,spines=64,supers=32,gbps=800
FAIL=(--fail-rate 0.05 --halve-rate 0.1 --seed 1)

run() {
	local log
	log=$(mktemp)
	echo "\$ fare-sim $*"
	/usr/bin/time -v "$SIM" "$@" 2>"$log"
	sed -n 's/^\s*Elapsed (wall clock) time (h:mm:ss or m:ss): /wall clock: /p;
		s/^\s*User time (seconds): /CPU user (s): /p;
		s/^\s*Maximum resident set size (kbytes): /peak memory (kB): /p' "$log"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	rm -f "$log"
	echo
}

run eval "$CLOS3" "${FAIL[@]}" --pattern all-to-one
run eval "$CLOS3" "${FAIL[@]}" --pattern permutation
run event "$CLOS3" "${FAIL[@]}" --event "fail leaf1 spine1"
run eval "$CLOS5" "${FAIL[@]}" --pattern all-to-one
run eval "$CLOS5" "${FAIL[@]}" --pattern permutation --pairs 256
run event "$CLOS5" "${FAIL[@]}" --event "fail p1-leaf1 p1-spine1" --prefixes 64
# memory against links: the 5-stage fabric at 1/4, 1/2 and all of its pods
for pods in 16 32 64; do
	run eval "gen:clos5:pods=$pods,leaves=32,spines=64,supers=32,gbps=800" "${FAIL[@]}" \
		--pattern all-to-one --rules draft
done
