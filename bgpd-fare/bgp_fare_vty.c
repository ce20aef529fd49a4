// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the commands of the instance and its neighbors ("bgp fare
 * ...", "neighbor X fare ...", "debug bgp fare") and the configuration
 * written back. Enhanced ECMP's commands: bgp_fare_ecmp_vty.c; the shows:
 * bgp_fare_vty_show.c.
 */
#include <zebra.h>
#include <math.h>

#include "command.h"
#include "json.h"
#include "linklist.h"
#include "prefix.h"
#include "vty.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_debug.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_ingress.h"
#include "bgpd/fare/bgp_fare_nhg.h"
#include "bgpd/fare/bgp_fare_traffic.h"
#include "bgpd/fare/bgp_fare_vty.h"

#include "bgpd/fare/bgp_fare_vty_clippy.c"

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

DEFPY(bgp_fare_nexthop_groups, bgp_fare_nexthop_groups_cmd,
      "[no] bgp fare nexthop-groups",
      NO_STR BGP_STR FARE_STR
      "Send weighted routes through shared nexthop groups, replaced in place when their weights change\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !fare_nhg_supported()) {
		vty_out(vty, "%% This bgpd cannot send routes through a module's nexthop groups\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	if (fi->nhg == !no)
		return CMD_SUCCESS;
	fi->nhg = !no;
	fare_nhg_instance_changed(fi);
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_traffic_alarm, bgp_fare_traffic_alarm_cmd,
      "[no] bgp fare traffic-alarm [threshold (1-100)$threshold] [min-packets (1-4294967295)$min_packets] [interval (1-3600)$interval]",
      NO_STR BGP_STR FARE_STR
      "Log when the measured traffic shares of a nexthop group deviate from its weights (kernel counters, Linux 6.9+)\n"
      "Deviation of a member's share that counts (default 10)\n"
      "Percentage points\n"
      "Packets a group must carry in an interval for its deviation to count (default 1000)\n"
      "Packets\n"
      "Seconds between two reads of the counters (default 60)\n"
      "Seconds\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_traffic_alarm_set(fi, !no, threshold_str ? threshold : FARE_TRAFFIC_THRESHOLD_DEFAULT,
			       min_packets_str ? (uint64_t)min_packets
					       : FARE_TRAFFIC_MIN_PACKETS_DEFAULT,
			       interval_str ? interval : FARE_TRAFFIC_INTERVAL_DEFAULT);
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

/* neighbor ... fare ... */

static struct fare_peer *fare_vty_peer_cfg(struct vty *vty, const char *neighbor,
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
	return fare_peer_get(*fip, fare_peer_cfg_name(peer));
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
	struct fare_peer *pc;
	double bytes;

	if (fare_parse_bw(vty, bw, &bytes) != CMD_SUCCESS)
		return CMD_WARNING_CONFIG_FAILED;
	pc = fare_vty_peer_cfg(vty, neighbor, &fi);
	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	SET_FLAG(pc->set, FARE_PEER_LINK_BW);
	pc->link_bw = bytes;
	fare_peer_settings_changed(fi, pc);
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
	struct fare_peer *pc = fare_vty_peer_cfg(vty, neighbor, &fi);

	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	UNSET_FLAG(pc->set, FARE_PEER_LINK_BW);
	pc->link_bw = 0;
	fare_peer_settings_changed(fi, pc);
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
	struct fare_peer *pc = fare_vty_peer_cfg(vty, neighbor, &fi);
	uint32_t flag = boundary ? FARE_PEER_BOUNDARY : FARE_PEER_SUPER_SPINE;

	if (!pc)
		return CMD_WARNING_CONFIG_FAILED;
	if (no)
		UNSET_FLAG(pc->set, flag);
	else
		SET_FLAG(pc->set, flag);
	fare_peer_settings_changed(fi, pc);
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
/* running-config                                                       */
/* ------------------------------------------------------------------ */

static int fare_config_write(struct bgp *bgp, struct vty *vty)
{
	struct fare_instance *fi = fare_instance_find(bgp);
	struct fare_peer *pc;
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
	if (fi->nhg)
		vty_out(vty, " bgp fare nexthop-groups\n");
	for (ALL_LIST_ELEMENTS_RO(fi->multihoming, node, mh))
		vty_out(vty, " bgp fare multihoming prefix-list %s factor %u\n", mh->plist,
			mh->factor);
	fare_features_config_write(vty, fi);
	frr_each (fare_peer_cfgs, &fi->cfgs, pc) {
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
	install_element(BGP_NODE, &bgp_fare_nexthop_groups_cmd);
	install_element(BGP_NODE, &bgp_fare_traffic_alarm_cmd);
	install_element(BGP_NODE, &neighbor_fare_link_bw_cmd);
	install_element(BGP_NODE, &no_neighbor_fare_link_bw_cmd);
	install_element(BGP_NODE, &neighbor_fare_flag_cmd);

	install_element(ENABLE_NODE, &debug_bgp_fare_cmd);
	install_element(CONFIG_NODE, &debug_bgp_fare_cmd);
}
