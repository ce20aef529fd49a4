// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: routes and weights of every router for one prefix.
 *
 * BGP: eBGP on every link, multipath over the neighbors with the shortest
 * AS_PATH (bgp bestpath as-path multipath-relax), a path dropped by the
 * receiver when its AS is in it, the best path the first multipath in the
 * router's link order. Then, router by router from the origins outwards,
 * the Path Bandwidth each path carries is given to the core exactly as
 * bgpd-fare/bgp_fare_eval.c gives it (fare_prefix_compute()), and what
 * each router sends on each session is what bgpd-fare/bgp_fare_announce.c
 * writes: FARE-2 and WP-1 origination, FARE-5 and WP-2 (through
 * fare_averaged_advertised()), FARE-7 strip, FARE-8/9 pass-on, FARE-11
 * containment, each value through the wire's 32-bit float.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fare_pathbw.h"
#include "fare_sim.h"

/* FRR's zebra scales link-bandwidth weights to this (zebra_router.c:
 * nexthop_weight_scale_value, 8-bit kernel weights)
 */
#define ZEBRA_WEIGHT_SCALE 255

int sim_state_init(struct sim_state *s, const struct sim_fabric *f)
{
	memset(s, 0, sizeof(*s));
	s->f = f;
	s->r = calloc(f->n_routers, sizeof(*s->r));
	s->order = calloc(f->n_routers, sizeof(*s->order));
	s->peer_first = malloc((f->n_routers + 1) * sizeof(*s->peer_first));
	s->link_mark = calloc(f->n_links + 1, sizeof(*s->link_mark));
	s->amount = calloc(f->n_routers, sizeof(*s->amount));
	s->in = calloc(SIM_MAX_PATHS, sizeof(*s->in));
	s->path_bw = calloc(SIM_MAX_PATHS, sizeof(*s->path_bw));
	s->weights = calloc(SIM_MAX_PATHS, sizeof(*s->weights));
	s->bw = calloc(SIM_MAX_PATHS, sizeof(*s->bw));
	s->cap_mp = 2 * f->n_links + 1;
	s->mp_adj = calloc(s->cap_mp, sizeof(*s->mp_adj));
	s->mp_weight = calloc(s->cap_mp, sizeof(*s->mp_weight));
	if (!s->r || !s->order || !s->peer_first || !s->link_mark || !s->amount || !s->in ||
	    !s->path_bw || !s->weights || !s->bw || !s->mp_adj || !s->mp_weight) {
		sim_state_free(s);
		return -1;
	}
	memset(s->peer_first, 0xff, (f->n_routers + 1) * sizeof(*s->peer_first));
	return 0;
}

void sim_state_free(struct sim_state *s)
{
	free(s->r);
	free(s->order);
	free(s->peer_first);
	free(s->link_mark);
	free(s->amount);
	free(s->in);
	free(s->path_bw);
	free(s->weights);
	free(s->bw);
	free(s->mp_adj);
	free(s->mp_weight);
	memset(s, 0, sizeof(*s));
}

static bool link_up(const struct sim_fabric *f, uint32_t link)
{
	return f->links[link].cur_bw > 0;
}

/* FARE-1: an AS as a Path Bandwidth's Global Administrator */
static uint16_t ga(uint32_t as)
{
	return (uint16_t)as;
}

/* Whether r accepts what m sends: r's AS not in [m's AS, m's AS_PATH] */
static bool accepts(const struct sim_state *s, uint32_t m, uint32_t r)
{
	const struct sim_rstate *rm = &s->r[m];
	uint32_t as = s->f->routers[r].as;
	unsigned int i;

	if (s->f->routers[m].as == as || rm->n_as >= SIM_MAX_AS)
		return false;
	for (i = 0; i < rm->n_as; i++)
		if (rm->as_path[i] == as)
			return false;
	return true;
}

/* SUN-1: a host announces only what it originates */
static bool announces(const struct sim_state *s, uint32_t m)
{
	return fare_role_announces(s->f->routers[m].role, s->r[m].originated);
}

