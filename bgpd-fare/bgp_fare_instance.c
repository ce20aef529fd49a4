// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the record of each BGP instance FARE is configured in, the
 * features registered with the module, the deferred re-evaluation of an
 * instance's routes, and the walk of its unicast tables. Calls down into
 * bgp_fare_peer.c only (and into the features through their tables).
 */
#include <zebra.h>

#include "jhash.h"
#include "linklist.h"
#include "memory.h"
#include "plist.h"
#include "prefix.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_addpath.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_eval.h"

DEFINE_MGROUP(FARE, "bgpd FARE");
DEFINE_MTYPE_STATIC(FARE, FARE_INSTANCE, "FARE instance");
DEFINE_MTYPE_STATIC(FARE, FARE_MULTIHOMING, "FARE multihoming prefix-list");
DEFINE_MTYPE_STATIC(FARE, FARE_ANNOUNCE_FULL, "FARE sub-groups to build in full");
DEFINE_MTYPE_STATIC(FARE, FARE_DEST_RECORDS, "FARE records of a destination");

uint32_t fare_zebra_weight_max;
unsigned long fare_debug;

static struct fare_instances_head fare_instances;

/* ------------------------------------------------------------------ */
/* Features                                                             */
/* ------------------------------------------------------------------ */

#define FARE_FEATURES_MAX 8

static const struct fare_feature *fare_features[FARE_FEATURES_MAX];
static size_t fare_n_features;

void fare_feature_register(const struct fare_feature *feature)
{
	assert(fare_n_features < FARE_FEATURES_MAX);
	fare_features[fare_n_features++] = feature;
}

#define FARE_FEATURES_CALL(op, ...)                                                                \
	do {                                                                                       \
		size_t i_;                                                                         \
		for (i_ = 0; i_ < fare_n_features; i_++)                                           \
			if (fare_features[i_]->op)                                                 \
				fare_features[i_]->op(__VA_ARGS__);                                \
	} while (0)

const bool *fare_features_prefix_restrict(struct fare_instance *fi, struct bgp_path_info *best,
					  struct fare_prefix *fp)
{
	const bool *restrict_to = NULL;
	size_t i;

	for (i = 0; i < fare_n_features && !restrict_to; i++)
		if (fare_features[i]->prefix_restrict)
			restrict_to = fare_features[i]->prefix_restrict(fi, best, fp);
	return restrict_to;
}

void fare_features_prefix_evaluated(struct fare_instance *fi, struct bgp_path_info *best,
				    struct fare_prefix *fp)
{
	FARE_FEATURES_CALL(prefix_evaluated, fi, best, fp);
}

void fare_features_dest_selected(struct fare_instance *fi, const struct bgp_dest *dest)
{
	FARE_FEATURES_CALL(dest_selected, fi, dest);
}

void fare_features_dest_changed(struct fare_instance *fi, const struct bgp_dest *dest)
{
	FARE_FEATURES_CALL(dest_changed, fi, dest);
}

void fare_features_peer_up(struct fare_instance *fi, struct peer *peer)
{
	FARE_FEATURES_CALL(peer_up, fi, peer);
}

void fare_features_config_write(struct vty *vty, struct fare_instance *fi)
{
	FARE_FEATURES_CALL(config_write, vty, fi);
}

/* ------------------------------------------------------------------ */
/* Instances                                                            */
/* ------------------------------------------------------------------ */

void fare_instance_module_init(void)
{
	fare_instances_init(&fare_instances);
}

struct fare_instances_head *fare_instances_head(void)
{
	return &fare_instances;
}

size_t fare_instance_count(void)
{
	return fare_instances_count(&fare_instances);
}

/* the instance found last: bgpd's hooks ask per route and per path,
 * nearly always for the same instance
 */
static struct fare_instance *fare_instance_last;

struct fare_instance *fare_instance_find(const struct bgp *bgp)
{
	struct fare_instance key = { .bgp = (struct bgp *)bgp };
	struct fare_instance *fi;

	if (fare_instance_last && fare_instance_last->bgp == bgp)
		return fare_instance_last;
	fi = fare_instances_find(&fare_instances, &key);
	if (fi)
		fare_instance_last = fi;
	return fi;
}

static void fare_multihoming_free(void *arg)
{
	struct fare_multihoming *mh = arg;

	XFREE(MTYPE_FARE_MULTIHOMING, mh->plist);
	XFREE(MTYPE_FARE_MULTIHOMING, mh);
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
	fare_peer_records_init(fi);
	fi->multihoming = list_new();
	fi->multihoming->del = fare_multihoming_free;
	FARE_FEATURES_CALL(instance_new, fi);
	fare_instances_add(&fare_instances, fi);
	if (fi->subtype != FARE_PATHBW_SUBTYPE_DEFAULT || fare_instance_count() > 1)
		fare_display_refresh();
	return fi;
}

