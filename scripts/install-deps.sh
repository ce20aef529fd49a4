#!/usr/bin/env bash
# Install the Debian 12 packages that building FRR 10.3, libyang 3 and the
# FARE module, and running the topotests, need. Idempotent; run as root.
set -euo pipefail

PKGS=(
	# toolchain and autotools
	build-essential autoconf automake libtool pkgconf cmake dpkg-dev
	bison flex gawk texinfo install-info git quilt
	# FRR build dependencies
	libc-ares-dev libcap-dev libelf-dev libjson-c-dev libpam0g-dev
	libpcre2-dev libprotobuf-c-dev protobuf-c-compiler libreadline-dev
	libunwind-dev python3-dev
	# libyang
	libpcre2-dev
	# our unit tests, and the fuzz targets (make fuzz: clang, libFuzzer)
	libcmocka-dev clang libclang-rt-14-dev
	# topotests
	python3-pytest python3-pytest-xdist iproute2 iputils-ping procps psmisc ethtool
	exabgp python3-scapy iperf3 tshark
	# the flap storm's RSS measurement (malloc_trim in bgpd and zebra)
	gdb
	# topotest fare_interop: spines without FARE
	bird2 gobgpd
	# the data-plane agent (dataplane/): netlink, nftables, conntrack
	libmnl-dev libnftables-dev libnftnl-dev libnetfilter-conntrack-dev
	nftables conntrack
	# libfaredp-verbs and rdma-qp-plan (RDMA NICs): rdma-core's libibverbs,
	# libmlx5 (mlx5dv_modify_qp_udp_sport) and the user-space providers
	libibverbs-dev rdma-core ibverbs-providers
	# the documentation (scripts/build-docs.sh)
	python3-sphinx
	# fare-sim's throughput plot (tools/fare-sim/plot.sh, doc/user/fare-sim.rst)
	gnuplot-nox
)

# bird2 and gobgpd enable system services; the topotests start their own
# daemons inside the routers' namespaces (own config, socket and pid file)
# and need none: stop them where they run.
quiet_services() {
	if [ -d /run/systemd/system ]; then
		systemctl disable --now bird.service gobgpd.service >/dev/null 2>&1 || true
	elif [ -S /run/bird/bird.ctl ]; then
		# the system's bird only, by its socket (not /etc/init.d/bird
		# stop: it would stop every bird, a running test's too)
		birdc -s /run/bird/bird.ctl down >/dev/null 2>&1 || true
	fi
}

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#PKGS[@]} packages present"
	quiet_services
	exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
quiet_services
echo "install-deps: done"
