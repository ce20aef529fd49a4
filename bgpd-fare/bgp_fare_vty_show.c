// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the shows of an instance ("show bgp fare") and of its
 * prefixes ("show bgp ipv4|ipv6 fare"), and of the host role's planes.
 */
#include <zebra.h>

#include "command.h"
#include "json.h"
#include "linklist.h"
#include "prefix.h"
#include "vty.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_eval.h"
#include "bgpd/fare/bgp_fare_host.h"
#include "bgpd/fare/bgp_fare_nhg.h"
#include "bgpd/fare/bgp_fare_traffic.h"
#include "bgpd/fare/bgp_fare_vty.h"

#include "bgpd/fare/bgp_fare_vty_show_clippy.c"

struct bgp *fare_vty_bgp(struct vty *vty, const char *vrf_name, bool uj)
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
	static const struct fare_counters none;
	static struct fare_peer_cfgs_head no_cfgs = INIT_DLIST(no_cfgs);
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	const struct fare_counters *cnt;
	struct fare_instance *fi;
	struct fare_peer *pc;
	struct fare_multihoming *mh;
	struct listnode *node;
	char buf[64];
	int c;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_instance_find(bgp);
	/* the instance's counters (none: FARE not configured there) */
	cnt = fi ? &fi->counters : &none;

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
		json_object_boolean_add(jcfg, "nexthopGroups", fi && fi->nhg);
		fare_weight_width_json(json, fi);
		fare_frr_wecmp_show(vty, bgp, json);
		frr_each (fare_peer_cfgs, fi ? &fi->cfgs : &no_cfgs, pc) {
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
			json_object_int_add(jcls, fare_bw_class_name(c), cnt->value_class[c]);
		json_object_object_add(jcnt, "receivedValues", jcls);
		json_object_int_add(jcnt, "duplicate", cnt->duplicate);
		json_object_int_add(jcnt, "conflicting", cnt->conflicting);
		json_object_int_add(jcnt, "staleValue", cnt->stale);
		json_object_int_add(jcnt, "passedUnchanged", cnt->passed_unchanged);
		json_object_int_add(jcnt, "gracefulRestarts", cnt->graceful_restarts);
		json_object_int_add(jcnt, "ignoredBoundary", cnt->ignored_boundary);
		json_object_int_add(jcnt, "strippedBoundary", cnt->stripped_boundary);
		json_object_int_add(jcnt, "originated", cnt->originated);
		json_object_int_add(jcnt, "replaced", cnt->replaced);
		json_object_int_add(jcnt, "strippedFallback", cnt->stripped_fallback);
		json_object_int_add(jcnt, "nonTransitiveAttached", cnt->nt_attached);
		json_object_int_add(jcnt, "heldDown", cnt->held_down);
		json_object_int_add(jcnt, "wcmpRoutes", cnt->wcmp_routes);
		json_object_int_add(jcnt, "droppedPaths", cnt->dropped_paths);
		json_object_int_add(jcnt, "ecmpRoutes", cnt->ecmp_routes);
		json_object_int_add(jcnt, "notSentUnchanged", cnt->zebra_unchanged);
		json_object_int_add(jcnt, "frrWeightedRoutes", cnt->frr_weighted_routes);
		json_object_int_add(jcnt, "transitWithheld", cnt->transit_withheld);
		json_object_int_add(jcnt, "tableWalks", cnt->table_walks);
		json_object_int_add(jcnt, "peerOnlyRefreshes", cnt->peer_only_refreshes);
		json_object_int_add(jcnt, "reannouncePasses", cnt->announce_passes);
		json_object_int_add(jcnt, "reannouncedSubgroups", cnt->announce_subgrps);
		json_object_int_add(jcnt, "reannouncedRoutes", cnt->announce_routes);
		json_object_int_add(jcnt, "reevaluatedRoutes", cnt->reevaluated_routes);
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
	if (fi && fi->nhg)
		vty_out(vty, "  Nexthop groups: shared, replaced in place\n");
	fare_frr_wecmp_show(vty, bgp, NULL);
	if (fi && fi->lower_transitive)
		vty_out(vty, "  Super-spine paths: lower transitive value\n");
	for (ALL_LIST_ELEMENTS_RO(fi ? fi->multihoming : NULL, node, mh))
		vty_out(vty, "  Multihoming: prefix-list %s factor %u\n", mh->plist, mh->factor);
	frr_each (fare_peer_cfgs, fi ? &fi->cfgs : &no_cfgs, pc) {
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
		vty_out(vty, " %s %" PRIu64, fare_bw_class_name(c), cnt->value_class[c]);
	vty_out(vty,
		"\n  Duplicate %" PRIu64 ", conflicting %" PRIu64 ", stale %" PRIu64
		", ignored from boundary %" PRIu64 "\n",
		cnt->duplicate, cnt->conflicting, cnt->stale, cnt->ignored_boundary);
	vty_out(vty,
		"  Advertised: originated %" PRIu64 ", replaced %" PRIu64
		", passed unchanged (next hop not self) %" PRIu64 ", stripped (fallback) %" PRIu64
		", stripped (boundary) %" PRIu64 ", non-transitive attached %" PRIu64 "\n",
		cnt->originated, cnt->replaced, cnt->passed_unchanged, cnt->stripped_fallback,
		cnt->stripped_boundary, cnt->nt_attached);
	vty_out(vty, "  Sessions back after a graceful restart (no hold-down): %" PRIu64 "\n",
		cnt->graceful_restarts);
	vty_out(vty,
		"  Routes to zebra: weighted %" PRIu64 ", ECMP %" PRIu64
		", weighted by FRR %" PRIu64 ", paths left out by the member budget %" PRIu64 "\n",
		cnt->wcmp_routes, cnt->ecmp_routes, cnt->frr_weighted_routes, cnt->dropped_paths);
	if (fi && fi->nhg)
		vty_out(vty,
			"  Routes not sent to zebra again (zebra has them as they are): %" PRIu64
			"\n",
			cnt->zebra_unchanged);
	if (cnt->transit_withheld || (fi && fi->role == FARE_ROLE_HOST))
		vty_out(vty,
			"  Host role: announcements withheld (not originated here) %" PRIu64 "\n",
			cnt->transit_withheld);
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
		json_object_int_add(jp, "nexthopGroupId", fare_nhg_dest_group(dest));
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
		if (fare_nhg_dest_group(dest))
			vty_out(vty, "  nexthop group %u\n", fare_nhg_dest_group(dest));
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

/* A feature's show of the instance of a show command, or of none: "{}"
 * in JSON, "% FARE is not configured in ..." in text (a show never
 * creates the record).
 */
int fare_vty_show_feature(struct vty *vty, const char *vrf_name, bool uj,
			  void (*show)(struct vty *vty, struct fare_instance *fi, json_object *json))
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, uj);
	struct fare_instance *fi;
	json_object *json = NULL;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_vty_show_instance(vty, bgp, uj);
	if (!fi)
		return CMD_SUCCESS;
	if (uj)
		json = json_object_new_object();
	show(vty, fi, json);
	if (json)
		vty_json(vty, json);
	return CMD_SUCCESS;
}

