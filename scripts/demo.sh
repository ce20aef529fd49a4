#!/usr/bin/env bash
# The main job: build everything (incremental), then run the demo fabric and
# print what FARE does there. Run as root on Debian 12.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
export BUILD

"$TOP/scripts/build.sh"
"$TOP/scripts/setup-test-env.sh"
ln -sfn "$TOP/demo/fare_demo" "$BUILD/frr/tests/topotests/fare_demo"
cd "$BUILD/frr/tests/topotests"
PATH=/usr/sbin:/usr/bin:/sbin:/bin exec /usr/bin/python3 -m pytest -p no:cacheprovider \
	-s -q -o log_cli=false --log-cli-level=CRITICAL fare_demo "$@"