static void fare_instance_free(struct fare_instance *fi)
{
	event_cancel(&fi->t_refresh);
	event_cancel(&fi->t_session_settle);
	event_cancel(&fi->t_announce);
	event_cancel(&fi->t_refresh_step);
	XFREE(MTYPE_FARE_ANNOUNCE_FULL, fi->announce_full);
	fare_peer_records_fini(fi);
	FARE_FEATURES_CALL(instance_free, fi);
	fare_out_sets_free(fi);
	fare_state_changed();
	fare_instances_del(&fare_instances, fi);
	if (fare_instance_last == fi)
		fare_instance_last = NULL;
	list_delete(&fi->multihoming);
	XFREE(MTYPE_FARE_INSTANCE, fi);
}

void fare_instance_delete(struct bgp *bgp)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	/* the attributes the results shared by prefixes hold, released */
	fare_results_shared_flush();
	if (fi)
		fare_instance_free(fi);
}

void fare_instance_module_fini(void)
{
	struct fare_instance *fi;

	while ((fi = fare_instances_first(&fare_instances)))
		fare_instance_free(fi);
	fare_instances_fini(&fare_instances);
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
		mh = XCALLOC(MTYPE_FARE_MULTIHOMING, sizeof(*mh));
		mh->plist = XSTRDUP(MTYPE_FARE_MULTIHOMING, plist);
		listnode_add(fi->multihoming, mh);
	}
	mh->factor = factor;
}

/* FARE-6: the factor of the first multihoming prefix-list that permits p */
uint32_t fare_multihoming_factor(struct fare_instance *fi, const struct prefix *p)
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

/* FRR's displays name a value as Path Bandwidth when its sub-type is the
 * one an instance uses (the default when FARE is not configured): the
 * displays are shared by all instances and kept with each interned
 * community, so a change refreshes them (fare_display_refresh()).
 */
bool fare_display_subtype(uint8_t subtype)
{
	struct fare_instance *fi;
	bool any = false;

	frr_each (fare_instances, &fare_instances, fi) {
		if (fi->subtype == subtype)
			return true;
		any = true;
	}
	/* without FARE configured, the default sub-type */
	return !any && subtype == FARE_PATHBW_SUBTYPE_DEFAULT;
}

void fare_display_refresh(void)
{
	ecommunity_refresh_display();
}

/* ------------------------------------------------------------------ */
/* Routes                                                               */
/* ------------------------------------------------------------------ */

struct bgp_path_info *fare_dest_selected(struct bgp_dest *dest)
{
	struct bgp_path_info *pi;

	for (pi = bgp_dest_get_bgp_path_info(dest); pi; pi = pi->next)
		if (CHECK_FLAG(pi->flags, BGP_PATH_SELECTED))
			return pi;
	return NULL;
}

struct fare_dest_records *fare_dest_records(const struct bgp_dest *dest)
{
	return dest->module_info;
}

struct fare_dest_records *fare_dest_records_get(struct bgp_dest *dest)
{
	if (!dest->module_info)
		dest->module_info = XCALLOC(MTYPE_FARE_DEST_RECORDS,
					    sizeof(struct fare_dest_records));
	return dest->module_info;
}

/* Called after a record left the holder, before its lock is given back */
void fare_dest_records_put(struct bgp_dest *dest)
{
	struct fare_dest_records *rec = dest->module_info;

	if (rec && !rec->nhg_route && !rec->ecmp_dest) {
		XFREE(MTYPE_FARE_DEST_RECORDS, rec);
		dest->module_info = NULL;
	}
}

/* The destination's best path and its multipaths, at most max, in the
 * order bgpd sends their next hops to zebra (patch 0023's
 * bgp_path_info_mpath_collect(): the best path, the multipaths after it,
 * then the valid ones bgp_process() of one path moved ahead of it until
 * the next selection), so that FARE's weights, by index, follow it.
 */
size_t fare_dest_mpaths(struct bgp_dest *dest, struct bgp_path_info *best,
			struct bgp_path_info **paths, size_t max)
{
	assert(!best || best->net == dest);
	return bgp_path_info_mpath_collect(best, paths, max);
}

