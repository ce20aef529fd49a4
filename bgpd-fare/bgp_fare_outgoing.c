// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: N, the eligible outgoing sessions of a route in averaged
 * mode (WP-2): the candidate sessions taken once per change of what they
 * depend on, each route's exclusions (its paths' sources, the neighbors
 * whose AS is in its path, iBGP split horizon, outbound policy) applied
 * to them. Calls down into bgp_fare_instance.c and bgp_fare_peer.c only.
 */
#include <zebra.h>

#include "filter.h"
#include "memory.h"
#include "plist.h"
#include "prefix.h"
#include "routemap.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_aspath.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_filter.h"
#include "bgpd/bgp_fsm.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_eval.h"

DEFINE_MTYPE_STATIC(FARE, FARE_OUT_SET, "FARE outgoing sessions (WP-2)");

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

/* WP-2: a session that may count in N, whatever the route: established
 * in the address family, over a link of this router, not a boundary.
 */
static bool fare_out_candidate(struct fare_instance *fi, struct peer *peer, afi_t afi)
{
	return peer_established(peer->connection) && peer->afc_nego[afi][SAFI_UNICAST] &&
	       fare_peer_on_link(peer) && !fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY);
}

/* WP-2: whether one candidate counts in N for the route of best: not the
 * source of one of its equal-cost paths, not a peer that would drop it
 * (its AS is in the path), and one bgpd sends it to (outbound policy,
 * iBGP split horizon).
 */
static bool fare_out_counts(struct peer *peer, struct bgp_dest *dest, struct bgp_path_info *best,
			    afi_t afi)
{
	const struct bgp_path_info *pi;

	if (!best)
		return true;
	for (pi = best; pi; pi = bgp_path_info_mpath_next((struct bgp_path_info *)pi))
		if (pi->peer == peer)
			return false;
	if (aspath_loop_check(best->attr->aspath, peer->as) > 0)
		return false;
	if (fare_ibgp_split_horizon(best->peer, peer, afi))
		return false;
	return fare_peer_policy_permits(peer, dest, best, afi);
}

/* WP-2: the candidates of N of one address family, taken once per change
 * of what they depend on (fare_generation_now(): sessions up and down,
 * interfaces, settings, outbound filters named or unnamed), so that N
 * costs a route O(its AS_PATH + its paths + the peers with an outbound
 * filter), not O(peers). Candidates without an outbound filter ("plain")
 * are counted, by AS and iBGP split horizon class; the others are kept to
 * apply their filters per route.
 */
struct fare_out_as {
	as_t as;
	uint32_t count;	  /* plain candidates of this AS */
	uint32_t ibgp_nc; /* of which iBGP, not reflector clients */
};

struct fare_out_set {
	uint64_t generation; /* 0: not built */
	uint32_t n_plain, n_ibgp_nc;
	struct peer **plain; /* sorted by address */
	size_t n_plain_peers;
	struct fare_out_as *as; /* sorted by AS */
	size_t n_as;
	struct peer **filtered;
	size_t n_filtered;
};

struct fare_out_sets {
	struct fare_out_set afi[2]; /* IPv4, IPv6 */
};

static bool fare_out_ibgp_nc(const struct peer *peer, afi_t afi)
{
	return peer->sort == BGP_PEER_IBGP &&
	       !CHECK_FLAG(peer->af_flags[afi][SAFI_UNICAST], PEER_FLAG_REFLECTOR_CLIENT);
}

static bool fare_out_filtered(struct peer *peer, afi_t afi)
{
	struct bgp_filter *filter = &peer->filter[afi][SAFI_UNICAST];

	return DISTRIBUTE_OUT_NAME(filter) || PREFIX_LIST_OUT_NAME(filter) ||
	       FILTER_LIST_OUT_NAME(filter) || ROUTE_MAP_OUT_NAME(filter);
}

static int fare_out_peer_cmp(const void *a, const void *b)
{
	return numcmp((uintptr_t) * (struct peer *const *)a, (uintptr_t) * (struct peer *const *)b);
}

static int fare_out_as_cmp(const void *a, const void *b)
{
	return numcmp(((const struct fare_out_as *)a)->as, ((const struct fare_out_as *)b)->as);
}

static void fare_out_set_clear(struct fare_out_set *set)
{
	XFREE(MTYPE_FARE_OUT_SET, set->plain);
	XFREE(MTYPE_FARE_OUT_SET, set->as);
	XFREE(MTYPE_FARE_OUT_SET, set->filtered);
	memset(set, 0, sizeof(*set));
}

static void fare_out_set_build(struct fare_instance *fi, struct fare_out_set *set, afi_t afi)
{
	size_t cap = listcount(fi->bgp->peer), i, j;
	struct listnode *node;
	struct peer *peer;

	fare_out_set_clear(set);
	set->generation = fare_generation_now();
	if (!cap)
		return;
	set->plain = XCALLOC(MTYPE_FARE_OUT_SET, cap * sizeof(*set->plain));
	set->as = XCALLOC(MTYPE_FARE_OUT_SET, cap * sizeof(*set->as));
	set->filtered = XCALLOC(MTYPE_FARE_OUT_SET, cap * sizeof(*set->filtered));
	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer)) {
		if (set->n_plain_peers + set->n_filtered >= cap ||
		    !fare_out_candidate(fi, peer, afi))
			continue;
		if (fare_out_filtered(peer, afi)) {
			set->filtered[set->n_filtered++] = peer;
			continue;
		}
		set->plain[set->n_plain_peers++] = peer;
		set->as[set->n_as++] = (struct fare_out_as){
			.as = peer->as, .count = 1, .ibgp_nc = fare_out_ibgp_nc(peer, afi)
		};
	}
	set->n_plain = set->n_plain_peers;
	qsort(set->plain, set->n_plain_peers, sizeof(*set->plain), fare_out_peer_cmp);
	qsort(set->as, set->n_as, sizeof(*set->as), fare_out_as_cmp);
	/* one entry per AS */
	for (i = 0, j = 0; i < set->n_as; i++) {
		if (j && set->as[j - 1].as == set->as[i].as) {
			set->as[j - 1].count += set->as[i].count;
			set->as[j - 1].ibgp_nc += set->as[i].ibgp_nc;
			continue;
		}
		set->as[j++] = set->as[i];
	}
	set->n_as = j;
	for (i = 0; i < set->n_as; i++)
		set->n_ibgp_nc += set->as[i].ibgp_nc;
}

