#!/usr/bin/env bash
# fare-sim: throughput against link failure rate for each rule and each
# pattern (permutation, all-to-one, 64 single pairs), as PNG
# plots (gnuplot, Debian: gnuplot-nox) in doc/user/figures/ (or OUTDIR),
# with their data (.dat). Not part of the test run (doc/user/fare-sim.rst).
#
# usage: tools/fare-sim/plot.sh [OUTDIR]
# environment: FARE_SIM (the program; default build/core/tools/fare-sim/fare-sim),
#   FABRIC (default gen:clos3:leaves=128,spines=32,gbps=800), SEEDS (default 3),
#   RATES (link failure rates; each also halves twice as many links)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$TOP/doc/user/figures}
SIM=${FARE_SIM:-$TOP/build/core/tools/fare-sim/fare-sim}
FABRIC=${FABRIC:-gen:clos3:leaves=128,spines=32,gbps=800}
SEEDS=${SEEDS:-3}
RATES=${RATES:-0 0.01 0.02 0.04 0.06 0.08 0.1 0.15 0.2}
RULES=(ecmp frr-cumulative draft per-session averaged)
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found (Debian: apt-get install gnuplot-nox)" >&2; exit 1; }
[ -x "$SIM" ] || { echo "plot.sh: $SIM not built (scripts/build.sh)" >&2; exit 1; }
mkdir -p "$OUT"

for pattern in permutation all-to-one pairs; do
	dat=$OUT/fare-sim-$pattern.dat
	extra=()
	[ "$pattern" != pairs ] || extra=(--pairs 64) # 64 random pairs, each alone
	echo "# $FABRIC, pattern $pattern ${extra[*]}, mean of $SEEDS seeds; halved links: twice the failure rate" >"$dat"
	echo "fail ${RULES[*]}" >>"$dat"
	for f in $RATES; do
		h=$(awk -v f="$f" 'BEGIN { print 2 * f }')
		line=$f
		for rule in "${RULES[@]}"; do
			sum=0
			for seed in $(seq 1 "$SEEDS"); do
				v=$("$SIM" eval "$FABRIC" --pattern "$pattern" --fail-rate "$f" "${extra[@]}" \
					--halve-rate "$h" --seed "$seed" --rules "$rule" --csv | cut -d, -f5)
				sum=$(awk -v a="$sum" -v b="$v" 'BEGIN { print a + b }')
			done
			line="$line $(awk -v s="$sum" -v n="$SEEDS" 'BEGIN { printf "%.4f", s / n }')"
		done
		echo "$line" >>"$dat"
	done
	gnuplot <<GP
set terminal pngcairo size 800,500 font ",11"
set output "$OUT/fare-sim-$pattern.png"
set title "$pattern on ${FABRIC#gen:}: throughput / max-flow"
set xlabel "links failed; twice as many run at half speed"
set ylabel "throughput (fraction of the reference)"
set format x "%.0f%%"
set yrange [0:1.05]
set key bottom left
set grid
plot for [i=2:6] "$dat" using (\$1*100):i with linespoints lw 2 pt (i+4) ps 1.2 title columnhead(i)
GP
	echo "plot: $OUT/fare-sim-$pattern.png ($dat)"
done
