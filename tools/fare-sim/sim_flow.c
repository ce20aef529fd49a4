// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: traffic through the weights (a fluid model: each router splits
 * what it has for a destination over its multipaths in proportion to their
 * weights) and the fabric's max-flow (Dinic) as the reference.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fare_sim.h"

void sim_flow_add(const struct sim_state *s, uint32_t prefix, const struct sim_demand *d, size_t n,
		  double *load, double *lost)
{
	const struct sim_fabric *f = s->f;
	double *amt = s->amount;
	size_t i;
	uint32_t k, j;

	(void)prefix;
	for (i = 0; i < n; i++) {
		if (s->r[d[i].src].dist < 0)
			*lost += d[i].amount;
		else
			amt[d[i].src] += d[i].amount;
	}
	/* farthest first: a router's next hops are one AS hop closer */
	for (k = s->n_order; k-- > 0;) {
		uint32_t r = s->order[k];
		const struct sim_rstate *rr = &s->r[r];
		double a = amt[r], wsum = 0;

		if (a <= 0)
			continue;
		amt[r] = 0;
		if (rr->originated)
			continue; /* delivered */
		for (j = 0; j < rr->n_mp; j++)
			wsum += s->mp_weight[rr->mp_start + j];
		if (wsum <= 0) {
			*lost += a;
			continue;
		}
		for (j = 0; j < rr->n_mp; j++) {
			const struct sim_adj *adj = &f->adj[s->mp_adj[rr->mp_start + j]];
			double share = a * s->mp_weight[rr->mp_start + j] / wsum;

			if (share <= 0)
				continue;
			load[2 * adj->link + (f->links[adj->link].a == r ? 0 : 1)] += share;
			amt[adj->peer] += share;
		}
	}
}

double sim_flow_lambda(const struct sim_fabric *f, const double *load)
{
	double lambda = INFINITY;
	uint32_t i;

	for (i = 0; i < 2 * f->n_links; i++) {
		double cap = f->links[i / 2].cur_bw;

		if (load[i] > 0 && cap / load[i] < lambda)
			lambda = cap / load[i];
	}
	return lambda;
}

/* ---- Dinic --------------------------------------------------------------- */

struct arc {
	uint32_t to;
	int64_t cap, res;
};

struct sim_maxflow {
	const struct sim_fabric *f;
	uint32_t n_nodes, src, sink;
	uint32_t *start; /* CSR: arcs of node v in [start[v], start[v + 1]) */
	struct arc *arcs;
	uint32_t n_arcs;
	uint32_t *link_arc; /* the a->b arc of each link; b->a is its pair */
	uint32_t *src_arc;  /* super-source -> router */
	uint32_t *sink_arc; /* router -> super-sink */
	uint32_t *rev;	    /* the reverse of each arc */
	int32_t *level;
	uint32_t *it, *queue;
};

#define FLOW_INF (INT64_MAX / 4)

static void arc_pair(struct sim_maxflow *m, uint32_t *fill, uint32_t u, uint32_t v, uint32_t *out)
{
	uint32_t a = m->start[u] + fill[u]++, b = m->start[v] + fill[v]++;

	m->arcs[a] = (struct arc){ .to = v };
	m->arcs[b] = (struct arc){ .to = u };
	m->rev[a] = b;
	m->rev[b] = a;
	*out = a;
}

struct sim_maxflow *sim_maxflow_new(const struct sim_fabric *f)
{
	struct sim_maxflow *m = calloc(1, sizeof(*m));
	uint32_t *deg, *fill, i, n;