/* Originated here (network, redistribute, aggregate), not received */
bool fare_route_is_local(struct bgp *bgp, struct bgp_path_info *pi)
{
	return pi->peer == bgp->peer_self || pi->type != ZEBRA_ROUTE_BGP ||
	       pi->sub_type != BGP_ROUTE_NORMAL;
}

bool fare_afi_safi(afi_t afi, safi_t safi)
{
	return (afi == AFI_IP || afi == AFI_IP6) && safi == SAFI_UNICAST;
}

/* The one walk of an instance's routes: each destination of its IPv4 and
 * IPv6 unicast tables (or of afi's only) that has a selected path, in
 * table order. A show of every prefix walks the same way, uncounted.
 */
void fare_unicast_walk_show(struct bgp *bgp, afi_t afi, fare_dest_fn fn, void *arg)
{
	afi_t a, first = afi == AFI_UNSPEC ? AFI_IP : afi, last = afi == AFI_UNSPEC ? AFI_IP6 : afi;
	struct bgp_dest *dest;

	for (a = first; a <= last; a++) {
		struct bgp_table *table = bgp->rib[a][SAFI_UNICAST];
		struct bgp_path_info *best;

		for (dest = table ? bgp_table_top(table) : NULL; dest; dest = bgp_route_next(dest)) {
			best = fare_dest_selected(dest);
			if (best)
				fn(dest, best, arg);
		}
	}
}

/* The same, counted (show: tableWalks): the module's own work over the
 * whole table, which only what changes for every route should need.
 */
void fare_unicast_walk(struct bgp *bgp, afi_t afi, fare_dest_fn fn, void *arg)
{
	struct fare_instance *fi = fare_instance_find(bgp);

	if (fi)
		fi->counters.table_walks++;
	fare_unicast_walk_show(bgp, afi, fn, arg);
}

/* ------------------------------------------------------------------ */
/* Re-evaluation                                                        */
/* ------------------------------------------------------------------ */

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

/* Whether one of the prefix's best and multipaths comes from a peer due a
 * refresh. The best path heads the destination's list only while the
 * list is as best-path selection sorted it: a path that arrived or was
 * marked unsorted since stands before it, and a multipath may too. So
 * every path is looked at, by its flags, whatever its place.
 */
static bool fare_dest_paths_due(struct fare_instance *fi, struct bgp_dest *dest, bool in_pass)
{
	struct bgp_path_info *pi;

	for (pi = bgp_dest_get_bgp_path_info(dest); pi; pi = pi->next) {
		if (!CHECK_FLAG(pi->flags, BGP_PATH_SELECTED | BGP_PATH_MULTIPATH))
			continue;
		if (in_pass ? fare_peer_in_refresh(fi, pi->peer)
			    : fare_peer_due_refresh(fi, pi->peer))
			return true;
	}
	return false;
}

bool fare_dest_due_refresh(struct fare_instance *fi, struct bgp_dest *dest)
{
	return fare_dest_paths_due(fi, dest, false);
}

/* A destination's paths processed again (weights to zebra, values to
 * peers), as if its selected path had changed.
 */
void fare_dest_reprocess(struct bgp *bgp, struct bgp_dest *dest, struct bgp_path_info *best)
{
	bgp_path_info_set_flag(dest, best, BGP_PATH_ATTR_CHANGED);
	bgp_process(bgp, dest, best, bgp_dest_table(dest)->afi, SAFI_UNICAST);
}

/* Walks on from where `pass` stopped, calling fn for each destination
 * with a selected path, for at most FARE_PASS_BUDGET_US: whether the
 * tables of the pass's address families are done, else where to go on is
 * kept in `pass`. The place is kept as a prefix, so routes that come or
 * go between tasks are simply met or not (bgpd processes a new one
 * anyway).
 */
static bool fare_table_pass_run(struct bgp *bgp, struct fare_table_pass *pass, fare_dest_fn fn,
				void *arg)
{
	struct timeval start;
	unsigned int n = 0;

	monotime(&start);
	while (pass->afi <= pass->last_afi) {
		struct bgp_table *table = bgp->rib[pass->afi][SAFI_UNICAST];
		struct bgp_dest *dest = NULL;

		if (table)
			dest = pass->from_set ? bgp_table_get_next(table, &pass->from)
					      : bgp_table_top(table);
		for (; dest; dest = bgp_route_next(dest)) {
			struct bgp_path_info *best = fare_dest_selected(dest);

			if (best)
				fn(dest, best, arg);
			if (++n % FARE_PASS_CHECK == 0 &&
			    monotime_since(&start, NULL) >= FARE_PASS_BUDGET_US) {
				prefix_copy(&pass->from, bgp_dest_get_prefix(dest));
				pass->from_set = true;
				bgp_dest_unlock_node(dest);
				return false;
			}
		}
		pass->afi++;
		pass->from_set = false;
	}
	return true;
}

