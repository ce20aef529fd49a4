// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Fully Adaptive Routing Ethernet for bgpd (draft-xu-idr-fare).
 *
 * BGP carries the bottleneck bandwidth of each path in the Path Bandwidth
 * extended community; this module turns it into weighted ECMP (WCMP) and
 * re-advertises it. The rules live in core/ (no FRR headers); this file
 * is the glue: hooks into bgpd, per-instance configuration, link
 * bandwidth of sessions.
 */
#include <zebra.h>
#include <math.h>

#include "command.h"
#include "if.h"
#include "jhash.h"
#include "libfrr.h"
#include "linklist.h"
#include "log.h"
#include "memory.h"
#include "filter.h"
#include "plist.h"
#include "prefix.h"
#include "routemap.h"
#include "lib/version.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_aspath.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_debug.h"
#include "bgpd/bgp_filter.h"
#include "bgpd/bgp_fsm.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_nexthop.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_zebra.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"

DEFINE_MGROUP(FARE, "bgpd FARE");
DEFINE_MTYPE_STATIC(FARE, FARE_INSTANCE, "FARE instance");
DEFINE_MTYPE_STATIC(FARE, FARE_PEER_CFG, "FARE neighbor configuration");
DEFINE_MTYPE_STATIC(FARE, FARE_IF_STATE, "FARE interface bandwidth");
DEFINE_MTYPE_STATIC(FARE, FARE_LINK_STATE, "FARE link hold-down");
DEFINE_MTYPE_STATIC(FARE, FARE_PEER_VIEW, "FARE neighbor state");
DEFINE_MTYPE_STATIC(FARE, FARE_RESULT_CACHE, "FARE per-prefix results");

struct fare_counters fare_counters;
uint32_t fare_zebra_weight_max;
unsigned long fare_debug;

static struct list *fare_instances; /* struct fare_instance */

/* Generation of everything the per-prefix results depend on besides a
 * prefix's own paths: configuration, link bandwidths, hold-downs,
 * sessions. Bumped by fare_state_changed(); results and peer views of an
 * older generation are recomputed when next needed.
 */
static uint64_t fare_generation = 1;

void fare_state_changed(void)
{
	fare_generation++;
}

uint64_t fare_generation_now(void)
{
	return fare_generation;
}

static int fare_peer_view_cmp(const struct fare_peer_view *a, const struct fare_peer_view *b)
{
	return numcmp((uintptr_t)a->peer, (uintptr_t)b->peer);
}

static uint32_t fare_peer_view_hash(const struct fare_peer_view *v)
{
	return jhash(&v->peer, sizeof(v->peer), 0x46415245);
}

DECLARE_HASH(fare_peer_views, struct fare_peer_view, item, fare_peer_view_cmp, fare_peer_view_hash);

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
/* Configuration                                                        */
/* ------------------------------------------------------------------ */

struct fare_instance *fare_instance_find(const struct bgp *bgp)
{
	struct listnode *node;
	struct fare_instance *fi;

	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi))
		if (fi->bgp == bgp)
			return fi;
	return NULL;
}

static void fare_peer_cfg_free(void *arg)
{
	struct fare_peer_cfg *pc = arg;

	XFREE(MTYPE_FARE_PEER_CFG, pc->name);
	XFREE(MTYPE_FARE_PEER_CFG, pc);
}

static void fare_link_state_free(void *arg)
{
	struct fare_link_state *st = arg;

	event_cancel(&st->t_hold);
	XFREE(MTYPE_FARE_LINK_STATE, st->name);
	XFREE(MTYPE_FARE_LINK_STATE, st);
}

static struct fare_link_state *fare_link_state_find(struct fare_instance *fi, const char *name)
{
	struct listnode *node;
	struct fare_link_state *st;

	for (ALL_LIST_ELEMENTS_RO(fi->link_states, node, st))
		if (strmatch(st->name, name))
			return st;
	return NULL;
}

static struct fare_link_state *fare_link_state_get(struct fare_instance *fi, const char *name)
{
	struct fare_link_state *st = fare_link_state_find(fi, name);

	if (st)
		return st;
	st = XCALLOC(MTYPE_FARE_LINK_STATE, sizeof(*st));
	st->fi = fi;
	st->name = XSTRDUP(MTYPE_FARE_LINK_STATE, name);
	listnode_add(fi->link_states, st);
	return st;
}

static void fare_multihoming_free(void *arg)
{
	struct fare_multihoming *mh = arg;

	XFREE(MTYPE_FARE_PEER_CFG, mh->plist);
	XFREE(MTYPE_FARE_PEER_CFG, mh);
}

struct fare_instance *fare_instance_get(struct bgp *bgp)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	if (fi)
		return fi;

	fi = XCALLOC(MTYPE_FARE_INSTANCE, sizeof(*fi));
	fi->bgp = bgp;
	fi->originate_bw = FARE_PATHBW_MAX_BYTES_PER_SEC;
	fi->role = FARE_ROLE_NODE;
	fi->subtype = FARE_PATHBW_SUBTYPE_DEFAULT;
	fi->max_members = FARE_MAX_MEMBERS_DEFAULT;
	fi->max_weight = FARE_MAX_WEIGHT;
	fi->mode = FARE_MODE_DRAFT;
	fi->hold_down = FARE_HOLD_DOWN_DEFAULT;
	fi->link_states = list_new();
	fi->link_states->del = fare_link_state_free;
	fi->peers = list_new();
	fi->peers->del = fare_peer_cfg_free;
	fi->multihoming = list_new();
	fi->multihoming->del = fare_multihoming_free;
	fare_peer_views_init(&fi->peer_views);
	fare_ecmp_init(fi);
	fare_ingress_init(fi);
	listnode_add(fare_instances, fi);
	if (fi->subtype != FARE_PATHBW_SUBTYPE_DEFAULT || listcount(fare_instances) > 1)
		fare_display_refresh();
	return fi;
}

static void fare_instance_free(struct fare_instance *fi)
{
	struct fare_peer_view *view;

	event_cancel(&fi->t_refresh);
	while ((view = fare_peer_views_pop(&fi->peer_views)))
		XFREE(MTYPE_FARE_PEER_VIEW, view);
	fare_peer_views_fini(&fi->peer_views);
	fare_ecmp_fini(fi);
	fare_ingress_fini(fi);
	fare_state_changed();
	listnode_delete(fare_instances, fi);
	list_delete(&fi->link_states);
	list_delete(&fi->peers);
	list_delete(&fi->multihoming);
	XFREE(MTYPE_FARE_INSTANCE, fi);
}

/* Set (factor > 0) or remove (factor 0) a multihoming prefix-list. */
void fare_multihoming_set(struct fare_instance *fi, const char *plist, uint32_t factor)
{
	struct listnode *node;
	struct fare_multihoming *mh;

	for (ALL_LIST_ELEMENTS_RO(fi->multihoming, node, mh))
		if (strmatch(mh->plist, plist))
			break;
	if (!factor) {
		if (mh) {
			listnode_delete(fi->multihoming, mh);
			fare_multihoming_free(mh);
		}
		return;
	}
	if (!mh) {
		mh = XCALLOC(MTYPE_FARE_PEER_CFG, sizeof(*mh));
		mh->plist = XSTRDUP(MTYPE_FARE_PEER_CFG, plist);
		listnode_add(fi->multihoming, mh);
	}
	mh->factor = factor;
}

struct fare_peer_cfg *fare_peer_cfg_find(struct fare_instance *fi, const char *name)
{
	struct listnode *node;
	struct fare_peer_cfg *pc;

	if (!fi || !name)
		return NULL;
	for (ALL_LIST_ELEMENTS_RO(fi->peers, node, pc))
		if (strmatch(pc->name, name))
			return pc;
	return NULL;
}

struct fare_peer_cfg *fare_peer_cfg_get(struct fare_instance *fi, const char *name)
{
	struct fare_peer_cfg *pc = fare_peer_cfg_find(fi, name);

	if (pc)
		return pc;
	pc = XCALLOC(MTYPE_FARE_PEER_CFG, sizeof(*pc));
	pc->name = XSTRDUP(MTYPE_FARE_PEER_CFG, name);
	listnode_add(fi->peers, pc);
	return pc;
}

void fare_peer_cfg_release(struct fare_instance *fi, struct fare_peer_cfg *pc)
{
	if (pc->set)
		return;
	listnode_delete(fi->peers, pc);
	fare_peer_cfg_free(pc);
}

/* Name under which a neighbor's (or peer-group's) configuration is kept. */
const char *fare_peer_cfg_name(struct peer *peer)
{
	if (CHECK_FLAG(peer->sflags, PEER_STATUS_GROUP) && peer->group)
		return peer->group->name;
	return peer->conf_if ? peer->conf_if : peer->host;
}