bool sim_sends_on(const struct sim_state *s, uint32_t r, uint32_t ai)
{
	const struct sim_rstate *rr = &s->r[r];
	const struct sim_adj *a = &s->f->adj[ai];

	if (rr->dist < 0 || !link_up(s->f, a->link) || !announces(s, r))
		return false;
	if (s->sender_loop_detection && !accepts(s, r, a->peer))
		return false;
	/* not back over the session its best path came from */
	return !(rr->n_mp && s->f->adj[s->mp_adj[rr->mp_start]].link == a->link);
}

static enum sim_rule rule_of(const struct sim_state *s, uint32_t r)
{
	return s->rule == SIM_RULE_CONFIG ? s->f->routers[r].rule : s->rule;
}

static bool fare_rule(enum sim_rule rule)
{
	return rule == SIM_RULE_DRAFT || rule == SIM_RULE_PER_SESSION || rule == SIM_RULE_AVERAGED;
}

/* fare_bw_wire_value() (the core's reading of a received float), through
 * a direct-mapped cache: a fabric has few distinct values
 */
static double wire_value(struct sim_state *s, float v)
{
	uint32_t bits, slot;

	memcpy(&bits, &v, sizeof(bits));
	slot = (bits * 2654435761u) >> (32 - SIM_WIRE_CACHE_BITS);
	if (!s->wire_cache[slot].valid || s->wire_cache[slot].bits != bits) {
		s->wire_cache[slot].bits = bits;
		s->wire_cache[slot].value = fare_bw_wire_value(v);
		s->wire_cache[slot].valid = true;
	}
	return s->wire_cache[slot].value;
}