static struct fare_out_set *fare_out_set_get(struct fare_instance *fi, afi_t afi)
{
	struct fare_out_set *set;

	if (!fi->out_sets)
		fi->out_sets = XCALLOC(MTYPE_FARE_OUT_SET, sizeof(*fi->out_sets));
	set = &fi->out_sets->afi[afi == AFI_IP6];
	if (set->generation != fare_generation_now())
		fare_out_set_build(fi, set, afi);
	return set;
}

void fare_out_sets_free(struct fare_instance *fi)
{
	if (!fi->out_sets)
		return;
	fare_out_set_clear(&fi->out_sets->afi[0]);
	fare_out_set_clear(&fi->out_sets->afi[1]);
	XFREE(MTYPE_FARE_OUT_SET, fi->out_sets);
}

static const struct fare_out_as *fare_out_as_find(const struct fare_out_set *set, as_t as)
{
	struct fare_out_as key = { .as = as };

	return set->n_as ? bsearch(&key, set->as, set->n_as, sizeof(*set->as), fare_out_as_cmp)
			 : NULL;
}

#define FARE_OUT_PATH_AS 64 /* distinct ASes of a path looked up one by one */

/* The plain candidates a route is not sent to, or whose AS is in its
 * path; false when the path has too many distinct ASes to tell (the
 * caller counts one by one).
 */
static bool fare_out_plain_excluded(const struct fare_out_set *set, struct bgp_path_info *best,
				    afi_t afi, uint32_t *excluded)
{
	const struct assegment *seg;
	const struct bgp_path_info *pi;
	as_t seen[FARE_OUT_PATH_AS];
	struct peer *sources[MULTIPATH_NUM];
	size_t n_seen = 0, n_src = 0, i, k;
	bool split = fare_out_ibgp_nc(best->peer, afi);
	const struct fare_out_as *e;

	*excluded = split ? set->n_ibgp_nc : 0;
	/* their AS in the path (aspath_loop_check), each AS once */
	for (seg = best->attr->aspath ? best->attr->aspath->segments : NULL; seg; seg = seg->next)
		for (i = 0; i < seg->length; i++) {
			for (k = 0; k < n_seen && seen[k] != seg->as[i]; k++)
				;
			if (k < n_seen)
				continue;
			if (n_seen == FARE_OUT_PATH_AS)
				return false;
			seen[n_seen++] = seg->as[i];
			e = fare_out_as_find(set, seg->as[i]);
			if (e)
				*excluded += e->count - (split ? e->ibgp_nc : 0);
		}
	/* the sources of its paths not already left out, each once */
	for (pi = best; pi; pi = bgp_path_info_mpath_next((struct bgp_path_info *)pi)) {
		struct peer *peer = pi->peer;

		if (!set->n_plain_peers || !bsearch(&peer, set->plain, set->n_plain_peers,
						    sizeof(*set->plain), fare_out_peer_cmp))
			continue;
		if ((split && fare_out_ibgp_nc(peer, afi)) ||
		    aspath_loop_check(best->attr->aspath, peer->as) > 0)
			continue;
		for (k = 0; k < n_src && sources[k] != peer; k++)
			;
		if (k < n_src)
			continue;
		if (n_src == array_size(sources))
			return false;
		sources[n_src++] = peer;
		(*excluded)++;
	}
	return true;
}

/* WP-2: N, the interfaces a route is advertised on, excluding those it was
 * received on: established sessions of the address family over a link of
 * this router, not the sources of its equal-cost paths, not boundary
 * peers, not peers that would drop it (their AS is in the path), and not
 * peers bgpd does not send it to (outbound policy, iBGP split horizon).
 */
unsigned int fare_eligible_outgoing_best(struct fare_instance *fi, struct bgp_dest *dest,
					 struct bgp_path_info *best, afi_t afi)
{
	struct fare_out_set *set = fare_out_set_get(fi, afi);
	unsigned int n_out = set->n_plain;
	uint32_t excluded;
	size_t i;

	if (best && !fare_out_plain_excluded(set, best, afi, &excluded)) {
		n_out = 0;
		for (i = 0; i < set->n_plain_peers; i++)
			n_out += fare_out_counts(set->plain[i], dest, best, afi);
	} else if (best) {
		n_out -= excluded;
	}
	for (i = 0; i < set->n_filtered; i++)
		n_out += fare_out_counts(set->filtered[i], dest, best, afi);
	return n_out;
}

unsigned int fare_eligible_outgoing(struct fare_instance *fi, struct bgp_dest *dest,
				    const struct fare_prefix *fp, afi_t afi)
{
	return fare_eligible_outgoing_best(fi, dest, fp->n ? fp->paths[0] : NULL, afi);
}
