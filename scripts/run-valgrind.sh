#!/usr/bin/env bash
# Valgrind's Memcheck on topotests, by default fare_lifecycle (the module
# loaded, configured, unconfigured and reloaded): FRR's topotest library
# starts every daemon under valgrind --leak-check=full (its option
# --valgrind-memleaks, here with every leak kind shown, still reachable
# at exit included), then scripts/sanitizer-report.py sorts the reports of
# the daemons' logs: those with a frame in the module first, then FRR's
# own. The build is build/ (BUILD), as for scripts/run-tests.sh. Exits
# non-zero when a report is the module's or a test failed for another
# reason than the library's leak check (which fails a test on any leak,
# FRR's included). Not part of the default test run.
#
# usage: scripts/run-valgrind.sh [TOPOTEST...] [-- pytest args...]
#   e.g. scripts/run-valgrind.sh fare_lifecycle fare_basic -- -x
# environment: BUILD, PYTEST (the pytest command, default
#   "/usr/bin/python3 -m pytest")
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"
read -r -a FARE_PYTEST <<<"${PYTEST:-/usr/bin/python3 -m pytest}"

tests=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	tests+=("$1")
	shift
done
[ "${1:-}" != "--" ] || shift
[ ${#tests[@]} -gt 0 ] || tests=(fare_lifecycle)

topotest_setup

# each topotest module logs to /tmp/topotests/<dir>.<module>
logdirs=()
for t in "${tests[@]}"; do
	for f in "$t"/test_*.py; do
		[ -e "$f" ] || { echo "run-valgrind: no topotest $t" >&2; exit 1; }
		logdirs+=("/tmp/topotests/$t.$(basename "$f" .py)")
	done
done
junit=$(mktemp --suffix=.xml)
trap 'rm -f "$junit"' EXIT

rc=0
pytest_status --valgrind-memleaks --valgrind-leak-kinds=all --junitxml="$junit" \
	"${tests[@]}" "$@" || rc=$?
[ $rc -ne 5 ] || { echo "pytest collected no test" >&2; exit 1; }
[ -s "$junit" ] || { echo "pytest did not run (exit $rc)" >&2; exit 1; }
/usr/bin/python3 "$TOP/scripts/sanitizer-report.py" --junit "$junit" "${logdirs[@]}"
