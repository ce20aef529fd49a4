// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: what FARE gains on a fabric when links fail or degrade, and
 * what the control plane pays, computed with the module's own core
 * (doc/user/fare-sim.rst).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime(), strdup() */

#include <getopt.h>
#include <pthread.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fare_pathbw.h"
#include "fare_sim.h"

static const char usage_text[] =
	"usage: fare-sim COMMAND FABRIC [options]\n"
	"\n"
	"FABRIC: a fabric file (- for stdin) or gen:GENERATOR, e.g.\n"
	"  gen:clos3:leaves=512,spines=64,gbps=800\n"
	"\n"
	"commands:\n"
	"  gen       print the fabric in the text format (with its failures)\n"
	"  weights   each router's weights per prefix, and what it advertises\n"
	"  eval      throughput of a traffic pattern as a fraction of the max-flow,\n"
	"            for ECMP, FRR's link-bandwidth cumulative and each FARE mode\n"
	"  event     for the events given with --event: the UPDATEs each router\n"
	"            sends and its distinct weight vectors before and after\n"
	"\n"
	"options:\n"
	"  --fail-rate F     each link fails with probability F\n"
	"  --halve-rate H    each link not failed runs at half speed with probability H\n"
	"  --seed N          random failures, pairs and permutations (default 1)\n"
	"  --event LINE      an event (fail/degrade/restore, as in the file); repeatable\n"
	"  --rule R          weights, event: ecmp, frr-cumulative, draft, per-session,\n"
	"                    averaged or config (each router's own; the default)\n"
	"  --rules LIST      eval: the rules compared (default all but config)\n"
	"  --pattern P       eval: pairs, permutation (default) or all-to-one\n"
	"  --pairs N         eval: pairs: N random pairs (default 16); permutation:\n"
	"                    only N of its pairs (default all)\n"
	"  --dst NAME        eval all-to-one: the destination prefix (default random)\n"
	"  --prefix NAME     weights, event: this prefix only\n"
	"  --prefixes N      event: the first N prefixes only\n"
	"  --router NAME     weights: this router only\n"
	"  --csv             eval: one line per rule: pattern,fail,halve,rule,throughput\n"
	"  --all             event: every router (default: the 20 that send most)\n"
	"  --jobs N          eval: threads (default 2)\n"
	"  --top N           eval (not pairs): each rule's N most loaded link directions,\n"
	"                    load / capacity with the demands at the reference\n"
	"  --sender-loop-detection  event: no UPDATE to a peer whose AS is in the\n"
	"                    AS_PATH (bgpd's neighbor sender-as-path-loop-detection)\n"
	"\n"
	"fabric text format (one statement a line, # starts a comment):\n"
	"  fabric [rule=draft|per-session|averaged] [max-weight=N] [max-members=N]\n"
	"  router NAME as=ASN [tier=N] [role=node|super-spine|host] [rule=R]\n"
	"         [fare=on|off] [originate[=BANDWIDTH]] [multihoming=K] [lower-transitive]\n"
	"         [max-weight=N] [max-members=N]\n"
	"  link A B BANDWIDTH [count=N] [boundary[=A|B]] [down]  (800G, 1.6T, 400000 = Mb/s)\n"
	"  prefix NAME ROUTER... [multihoming=K [at=ROUTER,...]]\n"
	"  fail A B [N]  |  degrade A B BANDWIDTH [N]  |  restore A B [N]\n"
	"generators: clos3:leaves=,spines=,links=,gbps=,gpus=\n"
	"            clos5:pods=,leaves=,spines=,supers=,gbps=,gpus=\n"
	"            scaleup:servers=,planes=,subports=,gbps=,gpus=\n";

