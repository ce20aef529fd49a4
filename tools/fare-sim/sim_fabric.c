// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: the fabric text format (doc/user/fare-sim.rst), its parser,
 * the generators of 3-stage and 5-stage Clos and multi-plane scale-up
 * fabrics, and failures given as a list or as rates.
 */
#define _POSIX_C_SOURCE 200809L /* fmemopen(), strdup(), strtok_r() */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fare_pathbw.h"
#include "fare_sim.h"

#define LINE_MAX_WORDS 64

static const char *const rule_names[SIM_RULE_MAX] = {
	[SIM_RULE_ECMP] = "ecmp",	  [SIM_RULE_FRR_CUMULATIVE] = "frr-cumulative",
	[SIM_RULE_DRAFT] = "draft",	  [SIM_RULE_PER_SESSION] = "per-session",
	[SIM_RULE_AVERAGED] = "averaged", [SIM_RULE_CONFIG] = "config",
};

const char *sim_rule_str(enum sim_rule rule)
{
	return rule < SIM_RULE_MAX ? rule_names[rule] : "?";
}

int sim_rule_parse(const char *s)
{
	int i;

	for (i = 0; i < SIM_RULE_MAX; i++)
		if (!strcmp(s, rule_names[i]))
			return i;
	return -1;
}

static void *grow(void *p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return p;
	while (c < need)
		c *= 2;
	p = realloc(p, (size_t)c * size);
	if (!p) {
		fprintf(stderr, "fare-sim: out of memory\n");
		exit(2);
	}
	*cap = c;
	return p;
}

void sim_fabric_init(struct sim_fabric *f)
{
	memset(f, 0, sizeof(*f));
	f->rule = SIM_RULE_DRAFT;
	/* the module's defaults: bgp fare wcmp max-weight 254, max-members 512 */
	f->limits.max_weight = 254;
	f->limits.max_members = 512;
}

void sim_fabric_free(struct sim_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->n_prefixes; i++) {
		free(f->prefixes[i].origins);
		free(f->prefixes[i].mh_at);
	}
	free(f->prefixes);
	free(f->routers);
	free(f->links);
	free(f->adj);
	memset(f, 0, sizeof(*f));
}

