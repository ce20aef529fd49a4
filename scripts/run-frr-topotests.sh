#!/usr/bin/env bash
# A slice of FRR's own topotests on the patched build: a regression check of
# the patch series (and of the module loaded where the tests load modules)
# beyond bgp_link_bw_ip, which the default run has. The set covers what the
# patches touch: ECMP and weighted ECMP, standard, large and extended
# communities, peer-groups and update-groups, add-path, graceful restart,
# route-server clients, VRFs on network namespaces (zebra patch 0013). Not
# part of the default test run.
#
# usage: scripts/run-frr-topotests.sh [pytest args...]   (as root, Debian 12)
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/topotest-lib.sh"

FRR_TOPOTESTS=(
	bgp_ecmp_topo1 bgp_ecmp_topo3 bgp_weighted_ecmp_recursive bgp_link_bw_ip
	bgp_community_change_update bgp_communities_topo1 bgp_large_community
	bgp_comm_list_match bgp_large_comm_list_match bgp_extcomm_list_delete
	bgp_rmap_extcommunity_none bgp_community_alias bgp_blackhole_community
	bgp_peer_group bgp_peer_group_solo bgp_route_server_client
	bgp_nexthop_ipv6 bgp_update_delay
	bgp_addpath_best_selected bgp_addpath_paths_limit
	bgp_gr_restart_retain_routes bgp_vrf_netns
)

topotest_setup
start=$(date +%s)
rc=0
run_pytest "${FRR_TOPOTESTS[@]}" "$@" || rc=$?
echo "FRR topotests (${#FRR_TOPOTESTS[@]} directories): $(($(date +%s) - start)) s, rc $rc"
exit $rc
