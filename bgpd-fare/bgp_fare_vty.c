// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: vtysh commands, show output and configuration write-back.
 */
#include <zebra.h>
#include <math.h>

#include "command.h"
#include "if.h"
#include "json.h"
#include "linklist.h"
#include "prefix.h"
#include "vty.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_debug.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"

#include "bgpd/fare/bgp_fare_vty_clippy.c"

#define FARE_STR "Fully Adaptive Routing Ethernet (Path Bandwidth WCMP)\n"

static const char *fare_role_str(enum fare_role role)
{
	switch (role) {
	case FARE_ROLE_SUPER_SPINE:
		return "super-spine";
	case FARE_ROLE_HOST:
		return "host";
	case FARE_ROLE_NODE:
		break;
	}
	return "node";
}

/* Operator bandwidth: plain number = Mb/s, or with K/M/G/T suffix. */
static int fare_parse_bw(struct vty *vty, const char *str, double *bytes)
{
	if (!fare_bw_parse(str, bytes)) {
		vty_out(vty,
			"%% Invalid bandwidth '%s': use Mb/s (e.g. 100000) or a unit (100G, 400Gbps, 1.6T) or 'max'\n",
			str);
		return CMD_WARNING_CONFIG_FAILED;
	}
	return CMD_SUCCESS;
}

