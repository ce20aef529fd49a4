# Sourced by the scripts that run topotests (run-tests.sh,
# run-frr-topotests.sh): run_pytest runs FRR's topotest library's pytest in
# the current directory (FRR's tests/topotests) with Debian's python3 first
# in PATH, and fails when no test was collected. Arguments go to pytest.
run_pytest() {
	local rc=0
	PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest \
		-p no:cacheprovider -o log_cli=false "$@" || rc=$?
	[ $rc -ne 5 ] || { echo "pytest collected no test" >&2; rc=1; }
	return $rc
}