struct opts {
	double fail_rate, halve_rate;
	uint64_t seed;
	char **events;
	int n_events;
	int rule;
	bool rules[SIM_RULE_MAX];
	const char *pattern, *dst, *prefix, *router;
	uint32_t pairs, prefixes, top;
	bool csv, all, sender_loop;
	unsigned int jobs;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static void die(const char *msg)
{
	fprintf(stderr, "fare-sim: %s\n", msg);
	exit(2);
}

static void load_fabric(struct sim_fabric *f, const char *arg, const struct opts *o)
{
	char err[SIM_ERR_LEN];
	int ret;

	sim_fabric_init(f);
	if (!strncmp(arg, "gen:", 4)) {
		ret = sim_fabric_generate(f, arg + 4, err, sizeof(err));
	} else {
		FILE *in = strcmp(arg, "-") ? fopen(arg, "r") : stdin;

		if (!in) {
			snprintf(err, sizeof(err), "%s: cannot open", arg);
			die(err);
		}
		ret = sim_fabric_parse(f, in, arg, err, sizeof(err));
		if (in != stdin)
			fclose(in);
	}
	if (ret < 0)
		die(err);
	if (o->fail_rate > 0 || o->halve_rate > 0)
		sim_fabric_random_failures(f, o->fail_rate, o->halve_rate, o->seed);
}

static void apply_events(struct sim_fabric *f, const struct opts *o)
{
	char err[SIM_ERR_LEN];
	int i;

	for (i = 0; i < o->n_events; i++)
		if (sim_fabric_event(f, o->events[i], err, sizeof(err)) < 0)
			die(err);
}

static int prefix_find(const struct sim_fabric *f, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->n_prefixes; i++)
		if (!strcmp(f->prefixes[i].name, name))
			return (int)i;
	return -1;
}

static void summary(const struct sim_fabric *f)
{
	uint32_t i, down = 0, degraded = 0;

	for (i = 0; i < f->n_links; i++) {
		if (!f->links[i].cur_bw)
			down++;
		else if (f->links[i].cur_bw < f->links[i].bw)
			degraded++;
	}
	printf("fabric: %u routers, %u links, %u prefixes", f->n_routers, f->n_links, f->n_prefixes);
	if (f->gpus)
		printf(", %llu GPUs", (unsigned long long)f->gpus);
	printf("; %u links down, %u degraded\n", down, degraded);
}

/* ---- weights --------------------------------------------------------------- */

static void print_bw(double v)
{
	char buf[32];

	fare_bw_format(buf, sizeof(buf), v);
	printf("%s", buf);
}

static int cmd_weights(struct sim_fabric *f, const struct opts *o)
{
	struct sim_state s;
	uint32_t p, k, j;
	int only_p = -1, only_r = -1;

	if (o->prefix && (only_p = prefix_find(f, o->prefix)) < 0)
		die("--prefix: no such prefix");
	if (o->router && (only_r = sim_router_find(f, o->router)) < 0)
		die("--router: no such router");
	if (sim_state_init(&s, f) < 0)
		die("out of memory");
	for (p = 0; p < f->n_prefixes; p++) {
		if (only_p >= 0 && p != (uint32_t)only_p)
			continue;
		sim_route_prefix(&s, p, o->rule);
		for (k = 0; k < s.n_order; k++) {
			uint32_t r = s.order[k];
			const struct sim_rstate *rr = &s.r[r];

			if (rr->originated || (only_r >= 0 && r != (uint32_t)only_r))
				continue;
			printf("%s %s %s", f->routers[r].name, f->prefixes[p].name,
			       rr->wcmp ? "wcmp" : "ecmp");
			for (j = 0; j < rr->n_mp; j++) {
				const struct sim_adj *a = &f->adj[s.mp_adj[rr->mp_start + j]];

				printf(" %s#%u=%u", f->routers[a->peer].name,
				       f->links[a->link].parallel, s.mp_weight[rr->mp_start + j]);
			}
			if (rr->t_present) {
				printf(" sum=");
				print_bw(rr->t_value);
			}
			printf("\n");
		}
	}
	sim_state_free(&s);
	return 0;
}

/* ---- eval ------------------------------------------------------------------ */

struct pattern {
	struct sim_demand *d; /* grouped by destination prefix */
	size_t n;
};