	if (!m)
		return NULL;
	m->f = f;
	n = m->n_nodes = f->n_routers + 2;
	m->src = f->n_routers;
	m->sink = f->n_routers + 1;
	m->n_arcs = 2 * f->n_links + 4 * f->n_routers;
	m->start = calloc(n + 1, sizeof(*m->start));
	m->arcs = calloc(m->n_arcs, sizeof(*m->arcs));
	m->rev = calloc(m->n_arcs, sizeof(*m->rev));
	m->link_arc = calloc(f->n_links + 1, sizeof(*m->link_arc));
	m->src_arc = calloc(f->n_routers, sizeof(*m->src_arc));
	m->sink_arc = calloc(f->n_routers, sizeof(*m->sink_arc));
	m->level = calloc(n, sizeof(*m->level));
	m->it = calloc(n, sizeof(*m->it));
	m->queue = calloc(n, sizeof(*m->queue));
	deg = calloc(n, sizeof(*deg));
	fill = calloc(n, sizeof(*fill));
	if (!m->start || !m->arcs || !m->rev || !m->link_arc || !m->src_arc || !m->sink_arc ||
	    !m->level || !m->it || !m->queue || !deg || !fill) {
		free(deg);
		free(fill);
		sim_maxflow_free(m);
		return NULL;
	}
	for (i = 0; i < f->n_links; i++) {
		deg[f->links[i].a]++;
		deg[f->links[i].b]++;
	}
	for (i = 0; i < f->n_routers; i++)
		deg[i] += 2;
	deg[m->src] = deg[m->sink] = f->n_routers;
	for (i = 0; i < n; i++)
		m->start[i + 1] = m->start[i] + deg[i];
	/* a full-duplex link: one arc each way, each the other's reverse
	 * (the net flow over a link of capacity c each way)
	 */
	for (i = 0; i < f->n_links; i++)
		arc_pair(m, fill, f->links[i].a, f->links[i].b, &m->link_arc[i]);
	for (i = 0; i < f->n_routers; i++) {
		arc_pair(m, fill, m->src, i, &m->src_arc[i]);
		arc_pair(m, fill, i, m->sink, &m->sink_arc[i]);
	}
	free(deg);
	free(fill);
	return m;
}

void sim_maxflow_free(struct sim_maxflow *m)
{
	if (!m)
		return;
	free(m->start);
	free(m->arcs);
	free(m->rev);
	free(m->link_arc);
	free(m->src_arc);
	free(m->sink_arc);
	free(m->level);
	free(m->it);
	free(m->queue);
	free(m);
}

/* capacities from the links' current bandwidths; no source, no sink */
static void flow_reset(struct sim_maxflow *m)
{
	const struct sim_fabric *f = m->f;
	uint32_t i;

	for (i = 0; i < m->n_arcs; i++)
		m->arcs[i].cap = 0;
	for (i = 0; i < f->n_links; i++) {
		int64_t c = (int64_t)llround(f->links[i].cur_bw);
		uint32_t a = m->link_arc[i];

		m->arcs[a].cap = c;
		m->arcs[m->rev[a]].cap = c;
	}
}

/* An edge router (one that originates a prefix: a leaf, a GPU server) is
 * never transit: its links carry what it sends as a source and what it
 * receives as a sink, nothing through it. BGP never routes through one in
 * these fabrics (the spines' common AS, a host's SUN-1 role), so the
 * reference counts only paths a routing could use. Called once the
 * sources and sinks are set.
 */
static void flow_no_host_transit(struct sim_maxflow *m)
{
	const struct sim_fabric *f = m->f;
	uint32_t i;

	for (i = 0; i < f->n_links; i++) {
		const struct sim_link *l = &f->links[i];
		struct arc *ab = &m->arcs[m->link_arc[i]], *ba = &m->arcs[m->rev[m->link_arc[i]]];

		if (f->routers[l->a].originate) {
			if (!m->arcs[m->src_arc[l->a]].cap)
				ab->cap = 0;
			if (!m->arcs[m->sink_arc[l->a]].cap)
				ba->cap = 0;
		}
		if (f->routers[l->b].originate) {
			if (!m->arcs[m->src_arc[l->b]].cap)
				ba->cap = 0;
			if (!m->arcs[m->sink_arc[l->b]].cap)
				ab->cap = 0;
		}
	}
}