static void fare_table_pass_start(struct fare_table_pass *pass, afi_t first, afi_t last)
{
	pass->afi = first;
	pass->last_afi = last;
	pass->from_set = false;
}

static void fare_instance_refresh_event(struct event *event);
static void fare_refresh_step(struct event *event);
static void fare_announce_step(struct event *event);

static int fare_subgrp_mark_walkcb(struct update_group *updgrp, void *arg)
{
	struct fare_instance *fi = arg;
	struct update_subgroup *subgrp;

	UPDGRP_FOREACH_SUBGRP (updgrp, subgrp) {
		fi->announce_last_id = MAX(fi->announce_last_id, subgrp->id);
		if (update_subgroup_needs_refresh(subgrp)) {
			if (fi->announce_full_n == fi->announce_full_cap) {
				fi->announce_full_cap = MAX(8, 2 * fi->announce_full_cap);
				fi->announce_full =
					XREALLOC(MTYPE_FARE_ANNOUNCE_FULL, fi->announce_full,
						 fi->announce_full_cap * sizeof(*fi->announce_full));
			}
			fi->announce_full[fi->announce_full_n++] = subgrp->id;
		}
		update_subgroup_set_needs_refresh(subgrp, 1);
	}
	return UPDWALK_CONTINUE;
}

/* Whether the pass builds every route of the sub-group, this router's
 * own too: bgpd wanted it refreshed (its peer moved between
 * update-groups and took the routes built for the other one along),
 * before the pass began or, for one made since, now.
 */
static bool fare_announce_subgrp_full(struct fare_instance *fi, struct update_subgroup *subgrp)
{
	size_t i;

	if (subgrp->id > fi->announce_last_id)
		return update_subgroup_needs_refresh(subgrp);
	for (i = 0; i < fi->announce_full_n; i++)
		if (fi->announce_full[i] == subgrp->id)
			return true;
	return false;
}

/* The re-announcement's pass begins. Until the pass has built a
 * sub-group's routes, what the sub-group sent is not what its peers are
 * due, though bgpd's version of it is current: every sub-group is marked
 * as needing a refresh, as bgpd marks them when an outbound policy
 * changes, so that none merges with another (and its peers take the
 * other's state as theirs) before the pass is through it. The pass
 * clears the mark of each sub-group it is done with; bgpd clears it when
 * it builds a sub-group itself. Those bgpd had marked already are kept
 * apart (fare_announce_subgrp_full()).
 */
static void fare_announce_begin(struct fare_instance *fi)
{
	afi_t afi;

	fi->announce_full_n = 0;
	fi->announce_last_id = 0;
	for (afi = AFI_IP; afi <= AFI_IP6; afi++)
		update_group_af_walk(fi->bgp, afi, SAFI_UNICAST, fare_subgrp_mark_walkcb, fi);
	fi->announce_afi = AFI_IP;
	fi->announce_subgrp_id = 0;
	fi->announce_subgrp_begun = false;
	fi->announce_subgrps = fi->announce_tasks = 0;
	fi->counters.announce_passes++;
	event_add_event(bm->master, fare_announce_step, fi, 0, &fi->t_announce);
}

/* The re-evaluation's pass: each route through a peer due (or every
 * route) is processed again.
 */
static void fare_refresh_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	struct fare_instance *fi = arg;

	fi->refresh_walked++;
	if (fi->refresh_pass_upto_set &&
	    dest->version > fi->refresh_pass_upto[bgp_dest_table(dest)->afi])
		return;
	if (!fi->refresh_pass_all && !fare_dest_paths_due(fi, dest, true))
		return;
	fare_dest_reprocess(fi->bgp, dest, best);
	fi->refresh_count++;
	fi->counters.reevaluated_routes++;
}

static void fare_refresh_run(struct fare_instance *fi)
{
	fi->refresh_tasks++;
	if (!fare_table_pass_run(fi->bgp, &fi->refresh_pass, fare_refresh_dest, fi)) {
		event_add_event(bm->master, fare_refresh_step, fi, 0, &fi->t_refresh_step);
		return;
	}
	fare_peers_refresh_end(fi);
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: %s, %lu of %lu route(s) re-evaluated in %u task(s)",
			   fi->bgp->name_pretty, fi->refresh_pass_why, fi->refresh_count,
			   fi->refresh_walked, fi->refresh_tasks);
	/* asked for during the pass: the next one */
	if (fi->refresh_all || fi->announce_pending || fare_peers_due_refresh(fi))
		event_add_event(bm->master, fare_instance_refresh_event, fi, 0, &fi->t_refresh);
}