/* The neighbor's own setting, else its peer-group's. */
static struct fare_peer_cfg *fare_peer_cfg_resolve(struct fare_instance *fi, struct peer *peer,
						   uint32_t flag)
{
	struct fare_peer_cfg *pc;

	pc = fare_peer_cfg_find(fi, fare_peer_cfg_name(peer));
	if (pc && CHECK_FLAG(pc->set, flag))
		return pc;
	if (peer->group) {
		pc = fare_peer_cfg_find(fi, peer->group->name);
		if (pc && CHECK_FLAG(pc->set, flag))
			return pc;
	}
	return NULL;
}

/* The peer's view, resolved anew after any change of state. */
static void fare_peer_view_resolve(struct fare_instance *fi, struct peer *peer,
				   struct fare_peer_view *view)
{
	static const uint32_t flags[] = { FARE_PEER_LINK_BW, FARE_PEER_BOUNDARY,
					  FARE_PEER_SUPER_SPINE };
	struct fare_peer_cfg *pc;
	struct interface *ifp;
	size_t i;

	view->flags = 0;
	view->link_bw = 0;
	for (i = 0; i < array_size(flags); i++) {
		pc = fare_peer_cfg_resolve(fi, peer, flags[i]);
		if (!pc)
			continue;
		SET_FLAG(view->flags, flags[i]);
		if (flags[i] == FARE_PEER_LINK_BW)
			view->link_bw = pc->link_bw;
	}
	view->link = fare_link_state_find(fi, fare_peer_cfg_name(peer));
	ifp = fare_peer_interface(peer);
	view->ifindex = ifp ? ifp->ifindex : IFINDEX_INTERNAL;
	view->group = peer->group;
	view->generation = fare_generation;
}

struct fare_peer_view *fare_peer_view(struct fare_instance *fi, struct peer *peer)
{
	static struct fare_peer_view transient;
	struct fare_peer_view key = { .peer = peer }, *view;

	/* a connection accepted for a neighbor is not kept: no entry */
	if (fare_peer_is_accept(peer)) {
		memset(&transient, 0, sizeof(transient));
		transient.peer = peer;
		fare_peer_view_resolve(fi, peer, &transient);
		return &transient;
	}
	view = fare_peer_views_find(&fi->peer_views, &key);
	if (!view) {
		view = XCALLOC(MTYPE_FARE_PEER_VIEW, sizeof(*view));
		view->peer = peer;
		fare_peer_views_add(&fi->peer_views, view);
	} else if (view->generation == fare_generation && view->group == peer->group) {
		return view;
	}
	fare_peer_view_resolve(fi, peer, view);
	return view;
}

static void fare_peer_view_drop(struct fare_instance *fi, const struct peer *peer)
{
	struct fare_peer_view key = { .peer = peer }, *view;

	view = fare_peer_views_find(&fi->peer_views, &key);
	if (view) {
		fare_peer_views_del(&fi->peer_views, view);
		XFREE(MTYPE_FARE_PEER_VIEW, view);
	}
}

bool fare_peer_flag(struct fare_instance *fi, struct peer *peer, uint32_t flag)
{
	return CHECK_FLAG(fare_peer_view(fi, peer)->flags, flag);
}

/* FARE-3, WP-2: a session runs over a link of this router: an interface
 * (unnumbered) session, or one whose neighbor address is on a connected
 * subnet. A multihop or loopback session (a route collector, iBGP to a
 * reflector) has no outgoing interface of its own.
 */
static bool fare_peer_on_link(const struct peer *peer)
{
	return peer->conf_if || peer->shared_network;
}

/* FARE-3: bandwidth of the link the session runs over, in bytes/s: the
 * neighbor's override, else the interface bandwidth the operator gave
 * zebra, else the speed zebra reports (a LAG's drops when a member
 * fails). 0 when the session has no interface (multihop).
 */
static double fare_peer_link_bw_raw(struct fare_peer_view *view, struct peer *peer,
				    const char **source)
{
	struct interface *ifp;

	if (view && CHECK_FLAG(view->flags, FARE_PEER_LINK_BW)) {
		*source = "configured";
		return view->link_bw;
	}
	/* by index, resolved once per generation: never a deleted one */
	if (view)
		ifp = view->ifindex != IFINDEX_INTERNAL
			      ? if_lookup_by_index(view->ifindex, peer->bgp->vrf_id)
			      : NULL;
	else
		ifp = fare_peer_interface(peer);
	if (ifp && ifp->bandwidth) {
		*source = "interface bandwidth";
		return (double)ifp->bandwidth * 1e6 / 8;
	}
	if (ifp && ifp->speed && ifp->speed != UINT32_MAX) {
		*source = "interface speed";
		return (double)ifp->speed * 1e6 / 8;
	}
	/* FARE-3 unknown: the received value is taken uncapped (FARE-4) */
	*source = fare_peer_on_link(peer) ? FARE_LINK_SOURCE_NO_SPEED
					  : FARE_LINK_SOURCE_NO_INTERFACE;
	return 0;
}

/* The link bandwidth paths from this neighbor are weighted with: the raw
 * one, or lower while an increase waits out its hold-down (WP-7).
 */
double fare_peer_link_bw(struct fare_instance *fi, struct peer *peer, const char **source,
			 bool *held)
{
	struct fare_peer_view *view = fi ? fare_peer_view(fi, peer) : NULL;
	double bw = fare_peer_link_bw_raw(view, peer, source);
	struct fare_link_state *st = view ? view->link : NULL;

	if (held)
		*held = false;
	if (st && st->t_hold && !st->recovering && st->held_bw < bw) {
		bw = st->held_bw;
		if (held)
			*held = true;
	}
	return bw;
}

static bool fare_peer_recovering(struct fare_instance *fi, struct peer *peer)
{
	struct fare_link_state *st = fare_peer_view(fi, peer)->link;

	return st && st->t_hold && st->recovering;
}

/* FRR's displays name a value as Path Bandwidth when its sub-type is the
 * one an instance uses (the default when FARE is not configured): the
 * displays are shared by all instances and kept with each interned
 * community, so a change refreshes them (fare_display_refresh()).
 */
bool fare_display_subtype(uint8_t subtype)
{
	struct listnode *node;
	struct fare_instance *fi;
	bool any = false;

	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi)) {
		if (fi->subtype == subtype)
			return true;
		any = true;
	}
	/* without FARE configured, the default sub-type */
	return !any && subtype == FARE_PATHBW_SUBTYPE_DEFAULT;
}

/* The same for the ECMP GroupID (EE-3) */
static bool fare_display_groupid_subtype(uint8_t subtype)
{
	struct listnode *node;
	struct fare_instance *fi;
	bool any = false;

	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi)) {
		if (fi->ecmp.subtype == subtype)
			return true;
		any = true;
	}
	return !any && subtype == FARE_GROUPID_SUBTYPE_DEFAULT;
}

void fare_display_refresh(void)
{
	ecommunity_refresh_display();
}

/* ------------------------------------------------------------------ */
/* Reading Path Bandwidth communities of a path                         */
/* ------------------------------------------------------------------ */

static void fare_log_bad(struct peer *peer, const struct bgp_dest *dest, const char *what,
			 const char *detail)
{
	static time_t window;
	static unsigned int in_window;
	time_t now = monotime(NULL);

	/* Counted always; logged at most 10 times a minute. */
	if (now - window >= 60) {
		window = now;
		in_window = 0;
	}
	if (in_window++ < 10)
		zlog_warn("FARE: %pBP: %pBD: %s%s%s%s", peer, dest, what, detail ? " (" : "",
			  detail ? detail : "", detail ? ")" : "");
}

/* Global Administrators of the usable values of one type on a path */
struct fare_ga_set {
	size_t n;
	uint16_t as[4];
};

/* Read the Path Bandwidth of one type (transitive or not) from attr. */
static void fare_attr_read(const struct attr *attr, uint8_t subtype, bool transitive,
			   enum fare_pb_state *state, double *bw, struct fare_ga_set *gas,
			   struct peer *peer, const struct bgp_dest *dest, bool count)
{
	struct ecommunity *ecom = bgp_attr_get_ecommunity(attr);
	struct fare_pathbw pb;
	bool found = false, invalid = false, conflict = false;
	float value = 0;
	uint32_t i;

	*state = FARE_PB_ABSENT;
	*bw = 0;
	if (!ecom || ecom->unit_size != FARE_ECOMM_SIZE)
		return;

