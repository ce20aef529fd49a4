// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: FRR's events the module follows: interfaces (FARE-3 link
 * bandwidth, WP-7 hold-down), sessions (WP-7, WP-2), neighbors and
 * peer-groups deleted, prefix-lists changed (FARE-6, EE-3, WP-2), zebra's
 * capabilities (WP-3), update-group classes (FARE-11, WP-1/2), bgpd's
 * selection of a destination, and the display of the module's extended
 * communities. Each handler is registered by the module setup
 * (bgp_fare.c); each calls down only.
 */
#include <zebra.h>
#include <math.h>

#include "if.h"
#include "jhash.h"
#include "linklist.h"
#include "memory.h"
#include "plist.h"
#include "zclient.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_filter.h"
#include "bgpd/bgp_fsm.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_eval.h"
#include "bgpd/fare/bgp_fare_events.h"
#include "bgpd/fare/bgp_fare_nhg.h"

DEFINE_MTYPE_STATIC(FARE, FARE_IF_STATE, "FARE interface bandwidth");

/* Last bandwidth seen per interface, to tell a change from other interface
 * updates zebra sends.
 */
struct fare_if_state {
	ifindex_t ifindex;
	vrf_id_t vrf_id;
	uint64_t bandwidth_bps;
	bool configured; /* from the operator's `bandwidth`, else the speed */
};
static struct list *fare_if_states;

/* ------------------------------------------------------------------ */
/* Hold-down (WP-7)                                                     */
/* ------------------------------------------------------------------ */

static void fare_hold_down_expire(struct event *event)
{
	struct fare_peer *st = EVENT_ARG(event);
	struct fare_instance *fi = st->fi;

	if (FARE_DEBUG)
		zlog_debug("FARE: %s: %s: hold-down ended", fi->bgp->name_pretty, st->name);
	st->recovering = false;
	fare_name_refresh_later(fi, st->name, "hold-down ended");
}

/* WP-7: keep using `held_bw` (0 and recovering for a re-established
 * session) for the hold-down; restarted by every further increase.
 */
static void fare_hold_down_start(struct fare_instance *fi, struct peer *peer, double held_bw,
				 bool recovering)
{
	struct fare_peer *st;

	st = fare_peer_get(fi, fare_peer_cfg_name(peer));
	st->link_state = true;
	fare_state_changed();
	if (st->t_hold) {
		if (held_bw < st->held_bw)
			st->held_bw = held_bw;
		st->recovering |= recovering;
	} else {
		st->held_bw = held_bw;
		st->recovering = recovering;
	}
	event_cancel(&st->t_hold);
	event_add_timer(bm->master, fare_hold_down_expire, st, fi->hold_down, &st->t_hold);
	fi->counters.held_down++;
	if (FARE_DEBUG)
		zlog_debug("FARE: %pBP: %s, held for %us", peer,
			   recovering ? "session re-established" : "link bandwidth increased",
			   fi->hold_down);
}

/* ------------------------------------------------------------------ */
/* Displays and routes                                                  */
/* ------------------------------------------------------------------ */

/* FRR's displays: name our communities instead of "UNK:0, 48". */
int fare_ecommunity_str(const uint8_t *val, size_t unit_size, char *buf, size_t bufsz)
{
	struct fare_pathbw pb;
	struct fare_groupid gid;

	/* bgpd's contract: an earlier module that named it wins */
	if (unit_size != FARE_ECOMM_SIZE || (bufsz && buf[0]))
		return 0;
	/* EE-3 */
	if (val[0] == FARE_GROUPID_TYPE && fare_ecmp_display_groupid_subtype(val[1]) &&
	    fare_groupid_decode(val, unit_size, val[1], &gid) != FARE_GROUPID_NOT_OURS) {
		fare_groupid_format(buf, bufsz, &gid);
		return 1;
	}
	if (!fare_display_subtype(val[1]) || !fare_pathbw_decode(val, val[1], &pb))
		return 0;
	fare_pathbw_format(buf, bufsz, &pb);
	return 1;
}

/* bgpd selected the destination's paths anew: its result is out of date */
int fare_route_selected(struct bgp *bgp, afi_t afi, safi_t safi, struct bgp_dest *dest)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	/* EE-1: the ingress tables follow (withdrawals included) */
	if (fi)
		fare_features_dest_selected(fi, dest);
	fare_result_forget(dest);
	fare_nhg_dest_selected(dest);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Interfaces                                                           */
/* ------------------------------------------------------------------ */

static struct fare_if_state *fare_if_state_find(const struct interface *ifp)
{
	struct listnode *node;
	struct fare_if_state *st;