static void fare_refresh_step(struct event *event)
{
	fare_refresh_run(EVENT_ARG(event));
}

/* The update sub-group with the lowest id from f->from on. */
struct fare_subgrp_find {
	uint64_t from;
	struct update_subgroup *found;
};

static int fare_subgrp_find_walkcb(struct update_group *updgrp, void *arg)
{
	struct fare_subgrp_find *f = arg;
	struct update_subgroup *subgrp;

	UPDGRP_FOREACH_SUBGRP (updgrp, subgrp)
		if (subgrp->id >= f->from && (!f->found || subgrp->id < f->found->id))
			f->found = subgrp;
	return UPDWALK_CONTINUE;
}

/* Whether the sub-group has the route announced (sent, or queued to be),
 * not withdrawn
 */
static bool fare_subgrp_announces(struct bgp_dest *dest, struct update_subgroup *subgrp,
				  uint32_t addpath_tx_id)
{
	struct bgp_adj_out lookup = { .subgroup = subgrp, .addpath_tx_id = addpath_tx_id };
	struct bgp_adj_out *adj = RB_FIND(bgp_adj_out_rb, &dest->adj_out, &lookup);

	if (!adj)
		return false;
	return adj->adv ? adj->adv->baa != NULL : adj->attr != NULL;
}

/* One destination of the pass, built for one sub-group as
 * subgroup_announce_table() builds it: the selected path through the
 * sub-group's outbound policy, sent if its attribute changed (bgpd
 * drops a duplicate). A route of this router's own (network,
 * redistributed, aggregate) that the sub-group announces already is
 * left: it carries the line rate of the session's link (WP-1), which N
 * does not change, so its attribute is the one announced. Not in a
 * sub-group built in full (fare_announce_subgrp_full()). A session
 * that flaps in a settled fabric no longer has an origin router build
 * all its own routes again for each sub-group; at a cold start the
 * sub-groups a pass goes through are mostly new or marked, and get them
 * (scripts/bench.sh spine: no saving there).
 */
struct fare_announce_arg {
	struct fare_instance *fi;
	struct update_subgroup *subgrp;
	bool full;
};

static void fare_announce_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	struct fare_announce_arg *a = arg;
	struct update_subgroup *subgrp = a->subgrp;
	struct peer *peer = SUBGRP_PEER(subgrp);
	afi_t afi = SUBGRP_AFI(subgrp);
	struct bgp_path_info *pi;

	if (!a->full && fare_route_is_local(peer->bgp, best) &&
	    fare_subgrp_announces(dest, subgrp,
				  bgp_addpath_id_for_peer(peer, afi, SAFI_UNICAST,
							  &best->tx_addpath)))
		return;
	/* a default route the session originates is not the table's */
	if (CHECK_FLAG(peer->af_flags[afi][SAFI_UNICAST], PEER_FLAG_DEFAULT_ORIGINATE) &&
	    is_default_prefix(bgp_dest_get_prefix(dest)))
		return;
	for (pi = bgp_dest_get_bgp_path_info(dest); pi; pi = pi->next)
		if (CHECK_FLAG(pi->flags, BGP_PATH_SELECTED) &&
		    bgp_check_selected(pi, peer, false, afi, SAFI_UNICAST)) {
			a->fi->counters.announce_routes++;
			subgroup_process_announce_selected(subgrp, pi, dest, afi, SAFI_UNICAST,
							   bgp_addpath_id_for_peer(peer, afi,
										   SAFI_UNICAST,
										   &pi->tx_addpath));
		}
}

/* Whether bgpd must build the sub-group's routes itself, in one go: its
 * first announcement still waits for the coalesce timer, a forced update
 * (no duplicate suppressed) is asked for, or add-path sends it more than
 * the selected paths.
 */
static bool fare_subgrp_whole(struct update_subgroup *subgrp)
{
	return subgrp->v_coalesce || CHECK_FLAG(subgrp->sflags, SUBGRP_STATUS_FORCE_UPDATES) ||
	       bgp_addpath_encode_tx(SUBGRP_PEER(subgrp), SUBGRP_AFI(subgrp), SUBGRP_SAFI(subgrp));
}

