#!/usr/bin/env bash
# Install test of the Debian packages that scripts/build-deb.sh built: install
# them all (apt-get install ./*.deb), load the FARE module in bgpd through
# /etc/frr/daemons, start FRR with the package's init script, configure FARE
# with vtysh, check "show bgp fare json" and the running configuration, save
# and restart, stop FRR; when packaged, run the data-plane agent in a network
# namespace and build an example against libfaredp; purge the packages and
# check that nothing is left.
# Each step is printed with the time; any failure exits non-zero, and the
# packages are purged in every case.
#
# usage: [FARE_FRR=10.3] scripts/test-deb.sh   (as root on Debian 12, after
#        build-deb.sh with the same FARE_FRR)
# environment: FARE_FRR (10.7, the default, or 10.3: which release's packages,
# as for build-deb.sh), DEB_DIR (default ./build-deb-<release>)
#
# Installing frr replaces /usr/bin/vtysh, which the topotests use: the test
# waits until no pytest runs, marks its run with /tmp/deb-install-running,
# and afterwards restores the topotest setup (scripts/setup-test-env.sh).
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/frr-target.sh"
DEB=${DEB_DIR:-$TOP/build-deb-$FARE_FRR}
OUT=$DEB/out
MARK=/tmp/deb-install-running
VTYSH=/usr/bin/vtysh
DAEMONS=/etc/frr/daemons
export DEBIAN_FRONTEND=noninteractive
# Debian's own tools only (python3: the JSON check)
export PATH=/usr/sbin:/usr/bin:/sbin:/bin

T0=$(date +%s)
log() { printf '[test-deb %s +%3ss] %s\n' "$(date +%T)" "$(($(date +%s) - T0))" "$*"; }
fail() { log "FAIL: $*"; exit 1; }
apt_get() { apt-get -o DPkg::Lock::Timeout=600 "$@"; }

