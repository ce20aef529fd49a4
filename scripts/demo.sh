#!/usr/bin/env bash
# The main job: build everything (incremental), start the demo fabric on
# real FRR daemons in network namespaces, and print what FARE does there.
# Run as root on Debian 12.
#
# usage: scripts/demo.sh [clos|whitepaper|ecmp|sun] [pytest args...]
#   clos (default): 3-stage fabric, one degraded link, FARE vs ECMP traffic
#   whitepaper: the white paper's worked example in averaged mode (WP-4)
#   ecmp: Enhanced ECMP, 4 elephant flows from 4 host ports over 4 uplinks:
#         hash ECMP (a few runs, flows sharing an uplink) against
#         ingress-interface grouping (EE-1, one flow per uplink)
#   sun: GPU servers in a 4-plane scale-up network, a server's per-GPU plane
#        table before and after a Y-cable half failure (SUN-1, SUN-2)
set -euo pipefail

demo=fare_demo
case "${1:-}" in
clos) shift ;;
whitepaper) demo=fare_demo_whitepaper; shift ;;
ecmp) demo=fare_demo_ecmp; shift ;;
sun) demo=fare_demo_sun; shift ;;
esac

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"

topotest_setup "$TOP/demo/$demo"

export FARE_REPORT=$BUILD/demo-report.txt
rm -f "$FARE_REPORT"
echo "demo: starting the fabric (log: $BUILD/demo-pytest.log)"
rc=0
pytest_status -q "$demo" "$@" >"$BUILD/demo-pytest.log" 2>&1 || rc=$?
echo
cat "$FARE_REPORT" 2>/dev/null || true
echo
if [ $rc -ne 0 ]; then
	grep -E '^E |FAILED|Error' "$BUILD/demo-pytest.log" | head -n 40
	echo "demo: failed (rc $rc), see $BUILD/demo-pytest.log"
	exit $rc
fi
tail -n 1 "$BUILD/demo-pytest.log"
