// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP's routes per remote group (EE-4), counted as
 * destinations are selected: the counts "show bgp fare ecmp-groups"
 * shows, and the remote groups no route carries any more, which leave
 * the map. Calls down into bgp_fare_ecmp.c's GroupID reading and the
 * instance's routes.
 */
#include <zebra.h>

#include "jhash.h"
#include "memory.h"
#include "prefix.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_ecmp.h"

DEFINE_MTYPE_STATIC(FARE, FARE_ECMP_COUNT, "FARE Enhanced ECMP routes per group");

/* EE-4: a destination's remote group, and the routes per remote group
 * (fare_ecmp_dest_changed()), each with its destinations: those to
 * install anew when the balance moves the group
 */
PREDECL_DLIST(fare_ecmp_group_dests);

struct fare_ecmp_dest {
	struct fare_ecmp_dests_item item;
	struct fare_ecmp_group_dests_item in_group;
	struct bgp_dest *dest; /* locked while counted */
	struct fare_ecmp_key key;
};

DECLARE_DLIST(fare_ecmp_group_dests, struct fare_ecmp_dest, in_group);

struct fare_ecmp_count {
	struct fare_ecmp_counts_item item;
	struct fare_ecmp_key key;
	struct fare_ecmp_group_dests_head dests; /* its routes, counted */
};

/* every destination counted, each record also on its destination
 * (fare_dest_records)
 */
DECLARE_DLIST(fare_ecmp_dests, struct fare_ecmp_dest, item);

static int fare_ecmp_count_cmp(const struct fare_ecmp_count *a, const struct fare_ecmp_count *b)
{
	return fare_ecmp_key_cmp(a->key, b->key);
}

static uint32_t fare_ecmp_count_hash(const struct fare_ecmp_count *c)
{
	return jhash_2words(c->key.router_id, c->key.group_id, 0x45452d34);
}

DECLARE_HASH(fare_ecmp_counts, struct fare_ecmp_count, item, fare_ecmp_count_cmp,
	     fare_ecmp_count_hash);

/* EE-4: the routes of each remote group are counted as they change
 * (fare_ecmp_dest_changed() when a route's weights go to zebra,
 * fare_ecmp_dest_selected() when its selected path goes): a show reads
 * the counts, and a remote group no route carries any more
 * leaves the map (which may move one other group to keep the balance)
 * once the events at hand are handled. Counted while the map exists:
 * one walk of the instance's routes when it is made, or when the GroupID
 * sub-type changes (which routes carry one).
 */

static struct fare_ecmp_count *fare_ecmp_count_find(struct fare_instance *fi,
						    struct fare_ecmp_key key)
{
	struct fare_ecmp_count ref = { .key = key };

	return fare_ecmp_counts_find(&fi->ecmp->counts, &ref);
}

/* The remote group a destination's route is counted under: its selected
 * path's GroupID (EE-3), for a route not originated here. At a selection
 * (bgp_route_selected) bgpd's flag still marks the path selected before
 * it: one withdrawn or no longer valid counts no more, and the new one,
 * if any, is counted when its weights go to zebra.
 */
static bool fare_ecmp_dest_key(struct fare_instance *fi, const struct bgp_dest *dest,
			       struct fare_ecmp_key *key)
{
	struct bgp_path_info *best = fare_dest_selected((struct bgp_dest *)dest);
	struct fare_groupid gid;

	if (!best || CHECK_FLAG(best->flags, BGP_PATH_REMOVED) ||
	    !CHECK_FLAG(best->flags, BGP_PATH_VALID) || fare_route_is_local(fi->bgp, best) ||
	    !fare_ecmp_route_groupid(fi, best->attr, &gid))
		return false;
	*key = (struct fare_ecmp_key){ .router_id = gid.router_id, .group_id = gid.group_id };
	return true;
}

/* The remote groups the balance moved while groups left the map. */
struct fare_ecmp_moved {
	struct fare_ecmp_key *keys;
	size_t n, cap;
};

static void fare_ecmp_moved_cb(void *arg, struct fare_ecmp_key key, uint32_t from, uint32_t to)
{
	struct fare_ecmp_moved *moved = arg;

	if (moved->n == moved->cap) {
		moved->cap = moved->cap ? 2 * moved->cap : 8;
		moved->keys = XREALLOC(MTYPE_FARE_ECMP_COUNT, moved->keys,
				       moved->cap * sizeof(*moved->keys));
	}
	moved->keys[moved->n++] = key;
}

/* The routes of the remote groups that moved, installed anew (EE-4):
 * from each group's own destinations (bgp_process() only queues them)
 */
static unsigned long fare_ecmp_moved_reprocess(struct fare_instance *fi,
					       const struct fare_ecmp_moved *moved)
{
	struct fare_ecmp_dest *d;
	unsigned long count = 0;
	size_t i;

	for (i = 0; i < moved->n; i++) {
		struct fare_ecmp_count *c = fare_ecmp_count_find(fi, moved->keys[i]);

		if (!c)
			continue;
		frr_each (fare_ecmp_group_dests, &c->dests, d) {
			struct bgp_path_info *best = fare_dest_selected(d->dest);

			if (!best || bgp_dest_table(d->dest)->safi != SAFI_UNICAST)
				continue;
			fare_dest_reprocess(fi->bgp, d->dest, best);
			fi->counters.reevaluated_routes++;
			count++;
		}
	}
	return count;
}