	for (ALL_LIST_ELEMENTS_RO(fare_if_states, node, st))
		if (st->ifindex == ifp->ifindex && st->vrf_id == ifp->vrf->vrf_id)
			return st;
	return NULL;
}

/* FARE-3: a change of an interface's bandwidth or speed re-evaluates the
 * instances whose sessions run over it. Zebra reports it in several ways,
 * all of which come here: a new kernel speed (a LAG member failing or
 * coming back) as an interface add (if_real), the operator's "bandwidth"
 * as an interface up, and state changes as up/down.
 */
int fare_if_update(struct interface *ifp)
{
	struct listnode *pnode;
	struct fare_if_state *st = NULL;
	struct fare_instance *fi;
	struct peer *peer;
	uint64_t bps, old_bps;
	bool configured = ifp->bandwidth != 0, recovery;

	if (ifp->ifindex == IFINDEX_INTERNAL)
		return 0;
	/* Mb/s: the operator's bandwidth, else the speed (unknown: 0) */
	if (ifp->bandwidth)
		bps = (uint64_t)ifp->bandwidth * 1000000ULL;
	else if (ifp->speed != UINT32_MAX)
		bps = (uint64_t)ifp->speed * 1000000ULL;
	else
		bps = 0;
	st = fare_if_state_find(ifp);
	if (!st) {
		st = XCALLOC(MTYPE_FARE_IF_STATE, sizeof(*st));
		st->ifindex = ifp->ifindex;
		st->vrf_id = ifp->vrf->vrf_id;
		st->bandwidth_bps = bps;
		st->configured = configured;
		listnode_add(fare_if_states, st);
		fare_state_changed(); /* sessions may run over it (FARE-3) */
		return 0;
	}
	if (st->bandwidth_bps == bps && st->configured == configured)
		return 0;

	if (FARE_DEBUG)
		zlog_debug("FARE: %s bandwidth %" PRIu64 " -> %" PRIu64 " bit/s", ifp->name,
			   st->bandwidth_bps, bps);
	old_bps = st->bandwidth_bps;
	/* WP-7: the hold-down is for a link that comes back (a LAG member,
	 * a higher speed or operator bandwidth than before), not for a
	 * bandwidth learned: the first known one, or the operator's
	 * `bandwidth` standing in for the kernel speed or given up for it
	 * (zebra may apply its configuration after it reported the
	 * interface, as at start-up)
	 */
	recovery = bps > old_bps && old_bps && st->configured == configured;
	st->bandwidth_bps = bps;
	st->configured = configured;

	fare_state_changed();
	frr_each (fare_instances, fare_instances_head(), fi) {
		bool over = false;

		if (!fi->enabled)
			continue;
		for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, pnode, peer)) {
			if (peer->nexthop.ifp != ifp && peer->ifp != ifp)
				continue;
			/* WP-7: an increase waits; an override is not ours */
			if (recovery && fi->hold_down &&
			    !fare_peer_flag(fi, peer, FARE_PEER_LINK_BW))
				fare_hold_down_start(fi, peer, (double)old_bps / 8, false);
			fare_peer_refresh_later(fi, peer, "link bandwidth changed");
			over = true;
		}
		if (over)
			fare_instance_refresh_ahead(fi);
	}
	return 0;
}

/* An interface that is gone leaves no state behind. */
int fare_if_gone(struct interface *ifp)
{
	struct fare_if_state *st = fare_if_state_find(ifp);

	fare_state_changed(); /* no session's interface any more (FARE-3) */
	if (st) {
		listnode_delete(fare_if_states, st);
		XFREE(MTYPE_FARE_IF_STATE, st);
	}
	return 0;
}

static uint32_t fare_name_hash(const char *name, uint32_t seed)
{
	return name ? jhash(name, strlen(name), seed) : seed;
}

/* WP-2: a neighbor's outbound policy decides whether it counts in N for a
 * prefix: in averaged mode, a change of it (a filter named or removed)
 * changes what every other session is sent.
 */
static void fare_out_policy_check(struct fare_instance *fi, struct peer *peer, afi_t afi)
{
	struct bgp_filter *filter = &peer->filter[afi][SAFI_UNICAST];
	struct fare_peer *view;
	uint32_t sig = 0x46415245;

	if (fare_peer_is_accept(peer))
		return;
	sig = fare_name_hash(DISTRIBUTE_OUT_NAME(filter), sig);
	sig = fare_name_hash(PREFIX_LIST_OUT_NAME(filter), sig + 1);
	sig = fare_name_hash(FILTER_LIST_OUT_NAME(filter), sig + 2);
	sig = fare_name_hash(ROUTE_MAP_OUT_NAME(filter), sig + 3);
	/* iBGP split horizon: a reflector client or not */
	if (CHECK_FLAG(peer->af_flags[afi][SAFI_UNICAST], PEER_FLAG_REFLECTOR_CLIENT))
		sig = jhash_1word(sig, 0x52524331);
	sig |= 1; /* never 0 */
	view = fare_peer_of(fi, peer);
	if (view->out_policy[afi == AFI_IP6] == sig)
		return;
	fare_state_changed(); /* N's sessions (WP-2) */
	if (view->out_policy[afi == AFI_IP6] && fi->enabled && fi->mode == FARE_MODE_AVERAGED)
		fare_instance_announce_later(fi, "outbound policy changed (WP-2 N)");
	view->out_policy[afi == AFI_IP6] = sig;
}