	for (i = 0; i < ecom->size; i++) {
		const uint8_t *val = ecom->val + i * ecom->unit_size;

		if (!fare_pathbw_decode(val, subtype, &pb) || pb.transitive != transitive)
			continue;
		if (count)
			fare_counters.value_class[pb.class]++;
		if (!fare_bw_class_usable(pb.class)) {
			invalid = true;
			if (count)
				fare_log_bad(peer, dest,
					     transitive ? "transitive Path Bandwidth ignored"
							: "non-transitive Path Bandwidth ignored",
					     fare_bw_class_name(pb.class));
			continue;
		}
		if (gas->n < array_size(gas->as))
			gas->as[gas->n++] = pb.as;
		if (!found) {
			found = true;
			value = pb.bytes_per_sec;
		} else if (pb.bytes_per_sec == value) {
			if (count)
				fare_counters.duplicate++;
		} else {
			conflict = true;
		}
	}

	if (conflict) {
		*state = FARE_PB_CONFLICT;
		if (count) {
			fare_counters.conflicting++;
			fare_log_bad(peer, dest, "conflicting Path Bandwidth values ignored", NULL);
		}
	} else if (found) {
		/* A usable value next to an unusable one: the usable one. */
		*state = FARE_PB_PRESENT;
		*bw = fare_bw_wire_value(value);
	} else if (invalid) {
		*state = FARE_PB_INVALID;
	}
}

static uint32_t fare_multihoming_factor(struct fare_instance *fi, const struct prefix *p)
{
	struct listnode *node;
	struct fare_multihoming *mh;
	afi_t afi = family2afi(p->family);

	for (ALL_LIST_ELEMENTS_RO(fi->multihoming, node, mh)) {
		struct prefix_list *plist = prefix_list_lookup(afi, mh->plist);

		if (plist && prefix_list_apply(plist, p) == PREFIX_PERMIT)
			return mh->factor;
	}
	return 1;
}

struct bgp_path_info *fare_dest_selected(struct bgp_dest *dest)
{
	struct bgp_path_info *pi;

	for (pi = bgp_dest_get_bgp_path_info(dest); pi; pi = pi->next)
		if (CHECK_FLAG(pi->flags, BGP_PATH_SELECTED))
			return pi;
	return NULL;
}

/* Whether a Path Bandwidth's Global Administrator stands for `as`: its
 * value modulo 2^16 (FARE-1), so 4-octet writers stay apart.
 */
static bool fare_ga_is(uint16_t ga, as_t as)
{
	return ga == fare_pathbw_ga(as);
}

/* FARE-1/5: the AS a value written for this neighbor carries: the AS the
 * neighbor knows this router by, which is what its freshness check
 * (FARE-7) compares: `neighbor X local-as`, the confederation identifier
 * across a confederation border, else the instance's AS.
 */
static as_t fare_writer_as(const struct peer *peer)
{
	if (peer->change_local_as)
		return peer->change_local_as;
	return peer->local_as ? peer->local_as : peer->bgp->as;
}

/* The n-th distinct AS (0: the first) of the AS_SEQUENCE segments of an
 * AS_PATH, prepends counted once; 0 when there is none.
 */
static as_t fare_aspath_nth_as(const struct aspath *aspath, unsigned int nth)
{
	const struct assegment *seg;
	as_t last = 0;
	unsigned int i;

	for (seg = aspath ? aspath->segments : NULL; seg; seg = seg->next) {
		if (seg->type != AS_SEQUENCE)
			continue;
		for (i = 0; i < seg->length; i++) {
			if (seg->as[i] == last)
				continue;
			last = seg->as[i];
			if (nth-- == 0)
				return last;
		}
	}
	return 0;
}

/* The next hop of a path is the neighbor it came from (not a third-party
 * next hop passed on unchanged); when it cannot be told, it is.
 */
static bool fare_nexthop_is_neighbor(const struct bgp_path_info *pi)
{
	const struct attr *attr = pi->attr;
	const union sockunion *su = &pi->peer->connection->su;

	if (attr->mp_nexthop_len == BGP_ATTR_NHLEN_IPV6_GLOBAL ||
	    attr->mp_nexthop_len == BGP_ATTR_NHLEN_IPV6_GLOBAL_AND_LL) {
		if (IN6_IS_ADDR_LINKLOCAL(&attr->mp_nexthop_global) || su->sa.sa_family != AF_INET6)
			return true;
		return IPV6_ADDR_SAME(&attr->mp_nexthop_global, &su->sin6.sin6_addr);
	}
	if (attr->mp_nexthop_len == BGP_ATTR_NHLEN_IPV4 ||
	    CHECK_FLAG(attr->flag, ATTR_FLAG_BIT(BGP_ATTR_NEXT_HOP))) {
		if (su->sa.sa_family != AF_INET)
			return true;
		return attr->nexthop.s_addr == su->sin.sin_addr.s_addr;
	}
	return true;
}

/* FARE-7 freshness: a transitive value describes the links behind the
 * router that last wrote it. It is fresh when that router is the
 * neighbor the path came from (its AS modulo 2^16, FARE-1); for a
 * super-spine neighbor, which passes it on by design (FARE-8/9), the
 * spine behind it (the second AS of the path). An iBGP neighbor writes
 * our AS; a path with a third-party next hop (passed on by a router that
 * did not put itself in the forwarding path, item 4 of the rules in the
 * user guide) keeps the value of the router it points to, somewhere on
 * its AS_PATH. Anything else crossed a router without FARE.
 */
static bool fare_pb_fresh_one(uint16_t ga, const struct bgp_path_info *pi, bool from_super_spine)
{
	struct peer *peer = pi->peer;
	const struct aspath *aspath = pi->attr->aspath;
	as_t first = fare_aspath_nth_as(aspath, 0);
	unsigned int i;
	as_t as;

	if (from_super_spine) {
		as = fare_aspath_nth_as(aspath, 1);
		return as && fare_ga_is(ga, as);
	}
	if (peer->sort == BGP_PEER_EBGP || peer->sort == BGP_PEER_CONFED) {
		if (fare_ga_is(ga, peer->as) || (first && fare_ga_is(ga, first)))
			return true;
	} else if (fare_ga_is(ga, peer->bgp->as) || (first && fare_ga_is(ga, first))) {
		return true;
	}
	if (fare_nexthop_is_neighbor(pi))
		return false;
	for (i = 1; (as = fare_aspath_nth_as(aspath, i)) != 0; i++)
		if (fare_ga_is(ga, as))
			return true;
	return false;
}

/* Duplicates that agree on the value may differ in who wrote them: fresh
 * when one of them is.
 */
static bool fare_pb_fresh(const struct fare_ga_set *gas, const struct bgp_path_info *pi,
			  bool from_super_spine)
{
	size_t i;

	for (i = 0; i < gas->n; i++)
		if (fare_pb_fresh_one(gas->as[i], pi, from_super_spine))
			return true;
	return false;
}

/* Same next hop address (zebra installs it once). */
static bool fare_same_nexthop(const struct attr *a, const struct attr *b)
{
	if (a->mp_nexthop_len != b->mp_nexthop_len)
		return false;
	if (a->mp_nexthop_len >= BGP_ATTR_NHLEN_IPV6_GLOBAL)
		return IPV6_ADDR_SAME(&a->mp_nexthop_global, &b->mp_nexthop_global) &&
		       (a->mp_nexthop_len != BGP_ATTR_NHLEN_IPV6_GLOBAL_AND_LL ||
			IPV6_ADDR_SAME(&a->mp_nexthop_local, &b->mp_nexthop_local));
	return a->nexthop.s_addr == b->nexthop.s_addr;
}

/* The hop a resolved next hop ends on, when zebra reaches it through
 * another route (recursive): that route's only gateway; NULL for a
 * connected next hop.
 */
static const struct nexthop *fare_resolved_gateway(const struct bgp_path_info *pi)
{
	const struct bgp_nexthop_cache *bnc = pi->nexthop;

	if (!bnc || bnc->nexthop_num != 1 || !bnc->nexthop ||
	    CHECK_FLAG(bnc->flags, BGP_NEXTHOP_CONNECTED))
		return NULL;
	switch (bnc->nexthop->type) {
	case NEXTHOP_TYPE_IPV4:
	case NEXTHOP_TYPE_IPV4_IFINDEX:
	case NEXTHOP_TYPE_IPV6:
	case NEXTHOP_TYPE_IPV6_IFINDEX:
		return bnc->nexthop;
	case NEXTHOP_TYPE_IFINDEX:
	case NEXTHOP_TYPE_BLACKHOLE:
		break;
	}
	return NULL;
}

/* Zebra copies a route's weight onto every hop its next hop resolves
 * to, and installs a hop once: weights stay exact only when each path's
 * next hop ends on one hop of its own.
 */