static uint32_t *sources(const struct sim_fabric *f, uint32_t *n)
{
	uint32_t *src = malloc((f->n_routers + 1) * sizeof(*src)), i;

	*n = 0;
	for (i = 0; src && i < f->n_routers; i++)
		if (f->routers[i].originate)
			src[(*n)++] = i;
	return src;
}

/* the prefix a router originates as its own */
static int own_prefix(const struct sim_fabric *f, uint32_t r)
{
	return prefix_find(f, f->routers[r].name);
}

static int demand_cmp(const void *a, const void *b)
{
	const struct sim_demand *x = a, *y = b;

	return x->dst < y->dst ? -1 : x->dst > y->dst;
}

static void make_pattern(const struct sim_fabric *f, const struct opts *o, struct pattern *pt)
{
	uint32_t n_src, i, *src = sources(f, &n_src), *perm;
	uint64_t s = o->seed * 0x9E3779B97F4A7C15ULL + 7;

	if (!src || n_src < 2)
		die("eval needs two routers that originate a prefix");
	pt->d = calloc(n_src + o->pairs + 1, sizeof(*pt->d));
	pt->n = 0;
	if (!pt->d)
		die("out of memory");
	if (!strcmp(o->pattern, "all-to-one")) {
		int dst = o->dst ? prefix_find(f, o->dst) : own_prefix(f, src[rnd(&s) % n_src]);

		if (dst < 0)
			die("--dst: no such prefix");
		for (i = 0; i < n_src; i++)
			if (own_prefix(f, src[i]) != dst)
				pt->d[pt->n++] = (struct sim_demand){ src[i], dst, 1 };
	} else if (!strcmp(o->pattern, "permutation")) {
		/* a random derangement: Sattolo's algorithm gives one cycle */
		perm = malloc(n_src * sizeof(*perm));
		if (!perm)
			die("out of memory");
		for (i = 0; i < n_src; i++)
			perm[i] = i;
		for (i = n_src - 1; i > 0; i--) {
			uint32_t j = rnd(&s) % i, t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		for (i = 0; i < n_src && (!o->pairs || pt->n < o->pairs); i++)
			pt->d[pt->n++] = (struct sim_demand){ src[i], own_prefix(f, src[perm[i]]),
							      1 };
		free(perm);
	} else if (!strcmp(o->pattern, "pairs")) {
		uint32_t want = o->pairs ? o->pairs : 16;

		free(pt->d);
		pt->d = calloc(want, sizeof(*pt->d));
		if (!pt->d)
			die("out of memory");
		while (pt->n < want) {
			uint32_t a = src[rnd(&s) % n_src], b = src[rnd(&s) % n_src];

			if (a != b)
				pt->d[pt->n++] = (struct sim_demand){ a, own_prefix(f, b), 1 };
		}
	} else {
		die("--pattern: pairs, permutation or all-to-one");
	}
	free(src);
	qsort(pt->d, pt->n, sizeof(*pt->d), demand_cmp);
}

/* A share of a rule's evaluation for one thread: the destination groups
 * g with g % n_workers == id (a group: the demands towards one prefix; in
 * the pairs pattern each pair alone)
 */
struct worker {
	const struct sim_fabric *f;
	const struct pattern *pt;
	const size_t *group; /* group g: demands [group[g], group[g + 1]) */
	size_t n_groups;
	unsigned int id, n_workers;
	enum sim_rule rule;
	bool pairs;
	const double *opt;
	double *load, lost, thr, worst; /* out */
	pthread_t thread;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	const struct sim_demand *d = w->pt->d;
	struct sim_state s;
	size_t g, bytes = 2 * w->f->n_links * sizeof(*w->load);

	if (sim_state_init(&s, w->f) < 0)
		die("out of memory");
	w->worst = INFINITY;
	memset(w->load, 0, bytes);
	for (g = w->id; g < w->n_groups; g += w->n_workers) {
		size_t i = w->group[g], j = w->group[g + 1];

		if (w->pairs)
			memset(w->load, 0, bytes);
		sim_route_prefix(&s, d[i].dst, w->rule);
		sim_flow_add(&s, d[i].dst, d + i, j - i, w->load, &w->lost);
		if (w->pairs) {
			double l = sim_flow_lambda(w->f, w->load);
			double x = w->opt[i] > 0 && isfinite(w->opt[i]) ? fmin(l / w->opt[i], 1) : 1;

			w->thr += x;
			if (x < w->worst)
				w->worst = x;
		}
	}
	sim_state_free(&s);
	return NULL;
}

/* one rule over the pattern, on n_workers threads: the pattern's lambda
 * (all demands at once), or for pairs the mean and worst of their
 * throughputs
 */
static const double *sort_util;

static int util_cmp(const void *a, const void *b)
{
	double x = sort_util[*(const uint32_t *)a], y = sort_util[*(const uint32_t *)b];

	return x < y ? 1 : x > y ? -1 : 0;
}

/* --top N: the N link directions with the most load for their capacity
 * when the demands are at the reference (above 1: overloaded there)
 */
static void print_top(const struct sim_fabric *f, const double *load, double ref, uint32_t top)
{
	uint32_t n = 2 * f->n_links, i, *idx = malloc((n + 1) * sizeof(*idx));
	double *util = malloc((n + 1) * sizeof(*util));

	if (!idx || !util)
		die("out of memory");
	for (i = 0; i < n; i++) {
		double cap = f->links[i / 2].cur_bw;

		idx[i] = i;
		util[i] = cap > 0 ? load[i] * ref / cap : 0;
	}
	sort_util = util;
	qsort(idx, n, sizeof(*idx), util_cmp);
	for (i = 0; i < top && i < n && util[idx[i]] > 0; i++) {
		const struct sim_link *l = &f->links[idx[i] / 2];
		uint32_t from = idx[i] % 2 ? l->b : l->a, to = idx[i] % 2 ? l->a : l->b;
		char buf[32];

		fare_bw_format(buf, sizeof(buf), l->cur_bw);
		printf("    %s -> %s #%u (%s): %.3f\n", f->routers[from].name, f->routers[to].name,
		       l->parallel, buf, util[idx[i]]);
	}
	free(idx);
	free(util);
}

static void evaluate(const struct sim_fabric *f, const struct pattern *pt, const size_t *group,
		     size_t n_groups, enum sim_rule rule, bool pairs, const double *opt,
		     unsigned int n_workers, double *load_out, double *thr, double *worst,
		     double *lost)
{
	struct worker *w = calloc(n_workers, sizeof(*w));
	unsigned int t;
	size_t i;

	if (!w)
		die("out of memory");
	for (t = 0; t < n_workers; t++) {
		w[t] = (struct worker){ .f = f,
					.pt = pt,
					.group = group,
					.n_groups = n_groups,
					.id = t,
					.n_workers = n_workers,
					.rule = rule,
					.pairs = pairs,
					.opt = opt };
		w[t].load = malloc(2 * f->n_links * sizeof(*w[t].load) + 1);
		if (!w[t].load)
			die("out of memory");
		if (t && pthread_create(&w[t].thread, NULL, worker_run, &w[t]))
			die("pthread_create failed");
	}
	worker_run(&w[0]);
	*thr = 0;
	*worst = INFINITY;
	*lost = 0;
	for (t = 0; t < n_workers; t++) {
		if (t)
			pthread_join(w[t].thread, NULL);
		*lost += w[t].lost;
		*thr += w[t].thr;
		*worst = fmin(*worst, w[t].worst);
		if (t)
			for (i = 0; i < 2 * f->n_links; i++)
				w[0].load[i] += w[t].load[i];
	}
	if (pairs)
		*thr /= pt->n;
	else
		*thr = opt[0] > 0 ? fmin(sim_flow_lambda(f, w[0].load) / opt[0], 1) : 0;
	if (load_out)
		memcpy(load_out, w[0].load, 2 * f->n_links * sizeof(*load_out));
	for (t = 0; t < n_workers; t++)
		free(w[t].load);
	free(w);
}

static int cmd_eval(struct sim_fabric *f, const struct opts *o)
{
	struct pattern pt;
	struct sim_maxflow *mf = sim_maxflow_new(f);
	double *opt, t0 = now(), t_opt, total = 0;
	bool pairs = !strcmp(o->pattern, "pairs");
	size_t i, *group, n_groups = 0;
	double *top_load = NULL;
	int rule;

	if (!mf)
		die("out of memory");
	make_pattern(f, o, &pt);
	if (o->top && !pairs && !o->csv &&
	    !(top_load = calloc(2 * f->n_links + 1, sizeof(*top_load))))
		die("out of memory");
	group = calloc(pt.n + 1, sizeof(*group));
	if (!group)
		die("out of memory");
	for (i = 0; i < pt.n; i++)
		if (pairs || !i || pt.d[i].dst != pt.d[i - 1].dst)
			group[n_groups++] = i;
	group[n_groups] = pt.n;
	for (i = 0; i < pt.n; i++)
		total += pt.d[i].amount;
	/* the reference: per pair its max-flow; all-to-one the concurrent
	 * optimum; a permutation the smallest of its pairs' max-flows (an
	 * upper bound of its concurrent optimum)
	 */
	opt = calloc(pt.n + 1, sizeof(*opt));
	if (!opt)
		die("out of memory");
	if (!strcmp(o->pattern, "all-to-one")) {
		opt[0] = sim_maxflow_concurrent_to_one(mf, pt.d, pt.n, pt.d[0].dst);
	} else {
		opt[0] = INFINITY;
		for (i = 0; i < pt.n; i++) {
			opt[i] = sim_maxflow_pair(mf, pt.d[i].src, pt.d[i].dst) / pt.d[i].amount;
			if (!pairs && opt[i] < opt[0])
				opt[0] = opt[i];
		}
	}
	t_opt = now() - t0;
	if (!o->csv) {
		summary(f);
		printf("pattern %s: %zu demands; reference lambda ", o->pattern, pt.n);
		if (pairs)
			printf("per pair (its max-flow)\n");
		else
			printf("%.6g bytes/s per demand unit (%s)\n", opt[0],
			       strcmp(o->pattern, "all-to-one") ? "smallest pair max-flow"
								: "concurrent max-flow");
		printf("max-flow: %.2f s\n", t_opt);
		printf("%-15s %10s %10s %8s %8s\n", "rule", "throughput", pairs ? "worst" : "",
		       "lost", "time s");
	}
	for (rule = 0; rule < SIM_RULE_MAX; rule++) {
		double t1 = now(), thr = 0, worst = INFINITY, lost = 0;

		if (!o->rules[rule])
			continue;
		evaluate(f, &pt, group, n_groups, rule, pairs, opt, o->jobs, top_load, &thr, &worst,
			 &lost);
		if (!pairs && lost > 0)
			thr = 0; /* a demand without a route */
		if (o->csv)
			printf("%s,%g,%g,%s,%.6f\n", o->pattern, o->fail_rate, o->halve_rate,
			       sim_rule_str(rule), thr);
		else if (pairs)
			printf("%-15s %10.4f %10.4f %8.4f %8.2f\n", sim_rule_str(rule), thr, worst,
			       lost / total, now() - t1);
		else
			printf("%-15s %10.4f %10s %8.4f %8.2f\n", sim_rule_str(rule), thr, "",
			       lost / total, now() - t1);
		if (top_load)
			print_top(f, top_load, opt[0], o->top);
	}
	if (!o->csv)
		printf("total: %.2f s\n", now() - t0);
	free(opt);
	free(top_load);
	free(group);
	free(pt.d);
	sim_maxflow_free(mf);
	return 0;
}

/* ---- event ----------------------------------------------------------------- */

struct ev_row {
	uint32_t router;
	uint64_t updates;
	uint32_t vec_before, vec_after;
};

static int ev_row_cmp(const void *a, const void *b)
{
	const struct ev_row *x = a, *y = b;

	if (x->updates != y->updates)
		return x->updates > y->updates ? -1 : 1;
	return x->router < y->router ? -1 : 1;
}

static int cmd_event(struct sim_fabric *f, const struct opts *o)
{
	struct sim_fabric after;
	struct sim_event ev = {};
	uint32_t n_p = f->n_prefixes, k, r, i, tier, max_tier = 0;
	uint64_t total = 0;
	struct ev_row *rows;
	int only_p = -1;
	double t0 = now();

	if (!o->n_events)
		die("event: give the event with --event 'fail A B'");
	if (o->prefix && (only_p = prefix_find(f, o->prefix)) < 0)
		die("--prefix: no such prefix");
	if (o->prefixes && o->prefixes < n_p)
		n_p = o->prefixes;
	/* the same fabric, the events applied */
	after = *f;
	after.links = malloc((f->n_links + 1) * sizeof(*after.links));
	if (!after.links)
		die("out of memory");
	memcpy(after.links, f->links, f->n_links * sizeof(*after.links));
	apply_events(&after, o);
	rows = calloc(f->n_routers, sizeof(*rows));
	ev.updates = calloc(f->n_routers, sizeof(*ev.updates));
	ev.vec_before = calloc(f->n_routers, sizeof(*ev.vec_before));
	ev.vec_after = calloc(f->n_routers, sizeof(*ev.vec_after));
	if (!rows || !ev.updates || !ev.vec_before || !ev.vec_after)
		die("out of memory");
	if (sim_event_count(f, &after, o->rule, only_p, n_p, o->sender_loop, &ev) < 0)
		die("out of memory");
	for (r = 0; r < f->n_routers; r++) {
		rows[r] = (struct ev_row){ r, ev.updates[r], ev.vec_before[r], ev.vec_after[r] };
		total += rows[r].updates;
		if (f->routers[r].tier > (int)max_tier)
			max_tier = f->routers[r].tier;
	}
	summary(f);
	printf("events:");
	for (i = 0; i < (uint32_t)o->n_events; i++)
		printf(" [%s]", o->events[i]);
	printf("; rule %s; %u prefixes%s\n", sim_rule_str(o->rule), ev.prefixes,
	       o->sender_loop ? "; sender-side AS_PATH loop detection" : "");
	printf("UPDATEs sent: %llu in all\n", (unsigned long long)total);
	printf("%-6s %8s %10s %12s %12s %12s\n", "tier", "routers", "UPDATEs", "max/router",
	       "vectors(b)", "vectors(a)");
	for (tier = 0; tier <= max_tier; tier++) {
		uint64_t u = 0, mx = 0, b = 0, a = 0;
		uint32_t n = 0;

		for (r = 0; r < f->n_routers; r++) {
			if (f->routers[r].tier != (int)tier)
				continue;
			n++;
			u += rows[r].updates;
			if (rows[r].updates > mx)
				mx = rows[r].updates;
			b = rows[r].vec_before > b ? rows[r].vec_before : b;
			a = rows[r].vec_after > a ? rows[r].vec_after : a;
		}
		if (n)
			printf("%-6u %8u %10llu %12llu %12llu %12llu\n", tier, n,
			       (unsigned long long)u, (unsigned long long)mx, (unsigned long long)b,
			       (unsigned long long)a);
	}
	printf("(vectors: the most distinct weight vectors of a router of the tier)\n");
	qsort(rows, f->n_routers, sizeof(*rows), ev_row_cmp);
	printf("%-24s %10s %12s %12s\n", "router", "UPDATEs", "vectors(b)", "vectors(a)");
	for (k = 0; k < f->n_routers && (o->all || k < 20); k++) {
		if (!o->all && !rows[k].updates)
			break;
		printf("%-24s %10llu %12u %12u\n", f->routers[rows[k].router].name,
		       (unsigned long long)rows[k].updates, rows[k].vec_before, rows[k].vec_after);
	}
	printf("time: %.2f s\n", now() - t0);
	free(rows);
	free(ev.updates);
	free(ev.vec_before);
	free(ev.vec_after);
	free(after.links);
	return 0;
}

/* ---- main ------------------------------------------------------------------ */

static int parse_rules(const char *list, bool *rules)
{
	char *copy = strdup(list), *save = NULL, *tok;
	int ret = 0;

	memset(rules, 0, SIM_RULE_MAX * sizeof(*rules));
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int r = sim_rule_parse(tok);

		if (r < 0) {
			ret = -1;
			break;
		}
		rules[r] = true;
	}
	free(copy);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "fail-rate", required_argument, NULL, 'f' },
		{ "halve-rate", required_argument, NULL, 'h' },
		{ "seed", required_argument, NULL, 's' },
		{ "event", required_argument, NULL, 'e' },
		{ "rule", required_argument, NULL, 'r' },
		{ "rules", required_argument, NULL, 'R' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "pairs", required_argument, NULL, 'n' },
		{ "dst", required_argument, NULL, 'd' },
		{ "prefix", required_argument, NULL, 'P' },
		{ "prefixes", required_argument, NULL, 'N' },
		{ "router", required_argument, NULL, 'o' },
		{ "csv", no_argument, NULL, 'c' },
		{ "all", no_argument, NULL, 'a' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "top", required_argument, NULL, 't' },
		{ "sender-loop-detection", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .seed = 1, .rule = SIM_RULE_CONFIG, .pattern = "permutation", .jobs = 2 };
	struct sim_fabric f;
	const char *cmd, *fabric;
	int c, ret;

	parse_rules("ecmp,frr-cumulative,draft,per-session,averaged", o.rules);
	o.events = calloc(argc + 1, sizeof(*o.events));
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'f':
		case 'h': {
			double v = strtod(optarg, &end);

			if (*end || !(v >= 0 && v <= 1))
				die("--fail-rate, --halve-rate: a number in [0, 1]");
			*(c == 'f' ? &o.fail_rate : &o.halve_rate) = v;
			break;
		}
		case 's':
			o.seed = strtoull(optarg, &end, 10);
			if (*end)
				die("--seed: a number");
			break;
		case 'e':
			o.events[o.n_events++] = optarg;
			break;
		case 'r':
			if ((o.rule = sim_rule_parse(optarg)) < 0)
				die("--rule: ecmp, frr-cumulative, draft, per-session, averaged or config");
			break;
		case 'R':
			if (parse_rules(optarg, o.rules) < 0)
				die("--rules: a comma-separated list of rules");
			break;
		case 'p':
			o.pattern = optarg;
			break;
		case 'n':
		case 'N':
		case 't': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > UINT32_MAX)
				die("--pairs, --prefixes, --top: a positive number");
			*(c == 'n' ? &o.pairs : c == 'N' ? &o.prefixes : &o.top) = (uint32_t)v;
			break;
		}
		case 'j': {
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || !v || v > 64)
				die("--jobs: 1 to 64");
			o.jobs = (unsigned int)v;
			break;
		}
		case 'd':
			o.dst = optarg;
			break;
		case 'P':
			o.prefix = optarg;
			break;
		case 'o':
			o.router = optarg;
			break;
		case 'c':
			o.csv = true;
			break;
		case 'a':
			o.all = true;
			break;
		case 'L':
			o.sender_loop = true;
			break;
		case 'H':
			fputs(usage_text, stdout);
			return 0;
		default:
			fputs(usage_text, stderr);
			return 2;
		}
	}
	if (argc - optind != 2) {
		fputs(usage_text, stderr);
		return 2;
	}
	cmd = argv[optind];
	fabric = argv[optind + 1];
	load_fabric(&f, fabric, &o);
	if (!strcmp(cmd, "gen")) {
		apply_events(&f, &o);
		sim_fabric_write(&f, stdout);
		ret = 0;
	} else if (!strcmp(cmd, "weights")) {
		apply_events(&f, &o);
		ret = cmd_weights(&f, &o);
	} else if (!strcmp(cmd, "eval")) {
		apply_events(&f, &o);
		ret = cmd_eval(&f, &o);
	} else if (!strcmp(cmd, "event")) {
		ret = cmd_event(&f, &o);
	} else {
		fprintf(stderr, "fare-sim: unknown command '%s'\n", cmd);
		fputs(usage_text, stderr);
		ret = 2;
	}
	sim_fabric_free(&f);
	free(o.events);
	return ret;
}