/* FARE-11: boundary peers get a different attribute (stripped), so they
 * must not share an update-group with fabric peers; in averaged mode each
 * outgoing line rate gets its own value (WP-1/2), so peers at different
 * rates never share one either. The rate goes in exactly, in bit/s.
 */
int fare_updgrp_peer_class(const struct peer *peer, afi_t afi, safi_t safi,
			   struct updgrp_module_class *cls)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);
	const char *src;
	double bits;

	if (!fi || !fare_afi_safi(afi, safi))
		return 0;
	/* bgpd regroups a peer whose outbound policy changed */
	fare_out_policy_check(fi, (struct peer *)peer, afi);
	if (fare_peer_flag(fi, (struct peer *)peer, FARE_PEER_BOUNDARY))
		updgrp_module_class_add(cls, "fareBoundary", 1);
	if (fi->enabled && fi->mode == FARE_MODE_AVERAGED) {
		bits = fare_peer_link_bw(fi, (struct peer *)peer, &src, NULL) * 8;
		updgrp_module_class_add(cls, "fareLinkBitsPerSec",
					bits >= (double)INT64_MAX ? (uint64_t)INT64_MAX
								  : (uint64_t)llround(bits));
	}
	return 0;
}

/* WP-7: bgpd deletes a dynamic (listen range) neighbor when its session
 * goes and creates it anew when it comes back: the record of its address
 * tells a return from a first session. One record per address seen,
 * kept with the instance.
 */
static bool fare_dynamic_returns(struct fare_instance *fi, struct peer *peer)
{
	struct fare_peer *st;

	if (!peer_dynamic_neighbor(peer))
		return false;
	st = fare_peer_find(fi, fare_peer_cfg_name(peer));
	return st && st->dynamic_was_up;
}

/* Sessions coming and going. WP-7: a session that comes back after a
 * failure carries nothing until its hold-down ends, so a flapping link
 * does not churn the fabric; not so after a graceful restart (RFC 4724),
 * where its stale paths kept forwarding and keep their weight. WP-2: in
 * averaged mode the number of outgoing sessions N changes with every
 * session that comes up or goes down, and so does every value sent.
 */
int fare_peer_status_changed(struct peer *peer)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);
	struct peer_connection *connection = peer->connection;
	bool up = connection->status == Established && connection->ostatus != Established;
	bool down = connection->status != Established && connection->ostatus == Established;

	if (fi && up)
		fare_features_peer_up(fi, peer); /* SUN-1 */
	if (!up && !down)
		return 0;
	/* the interface it runs over, its eligibility (WP-2: N's sessions) */
	fare_state_changed();
	if (!fi || !fi->enabled)
		return 0;
	if (up && fi->hold_down && (peer->established > 1 || fare_dynamic_returns(fi, peer))) {
		if (CHECK_FLAG(peer->sflags, PEER_STATUS_NSF_WAIT)) {
			fi->counters.graceful_restarts++;
			if (FARE_DEBUG)
				zlog_debug("FARE: %pBP: re-established after a graceful restart, no hold-down",
					   peer);
		} else {
			fare_hold_down_start(fi, peer, 0, true);
		}
	}
	/* WP-2: N changes what is sent, not what is installed (the paths
	 * a session brings or takes are bgpd's to process): the peers only
	 */
	if (fi->mode == FARE_MODE_AVERAGED)
		fare_instance_announce_settle(fi,
					      up ? "session up (WP-2 N)" : "session down (WP-2 N)");
	return 0;
}

/* Neighbors and peer-groups that are deleted take their FARE settings
 * and state with them: the configuration written back stays loadable and
 * a later neighbor of the same name starts clean.
 */
static void fare_forget_name(struct bgp *bgp, const char *name)
{
	struct fare_instance *fi = fare_instance_find(bgp);
	struct fare_peer *fp;
	bool had;

	if (!fi || !name)
		return;
	fp = fare_peer_find(fi, name);
	had = fp && (fp->set || fp->link_state);
	if (fp)
		fare_peer_forget(fi, fp);
	fare_state_changed();
	if (FARE_DEBUG && had)
		zlog_debug("FARE: %s: %s deleted, its FARE settings and state removed",
			   bgp->name_pretty, name);
}