/* Config write form: exact and readable back by fare_bw_parse(). */
static void fare_bw_config_str(char *buf, size_t len, double bytes)
{
	double bits = bytes * 8;

	if (bytes >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		snprintf(buf, len, "max");
	else if (bits >= 1e9 && fmod(bits, 1e9) == 0)
		snprintf(buf, len, "%.0fG", bits / 1e9);
	else if (bits >= 1e6 && fmod(bits, 1e6) == 0)
		snprintf(buf, len, "%.0fM", bits / 1e6);
	else if (bits >= 1e3 && fmod(bits, 1e3) == 0)
		snprintf(buf, len, "%.0fK", bits / 1e3);
	else
		snprintf(buf, len, "%.17gK", bits / 1e3);
}

/* ------------------------------------------------------------------ */
/* router bgp commands                                                  */
/* ------------------------------------------------------------------ */

DEFPY(bgp_fare_enable, bgp_fare_enable_cmd, "[no] bgp fare",
      NO_STR BGP_STR FARE_STR)
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (fi->enabled == !no)
		return CMD_SUCCESS;
	fare_ingress_flush(fi);
	fi->enabled = !no;
	fare_ingress_resync(fi);
	fare_instance_refresh_later(fi, no ? "disabled" : "enabled");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_mode, bgp_fare_mode_cmd,
      "[no] bgp fare mode [<draft|averaged>$mode]",
      NO_STR BGP_STR FARE_STR
      "Propagation rule\n"
      "draft-xu-idr-fare: weight min(link, Path Bandwidth), re-advertise the sum (default)\n"
      "White paper: weight by the received value, re-advertise the sum averaged over the outgoing interfaces\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	enum fare_mode new_mode;

	if (!no && !mode) {
		vty_out(vty, "%% Mode required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	new_mode = (!no && strmatch(mode, "averaged")) ? FARE_MODE_AVERAGED : FARE_MODE_DRAFT;

	if (fi->mode == new_mode)
		return CMD_SUCCESS;
	fi->mode = new_mode;
	fare_instance_refresh_later(fi, "mode changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_parallel_links, bgp_fare_parallel_links_cmd,
      "[no] bgp fare parallel-links [<per-neighbor|per-session>$how]",
      NO_STR BGP_STR FARE_STR
      "Draft mode: several links (sessions) to one neighbor router\n"
      "Count them together: min(sum of the links, Path Bandwidth), split by link bandwidth (default)\n"
      "Count each session on its own: min(link, Path Bandwidth) per session\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	bool per_session;

	if (!no && !how) {
		vty_out(vty, "%% per-neighbor or per-session required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	per_session = !no && strmatch(how, "per-session");
	if (fi->per_session == per_session)
		return CMD_SUCCESS;
	fi->per_session = per_session;
	fare_instance_refresh_later(fi, "parallel-links changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_hold_down, bgp_fare_hold_down_cmd,
      "[no] bgp fare hold-down [(0-3600)$seconds]",
      NO_STR BGP_STR FARE_STR
      "Delay before a link bandwidth increase or a re-established session counts (WP-7)\n"
      "Seconds (0: at once)\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !seconds_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->hold_down = no ? FARE_HOLD_DOWN_DEFAULT : seconds;
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_originate, bgp_fare_originate_cmd,
      "[no] bgp fare originate [WORD$bw]",
      NO_STR BGP_STR FARE_STR
      "Attach a transitive Path Bandwidth to locally originated routes (FARE-2)\n"
      "Value: Mb/s, or with unit K/M/G/T (bits/s), or 'max' (default)\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	double bytes = FARE_PATHBW_MAX_BYTES_PER_SEC;

	if (!no && bw && fare_parse_bw(vty, bw, &bytes) != CMD_SUCCESS)
		return CMD_WARNING_CONFIG_FAILED;
	fi->originate = !no;
	fi->originate_bw = bytes;
	fare_instance_refresh_later(fi, "origination changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_role, bgp_fare_role_cmd, "[no] bgp fare role <super-spine|host>$role",
      NO_STR BGP_STR FARE_STR
      "Role of this router in the fabric\n"
      "Super-spine: keep the transitive value, attach a non-transitive one (FARE-8)\n"
      "GPU server of a multi-plane network: announce only the routes originated here, never transit between planes (SUN-1)\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	enum fare_role want = strmatch(role, "host") ? FARE_ROLE_HOST : FARE_ROLE_SUPER_SPINE;

	if (no) {
		/* "no bgp fare role X" undoes X only, not another role */
		if (fi->role != want)
			return CMD_SUCCESS;
		want = FARE_ROLE_NODE;
	}
	if (fi->role == want)
		return CMD_SUCCESS;
	fi->role = want;
	fare_instance_refresh_later(fi, "role changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_lower_transitive, bgp_fare_lower_transitive_cmd,
      "[no] bgp fare super-spine-paths lower-transitive",
      NO_STR BGP_STR FARE_STR
      "Routes learned from super-spines (FARE-9)\n"
      "Lower the transitive value to the sum of the weights when smaller\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fi->lower_transitive = !no;
	fare_instance_refresh_later(fi, "lower-transitive changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_subtype, bgp_fare_subtype_cmd,
      "[no] bgp fare path-bandwidth sub-type [(0-255)$subtype]",
      NO_STR BGP_STR FARE_STR
      "Path Bandwidth extended community (FARE-1)\n"
      "Sub-type (not yet assigned by IANA)\n"
      "Sub-type value\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	const char *assigned;

	if (!no && !subtype_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	/* FARE-1: an assigned sub-type would read, rewrite and strip the
	 * communities it stands for (route targets, link bandwidth, ...).
	 */
	if (!no && (assigned = fare_pathbw_subtype_assigned(subtype))) {
		vty_out(vty,
			"%% Sub-type 0x%02x is assigned by IANA (%s) in the Two-Octet AS-Specific extended communities; choose an unassigned one\n",
			(unsigned int)subtype, assigned);
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->subtype = no ? FARE_PATHBW_SUBTYPE_DEFAULT : subtype;
	fare_display_refresh();
	fare_instance_refresh_later(fi, "sub-type changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_max_members, bgp_fare_max_members_cmd,
      "[no] bgp fare wcmp max-members [(1-65535)$members]",
      NO_STR BGP_STR FARE_STR
      "Weighted ECMP groups (WP-3)\n"
      "Largest sum of weights of a group (the data plane's member limit)\n"
      "Members\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !members_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->max_members = no ? FARE_MAX_MEMBERS_DEFAULT : members;
	fare_instance_refresh_later(fi, "max-members changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_max_weight, bgp_fare_max_weight_cmd,
      "[no] bgp fare wcmp max-weight [(1-65535)$weight]",
      NO_STR BGP_STR FARE_STR
      "Weighted ECMP groups (WP-3)\n"
      "Largest weight of one next hop (254 by default; up to 65535 where the kernel takes 16-bit weights)\n"
      "Weight\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !weight_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->max_weight = no ? FARE_MAX_WEIGHT : weight;
	fare_instance_refresh_later(fi, "max-weight changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_multihoming, bgp_fare_multihoming_cmd,
      "[no] bgp fare multihoming prefix-list WORD$plist factor (1-1024)$factor",
      NO_STR BGP_STR FARE_STR
      "Prefixes multi-homed to several leaves (FARE-6)\n"
      "Prefixes matched by a prefix-list\n"
      "Prefix-list name (IPv4 or IPv6)\n"
      "Number of leaves the prefix is homed to: Path Bandwidth is divided by it\n"
      "Factor\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_multihoming_set(fi, plist, no ? 0 : factor);
	fare_instance_refresh_later(fi, "multihoming changed");
	return CMD_SUCCESS;
}

/* Enhanced ECMP (EE-2, EE-3, EE-4) */

DEFPY(bgp_fare_ecmp_group_id, bgp_fare_ecmp_group_id_cmd,
      "[no] bgp fare ecmp-group-id (1-65535)$group [prefix-list WORD$plist]",
      NO_STR BGP_STR FARE_STR
      "Tag originated routes with an ECMP GroupID (EE-3)\n"
      "Group ID\n"
      "Only the prefixes a prefix-list permits (else those no other line takes)\n"
      "Prefix-list name (IPv4 or IPv6)\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_ecmp_egress_set(fi, group, plist, !no);
	fare_instance_refresh_later(fi, "ECMP GroupID changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subtype, bgp_fare_ecmp_subtype_cmd,
      "[no] bgp fare ecmp-group-id sub-type [(0-255)$subtype]",
      NO_STR BGP_STR FARE_STR
      "ECMP GroupID extended community (EE-3)\n"
      "Sub-type (not assigned by IANA)\n"
      "Sub-type value\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !subtype_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->ecmp.subtype = no ? FARE_GROUPID_SUBTYPE_DEFAULT : subtype;
	fare_display_refresh();
	fare_instance_refresh_later(fi, "ECMP GroupID sub-type changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subgroups, bgp_fare_ecmp_subgroups_cmd,
      "[no] bgp fare ecmp-subgroups size [(1-256)$size]",
      NO_STR BGP_STR FARE_STR
      "Split the uplinks into ECMP sub-groups (EE-2)\n"
      "Uplinks per sub-group, in natural interface name order\n"
      "Size\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !size_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fi->ecmp.subgroup_size = no ? 0 : size;
	fare_ecmp_subgroups_changed(fi);
	fare_instance_refresh_later(fi, "ECMP sub-groups changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subgroup_member, bgp_fare_ecmp_subgroup_member_cmd,
      "[no] bgp fare ecmp-subgroup (1-256)$sg interface IFNAME$ifname",
      NO_STR BGP_STR FARE_STR
      "An uplink's ECMP sub-group, instead of by size (EE-2)\n"
      "Sub-group\n"
      "Uplink\n"
      "Interface name\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_ecmp_member_set(fi, ifname, no ? 0 : sg);
	fare_ecmp_subgroups_changed(fi);
	fare_instance_refresh_later(fi, "ECMP sub-groups changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_group_map, bgp_fare_ecmp_group_map_cmd,
      "[no] bgp fare ecmp-group-map A.B.C.D$rid (1-65535)$group subgroup (1-256)$sg",
      NO_STR BGP_STR FARE_STR
      "Map a remote ECMP group to a local sub-group (EE-4)\n"
      "Remote router ID\n"
      "Remote group ID\n"
      "Local sub-group\n"
      "Sub-group\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	struct fare_ecmp_key key = { .router_id = ntohl(rid.s_addr), .group_id = group };

	fare_ecmp_pin_set(fi, key, no ? 0 : sg);
	fare_instance_refresh_later(fi, "ECMP group map changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_ingress_group, bgp_fare_ecmp_ingress_group_cmd,
      "[no] bgp fare ecmp-ingress-group (1-64)$grp interface IFNAME$ifname",
      NO_STR BGP_STR FARE_STR
      "Ingress-interface grouping: the k-th interface of a group leaves by the k-th member (EE-1)\n"
      "Group\n"
      "Ingress interface (its index in the group: name order)\n"
      "Interface name\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (bgp->inst_type != BGP_INSTANCE_TYPE_DEFAULT) {
		vty_out(vty, "%% Ingress-interface grouping is for the default instance only\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fare_ingress_if_set(fi, ifname, no ? 0 : grp);
	return CMD_SUCCESS;
}

/* neighbor ... fare ... */

static struct fare_peer_cfg *fare_vty_peer_cfg(struct vty *vty, const char *neighbor,
					       struct fare_instance **fip)
{
	struct bgp *bgp = VTY_GET_CONTEXT(bgp);
	struct peer *peer;

	if (!bgp)
		return NULL;
	peer = peer_and_group_lookup_vty(vty, neighbor);
	if (!peer)
		return NULL;
	*fip = fare_instance_get(bgp);
	return fare_peer_cfg_get(*fip, fare_peer_cfg_name(peer));
}

static void fare_peer_reannounce(struct peer *peer)
{
	update_group_adjust_peer_afs(peer);
	if (peer_established(peer->connection)) {
		peer_clear_soft(peer, AFI_IP, SAFI_UNICAST, BGP_CLEAR_SOFT_OUT);
		peer_clear_soft(peer, AFI_IP6, SAFI_UNICAST, BGP_CLEAR_SOFT_OUT);
	}
}

static void fare_vty_peer_reannounce(struct vty *vty, const char *neighbor)
{
	struct peer *peer = peer_and_group_lookup_vty(vty, neighbor);
	struct peer *member;
	struct listnode *node;

	if (!peer)
		return;
	if (!CHECK_FLAG(peer->sflags, PEER_STATUS_GROUP)) {
		fare_peer_reannounce(peer);
		return;
	}
	for (ALL_LIST_ELEMENTS_RO(peer->group->peer, node, member))
		fare_peer_reannounce(member);
}

DEFPY(neighbor_fare_link_bw, neighbor_fare_link_bw_cmd,
      "neighbor <A.B.C.D|X:X::X:X|WORD>$neighbor fare link-bandwidth WORD$bw",
      NEIGHBOR_STR NEIGHBOR_ADDR_STR2 FARE_STR
      "Bandwidth of the link to this neighbor, instead of the interface's (FARE-3)\n"
      "Mb/s, or with unit K/M/G/T (bits/s)\n")
{
	struct fare_instance *fi;
	struct fare_peer_cfg *pc;
	double bytes;

	if (fare_parse_bw(vty, bw, &bytes) != CMD_SUCCESS)
		return CMD_WARNING_CONFIG_FAILED;
	pc = fare_vty_peer_cfg(vty, neighbor, &fi);
	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	SET_FLAG(pc->set, FARE_PEER_LINK_BW);
	pc->link_bw = bytes;
	fare_instance_refresh_later(fi, "link bandwidth override changed");
	return CMD_SUCCESS;
}

DEFPY(no_neighbor_fare_link_bw, no_neighbor_fare_link_bw_cmd,
      "no neighbor <A.B.C.D|X:X::X:X|WORD>$neighbor fare link-bandwidth [WORD]",
      NO_STR NEIGHBOR_STR NEIGHBOR_ADDR_STR2 FARE_STR
      "Bandwidth of the link to this neighbor, instead of the interface's (FARE-3)\n"
      "Mb/s, or with unit K/M/G/T (bits/s)\n")
{
	struct fare_instance *fi;
	struct fare_peer_cfg *pc = fare_vty_peer_cfg(vty, neighbor, &fi);

	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	UNSET_FLAG(pc->set, FARE_PEER_LINK_BW);
	pc->link_bw = 0;
	fare_peer_cfg_release(fi, pc);
	fare_instance_refresh_later(fi, "link bandwidth override removed");
	return CMD_SUCCESS;
}

DEFPY(neighbor_fare_flag, neighbor_fare_flag_cmd,
      "[no] neighbor <A.B.C.D|X:X::X:X|WORD>$neighbor fare <boundary$boundary|super-spine$ss>",
      NO_STR NEIGHBOR_STR NEIGHBOR_ADDR_STR2 FARE_STR
      "Fabric boundary: strip Path Bandwidth outbound, ignore it inbound (FARE-11)\n"
      "Neighbor is a super-spine: weight its routes by their non-transitive Path Bandwidth (FARE-9)\n")
{
	struct fare_instance *fi;
	struct fare_peer_cfg *pc = fare_vty_peer_cfg(vty, neighbor, &fi);
	uint32_t flag = boundary ? FARE_PEER_BOUNDARY : FARE_PEER_SUPER_SPINE;

	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	if (no) {
		UNSET_FLAG(pc->set, flag);
		fare_peer_cfg_release(fi, pc);
	} else {
		SET_FLAG(pc->set, flag);
	}
	fare_instance_refresh_later(fi, boundary ? "boundary changed" : "super-spine changed");
	/* A boundary peer leaves (or joins) its update-group, and what it
	 * was sent is sent again (FARE-11).
	 */
	if (boundary)
		fare_vty_peer_reannounce(vty, neighbor);
	return CMD_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* debug                                                                */
/* ------------------------------------------------------------------ */

DEFPY(debug_bgp_fare, debug_bgp_fare_cmd, "[no] debug bgp fare",
      NO_STR DEBUG_STR BGP_STR FARE_STR)
{
	fare_debug = no ? 0 : 1;
	return CMD_SUCCESS;
}

static int fare_config_write_debug(struct vty *vty, bool running)
{
	if (FARE_DEBUG) {
		vty_out(vty, "debug bgp fare\n");
		return 1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* show                                                                 */
/* ------------------------------------------------------------------ */

static struct bgp *fare_vty_bgp(struct vty *vty, const char *vrf_name, bool uj)
{
	struct bgp *bgp = vrf_name ? bgp_lookup_by_name(vrf_name) : bgp_get_default();

	if (!bgp) {
		if (uj)
			vty_out(vty, "{}\n");
		else
			vty_out(vty, "%% No BGP instance %s\n", vrf_name ? vrf_name : "default");
	}
	return bgp;
}

/* FARE-3/4: why a path's received value is not capped by its link */
static const char *fare_uncapped_reason(const char *link_source)
{
	if (strmatch(link_source, FARE_LINK_SOURCE_NO_INTERFACE))
		return "the session has no interface of its own (multihop or loopback): link bandwidth unknown";
	return "the interface reports no speed and has no bandwidth configured: link bandwidth unknown";
}

static void fare_bw_json(json_object *json, const char *key, double bytes)
{
	char buf[64];
	char key2[64];

	json_object_double_add(json, key, bytes);
	fare_bw_format(buf, sizeof(buf), bytes);
	snprintf(key2, sizeof(key2), "%sText", key);
	json_object_string_add(json, key2, buf);
}

/* The nexthop weight width zebra has in force (WP-3, patch 0015) */
static const char *fare_weight_width_str(void)
{
	if (!fare_zebra_weight_max)
		return "unknown";
	return fare_zebra_weight_max > UINT8_MAX ? "16-bit" : "8-bit";
}

static void fare_weight_width_json(json_object *json, const struct fare_instance *fi)
{
	json_object *jw = json_object_new_object();

	json_object_string_add(jw, "width", fare_weight_width_str());
	json_object_int_add(jw, "zebraMaxWeight", fare_zebra_weight_max);
	json_object_int_add(jw, "maxWeightInForce", fi ? fare_max_weight(fi) : FARE_MAX_WEIGHT);
	json_object_object_add(json, "nexthopWeights", jw);
}

static void fare_weight_width_show(struct vty *vty, const struct fare_instance *fi)
{
	vty_out(vty, "  Nexthop weights: %s", fare_weight_width_str());
	if (fare_zebra_weight_max)
		vty_out(vty, " (zebra installs up to %u as they are)", fare_zebra_weight_max);
	vty_out(vty, ", largest weight in force %u\n", fi ? fare_max_weight(fi) : FARE_MAX_WEIGHT);
}

/* "bgp bestpath bandwidth", as FRR's "show bgp bestpath" names it */
static const char *fare_frr_lb_handling_str(const struct bgp *bgp)
{
	switch (bgp->lb_handling) {
	case BGP_LINK_BW_IGNORE_BW:
		return "ignore";
	case BGP_LINK_BW_SKIP_MISSING:
		return "skip-missing";
	case BGP_LINK_BW_DEFWT_4_MISSING:
		return "default-weight-for-missing";
	case BGP_LINK_BW_ECMP:
		break;
	}
	return "ecmp";
}

/* FRR's own weighted ECMP knobs: they weigh what FARE does not */
static void fare_frr_wecmp_show(struct vty *vty, const struct bgp *bgp, json_object *json)
{
	if (json) {
		json_object *j = json_object_new_object();

		json_object_string_add(j, "linkBandwidth", fare_frr_lb_handling_str(bgp));
		json_object_boolean_add(j, "nextNextHopNodes", fare_frr_nnhn(bgp));
		json_object_boolean_add(j, "useUnderlaysNexthopWeight",
					fare_frr_underlay_weight(bgp));
		json_object_object_add(json, "frrWeightedEcmp", j);
		return;
	}
	vty_out(vty,
		"  FRR weighted ECMP (where FARE does not weigh): link bandwidth %s, next-next-hop nodes %s, underlays nexthop weight %s\n",
		fare_frr_lb_handling_str(bgp), fare_frr_nnhn(bgp) ? "yes" : "no",
		fare_frr_underlay_weight(bgp) ? "yes" : "no");
}

DEFPY(show_bgp_fare, show_bgp_fare_cmd,
      "show bgp [vrf NAME$vrf_name] fare [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	struct fare_peer_cfg *pc;
	struct fare_multihoming *mh;
	struct listnode *node;
	char buf[64];
	int c;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_instance_find(bgp);

	if (uj) {
		json_object *json = json_object_new_object();
		json_object *jcfg = json_object_new_object();
		json_object *jcnt = json_object_new_object();
		json_object *jcls = json_object_new_object();
		json_object *jpeers = json_object_new_object();
		json_object *jmh = json_object_new_object();

		json_object_string_add(json, "module", "bgpd_fare");
		json_object_string_add(json, "version", FARE_VERSION);
		json_object_string_add(json, "vrf", bgp->name_pretty);
		json_object_int_add(json, "localAs", bgp->as);
		json_object_boolean_add(jcfg, "enabled", fi && fi->enabled);
		json_object_string_add(jcfg, "mode", fare_mode_str(fi ? fi->mode : FARE_MODE_DRAFT));
		json_object_string_add(jcfg, "parallelLinks",
				       fi && fi->per_session ? "per-session" : "per-neighbor");
		json_object_int_add(jcfg, "holdDownSeconds",
				    fi ? fi->hold_down : FARE_HOLD_DOWN_DEFAULT);
		json_object_string_add(jcfg, "role", fare_role_str(fi ? fi->role : FARE_ROLE_NODE));
		json_object_int_add(jcfg, "pathBandwidthSubType",
				    fi ? fi->subtype : FARE_PATHBW_SUBTYPE_DEFAULT);
		json_object_boolean_add(jcfg, "originate", fi && fi->originate);
		if (fi && fi->originate)
			fare_bw_json(jcfg, "originateBytesPerSec", fi->originate_bw);
		json_object_boolean_add(jcfg, "lowerTransitive", fi && fi->lower_transitive);
		json_object_int_add(jcfg, "wcmpMaxMembers",
				    fi ? fi->max_members : FARE_MAX_MEMBERS_DEFAULT);
		json_object_int_add(jcfg, "wcmpMaxWeight", fi ? fi->max_weight : FARE_MAX_WEIGHT);
		fare_weight_width_json(json, fi);
		fare_frr_wecmp_show(vty, bgp, json);
		for (ALL_LIST_ELEMENTS_RO(fi ? fi->peers : NULL, node, pc)) {
			json_object *jp = json_object_new_object();

			if (CHECK_FLAG(pc->set, FARE_PEER_LINK_BW))
				fare_bw_json(jp, "linkBandwidthBytesPerSec", pc->link_bw);
			json_object_boolean_add(jp, "boundary",
						CHECK_FLAG(pc->set, FARE_PEER_BOUNDARY));
			json_object_boolean_add(jp, "superSpine",
						CHECK_FLAG(pc->set, FARE_PEER_SUPER_SPINE));
			json_object_object_add(jpeers, pc->name, jp);
		}
		json_object_object_add(jcfg, "neighbors", jpeers);
		for (ALL_LIST_ELEMENTS_RO(fi ? fi->multihoming : NULL, node, mh))
			json_object_int_add(jmh, mh->plist, mh->factor);
		json_object_object_add(jcfg, "multihoming", jmh);
		json_object_object_add(json, "config", jcfg);

		for (c = 0; c < FARE_BW_CLASS_MAX; c++)
			json_object_int_add(jcls, fare_bw_class_name(c),
					    fare_counters.value_class[c]);
		json_object_object_add(jcnt, "receivedValues", jcls);
		json_object_int_add(jcnt, "duplicate", fare_counters.duplicate);
		json_object_int_add(jcnt, "conflicting", fare_counters.conflicting);
		json_object_int_add(jcnt, "staleValue", fare_counters.stale);
		json_object_int_add(jcnt, "passedUnchanged", fare_counters.passed_unchanged);
		json_object_int_add(jcnt, "gracefulRestarts", fare_counters.graceful_restarts);
		json_object_int_add(jcnt, "ignoredBoundary", fare_counters.ignored_boundary);
		json_object_int_add(jcnt, "strippedBoundary", fare_counters.stripped_boundary);
		json_object_int_add(jcnt, "originated", fare_counters.originated);
		json_object_int_add(jcnt, "replaced", fare_counters.replaced);
		json_object_int_add(jcnt, "strippedFallback", fare_counters.stripped_fallback);
		json_object_int_add(jcnt, "nonTransitiveAttached", fare_counters.nt_attached);
		json_object_int_add(jcnt, "heldDown", fare_counters.held_down);
		json_object_int_add(jcnt, "wcmpRoutes", fare_counters.wcmp_routes);
		json_object_int_add(jcnt, "droppedPaths", fare_counters.dropped_paths);
		json_object_int_add(jcnt, "ecmpRoutes", fare_counters.ecmp_routes);
		json_object_int_add(jcnt, "frrWeightedRoutes", fare_counters.frr_weighted_routes);
		json_object_int_add(jcnt, "transitWithheld", fare_counters.transit_withheld);
		json_object_object_add(json, "counters", jcnt);
		vty_json(vty, json);
		return CMD_SUCCESS;
	}

	vty_out(vty, "FARE %s (bgpd_fare), BGP instance %s, local AS %u\n", FARE_VERSION,
		bgp->name_pretty, bgp->as);
	vty_out(vty, "  State: %s, mode %s, role %s, hold-down %us\n",
		fi && fi->enabled ? "enabled" : "disabled",
		fare_mode_str(fi ? fi->mode : FARE_MODE_DRAFT),
		fare_role_str(fi ? fi->role : FARE_ROLE_NODE),
		fi ? fi->hold_down : FARE_HOLD_DOWN_DEFAULT);
	vty_out(vty, "  Parallel links: %s\n",
		fi && fi->per_session ? "per session" : "per neighbor router");
	vty_out(vty, "  Path Bandwidth sub-type: 0x%02x\n",
		fi ? fi->subtype : FARE_PATHBW_SUBTYPE_DEFAULT);
	if (fi && fi->originate) {
		fare_bw_format(buf, sizeof(buf), fi->originate_bw);
		vty_out(vty, "  Originate: %s\n", buf);
	} else {
		vty_out(vty, "  Originate: no\n");
	}
	vty_out(vty, "  WCMP limits: weight 1..%u, at most %u members\n",
		fi ? fi->max_weight : FARE_MAX_WEIGHT,
		fi ? fi->max_members : FARE_MAX_MEMBERS_DEFAULT);
	fare_weight_width_show(vty, fi);
	fare_frr_wecmp_show(vty, bgp, NULL);
	if (fi && fi->lower_transitive)
		vty_out(vty, "  Super-spine paths: lower transitive value\n");
	for (ALL_LIST_ELEMENTS_RO(fi ? fi->multihoming : NULL, node, mh))
		vty_out(vty, "  Multihoming: prefix-list %s factor %u\n", mh->plist, mh->factor);
	for (ALL_LIST_ELEMENTS_RO(fi ? fi->peers : NULL, node, pc)) {
		vty_out(vty, "  Neighbor %s:", pc->name);
		if (CHECK_FLAG(pc->set, FARE_PEER_LINK_BW)) {
			fare_bw_format(buf, sizeof(buf), pc->link_bw);
			vty_out(vty, " link-bandwidth %s", buf);
		}
		if (CHECK_FLAG(pc->set, FARE_PEER_BOUNDARY))
			vty_out(vty, " boundary");
		if (CHECK_FLAG(pc->set, FARE_PEER_SUPER_SPINE))
			vty_out(vty, " super-spine");
		vty_out(vty, "\n");
	}
	vty_out(vty, "  Received values:");
	for (c = 0; c < FARE_BW_CLASS_MAX; c++)
		vty_out(vty, " %s %" PRIu64, fare_bw_class_name(c), fare_counters.value_class[c]);
	vty_out(vty,
		"\n  Duplicate %" PRIu64 ", conflicting %" PRIu64 ", stale %" PRIu64
		", ignored from boundary %" PRIu64 "\n",
		fare_counters.duplicate, fare_counters.conflicting, fare_counters.stale,
		fare_counters.ignored_boundary);
	vty_out(vty,
		"  Advertised: originated %" PRIu64 ", replaced %" PRIu64
		", passed unchanged (next hop not self) %" PRIu64 ", stripped (fallback) %" PRIu64
		", stripped (boundary) %" PRIu64 ", non-transitive attached %" PRIu64 "\n",
		fare_counters.originated, fare_counters.replaced, fare_counters.passed_unchanged,
		fare_counters.stripped_fallback, fare_counters.stripped_boundary,
		fare_counters.nt_attached);
	vty_out(vty, "  Sessions back after a graceful restart (no hold-down): %" PRIu64 "\n",
		fare_counters.graceful_restarts);
	vty_out(vty,
		"  Routes to zebra: weighted %" PRIu64 ", ECMP %" PRIu64
		", weighted by FRR %" PRIu64 ", paths left out by the member budget %" PRIu64 "\n",
		fare_counters.wcmp_routes, fare_counters.ecmp_routes,
		fare_counters.frr_weighted_routes, fare_counters.dropped_paths);
	if (fare_counters.transit_withheld || (fi && fi->role == FARE_ROLE_HOST))
		vty_out(vty,
			"  Host role: announcements withheld (not originated here) %" PRIu64 "\n",
			fare_counters.transit_withheld);
	return CMD_SUCCESS;
}

static void fare_pb_json(json_object *jpath, const char *key, enum fare_pb_state state, double bw)
{
	json_object *j = json_object_new_object();

	json_object_string_add(j, "state", fare_pb_state_str(state));
	if (state == FARE_PB_PRESENT)
		fare_bw_json(j, "bytesPerSec", bw);
	json_object_object_add(jpath, key, j);
}

static void fare_pb_text(char *buf, size_t len, enum fare_pb_state state, double bw)
{
	if (state == FARE_PB_PRESENT)
		fare_bw_format(buf, len, bw);
	else if (state == FARE_PB_ABSENT)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s", fare_pb_state_str(state));
}

static afi_t afi_of(struct bgp_dest *dest)
{
	return family2afi(bgp_dest_get_prefix(dest)->family);
}

/* EE-4: the prefix's remote group, local sub-group and members */
static void fare_show_ecmp_group(struct vty *vty, struct fare_instance *fi,
				 struct bgp_path_info *best, struct fare_prefix *fp, json_object *jp)
{
	const struct fare_ecmp_selection *sel = &fp->ee;
	char gbuf[64];
	size_t i;

	if (!fare_ecmp_ingress_enabled(fi) || !sel->reason)
		return;
	if (sel->has_gid)
		fare_groupid_format(gbuf, sizeof(gbuf), &sel->gid);
	if (jp) {
		json_object *jg = json_object_new_object();
		json_object *jm;

		json_object_string_add(jg, "reason", sel->reason);
		if (sel->has_gid) {
			struct in_addr rid = { .s_addr = htonl(sel->gid.router_id) };

			json_object_string_add(jg, "remote", gbuf);
			json_object_string_addf(jg, "routerId", "%pI4", &rid);
			json_object_int_add(jg, "groupId", sel->gid.group_id);
		}
		if (sel->subgroup != FARE_ECMP_SUBGROUP_NONE) {
			json_object_int_add(jg, "subgroup", sel->subgroup + 1);
			jm = json_object_new_array();
			for (i = 0; i < fp->n; i++) {
				struct peer *peer = fp->paths[i]->peer;
				const char *ifname = fare_peer_ifname(peer);

				if (sel->member[i])
					json_object_array_add(jm, json_object_new_string(
									  ifname ? ifname
										 : peer->host));
			}
			json_object_object_add(jg, "members", jm);
		}
		json_object_object_add(jp, "ecmpGroup", jg);
		return;
	}
	if (!sel->has_gid)
		vty_out(vty, "  ECMP group: none (%s)\n", sel->reason);
	else if (sel->subgroup == FARE_ECMP_SUBGROUP_NONE)
		vty_out(vty, "  ECMP group %s: %s\n", gbuf, sel->reason);
	else
		vty_out(vty, "  ECMP group %s: local sub-group %u, %s\n", gbuf, sel->subgroup + 1,
			sel->reason);
}

static void fare_show_prefix(struct vty *vty, struct fare_instance *fi, struct bgp_dest *dest,
			     json_object *jprefixes, struct fare_prefix *fp)
{
	struct bgp_path_info *best = fare_dest_selected(dest);
	json_object *jp = NULL, *jpaths = NULL;
	char b1[64], b2[64], b3[64], b4[64];
	enum fare_weight_source wsrc;
	enum fare_frr_wecmp frr_how = FARE_FRR_WECMP_NONE;
	bool local;
	size_t i;

	if (!best)
		return;
	local = fare_route_is_local(fi->bgp, best);
	if (local) {
		fp->n = 0;
		memset(&fp->out, 0, sizeof(fp->out));
	} else {
		fare_prefix_compute_dest(fi, dest, best, fp);
	}
	/* FARE's weights, or where it has none FRR's own (fare_weight_source()) */
	wsrc = fare_weight_source(fi, dest, best, fp);
	if (wsrc == FARE_WSRC_FRR_LINK_BW)
		frr_how = FARE_FRR_WECMP_LINK_BW;
	else if (wsrc == FARE_WSRC_FRR_NNHN)
		frr_how = FARE_FRR_WECMP_NNHN;

	if (jprefixes) {
		json_object *jadv = json_object_new_object();
		char pfx[PREFIX_STRLEN];

		jp = json_object_new_object();
		jpaths = json_object_new_array();
		json_object_boolean_add(jp, "local", local);
		json_object_boolean_add(jp, "wcmp", fp->out.wcmp);
		json_object_string_add(jp, "reason",
				       local ? "locally originated"
					     : fare_reason_str(fp->out.reason));
		json_object_string_add(jp, "weightSource", fare_weight_source_str(wsrc));
		json_object_int_add(jp, "multihomingFactor", local ? 1 : fp->multihoming);
		json_object_int_add(jp, "droppedPaths", local ? 0 : fp->out.dropped);
		if (local) {
			json_object_string_add(jadv, "transitive",
					       fi->originate ? "originate" : "none");
			if (fi->originate)
				fare_bw_json(jadv, "transitiveBytesPerSec", fi->originate_bw);
		} else {
			json_object_string_add(jadv, "transitive",
					       fare_adv_action_str(fp->out.t_action));
			if (fp->out.t_action == FARE_ADV_REPLACE && fi->mode == FARE_MODE_AVERAGED) {
				/* WP-2: per session, capped by its rate */
				unsigned int n_out = fare_eligible_outgoing(fi, dest, fp,
									    afi_of(dest));

				fare_bw_json(jadv, "sumBytesPerSec", fp->out.t_value);
				json_object_int_add(jadv, "outgoingInterfaces", n_out);
				fare_bw_json(jadv, "transitiveBytesPerSec",
					     fare_averaged_advertised(fp->out.t_value, n_out, 0));
			} else if (fp->out.t_action == FARE_ADV_REPLACE) {
				fare_bw_json(jadv, "transitiveBytesPerSec", fp->out.t_value);
			}
			json_object_boolean_add(jadv, "nonTransitive", fp->out.nt_attach);
			if (fp->out.nt_attach)
				fare_bw_json(jadv, "nonTransitiveBytesPerSec", fp->out.nt_value);
		}
		json_object_object_add(jp, "advertised", jadv);
		json_object_object_add(jp, "paths", jpaths);
		if (!local)
			fare_show_ecmp_group(vty, fi, best, fp, jp);
		prefix2str(bgp_dest_get_prefix(dest), pfx, sizeof(pfx));
		json_object_object_add(jprefixes, pfx, jp);
	} else {
		vty_out(vty, "%pBD: %s\n", dest,
			local ? "locally originated" : fare_reason_str(fp->out.reason));
		if (local) {
			if (fi->originate) {
				fare_bw_format(b1, sizeof(b1), fi->originate_bw);
				vty_out(vty, "  advertised: originate %s\n", b1);
			}
			return;
		}
		vty_out(vty, "  weights set by: %s%s\n", fare_weight_source_str(wsrc),
			frr_how != FARE_FRR_WECMP_NONE ? " (Weight: FRR's, before zebra scales it)"
						       : "");
		if (fp->multihoming > 1)
			vty_out(vty, "  multihoming factor %u\n", fp->multihoming);
		if (fp->out.dropped)
			vty_out(vty,
				"  %zu path(s) at weight 0: share below 1/W of the member budget (WP-3)\n",
				fp->out.dropped);
		vty_out(vty, "  %-28s %-14s %-14s %-14s %-14s %s\n", "Path", "LinkBW", "PathBW",
			"PathBW-NT", "Weight-BW", "Weight");
	}

	for (i = 0; i < fp->n; i++) {
		struct bgp_path_info *pi = fp->paths[i];
		const struct fare_path_in *in = &fp->in[i];
		const char *ifname = fare_peer_ifname(pi->peer);

		if (jpaths) {
			json_object *jpath = json_object_new_object();
			json_object *jt;

			json_object_string_add(jpath, "peer", pi->peer->host);
			if (pi->peer->hostname)
				json_object_string_add(jpath, "hostname", pi->peer->hostname);
			json_object_string_add(jpath, "interface", ifname ? ifname : "");
			json_object_boolean_add(jpath, "bestpath", i == 0);
			fare_bw_json(jpath, "linkBandwidthBytesPerSec", in->link_bw);
			json_object_string_add(jpath, "linkBandwidthSource", fp->link_source[i]);
			/* FARE-4: min() with the link only where it is known */
			json_object_boolean_add(jpath, "cappedByLink", in->link_bw > 0);
			if (!(in->link_bw > 0))
				json_object_string_add(jpath, "uncappedReason",
						       fare_uncapped_reason(fp->link_source[i]));
			json_object_boolean_add(jpath, "linkBandwidthHeld", fp->link_held[i]);
			json_object_boolean_add(jpath, "holdDown", in->held_down);
			fare_pb_json(jpath, "transitive", in->t_state, in->t_bw);
			if (in->t_state == FARE_PB_STALE &&
			    json_object_object_get_ex(jpath, "transitive", &jt))
				json_object_int_add(jt, "writtenByAs", fp->stale_as[i]);
			json_object_boolean_add(jpath, "nexthopInexact", in->inexact_nexthop);
			json_object_int_add(jpath, "linkGroup", in->link_group);
			json_object_int_add(jpath, "nexthopGroup", in->nexthop_group);
			json_object_int_add(jpath, "neighborGroup", in->neighbor_group);
			json_object_string_addf(jpath, "neighborRouterId", "%pI4",
						&pi->peer->remote_id);
			fare_pb_json(jpath, "nonTransitive", in->nt_state, in->nt_bw);
			json_object_boolean_add(jpath, "fromSuperSpine", in->from_super_spine);
			json_object_boolean_add(jpath, "ignored", in->ignored);
			fare_bw_json(jpath, "pathBandwidthBytesPerSec", fp->path_bw[i]);
			json_object_int_add(jpath, "weight", fp->weights[i]);
			if (frr_how != FARE_FRR_WECMP_NONE)
				json_object_int_add(jpath, "frrWeight",
						    fare_frr_path_weight(fi->bgp, pi, frr_how));
			/* WP-3: a share below 1/W of the member budget */
			json_object_boolean_add(jpath, "shareBelowMemberBudget",
						fp->out.wcmp && fp->path_bw[i] > 0 &&
							!fp->weights[i] &&
							(!fp->ee.applied || fp->ee.member[i]));
			json_object_array_add(jpaths, jpath);
		} else {
			char who[64];
			uint64_t weight;

			/* "spine1(to-s1)", "10.0.0.1(r2-eth0)" */
			snprintf(who, sizeof(who), "%s(%s)",
				 pi->peer->hostname ? pi->peer->hostname : pi->peer->host,
				 ifname ? ifname : pi->peer->host);
			fare_bw_format(b1, sizeof(b1), in->link_bw);
			fare_pb_text(b2, sizeof(b2), in->t_state, in->t_bw);
			fare_pb_text(b3, sizeof(b3), in->nt_state, in->nt_bw);
			if (fp->out.wcmp)
				fare_bw_format(b4, sizeof(b4), fp->path_bw[i]);
			else
				snprintf(b4, sizeof(b4), "-");
			/* the weight sent to zebra: FARE's, or FRR's unscaled */
			weight = fp->weights[i];
			if (frr_how != FARE_FRR_WECMP_NONE)
				weight = fare_frr_path_weight(fi->bgp, pi, frr_how);
			vty_out(vty, "  %-28s %-14s %-14s %-14s %-14s %" PRIu64 "\n", who, b1, b2,
				b3, b4, weight);
			if (!(in->link_bw > 0))
				vty_out(vty, "    %s: received value uncapped (%s)\n", who,
					fare_uncapped_reason(fp->link_source[i]));
		}
	}

	if (!jprefixes) {
		switch (fp->out.t_action) {
		case FARE_ADV_REPLACE:
			fare_bw_format(b1, sizeof(b1), fp->out.t_value);
			if (fi->mode == FARE_MODE_AVERAGED) {
				unsigned int n_out = fare_eligible_outgoing(fi, dest, fp,
									    afi_of(dest));

				if (n_out)
					vty_out(vty,
						"  advertised: transitive %s / %u outgoing interfaces, capped by each line rate",
						b1, n_out);
				else
					vty_out(vty,
						"  advertised: transitive %s (no eligible outgoing interface)",
						b1);
			} else
				vty_out(vty, "  advertised: transitive %s", b1);
			break;
		case FARE_ADV_KEEP:
			vty_out(vty, "  advertised: transitive as received");
			break;
		case FARE_ADV_STRIP:
			vty_out(vty, "  advertised: no Path Bandwidth");
			break;
		}
		if (fp->out.nt_attach) {
			fare_bw_format(b1, sizeof(b1), fp->out.nt_value);
			vty_out(vty, ", non-transitive %s", b1);
		}
		vty_out(vty, "\n");
		fare_show_ecmp_group(vty, fi, best, fp, NULL);
	}
}

/* One prefix: text, or its JSON member ("PREFIX":{...}) streamed. */
static void fare_show_prefix_out(struct vty *vty, struct fare_instance *fi, struct bgp_dest *dest,
				 bool uj, struct fare_prefix *fp, bool *first)
{
	json_object *jone;

	if (!uj) {
		fare_show_prefix(vty, fi, dest, NULL, fp);
		return;
	}
	jone = json_object_new_object();
	fare_show_prefix(vty, fi, dest, jone, fp);
	json_object_object_foreach(jone, key, val)
	{
		vty_out(vty, "%s\"%s\":%s", *first ? "" : ",", key,
			json_object_to_json_string_ext(val, JSON_C_TO_STRING_NOSLASHESCAPE));
		*first = false;
	}
	json_object_free(jone);
}

/*
 * The FARE record of BGP for a show command, or NULL after saying that FARE
 * is not configured there ("{}" in JSON). A show never creates the record:
 * only configuration does.
 */
static struct fare_instance *fare_vty_show_instance(struct vty *vty, struct bgp *bgp, bool uj)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	if (fi)
		return fi;
	if (uj)
		vty_out(vty, "{}\n");
	else
		vty_out(vty, "%% FARE is not configured in %s\n", bgp->name_pretty);
	return NULL;
}

DEFPY(show_bgp_fare_planes, show_bgp_fare_planes_cmd,
      "show bgp [vrf NAME$vrf_name] fare planes [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Planes (neighbor routers) and, per destination, each plane's weight and share (SUN-1, SUN-2)\n"
      JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	json_object *json = NULL;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_vty_show_instance(vty, bgp, !!uj);
	if (!fi)
		return CMD_SUCCESS;
	if (uj)
		json = json_object_new_object();
	fare_host_show(vty, bgp, fi, json);
	if (json)
		vty_json(vty, json);
	return CMD_SUCCESS;
}

DEFPY(show_bgp_fare_ecmp_groups, show_bgp_fare_ecmp_groups_cmd,
      "show bgp [vrf NAME$vrf_name] fare ecmp-groups [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Enhanced ECMP: sub-groups and remote group map (EE-2, EE-4)\n" JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	json_object *json = NULL;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_vty_show_instance(vty, bgp, !!uj);
	if (!fi)
		return CMD_SUCCESS;
	if (uj)
		json = json_object_new_object();
	fare_ecmp_show(vty, fi, json);
	if (uj)
		vty_json(vty, json);
	return CMD_SUCCESS;
}

DEFPY(show_bgp_fare_ecmp_ingress, show_bgp_fare_ecmp_ingress_cmd,
      "show bgp [vrf NAME$vrf_name] fare ecmp-ingress [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Enhanced ECMP: ingress-interface groups and their tables (EE-1)\n" JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	json_object *json = NULL;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_vty_show_instance(vty, bgp, !!uj);
	if (!fi)
		return CMD_SUCCESS;
	if (uj)
		json = json_object_new_object();
	fare_ingress_show(vty, fi, json);
	if (uj)
		vty_json(vty, json);
	return CMD_SUCCESS;
}

DEFPY(show_bgp_afi_fare, show_bgp_afi_fare_cmd,
      "show bgp [vrf NAME$vrf_name] <ipv4$v4|ipv6$v6> fare [<A.B.C.D/M|X:X::X:X/M>$prefix] [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR "IPv4 unicast\n" "IPv6 unicast\n" FARE_STR
      "IPv4 prefix\n" "IPv6 prefix\n" JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	struct bgp_table *table;
	struct bgp_dest *dest;
	struct fare_prefix *fp;
	json_object *json;
	afi_t afi = v4 ? AFI_IP : AFI_IP6;
	bool first = true;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_instance_find(bgp);
	if (!fi) {
		if (uj)
			vty_out(vty, "{\"enabled\":false,\"prefixes\":{}}\n");
		else
			vty_out(vty, "%% FARE is not configured in %s\n", bgp->name_pretty);
		return CMD_SUCCESS;
	}
	table = bgp->rib[afi][SAFI_UNICAST];

	if (prefix_str && prefix->family != afi2family(afi)) {
		vty_out(vty, "%% Prefix %s is not %s\n", prefix_str, v4 ? "IPv4" : "IPv6");
		return CMD_WARNING;
	}

	if (uj) {
		/* Streamed, one prefix at a time, as "show bgp ... json" is:
		 * the header object without its closing brace, then each
		 * prefix.
		 */
		const char *head;

		json = json_object_new_object();
		json_object_string_add(json, "vrf", bgp->name_pretty);
		json_object_string_add(json, "afi", v4 ? "ipv4" : "ipv6");
		json_object_int_add(json, "localAs", bgp->as);
		json_object_boolean_add(json, "enabled", fi->enabled);
		json_object_string_add(json, "mode", fare_mode_str(fi->mode));
		head = json_object_to_json_string_ext(json, JSON_C_TO_STRING_NOSLASHESCAPE);
		vty_out(vty, "%.*s,\"prefixes\":{", (int)strlen(head) - 1, head);
		json_object_free(json);
	} else {
		vty_out(vty, "FARE %s, %s unicast, local AS %u: %s\n", bgp->name_pretty,
			v4 ? "IPv4" : "IPv6", bgp->as, fi->enabled ? "enabled" : "disabled");
	}

	fp = XCALLOC(MTYPE_TMP, sizeof(*fp));
	if (prefix_str) {
		dest = bgp_node_lookup(table, prefix);
		if (dest) {
			fare_show_prefix_out(vty, fi, dest, uj, fp, &first);
			bgp_dest_unlock_node(dest);
		} else if (!uj) {
			vty_out(vty, "%% Network not in table\n");
		}
	} else {
		for (dest = bgp_table_top(table); dest; dest = bgp_route_next(dest))
			fare_show_prefix_out(vty, fi, dest, uj, fp, &first);
	}
	XFREE(MTYPE_TMP, fp);

	if (uj)
		vty_out(vty, "}}\n");
	return CMD_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* running-config                                                       */
/* ------------------------------------------------------------------ */

static int fare_config_write(struct bgp *bgp, struct vty *vty)
{
	struct fare_instance *fi = fare_instance_find(bgp);
	struct fare_peer_cfg *pc;
	struct fare_multihoming *mh;
	struct listnode *node;
	char buf[64];

	if (!fi)
		return 0;

	if (fi->enabled)
		vty_out(vty, " bgp fare\n");
	if (fi->mode == FARE_MODE_AVERAGED)
		vty_out(vty, " bgp fare mode averaged\n");
	if (fi->per_session)
		vty_out(vty, " bgp fare parallel-links per-session\n");
	if (fi->hold_down != FARE_HOLD_DOWN_DEFAULT)
		vty_out(vty, " bgp fare hold-down %u\n", fi->hold_down);
	if (fi->subtype != FARE_PATHBW_SUBTYPE_DEFAULT)
		vty_out(vty, " bgp fare path-bandwidth sub-type %u\n", fi->subtype);
	if (fi->role != FARE_ROLE_NODE)
		vty_out(vty, " bgp fare role %s\n", fare_role_str(fi->role));
	if (fi->originate) {
		if (fi->originate_bw >= FARE_PATHBW_MAX_BYTES_PER_SEC) {
			vty_out(vty, " bgp fare originate\n");
		} else {
			fare_bw_config_str(buf, sizeof(buf), fi->originate_bw);
			vty_out(vty, " bgp fare originate %s\n", buf);
		}
	}
	if (fi->lower_transitive)
		vty_out(vty, " bgp fare super-spine-paths lower-transitive\n");
	if (fi->max_members != FARE_MAX_MEMBERS_DEFAULT)
		vty_out(vty, " bgp fare wcmp max-members %u\n", fi->max_members);
	if (fi->max_weight != FARE_MAX_WEIGHT)
		vty_out(vty, " bgp fare wcmp max-weight %u\n", fi->max_weight);
	for (ALL_LIST_ELEMENTS_RO(fi->multihoming, node, mh))
		vty_out(vty, " bgp fare multihoming prefix-list %s factor %u\n", mh->plist,
			mh->factor);
	fare_ecmp_config_write(vty, fi);
	fare_ingress_config_write(vty, fi);
	for (ALL_LIST_ELEMENTS_RO(fi->peers, node, pc)) {
		if (CHECK_FLAG(pc->set, FARE_PEER_LINK_BW)) {
			fare_bw_config_str(buf, sizeof(buf), pc->link_bw);
			vty_out(vty, " neighbor %s fare link-bandwidth %s\n", pc->name, buf);
		}
		if (CHECK_FLAG(pc->set, FARE_PEER_BOUNDARY))
			vty_out(vty, " neighbor %s fare boundary\n", pc->name);
		if (CHECK_FLAG(pc->set, FARE_PEER_SUPER_SPINE))
			vty_out(vty, " neighbor %s fare super-spine\n", pc->name);
	}
	return 0;
}

void fare_vty_init(void)
{
	hook_register(bgp_inst_config_write, fare_config_write);
	hook_register(bgp_hook_config_write_debug, fare_config_write_debug);

	install_element(BGP_NODE, &bgp_fare_enable_cmd);
	install_element(BGP_NODE, &bgp_fare_mode_cmd);
	install_element(BGP_NODE, &bgp_fare_hold_down_cmd);
	install_element(BGP_NODE, &bgp_fare_parallel_links_cmd);
	install_element(BGP_NODE, &bgp_fare_originate_cmd);
	install_element(BGP_NODE, &bgp_fare_role_cmd);
	install_element(BGP_NODE, &bgp_fare_lower_transitive_cmd);
	install_element(BGP_NODE, &bgp_fare_subtype_cmd);
	install_element(BGP_NODE, &bgp_fare_max_members_cmd);
	install_element(BGP_NODE, &bgp_fare_max_weight_cmd);
	install_element(BGP_NODE, &bgp_fare_multihoming_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_group_id_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subtype_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subgroups_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subgroup_member_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_group_map_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_ingress_group_cmd);
	install_element(BGP_NODE, &neighbor_fare_link_bw_cmd);
	install_element(BGP_NODE, &no_neighbor_fare_link_bw_cmd);
	install_element(BGP_NODE, &neighbor_fare_flag_cmd);

	install_element(ENABLE_NODE, &debug_bgp_fare_cmd);
	install_element(CONFIG_NODE, &debug_bgp_fare_cmd);

	install_element(VIEW_NODE, &show_bgp_fare_cmd);
	install_element(VIEW_NODE, &show_bgp_afi_fare_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_ecmp_groups_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_planes_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_ecmp_ingress_cmd);
}