[ "$(id -u)" -eq 0 ] || fail "run as root"
debs=("$OUT"/*.deb)
[ -e "${debs[0]}" ] || fail "no packages in $OUT: run scripts/build-deb.sh first"
pkgs=()
for f in "${debs[@]}"; do
	pkgs+=("$(dpkg-deb -f "$f" Package)")
done
frr_ver=$(dpkg-deb -f "$(ls "$OUT"/frr_*.deb)" Version)
case $frr_ver in
"$FARE_FRR"[.-]*) ;;
*) fail "$OUT holds frr $frr_ver, not FRR $FARE_FRR (FARE_FRR=$FARE_FRR)" ;;
esac

# installed PKG: whether dpkg knows PKG in any state but "not installed"
installed() {
	local s
	s=$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) || return 1
	[ -n "${s// /}" ] && [ "${s:1:1}" != n ]
}
for p in "${pkgs[@]}"; do
	case $p in frr*)
		! installed "$p" || fail "$p is already installed here: not replacing it" ;;
	esac
done

# An FRR configuration already on the machine is not ours to test on.
[ -z "$(ls -A /etc/frr 2>/dev/null)" ] || fail "/etc/frr is not empty: not installing over it"

# installed_list: every package that is installed, even half or its
# configuration files only
installed_list() {
	dpkg-query -W -f='${db:Status-Abbrev}${Package}\n' |
		awk 'substr($0, 2, 1) != "n" { print substr($0, 4) }' | sort -u
}
initscript=
frr_running=

frr_stop() {
	[ -n "$initscript" ] && [ -n "$frr_running" ] || return 0
	"$initscript" stop >/dev/null 2>&1 || true
	frr_running=
}

# pulled_in: the packages that were not installed before the test and are now
# (our packages' dependencies)
pulled_in() {
	comm -13 <(echo "$before") <(installed_list)
}

# On any exit: stop FRR, purge what is left of our packages and what their
# installation pulled in, put the topotest setup back.
cleanup() {
	local rc=$? p gone=()
	trap - EXIT
	frr_stop
	for p in $( (printf '%s\n' "${pkgs[@]}"; pulled_in) | sort -u); do
		installed "$p" && gone+=("$p")
	done
	if [ ${#gone[@]} -gt 0 ]; then
		log "cleanup: apt-get purge ${gone[*]}"
		apt_get purge -y -qq "${gone[@]}" >/dev/null || rc=1
	fi
	if [ -f "$BUILD/frr/tests/topotests/pytest.ini" ]; then
		log "restore the topotest setup: bash scripts/setup-test-env.sh"
		bash "$TOP/scripts/setup-test-env.sh" || rc=1
	elif [ -n "$vtysh_link" ] && [ ! -e "$VTYSH" ]; then
		log "restore $VTYSH -> $vtysh_link"
		ln -sfn "$vtysh_link" "$VTYSH"
	fi
	rm -f "$MARK"
	if [ $rc -eq 0 ]; then
		log "PASS ($(($(date +%s) - T0)) s)"
	else
		log "FAILED ($(($(date +%s) - T0)) s)"
	fi
	exit $rc
}

# --- wait for the topotests, mark our run --------------------------------
while pgrep -f pytest >/dev/null || [ -e "$MARK" ]; do
	# a mark whose test is gone is stale
	if [ -e "$MARK" ] && ! kill -0 "$(cat "$MARK" 2>/dev/null)" 2>/dev/null; then
		rm -f "$MARK"
		continue
	fi
	log "waiting: topotests (pytest) or another install test ($MARK) running"
	sleep 30
done
echo "$$" >"$MARK"
T0=$(date +%s)
before=$(installed_list)
vtysh_link=$(readlink "$VTYSH" 2>/dev/null || true)
trap cleanup EXIT

# --- install --------------------------------------------------------------
log "install: apt-get install -y ./*.deb in $OUT (${pkgs[*]})"
apt_get update -qq
(cd "$OUT" && apt_get install -y -q ./*.deb) >"$DEB/test-install.log" 2>&1 ||
	{ tail -n 30 "$DEB/test-install.log"; fail "apt-get install"; }
for p in "${pkgs[@]}"; do
	s=$(dpkg-query -W -f='${db:Status-Abbrev} ${Version}' "$p")
	[ "${s%% *}" = ii ] || fail "$p: dpkg state '$s'"
	log "  $p ${s#* }"
done
[ "$(dpkg-query -W -f='${Version}' frr-fare)" = "$frr_ver" ] || fail "frr-fare and frr versions differ"
module=$(dpkg -L frr-fare | grep '/frr/modules/bgpd_fare\.so$') || fail "frr-fare lists no bgpd_fare.so"
[ -f "$module" ] || fail "$module missing"
log "module: $module"
[ -x "$VTYSH" ] && [ ! -L "$VTYSH" ] || fail "$VTYSH is not the package's"

# --- /etc/frr/daemons: bgpd with -M fare ---------------------------------
log "configure: bgpd=yes and -M fare in $DAEMONS"
sed -i -e 's/^bgpd=no$/bgpd=yes/' \
	-e 's/^bgpd_options="\(.*\)"$/bgpd_options="\1 -M fare"/' "$DAEMONS"
grep -qx 'bgpd=yes' "$DAEMONS" || fail "bgpd not enabled in $DAEMONS"
grep -Eq '^bgpd_options=".* -M fare"$' "$DAEMONS" || fail "-M fare not in bgpd_options"
grep -E '^bgpd(_options)?=' "$DAEMONS" | sed 's/^/    /'

# --- start FRR with the package's init script ------------------------------
for s in /etc/init.d/frr /usr/lib/frr/frrinit.sh; do
	[ -x "$s" ] && { initscript=$s; break; }
done
[ -n "$initscript" ] || fail "no init script (/etc/init.d/frr, /usr/lib/frr/frrinit.sh)"

# wait_module: bgpd answers and has loaded bgpd_fare (30 s at most)
wait_module() {
	for _ in $(seq 60); do
		grep -q bgpd_fare <<<"$("$VTYSH" -c 'show modules' 2>/dev/null)" && return 0
		sleep 0.5
	done
	return 1
}

log "start: $initscript start"
frr_running=1
"$initscript" start || fail "$initscript start"
wait_module || fail "bgpd did not load bgpd_fare"
log "bgpd runs with bgpd_fare: $(pgrep -a -f '^/usr/lib/frr/bgpd' | head -n1)"

# --- configure FARE with vtysh ---------------------------------------------
# Peer-groups only: no session is opened to anyone.
log "configure FARE through vtysh"
"$VTYSH" -c 'configure terminal' \
	-c 'router bgp 65001' \
	-c 'bgp router-id 192.0.2.1' \
	-c 'neighbor SPINES peer-group' \
	-c 'neighbor SPINES remote-as external' \
	-c 'neighbor EXTERNAL peer-group' \
	-c 'neighbor EXTERNAL remote-as 64999' \
	-c 'bgp fare' \
	-c 'bgp fare mode averaged' \
	-c 'bgp fare hold-down 30' \
	-c 'bgp fare originate' \
	-c 'neighbor SPINES fare link-bandwidth 400G' \
	-c 'neighbor EXTERNAL fare boundary' || fail "vtysh refused the configuration"

expected_config=(
	' bgp fare'
	' bgp fare mode averaged'
	' bgp fare hold-down 30'
	' bgp fare originate'
	' neighbor SPINES fare link-bandwidth 400G'
	' neighbor EXTERNAL fare boundary'
)

# check_fare WHAT: show bgp fare json and the running configuration carry
# the configuration above.
check_fare() {
	local json conf line
	json=$("$VTYSH" -c 'show bgp fare json') || fail "$1: show bgp fare json"
	python3 - "$json" <<'EOF' || fail "$1: show bgp fare json: unexpected answer"
import json, sys
j = json.loads(sys.argv[1])
c = j["config"]
want = {
    "module": (j["module"], "bgpd_fare"),
    "localAs": (j["localAs"], 65001),
    "enabled": (c["enabled"], True),
    "mode": (c["mode"], "averaged"),
    "holdDownSeconds": (c["holdDownSeconds"], 30),
    "originate": (c["originate"], True),
    "SPINES linkBandwidthBytesPerSec": (c["neighbors"]["SPINES"]["linkBandwidthBytesPerSec"], 50e9),
    "SPINES boundary": (c["neighbors"]["SPINES"]["boundary"], False),
    "EXTERNAL boundary": (c["neighbors"]["EXTERNAL"]["boundary"], True),
}
bad = [f"{k}: {v[0]!r}, expected {v[1]!r}" for k, v in want.items() if v[0] != v[1]]
for b in bad:
    print("   ", b)
print(f"    module {j['module']} {j['version']}, AS {j['localAs']}, mode {c['mode']},"
      f" hold-down {c['holdDownSeconds']} s, SPINES {c['neighbors']['SPINES']['linkBandwidthBytesPerSecText']}")
sys.exit(1 if bad else 0)
EOF
	conf=$("$VTYSH" -c 'show running-config') || fail "$1: show running-config"
	for line in "${expected_config[@]}"; do
		grep -qxF -- "$line" <<<"$conf" || fail "$1: '$line' not in show running-config"
	done
	log "$1: show bgp fare json and show running-config as configured"
}
check_fare "configured"

# --- save, restart, the saved configuration loads ----------------------------
log "write memory, then $initscript restart"
"$VTYSH" -c 'write memory' >/dev/null || fail "write memory"
grep -qx ' bgp fare' /etc/frr/frr.conf || fail "bgp fare not in /etc/frr/frr.conf"
"$initscript" restart >/dev/null || fail "$initscript restart"
wait_module || fail "bgpd did not load bgpd_fare after the restart"
check_fare "after restart"

# --- stop ------------------------------------------------------------------
log "stop: $initscript stop"
"$initscript" stop || fail "$initscript stop"
frr_running=
for _ in $(seq 20); do
	pgrep -f '^/usr/lib/frr/' >/dev/null || break
	sleep 0.5
done
! pgrep -a -f '^/usr/lib/frr/' || fail "FRR daemons still running after stop"
# write memory kept the previous frr.conf as frr.conf.sav: vtysh's backup,
# not a file of the package, so purge would leave it
rm -f /etc/frr/frr.conf.sav

# --- the data-plane agent, when it was packaged ------------------------------
if printf '%s\n' "${pkgs[@]}" | grep -qx fare-dpd; then
	log "data plane: fare-dpd and fare-dp from the package"
	unit=$(dpkg -L fare-dpd | grep '/fare-dpd\.service$') || fail "fare-dpd lists no unit"
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze verify "$unit" || fail "systemd-analyze verify $unit"
		log "  $unit: systemd-analyze verify ok"
	fi
	dptmp=$(mktemp -d)
	cp /usr/share/doc/fare-dpd/fare-dpd.conf "$dptmp/"
	# in a network namespace of its own: its nftables table and rules stay there
	unshare -n /usr/sbin/fare-dpd -f "$dptmp/fare-dpd.conf" -s "$dptmp/sock" >"$dptmp/log" 2>&1 &
	dppid=$!
	for _ in $(seq 20); do
		[ -S "$dptmp/sock" ] && break
		sleep 0.5
	done
	dpjson=$(/usr/bin/fare-dp -s "$dptmp/sock" show json) ||
		{ kill "$dppid"; cat "$dptmp/log"; fail "fare-dp show json"; }
	python3 -c 'import json, sys; j = json.loads(sys.argv[1]); sys.exit(j["destinations"] != [])' \
		"$dpjson" || { kill "$dppid"; fail "fare-dp show json: $dpjson"; }
	kill "$dppid"
	wait "$dppid" || fail "fare-dpd did not stop cleanly: $(cat "$dptmp/log")"
	log "  fare-dpd ran in a network namespace, fare-dp show json: $dpjson"
	if command -v cc >/dev/null; then
		cc -o "$dptmp/qp-plan" "$TOP/dataplane/examples/qp-plan.c" -lfaredp -lmnl ||
			fail "the example does not build against libfaredp-dev"
		log "  dataplane/examples/qp-plan.c builds against libfaredp-dev (-lfaredp -lmnl)"
	fi
	rm -rf "$dptmp"
fi

# --- purge, nothing left ------------------------------------------------------
deps=$(pulled_in | grep -vxF -f <(printf '%s\n' "${pkgs[@]}") || true)
log "purge: apt-get purge ${pkgs[*]}"
[ -z "$deps" ] || log "  and what they pulled in: ${deps//$'\n'/ }"
apt_get purge -y -q "${pkgs[@]}" $deps >"$DEB/test-purge.log" 2>&1 ||
	{ tail -n 30 "$DEB/test-purge.log"; fail "apt-get purge"; }
for p in "${pkgs[@]}" $deps; do
	! installed "$p" || fail "$p still known to dpkg: $(dpkg -l "$p" | tail -n1)"
done
left=$(pulled_in | tr '\n' ' ')
[ -z "$left" ] || fail "still installed: $left"
! dpkg -l 'frr*' 2>/dev/null | grep -E '^[a-z][a-z] ' | grep -v '^un' ||
	fail "dpkg -l still lists frr packages"
[ ! -e "$module" ] || fail "$module still there"
[ ! -e "$DAEMONS" ] || fail "$DAEMONS still there"
[ ! -e "$VTYSH" ] || fail "$VTYSH still there"
[ ! -e /usr/sbin/fare-dpd ] || fail "/usr/sbin/fare-dpd still there"
[ ! -e /etc/frr ] || fail "/etc/frr still there: $(ls -A /etc/frr)"
log "purged: dpkg -l lists none of them; $module, /etc/frr and $VTYSH gone"