/* bgp_fare_announce.c: a value for the wire, "max" stays max (FARE-2) */
static float wire_float(double bytes_per_sec)
{
	if (bytes_per_sec >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		return FARE_PATHBW_MAX_BYTES_PER_SEC;
	return (float)bytes_per_sec;
}

/* FRR's link-bandwidth community value: uint64 bytes/s through an IEEE
 * float (bgp_ecommunity.h uint64_to_ieee_float_uint32, read back by
 * ieee_float_uint32_to_uint64)
 */
static float frr_lb_float(uint64_t bytes_per_sec)
{
	return (float)bytes_per_sec;
}

static uint64_t frr_lb_value(float f)
{
	return (uint64_t)f;
}

bool sim_adv_on(const struct sim_state *s, uint32_t r, uint32_t link, struct sim_adv *adv)
{
	const struct sim_rstate *rr = &s->r[r];
	const struct sim_router *rt = &s->f->routers[r];
	const struct sim_link *l = &s->f->links[link];
	enum sim_rule rule = rule_of(s, r);

	memset(adv, 0, sizeof(*adv));
	if (rr->dist < 0)
		return false;
	if (rule == SIM_RULE_ECMP)
		return true;
	if (rule == SIM_RULE_FRR_CUMULATIVE) {
		/* route-map out: set extcommunity bandwidth <link Mbps> at the
		 * origin, cumulative elsewhere (the sum of the multipaths')
		 */
		if (rr->originated) {
			adv->present = true;
			adv->value = frr_lb_float((uint64_t)l->bw);
		} else if (rr->t_present) {
			adv->present = true;
			adv->value = frr_lb_float((uint64_t)rr->t_value);
		}
		adv->writer = r;
		return true;
	}
	/* FARE-11: nothing crosses a boundary */
	if (sim_boundary(s->f, link, r))
		return true;
	if (!rt->fare || !rr->t_present) {
		/* no FARE: the transitive one passes on as it came */
		if (!rt->fare && rr->t_present) {
			adv->present = true;
			adv->value = (float)rr->t_value;
			adv->writer = rr->t_writer;
		}
		return true;
	}
	adv->writer = r;
	adv->present = true;
	if (rr->originated || rr->t_action == FARE_ADV_REPLACE) {
		double v = rr->t_value;

		/* WP-1 (n_out 1) and WP-2: averaged, capped by this session */
		if (rule == SIM_RULE_AVERAGED)
			v = fare_averaged_advertised(v, rr->originated ? 1 : rr->n_out, l->cur_bw);
		adv->value = wire_float(v);
	} else {
		/* FARE-8 passes it as it is; FARE-9 vouches with its AS */
		adv->value = (float)rr->t_value;
		if (rt->role == FARE_ROLE_SUPER_SPINE)
			adv->writer = rr->t_writer;
	}
	if (rr->nt_attach) {
		adv->nt_present = true;
		adv->nt_value = wire_float(rr->nt_value);
	}
	return true;
}

/* The multipaths of r (reached at distance d): its links to routers at
 * distance d - 1 that send it the prefix, in its link order.
 */
static void collect_multipaths(struct sim_state *s, uint32_t r)
{
	const struct sim_router *rt = &s->f->routers[r];
	struct sim_rstate *rr = &s->r[r];
	uint32_t i, best = UINT32_MAX;

	rr->mp_start = s->n_mp;
	rr->n_mp = 0;
	for (i = rt->adj_start; i < rt->adj_start + rt->adj_n; i++) {
		const struct sim_adj *a = &s->f->adj[i];
		uint32_t m = a->peer;

		if (s->r[m].dist != rr->dist - 1 || !link_up(s->f, a->link) || !announces(s, m) ||
		    !accepts(s, m, r) || rr->n_mp == SIM_MAX_PATHS)
			continue;
		if (best == UINT32_MAX)
			best = m;
		s->mp_adj[s->n_mp] = i;
		s->mp_weight[s->n_mp++] = 1;
		rr->n_mp++;
	}
	/* the AS_PATH it sends on: the best path's, its own AS in front */
	rr->n_as = 0;
	if (best != UINT32_MAX) {
		rr->as_path[0] = s->f->routers[best].as;
		memcpy(rr->as_path + 1, s->r[best].as_path, s->r[best].n_as * sizeof(uint32_t));
		rr->n_as = s->r[best].n_as + 1;
	}
}

/* BGP's converged paths: layer by layer from the origins */
static void route_bgp(struct sim_state *s, const struct sim_prefix *p)
{
	const struct sim_fabric *f = s->f;
	uint32_t i, lo, hi, k;

	for (i = 0; i < f->n_routers; i++) {
		s->r[i].dist = -1;
		s->r[i].n_mp = 0;
		s->r[i].n_as = 0;
		s->r[i].originated = false;
	}
	s->n_mp = 0;
	s->n_order = 0;
	for (i = 0; i < p->n_origins; i++) {
		struct sim_rstate *rr = &s->r[p->origins[i]];

		if (rr->dist == 0)
			continue;
		rr->dist = 0;
		rr->originated = true;
		s->order[s->n_order++] = p->origins[i];
	}
	for (lo = 0; lo < s->n_order; lo = hi) {
		hi = s->n_order;
		for (k = lo; k < hi; k++) {
			uint32_t m = s->order[k];
			const struct sim_router *rm = &f->routers[m];

			if (!announces(s, m))
				continue;
			for (i = rm->adj_start; i < rm->adj_start + rm->adj_n; i++) {
				const struct sim_adj *a = &f->adj[i];

				if (s->r[a->peer].dist >= 0 || !link_up(f, a->link) ||
				    !accepts(s, m, a->peer))
					continue;
				s->r[a->peer].dist = s->r[m].dist + 1;
				s->order[s->n_order++] = a->peer;
			}
		}
		for (k = hi; k < s->n_order; k++)
			collect_multipaths(s, s->order[k]);
	}
}

/* WP-2's N (fare_eligible_outgoing_best()): sessions over a link of this
 * router, up, not a source of its multipaths, not a boundary, not to an
 * AS in the best path.
 */
static unsigned int eligible_outgoing(struct sim_state *s, uint32_t r)
{
	const struct sim_router *rt = &s->f->routers[r];
	const struct sim_rstate *rr = &s->r[r];
	unsigned int n = 0, i, j, k;

	/* the multipaths' links, marked in s->link_mark[] meanwhile */
	for (j = 0; j < rr->n_mp; j++)
		s->link_mark[s->f->adj[s->mp_adj[rr->mp_start + j]].link] = 1;
	for (i = rt->adj_start; i < rt->adj_start + rt->adj_n; i++) {
		const struct sim_adj *a = &s->f->adj[i];
		uint32_t as = s->f->routers[a->peer].as;
		bool skip = s->link_mark[a->link];

		if (!link_up(s->f, a->link) || sim_boundary(s->f, a->link, r))
			continue;
		/* aspath_loop_check() on the best path's AS_PATH */
		for (k = 0; k < rr->n_as && !skip; k++)
			skip = rr->as_path[k] == as;
		if (!skip)
			n++;
	}
	for (j = 0; j < rr->n_mp; j++)
		s->link_mark[s->f->adj[s->mp_adj[rr->mp_start + j]].link] = 0;
	return n;
}

/* FRR's own weighted ECMP by link bandwidth, cumulative */
static void route_frr_cumulative(struct sim_state *s, uint32_t r)
{
	struct sim_rstate *rr = &s->r[r];
	uint64_t cum = 0, vals[SIM_MAX_PATHS], max = 0;
	bool all = true;
	uint32_t j;

	for (j = 0; j < rr->n_mp; j++) {
		const struct sim_adj *a = &s->f->adj[s->mp_adj[rr->mp_start + j]];
		struct sim_adv adv;

		sim_adv_on(s, a->peer, a->link, &adv);
		vals[j] = adv.present ? frr_lb_value(adv.value) : 0;
		if (!adv.present)
			all = false; /* bgp_mpath.c: all_paths_lb */
		cum += vals[j];
		if (vals[j] > max)
			max = vals[j];
	}
	rr->t_present = cum > 0;
	rr->t_value = (double)cum;
	/* bgp_zebra.c: the weight is the path's value (a missing one is
	 * plain ECMP, bgp bestpath bandwidth's default); zapi_msg.c scales
	 * them to 1..255 (rounded down)
	 */
	rr->wcmp = all && max > 0;
	for (j = 0; j < rr->n_mp; j++) {
		uint64_t w = rr->wcmp ? vals[j] * ZEBRA_WEIGHT_SCALE / max : 1;

		s->mp_weight[rr->mp_start + j] = w ? (uint32_t)w : 1;
	}
}

/* fare_prefix_compute_internal(): one router's paths to the core */
static void route_fare(struct sim_state *s, uint32_t r, const struct sim_prefix *p,
		       enum sim_rule rule)
{
	const struct sim_router *rt = &s->f->routers[r];
	struct sim_rstate *rr = &s->r[r];
	struct fare_prefix_params params = {
		.mode = rule == SIM_RULE_AVERAGED ? FARE_MODE_AVERAGED : FARE_MODE_DRAFT,
		.role = rt->role,
		.lower_transitive = rt->lower_transitive,
		.limits = rt->limits,
	};
	struct fare_prefix_out out;
	struct sim_adv best_adv = {};
	uint32_t j, k, n = rr->n_mp;

	/* FARE-6: the prefix's k where it is configured, else the router's */
	params.multihoming = rt->multihoming ? rt->multihoming : 1;
	if (p->multihoming) {
		bool here = !p->n_mh_at;

		for (k = 0; k < p->n_mh_at; k++)
			here |= p->mh_at[k] == r;
		if (here)
			params.multihoming = p->multihoming;
	}
	for (j = 0; j < n; j++) {
		const struct sim_adj *a = &s->f->adj[s->mp_adj[rr->mp_start + j]];
		const struct sim_router *rm = &s->f->routers[a->peer];
		struct fare_path_in *in = &s->in[j];
		struct sim_adv adv;

		memset(in, 0, sizeof(*in));
		sim_adv_on(s, a->peer, a->link, &adv);
		if (!j)
			best_adv = adv;
		in->link_bw = s->f->links[a->link].cur_bw;
		in->from_super_spine = rm->role == FARE_ROLE_SUPER_SPINE;
		if (adv.present) {
			/* FARE-7: written by the neighbor (for a super-spine:
			 * the spine behind it, the 2nd AS of the path)
			 */
			uint32_t want = in->from_super_spine ? s->r[a->peer].as_path[0] : rm->as;
			bool fresh = in->from_super_spine && !s->r[a->peer].n_as
					     ? false
					     : ga(s->f->routers[adv.writer].as) == ga(want);

			in->t_state = fresh ? FARE_PB_PRESENT : FARE_PB_STALE;
			in->t_bw = wire_value(s, adv.value);
		}
		if (adv.nt_present) {
			in->nt_state = FARE_PB_PRESENT;
			in->nt_bw = wire_value(s, adv.nt_value);
		}
		in->ignored = sim_boundary(s->f, a->link, r); /* FARE-11 */
	}
	/* draft mode: parallel links to one neighbor router, one group
	 * (fare_group_neighbors(): the index + 1 of its first path);
	 * s->peer_first[] maps a peer to its first path here
	 */
	for (j = 0; rule == SIM_RULE_DRAFT && j < n; j++) {
		uint32_t peer = s->f->adj[s->mp_adj[rr->mp_start + j]].peer;
		uint32_t first = s->peer_first[peer];

		if (first == UINT32_MAX) {
			s->peer_first[peer] = j;
			continue;
		}
		s->in[first].neighbor_group = first + 1;
		s->in[j].neighbor_group = first + 1;
	}
	for (j = 0; rule == SIM_RULE_DRAFT && j < n; j++)
		s->peer_first[s->f->adj[s->mp_adj[rr->mp_start + j]].peer] = UINT32_MAX;
	fare_prefix_compute(s->in, n, &params, s->path_bw, s->weights, &out);
	rr->wcmp = out.wcmp;
	for (j = 0; j < n; j++)
		s->mp_weight[rr->mp_start + j] = out.wcmp ? s->weights[j] : 1;
	rr->t_action = out.t_action;
	rr->nt_attach = out.nt_attach;
	rr->nt_value = out.nt_value;
	rr->t_writer = r;
	switch (out.t_action) {
	case FARE_ADV_REPLACE:
		rr->t_present = true;
		rr->t_value = out.t_value;
		if (rule == SIM_RULE_AVERAGED)
			rr->n_out = eligible_outgoing(s, r);
		break;
	case FARE_ADV_STRIP:
		rr->t_present = false;
		break;
	case FARE_ADV_KEEP:
		/* FARE-8: the best path's as received; FARE-9: rewritten
		 * with this AS when it came fresh, else removed
		 */
		if (rt->role == FARE_ROLE_SUPER_SPINE) {
			rr->t_present = best_adv.present;
			rr->t_value = best_adv.value;
			rr->t_writer = best_adv.writer;
		} else {
			rr->t_present = n && s->in[0].t_state == FARE_PB_PRESENT;
			rr->t_value = s->in[0].t_bw;
		}
		break;
	}
}

/* A router without FARE: ECMP, the transitive value passed on as it came */
static void route_plain(struct sim_state *s, uint32_t r)
{
	struct sim_rstate *rr = &s->r[r];
	struct sim_adv adv = {};

	rr->wcmp = false;
	if (rr->n_mp) {
		const struct sim_adj *a = &s->f->adj[s->mp_adj[rr->mp_start]];

		sim_adv_on(s, a->peer, a->link, &adv);
	}
	rr->t_present = adv.present;
	rr->t_value = adv.value;
	rr->t_writer = adv.writer;
}

void sim_route_prefix(struct sim_state *s, uint32_t prefix, enum sim_rule rule)
{
	const struct sim_prefix *p = &s->f->prefixes[prefix];
	uint32_t k;

	s->rule = rule;
	s->prefix = prefix;
	route_bgp(s, p);
	for (k = 0; k < s->n_order; k++) {
		uint32_t r = s->order[k];
		struct sim_rstate *rr = &s->r[r];
		enum sim_rule rr_rule = rule_of(s, r);

		rr->wcmp = false;
		rr->t_present = false;
		rr->t_value = 0;
		rr->t_writer = r;
		rr->nt_attach = false;
		rr->nt_value = 0;
		rr->n_out = 0;
		rr->t_action = FARE_ADV_STRIP;
		if (rr->originated) {
			/* FARE-2: the maximum; WP-1 caps it per session */
			rr->t_present = s->f->routers[r].fare || rr_rule == SIM_RULE_FRR_CUMULATIVE;
			rr->t_value = s->f->routers[r].originate_bw;
			rr->t_action = FARE_ADV_REPLACE;
			continue;
		}
		if (rr_rule == SIM_RULE_ECMP)
			continue;
		if (rr_rule == SIM_RULE_FRR_CUMULATIVE)
			route_frr_cumulative(s, r);
		else if (!s->f->routers[r].fare || !fare_rule(rr_rule))
			route_plain(s, r);
		else
			route_fare(s, r, p, rr_rule);
	}
}