static bool flow_bfs(struct sim_maxflow *m)
{
	uint32_t head = 0, tail = 0, v, i;

	for (v = 0; v < m->n_nodes; v++)
		m->level[v] = -1;
	m->level[m->src] = 0;
	m->queue[tail++] = m->src;
	while (head < tail) {
		v = m->queue[head++];
		for (i = m->start[v]; i < m->start[v + 1]; i++) {
			struct arc *a = &m->arcs[i];

			if (a->res > 0 && m->level[a->to] < 0) {
				m->level[a->to] = m->level[v] + 1;
				m->queue[tail++] = a->to;
			}
		}
	}
	return m->level[m->sink] >= 0;
}

static int64_t flow_dfs(struct sim_maxflow *m, uint32_t v, int64_t pushed)
{
	if (v == m->sink)
		return pushed;
	for (; m->it[v] < m->start[v + 1]; m->it[v]++) {
		uint32_t i = m->it[v];
		struct arc *a = &m->arcs[i];
		int64_t got;

		if (a->res <= 0 || m->level[a->to] != m->level[v] + 1)
			continue;
		got = flow_dfs(m, a->to, pushed < a->res ? pushed : a->res);
		if (got > 0) {
			a->res -= got;
			m->arcs[m->rev[i]].res += got;
			return got;
		}
	}
	return 0;
}

static double flow_run(struct sim_maxflow *m)
{
	int64_t total = 0, got;
	uint32_t i;

	for (i = 0; i < m->n_arcs; i++)
		m->arcs[i].res = m->arcs[i].cap;
	while (flow_bfs(m)) {
		for (i = 0; i < m->n_nodes; i++)
			m->it[i] = m->start[i];
		while ((got = flow_dfs(m, m->src, FLOW_INF)) > 0)
			total += got;
	}
	return (double)total;
}

static void flow_sink_prefix(struct sim_maxflow *m, uint32_t prefix)
{
	const struct sim_prefix *p = &m->f->prefixes[prefix];
	uint32_t i;

	for (i = 0; i < p->n_origins; i++)
		m->arcs[m->sink_arc[p->origins[i]]].cap = FLOW_INF;
}

double sim_maxflow_pair(struct sim_maxflow *m, uint32_t src, uint32_t prefix)
{
	flow_reset(m);
	flow_sink_prefix(m, prefix);
	if (m->arcs[m->sink_arc[src]].cap)
		return INFINITY; /* the source is an origin */
	m->arcs[m->src_arc[src]].cap = FLOW_INF;
	flow_no_host_transit(m);
	return flow_run(m);
}

double sim_maxflow_concurrent_to_one(struct sim_maxflow *m, const struct sim_demand *d, size_t n,
				     uint32_t prefix)
{
	double lo = 0, hi = INFINITY, total = 0;
	size_t i;
	int iter;

	/* all sources at once, unlimited: lambda * total cannot exceed it */
	flow_reset(m);
	flow_sink_prefix(m, prefix);
	for (i = 0; i < n; i++) {
		if (m->arcs[m->sink_arc[d[i].src]].cap)
			continue; /* an origin itself: delivered */
		m->arcs[m->src_arc[d[i].src]].cap = FLOW_INF;
		total += d[i].amount;
	}
	flow_no_host_transit(m);
	if (total > 0)
		hi = flow_run(m) / total;
	/* bisection on lambda: every source at lambda * amount at once */
	for (iter = 0; iter < 30 && hi - lo > hi * 1e-6; iter++) {
		double mid = (lo + hi) / 2, want = 0;

		flow_reset(m);
		flow_sink_prefix(m, prefix);
		for (i = 0; i < n; i++) {
			int64_t c = (int64_t)floor(mid * d[i].amount);

			if (m->arcs[m->sink_arc[d[i].src]].cap)
				continue;
			m->arcs[m->src_arc[d[i].src]].cap += c;
			want += (double)c;
		}
		flow_no_host_transit(m);
		if (flow_run(m) >= want)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}
