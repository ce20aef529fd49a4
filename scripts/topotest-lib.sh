# Sourced by the scripts that run topotests (run-tests.sh,
# run-frr-topotests.sh): run_pytest runs FRR's topotest library's pytest in
# the current directory (FRR's tests/topotests) with Debian's python3 first
# in PATH, and fails when no test was collected. Arguments go to pytest.
# pytest_status does the same and returns pytest's own exit status (5: no
# test collected), for a caller that runs several selections of which one
# may be empty.
pytest_status() {
	local rc=0
	PATH=/usr/sbin:/usr/bin:/sbin:/bin /usr/bin/python3 -m pytest \
		-p no:cacheprovider -o log_cli=false "$@" || rc=$?
	return $rc
}

run_pytest() {
	local rc=0
	pytest_status "$@" || rc=$?
	[ $rc -ne 5 ] || { echo "pytest collected no test" >&2; rc=1; }
	return $rc
}
