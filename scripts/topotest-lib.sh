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
#       current directory with our build's bin/ (vtysh) and then Debian's
#       python3 first in PATH; returns
#       pytest's own exit status (5: no test collected), for a caller that
#       runs several selections of which one may be empty. FARE_PYTEST is
#       the command (default /usr/bin/python3 -m pytest).
#   run_pytest [pytest args...]: the same, and fails when no test was
#       collected.
#   topotest_diagnose: after a failed run, what a failed router start or a
#       broken machine leaves behind, in a few lines (CI shows the tail of
#       the output): the machine (load, memory, disk, vtysh, leftover
#       daemons), the routers whose daemons logged a crash, and the last
#       lines of mgmtd's and zebra's logs of the newest router directories.
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
	# our build's vtysh first: the library runs "vtysh" by PATH in every
	# router, whatever /usr/bin/vtysh is on this machine
	PATH=$BUILD/install/bin:/usr/sbin:/usr/bin:/sbin:/bin "${FARE_PYTEST[@]}" \
		-p no:cacheprovider -o log_cli=false "$@" || rc=$?
	return $rc
}

run_pytest() {
	local rc=0
	pytest_status "$@" || rc=$?
	[ $rc -ne 5 ] || { echo "pytest collected no test" >&2; rc=1; }
	return $rc
}

topotest_diagnose() {
	local logdir=/tmp/topotests dir d n=0
	echo "=== diagnostics of the failed topotest run ==="
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg); memory available:" \
		"$(awk '/MemAvailable/ {print int($2 / 1024) " MiB"}' /proc/meminfo);" \
		"/tmp free: $(df -Pm /tmp | awk 'NR == 2 {print $4 " MiB"}')"
	echo "vtysh: $(ls -l /usr/bin/vtysh 2>&1)"
	echo "FRR daemons still running: $(ps -eo comm= | grep -cxE 'mgmtd|zebra|bgpd|staticd|bfdd' || true)"
	grep -rlE "Received signal|core dumped|Assertion .* failed" "$logdir" \
		--include='*.log' 2>/dev/null | head -n 5 | sed 's/^/crash logged: /'
	for dir in $(ls -td "$logdir"/*/*/ 2>/dev/null | head -n 40); do
		[ -f "$dir/zebra.log" ] || [ -f "$dir/mgmtd.log" ] || continue
		for d in mgmtd zebra; do
			[ -f "$dir/$d.log" ] || { echo "--- ${dir#"$logdir"/}: no $d.log"; continue; }
			echo "--- ${dir#"$logdir"/}$d.log (last 6 lines)"
			tail -n 6 "$dir/$d.log"
		done
		n=$((n + 1))
		[ $n -lt 2 ] || break
	done
}
