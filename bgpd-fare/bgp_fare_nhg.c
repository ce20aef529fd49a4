// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: shared nexthop groups ("bgp fare nexthop-groups"). Every
 * FARE-weighted route is sent to zebra with the id of a nexthop group
 * the module keeps there, one per distinct weighted next-hop set of a VRF
 * (the key, core/fare_nhg.h), instead of its own next hops (patch 0021's
 * bgp_zebra_route_nhg hook). When the weights of a set change (a link's
 * bandwidth, a hold-down's end, a new Path Bandwidth), the routes of its
 * group are re-announced with their new sets.
 *
 * A change of this router's own (a link's bandwidth, a hold-down's end)
 * changes every route over the link alike: the first announcement of a
 * group with a new set that no other group has replaces the group in
 * place at once (fare_nhg_ahead()): one ZEBRA_NHG_ADD of the same id (one
 * RTM_NEWNEXTHOP), and the routes that follow with the same set are not
 * sent again. A new Path Bandwidth from a neighbor may change only some
 * of a group's routes (those of one origin): the group is replaced ahead
 * so only where its other routes have the same paths with the same
 * attributes (fare_nhg_routes_alike()); else its routes wait, and the
 * group is replaced in place once every one of its routes waits with one
 * same new set, so that no route runs with weights that are not its own
 * meanwhile. Once bgpd has processed and sent everything and no route
 * has changed for FARE_NHG_QUIET_MSEC (fare_nhg_settle()), the routes
 * that did not follow (not re-announced, or with another set) move to
 * the group of their set and are sent again (or, when they are the most,
 * the group goes back to its set and those that followed move), and a
 * group no route uses is deleted (ZEBRA_NHG_DEL, id freed). Ids come
 * from bgpd's L3 nexthop group allocator (bgp_nhg.c). When bgpd connects
 * to zebra again (zebra restarted), every group goes to zebra again ahead
 * of its first route (fare_nhg_connection_check()). Calls down into the
 * instance records only.
 */
#include <zebra.h>

#include "jhash.h"
#include "memory.h"
#include "nexthop.h"
#include "typesafe.h"
#include "vty.h"
#include "workqueue.h"
#include "zclient.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_nexthop.h"
#include "bgpd/bgp_nhg.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_zebra.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_nhg.h"
#include "bgpd/fare/bgp_fare_nhg_private.h"

#include "fare_nhg.h"

#ifdef FARE_HAVE_NHG

DEFINE_MTYPE_STATIC(FARE, FARE_NHG, "FARE nexthop group");
DEFINE_MTYPE_STATIC(FARE, FARE_NHG_ROUTE, "FARE nexthop group route");

/* Announcements of the routes of a group wait this long for the rest of
 * the pass (the re-announcement of every route of the group) before the
 * group is replaced or its routes moved, and longer while bgpd still has
 * routes to process or to send to zebra, or while routes go on changing:
 * until none has for FARE_NHG_QUIET_MSEC (a neighbor's UPDATEs come in
 * bursts, each session's apart: a route whose paths change one session
 * at a time passes through a set per session), at most
 * FARE_NHG_SETTLE_MAX_MSEC after the first route began to wait.
 */
#define FARE_NHG_SETTLE_MSEC	 5
#define FARE_NHG_QUIET_MSEC	 50
#define FARE_NHG_SETTLE_MAX_MSEC 1000


static int fare_nhg_cmp(const struct fare_nhg *a, const struct fare_nhg *b)
{
	/* a hash's compare only tells equal from not */
	if (a->hash != b->hash)
		return numcmp(a->hash, b->hash);
	return fare_nhg_key_equal(a->key, b->key) ? 0 : 1;
}

static uint32_t fare_nhg_hashfn(const struct fare_nhg *g)
{
	return g->hash;
}

DECLARE_HASH(fare_nhgs, struct fare_nhg, item, fare_nhg_cmp, fare_nhg_hashfn);

/* every route record, each also on its destination (fare_dest_records) */
DECLARE_DLIST(fare_nhg_routes, struct fare_nhg_route, item);
DECLARE_DLIST(fare_nhg_pending, struct fare_nhg_route, pitem);
DECLARE_DLIST(fare_nhg_members, struct fare_nhg_route, gitem);

/* the number of routes assigned to group g */
static inline uint32_t fare_nhg_users(const struct fare_nhg *g)
{
	return fare_nhg_members_count(&g->routes);
}

static struct fare_nhgs_head fare_nhgs;
static struct fare_nhg_routes_head fare_nhg_routes;
static struct fare_nhg_pending_head fare_nhg_pending;
static struct event *t_settle;

/* ------------------------------------------------------------------ */
/* Groups                                                               */
/* ------------------------------------------------------------------ */

static void fare_nhg_install(struct fare_nhg *g)
{
	struct zapi_nhg api_nhg = {};
	uint16_t i;

	api_nhg.id = g->id;
	api_nhg.flags = ZEBRA_FLAG_NEXTHOP_WEIGHT_EXACT;
	for (i = 0; i < g->key->n && i < MULTIPATH_NUM; i++) {
		const struct fare_nhg_member *m = &g->key->m[i];
		struct zapi_nexthop *api_nh = &api_nhg.nexthops[api_nhg.nexthop_num++];

		api_nh->vrf_id = m->vrf_id;
		api_nh->ifindex = m->ifindex;
		api_nh->weight = m->weight;
		SET_FLAG(api_nh->flags, ZAPI_NEXTHOP_FLAG_WEIGHT);
		if (m->onlink)
			SET_FLAG(api_nh->flags, ZAPI_NEXTHOP_FLAG_ONLINK);
		if (m->family == FARE_NHG_IPV4) {
			api_nh->type = NEXTHOP_TYPE_IPV4_IFINDEX;
			memcpy(&api_nh->gate.ipv4, m->gate, 4);
		} else {
			api_nh->type = NEXTHOP_TYPE_IPV6_IFINDEX;
			memcpy(&api_nh->gate.ipv6, m->gate, 16);
		}
	}
	zclient_nhg_send(bgp_zclient, ZEBRA_NHG_ADD, &api_nhg);
	g->installed = true;
	g->installs++;
	if (FARE_DEBUG)
		zlog_debug("FARE: nexthop group %u: %u member(s) sent to zebra", g->id, g->key->n);
}

static struct fare_nhg *fare_nhg_find(const struct fare_nhg_key *key)
{
	struct fare_nhg ref = { .key = (struct fare_nhg_key *)key, .hash = fare_nhg_key_hash(key) };

	return fare_nhgs_find(&fare_nhgs, &ref);
}

/* The group of a key, made (and sent to zebra) when there is none; NULL
 * when bgpd has no id left. key is the group's from then on, or freed.
 */
static struct fare_nhg *fare_nhg_get(struct fare_nhg_key **keyp)
{
	struct fare_nhg *g = fare_nhg_find(*keyp);
	uint32_t id;

	if (g) {
		XFREE(MTYPE_FARE_NHG_KEY, *keyp);
		return g;
	}
	id = bgp_nhg_id_alloc();
	if (!id) {
		static time_t logged;

		if (monotime(NULL) - logged >= 60) {
			logged = monotime(NULL);
			zlog_warn("FARE: no nexthop group id left: routes keep their own next hops");
		}
		XFREE(MTYPE_FARE_NHG_KEY, *keyp);
		return NULL;
	}
	g = XCALLOC(MTYPE_FARE_NHG, sizeof(*g));
	g->id = id;
	g->key = *keyp;
	g->hash = fare_nhg_key_hash(g->key);
	fare_nhg_members_init(&g->routes);
	*keyp = NULL;
	fare_nhgs_add(&fare_nhgs, g);
	return g;
}

/* A group no route is assigned to and zebra has no route on is deleted */
static void fare_nhg_gc(struct fare_nhg *g)
{
	if (fare_nhg_users(g) || g->sent_users)
		return;
	if (g->installed) {
		struct zapi_nhg api_nhg = { .id = g->id };

		zclient_nhg_send(bgp_zclient, ZEBRA_NHG_DEL, &api_nhg);
	}
	if (FARE_DEBUG)
		zlog_debug("FARE: nexthop group %u: no route uses it, deleted", g->id);
	fare_nhgs_del(&fare_nhgs, g);
	bgp_nhg_id_free(g->id);
	fare_nhg_members_fini(&g->routes);
	XFREE(MTYPE_FARE_NHG_KEY, g->pending_key);
	XFREE(MTYPE_FARE_NHG_KEY, g->key);
	XFREE(MTYPE_FARE_NHG, g);
}

static void fare_nhg_settle(struct event *event);

static void fare_nhg_settle_later(void)
{
	if (!t_settle)
		event_add_timer_msec(bm->master, fare_nhg_settle, NULL, FARE_NHG_SETTLE_MSEC,
				     &t_settle);
}

/* ------------------------------------------------------------------ */
/* Routes                                                               */
/* ------------------------------------------------------------------ */

static bool fare_nhg_replaceable(struct fare_nhg *g, const struct fare_nhg_key *key);
static void fare_nhg_replace(struct fare_nhg *g, struct fare_nhg_key *key);

static struct fare_nhg_route *fare_nhg_route_find(const struct bgp_dest *dest)
{
	struct fare_dest_records *rec = fare_dest_records(dest);

	return rec ? rec->nhg_route : NULL;
}

/* The record leaves its destination, whose lock it gives back */
static void fare_nhg_route_unlink(struct fare_nhg_route *r)
{
	struct bgp_dest *dest = (struct bgp_dest *)r->dest;

	fare_dest_records(dest)->nhg_route = NULL;
	fare_dest_records_put(dest);
	bgp_dest_unlock_node(dest);
}

/* when bgpd announced the first route of those waiting now with a new
 * set, and the last (fare_nhg_settle() waits for quiet)
 */
static struct timeval fare_nhg_wait_first, fare_nhg_wait_last;

/* Route r of its group waits for a move to a group of r->want */
static void fare_nhg_pending_add(struct fare_nhg_route *r)
{
	struct fare_nhg *g = r->group;

	fare_nhg_pending_add_tail(&fare_nhg_pending, r);
	if (!g->pending++) {
		g->pending_key = fare_nhg_key_dup(r->want);
		g->pending_same = 1;
	} else if (fare_nhg_key_equal(g->pending_key, r->want)) {
		g->pending_same++;
	}
}

/* Route r waits no more (r->want is the caller's) */
static void fare_nhg_pending_remove(struct fare_nhg_route *r)
{
	struct fare_nhg *g = r->group;

	if (fare_nhg_key_equal(g->pending_key, r->want))
		g->pending_same--;
	if (!--g->pending)
		XFREE(MTYPE_FARE_NHG_KEY, g->pending_key);
	fare_nhg_pending_del(&fare_nhg_pending, r);
}

static void fare_nhg_route_unwait(struct fare_nhg_route *r)
{
	if (!r->want)
		return;
	fare_nhg_pending_remove(r);
	XFREE(MTYPE_FARE_NHG_KEY, r->want);
}

static void fare_nhg_route_assign(struct fare_nhg_route *r, struct fare_nhg *g)
{
	if (r->group == g)
		return;
	if (r->group) {
		fare_nhg_members_del(&r->group->routes, r);
		if (r->group->prev_key && r->confirmed == r->group->gen)
			r->group->confirmed--;
		if (r->paths == r->group->sig)
			r->group->sig_same--;
		fare_nhg_settle_later(); /* it may be unused now */
	}
	r->confirmed = 0;
	r->group = g;
	if (!g)
		return;
	if (!fare_nhg_users(g))
		g->sig = r->paths;
	if (r->paths == g->sig)
		g->sig_same++;
	fare_nhg_members_add_tail(&g->routes, r);
}

/* What zebra has for the route: on group g (NULL: its own next hops or
 * nothing) as fingerprint fp (0: nothing)
 */
static void fare_nhg_route_sent(struct fare_nhg_route *r, struct fare_nhg *g, uint64_t fp)
{
	if (r->sent_group != g) {
		if (r->sent_group) {
			r->sent_group->sent_users--;
			fare_nhg_settle_later();
		}
		if (g)
			g->sent_users++;
		r->sent_group = g;
	}
	r->sent_fp = fp;
}

/* bgpd's connection to zebra the groups' state is of (its count) */
static int fare_nhg_connection;

/* bgpd connected to zebra again (zebra started anew after a crash, bgpd
 * still running): zebra has none of the groups, nor the routes. Each
 * group goes to zebra again before its first route, and no route counts
 * as sent: bgpd sends its selected routes again when it connects (patch
 * 0024), queued before zebra's capabilities arrive, so every path that
 * sends zebra a group or a route checks first.
 */
static void fare_nhg_connection_check(void)
{
	struct fare_nhg_route *r;
	struct fare_nhg *g;

	if (fare_nhg_connection == bgp_zebra_num_connects())
		return;
	fare_nhg_connection = bgp_zebra_num_connects();
	frr_each (fare_nhgs, &fare_nhgs, g)
		g->installed = false;
	frr_each (fare_nhg_routes, &fare_nhg_routes, r)
		fare_nhg_route_sent(r, r->sent_group, 0);
	if (FARE_DEBUG && fare_nhgs_count(&fare_nhgs))
		zlog_debug("FARE: zebra connection %d: %zu nexthop group(s) to send again with their routes",
			   fare_nhg_connection, fare_nhgs_count(&fare_nhgs));
}

/* The route leaves the groups: zebra gets it with its own next hops or
 * withdraws it.
 */
static void fare_nhg_route_free(struct fare_nhg_route *r)
{
	fare_nhg_route_unwait(r);
	fare_nhg_route_assign(r, NULL);
	fare_nhg_route_sent(r, NULL, 0);
	fare_nhg_routes_del(&fare_nhg_routes, r);
	fare_nhg_route_unlink(r);
	XFREE(MTYPE_FARE_NHG_ROUTE, r);
}

/* The route is announced with its group's key: while the group is
 * replaced ahead of its routes, it is one that followed.
 */
static void fare_nhg_route_confirm(struct fare_nhg_route *r)
{
	struct fare_nhg *g = r->group;

	if (g->prev_key && r->confirmed != g->gen) {
		r->confirmed = g->gen;
		g->confirmed++;
	}
}

static void fare_nhg_rekey(struct fare_nhg *g, struct fare_nhg_key *key)
{
	fare_nhgs_del(&fare_nhgs, g);
	g->key = key;
	g->hash = fare_nhg_key_hash(key);
	fare_nhgs_add(&fare_nhgs, g);
	fare_nhg_install(g);
	g->replaced++;
}

/* The first route of group g announced with new weights that no group has:
 * g is replaced in place at once, its other routes expected to follow in
 * the same pass (a link's bandwidth changes the weights of every route
 * over it); fare_nhg_settle() moves those that did not. key is g's now.
 */
static void fare_nhg_ahead(struct fare_nhg *g, struct fare_nhg_key *key)
{
	g->prev_key = g->key;
	fare_nhg_rekey(g, key);
	if (!++g->gen)
		g->gen = 1;
	g->confirmed = 0;
	fare_nhg_settle_later();
	if (FARE_DEBUG)
		zlog_debug("FARE: nexthop group %u replaced in place ahead of its %u route(s)",
			   g->id, fare_nhg_users(g));
}

/* A hash of dest's selected and multipath paths, each one's neighbor and
 * attributes (interned: one pointer per distinct set), in any order. Two
 * routes with the same hash have the same paths from their neighbors'
 * point of view, as far as a hash can tell (never followed: only
 * compared).
 */
static uint32_t fare_nhg_paths_hash(const struct bgp_dest *dest)
{
	struct bgp_path_info *pi;
	uint32_t h = 0;

	for (pi = bgp_dest_get_bgp_path_info((struct bgp_dest *)dest); pi; pi = pi->next)
		if (CHECK_FLAG(pi->flags, BGP_PATH_SELECTED | BGP_PATH_MULTIPATH))
			h += jhash_2words((uint32_t)(uintptr_t)pi->peer,
					  (uint32_t)(uintptr_t)pi->attr ^
						  (uint32_t)((uintptr_t)pi->attr >> 32),
					  0x50415448);
	return h;
}

/* Whether the routes of group g but r have the same paths with the same
 * attributes: a new Path Bandwidth from a neighbor for r's prefix then
 * most likely comes for theirs too, as its neighbors cannot tell them
 * apart. Prefixes of different origins differ in their AS paths. The
 * guess fails only where a neighbor gives routes it sent alike different
 * new values (its multihoming factor for some of them): those move back
 * once bgpd is through.
 */
static bool fare_nhg_routes_alike(const struct fare_nhg *g, const struct fare_nhg_route *r)
{
	return g->sig_same - (r->paths == g->sig ? 1 : 0) == fare_nhg_users(g) - 1;
}

/* Route r of group g announced with paths hashed h */
static void fare_nhg_route_paths(struct fare_nhg *g, struct fare_nhg_route *r, uint32_t h)
{
	if (r->paths == g->sig)
		g->sig_same--;
	r->paths = h;
	if (h == g->sig)
		g->sig_same++;
}

/* The routes of g counted again, against the paths of its first route
 * but `but` (a group whose routes all changed alike since has them all
 * with a new hash)
 */
static void fare_nhg_sig_recount(struct fare_nhg *g, const struct fare_nhg_route *but)
{
	struct fare_nhg_route *r = fare_nhg_members_first(&g->routes);

	if (r == but)
		r = fare_nhg_members_next(&g->routes, r);
	g->sig = r ? r->paths : 0;
	g->sig_same = 0;
	frr_each (fare_nhg_members, &g->routes, r)
		if (r->paths == g->sig)
			g->sig_same++;
}

/* Whether group g's first route with new weights (r's) replaces it ahead
 * of the others: after a change of this router's own, or when the others
 * are alike (fare_nhg_routes_alike())
 */
static bool fare_nhg_ahead_expected(struct fare_nhg *g, const struct fare_nhg_route *r)
{
	if (g->ahead_due)
		return true;
	/* once per change: the group's routes counted again if few share
	 * its first one's paths (all its routes changed alike since)
	 */
	if (!g->alike_checked) {
		g->alike_checked = true;
		if (g->sig_same < fare_nhg_users(g) / 2)
			fare_nhg_sig_recount(g, r);
		g->alike = fare_nhg_routes_alike(g, r);
		fare_nhg_settle_later(); /* the mark goes with the change */
	}
	return g->alike;
}

/* bgpd sends a route to zebra (patch 0021's bgp_zebra_route_nhg hook) */
static int fare_nhg_route_announce(struct bgp *bgp, struct bgp_dest *dest,
				   struct bgp_path_info *best, struct zapi_route *api,
				   bool *unchanged)
{
	struct fare_instance *fi = fare_instance_find(bgp);
	struct fare_nhg_route *r = fare_nhg_route_find(dest);
	struct fare_nhg_key *key = NULL;
	struct fare_nhg *g;
	uint64_t fp = 0;

	fare_nhg_connection_check();
	if (fi && fi->enabled && fi->nhg) {
		key = fare_nhg_key_of(best, api);
		if (!key)
			fp = fare_nhg_direct_fingerprint(api);
	}
	/* Sent with its own next hops (a single one, or ones no group
	 * takes): sent again only when something of it changed. bgpd
	 * sends a route again when its multipaths change, also where its
	 * installed next hops do not (an Enhanced ECMP sub-group's one
	 * uplink, EE-4, as the route's other paths arrive), and when only
	 * attributes zebra does not get change.
	 */
	if (!key && fp && r && !r->group && !r->want && !r->sent_group) {
		if (r->sent_fp == fp) {
			fi->counters.zebra_unchanged++;
			*unchanged = true;
			return 0;
		}
		r->sent_fp = fp;
		return 0;
	}
	if (!key && r) {
		fare_nhg_route_free(r);
		r = NULL;
	}
	if (!key && !fp)
		return 0;
	if (!r) {
		r = XCALLOC(MTYPE_FARE_NHG_ROUTE, sizeof(*r));
		/* kept while the record is: bgpd may drop a route without
		 * withdrawing it from zebra (its VRF gone)
		 */
		r->dest = bgp_dest_lock_node(dest);
		r->bgp = bgp;
		fare_dest_records_get(dest)->nhg_route = r;
		fare_nhg_routes_add_tail(&fare_nhg_routes, r);
	}
	if (!key) {
		r->sent_fp = fp;
		return 0;
	}
	if (r->group)
		fare_nhg_route_paths(r->group, r, fare_nhg_paths_hash(dest));
	else
		r->paths = fare_nhg_paths_hash(dest);

	/* The weights of the group zebra has it on changed: the first route
	 * so, the group is replaced in place ahead of the others (a link's
	 * weight changes for all the routes over it); else (and when its
	 * next hops changed: a path of this route gone, or the kernel took
	 * a dead link out already) wait for the other routes of the group
	 * (fare_nhg_settle()).
	 */
	g = r->group;
	if (g && g == r->sent_group && !fare_nhg_key_equal(g->key, key) && !g->prev_key &&
	    fare_nhg_key_same_nexthops(g->key, key) && !fare_nhg_find(key) &&
	    fare_nhg_ahead_expected(g, r)) {
		fare_nhg_route_unwait(r);
		fare_nhg_ahead(g, key);
		key = fare_nhg_key_dup(g->key);
	}
	if (g && g == r->sent_group && !fare_nhg_key_equal(g->key, key)) {
		fare_nhg_route_unwait(r);
		if (g->prev_key && r->confirmed == g->gen) {
			g->confirmed--; /* followed, and changed again */
			r->confirmed = 0;
		}
		r->want = key;
		fare_nhg_pending_add(r);
		monotime(&fare_nhg_wait_last);
		if (fare_nhg_pending_count(&fare_nhg_pending) == 1)
			fare_nhg_wait_first = fare_nhg_wait_last;
		if (g->prev_key || !fare_nhg_replaceable(g, key)) {
			fare_nhg_settle_later();
			*unchanged = true;
			return 0;
		}
		/* every route of the group waits with this one set (a new
		 * Path Bandwidth for all of them): replaced in place now
		 */
		fare_nhg_replace(g, key);
		key = fare_nhg_key_dup(g->key);
	}
	fare_nhg_route_unwait(r);

	if (!r->group || !fare_nhg_key_equal(r->group->key, key)) {
		g = fare_nhg_get(&key);
		if (!g) {
			fare_nhg_route_free(r);
			return 0;
		}
		fare_nhg_route_assign(r, g);
	} else {
		XFREE(MTYPE_FARE_NHG_KEY, key);
	}
	g = r->group;
	fare_nhg_route_confirm(r);
	if (!g->installed)
		fare_nhg_install(g);
	zapi_route_set_nhg_id(api, &g->id);
	fp = fare_nhg_fingerprint(api, g->id);
	if (r->sent_group == g && r->sent_fp == fp) {
		fi->counters.zebra_unchanged++;
		*unchanged = true;
		return 0;
	}
	fare_nhg_route_sent(r, g, fp);
	return 0;
}

/* bgpd withdraws a route from zebra */
static int fare_nhg_route_withdrawn(struct bgp *bgp, struct bgp_dest *dest)
{
	struct fare_nhg_route *r = fare_nhg_route_find(dest);

	fare_nhg_connection_check();
	if (r)
		fare_nhg_route_free(r);
	return 0;
}

/* bgpd selected the destination's paths anew: with none selected, the
 * route is gone, withdrawn from zebra or dropped with its VRF (the
 * common case, a path selected, needs no lookup)
 */
void fare_nhg_dest_selected(struct bgp_dest *dest)
{
	struct fare_nhg_route *r;

	if (fare_dest_selected(dest))
		return;
	r = fare_nhg_route_find(dest);
	if (r)
		fare_nhg_route_free(r);
}

/* bgpd sends the route again; it finds its group assigned */
static void fare_nhg_route_resend(struct fare_nhg_route *r)
{
	struct bgp_path_info *best = fare_dest_selected((struct bgp_dest *)r->dest);

	if (best)
		bgp_zebra_route_install((struct bgp_dest *)r->dest, best, r->bgp, true, NULL, false);
}

/* Whether every route of group g waits with one same new key, which no
 * other group has: then g is replaced in place.
 */
static bool fare_nhg_replaceable(struct fare_nhg *g, const struct fare_nhg_key *key)
{
	return g->pending == fare_nhg_users(g) && g->pending_same == g->pending &&
	       fare_nhg_key_equal(g->pending_key, key) && !fare_nhg_find(key);
}

static void fare_nhg_replace(struct fare_nhg *g, struct fare_nhg_key *key)
{
	struct fare_nhg_route *r;
	uint32_t moved = 0;

	struct fare_nhg_key *old = g->key;

	fare_nhg_rekey(g, fare_nhg_key_dup(key));
	XFREE(MTYPE_FARE_NHG_KEY, old);
	frr_each_safe (fare_nhg_pending, &fare_nhg_pending, r) {
		if (r->group != g)
			continue;
		fare_nhg_route_unwait(r);
		moved++;
	}
	if (FARE_DEBUG)
		zlog_debug("FARE: nexthop group %u replaced in place: %u route(s) follow, none sent",
			   g->id, moved);
}

/* Make route r of group g wait for a move to a group of key */
static void fare_nhg_route_wait(struct fare_nhg_route *r, const struct fare_nhg_key *key)
{
	r->want = fare_nhg_key_dup(key);
	fare_nhg_pending_add(r);
}

/* Group g was replaced ahead of its routes: the routes that were not
 * announced again since keep the key they had and move to a group of
 * it; where they are more than those that followed, g goes back to its
 * key instead (one message again) and those move.
 */
static void fare_nhg_settle_ahead(struct fare_nhg *g)
{
	struct fare_nhg_key *prev = g->prev_key, *now = g->key;
	uint32_t users = fare_nhg_users(g);
	uint32_t stayed = users > g->confirmed + g->pending ? users - g->confirmed - g->pending : 0;
	bool back = stayed > g->confirmed && !fare_nhg_find(prev);
	struct fare_nhg_route *r;

	g->prev_key = NULL;
	if (stayed) {
		if (back) {
			fare_nhg_rekey(g, prev);
			prev = NULL;
		}
		frr_each (fare_nhg_members, &g->routes, r) {
			if (r->want)
				continue;
			if (back && r->confirmed == g->gen)
				fare_nhg_route_wait(r, now);
			else if (!back && r->confirmed != g->gen)
				fare_nhg_route_wait(r, prev);
		}
		if (FARE_DEBUG)
			zlog_debug("FARE: nexthop group %u: %u route(s) did not follow%s", g->id,
				   stayed, back ? ", the group goes back" : "");
	}
	if (back)
		XFREE(MTYPE_FARE_NHG_KEY, now);
	XFREE(MTYPE_FARE_NHG_KEY, prev);
}

/* The routes that waited: their groups replaced in place, or the routes
 * moved to the group of their new set and sent again, in tasks of at
 * most FARE_PASS_BUDGET_US (in one task, 147 ms at 200,000 prefixes in
 * scripts/bench.sh spine). Groups left unused are freed at the end.
 */
static void fare_nhg_settle(struct event *event)
{
	struct fare_nhg_route *r;
	struct fare_nhg *g;
	struct bgp *bgp;
	struct listnode *node;
	struct timeval start;
	unsigned int n = 0;

	/* bgpd has more routes to process or send: more of them may join */
	for (ALL_LIST_ELEMENTS_RO(bm->bgp, node, bgp))
		if ((bgp->process_queue && !work_queue_empty(bgp->process_queue)) ||
		    zebra_announce_count(&bm->zebra_announce_head) ||
		    zebra_announce_count(&bm->zebra_announce_early_head)) {
			event_add_timer_msec(bm->master, fare_nhg_settle, NULL,
					     FARE_NHG_SETTLE_MSEC, &t_settle);
			return;
		}
	/* routes still change: more UPDATEs may be on their way */
	if (fare_nhg_pending_count(&fare_nhg_pending)) {
		int64_t quiet = monotime_since(&fare_nhg_wait_last, NULL) / 1000;
		int64_t waited = monotime_since(&fare_nhg_wait_first, NULL) / 1000;

		if (quiet < FARE_NHG_QUIET_MSEC && waited < FARE_NHG_SETTLE_MAX_MSEC) {
			event_add_timer_msec(bm->master, fare_nhg_settle, NULL,
					     MIN(FARE_NHG_QUIET_MSEC - quiet,
						 FARE_NHG_SETTLE_MAX_MSEC - waited),
					     &t_settle);
			return;
		}
	}

	fare_nhg_connection_check();
	frr_each_safe (fare_nhgs, &fare_nhgs, g)
		if (g->prev_key)
			fare_nhg_settle_ahead(g);

	monotime(&start);
	while ((r = fare_nhg_pending_first(&fare_nhg_pending))) {
		/* the rest in tasks of their own, after bgpd's */
		if (++n % FARE_PASS_CHECK == 0 &&
		    monotime_since(&start, NULL) >= FARE_PASS_BUDGET_US) {
			event_add_event(bm->master, fare_nhg_settle, NULL, 0, &t_settle);
			return;
		}
		g = r->group;
		if (fare_nhg_replaceable(g, r->want)) {
			fare_nhg_replace(g, r->want);
			continue;
		}
		/* it moves: bgpd sends it again with its new group */
		fare_nhg_pending_remove(r);
		g = fare_nhg_get(&r->want);
		fare_nhg_route_assign(r, g);
		if (g && !g->installed)
			fare_nhg_install(g);
		fare_nhg_route_resend(r);
	}
	frr_each_safe (fare_nhgs, &fare_nhgs, g) {
		g->ahead_due = g->alike_checked = false;
		fare_nhg_gc(g);
	}
}

/* ------------------------------------------------------------------ */
/* Instances, zebra, shows                                              */
/* ------------------------------------------------------------------ */

/* Whether bgpd finds every multipath of the destination from its best
 * path on (bgp_path_info_mpath_next()), as when it sends the route: the
 * best path heads the list only while the list is as bgpd's selection
 * sorted it (a path that arrived since, or a multipath, may stand before
 * it until the destination is processed again).
 */
static bool fare_nhg_paths_sorted(struct bgp_dest *dest, struct bgp_path_info *best)
{
	struct bgp_path_info *pi;
	uint32_t n = 0;

	for (pi = best; pi; pi = bgp_path_info_mpath_next(pi))
		n++;
	return n == bgp_path_info_mpath_count(dest);
}

/* A re-evaluation of the instance's routes is due (a link's bandwidth, a
 * hold-down's end): one route of each group it concerns is sent to zebra
 * at once, ahead of bgpd's pass over the routes, so that its group is
 * replaced in place (fare_nhg_ahead()) before bgpd has processed every
 * route: the kernel holds the new weights after one message per group,
 * whatever the number of routes. The pass finds them replaced and sends
 * nothing. For a link's bandwidth it runs as soon as zebra tells bgpd,
 * before bgpd's own handling of the interface: its next-hop tracking sets
 * the paths over the interface apart from their sorted place until each
 * destination is processed again, and only a route whose path list bgpd
 * would walk as it is now is sent so. A group without one is replaced
 * with the first of its routes the pass sends.
 */
static void fare_nhg_refresh_due(struct fare_instance *fi, bool all)
{
	struct fare_nhg_route *r, **probes;
	struct bgp_path_info *best;
	struct fare_nhg *g;
	uint32_t n = 0, groups = 0, i;

	if (!fi->enabled || !fi->nhg || !fare_nhgs_count(&fare_nhgs))
		return;
	/* chosen first: a route sent may replace its group in place, which
	 * moves the group in the hash
	 */
	probes = XCALLOC(MTYPE_TMP, fare_nhgs_count(&fare_nhgs) * sizeof(*probes));
	frr_each (fare_nhgs, &fare_nhgs, g) {
		if (g->key->vrf_id != fi->bgp->vrf_id || g->prev_key)
			continue;
		groups++;
		g->ahead_due = true;
		frr_each (fare_nhg_members, &g->routes, r) {
			struct bgp_dest *dest = (struct bgp_dest *)r->dest;

			if (r->bgp != fi->bgp || r->sent_group != g || r->want)
				continue;
			best = fare_dest_selected(dest);
			if (!best || !fare_nhg_paths_sorted(dest, best))
				continue;
			/* The group's routes share its next hops, so the first
			 * one bgpd would send as it is decides: a group over
			 * no peer due a refresh has no more of its routes
			 * walked (walking the 175,000 routes of the groups a
			 * link does not carry, the spine of scripts/bench.sh
			 * spine changed its kernel 163 to 271 ms after the
			 * link's bandwidth; 50 ms without)
			 */
			if (all || fare_dest_due_refresh(fi, dest))
				probes[n++] = r;
			break;
		}
	}
	for (i = 0; i < n; i++) {
		struct bgp_dest *dest = (struct bgp_dest *)probes[i]->dest;
		uint64_t replaced;

		/* may free the record (no longer weighted by FARE); a group
		 * goes only once the events at hand are handled
		 */
		g = probes[i]->group;
		replaced = g->replaced;
		bgp_zebra_announce_actual(dest, fare_dest_selected(dest), fi->bgp);
		if (g->replaced != replaced)
			g->replaced_early++;
	}
	XFREE(MTYPE_TMP, probes);
	fare_nhg_settle_later(); /* the marks go with the pass */
	if (FARE_DEBUG && groups)
		zlog_debug("FARE: %s: %u of %u nexthop group(s) re-evaluated ahead of their routes",
			   fi->bgp->name_pretty, n, groups);
}

void fare_nhg_instance_changed(struct fare_instance *fi)
{
	fare_instance_refresh_later(fi, fi->nhg ? "nexthop groups on" : "nexthop groups off");
}

/* an instance goes: its routes' records with it */
static void fare_nhg_instance_free(struct fare_instance *fi)
{
	struct fare_nhg_route *r;

	frr_each_safe (fare_nhg_routes, &fare_nhg_routes, r)
		if (r->bgp == fi->bgp)
			fare_nhg_route_free(r);
}

void fare_nhg_zebra_connected(void)
{
	fare_nhg_connection_check();
}

uint32_t fare_nhg_dest_group(const struct bgp_dest *dest)
{
	struct fare_nhg_route *r = fare_nhg_route_find(dest);

	return r && r->sent_group ? r->sent_group->id : 0;
}

bool fare_nhg_supported(void)
{
	return true;
}

void fare_nhg_walk(vrf_id_t vrf_id, fare_nhg_group_fn fn, void *arg)
{
	struct fare_nhg *g;

	frr_each (fare_nhgs, &fare_nhgs, g)
		if (g->key->vrf_id == vrf_id && g->installed)
			fn(g->id, fare_nhg_users(g), g->installs, g->key, arg);
}

static void fare_nhg_member_str(const struct fare_nhg_member *m, char *buf, size_t len)
{
	inet_ntop(m->family == FARE_NHG_IPV4 ? AF_INET : AF_INET6, m->gate, buf, len);
}

void fare_nhg_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	json_object *jgroups = NULL, *jg, *jms, *jm;
	struct fare_nhg *g;
	char addr[INET6_ADDRSTRLEN];
	uint16_t i;
	uint32_t n = 0;

	if (json) {
		json_object_boolean_add(json, "enabled", fi->nhg);
		jgroups = json_object_new_array();
		json_object_object_add(json, "groups", jgroups);
	} else {
		vty_out(vty, "Nexthop groups: %s\n", fi->nhg ? "on" : "off");
	}
	frr_each (fare_nhgs, &fare_nhgs, g) {
		if (g->key->vrf_id != fi->bgp->vrf_id)
			continue;
		n++;
		if (json) {
			jg = json_object_new_object();
			json_object_int_add(jg, "id", g->id);
			json_object_int_add(jg, "prefixes", fare_nhg_users(g));
			json_object_int_add(jg, "replacedInPlace", g->replaced);
			json_object_int_add(jg, "replacedBeforePass", g->replaced_early);
			json_object_boolean_add(jg, "installed", g->installed);
			jms = json_object_new_array();
			for (i = 0; i < g->key->n; i++) {
				struct interface *ifp = if_lookup_by_index(g->key->m[i].ifindex,
									   g->key->m[i].vrf_id);

				fare_nhg_member_str(&g->key->m[i], addr, sizeof(addr));
				jm = json_object_new_object();
				json_object_string_add(jm, "nexthop", addr);
				json_object_string_add(jm, "interface", ifp ? ifp->name : "unknown");
				json_object_int_add(jm, "weight", g->key->m[i].weight);
				json_object_array_add(jms, jm);
			}
			json_object_object_add(jg, "members", jms);
			json_object_array_add(jgroups, jg);
			continue;
		}
		vty_out(vty,
			"  Group %u: %u prefix(es), replaced in place %" PRIu64 " time(s), %" PRIu64
			" before bgpd's pass\n",
			g->id, fare_nhg_users(g), g->replaced, g->replaced_early);
		for (i = 0; i < g->key->n; i++) {
			struct interface *ifp = if_lookup_by_index(g->key->m[i].ifindex,
								   g->key->m[i].vrf_id);

			fare_nhg_member_str(&g->key->m[i], addr, sizeof(addr));
			vty_out(vty, "    %s via %s weight %u\n", addr, ifp ? ifp->name : "unknown",
				g->key->m[i].weight);
		}
	}
	if (json)
		json_object_int_add(json, "count", n);
	else
		vty_out(vty, "  %u group(s)\n", n);
}

