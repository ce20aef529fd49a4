// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the per-prefix rules and their results. Reads the Path
 * Bandwidth communities of a prefix's paths, tells fresh values from
 * stale ones (FARE-7), gathers the paths' links and groups, lets the core
 * compute weights and what to advertise, keeps the result per prefix,
 * and gives zebra the weights (FARE-4, WP-3). The features take part
 * through their table (struct fare_feature): Enhanced ECMP gives the
 * core the sub-group the weights are restricted to (EE-4, before the
 * computation) and notes what the core did with it (after), ingress
 * grouping follows the weights (EE-1).
 * Calls down into bgp_fare_instance.c and bgp_fare_peer.c only.
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
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_filter.h"
#include "bgpd/bgp_fsm.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_nexthop.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_zebra.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_eval.h"

DEFINE_MTYPE_STATIC(FARE, FARE_RESULT_CACHE, "FARE per-prefix results");
DEFINE_MTYPE_STATIC(FARE, FARE_RESULT_SHARED, "FARE results shared by prefixes");

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

/* the last received value read (bgpd's main thread reads them all) */
static struct fare_bw_wire_memo fare_wire_memo;

/* Read the Path Bandwidth of one type (transitive or not) from attr. */
static void fare_attr_read(const struct attr *attr, uint8_t subtype, bool transitive,
			   enum fare_pb_state *state, double *bw, struct fare_ga_set *gas,
			   struct peer *peer, const struct bgp_dest *dest, struct fare_counters *cnt)
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
		if (cnt)
			cnt->value_class[pb.class]++;
		if (!fare_bw_class_usable(pb.class)) {
			invalid = true;
			if (cnt)
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
			if (cnt)
				cnt->duplicate++;
		} else {
			conflict = true;
		}
	}

	if (conflict) {
		*state = FARE_PB_CONFLICT;
		if (cnt) {
			cnt->conflicting++;
			fare_log_bad(peer, dest, "conflicting Path Bandwidth values ignored", NULL);
		}
	} else if (found) {
		/* A usable value next to an unusable one: the usable one. */
		*state = FARE_PB_PRESENT;
		*bw = fare_bw_wire_value_memo(value, &fare_wire_memo);
	} else if (invalid) {
		*state = FARE_PB_INVALID;
	}
}


/* Whether a Path Bandwidth's Global Administrator stands for `as`: its
 * value modulo 2^16 (FARE-1), so 4-octet writers stay apart.
 */