int fare_peer_delete(struct peer *peer)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);
	struct fare_peer *fp;

	/* a peer-group's configuration node goes with the group */
	if (CHECK_FLAG(peer->sflags, PEER_STATUS_GROUP))
		return 0;
	/* WP-7: a dynamic neighbor that was up may come back: its record
	 * keeps its hold-down, not its session's state
	 */
	if (fi && peer_dynamic_neighbor(peer)) {
		if (peer->established) {
			fp = fare_peer_get(fi, peer->host);
			fp->dynamic_was_up = true;
			fp->link_state = true;
			fare_state_changed();
		}
		fp = fare_peer_find(fi, fare_peer_cfg_name(peer));
		if (fp)
			fare_peer_detach(fi, fp);
		return 0;
	}
	fare_forget_name(peer->bgp, peer->conf_if ? peer->conf_if : peer->host);
	return 0;
}

int fare_peer_group_delete(struct peer_group *group)
{
	fare_forget_name(group->bgp, group->name);
	return 0;
}

/* WP-2: a prefix-list (NULL: any) is a neighbor's outbound one */
static bool fare_out_plist_used(struct fare_instance *fi, const char *name)
{
	struct listnode *node;
	struct peer *peer;
	afi_t afi;

	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer))
		for (afi = AFI_IP; afi <= AFI_IP6; afi++) {
			const char *out = PREFIX_LIST_OUT_NAME(&peer->filter[afi][SAFI_UNICAST]);

			if (out && (!name || strmatch(out, name)))
				return true;
		}
	return false;
}

/* bgpd has read a whole configuration (vtysh -f, frr-reload.py, a start):
 * what FARE held back until then takes effect (EE-2: the sub-group layout)
 */
int fare_config_end(struct bgp *bgp)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	if (fi) {
		fare_ecmp_config_end(fi);
		fare_instance_config_end(fi);
	}
	return 0;
}

/* FARE-6: a prefix-list used by "bgp fare multihoming" changed; EE-3:
 * one used by "bgp fare ecmp-group-id N prefix-list X": the originated
 * routes are tagged, and announced, anew; WP-2: one a neighbor filters
 * its announcements with (averaged mode's N)
 */
int fare_prefix_list_update(struct prefix_list *plist)
{
	const char *name = plist ? prefix_list_name(plist) : NULL;
	struct listnode *mnode;
	struct fare_instance *fi;
	struct fare_multihoming *mh;

	fare_ecmp_plists_changed();
	frr_each (fare_instances, fare_instances_head(), fi) {
		if (!fi->enabled)
			continue;
		if (fare_ecmp_egress_uses_plist(fi, name)) {
			fare_instance_refresh_later(fi, "ECMP GroupID prefix-list changed");
			continue;
		}
		for (ALL_LIST_ELEMENTS_RO(fi->multihoming, mnode, mh))
			if (!name || strmatch(mh->plist, name)) {
				fare_instance_refresh_later(fi, "multihoming prefix-list changed");
				break;
			}
		if (fi->mode == FARE_MODE_AVERAGED && fare_out_plist_used(fi, name))
			fare_instance_announce_later(fi, "outbound prefix-list changed (WP-2 N)");
	}
	return 0;
}

int fare_bgp_delete(struct bgp *bgp)
{
	fare_instance_delete(bgp);
	fare_display_refresh();
	return 0;
}

/* zebra's capabilities: the nexthop weight width in force (WP-3) */
int fare_zebra_capabilities(const struct zclient_capabilities *cap)
{
	struct fare_instance *fi;

	/* sent at every connection: zebra may have lost the groups (done
	 * once per connection, maybe already by the routes bgpd sent again)
	 */
	fare_nhg_zebra_connected();
	if (cap->nexthop_weight_max == fare_zebra_weight_max)
		return 0;
	zlog_info("FARE: zebra installs nexthop weights up to %u as they are (was %u)",
		  cap->nexthop_weight_max, fare_zebra_weight_max);
	fare_zebra_weight_max = cap->nexthop_weight_max;
	frr_each (fare_instances, fare_instances_head(), fi)
		fare_instance_refresh_later(fi, "zebra nexthop weight width changed");
	return 0;
}

static void fare_if_state_free(void *arg)
{
	XFREE(MTYPE_FARE_IF_STATE, arg);
}

void fare_events_init(void)
{
	fare_if_states = list_new();
	fare_if_states->del = fare_if_state_free;
}

void fare_events_fini(void)
{
	list_delete(&fare_if_states);
}