/* Groups no route carries any more leave the map. A removal moves at
 * most one other group, and only when the balance needs it (EE-4): the
 * routes of the groups that moved are installed anew, no other (during
 * a cold start groups come and go by the hundred, and re-evaluating
 * every route each time cost more than the rest of the start). Each
 * count keeps its destinations, so no table walk looks for those routes;
 * the groups gone within FARE_ECMP_GONE_DELAY_MS of the first leave
 * together.
 */
static void fare_ecmp_gone_event(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);
	struct fare_ecmp_moved moved = {};
	size_t i;

	if (fi->ecmp->map)
		fare_ecmp_map_set_move_cb(fi->ecmp->map, fare_ecmp_moved_cb, &moved);
	for (i = 0; i < fi->ecmp->n_gone; i++) {
		struct fare_ecmp_key key = fi->ecmp->gone[i];

		/* a route of the group came back meanwhile */
		if (!fi->ecmp->map || fare_ecmp_count_find(fi, key))
			continue;
		if (!fare_ecmp_map_remove(fi->ecmp->map, key))
			continue;
		if (FARE_DEBUG)
			zlog_debug("FARE: %s: remote ECMP group %u.%u.%u.%u:%u gone (EE-4)",
				   fi->bgp->name_pretty, key.router_id >> 24,
				   (key.router_id >> 16) & 0xff, (key.router_id >> 8) & 0xff,
				   key.router_id & 0xff, key.group_id);
	}
	if (fi->ecmp->map)
		fare_ecmp_map_set_move_cb(fi->ecmp->map, NULL, NULL);
	fi->ecmp->n_gone = 0;
	if (moved.n) {
		unsigned long count;

		fare_state_changed(); /* no result computed before is reused */
		count = fare_ecmp_moved_reprocess(fi, &moved);
		if (FARE_DEBUG)
			zlog_debug("FARE: %s: %zu remote ECMP group(s) moved for the balance, %lu route(s) re-evaluated (EE-4)",
				   fi->bgp->name_pretty, moved.n, count);
	}
	XFREE(MTYPE_FARE_ECMP_COUNT, moved.keys);
}

/* how long groups gone gather before they leave the map together (table
 * walks for them were 3 % of the CPU samples of the ingress leaf of
 * scripts/bench.sh spine when each group went at once)
 */
#define FARE_ECMP_GONE_DELAY_MS 100

/* a remote group that may have no route any more: looked at later */
static void fare_ecmp_gone_add(struct fare_instance *fi, struct fare_ecmp_key key)
{
	struct fare_ecmp_state *st = fi->ecmp;

	if (st->n_gone == st->cap_gone) {
		st->cap_gone = st->cap_gone ? 2 * st->cap_gone : 8;
		st->gone = XREALLOC(MTYPE_FARE_ECMP_COUNT, st->gone,
				    st->cap_gone * sizeof(*st->gone));
	}
	st->gone[st->n_gone++] = key;
	event_add_timer_msec(bm->master, fare_ecmp_gone_event, fi, FARE_ECMP_GONE_DELAY_MS,
			     &st->t_gone);
}

void fare_ecmp_gone_check(struct fare_instance *fi, struct fare_ecmp_key key)
{
	if (fi->ecmp->counted && !fare_ecmp_count_find(fi, key))
		fare_ecmp_gone_add(fi, key);
}

/* a counted destination joins its group's count */
static void fare_ecmp_count_join(struct fare_instance *fi, struct fare_ecmp_dest *d)
{
	struct fare_ecmp_count *c = fare_ecmp_count_find(fi, d->key);

	if (!c) {
		c = XCALLOC(MTYPE_FARE_ECMP_COUNT, sizeof(*c));
		c->key = d->key;
		fare_ecmp_group_dests_init(&c->dests);
		fare_ecmp_counts_add(&fi->ecmp->counts, c);
	}
	fare_ecmp_group_dests_add_tail(&c->dests, d);
}

/* ... and leaves it: a group left with no route may leave the map */
static void fare_ecmp_count_leave(struct fare_instance *fi, struct fare_ecmp_dest *d)
{
	struct fare_ecmp_count *c = fare_ecmp_count_find(fi, d->key);

	fare_ecmp_group_dests_del(&c->dests, d);
	if (fare_ecmp_group_dests_count(&c->dests))
		return;
	fare_ecmp_group_dests_fini(&c->dests);
	fare_ecmp_counts_del(&fi->ecmp->counts, c);
	XFREE(MTYPE_FARE_ECMP_COUNT, c);
	fare_ecmp_gone_add(fi, d->key);
}