static void fare_planes_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	fare_host_show(vty, fi->bgp, fi, json);
}

DEFPY(show_bgp_fare_planes, show_bgp_fare_planes_cmd,
      "show bgp [vrf NAME$vrf_name] fare planes [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Planes (neighbor routers) and, per destination, each plane's weight and share (SUN-1, SUN-2)\n"
      JSON_STR)
{
	return fare_vty_show_feature(vty, vrf_name, !!uj, fare_planes_show);
}

DEFPY(show_bgp_fare_nhg, show_bgp_fare_nhg_cmd,
      "show bgp [vrf NAME$vrf_name] fare nexthop-groups [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Shared nexthop groups: id, members and their weights, prefixes\n" JSON_STR)
{
	return fare_vty_show_feature(vty, vrf_name, !!uj, fare_nhg_show);
}

DEFPY(show_bgp_fare_traffic, show_bgp_fare_traffic_cmd,
      "show bgp [vrf NAME$vrf_name] fare traffic [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Packets per member of the nexthop groups of the routes: installed weight, intended and measured share, deviation\n"
      JSON_STR)
{
	return fare_vty_show_feature(vty, vrf_name, !!uj, fare_traffic_show);
}

DEFPY(show_bgp_afi_fare_traffic, show_bgp_afi_fare_traffic_cmd,
      "show bgp [vrf NAME$vrf_name] <ipv4$v4|ipv6$v6> fare <A.B.C.D/M|X:X::X:X/M>$prefix traffic [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR "IPv4 unicast\n" "IPv6 unicast\n" FARE_STR
      "IPv4 prefix\n" "IPv6 prefix\n"
      "Packets per member of the prefix's kernel nexthop group: installed weight, intended and measured share, deviation\n"
      JSON_STR)
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, !!uj);
	struct fare_instance *fi;
	json_object *json = NULL;
	struct prefix p;

	if (!bgp)
		return CMD_WARNING;
	if (prefix->family != (v4 ? AF_INET : AF_INET6)) {
		vty_out(vty, "%% Prefix %s is not %s\n", prefix_str, v4 ? "IPv4" : "IPv6");
		return CMD_WARNING;
	}
	fi = fare_vty_show_instance(vty, bgp, !!uj);
	if (!fi)
		return CMD_SUCCESS;
	prefix_copy(&p, prefix);
	apply_mask(&p);
	if (uj)
		json = json_object_new_object();
	fare_traffic_show_prefix(vty, fi, &p, json);
	if (json)
		vty_json(vty, json);
	return CMD_SUCCESS;
}

