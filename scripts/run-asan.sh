#!/usr/bin/env bash
# Sanitizers on the test suite: FRR, the patches and the module built with
# AddressSanitizer and UndefinedBehaviorSanitizer in build-asan/
# (scripts/build.sh --asan), the test suite run on that build (pytest
# arguments pass through, e.g. -k lifecycle), then every sanitizer report the
# daemons left in the topotests' logs sorted: those with a frame in the
# module (bgpd/fare/) first, then FRR's own. Not part of the default test run.
#
# usage: scripts/run-asan.sh [pytest args...]   (environment: RUNDIR, default
#        /tmp/topotests-asan)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
export BUILD=$TOP/build-asan

# The topotests' logs, where the reports are, in a directory of their own
# (RUNDIR) so that other topotest runs on the machine are left alone.
RUNDIR=${RUNDIR:-/tmp/topotests-asan}
rm -rf "$RUNDIR" /tmp/AddressSanitzer.txt
bash "$TOP/scripts/build.sh" --asan
rc=0
start=$(date +%s)
bash "$TOP/scripts/run-tests.sh" --rundir "$RUNDIR" "$@" || rc=$?
echo "test suite on the sanitizer build: $(($(date +%s) - start)) s, rc $rc"
/usr/bin/python3 "$TOP/scripts/sanitizer-report.py" "$RUNDIR" || rc=1
exit $rc