/* The destination is counted no more (counted out of its group first) */
static void fare_ecmp_dest_free(struct fare_instance *fi, struct fare_ecmp_dest *d)
{
	fare_ecmp_dests_del(&fi->ecmp->dests, d);
	fare_dest_records(d->dest)->ecmp_dest = NULL;
	fare_dest_records_put(d->dest);
	bgp_dest_unlock_node(d->dest);
	XFREE(MTYPE_FARE_ECMP_COUNT, d);
}

/* EE-4: a destination's paths were selected anew (or withdrawn): its
 * route moves between remote groups' counts.
 */
void fare_ecmp_dest_changed(struct fare_instance *fi, const struct bgp_dest *dest)
{
	struct fare_dest_records *rec;
	struct fare_ecmp_dest *d;
	struct fare_ecmp_key key;
	bool has;

	if (!fi->ecmp->counted)
		return;
	has = fare_ecmp_dest_key(fi, dest, &key);
	rec = fare_dest_records(dest);
	d = rec ? rec->ecmp_dest : NULL;
	if (!d && !has)
		return;
	if (d && has && !fare_ecmp_key_cmp(d->key, key))
		return;
	if (d) {
		fare_ecmp_count_leave(fi, d);
		if (!has) {
			fare_ecmp_dest_free(fi, d);
			return;
		}
	} else {
		d = XCALLOC(MTYPE_FARE_ECMP_COUNT, sizeof(*d));
		d->dest = bgp_dest_lock_node((struct bgp_dest *)dest);
		fare_dest_records_get(d->dest)->ecmp_dest = d;
		fare_ecmp_dests_add_tail(&fi->ecmp->dests, d);
	}
	d->key = key;
	fare_ecmp_count_join(fi, d);
}

/* At a selection (bgp_route_selected) only a route that goes is counted
 * out: the path selected before, which still carries bgpd's flag, was
 * withdrawn or is no longer valid. A route whose selected path stays
 * valid is counted (under its new path's GroupID, if it changed) when
 * its weights go to zebra, just after: the common case, one more path
 * of a destination, needs no lookup here. A destination selected for
 * the first time was never counted.
 */
void fare_ecmp_dest_selected(struct fare_instance *fi, const struct bgp_dest *dest)
{
	struct bgp_path_info *before = fare_dest_selected((struct bgp_dest *)dest);

	if (!fi->ecmp->counted || !before ||
	    (!CHECK_FLAG(before->flags, BGP_PATH_REMOVED) &&
	     CHECK_FLAG(before->flags, BGP_PATH_VALID)))
		return;
	fare_ecmp_dest_changed(fi, dest);
}

void fare_ecmp_counts_clear(struct fare_instance *fi)
{
	struct fare_ecmp_dest *d;
	struct fare_ecmp_count *c;

	while ((c = fare_ecmp_counts_pop(&fi->ecmp->counts))) {
		while (fare_ecmp_group_dests_pop(&c->dests))
			;
		fare_ecmp_group_dests_fini(&c->dests);
		XFREE(MTYPE_FARE_ECMP_COUNT, c);
	}
	while ((d = fare_ecmp_dests_first(&fi->ecmp->dests)))
		fare_ecmp_dest_free(fi, d);
	event_cancel(&fi->ecmp->t_gone);
	XFREE(MTYPE_FARE_ECMP_COUNT, fi->ecmp->gone);
	fi->ecmp->n_gone = fi->ecmp->cap_gone = 0;
	fi->ecmp->counted = false;
}

static void fare_ecmp_count_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	fare_ecmp_dest_changed(arg, dest);
}

/* every route counted anew; groups of the map no route carries go */
void fare_ecmp_counts_build(struct fare_instance *fi)
{
	struct fare_ecmp_map_entry *entries;
	size_t n, i;

	fare_ecmp_counts_clear(fi);
	fi->ecmp->counted = true;
	fare_unicast_walk(fi->bgp, AFI_UNSPEC, fare_ecmp_count_dest, fi);
	n = fi->ecmp->map ? fare_ecmp_map_count(fi->ecmp->map) : 0;
	if (!n)
		return;
	entries = XCALLOC(MTYPE_FARE_ECMP_COUNT, n * sizeof(*entries));
	fare_ecmp_map_dump(fi->ecmp->map, entries, n);
	for (i = 0; i < n; i++)
		if (entries[i].present)
			fare_ecmp_gone_check(fi, entries[i].key);
	XFREE(MTYPE_FARE_ECMP_COUNT, entries);
}

/* Routes per remote group, for "show bgp fare ecmp-groups". */
uint32_t fare_ecmp_count_prefixes(struct fare_instance *fi, struct fare_ecmp_key key)
{
	struct fare_ecmp_count *c = fare_ecmp_count_find(fi, key);

	return c ? fare_ecmp_group_dests_count(&c->dests) : 0;
}

void fare_ecmp_count_state_init(struct fare_instance *fi)
{
	fare_ecmp_dests_init(&fi->ecmp->dests);
	fare_ecmp_counts_init(&fi->ecmp->counts);
}

void fare_ecmp_count_state_fini(struct fare_instance *fi)
{
	fare_ecmp_counts_clear(fi);
	fare_ecmp_dests_fini(&fi->ecmp->dests);
	fare_ecmp_counts_fini(&fi->ecmp->counts);
}