static bool fare_nexthop_inexact(struct fare_prefix *fp, size_t i)
{
	const struct bgp_path_info *pi = fp->paths[i];
	const struct nexthop *gw = fare_resolved_gateway(pi), *gw2;
	size_t j;

	if (pi->nexthop && pi->nexthop->nexthop_num > 1)
		return true;
	if (!gw)
		return false;
	for (j = 0; j < i; j++) {
		if (fp->in[j].nexthop_group && fp->in[j].nexthop_group == fp->in[i].nexthop_group)
			continue; /* the same BGP next hop: counted once anyway */
		gw2 = fare_resolved_gateway(fp->paths[j]);
		if (gw2 && gw2->ifindex == gw->ifindex && gw2->type == gw->type &&
		    !memcmp(&gw2->gate, &gw->gate, sizeof(gw->gate)))
			return true;
	}
	return false;
}

/* Paths from one neighbor router over two or more sessions (parallel
 * links) form a neighbor group: the index + 1 of its first path.
 */
static void fare_group_neighbors(struct fare_prefix *fp)
{
	size_t i, j, first;
	bool parallel;

	for (i = 0; i < fp->n; i++) {
		struct peer *peer = fp->paths[i]->peer;

		if (fp->in[i].neighbor_group || !peer->remote_id.s_addr)
			continue;
		first = i;
		parallel = false;
		for (j = i + 1; j < fp->n; j++)
			if (fp->paths[j]->peer->remote_id.s_addr == peer->remote_id.s_addr &&
			    fp->paths[j]->peer != peer)
				parallel = true;
		if (!parallel)
			continue;
		for (j = first; j < fp->n; j++)
			if (fp->paths[j]->peer->remote_id.s_addr == peer->remote_id.s_addr)
				fp->in[j].neighbor_group = first + 1;
	}
}

/* Gather best + multipaths in the order bgpd hands them to zebra, and let
 * the core compute weights and what to advertise.
 */
static void fare_prefix_compute_internal(struct fare_instance *fi, struct bgp_dest *dest,
					 struct bgp_path_info *best, struct fare_prefix *fp,
					 bool count)
{
	struct fare_prefix_params params = {
		.mode = fi->mode,
		.role = fi->role,
		.lower_transitive = fi->lower_transitive,
		.limits = { .max_weight = fare_max_weight(fi), .max_members = fi->max_members },
	};
	struct bgp_path_info *pi;
	size_t j;

	fp->n = 0;
	fp->multihoming = fare_multihoming_factor(fi, bgp_dest_get_prefix(dest));
	params.multihoming = fp->multihoming;

	for (pi = best; pi && fp->n < MULTIPATH_NUM; pi = bgp_path_info_mpath_next(pi)) {
		struct fare_path_in *in = &fp->in[fp->n];
		struct peer *peer = pi->peer;
		struct fare_ga_set gas = {}, gas_nt = {};

		memset(in, 0, sizeof(*in));
		fp->paths[fp->n] = pi;
		fp->stale_as[fp->n] = 0;
		in->link_bw = fare_peer_link_bw(fi, peer, &fp->link_source[fp->n],
						&fp->link_held[fp->n]);
		in->held_down = fare_peer_recovering(fi, peer);
		in->from_super_spine = fare_peer_flag(fi, peer, FARE_PEER_SUPER_SPINE);
		fare_attr_read(pi->attr, fi->subtype, true, &in->t_state, &in->t_bw, &gas, peer,
			       dest, count);
		fare_attr_read(pi->attr, fi->subtype, false, &in->nt_state, &in->nt_bw, &gas_nt,
			       peer, dest, count);
		/* FARE-7: passed on by a router without FARE */
		if (in->t_state == FARE_PB_PRESENT &&
		    !fare_pb_fresh(&gas, pi, in->from_super_spine)) {
			in->t_state = FARE_PB_STALE;
			fp->stale_as[fp->n] = gas.as[0];
			if (count) {
				fare_counters.stale++;
				fare_log_bad(peer, dest, "stale Path Bandwidth ignored",
					     "not written by this neighbor");
			}
		}
		/* FARE-11: ignored inbound from a boundary peer */
		if (fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY)) {
			in->ignored = true;
			if (count)
				fare_counters.ignored_boundary++;
		}
		/* Paths sharing a session (add-path) share its link; paths
		 * to one next hop are one forwarding entry.
		 */
		for (j = 0; j < fp->n; j++) {
			if (fp->paths[j]->peer == peer && !in->link_group) {
				if (!fp->in[j].link_group)
					fp->in[j].link_group = j + 1;
				in->link_group = fp->in[j].link_group;
			}
			if (!in->nexthop_group && fare_same_nexthop(fp->paths[j]->attr, pi->attr) &&
			    (fp->paths[j]->peer == peer ||
			     !IN6_IS_ADDR_LINKLOCAL(&pi->attr->mp_nexthop_global))) {
				if (!fp->in[j].nexthop_group)
					fp->in[j].nexthop_group = j + 1;
				in->nexthop_group = fp->in[j].nexthop_group;
			}
		}
		fp->n++;
	}
	/* Draft mode: parallel links (sessions) to one neighbor router,
	 * told by its BGP identifier, count together (FARE-4 per neighbor).
	 */
	if (fi->mode == FARE_MODE_DRAFT && !fi->per_session)
		fare_group_neighbors(fp);
	/* Recursive next hops (FARE-4 needs the link a path leaves on) */
	for (j = 0; j < fp->n; j++)
		fp->in[j].inexact_nexthop = fare_nexthop_inexact(fp, j);

	/* EE-4: the remote group's sub-group only */
	params.subgroup = fare_ecmp_restrict(fi, best, fp);
	fare_prefix_compute(fp->in, fp->n, &params, fp->path_bw, fp->weights, &fp->out);
	fare_ecmp_apply(fp);
}

void fare_prefix_compute_dest(struct fare_instance *fi, struct bgp_dest *dest,
			      struct bgp_path_info *best, struct fare_prefix *fp)
{
	fare_prefix_compute_internal(fi, dest, best, fp, false);
}

/* The per-prefix rules run once per change of a prefix's paths (or of
 * fare_generation); zebra and every update-group the prefix goes to use
 * that one result. Results are kept direct-mapped by destination: the
 * memory is bounded (a result is wanted right after bgpd selected the
 * prefix's paths, when zebra and the update-groups hear of it), and a
 * result never outlives the paths it came from: bgpd's next selection
 * of the destination drops it (bgp_route_selected, patch 0010).
 */
#define FARE_RESULT_SLOTS 4096 /* a power of 2 */
#define FARE_RESULT_PATHS 16   /* more paths: computed each time */

struct fare_result {
	const struct bgp_dest *dest; /* NULL: free */
	const struct bgp_path_info *best;
	uint64_t generation;
	double t_value;
	double nt_value;
	double kept_bw; /* FARE_ADV_KEEP: the best path's value */
	int32_t n_out;	/* WP-2 eligible outgoing, -1: not counted yet */
	uint32_t dropped;
	uint16_t n;
	bool wcmp;     /* weighted by Path Bandwidth */
	bool weighted; /* weights to install (FARE's, or EE-4's) */
	bool nt_attach;
	bool kept_present;
	uint8_t t_action; /* enum fare_adv_action */
	uint8_t reason;	  /* enum fare_reason */
	uint16_t weights[FARE_RESULT_PATHS];
};

static struct fare_result *fare_results;
static struct fare_result fare_result_uncached; /* weights in fare_scratch */
static struct fare_prefix fare_scratch;

static struct fare_result *fare_result_slot(const struct bgp_dest *dest)
{
	uintptr_t key = (uintptr_t)dest;

	return &fare_results[jhash(&key, sizeof(key), 0x46415245) & (FARE_RESULT_SLOTS - 1)];
}

/* bgpd selected the destination's paths anew: its result is out of date */
static int fare_route_selected(struct bgp *bgp, afi_t afi, safi_t safi, struct bgp_dest *dest)
{
	struct fare_result *res;

	struct fare_instance *fi = fare_instance_find(bgp);

	/* EE-1: the ingress tables follow (withdrawals included) */
	if (fi)
		fare_ingress_note(fi, dest);
	if (!fare_results)
		return 0;
	res = fare_result_slot(dest);
	if (res->dest == dest)
		res->dest = NULL;
	return 0;
}

static uint32_t fare_result_weight(const struct fare_result *res, size_t i)
{
	return res->n <= FARE_RESULT_PATHS ? res->weights[i] : fare_scratch.weights[i];
}

/* The result for best and its multipaths, computed now or earlier; valid
 * until the next call. Received values are counted and logged when they
 * are read, once per change.
 */
static struct fare_result *fare_result_get(struct fare_instance *fi, struct bgp_dest *dest,
					   struct bgp_path_info *best)
{
	struct fare_prefix *fp = &fare_scratch;
	struct fare_result *res;
	size_t i;

	if (!fare_results)
		fare_results = XCALLOC(MTYPE_FARE_RESULT_CACHE,
				       FARE_RESULT_SLOTS * sizeof(*fare_results));
	res = fare_result_slot(dest);
	if (res->dest == dest && res->best == best && res->generation == fare_generation)
		return res;