static bool fare_ga_is(uint16_t ga, as_t as)
{
	return ga == fare_pathbw_ga(as);
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

/* Gather best + multipaths (fare_dest_mpaths(): the order bgpd hands them
 * to zebra, and every multipath where bgpd set one apart), and let
 * the core compute weights and what to advertise.
 */
/* ------------------------------------------------------------------ */
/* Results shared by prefixes with the same paths                       */
/* ------------------------------------------------------------------ */

/* Prefixes selected over the same paths (the same sessions with the same
 * interned attributes, in the same order) get the same result: besides
 * its paths, the rules read only a prefix's multihoming factor (FARE-6)
 * and its Enhanced ECMP sub-group (EE-4), both part of the key, and
 * everything else they read (link bandwidths, hold-downs, sessions,
 * settings) moves fare_generation_now() when it changes. A fabric's
 * prefixes come over a few sets of paths: the 200,000 prefixes of
 * scripts/bench.sh spine over 1,000 (one per origin leaf and GroupID).
 * Paths whose next hops resolve through another route or to several hops
 * are the prefix's own input (how zebra resolves them,
 * fare_nexthop_inexact()): such a prefix is computed alone.
 *
 * An entry holds a reference to each of its attributes, so that none is
 * freed and another allocated at its address while the entry lives.
 * Entries live for one generation (fare_results_shared_flush() at the
 * next, and when an instance goes), and a session that goes down or
 * comes up starts a new one: a session's address names one session
 * while its entries live. Values read are counted at
 * every use, as if read again; a result whose values were logged as bad
 * (stale, conflicting, unusable) is not shared, so that each prefix logs
 * its own.
 */
#define FARE_SHARED_SLOTS 1024 /* a power of 2 */

struct fare_shared {
	const struct fare_instance *fi; /* NULL: free */
	uint32_t multihoming;
	uint32_t subgroup;
	uint16_t n;
	bool kept_present;
	double kept_bw;
	struct peer *peer[FARE_RESULT_PATHS];
	struct attr *attr[FARE_RESULT_PATHS];
	struct fare_prefix_out out;
	uint32_t weights[FARE_RESULT_PATHS];
	/* the values read, counted again at every use */
	uint32_t value_class[FARE_BW_CLASS_MAX];
	uint32_t duplicate;
	uint32_t ignored_boundary;
};

static struct fare_shared *fare_shared;
static uint64_t fare_shared_generation;

static void fare_shared_release(struct fare_shared *sh)
{
	uint16_t i;

	for (i = 0; i < sh->n; i++)
		bgp_attr_unintern(&sh->attr[i]);
	sh->fi = NULL;
}

void fare_results_shared_flush(void)
{
	uint32_t i;

	for (i = 0; fare_shared && i < FARE_SHARED_SLOTS; i++)
		if (fare_shared[i].fi)
			fare_shared_release(&fare_shared[i]);
}

/* Whether path pi's next hop is exact whatever the other paths (connected,
 * or not resolved through another route): fare_nexthop_inexact() false.
 */
static bool fare_nexthop_own_hop(const struct bgp_path_info *pi)
{
	return !(pi->nexthop && pi->nexthop->nexthop_num > 1) && !fare_resolved_gateway(pi);
}

/* The slot of fp's paths (fp->n of them, sub-group chosen); false when
 * they cannot be shared.
 */
static bool fare_shared_slot(const struct fare_instance *fi, const struct fare_prefix *fp,
			     uint32_t *slot)
{
	uint64_t h = (uintptr_t)fi ^ ((uint64_t)fp->multihoming << 32) ^ fp->ee.subgroup ^
		     ((uint64_t)fp->n << 48);
	size_t i;

	if (!fp->n || fp->n > FARE_RESULT_PATHS)
		return false;
	for (i = 0; i < fp->n; i++) {
		if (!fare_nexthop_own_hop(fp->paths[i]))
			return false;
		h = (h ^ (uintptr_t)fp->paths[i]->peer) * 0x9E3779B97F4A7C15ULL;
		h = (h ^ (uintptr_t)fp->paths[i]->attr) * 0x9E3779B97F4A7C15ULL;
	}
	*slot = (uint32_t)(h >> 40) & (FARE_SHARED_SLOTS - 1);
	return true;
}

static bool fare_shared_match(const struct fare_shared *sh, const struct fare_instance *fi,
			      const struct fare_prefix *fp)
{
	size_t i;

	if (sh->fi != fi || sh->n != fp->n || sh->multihoming != fp->multihoming ||
	    sh->subgroup != fp->ee.subgroup)
		return false;
	for (i = 0; i < fp->n; i++)
		if (sh->peer[i] != fp->paths[i]->peer || sh->attr[i] != fp->paths[i]->attr)
			return false;
	return true;
}

/* fp's result from an entry; its values counted as read */
static void fare_shared_use(struct fare_instance *fi, const struct fare_shared *sh,
			    struct fare_prefix *fp)
{
	size_t i;

	fp->out = sh->out;
	for (i = 0; i < fp->n; i++)
		fp->weights[i] = sh->weights[i];
	fp->in[0].t_state = sh->kept_present ? FARE_PB_PRESENT : FARE_PB_ABSENT;
	fp->in[0].t_bw = sh->kept_bw;
	for (i = 0; i < FARE_BW_CLASS_MAX; i++)
		fi->counters.value_class[i] += sh->value_class[i];
	fi->counters.duplicate += sh->duplicate;
	fi->counters.ignored_boundary += sh->ignored_boundary;
}

/* fp's result, computed with the counters at `before`, kept in slot */
static void fare_shared_keep(struct fare_instance *fi, uint32_t slot, const struct fare_prefix *fp,
			     const struct fare_counters *before)
{
	const struct fare_counters *now = &fi->counters;
	struct fare_shared *sh;
	size_t i;

	if (now->conflicting != before->conflicting || now->stale != before->stale)
		return;
	for (i = 0; i < FARE_BW_CLASS_MAX; i++)
		if (!fare_bw_class_usable(i) && now->value_class[i] != before->value_class[i])
			return;
	sh = &fare_shared[slot];
	if (sh->fi)
		fare_shared_release(sh);
	for (i = 0; i < fp->n; i++) {
		sh->attr[i] = bgp_attr_intern(fp->paths[i]->attr);
		sh->peer[i] = fp->paths[i]->peer;
		sh->weights[i] = fp->weights[i];
	}
	sh->n = fp->n;
	sh->fi = fi;
	sh->multihoming = fp->multihoming;
	sh->subgroup = fp->ee.subgroup;
	sh->kept_present = fp->in[0].t_state == FARE_PB_PRESENT;
	sh->kept_bw = fp->in[0].t_bw;
	sh->out = fp->out;
	for (i = 0; i < FARE_BW_CLASS_MAX; i++)
		sh->value_class[i] = now->value_class[i] - before->value_class[i];
	sh->duplicate = now->duplicate - before->duplicate;
	sh->ignored_boundary = now->ignored_boundary - before->ignored_boundary;
}

static void fare_prefix_compute_internal(struct fare_instance *fi, struct bgp_dest *dest,
					 struct bgp_path_info *best, struct fare_prefix *fp,
					 bool count)
{
	static struct fare_wcmp_memo memo; /* bgpd's main thread only */
	struct fare_prefix_params params = {
		.mode = fi->mode,
		.role = fi->role,
		.lower_transitive = fi->lower_transitive,
		.limits = { .max_weight = fare_max_weight(fi), .max_members = fi->max_members },
		.memo = &memo,
	};
	struct fare_counters *cnt = count ? &fi->counters : NULL;
	struct fare_counters before;
	bool shared = false;
	uint32_t slot = 0;
	size_t j, n;

	fp->multihoming = fare_multihoming_factor(fi, bgp_dest_get_prefix(dest));
	params.multihoming = fp->multihoming;

	n = fare_dest_mpaths(dest, best, fp->paths, MULTIPATH_NUM);
	/* the features' part (EE-4: the remote group's sub-group only) */
	fp->n = n;
	params.subgroup = fare_features_prefix_restrict(fi, best, fp);
	/* counted: a result kept for zebra and the peers, which other
	 * prefixes over the same paths share
	 */
	if (count) {
		if (fare_shared_generation != fare_generation_now()) {
			fare_results_shared_flush();
			fare_shared_generation = fare_generation_now();
		}
		shared = fare_shared_slot(fi, fp, &slot);
		if (shared && fare_shared_match(&fare_shared[slot], fi, fp)) {
			fare_shared_use(fi, &fare_shared[slot], fp);
			fare_features_prefix_evaluated(fi, best, fp);
			return;
		}
		before = fi->counters;
	}

	fp->n = 0;
	while (fp->n < n) {
		struct fare_path_in *in = &fp->in[fp->n];
		struct bgp_path_info *pi = fp->paths[fp->n];
		struct peer *peer = pi->peer;
		struct fare_ga_set gas = {}, gas_nt = {};

		memset(in, 0, sizeof(*in));
		fp->stale_as[fp->n] = 0;
		in->link_bw = fare_peer_link_bw(fi, peer, &fp->link_source[fp->n],
						&fp->link_held[fp->n]);
		in->held_down = fare_peer_recovering(fi, peer);
		in->from_super_spine = fare_peer_flag(fi, peer, FARE_PEER_SUPER_SPINE);
		fare_attr_read(pi->attr, fi->subtype, true, &in->t_state, &in->t_bw, &gas, peer,
			       dest, cnt);
		fare_attr_read(pi->attr, fi->subtype, false, &in->nt_state, &in->nt_bw, &gas_nt,
			       peer, dest, cnt);
		/* FARE-7: passed on by a router without FARE */
		if (in->t_state == FARE_PB_PRESENT &&
		    !fare_pb_fresh(&gas, pi, in->from_super_spine)) {
			in->t_state = FARE_PB_STALE;
			fp->stale_as[fp->n] = gas.as[0];
			if (count) {
				fi->counters.stale++;
				fare_log_bad(peer, dest, "stale Path Bandwidth ignored",
					     "not written by this neighbor");
			}
		}
		/* FARE-11: ignored inbound from a boundary peer */
		if (fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY)) {
			in->ignored = true;
			if (count)
				fi->counters.ignored_boundary++;
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

	fare_prefix_compute(fp->in, fp->n, &params, fp->path_bw, fp->weights, &fp->out);
	fare_features_prefix_evaluated(fi, best, fp);
	if (shared)
		fare_shared_keep(fi, slot, fp, &before);
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
 *
 * bgpd sends the routes it selected to zebra in a later task, up to
 * thousands of destinations after their announcement to the peers, so a
 * large table's results overwrite each other here: the destination then
 * takes the result of the prefixes over the same paths (struct
 * fare_shared), which costs little more than a lookup here. The table
 * stays small enough for the CPU's caches (32 kB of keys, 360 kB of
 * results): each selection looks its destination's slot up to drop its
 * result, about a million times at a cold start of a large table. With
 * 65,536 slots (6 MB), those lookups were cache misses: 128 of the
 * module's 580 samples at a cold start of the ingress leaf of
 * scripts/bench.sh spine (doc/benchmarks.rst, seventy-second to
 * seventy-sixth runs).
 */
#define FARE_RESULT_SLOTS 4096 /* a power of 2 */

/* the slots' destinations (NULL: free) apart from their results */
static const struct bgp_dest **fare_result_dests;
static struct fare_result *fare_results;
static struct fare_result fare_result_uncached; /* weights in fare_scratch */
static struct fare_prefix fare_scratch;

/* A destination's slot: the high bits of its address times 2^64 / phi
 * (Fibonacci hashing), which spreads the addresses of bgpd's
 * destinations, all alike in their low bits, over the slots.
 */
static uint32_t fare_result_slot(const struct bgp_dest *dest)
{
	uint64_t h = (uint64_t)(uintptr_t)dest * 0x9E3779B97F4A7C15ULL;

	return (uint32_t)(h >> 32) & (FARE_RESULT_SLOTS - 1);
}

static void fare_results_alloc(void)
{
	fare_result_dests = XCALLOC(MTYPE_FARE_RESULT_CACHE,
				    FARE_RESULT_SLOTS * sizeof(*fare_result_dests));
	fare_results = XCALLOC(MTYPE_FARE_RESULT_CACHE, FARE_RESULT_SLOTS * sizeof(*fare_results));
	fare_shared = XCALLOC(MTYPE_FARE_RESULT_SHARED, FARE_SHARED_SLOTS * sizeof(*fare_shared));
}

static void fare_results_free(void)
{
	XFREE(MTYPE_FARE_RESULT_CACHE, fare_result_dests);
	XFREE(MTYPE_FARE_RESULT_CACHE, fare_results);
	XFREE(MTYPE_FARE_RESULT_SHARED, fare_shared);
}

/* bgpd selected the destination's paths anew: its result is out of date */
void fare_result_forget(const struct bgp_dest *dest)
{
	uint32_t slot;

	if (!fare_result_dests)
		return;
	slot = fare_result_slot(dest);
	if (fare_result_dests[slot] == dest)
		fare_result_dests[slot] = NULL;
}

uint32_t fare_result_weight(const struct fare_result *res, size_t i)
{
	return res->n <= FARE_RESULT_PATHS ? res->weights[i] : fare_scratch.weights[i];
}

/* The result for best and its multipaths, computed now or earlier; valid
 * until the next call (a result computed may move them all). Received
 * values are counted and logged when they are read, once per change.
 */
struct fare_result *fare_result_get(struct fare_instance *fi, struct bgp_dest *dest,
				    struct bgp_path_info *best)
{
	struct fare_prefix *fp = &fare_scratch;
	struct fare_result *res;
	uint32_t slot;
	size_t i;

	if (!fare_results)
		fare_results_alloc();
	slot = fare_result_slot(dest);
	res = &fare_results[slot];
	if (fare_result_dests[slot] == dest && res->best == best &&
	    res->generation == fare_generation_now())
		return res;

	fare_prefix_compute_internal(fi, dest, best, fp, true);
	if (fp->n > FARE_RESULT_PATHS)
		res = &fare_result_uncached;
	else
		fare_result_dests[slot] = dest;
	res->best = best;
	res->generation = fare_generation_now();
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
int fare_zebra_nexthop_weights(struct bgp *bgp, struct bgp_dest *dest, struct bgp_path_info *best,
			       uint64_t *weights, unsigned int max)
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
	/* no weight set: FRR's own weighted ECMP, if any, weighs the route */
	frr = ret ? FARE_FRR_WECMP_NONE : fare_frr_wecmp(bgp, dest, best);
	if (res->wcmp && ret) {
		fi->counters.wcmp_routes++;
		fi->counters.dropped_paths += res->dropped;
	} else if (frr != FARE_FRR_WECMP_NONE) {
		fi->counters.frr_weighted_routes++;
	} else {
		fi->counters.ecmp_routes++;
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
	/* EE-1, after the last use of res: it may compute a result, and
	 * one computed overwrites a slot
	 */
	fare_features_dest_changed(fi, dest);
	return ret;
}

void fare_eval_fini(void)
{
	/* bgpd is gone, and the attributes the shared results held with it
	 * (bgp_attr_finish() frees them all): not released
	 */
	fare_results_free();
}