static int fail(char *err, size_t errlen, unsigned int lineno, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (lineno)
		n = snprintf(err, errlen, "line %u: ", lineno);
	if (n < 0 || (size_t)n >= errlen)
		n = 0;
	va_start(ap, fmt);
	vsnprintf(err + n, errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

bool sim_boundary(const struct sim_fabric *f, uint32_t link, uint32_t r)
{
	const struct sim_link *l = &f->links[link];

	return l->boundary & (l->a == r ? 1 : 2);
}

int sim_router_find(const struct sim_fabric *f, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->n_routers; i++)
		if (!strcmp(f->routers[i].name, name))
			return (int)i;
	return -1;
}

/* A bandwidth as the module's `neighbor X fare link-bandwidth` takes it
 * (fare_bw_parse(): "800G", "1.6T", a plain number in Mbps), in bytes/s
 */
bool sim_bw_parse(const char *s, double *bytes_per_sec)
{
	return fare_bw_parse(s, bytes_per_sec) && *bytes_per_sec < FARE_PATHBW_MAX_BYTES_PER_SEC;
}

static bool parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static struct sim_router *add_router(struct sim_fabric *f, const char *name, uint32_t as, int tier)
{
	struct sim_router *r;

	f->routers = grow(f->routers, &f->cap_routers, f->n_routers + 1, sizeof(*r));
	r = &f->routers[f->n_routers++];
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->as = as;
	r->tier = tier;
	r->role = FARE_ROLE_NODE;
	r->fare = true;
	r->originate_bw = FARE_PATHBW_MAX_BYTES_PER_SEC;
	r->rule = SIM_RULE_CONFIG; /* the fabric's default */
	r->limits = f->limits;
	return r;
}

static const struct sim_link *sort_links;

static int link_pair_cmp(const void *x, const void *y)
{
	const struct sim_link *a = &sort_links[*(const uint32_t *)x];
	const struct sim_link *b = &sort_links[*(const uint32_t *)y];
	uint32_t a1 = a->a < a->b ? a->a : a->b, a2 = a->a < a->b ? a->b : a->a;
	uint32_t b1 = b->a < b->b ? b->a : b->b, b2 = b->a < b->b ? b->b : b->a;

	if (a1 != b1)
		return a1 < b1 ? -1 : 1;
	if (a2 != b2)
		return a2 < b2 ? -1 : 1;
	return *(const uint32_t *)x < *(const uint32_t *)y ? -1 : 1;
}

/* Each link's 1-based index among the links between its two routers, in
 * the order they were declared.
 */
static int number_parallel(struct sim_fabric *f)
{
	uint32_t *idx = malloc(((size_t)f->n_links + 1) * sizeof(*idx)), i;

	if (!idx)
		return -1;
	for (i = 0; i < f->n_links; i++)
		idx[i] = i;
	sort_links = f->links;
	qsort(idx, f->n_links, sizeof(*idx), link_pair_cmp);
	for (i = 0; i < f->n_links; i++) {
		struct sim_link *l = &f->links[idx[i]];

		l->parallel = 1;
		if (i) {
			const struct sim_link *p = &f->links[idx[i - 1]];

			if ((p->a == l->a && p->b == l->b) || (p->a == l->b && p->b == l->a))
				l->parallel = p->parallel + 1;
		}
	}
	free(idx);
	return 0;
}

static void add_link(struct sim_fabric *f, uint32_t a, uint32_t b, double bw, uint32_t parallel,
		     unsigned int lineno)
{
	struct sim_link *l;

	f->links = grow(f->links, &f->cap_links, f->n_links + 1, sizeof(*l));
	l = &f->links[f->n_links++];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->bw = l->cur_bw = bw;
	l->parallel = parallel;
	l->lineno = lineno;
}

static struct sim_prefix *add_prefix(struct sim_fabric *f, const char *name)
{
	struct sim_prefix *p;

	f->prefixes = grow(f->prefixes, &f->cap_prefixes, f->n_prefixes + 1, sizeof(*p));
	p = &f->prefixes[f->n_prefixes++];
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

static int split_words(char *line, char **w)
{
	int n = 0;
	char *p = strchr(line, '#');

	if (p)
		*p = '\0';
	for (p = strtok(line, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
		if (n == LINE_MAX_WORDS)
			return -1;
		w[n++] = p;
	}
	return n;
}

/* key=value; returns the value or NULL when w is not "key=..." */
static const char *kv(const char *w, const char *key)
{
	size_t n = strlen(key);

	return !strncmp(w, key, n) && w[n] == '=' ? w + n + 1 : NULL;
}

static int parse_fare_rule(const char *v)
{
	int rule = sim_rule_parse(v);

	if (rule != SIM_RULE_DRAFT && rule != SIM_RULE_PER_SESSION && rule != SIM_RULE_AVERAGED)
		return -1;
	return rule;
}

/* The options a `fabric` and a `router` line share: max-weight=,
 * max-members= (WP-3) and rule=. *matched: w was one of them.
 */
static int common_option(const char *w, struct fare_wcmp_limits *lim, enum sim_rule *rule,
			 bool *matched, unsigned int ln, char *err, size_t errlen)
{
	const char *v;
	uint32_t *field = NULL;
	int r;

	*matched = true;
	if ((v = kv(w, "max-weight")))
		field = &lim->max_weight;
	else if ((v = kv(w, "max-members")))
		field = &lim->max_members;
	if (field) {
		if (!parse_u32(v, field) || !*field)
			return fail(err, errlen, ln, "bad value in '%s' (a positive integer)", w);
		return 0;
	}
	if ((v = kv(w, "rule"))) {
		if ((r = parse_fare_rule(v)) < 0)
			return fail(err, errlen, ln, "rule '%s': draft, per-session or averaged", v);
		*rule = r;
		return 0;
	}
	*matched = false;
	return 0;
}

static int line_fabric(struct sim_fabric *f, char **w, int n, unsigned int ln, char *err,
		       size_t errlen)
{
	int i;

	if (f->n_routers)
		return fail(err, errlen, ln, "`fabric` must come before the first router");
	for (i = 1; i < n; i++) {
		bool matched;

		if (common_option(w[i], &f->limits, &f->rule, &matched, ln, err, errlen) < 0)
			return -1;
		if (!matched)
			return fail(err, errlen, ln, "unknown fabric option '%s'", w[i]);
	}
	return 0;
}

static int line_router(struct sim_fabric *f, char **w, int n, unsigned int ln, char *err,
		       size_t errlen)
{
	struct sim_router *r;
	bool have_as = false;
	int i;

	if (n < 2)
		return fail(err, errlen, ln, "router: a name expected");
	if (strlen(w[1]) >= SIM_NAME_LEN)
		return fail(err, errlen, ln, "router name '%s' longer than %d characters", w[1],
			    SIM_NAME_LEN - 1);
	if (sim_router_find(f, w[1]) >= 0)
		return fail(err, errlen, ln, "router '%s' declared twice", w[1]);
	r = add_router(f, w[1], 0, 0);
	for (i = 2; i < n; i++) {
		const char *v;
		uint32_t u;
		bool matched;

		if (common_option(w[i], &r->limits, &r->rule, &matched, ln, err, errlen) < 0)
			return -1;
		if (matched)
			continue;
		if ((v = kv(w[i], "as"))) {
			if (!parse_u32(v, &r->as) || !r->as)
				return fail(err, errlen, ln, "as '%s': 1 to 4294967295", v);
			have_as = true;
		} else if ((v = kv(w[i], "tier"))) {
			if (!parse_u32(v, &u) || u > 16)
				return fail(err, errlen, ln, "tier '%s': 0 to 16", v);
			r->tier = (int)u;
		} else if ((v = kv(w[i], "role"))) {
			if (!strcmp(v, "node"))
				r->role = FARE_ROLE_NODE;
			else if (!strcmp(v, "super-spine"))
				r->role = FARE_ROLE_SUPER_SPINE;
			else if (!strcmp(v, "host"))
				r->role = FARE_ROLE_HOST;
			else
				return fail(err, errlen, ln, "role '%s': node, super-spine or host",
					    v);
		} else if ((v = kv(w[i], "fare"))) {
			if (strcmp(v, "on") && strcmp(v, "off"))
				return fail(err, errlen, ln, "fare '%s': on or off", v);
			r->fare = !strcmp(v, "on");
		} else if ((v = kv(w[i], "multihoming"))) {
			if (!parse_u32(v, &r->multihoming) || !r->multihoming)
				return fail(err, errlen, ln, "multihoming '%s': 1 or more", v);
		} else if (!strcmp(w[i], "originate")) {
			r->originate = true;
		} else if ((v = kv(w[i], "originate"))) {
			r->originate = true;
			if (!fare_bw_parse(v, &r->originate_bw))
				return fail(err, errlen, ln,
					    "originate '%s': a bandwidth (100G) or max", v);
		} else if (!strcmp(w[i], "lower-transitive")) {
			r->lower_transitive = true;
		} else {
			return fail(err, errlen, ln, "unknown router option '%s'", w[i]);
		}
	}
	if (!have_as)
		return fail(err, errlen, ln, "router '%s': as=ASN missing", w[1]);
	return 0;
}

static int find_or_fail(const struct sim_fabric *f, const char *name, unsigned int ln, char *err,
			size_t errlen)
{
	int r = sim_router_find(f, name);

	if (r < 0)
		fail(err, errlen, ln, "unknown router '%s' (declare it with `router` first)", name);
	return r;
}

static int line_link(struct sim_fabric *f, char **w, int n, unsigned int ln, char *err,
		     size_t errlen)
{
	int a, b, i;
	uint32_t count = 1, k;
	uint8_t boundary = 0;
	bool down = false;
	double bw;

	if (n < 4)
		return fail(err, errlen, ln,
			    "link: `link A B BANDWIDTH [count=N] [boundary[=A|B]] [down]`");
	if ((a = find_or_fail(f, w[1], ln, err, errlen)) < 0 ||
	    (b = find_or_fail(f, w[2], ln, err, errlen)) < 0)
		return -1;
	if (a == b)
		return fail(err, errlen, ln, "link from '%s' to itself", w[1]);
	if (!sim_bw_parse(w[3], &bw))
		return fail(err, errlen, ln,
			    "bandwidth '%s': a positive number of bits/s with K, M, G or T (800G)",
			    w[3]);
	for (i = 4; i < n; i++) {
		const char *v;

		if ((v = kv(w[i], "count"))) {
			if (!parse_u32(v, &count) || !count || count > 1024)
				return fail(err, errlen, ln, "count '%s': 1 to 1024", v);
		} else if (!strcmp(w[i], "boundary")) {
			boundary = 3;
		} else if ((v = kv(w[i], "boundary"))) {
			if (strcmp(v, w[1]) && strcmp(v, w[2]))
				return fail(err, errlen, ln,
					    "boundary=%s: one of the link's routers", v);
			boundary |= strcmp(v, w[1]) ? 2 : 1;
		} else if (!strcmp(w[i], "down")) {
			down = true;
		} else {
			return fail(err, errlen, ln, "unknown link option '%s'", w[i]);
		}
	}
	for (k = 1; k <= count; k++) {
		add_link(f, a, b, bw, 0, ln);
		f->links[f->n_links - 1].boundary = boundary;
		if (down)
			f->links[f->n_links - 1].cur_bw = 0;
	}
	return 0;
}

static int line_prefix(struct sim_fabric *f, char **w, int n, unsigned int ln, char *err,
		       size_t errlen)
{
	struct sim_prefix *p;
	int i, r;

	if (n < 3)
		return fail(err, errlen, ln,
			    "prefix: `prefix NAME ROUTER... [multihoming=K [at=ROUTER,...]]`");
	for (i = 0; i < (int)f->n_prefixes; i++)
		if (!strcmp(f->prefixes[i].name, w[1]))
			return fail(err, errlen, ln, "prefix '%s' declared twice", w[1]);
	p = add_prefix(f, w[1]);
	p->origins = calloc(n, sizeof(*p->origins));
	if (!p->origins)
		return fail(err, errlen, ln, "out of memory");
	for (i = 2; i < n; i++) {
		const char *v = kv(w[i], "multihoming");

		if ((v = kv(w[i], "at"))) {
			char *save = NULL, *tok, buf[1024];

			snprintf(buf, sizeof(buf), "%s", v);
			for (tok = strtok_r(buf, ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				uint32_t *at = realloc(p->mh_at, (p->n_mh_at + 1) * sizeof(*at));

				if (!at)
					return fail(err, errlen, ln, "out of memory");
				p->mh_at = at;
				if ((r = find_or_fail(f, tok, ln, err, errlen)) < 0)
					return -1;
				p->mh_at[p->n_mh_at++] = r;
			}
			continue;
		}
		v = kv(w[i], "multihoming");
		if (v) {
			if (!parse_u32(v, &p->multihoming) || !p->multihoming)
				return fail(err, errlen, ln, "multihoming '%s': 1 or more", v);
			continue;
		}
		if ((r = find_or_fail(f, w[i], ln, err, errlen)) < 0)
			return -1;
		p->origins[p->n_origins++] = r;
	}
	if (!p->n_origins)
		return fail(err, errlen, ln, "prefix '%s': no origin router", w[1]);
	return 0;
}

/* fail A B [N] | degrade A B BANDWIDTH [N] | restore A B [N] */
static int line_event(struct sim_fabric *f, char **w, int n, unsigned int ln, char *err,
		      size_t errlen)
{
	bool degrade = !strcmp(w[0], "degrade"), restore = !strcmp(w[0], "restore");
	int a, b, argi = degrade ? 4 : 3;
	uint32_t which = 0, i, hits = 0;
	double bw = 0;

	if (n < argi || n > argi + 1)
		return fail(err, errlen, ln, "%s: `%s A B%s [N]` (N: the N-th parallel link)", w[0],
			    w[0], degrade ? " BANDWIDTH" : "");
	if ((a = find_or_fail(f, w[1], ln, err, errlen)) < 0 ||
	    (b = find_or_fail(f, w[2], ln, err, errlen)) < 0)
		return -1;
	if (degrade && !sim_bw_parse(w[3], &bw))
		return fail(err, errlen, ln, "bandwidth '%s': a number with K, M, G or T", w[3]);
	if (n == argi + 1 && (!parse_u32(w[argi], &which) || !which))
		return fail(err, errlen, ln, "parallel link index '%s': 1 or more", w[argi]);
	if (which && number_parallel(f) < 0)
		return fail(err, errlen, ln, "out of memory");
	for (i = 0; i < f->n_links; i++) {
		struct sim_link *l = &f->links[i];

		if (!((l->a == (uint32_t)a && l->b == (uint32_t)b) ||
		      (l->a == (uint32_t)b && l->b == (uint32_t)a)))
			continue;
		if (which && l->parallel != which)
			continue;
		hits++;
		if (restore)
			l->cur_bw = l->bw;
		else if (degrade)
			l->cur_bw = bw;
		else
			l->cur_bw = 0;
	}
	if (!hits)
		return fail(err, errlen, ln, "no link %s-%s%s", w[1], w[2],
			    which ? " with that index" : "");
	return 0;
}

static int parse_line(struct sim_fabric *f, char *line, unsigned int ln, char *err, size_t errlen)
{
	char *w[LINE_MAX_WORDS];
	int n = split_words(line, w);

	if (n < 0)
		return fail(err, errlen, ln, "more than %d words", LINE_MAX_WORDS);
	if (!n)
		return 0;
	if (!strcmp(w[0], "fabric"))
		return line_fabric(f, w, n, ln, err, errlen);
	if (!strcmp(w[0], "router"))
		return line_router(f, w, n, ln, err, errlen);
	if (!strcmp(w[0], "link"))
		return line_link(f, w, n, ln, err, errlen);
	if (!strcmp(w[0], "prefix"))
		return line_prefix(f, w, n, ln, err, errlen);
	if (!strcmp(w[0], "fail") || !strcmp(w[0], "degrade") || !strcmp(w[0], "restore"))
		return line_event(f, w, n, ln, err, errlen);
	return fail(err, errlen, ln,
		    "unknown statement '%s' (fabric, router, link, prefix, fail, degrade, restore)",
		    w[0]);
}

int sim_fabric_event(struct sim_fabric *f, const char *line, char *err, size_t errlen)
{
	char buf[512];
	char *w[LINE_MAX_WORDS];
	int n;

	snprintf(buf, sizeof(buf), "%s", line);
	n = split_words(buf, w);
	if (n <= 0 || (strcmp(w[0], "fail") && strcmp(w[0], "degrade") && strcmp(w[0], "restore")))
		return fail(err, errlen, 0, "event '%s': fail, degrade or restore A B ...", line);
	return line_event(f, w, n, 0, err, errlen);
}

int sim_fabric_finish(struct sim_fabric *f, char *err, size_t errlen)
{
	uint32_t i, *fill;

	if (!f->n_routers)
		return fail(err, errlen, 0, "no router in the fabric");
	for (i = 0; i < f->n_routers; i++) {
		struct sim_router *r = &f->routers[i];

		if (r->rule == SIM_RULE_CONFIG)
			r->rule = f->rule;
		r->adj_n = 0;
		if (r->originate) {
			struct sim_prefix *p;
			uint32_t k;

			for (k = 0; k < f->n_prefixes; k++)
				if (!strcmp(f->prefixes[k].name, r->name))
					return fail(err, errlen, 0,
						    "prefix '%s': also the name of a router that originates",
						    r->name);
			p = add_prefix(f, r->name);

			p->origins = malloc(sizeof(*p->origins));
			if (!p->origins)
				return fail(err, errlen, 0, "out of memory");
			p->origins[0] = i;
			p->n_origins = 1;
		}
	}
	if (!f->n_prefixes)
		return fail(err, errlen, 0,
			    "no prefix: mark routers `originate` or add `prefix` lines");
	if (number_parallel(f) < 0)
		return fail(err, errlen, 0, "out of memory");
	for (i = 0; i < f->n_links; i++) {
		f->routers[f->links[i].a].adj_n++;
		f->routers[f->links[i].b].adj_n++;
	}
	free(f->adj);
	f->adj = malloc(((size_t)f->n_links * 2 + 1) * sizeof(*f->adj));
	fill = calloc(f->n_routers, sizeof(*fill));
	if (!f->adj || !fill) {
		free(fill);
		return fail(err, errlen, 0, "out of memory");
	}
	for (i = 0; i < f->n_routers; i++)
		f->routers[i].adj_start = i ? f->routers[i - 1].adj_start + f->routers[i - 1].adj_n
					    : 0;
	/* in link order: a router's links in the order they were declared */
	for (i = 0; i < f->n_links; i++) {
		const struct sim_link *l = &f->links[i];
		struct sim_router *ra = &f->routers[l->a], *rb = &f->routers[l->b];

		f->adj[ra->adj_start + fill[l->a]++] = (struct sim_adj){ .link = i, .peer = l->b };
		f->adj[rb->adj_start + fill[l->b]++] = (struct sim_adj){ .link = i, .peer = l->a };
	}
	free(fill);
	return 0;
}

int sim_fabric_parse(struct sim_fabric *f, FILE *in, const char *fname, char *err, size_t errlen)
{
	char line[4096];
	unsigned int ln = 0;

	while (fgets(line, sizeof(line), in)) {
		ln++;
		if (!strchr(line, '\n') && !feof(in))
			return fail(err, errlen, ln, "line longer than %zu characters",
				    sizeof(line) - 2);
		if (parse_line(f, line, ln, err, errlen) < 0) {
			if (fname) {
				char tmp[SIM_ERR_LEN];

				snprintf(tmp, sizeof(tmp), "%s", err);
				snprintf(err, errlen, "%s: %s", fname, tmp);
			}
			return -1;
		}
	}
	return sim_fabric_finish(f, err, errlen);
}

int sim_fabric_parse_string(struct sim_fabric *f, const char *text, char *err, size_t errlen)
{
	char *copy = strdup(text);
	FILE *in = copy ? fmemopen(copy, strlen(copy), "r") : NULL;
	int ret;

	if (!in) {
		free(copy);
		return fail(err, errlen, 0, "out of memory");
	}
	ret = sim_fabric_parse(f, in, NULL, err, errlen);
	fclose(in);
	free(copy);
	return ret;
}

/* ---- generators ---------------------------------------------------------- */

struct gen_opt {
	const char *key;
	uint32_t value;
};

static uint32_t opt_get(const struct gen_opt *o, const char *key)
{
	for (; o->key; o++)
		if (!strcmp(o->key, key))
			return o->value;
	return 0;
}

static int opt_parse(struct gen_opt *opts, const char *args, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", args ? args : "");
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		struct gen_opt *o;

		if (!eq)
			return fail(err, errlen, 0, "generator option '%s': KEY=VALUE", tok);
		*eq = '\0';
		for (o = opts; o->key; o++)
			if (!strcmp(o->key, tok))
				break;
		if (!o->key)
			return fail(err, errlen, 0, "unknown generator option '%s'", tok);
		if (!parse_u32(eq + 1, &o->value) || !o->value)
			return fail(err, errlen, 0, "generator option %s='%s': a positive integer",
				    tok, eq + 1);
	}
	return 0;
}

/* A generator's options parsed, its link bandwidth (gbps=) in bytes/s */
static int gen_begin(struct gen_opt *o, const char *args, double *bw, char *err, size_t errlen)
{
	if (opt_parse(o, args, err, errlen) < 0)
		return -1;
	*bw = opt_get(o, "gbps") * 1e9 / 8;
	return 0;
}

#define LEAF_AS(i)  (4200000000u + (i))
#define SPINE_AS(p) (4210000000u + (p))
#define SUPER_AS    64900u

static void name_fmt(char *buf, const char *fmt, uint32_t a, uint32_t b)
{
	snprintf(buf, SIM_NAME_LEN, fmt, a, b);
}

/* Two tiers: L lower routers originating a prefix each, S upper ones, P
 * parallel links between each pair. clos3: leaf1..L, spine1..S (AS 65000);
 * scaleup: GPU servers s1..L in the host role (SUN-1), plane switches
 * p1..S (an AS each), P sub-ports of a Y-cable.
 */
static void gen_two_tier(struct sim_fabric *f, uint32_t L, uint32_t S, uint32_t P, double bw,
			 bool scaleup)
{
	char name[SIM_NAME_LEN];
	uint32_t i, j, k;

	for (i = 1; i <= L; i++) {
		struct sim_router *r;

		name_fmt(name, scaleup ? "s%u" : "leaf%u", i, 0);
		r = add_router(f, name, LEAF_AS(i), 0);
		r->originate = true;
		if (scaleup)
			r->role = FARE_ROLE_HOST;
	}
	for (j = 1; j <= S; j++) {
		name_fmt(name, scaleup ? "p%u" : "spine%u", j, 0);
		add_router(f, name, scaleup ? SPINE_AS(j) : 65000, 1);
	}
	for (i = 0; i < L; i++)
		for (j = 0; j < S; j++)
			for (k = 1; k <= P; k++)
				add_link(f, i, L + j, bw, k, 0);
}

/* clos3: leaves, spines, links (parallel per pair), gbps, gpus (per leaf) */
static int gen_clos3(struct sim_fabric *f, const char *args, char *err, size_t errlen)
{
	struct gen_opt o[] = { { "leaves", 4 }, { "spines", 4 }, { "links", 1 },
			       { "gbps", 800 }, { "gpus", 0 },	 { NULL, 0 } };
	uint32_t L, S, P;
	double bw;

	if (gen_begin(o, args, &bw, err, errlen) < 0)
		return -1;
	L = opt_get(o, "leaves");
	S = opt_get(o, "spines");
	P = opt_get(o, "links");
	gen_two_tier(f, L, S, P, bw, false);
	f->gpus = (uint64_t)L * (opt_get(o, "gpus") ? opt_get(o, "gpus") : S * P);
	return 0;
}

/* clos5: pods; per pod leaves and spines; per plane (one per spine
 * index) super-spines; gbps; gpus per leaf
 */
static int gen_clos5(struct sim_fabric *f, const char *args, char *err, size_t errlen)
{
	struct gen_opt o[] = { { "pods", 4 },	{ "leaves", 4 }, { "spines", 4 }, { "supers", 2 },
			       { "gbps", 800 }, { "gpus", 0 },	 { NULL, 0 } };
	uint32_t p, i, j, k, P, L, S, K, leaf0, spine0, super0;
	char name[SIM_NAME_LEN];
	double bw;

	if (gen_begin(o, args, &bw, err, errlen) < 0)
		return -1;
	P = opt_get(o, "pods");
	L = opt_get(o, "leaves");
	S = opt_get(o, "spines");
	K = opt_get(o, "supers");
	leaf0 = f->n_routers;
	for (p = 1; p <= P; p++)
		for (i = 1; i <= L; i++) {
			name_fmt(name, "p%u-leaf%u", p, i);
			add_router(f, name, LEAF_AS((p - 1) * L + i), 0)->originate = true;
		}
	spine0 = f->n_routers;
	for (p = 1; p <= P; p++)
		for (j = 1; j <= S; j++) {
			name_fmt(name, "p%u-spine%u", p, j);
			add_router(f, name, SPINE_AS(p), 1);
		}
	super0 = f->n_routers;
	for (j = 1; j <= S; j++)
		for (k = 1; k <= K; k++) {
			name_fmt(name, "ss%u-%u", j, k);
			add_router(f, name, SUPER_AS, 2)->role = FARE_ROLE_SUPER_SPINE;
		}
	for (p = 0; p < P; p++)
		for (i = 0; i < L; i++)
			for (j = 0; j < S; j++)
				add_link(f, leaf0 + p * L + i, spine0 + p * S + j, bw, 1, 0);
	for (p = 0; p < P; p++)
		for (j = 0; j < S; j++)
			for (k = 0; k < K; k++)
				add_link(f, spine0 + p * S + j, super0 + j * K + k, bw, 1, 0);
	f->gpus = (uint64_t)P * L * (opt_get(o, "gpus") ? opt_get(o, "gpus") : S);
	return 0;
}

/* scaleup: servers (GPU servers, host role), planes, subports (Y-cable),
 * gbps per sub-port, gpus per server (SUN-1)
 */
static int gen_scaleup(struct sim_fabric *f, const char *args, char *err, size_t errlen)
{
	struct gen_opt o[] = { { "servers", 4 }, { "planes", 4 }, { "subports", 2 },
			       { "gbps", 400 },	 { "gpus", 8 },	  { NULL, 0 } };
	double bw;

	if (gen_begin(o, args, &bw, err, errlen) < 0)
		return -1;
	gen_two_tier(f, opt_get(o, "servers"), opt_get(o, "planes"), opt_get(o, "subports"), bw,
		     true);
	f->gpus = (uint64_t)opt_get(o, "servers") * opt_get(o, "gpus");
	return 0;
}

int sim_fabric_generate(struct sim_fabric *f, const char *spec, char *err, size_t errlen)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *args = colon ? colon + 1 : "";
	int ret;

	if (n == 5 && !strncmp(spec, "clos3", 5))
		ret = gen_clos3(f, args, err, errlen);
	else if (n == 5 && !strncmp(spec, "clos5", 5))
		ret = gen_clos5(f, args, err, errlen);
	else if (n == 7 && !strncmp(spec, "scaleup", 7))
		ret = gen_scaleup(f, args, err, errlen);
	else
		return fail(err, errlen, 0, "generator '%.*s': clos3, clos5 or scaleup", (int)n,
			    spec);
	if (ret < 0)
		return ret;
	return sim_fabric_finish(f, err, errlen);
}

/* xorshift64* (the tests' generator, tests/unit/prng.h) */
static uint64_t rnd_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

void sim_fabric_random_failures(struct sim_fabric *f, double fail_rate, double halve_rate,
				uint64_t seed)
{
	uint64_t s = seed * 0x9E3779B97F4A7C15ULL + 1;
	uint32_t i;

	for (i = 0; i < f->n_links; i++) {
		double u = (double)(rnd_next(&s) >> 11) * 0x1p-53;

		if (u < fail_rate)
			f->links[i].cur_bw = 0;
		else if (u < fail_rate + halve_rate)
			f->links[i].cur_bw = f->links[i].bw / 2;
	}
}

static void bw_write(FILE *out, double bytes_per_sec)
{
	double bits = bytes_per_sec * 8;

	if (bits >= 1e12 && fmod(bits, 1e12) == 0)
		fprintf(out, "%.0fT", bits / 1e12);
	else if (bits >= 1e9 && fmod(bits, 1e6) == 0)
		fprintf(out, "%.15gG", bits / 1e9);
	else
		fprintf(out, "%.15gM", bits / 1e6);
}

void sim_fabric_write(const struct sim_fabric *f, FILE *out)
{
	static const char *const roles[] = { "node", "super-spine", "host" };
	uint32_t i;

	fprintf(out, "# fare-sim fabric: %u routers, %u links", f->n_routers, f->n_links);
	if (f->gpus)
		fprintf(out, ", %llu GPUs", (unsigned long long)f->gpus);
	fprintf(out, "\nfabric rule=%s max-weight=%u max-members=%u\n", sim_rule_str(f->rule),
		f->limits.max_weight, f->limits.max_members);
	for (i = 0; i < f->n_routers; i++) {
		const struct sim_router *r = &f->routers[i];

		fprintf(out, "router %s as=%u tier=%d", r->name, r->as, r->tier);
		if (r->role != FARE_ROLE_NODE)
			fprintf(out, " role=%s", roles[r->role]);
		if (!r->fare)
			fprintf(out, " fare=off");
		if (r->originate && r->originate_bw < FARE_PATHBW_MAX_BYTES_PER_SEC) {
			fprintf(out, " originate=");
			bw_write(out, r->originate_bw);
		} else if (r->originate) {
			fprintf(out, " originate");
		}
		fprintf(out, "\n");
	}
	for (i = 0; i < f->n_links; i++) {
		const struct sim_link *l = &f->links[i];

		fprintf(out, "link %s %s ", f->routers[l->a].name, f->routers[l->b].name);
		bw_write(out, l->bw);
		if (l->boundary == 3)
			fprintf(out, " boundary");
		else if (l->boundary)
			fprintf(out, " boundary=%s",
				f->routers[l->boundary == 1 ? l->a : l->b].name);
		fprintf(out, "\n");
	}
	for (i = 0; i < f->n_links; i++) {
		const struct sim_link *l = &f->links[i];

		if (l->cur_bw == l->bw)
			continue;
		if (!l->cur_bw) {
			fprintf(out, "fail %s %s %u\n", f->routers[l->a].name,
				f->routers[l->b].name, l->parallel);
			continue;
		}
		fprintf(out, "degrade %s %s ", f->routers[l->a].name, f->routers[l->b].name);
		bw_write(out, l->cur_bw);
		fprintf(out, " %u\n", l->parallel);
	}
}