	fare_prefix_compute_internal(fi, dest, best, fp, true);
	if (fp->n > FARE_RESULT_PATHS)
		res = &fare_result_uncached;
	res->dest = dest;
	res->best = best;
	res->generation = fare_generation;
	res->n = fp->n;
	res->wcmp = fp->out.wcmp;
	res->weighted = fp->out.wcmp || fp->ee.applied;
	res->reason = fp->out.reason;
	res->dropped = fp->out.dropped;
	res->t_action = fp->out.t_action;
	res->t_value = fp->out.t_value;
	res->nt_attach = fp->out.nt_attach;
	res->nt_value = fp->out.nt_value;
	res->kept_present = fp->n && fp->in[0].t_state == FARE_PB_PRESENT;
	res->kept_bw = fp->n ? fp->in[0].t_bw : 0;
	res->n_out = -1;
	if (res != &fare_result_uncached)
		for (i = 0; i < fp->n; i++)
			res->weights[i] = fp->weights[i];
	return res;
}

/* A value for the wire: sums of "max" values exceed the largest float, and
 * converting those to float is undefined; they stay "max" (FARE-2).
 */
static float fare_wire_float(double bytes_per_sec)
{
	if (bytes_per_sec >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		return FARE_PATHBW_MAX_BYTES_PER_SEC;
	return (float)bytes_per_sec;
}

/* Originated here (network, redistribute, aggregate), not received */
bool fare_route_is_local(struct bgp *bgp, struct bgp_path_info *pi)
{
	return pi->peer == bgp->peer_self || pi->type != ZEBRA_ROUTE_BGP ||
	       pi->sub_type != BGP_ROUTE_NORMAL;
}

static bool fare_afi_safi(afi_t afi, safi_t safi)
{
	return (afi == AFI_IP || afi == AFI_IP6) && safi == SAFI_UNICAST;
}

/* WP-2: whether bgpd would send the route to the peer as far as its
 * outbound policy goes: distribute-list, prefix-list, filter-list and
 * route-map out (the route-map applied to a scratch copy of the attribute).
 */
static bool fare_peer_policy_permits(struct peer *peer, struct bgp_dest *dest,
				     struct bgp_path_info *best, afi_t afi)
{
	struct bgp_filter *filter = &peer->filter[afi][SAFI_UNICAST];
	const struct prefix *p = bgp_dest_get_prefix(dest);
	struct bgp_path_info rmap_path;
	struct bgp_path_info_extra rmap_path_extra;
	struct attr scratch;
	route_map_result_t ret;

	if (DISTRIBUTE_OUT_NAME(filter) &&
	    access_list_apply(DISTRIBUTE_OUT(filter), p) == FILTER_DENY)
		return false;
	if (PREFIX_LIST_OUT_NAME(filter) &&
	    prefix_list_apply(PREFIX_LIST_OUT(filter), p) == PREFIX_DENY)
		return false;
	if (FILTER_LIST_OUT_NAME(filter) &&
	    as_list_apply(FILTER_LIST_OUT(filter), best->attr->aspath) == AS_FILTER_DENY)
		return false;
	if (!ROUTE_MAP_OUT_NAME(filter))
		return true;
	if (!ROUTE_MAP_OUT(filter))
		return false; /* named but not defined: bgpd denies */
	scratch = *best->attr;
	prep_for_rmap_apply(&rmap_path, &rmap_path_extra, dest, best, peer, best->peer, &scratch);
	SET_FLAG(peer->rmap_type, PEER_RMAP_TYPE_OUT);
	ret = route_map_apply(ROUTE_MAP_OUT(filter), p, &rmap_path);
	peer->rmap_type = 0;
	bgp_attr_flush(&scratch);
	return ret != RMAP_DENYMATCH;
}

/* WP-2: iBGP split horizon: a route learned over iBGP goes to another
 * iBGP peer only when this router reflects it (either is a client).
 */
static bool fare_ibgp_split_horizon(const struct peer *from, const struct peer *peer, afi_t afi)
{
	return from->sort == BGP_PEER_IBGP && peer->sort == BGP_PEER_IBGP &&
	       !CHECK_FLAG(from->af_flags[afi][SAFI_UNICAST], PEER_FLAG_REFLECTOR_CLIENT) &&
	       !CHECK_FLAG(peer->af_flags[afi][SAFI_UNICAST], PEER_FLAG_REFLECTOR_CLIENT);
}

/* WP-2: N, the interfaces a route is advertised on, excluding those it was
 * received on: established sessions of the address family over a link of
 * this router, not the sources of its equal-cost paths, not boundary
 * peers, not peers that would drop it (their AS is in the path), and not
 * peers bgpd does not send it to (outbound policy, iBGP split horizon).
 */
static unsigned int fare_eligible_outgoing_best(struct fare_instance *fi, struct bgp_dest *dest,
						struct bgp_path_info *best, afi_t afi)
{
	struct aspath *aspath = best ? best->attr->aspath : NULL;
	const struct bgp_path_info *pi;
	struct listnode *node;
	struct peer *peer;
	unsigned int n_out = 0;

	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer)) {
		if (!peer_established(peer->connection) || !peer->afc_nego[afi][SAFI_UNICAST])
			continue;
		if (!fare_peer_on_link(peer))
			continue;
		for (pi = best; pi; pi = bgp_path_info_mpath_next((struct bgp_path_info *)pi))
			if (pi->peer == peer)
				break;
		if (pi)
			continue;
		if (fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY))
			continue;
		if (aspath && aspath_loop_check(aspath, peer->as) > 0)
			continue;
		if (best && fare_ibgp_split_horizon(best->peer, peer, afi))
			continue;
		if (best && !fare_peer_policy_permits(peer, dest, best, afi))
			continue;
		n_out++;
	}
	return n_out;
}

unsigned int fare_eligible_outgoing(struct fare_instance *fi, struct bgp_dest *dest,
				    const struct fare_prefix *fp, afi_t afi)
{
	return fare_eligible_outgoing_best(fi, dest, fp->n ? fp->paths[0] : NULL, afi);
}

/* Averaged mode sends each outgoing session its own value (WP-1/2): the
 * peers' update-groups follow their link bandwidths.
 */
void fare_instance_regroup(struct fare_instance *fi)
{
	struct listnode *node;
	struct peer *peer;

	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer))
		update_group_adjust_peer_afs(peer);
}

static void fare_name_refresh_later(struct fare_instance *fi, const char *name, const char *why);

static void fare_hold_down_expire(struct event *event)
{
	struct fare_link_state *st = EVENT_ARG(event);
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
	struct fare_link_state *st;

	st = fare_link_state_get(fi, fare_peer_cfg_name(peer));
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
	fare_counters.held_down++;
	if (FARE_DEBUG)
		zlog_debug("FARE: %pBP: %s, held for %us", peer,
			   recovering ? "session re-established" : "link bandwidth increased",
			   fi->hold_down);
}

/* ------------------------------------------------------------------ */
/* Hooks                                                                */
/* ------------------------------------------------------------------ */

/* FRR's displays: name our communities instead of "UNK:0, 48". */
static int fare_ecommunity_str(const uint8_t *val, size_t unit_size, char *buf, size_t bufsz)
{
	struct fare_pathbw pb;
	struct fare_groupid gid;

	/* bgpd's contract: an earlier module that named it wins */
	if (unit_size != FARE_ECOMM_SIZE || (bufsz && buf[0]))
		return 0;
	/* EE-3 */
	if (val[0] == FARE_GROUPID_TYPE && fare_display_groupid_subtype(val[1]) &&
	    fare_groupid_decode(val, unit_size, val[1], &gid) != FARE_GROUPID_NOT_OURS) {
		fare_groupid_format(buf, bufsz, &gid);
		return 1;
	}
	if (!fare_display_subtype(val[1]) || !fare_pathbw_decode(val, val[1], &pb))
		return 0;
	fare_pathbw_format(buf, bufsz, &pb);
	return 1;
}

/* The weights zebra has for the n paths from best: FARE's (EE-4 applied),
 * or all 1 for plain ECMP (EE-1 apportions ingress ports by them).
 */
void fare_installed_weights(struct fare_instance *fi, struct bgp_dest *dest,
			    struct bgp_path_info *best, uint32_t *weights, size_t n)
{
	struct fare_result *res = fare_result_get(fi, dest, best);
	size_t i;

	for (i = 0; i < n; i++)
		weights[i] = res->weighted && i < res->n ? fare_result_weight(res, i) : 1;
}

/* Whether FARE looks at a route for zebra: FARE on, IPv4 or IPv6 unicast,
 * not originated here; else bgpd weights it alone.
 */
static bool fare_route_weighable(struct fare_instance *fi, struct bgp_dest *dest,
				 struct bgp_path_info *best)
{
	struct bgp_table *table = bgp_dest_table(dest);