/* The pass goes through the update sub-groups in order of id (ids only
 * grow, so a sub-group made during the pass is not missed, and none is
 * kept by pointer across tasks), each through the table in tasks of at
 * most FARE_PASS_BUDGET_US, one route at a time as bgpd sends a route it
 * processed. A sub-group that went away between tasks is left; one made
 * since gets the routes from bgpd. The pass does not interleave the
 * sub-groups: one task per destination for every sub-group at once
 * cost the ingress leaf of scripts/bench.sh spine 35 % more CPU at a
 * cold start and doubled the time a session reset took to converge.
 */
static void fare_announce_step(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);

	fi->announce_tasks++;
	while (fi->announce_afi <= AFI_IP6) {
		struct fare_subgrp_find f = { .from = fi->announce_subgrp_id };
		struct update_subgroup *subgrp;

		update_group_af_walk(fi->bgp, fi->announce_afi, SAFI_UNICAST,
				     fare_subgrp_find_walkcb, &f);
		subgrp = f.found;
		if (!subgrp) {
			fi->announce_afi++;
			fi->announce_subgrp_id = 0;
			fi->announce_subgrp_begun = false;
			continue;
		}
		if (subgrp->id != fi->announce_subgrp_id || !fi->announce_subgrp_begun) {
			fi->announce_subgrp_id = subgrp->id;
			fi->announce_subgrp_begun = true;
			fi->announce_subgrps++;
			if (fare_subgrp_whole(subgrp)) {
				subgroup_announce_all(subgrp);
				fi->announce_subgrp_id = subgrp->id + 1;
				fi->announce_subgrp_begun = false;
				break;
			}
			fi->counters.announce_subgrps++;
			fi->announce_subgrp_full = fare_announce_subgrp_full(fi, subgrp);
			fare_table_pass_start(&fi->announce_pass, fi->announce_afi,
					      fi->announce_afi);
		}
		if (fare_table_pass_run(fi->bgp, &fi->announce_pass, fare_announce_dest,
					&(struct fare_announce_arg){
						.fi = fi,
						.subgrp = subgrp,
						.full = fi->announce_subgrp_full,
					})) {
			/* as after bgpd's own pass: it may merge now */
			update_subgroup_set_needs_refresh(subgrp, 0);
			update_subgroup_trigger_merge_check(subgrp, 0);
			fi->announce_subgrp_id = subgrp->id + 1;
			fi->announce_subgrp_begun = false;
		}
		break;
	}
	if (fi->announce_afi <= AFI_IP6) {
		event_add_event(bm->master, fare_announce_step, fi, 0, &fi->t_announce);
		return;
	}
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: routes re-announced to %u update sub-group(s) in %u task(s)",
			   fi->bgp->name_pretty, fi->announce_subgrps, fi->announce_tasks);
	if (fi->announce_again) {
		/* asked again during the pass: the sub-groups done before
		 * then are built anew
		 */
		fi->announce_again = false;
		fare_announce_begin(fi);
	}
}

/* Whether an update sub-group holds a route it was given (arg: bool) */
static int fare_subgrp_adj_walkcb(struct update_group *updgrp, void *arg)
{
	struct update_subgroup *subgrp;

	UPDGRP_FOREACH_SUBGRP (updgrp, subgrp)
		if (subgrp->adj_count) {
			*(bool *)arg = true;
			return UPDWALK_ABORT;
		}
	return UPDWALK_CONTINUE;
}

/* A sub-group the pass would have been through with nothing to send (no
 * route selected): as after the pass, it may merge with another.
 */
static int fare_subgrp_settle_walkcb(struct update_group *updgrp, void *arg)
{
	struct update_subgroup *subgrp;

	UPDGRP_FOREACH_SUBGRP (updgrp, subgrp) {
		if (fare_subgrp_whole(subgrp))
			continue;
		update_subgroup_set_needs_refresh(subgrp, 0);
		update_subgroup_trigger_merge_check(subgrp, 0);
	}
	return UPDWALK_CONTINUE;
}

/* bgpd's update-delay (its read-only mode after a start): no route it
 * received is selected yet and none is sent; when it ends, bgpd selects
 * them with the N of then. A pass now would walk the table once per
 * sub-group for nothing (at a cold start of scripts/bench.sh spine, 74
 * sub-groups of 200,000 prefixes: 1.4 s of bgpd's CPU). What the pass
 * leaves behind is still done: the sub-groups of peers that moved
 * between update-groups may merge, else bgpd announces each of them the
 * whole table at the end of the delay (one task of 5.8 s there). Routes
 * selected before the delay (this router's own, given to a sub-group
 * already) get the pass as ever: one may be in the sub-group of a peer
 * that moved between update-groups, built for the other one, and FRR
 * 10.3 does not announce them again at the delay's end. Whether no pass
 * is due.
 */
