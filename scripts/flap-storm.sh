#!/usr/bin/env bash
# The flap storm: topotest fare_storm (topotests/fare_storm, not part of
# scripts/run-tests.sh's run) with 1000 random events and a 60 s quiet
# period (the module's own defaults: 200 events, 20 s), then its report:
# the seed, the events by type, the storm's duration, the comparison with
# a fabric started fresh in the final state, the UPDATEs in the quiet
# period, and the module's memory counters and bgpd's and zebra's RSS per
# router before and after.
#
# usage: scripts/flap-storm.sh [pytest args...]
#   FARE_STORM_EVENTS (default here 1000), FARE_STORM_QUIET (60),
#   FARE_STORM_SEED (random; printed, and the same seed gives the same
#   events), FARE_STORM_WARMUP (30), FARE_STORM_GAP (0.15 s mean between
#   events), FARE_STORM_RSS_PCT (unset: RSS printed, not asserted) pass
#   through to the test.
#   FARE_STORM_NO_BUILD=1: do not run scripts/build.sh first.
#   FARE_TEST_GUARD=DIR: a directory holding a pytest plugin
#   fare_nocleanup.py that keeps this run from cleaning up (killing) the
#   topotests of another run on the same machine (default /tmp/fs-helper,
#   used only if it exists; FARE_TEST_GUARD= turns it off). Either way the
#   run carries MUNET_PID (the pytest process), so that another run's
#   clean-up sees it alive and leaves it alone.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"

if [ "${FARE_STORM_NO_BUILD:-0}" = 1 ]; then
	topotest_setup --no-build
else
	topotest_setup
fi

export FARE_STORM_EVENTS=${FARE_STORM_EVENTS:-1000}
export FARE_STORM_QUIET=${FARE_STORM_QUIET:-60}
export FARE_REPORT=$BUILD/fare_storm.txt
log=$BUILD/fare_storm.log
rm -f "$FARE_REPORT"

plugin=()
guard=${FARE_TEST_GUARD-/tmp/fs-helper}
if [ -n "$guard" ] && [ -f "$guard/fare_nocleanup.py" ]; then
	export PYTHONPATH=$guard${PYTHONPATH:+:$PYTHONPATH}
	plugin=(-p fare_nocleanup)
	echo "flap-storm: with the clean-up guard of $guard"
fi

echo "flap-storm: $FARE_STORM_EVENTS events, quiet $FARE_STORM_QUIET s; log $log"
start=$(date +%s)
rc=0
PATH=/usr/sbin:/usr/bin:/sbin:/bin bash -c \
	'exec env MUNET_PID=$$ /usr/bin/python3 -m pytest "$@"' flap-storm \
	"${plugin[@]}" -p no:cacheprovider -q -o log_cli=false fare_storm "$@" >"$log" 2>&1 || rc=$?
[ ! -f "$FARE_REPORT" ] || cat "$FARE_REPORT"
tail -n 1 "$log"
echo "flap-storm: $(($(date +%s) - start)) s, pytest exit $rc"
if [ $rc -ne 0 ]; then
	grep -E '^E ' "$log" | head -n 40
fi
exit $rc