	return fi && fi->enabled && best && fare_afi_safi(table->afi, table->safi) &&
	       !fare_route_is_local(fi->bgp, best);
}

/* Whether FARE's weights of a route it looks at are installed: it weighs
 * it (Path Bandwidth, FARE-7, or an Enhanced ECMP sub-group, EE-4) and
 * bgpd takes that many paths.
 */
static bool fare_weights_installed(bool weighted, size_t n, size_t max)
{
	return weighted && n <= max;
}

/* Who sets the weights bgpd sends zebra for a route whose FARE view is fp
 * (doc/user/fare.rst, "FARE next to FRR's own weighted ECMP"): FARE where
 * it weighs the route, else FRR's own weighted ECMP, by link bandwidth,
 * next-next-hop node count or the underlay's weight, else none (equal).
 */
enum fare_weight_source fare_weight_source(struct fare_instance *fi, struct bgp_dest *dest,
					   struct bgp_path_info *best, const struct fare_prefix *fp)
{
	if (fare_route_weighable(fi, dest, best) &&
	    fare_weights_installed(fp->out.wcmp || fp->ee.applied, fp->n, MULTIPATH_NUM))
		return fp->out.wcmp ? FARE_WSRC_FARE : FARE_WSRC_FARE_SUBGROUP;
	switch (fare_frr_wecmp(fi->bgp, dest, best)) {
	case FARE_FRR_WECMP_LINK_BW:
		return FARE_WSRC_FRR_LINK_BW;
	case FARE_FRR_WECMP_NNHN:
		return FARE_WSRC_FRR_NNHN;
	case FARE_FRR_WECMP_UNDERLAY:
		return FARE_WSRC_FRR_UNDERLAY;
	case FARE_FRR_WECMP_NONE:
		break;
	}
	return FARE_WSRC_EQUAL;
}

const char *fare_weight_source_str(enum fare_weight_source src)
{
	switch (src) {
	case FARE_WSRC_FARE:
		return "fare";
	case FARE_WSRC_FARE_SUBGROUP:
		return "fare-ecmp-subgroup";
	case FARE_WSRC_FRR_LINK_BW:
		return "frr-link-bandwidth";
	case FARE_WSRC_FRR_NNHN:
		return "frr-nnhn";
	case FARE_WSRC_FRR_UNDERLAY:
		return "frr-underlay-weight";
	case FARE_WSRC_EQUAL:
		break;
	}
	return "equal";
}

/* FARE-7/WP-3: weights of a route's nexthops for zebra. Where FARE does
 * not weigh the route (FARE off, no Path Bandwidth on every path, ...),
 * it sets none and bgpd's own weighted ECMP applies (fare_weight_source()).
 */
static int fare_zebra_nexthop_weights(struct bgp *bgp, struct bgp_dest *dest,
				      struct bgp_path_info *best, uint64_t *weights,
				      unsigned int max)
{
	struct fare_instance *fi = fare_instance_find(bgp);
	struct fare_result *res;
	enum fare_frr_wecmp frr;
	size_t i;
	int ret = 0;

	if (!fare_route_weighable(fi, dest, best))
		return 0;
	/* bgpd's contract: an earlier module that weighted the route wins */
	for (i = 0; i < max; i++)
		if (weights[i])
			return 0;

	res = fare_result_get(fi, dest, best);
	/* FARE's weights, over the remote group's sub-group only where
	 * Enhanced ECMP applies (EE-4)
	 */
	if (fare_weights_installed(res->weighted, res->n, max)) {
		for (i = 0; i < res->n; i++)
			weights[i] = fare_result_weight(res, i);
		ret = 1;
	}
	fare_ingress_note(fi, dest); /* EE-1 */
	/* no weight set: FRR's own weighted ECMP, if any, weighs the route */
	frr = ret ? FARE_FRR_WECMP_NONE : fare_frr_wecmp(bgp, dest, best);
	if (res->wcmp && ret) {
		fare_counters.wcmp_routes++;
		fare_counters.dropped_paths += res->dropped;
	} else if (frr != FARE_FRR_WECMP_NONE) {
		fare_counters.frr_weighted_routes++;
	} else {
		fare_counters.ecmp_routes++;
	}

	if (FARE_DEBUG) {
		char wbuf[256] = "";
		size_t len = 0;

		for (i = 0; i < res->n && len < sizeof(wbuf) - 12; i++)
			len += snprintf(wbuf + len, sizeof(wbuf) - len, "%s%" PRIu64, i ? ":" : "",
					weights[i]);
		if (!ret)
			strlcpy(wbuf, frr != FARE_FRR_WECMP_NONE ? "FRR's own" : "ECMP",
				sizeof(wbuf));
		zlog_debug("FARE: %pBD: %u path(s), %s, weights %s", dest, res->n,
			   fare_reason_str(res->reason), wbuf);
	}
	return ret;
}

/* What to change in the FARE communities of an outgoing attribute */
struct fare_attr_edit {
	uint8_t subtype; /* Path Bandwidth */
	bool strip_t, strip_nt;
	const uint8_t *add_t, *add_nt;
	uint8_t gid_subtype; /* ECMP GroupID (EE-3) */
	bool strip_gid;
	const uint8_t *add_gid;
};

static void fare_attr_edit(struct attr *attr, const struct fare_attr_edit *e)
{
	struct ecommunity *old = bgp_attr_get_ecommunity(attr);
	struct ecommunity *new;
	struct ecommunity_val eval;
	struct fare_pathbw pb;
	struct fare_groupid gid;
	const uint8_t *adds[] = { e->add_t, e->add_nt, e->add_gid };
	uint32_t i;

	if (old && old->unit_size != FARE_ECOMM_SIZE)
		return;

	new = ecommunity_new();
	for (i = 0; old && i < old->size; i++) {
		const uint8_t *val = old->val + i * old->unit_size;

		if (fare_pathbw_decode(val, e->subtype, &pb) &&
		    ((pb.transitive && e->strip_t) || (!pb.transitive && e->strip_nt)))
			continue;
		if (e->strip_gid && fare_groupid_decode(val, FARE_GROUPID_SIZE, e->gid_subtype,
							&gid) != FARE_GROUPID_NOT_OURS)
			continue;
		memcpy(eval.val, val, FARE_ECOMM_SIZE);
		ecommunity_add_val(new, &eval, false, false);
	}
	for (i = 0; i < array_size(adds); i++) {
		if (!adds[i])
			continue;
		memcpy(eval.val, adds[i], FARE_ECOMM_SIZE);
		ecommunity_add_val(new, &eval, false, false);
	}

	if (!new->size)
		ecommunity_free(&new);
	bgp_attr_set_ecommunity(attr, new);
	if (old && !old->refcnt)
		ecommunity_free(&old);
}

/* Rewrite the Path Bandwidth communities of an outgoing attribute: remove
 * those of the given types, then add the given values.
 */
static void fare_attr_rewrite(struct attr *attr, uint8_t subtype, bool strip_t, bool strip_nt,
			      const uint8_t *add_t, const uint8_t *add_nt)
{
	struct fare_attr_edit e = { .subtype = subtype,
				    .strip_t = strip_t,
				    .strip_nt = strip_nt,
				    .add_t = add_t,
				    .add_nt = add_nt };

	fare_attr_edit(attr, &e);
}