static bool fare_announce_update_delay(struct fare_instance *fi, const char *why)
{
	bool held = false;
	afi_t afi;

	if (!bgp_update_delay_active(fi->bgp))
		return false;
	for (afi = AFI_IP; afi <= AFI_IP6 && !held; afi++)
		update_group_af_walk(fi->bgp, afi, SAFI_UNICAST, fare_subgrp_adj_walkcb, &held);
	if (held)
		return false;
	for (afi = AFI_IP; afi <= AFI_IP6; afi++)
		update_group_af_walk(fi->bgp, afi, SAFI_UNICAST, fare_subgrp_settle_walkcb, NULL);
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: %s, no re-announcement: bgpd's update-delay is on, it announces the routes at its end",
			   fi->bgp->name_pretty, why);
	return true;
}

/* WP-2: the values sent to the peers changed, the weights installed did
 * not (N changed with a session): each update sub-group's routes are
 * built anew and those whose attribute changed are sent; zebra hears
 * nothing. In tasks (fare_announce_step()): in averaged mode every
 * session of a distinct link speed is a sub-group, and one task for all
 * of them held bgpd's main thread for 14 s at 200,000 prefixes and 64
 * sessions, one per sub-group 251 ms (scripts/bench.sh spine).
 */
static void fare_instance_announce(struct fare_instance *fi, const char *why)
{
	fi->counters.peer_only_refreshes++;
	if (fare_announce_update_delay(fi, why))
		return;
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: %s, routes re-announced to the peers, none to zebra",
			   fi->bgp->name_pretty, why);
	if (fi->t_announce) {
		fi->announce_again = true;
		return;
	}
	fare_announce_begin(fi);
}

/* Re-evaluate the routes of the instance (all of them, or those through
 * the peers marked for it): weights to zebra, values to peers. Used when
 * configuration, a link bandwidth or a hold-down changes.
 */
void fare_instance_refresh(struct fare_instance *fi, const char *why)
{
	bool all = fi->refresh_all;
	bool announce = fi->announce_pending && !all;
	bool due = fare_peers_due_refresh(fi);
	bool pass = !announce || due; /* else the peers hear the new values only */

	fi->refresh_all = false;
	fi->announce_pending = false;
	/* zebra first: the groups replaced ahead of their routes do not
	 * wait for bgpd to move peers between update-groups below (a peer
	 * that leaves a sub-group of others takes a copy of what it sent:
	 * tens of ms at 175,000 routes)
	 */
	if (pass)
		FARE_FEATURES_CALL(refresh_due, fi, all);
	/* Peers whose update-group class changed move before any route is
	 * built for them (boundary, averaged mode's per-link values).
	 */
	fare_instance_regroup(fi);
	if (announce)
		fare_instance_announce(fi, why);
	if (!pass)
		return;
	fi->counters.table_walks++;
	fare_peers_refresh_begin(fi);
	fi->refresh_pass_all = all;
	fi->refresh_pass_why = why;
	fi->refresh_pass_upto_set = fi->refresh_upto_set;
	memcpy(fi->refresh_pass_upto, fi->refresh_upto, sizeof(fi->refresh_upto));
	fi->refresh_upto_set = false;
	fi->refresh_count = fi->refresh_walked = 0;
	fi->refresh_tasks = 0;
	fare_table_pass_start(&fi->refresh_pass, AFI_IP, AFI_IP6);
	/* the pass in tasks of its own, the first one too: this task may
	 * have moved peers between update-groups already
	 */
	event_cancel(&fi->t_refresh_step);
	event_add_event(bm->master, fare_refresh_step, fi, 0, &fi->t_refresh_step);
}

static void fare_instance_refresh_event(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);

	/* a pass under way asks again at its end */
	if (fi->t_refresh_step)
		return;
	/* bgpd reads a configuration (a start, vtysh -f, frr-reload.py):
	 * its lines cost one pass, when bgpd has read them all
	 * (fare_instance_config_end()); one pass per line re-evaluated a
	 * router's own routes once per "bgp fare" line at every start
	 */
	if (bgp_config_inprocess()) {
		afi_t afi;

		if (FARE_DEBUG && !fi->refresh_held)
			zlog_debug("FARE: %s: %s, held until the configuration is read",
				   fi->bgp->name_pretty,
				   fi->refresh_why ? fi->refresh_why : "re-evaluation");
		fi->refresh_held = true;
		for (afi = AFI_IP; afi <= AFI_IP6; afi++)
			fi->refresh_upto[afi] =
				fi->bgp->rib[afi][SAFI_UNICAST]
					? bgp_table_version(fi->bgp->rib[afi][SAFI_UNICAST])
					: 0;
		return;
	}
	fi->refresh_held = false;
	fare_instance_refresh(fi, fi->refresh_why ? fi->refresh_why : "re-evaluation");
	fi->refresh_why = NULL;
}

