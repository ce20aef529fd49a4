#!/usr/bin/env bash
# The main job: build everything (incremental), start the demo fabric on
# real FRR daemons in network namespaces, and print what FARE does there.
# Run as root on Debian 12.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD

"$TOP/scripts/build.sh"
"$TOP/scripts/setup-test-env.sh"
ln -sfn "$TOP/demo/fare_demo" "$BUILD/frr/tests/topotests/fare_demo"

export FARE_REPORT=$BUILD/demo-report.txt
rm -f "$FARE_REPORT"
echo "demo: starting the fabric (log: $BUILD/demo-pytest.log)"
cd "$BUILD/frr/tests/topotests"
rc=0
PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest -p no:cacheprovider \
	-q -o log_cli=false fare_demo "$@" >"$BUILD/demo-pytest.log" 2>&1 || rc=$?
echo
cat "$FARE_REPORT" 2>/dev/null || true
echo
if [ $rc -ne 0 ]; then
	grep -E '^E |FAILED|Error' "$BUILD/demo-pytest.log" | head -n 40
	echo "demo: failed (rc $rc), see $BUILD/demo-pytest.log"
	exit $rc
fi
tail -n 1 "$BUILD/demo-pytest.log"