static int fare_announce_attr(struct bgp_dest *dest, struct bgp_path_info *pi,
			      struct update_subgroup *subgrp, struct peer *conf, afi_t afi,
			      safi_t safi, struct attr *attr, bool nh_self)
{
	/* A neighbor the attribute goes to: the update-group's copy of the
	 * configuration keeps the interface of whichever peer created the
	 * group, and all members share our class (fare_updgrp_peer_class).
	 */
	struct peer_af *paf = subgrp ? LIST_FIRST(&subgrp->peers) : NULL;
	struct peer *peer = paf ? paf->peer : conf;
	struct bgp *bgp = peer->bgp;
	struct fare_instance *fi = fare_instance_find(bgp);
	uint8_t ec_t[FARE_ECOMM_SIZE], ec_nt[FARE_ECOMM_SIZE];
	struct fare_result *res;
	double t_value;
	bool strip_t = false, strip_nt = false;
	const uint8_t *add_t = NULL, *add_nt = NULL;
	const char *src;
	as_t writer_as = fare_writer_as(peer);

	if (!fi || !fare_afi_safi(afi, safi))
		return 0;

	/* FARE-11: never leaves the fabric across a boundary peer. */
	if (fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY)) {
		struct ecommunity *ecom = bgp_attr_get_ecommunity(attr);

		if (ecom && ecom->size) {
			size_t before = ecom->size;

			struct fare_attr_edit e = { .subtype = fi->subtype,
						    .strip_t = true,
						    .strip_nt = true,
						    .gid_subtype = fi->ecmp.subtype,
						    .strip_gid = true };

			fare_attr_edit(attr, &e);
			ecom = bgp_attr_get_ecommunity(attr);
			if ((ecom ? ecom->size : 0) != before)
				fare_counters.stripped_boundary++;
		}
		return 0;
	}

	if (!fi->enabled)
		return 0;

	if (fare_route_is_local(bgp, pi)) {
		double value = fi->originate_bw;
		uint8_t ec_gid[FARE_GROUPID_SIZE];
		uint16_t group = fare_ecmp_egress_group(fi, bgp_dest_get_prefix(dest));
		struct fare_attr_edit e = { .subtype = fi->subtype,
					    .gid_subtype = fi->ecmp.subtype };

		/* FARE-2: the originating leaf fills in the maximum; WP-1:
		 * in averaged mode, the line rate of the outgoing interface.
		 */
		if (fi->originate) {
			if (fi->mode == FARE_MODE_AVERAGED)
				value = fare_averaged_advertised(value, 1,
								 fare_peer_link_bw(fi, peer, &src,
										   NULL));
			fare_pathbw_encode(ec_t, true, fi->subtype, writer_as,
					   fare_wire_float(value));
			e.strip_t = e.strip_nt = true;
			e.add_t = ec_t;
			fare_counters.originated++;
		}
		/* EE-3: the egress leaf's ECMP GroupID, next to it */
		if (group) {
			fare_groupid_encode(ec_gid, fi->ecmp.subtype, ntohl(bgp->router_id.s_addr),
					    group);
			e.strip_gid = true;
			e.add_gid = ec_gid;
		}
		if (e.add_t || e.add_gid)
			fare_attr_edit(attr, &e);
		return 0;
	}

	/* FARE-5 sums the bandwidth behind this router: only a router that
	 * puts itself in the forwarding path rewrites the value. A route
	 * reflected, or sent with its next hop unchanged, keeps the value
	 * it came with (the one-hop non-transitive one aside).
	 */
	if (!nh_self) {
		fare_attr_rewrite(attr, fi->subtype, false, true, NULL, NULL);
		fare_counters.passed_unchanged++;
		if (FARE_DEBUG)
			zlog_debug("FARE: %pBD to %pBP: next hop not self, transitive passed unchanged",
				   dest, peer);
		return 0;
	}

	/* Add-path sends other paths than the best one: each carries what
	 * the whole multipath set gives, which is what this router forwards
	 * over (FARE-5).
	 */
	if (!CHECK_FLAG(pi->flags, BGP_PATH_SELECTED)) {
		struct bgp_path_info *best = fare_dest_selected(dest);

		if (best)
			pi = best;
	}

	res = fare_result_get(fi, dest, pi);
	t_value = res->t_value;

	switch ((enum fare_adv_action)res->t_action) {
	case FARE_ADV_REPLACE: /* FARE-5; WP-2 in averaged mode */
		if (fi->mode == FARE_MODE_AVERAGED) {
			if (res->n_out < 0)
				res->n_out = fare_eligible_outgoing_best(fi, dest, pi, afi);
			t_value = fare_averaged_advertised(t_value, res->n_out,
							   fare_peer_link_bw(fi, peer, &src, NULL));
		}
		fare_pathbw_encode(ec_t, true, fi->subtype, writer_as, fare_wire_float(t_value));
		strip_t = true;
		add_t = ec_t;
		fare_counters.replaced++;
		break;
	case FARE_ADV_STRIP: /* FARE-7 */
		strip_t = true;
		fare_counters.stripped_fallback++;
		break;
	case FARE_ADV_KEEP: /* FARE-8/9 */
		/* A super-spine passes it on as it is (FARE-8). A spine
		 * that passes on what came through super-spines (FARE-9)
		 * vouches for it with its own AS, so that its leaves see a
		 * fresh value (FARE-7); one that came stale is removed.
		 */
		if (fi->role == FARE_ROLE_SUPER_SPINE || !res->n)
			break;
		strip_t = true;
		if (res->kept_present) {
			fare_pathbw_encode(ec_t, true, fi->subtype, writer_as,
					   fare_wire_float(res->kept_bw));
			add_t = ec_t;
		}
		break;
	}
	/* A non-transitive value is for one hop only: never pass one on
	 * (FRR strips them on eBGP; this also covers iBGP).
	 */
	strip_nt = true;
	if (res->nt_attach) { /* FARE-8 */
		fare_pathbw_encode(ec_nt, false, fi->subtype, writer_as,
				   fare_wire_float(res->nt_value));
		add_nt = ec_nt;
		fare_counters.nt_attached++;
	}
	fare_attr_rewrite(attr, fi->subtype, strip_t, strip_nt, add_t, add_nt);

	if (FARE_DEBUG)
		zlog_debug("FARE: %pBD to %pBP: transitive %s %.6g, non-transitive %s %.6g", dest,
			   peer, fare_adv_action_str(res->t_action), t_value,
			   res->nt_attach ? "attach" : "none", res->nt_value);
	return 0;
}

/* Whether one of the prefix's best and multipaths comes from a peer due a
 * refresh. The best path heads the destination's list only while the
 * list is as best-path selection sorted it: a path that arrived or was
 * marked unsorted since stands before it, and a multipath may too. So
 * every path is looked at, by its flags, whatever its place.
 */
static bool fare_dest_affected(struct fare_instance *fi, struct bgp_dest *dest)
{
	struct fare_peer_view key = {}, *view;
	struct bgp_path_info *pi;

	for (pi = bgp_dest_get_bgp_path_info(dest); pi; pi = pi->next) {
		if (!CHECK_FLAG(pi->flags, BGP_PATH_SELECTED | BGP_PATH_MULTIPATH))
			continue;
		key.peer = pi->peer;
		view = fare_peer_views_find(&fi->peer_views, &key);
		if (view && view->refresh)
			return true;
	}
	return false;
}

/* Re-evaluate the routes of the instance (all of them, or those through
 * the peers marked for it): weights to zebra, values to peers. Used when
 * configuration, a link bandwidth or a hold-down changes.
 */
void fare_instance_refresh(struct fare_instance *fi, const char *why)
{
	struct bgp *bgp = fi->bgp;
	struct bgp_dest *dest;
	struct fare_peer_view *view;
	bool all = fi->refresh_all;
	afi_t afi;
	unsigned long count = 0, walked = 0;

	fi->refresh_all = false;
	/* Peers whose update-group class changed move first (boundary,
	 * averaged mode's per-link values).
	 */
	fare_instance_regroup(fi);

	for (afi = AFI_IP; afi <= AFI_IP6; afi++) {
		struct bgp_table *table = bgp->rib[afi][SAFI_UNICAST];

		if (!table)
			continue;
		for (dest = bgp_table_top(table); dest; dest = bgp_route_next(dest)) {
			struct bgp_path_info *best = fare_dest_selected(dest);

			if (!best)
				continue;
			walked++;
			if (!all && !fare_dest_affected(fi, dest))
				continue;
			bgp_path_info_set_flag(dest, best, BGP_PATH_ATTR_CHANGED);
			bgp_process(bgp, dest, best, afi, SAFI_UNICAST);
			count++;
		}
	}
	frr_each (fare_peer_views, &fi->peer_views, view)
		view->refresh = false;
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: %s, %lu of %lu route(s) re-evaluated", bgp->name_pretty, why,
			   count, walked);
}

static void fare_instance_refresh_event(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);

	fare_instance_refresh(fi, fi->refresh_why ? fi->refresh_why : "re-evaluation");
	fi->refresh_why = NULL;
}

static void fare_refresh_schedule(struct fare_instance *fi, const char *why)
{
	fare_state_changed();
	if (!fi->t_refresh)
		fi->refresh_why = why;
	event_add_event(bm->master, fare_instance_refresh_event, fi, 0, &fi->t_refresh);
}

/* Re-evaluate once the events at hand are handled: several sessions or
 * prefix-list lines changing together cost one pass.
 */
void fare_instance_refresh_later(struct fare_instance *fi, const char *why)
{
	fi->refresh_all = true;
	fare_refresh_schedule(fi, why);
}

/* The same for the prefixes through one peer only (its link bandwidth or
 * hold-down changed), in the same deferred pass. In averaged mode the
 * link also caps what every prefix advertises on it (WP-2): all of them.
 */
void fare_peer_refresh_later(struct fare_instance *fi, struct peer *peer, const char *why)
{
	struct fare_peer_view *view = fare_peer_view(fi, peer);

	view->refresh = true;
	if (fi->mode == FARE_MODE_AVERAGED)
		fi->refresh_all = true;
	fare_refresh_schedule(fi, why);
}