DEFPY(clear_bgp_fare_traffic, clear_bgp_fare_traffic_cmd,
      "clear bgp [vrf NAME$vrf_name] fare traffic",
      CLEAR_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Count the packets per member of the nexthop groups from now on (the kernel's counters stay)\n")
{
	struct bgp *bgp = fare_vty_bgp(vty, vrf_name, false);
	struct fare_instance *fi;
	const char *err = NULL;

	if (!bgp)
		return CMD_WARNING;
	fi = fare_vty_show_instance(vty, bgp, false);
	if (!fi)
		return CMD_SUCCESS;
	if (!fare_traffic_clear(fi, &err)) {
		vty_out(vty, "%% No nexthop objects read from the kernel: %s\n", err);
		return CMD_WARNING;
	}
	return CMD_SUCCESS;
}

struct fare_show_walk {
	struct vty *vty;
	struct fare_instance *fi;
	bool uj;
	struct fare_prefix *fp;
	bool *first;
};

static void fare_show_walk_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	struct fare_show_walk *w = arg;

	fare_show_prefix_out(w->vty, w->fi, dest, w->uj, w->fp, w->first);
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
		struct fare_show_walk w = {
			.vty = vty, .fi = fi, .uj = !!uj, .fp = fp, .first = &first
		};

		fare_unicast_walk_show(bgp, afi, fare_show_walk_dest, &w);
	}
	XFREE(MTYPE_TMP, fp);

	if (uj)
		vty_out(vty, "}}\n");
	return CMD_SUCCESS;
}


void fare_vty_show_init(void)
{
	install_element(VIEW_NODE, &show_bgp_fare_cmd);
	install_element(VIEW_NODE, &show_bgp_afi_fare_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_planes_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_nhg_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_traffic_cmd);
	install_element(VIEW_NODE, &show_bgp_afi_fare_traffic_cmd);
	install_element(ENABLE_NODE, &clear_bgp_fare_traffic_cmd);
}
