// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: what an event costs the control plane. For each prefix, the
 * fabric is routed before and after the event; a router sends an UPDATE
 * on a session that is up after the event when what it sends there
 * changed (the route, its AS_PATH, its Path Bandwidth communities); to a
 * peer whose AS is in the AS_PATH too (the peer drops it), as bgpd does
 * unless `neighbor X sender-as-path-loop-detection` is configured
 * (sender_loop_detection). Its distinct
 * weight vectors (next hops and weights) over the prefixes are the
 * nexthop groups it needs.
 */
#include <stdlib.h>
#include <string.h>

#include "fare_sim.h"

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdULL;
}

/* what r sends on adjacency ai, hashed; 0: nothing */
static uint64_t sent_hash(const struct sim_state *s, uint32_t r, uint32_t ai)
{
	const struct sim_rstate *rr = &s->r[r];
	struct sim_adv adv;
	uint64_t h = 1;
	uint32_t bits, i;

	if (!sim_sends_on(s, r, ai))
		return 0;
	sim_adv_on(s, r, s->f->adj[ai].link, &adv);
	for (i = 0; i < rr->n_as; i++)
		h = mix(h, rr->as_path[i]);
	if (adv.present) {
		memcpy(&bits, &adv.value, sizeof(bits));
		h = mix(mix(h, bits), s->f->routers[adv.writer].as);
	}
	if (adv.nt_present) {
		memcpy(&bits, &adv.nt_value, sizeof(bits));
		h = mix(h, bits | (1ULL << 32));
	}
	return h ? h : 1;
}

/* a router's weight vector for the prefix last routed, hashed */
static uint64_t vector_hash(const struct sim_state *s, uint32_t r)
{
	const struct sim_rstate *rr = &s->r[r];
	uint64_t h = 2;
	uint32_t j;

	for (j = 0; j < rr->n_mp; j++)
		h = mix(mix(h, s->f->adj[s->mp_adj[rr->mp_start + j]].link),
			s->mp_weight[rr->mp_start + j]);
	return h;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint32_t distinct(uint64_t *v, uint32_t n)
{
	uint32_t i, d = 0;

	qsort(v, n, sizeof(*v), u64_cmp);
	for (i = 0; i < n; i++)
		if (v[i] && (!i || v[i] != v[i - 1]))
			d++;
	return d;
}

int sim_event_count(const struct sim_fabric *before, const struct sim_fabric *after,
		    enum sim_rule rule, int only_prefix, uint32_t max_prefixes,
		    bool sender_loop_detection, struct sim_event *ev)
{
	const struct sim_fabric *f = before;
	uint32_t n_p = only_prefix >= 0 ? 1 : f->n_prefixes, p, r, i;
	struct sim_state sb, sa;
	uint64_t *vb, *va;

	if (max_prefixes && max_prefixes < n_p)
		n_p = max_prefixes;
	if (sim_state_init(&sb, before) < 0)
		return -1;
	if (sim_state_init(&sa, after) < 0) {
		sim_state_free(&sb);
		return -1;
	}
	sb.sender_loop_detection = sa.sender_loop_detection = sender_loop_detection;
	vb = calloc((size_t)f->n_routers * n_p + 1, sizeof(*vb));
	va = calloc((size_t)f->n_routers * n_p + 1, sizeof(*va));
	if (!vb || !va) {
		free(vb);
		free(va);
		sim_state_free(&sb);
		sim_state_free(&sa);
		return -1;
	}
	memset(ev->updates, 0, f->n_routers * sizeof(*ev->updates));
	for (p = 0; p < n_p; p++) {
		uint32_t pp = only_prefix >= 0 ? (uint32_t)only_prefix : p;

		sim_route_prefix(&sb, pp, rule);
		sim_route_prefix(&sa, pp, rule);
		for (r = 0; r < f->n_routers; r++) {
			const struct sim_router *rt = &f->routers[r];

			if (sb.r[r].dist > 0)
				vb[(size_t)r * n_p + p] = vector_hash(&sb, r);
			if (sa.r[r].dist > 0)
				va[(size_t)r * n_p + p] = vector_hash(&sa, r);
			for (i = rt->adj_start; i < rt->adj_start + rt->adj_n; i++) {
				/* a session down after the event sends nothing */
				if (!(after->links[f->adj[i].link].cur_bw > 0))
					continue;
				if (sent_hash(&sb, r, i) != sent_hash(&sa, r, i))
					ev->updates[r]++;
			}
		}
	}
	for (r = 0; r < f->n_routers; r++) {
		ev->vec_before[r] = distinct(vb + (size_t)r * n_p, n_p);
		ev->vec_after[r] = distinct(va + (size_t)r * n_p, n_p);
	}
	ev->prefixes = n_p;
	free(vb);
	free(va);
	sim_state_free(&sb);
	sim_state_free(&sa);
	return 0;
}
