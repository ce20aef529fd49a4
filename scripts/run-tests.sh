#!/usr/bin/env bash
# The whole test suite: build (incremental), the core's unit tests (cmocka,
# make check), then the topotests on real FRR daemons in network namespaces:
# ours (topotests/fare_*) and FRR's own bgp_link_bw_ip against the patched
# build. Run as root on Debian 12.
#
# usage: scripts/run-tests.sh [pytest args...]   e.g. -k clos3
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"

"$TOP/scripts/build.sh"

echo "=== unit tests (cmocka) ==="
# (build.sh configured $BUILD/core and built the cores and the agent)
(cd "$BUILD/core" && make -s check >/dev/null 2>&1) || unit_failed=1
for log in "$BUILD"/core/tests/unit/test_*.log; do
	cat "$log"
done
[ -z "${unit_failed:-}" ] || { echo "unit tests failed" >&2; exit 1; }

echo "=== fuzzing (libFuzzer, 12 s per target) ==="
(cd "$BUILD/core" && make -s fuzz FUZZ_SECONDS=12) || { echo "fuzzing failed" >&2; exit 1; }

echo "=== YANG model (yanglint) ==="
bash "$TOP/tests/yang/check-yang.sh"

echo "=== Wireshark dissector (tshark, Lua) ==="
bash "$TOP/tests/wireshark/check-dissector.sh"

echo "=== documentation (Sphinx, warnings as errors) ==="
bash "$TOP/scripts/build-docs.sh"

echo "=== configuration examples (vtysh --dryrun) ==="
for conf in "$TOP"/doc/examples/*.conf; do
	out=$("$BUILD/install/bin/vtysh" --dryrun -f "$conf" 2>&1) ||
		{ echo "$out" >&2; echo "$conf: refused by vtysh" >&2; exit 1; }
	echo "$conf: ok"
done

echo "=== data-plane agent's systemd unit (systemd-analyze verify) ==="
unit=$BUILD/install/lib/systemd/system/fare-dpd.service
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" || { echo "$unit: refused" >&2; exit 1; }
	echo "$unit: ok"
fi

echo "=== topotests ==="
topotest_setup --no-build
# Topotests that measure real traffic print their split: they run last.
traffic=(fare_traffic fare_wp5 fare_maxflow)
# Longer checks with their own command, not in this run:
# fare_storm (scripts/flap-storm.sh).
long=(fare_storm)
tests=()
for t in "$TOP"/topotests/fare_*/; do
	t=$(basename "$t")
	[[ " ${traffic[*]} ${long[*]} " == *" $t "* ]] || tests+=("$t")
done
tests+=(bgp_link_bw_ip)
# The traffic tests last and on their own, with their measured splits
# printed (-rP) right before the closing summary line. With a selection
# (-k NAME) one of the two runs may collect nothing (pytest's status 5);
# both collecting nothing fails.
# The others run in parallel, one test module (one fabric) per worker
# (pytest-xdist, --dist=loadfile): FARE_TEST_JOBS workers, default 2; 1 runs
# them one after another. Their fabrics live in namespaces of their own.
jobs=${FARE_TEST_JOBS:-2}
parallel=()
if [ "$jobs" -gt 1 ] && /usr/bin/python3 -c 'import xdist' 2>/dev/null; then
	parallel=(-n "$jobs" --dist=loadfile)
fi
main_rc=0 traffic_rc=0
pytest_status "${parallel[@]}" "${tests[@]}" "$@" || main_rc=$?
pytest_status -rP "${traffic[@]}" "$@" || traffic_rc=$?
rc=0
if [ $main_rc -eq 5 ] && [ $traffic_rc -eq 5 ]; then
	echo "pytest collected no test" >&2
	rc=1
fi
for r in $main_rc $traffic_rc; do
	[ "$r" -eq 0 ] || [ "$r" -eq 5 ] || rc=1
done
exit $rc