static void fare_refresh_schedule(struct fare_instance *fi, const char *why)
{
	fare_state_changed();
	fi->refresh_upto_set = false;
	if (!fi->t_refresh)
		fi->refresh_why = why;
	event_add_event(bm->master, fare_instance_refresh_event, fi, 0, &fi->t_refresh);
}

/* bgpd has read a whole configuration: the pass held back meanwhile,
 * for the destinations bgpd had selected when it was last asked for.
 * bgpd selected the others since (a table's version grows with each
 * selection of a new best path, which the destination keeps), with the
 * configuration as it is now: routes that came at a start after the
 * lines (redistributed ones, a neighbor's) are not processed again.
 * What waited for the end itself (EE-2's sub-group layout,
 * fare_ecmp_config_end(), which comes first) applies to every route:
 * with a pass asked for already, no route is left out.
 */
void fare_instance_config_end(struct fare_instance *fi)
{
	bool asked = fi->t_refresh != NULL;

	if (!fi->refresh_held)
		return;
	fi->refresh_held = false;
	fare_refresh_schedule(fi, "configuration read");
	if (asked)
		return;
	fi->refresh_upto_set = true;
}

/* The re-evaluation due is known now, from an event of zebra's (a link's
 * bandwidth): the features act on it at once, before bgpd's own handling
 * of the event (fare_nhg_refresh_due()); the pass itself comes later.
 */
void fare_instance_refresh_ahead(struct fare_instance *fi)
{
	FARE_FEATURES_CALL(refresh_due, fi, fi->refresh_all);
}

/* Re-evaluate once the events at hand are handled: several sessions or
 * prefix-list lines changing together cost one pass.
 */
void fare_instance_refresh_later(struct fare_instance *fi, const char *why)
{
	fi->refresh_all = true;
	fare_refresh_schedule(fi, why);
}

/* WP-2: re-announce every route to the peers (their values changed),
 * none to zebra (the weights did not), in the same deferred pass; a full
 * re-evaluation pending does both.
 */
void fare_instance_announce_later(struct fare_instance *fi, const char *why)
{
	fi->announce_pending = true;
	fare_refresh_schedule(fi, why);
}

static void fare_session_settled(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);

	fare_instance_announce_later(fi, fi->session_settle_why);
}

/* WP-2: a session that comes or goes changes N, and so what every route
 * advertises. Sessions change together (a cold start brings them up one
 * by one, a line card takes several down): the re-announcement waits
 * FARE_SESSION_SETTLE_MS for the next change, at most
 * FARE_SESSION_SETTLE_MAX_MS after the first, so that a burst costs one
 * pass over the table instead of one per session. What is installed does
 * not wait: the paths a session brings or takes are bgpd's to process.
 */
void fare_instance_announce_settle(struct fare_instance *fi, const char *why)
{
	int64_t waited_ms = 0, delay_ms;

	if (fi->t_session_settle)
		waited_ms = monotime_since(&fi->session_settle_first, NULL) / 1000;
	else
		monotime(&fi->session_settle_first);
	delay_ms = MIN(FARE_SESSION_SETTLE_MS, FARE_SESSION_SETTLE_MAX_MS - waited_ms);
	fi->session_settle_why = why;
	event_cancel(&fi->t_session_settle);
	event_add_timer_msec(bm->master, fare_session_settled, fi, MAX(delay_ms, 0),
			     &fi->t_session_settle);
}

/* The same for the prefixes through one peer only (its link bandwidth or
 * hold-down changed), in the same deferred pass. In averaged mode the
 * link also caps what every prefix advertises on it (WP-2): all of them.
 */
void fare_peer_refresh_later(struct fare_instance *fi, struct peer *peer, const char *why)
{
	fare_peer_of(fi, peer)->refresh = true;
	if (fi->mode == FARE_MODE_AVERAGED)
		fi->refresh_all = true;
	fare_refresh_schedule(fi, why);
}

/* ... and through the neighbors kept under one name (a hold-down's). */
void fare_name_refresh_later(struct fare_instance *fi, const char *name, const char *why)
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
