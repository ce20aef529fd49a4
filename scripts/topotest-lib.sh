# The prelude of the scripts that run topotests (run-tests.sh,
# run-frr-topotests.sh, run-valgrind.sh, flap-storm.sh, demo.sh, bench.sh),
# sourced with TOP set to the repository's top directory. It picks the FRR
# release and build directory (scripts/frr-target.sh: FARE_FRR, BUILD) and
# defines:
#   topotest_setup [--no-build] [DIR...]: build (scripts/build.sh,
#       incremental; not with --no-build), prepare the machine
#       (scripts/setup-test-env.sh: our topotests and their library linked
#       into FRR's tests/topotests/), link each DIR (a demo's or a
#       benchmark's topotest directory) there too, and cd there.
#   pytest_status [pytest args...]: FRR's topotest library's pytest in the
#       current directory with Debian's python3 first in PATH; returns
#       pytest's own exit status (5: no test collected), for a caller that
#       runs several selections of which one may be empty. FARE_PYTEST is
#       the command (default /usr/bin/python3 -m pytest).
#   run_pytest [pytest args...]: the same, and fails when no test was
#       collected.
. "$TOP/scripts/frr-target.sh"
FARE_TOPOTESTS=$BUILD/frr/tests/topotests
FARE_PYTEST=(/usr/bin/python3 -m pytest)

topotest_setup() {
	if [ "${1:-}" = --no-build ]; then
		shift
	else
		"$TOP/scripts/build.sh"
	fi
	"$TOP/scripts/setup-test-env.sh"
	local dir
	for dir in "$@"; do
		ln -sfn "$dir" "$FARE_TOPOTESTS/$(basename "$dir")"
	done
	cd "$FARE_TOPOTESTS"
}

pytest_status() {
	local rc=0
	PATH=/usr/sbin:/usr/bin:/sbin:/bin "${FARE_PYTEST[@]}" \
		-p no:cacheprovider -o log_cli=false "$@" || rc=$?
	return $rc
}

run_pytest() {
	local rc=0
	pytest_status "$@" || rc=$?
	[ $rc -ne 5 ] || { echo "pytest collected no test" >&2; rc=1; }
	return $rc
}