void fare_nhg_init(void)
{
	fare_nhgs_init(&fare_nhgs);
	fare_nhg_routes_init(&fare_nhg_routes);
	fare_nhg_pending_init(&fare_nhg_pending);
	hook_register(bgp_zebra_route_nhg, fare_nhg_route_announce);
	hook_register(bgp_zebra_route_withdrawn, fare_nhg_route_withdrawn);
}

void fare_nhg_fini(void)
{
	struct fare_nhg_route *r;
	struct fare_nhg *g;

	event_cancel(&t_settle);
	while ((r = fare_nhg_routes_pop(&fare_nhg_routes))) {
		XFREE(MTYPE_FARE_NHG_KEY, r->want);
		fare_nhg_route_unlink(r);
		XFREE(MTYPE_FARE_NHG_ROUTE, r);
	}
	while ((g = fare_nhgs_pop(&fare_nhgs))) {
		fare_nhg_members_fini(&g->routes);
		XFREE(MTYPE_FARE_NHG_KEY, g->key);
		XFREE(MTYPE_FARE_NHG_KEY, g->prev_key);
		XFREE(MTYPE_FARE_NHG, g);
	}
	fare_nhgs_fini(&fare_nhgs);
	fare_nhg_routes_fini(&fare_nhg_routes);
}

#else /* !FARE_HAVE_NHG: bgpd without patch 0021 */

void fare_nhg_init(void)
{
}

void fare_nhg_fini(void)
{
}

void fare_nhg_instance_changed(struct fare_instance *fi)
{
}

static void fare_nhg_instance_free(struct fare_instance *fi)
{
}

void fare_nhg_zebra_connected(void)
{
}

void fare_nhg_dest_selected(struct bgp_dest *dest)
{
}

uint32_t fare_nhg_dest_group(const struct bgp_dest *dest)
{
	return 0;
}

bool fare_nhg_supported(void)
{
	return false;
}

void fare_nhg_walk(vrf_id_t vrf_id, fare_nhg_group_fn fn, void *arg)
{
}

void fare_nhg_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	if (json)
		json_object_boolean_add(json, "enabled", false);
	else
		vty_out(vty, "Nexthop groups: not supported by this bgpd\n");
}

#endif /* FARE_HAVE_NHG */

const struct fare_feature fare_nhg_feature = {
	.name = "nexthop groups",
	.instance_free = fare_nhg_instance_free,
#ifdef FARE_HAVE_NHG
	.refresh_due = fare_nhg_refresh_due,
#endif
};