/* ... and through the neighbors kept under one name (a hold-down's). */
static void fare_name_refresh_later(struct fare_instance *fi, const char *name, const char *why)
{
	struct listnode *node;
	struct peer *peer;
	bool found = false;

	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer))
		if (strmatch(fare_peer_cfg_name(peer), name)) {
			fare_peer_refresh_later(fi, peer, why);
			found = true;
		}
	if (!found)
		fare_state_changed();
}

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
static int fare_if_update(struct interface *ifp)
{
	struct listnode *node, *pnode;
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
	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi)) {
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
		}
	}
	return 0;
}

/* An interface that is gone leaves no state behind. */
static int fare_if_gone(struct interface *ifp)
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
	struct fare_peer_view *view;
	uint32_t sig = 0x46415245;

	if (fare_peer_is_accept(peer))
		return;
	sig = fare_name_hash(DISTRIBUTE_OUT_NAME(filter), sig);
	sig = fare_name_hash(PREFIX_LIST_OUT_NAME(filter), sig + 1);
	sig = fare_name_hash(FILTER_LIST_OUT_NAME(filter), sig + 2);
	sig = fare_name_hash(ROUTE_MAP_OUT_NAME(filter), sig + 3);
	sig |= 1; /* never 0 */
	view = fare_peer_view(fi, peer);
	if (view->out_policy[afi == AFI_IP6] == sig)
		return;
	if (view->out_policy[afi == AFI_IP6] && fi->enabled && fi->mode == FARE_MODE_AVERAGED)
		fare_instance_refresh_later(fi, "outbound policy changed (WP-2 N)");
	view->out_policy[afi == AFI_IP6] = sig;
}

/* FARE-11: boundary peers get a different attribute (stripped), so they
 * must not share an update-group with fabric peers; in averaged mode each
 * outgoing line rate gets its own value (WP-1/2), so peers at different
 * rates never share one either. The rate goes in exactly, in bit/s.
 */
static int fare_updgrp_peer_class(const struct peer *peer, afi_t afi, safi_t safi,
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
	struct fare_link_state *st;

	if (!peer_dynamic_neighbor(peer))
		return false;
	st = fare_link_state_find(fi, fare_peer_cfg_name(peer));
	return st && st->dynamic_was_up;
}

/* Sessions coming and going. WP-7: a session that comes back after a
 * failure carries nothing until its hold-down ends, so a flapping link
 * does not churn the fabric; not so after a graceful restart (RFC 4724),
 * where its stale paths kept forwarding and keep their weight. WP-2: in
 * averaged mode the number of outgoing sessions N changes with every
 * session that comes up or goes down, and so does every value sent.
 */
static int fare_peer_status_changed(struct peer *peer)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);
	struct peer_connection *connection = peer->connection;
	bool up = connection->status == Established && connection->ostatus != Established;
	bool down = connection->status != Established && connection->ostatus == Established;

	if (fi && up)
		fare_host_peer_up(fi, peer);
	if (!fi || !fi->enabled || (!up && !down))
		return 0;
	/* the interface it runs over, its eligibility (WP-2) */
	fare_state_changed();
	if (up && fi->hold_down && (peer->established > 1 || fare_dynamic_returns(fi, peer))) {
		if (CHECK_FLAG(peer->sflags, PEER_STATUS_NSF_WAIT)) {
			fare_counters.graceful_restarts++;
			if (FARE_DEBUG)
				zlog_debug("FARE: %pBP: re-established after a graceful restart, no hold-down",
					   peer);
		} else {
			fare_hold_down_start(fi, peer, 0, true);
		}
	}
	if (fi->mode == FARE_MODE_AVERAGED)
		fare_instance_refresh_later(fi,
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
	struct fare_peer_cfg *pc;
	struct fare_link_state *st;

	if (!fi || !name)
		return;
	pc = fare_peer_cfg_find(fi, name);
	if (pc) {
		listnode_delete(fi->peers, pc);
		fare_peer_cfg_free(pc);
	}
	st = fare_link_state_find(fi, name);
	if (st) {
		listnode_delete(fi->link_states, st);
		fare_link_state_free(st);
	}
	fare_state_changed();
	if (FARE_DEBUG && (pc || st))
		zlog_debug("FARE: %s: %s deleted, its FARE settings and state removed",
			   bgp->name_pretty, name);
}

static int fare_peer_delete(struct peer *peer)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);

	if (fi)
		fare_peer_view_drop(fi, peer);
	/* a peer-group's configuration node goes with the group */
	if (CHECK_FLAG(peer->sflags, PEER_STATUS_GROUP))
		return 0;
	/* WP-7: a dynamic neighbor that was up may come back */
	if (fi && peer_dynamic_neighbor(peer)) {
		if (peer->established) {
			fare_link_state_get(fi, peer->host)->dynamic_was_up = true;
			fare_state_changed();
		}
		return 0;
	}
	fare_forget_name(peer->bgp, peer->conf_if ? peer->conf_if : peer->host);
	return 0;
}

static int fare_peer_group_delete(struct peer_group *group)
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

/* FARE-6: a prefix-list used by "bgp fare multihoming" changed; EE-3:
 * one used by "bgp fare ecmp-group-id N prefix-list X": the originated
 * routes are tagged, and announced, anew; WP-2: one a neighbor filters
 * its announcements with (averaged mode's N)
 */
static int fare_prefix_list_update(struct prefix_list *plist)
{
	const char *name = plist ? prefix_list_name(plist) : NULL;
	struct listnode *node, *mnode;
	struct fare_instance *fi;
	struct fare_multihoming *mh;

	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi)) {
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
			fare_instance_refresh_later(fi, "outbound prefix-list changed (WP-2 N)");
	}
	return 0;
}

static int fare_bgp_delete(struct bgp *bgp)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	if (fi)
		fare_instance_free(fi);
	fare_display_refresh();
	return 0;
}

/* zebra's capabilities: the nexthop weight width in force (WP-3) */
static int fare_zebra_capabilities(const struct zclient_capabilities *cap)
{
	struct fare_instance *fi;
	struct listnode *node;

	if (cap->nexthop_weight_max == fare_zebra_weight_max)
		return 0;
	zlog_info("FARE: zebra installs nexthop weights up to %u as they are (was %u)",
		  cap->nexthop_weight_max, fare_zebra_weight_max);
	fare_zebra_weight_max = cap->nexthop_weight_max;
	for (ALL_LIST_ELEMENTS_RO(fare_instances, node, fi))
		fare_instance_refresh_later(fi, "zebra nexthop weight width changed");
	return 0;
}

static int fare_late_init(struct event_loop *tm)
{
	fare_vty_init();
	return 0;
}

static int fare_fini(void)
{
	struct fare_instance *fi;

	while ((fi = listnode_head(fare_instances)))
		fare_instance_free(fi);
	list_delete(&fare_instances);
	list_delete(&fare_if_states);
	XFREE(MTYPE_FARE_RESULT_CACHE, fare_results);
	return 0;
}

static void fare_if_state_free(void *arg)
{
	XFREE(MTYPE_FARE_IF_STATE, arg);
}

static int bgp_fare_module_init(void)
{
	fare_instances = list_new();
	fare_if_states = list_new();
	fare_if_states->del = fare_if_state_free;

	hook_register(bgp_ecommunity_unknown_str, fare_ecommunity_str);
	hook_register(bgp_zebra_nexthop_weights, fare_zebra_nexthop_weights);
	hook_register(bgp_zebra_capabilities, fare_zebra_capabilities);
	hook_register(bgp_route_announce_attr, fare_announce_attr);
	hook_register(bgp_route_announce_withhold, fare_host_announce_withhold);
	hook_register(bgp_updgrp_peer_class, fare_updgrp_peer_class);
	hook_register(peer_status_changed, fare_peer_status_changed);
	hook_register(bgp_inst_delete, fare_bgp_delete);
	hook_register(if_real, fare_if_update);
	hook_register(if_up, fare_if_update);
	hook_register(if_down, fare_if_update);
	hook_register(if_unreal, fare_if_gone);
	hook_register(if_del, fare_if_gone);
	hook_register(bgp_peer_delete, fare_peer_delete);
	hook_register(bgp_peer_group_delete, fare_peer_group_delete);
	hook_register(bgp_prefix_list_update, fare_prefix_list_update);
	hook_register(bgp_route_selected, fare_route_selected);
	hook_register(frr_late_init, fare_late_init);
	hook_register(frr_early_fini, fare_fini);

	zlog_info("FARE %s loaded (Path Bandwidth sub-type default 0x%02x)", FARE_VERSION,
		  FARE_PATHBW_SUBTYPE_DEFAULT);
	return 0;
}

FRR_MODULE_SETUP(.name = "bgpd_fare", .version = FARE_VERSION,
		 .description = "bgpd FARE: Path Bandwidth weighted ECMP",
		 .init = bgp_fare_module_init, );
