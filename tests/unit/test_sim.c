// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of fare-sim (tools/fare-sim/, doc/user/fare-sim.rst): the
 * fabric format's parser and its errors, the generators, random
 * failures, max-flow and the traffic through the weights, the UPDATE
 * count of an event, and the validation against the daemons: on each
 * topotest fabric with weight checks, the simulator's weights are the
 * kernel weights the topotest asserts (cited case by case), so that a
 * change to the rules in the core cannot move one without the other.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r(), open_memstream() */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fare_pathbw.h"
#include "fare_sim.h"

#ifndef SIM_FABRICS_DIR
#define SIM_FABRICS_DIR "tools/fare-sim/fabrics"
#endif

#define GBPS(g) ((g)*1e9 / 8)

static void load(struct sim_fabric *f, const char *name)
{
	char path[512], err[SIM_ERR_LEN];
	FILE *in;

	snprintf(path, sizeof(path), "%s/%s", SIM_FABRICS_DIR, name);
	in = fopen(path, "r");
	if (!in)
		fail_msg("%s: cannot open", path);
	sim_fabric_init(f);
	if (sim_fabric_parse(f, in, path, err, sizeof(err)) < 0)
		fail_msg("%s", err);
	fclose(in);
}

static uint32_t router(const struct sim_fabric *f, const char *name)
{
	int r = sim_router_find(f, name);

	if (r < 0)
		fail_msg("no router %s", name);
	return (uint32_t)r;
}

static uint32_t prefix(const struct sim_fabric *f, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->n_prefixes; i++)
		if (!strcmp(f->prefixes[i].name, name))
			return i;
	fail_msg("no prefix %s", name);
	return 0;
}

static void event(struct sim_fabric *f, const char *line)
{
	char err[SIM_ERR_LEN];

	if (sim_fabric_event(f, line, err, sizeof(err)) < 0)
		fail_msg("%s", err);
}

/* "wcmp spine1#1=3 spine1#2=3 ...": what fare-sim weights prints */
static void weights_str(const struct sim_state *s, uint32_t r, char *buf, size_t len)
{
	const struct sim_rstate *rr = &s->r[r];
	size_t n = snprintf(buf, len, "%s", rr->wcmp ? "wcmp" : "ecmp");
	uint32_t j;

	for (j = 0; j < rr->n_mp && n < len; j++) {
		const struct sim_adj *a = &s->f->adj[s->mp_adj[rr->mp_start + j]];

		n += snprintf(buf + n, len - n, " %s#%u=%u", s->f->routers[a->peer].name,
			      s->f->links[a->link].parallel, s->mp_weight[rr->mp_start + j]);
	}
}

static void expect_weights(const struct sim_fabric *f, enum sim_rule rule, const char *rname,
			   const char *pname, const char *want, const char *where)
{
	struct sim_state s;
	char got[1024];

	assert_int_equal(sim_state_init(&s, f), 0);
	sim_route_prefix(&s, prefix(f, pname), rule);
	weights_str(&s, router(f, rname), got, sizeof(got));
	if (strcmp(got, want))
		fail_msg("%s at %s (%s): got '%s', the topotest asserts '%s'", pname, rname, where,
			 got, want);
	sim_state_free(&s);
}

/* the value r advertises on its n-th (1-based) link to peer */
static double advertised(const struct sim_fabric *f, enum sim_rule rule, const char *pname,
			 const char *rname, const char *peer, uint32_t nth)
{
	struct sim_state s;
	struct sim_adv adv;
	uint32_t r = router(f, rname), ai, p = router(f, peer);
	double v = -1;

	assert_int_equal(sim_state_init(&s, f), 0);
	sim_route_prefix(&s, prefix(f, pname), rule);
	for (ai = f->routers[r].adj_start; ai < f->routers[r].adj_start + f->routers[r].adj_n;
	     ai++) {
		const struct sim_link *l = &f->links[f->adj[ai].link];

		if (f->adj[ai].peer == p && l->parallel == nth &&
		    sim_adv_on(&s, r, f->adj[ai].link, &adv))
			v = adv.present ? fare_bw_wire_value(adv.value) : 0;
	}
	sim_state_free(&s);
	return v;
}

/* ---- the format -------------------------------------------------------------- */

static void expect_error(const char *text, const char *want)
{
	struct sim_fabric f;
	char err[SIM_ERR_LEN] = "";

	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_parse_string(&f, text, err, sizeof(err)), -1);
	if (!strstr(err, want))
		fail_msg("'%s' does not contain '%s'", err, want);
	sim_fabric_free(&f);
}

static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("router a as=1\nrouter a as=2\n", "line 2: router 'a' declared twice");
	expect_error("router a\n", "line 1: router 'a': as=ASN missing");
	expect_error("router a as=1\nlink a b 100G\n", "line 2: unknown router 'b'");
	expect_error("router a as=1\nrouter b as=2\nlink a b 100Q\n", "line 3: bandwidth '100Q'");
	expect_error("router a as=1\n\n# c\nfrobnicate\n", "line 4: unknown statement 'frobnicate'");
	expect_error("router a as=1 role=spine\n", "line 1: role 'spine'");
	expect_error("router a as=1\nrouter b as=2\nlink a b 1G\nfail a c\n",
		     "line 4: unknown router 'c'");
	expect_error("router a as=1\nrouter b as=2\nlink a b 1G\nfail a b 2\n",
		     "line 4: no link a-b with that index");
	expect_error("router a as=1\nfabric rule=draft\n", "line 2: `fabric` must come before");
	expect_error("router a as=1 originate\nrouter b as=2\nlink a b 1G boundary=c\n",
		     "line 3: boundary=c");
	expect_error("router a as=1\n", "no prefix");
	expect_error("router a as=1 originate\nprefix a a\n",
		     "prefix 'a': also the name of a router");
}

static void test_parse_and_write(void **state)
{
	struct sim_fabric f, g;
	char err[SIM_ERR_LEN], *text = NULL;
	size_t len = 0;
	FILE *out;

	(void)state;
	load(&f, "whitepaper.fab");
	assert_int_equal(f.n_routers, 4);
	assert_int_equal(f.n_links, 8);
	assert_int_equal(f.n_prefixes, 1);
	assert_int_equal(f.rule, SIM_RULE_AVERAGED);
	assert_true(f.links[0].bw == GBPS(50));
	assert_int_equal(f.links[1].parallel, 2); /* leaf1-spine1, L3 */
	event(&f, "degrade leaf1 spine2 40G 2");
	out = open_memstream(&text, &len);
	sim_fabric_write(&f, out);
	fclose(out);
	sim_fabric_init(&g);
	assert_int_equal(sim_fabric_parse_string(&g, text, err, sizeof(err)), 0);
	assert_int_equal(g.n_links, 8);
	assert_true(g.links[3].cur_bw == GBPS(40) && g.links[3].bw == GBPS(100));
	free(text);
	sim_fabric_free(&f);
	sim_fabric_free(&g);
}

static void test_generators(void **state)
{
	struct sim_fabric f;
	char err[SIM_ERR_LEN];
	uint32_t i, down = 0, half = 0;

	(void)state;
	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "clos3:leaves=16,spines=8,gbps=400", err,
					     sizeof(err)),
			 0);
	assert_int_equal(f.n_routers, 24);
	assert_int_equal(f.n_links, 128);
	assert_int_equal(f.n_prefixes, 16);
	assert_int_equal(f.gpus, 128);
	sim_fabric_free(&f);

	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "clos5:pods=3,leaves=4,spines=2,supers=3", err,
					     sizeof(err)),
			 0);
	assert_int_equal(f.n_routers, 12 + 6 + 6);
	assert_int_equal(f.n_links, 12 * 2 + 6 * 3);
	assert_int_equal(f.routers[f.n_routers - 1].role, FARE_ROLE_SUPER_SPINE);
	sim_fabric_free(&f);

	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "scaleup:servers=4,planes=8,subports=2", err,
					     sizeof(err)),
			 0);
	assert_int_equal(f.n_links, 64);
	assert_int_equal(f.routers[0].role, FARE_ROLE_HOST);
	/* rates: 10% down, 20% halved, the same for the same seed */
	sim_fabric_random_failures(&f, 0.1, 0.2, 42);
	for (i = 0; i < f.n_links; i++) {
		down += f.links[i].cur_bw == 0;
		half += f.links[i].cur_bw == f.links[i].bw / 2;
	}
	assert_true(down > 0 && down < 20 && half > 3 && half < 30);
	sim_fabric_free(&f);

	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "clos3:leaves=2,hops=3", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown generator option 'hops'"));
	assert_int_equal(sim_fabric_generate(&f, "torus", err, sizeof(err)), -1);
	sim_fabric_free(&f);
}

/* ---- validation against the topotests ---------------------------------------- */

/*
 * The cases of topotests/fare/expected_weights.txt, the file the topotests
 * read their expected kernel weights from: on a fresh copy of the fabric,
 * the steps (';'-separated: "ROUTER max-members=N", "ROUTER
 * lower-transitive", or a fail/degrade/restore statement), then the
 * router's weights for the prefix under the rule.
 */
#ifndef SIM_EXPECTED_FILE
#define SIM_EXPECTED_FILE "topotests/fare/expected_weights.txt"
#endif

struct topo_case {
	char name[64], fabric[64], rule[32], steps[256], router[SIM_NAME_LEN], prefix[SIM_NAME_LEN],
		want[512], where[512];
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/* one line of the file: false for a comment or a blank line */
static bool parse_case(char *line, struct topo_case *c)
{
	char *field[7], *save = NULL, *p = trim(line);
	int n = 0;

	if (!*p || *p == '#')
		return false;
	for (p = strtok_r(p, "|", &save); p && n < 7; p = strtok_r(NULL, "|", &save))
		field[n++] = trim(p);
	if (n != 7 || sscanf(field[4], "%31s %31s", c->router, c->prefix) != 2)
		fail_msg("%s: bad case '%s'", SIM_EXPECTED_FILE, line);
	snprintf(c->name, sizeof(c->name), "%s", field[0]);
	snprintf(c->fabric, sizeof(c->fabric), "%s", field[1]);
	snprintf(c->rule, sizeof(c->rule), "%s", field[2]);
	snprintf(c->steps, sizeof(c->steps), "%s", strcmp(field[3], "-") ? field[3] : "");
	snprintf(c->want, sizeof(c->want), "%s", field[5]);
	snprintf(c->where, sizeof(c->where), "%s: %s", c->name, field[6]);
	return true;
}

static void apply_step(struct sim_fabric *f, const char *step)
{
	char name[SIM_NAME_LEN];
	unsigned int v;

	if (sscanf(step, "%31s max-members=%u", name, &v) == 2)
		f->routers[router(f, name)].limits.max_members = v;
	else if (sscanf(step, "%31s lower-transitive", name) == 1 &&
		 strstr(step, "lower-transitive"))
		f->routers[router(f, name)].lower_transitive = true;
	else
		event(f, step);
}

static void test_topotest_weights(void **state)
{
	FILE *in = fopen(SIM_EXPECTED_FILE, "r");
	char line[1024];
	unsigned int cases = 0;

	(void)state;
	if (!in)
		fail_msg("%s: cannot open", SIM_EXPECTED_FILE);
	while (fgets(line, sizeof(line), in)) {
		struct topo_case c;
		struct sim_fabric f;
		char *save = NULL, *step;
		int rule;

		if (!parse_case(line, &c))
			continue;
		rule = sim_rule_parse(c.rule);
		if (rule < 0)
			fail_msg("%s: rule '%s'", c.name, c.rule);
		load(&f, c.fabric);
		for (step = strtok_r(c.steps, ";", &save); step; step = strtok_r(NULL, ";", &save))
			apply_step(&f, trim(step));
		expect_weights(&f, rule, c.router, c.prefix, c.want, c.where);
		sim_fabric_free(&f);
		cases++;
	}
	fclose(in);
	assert_true(cases >= 29);
}

/* what is sent: WP-1 and WP-2 (fare_whitepaper test_wp4_worked_example:
 * leaf1 sends 50G and 100G, spine1 75G; test_draft_mode_on_the_same_fabric:
 * spine1 150G); FARE-8 and FARE-9's option (fare_clos5: ss1b keeps
 * spa1's 800G; test_lower_transitive_option: spb1 sends 600G)
 */
static void test_topotest_advertised(void **state)
{
	struct sim_fabric f;

	(void)state;
	load(&f, "whitepaper.fab");
	assert_true(advertised(&f, SIM_RULE_CONFIG, "leaf1", "spine1", "leaf2", 1) == GBPS(75));
	assert_true(advertised(&f, SIM_RULE_CONFIG, "leaf1", "leaf1", "spine1", 1) == GBPS(50));
	assert_true(advertised(&f, SIM_RULE_CONFIG, "leaf1", "leaf1", "spine1", 2) == GBPS(100));
	assert_true(advertised(&f, SIM_RULE_DRAFT, "leaf1", "spine1", "leaf2", 1) == GBPS(150));
	sim_fabric_free(&f);
	load(&f, "clos5.fab");
	assert_true(advertised(&f, SIM_RULE_CONFIG, "leafa1", "ss1b", "spb1", 1) == GBPS(800));
	apply_step(&f, "spb1 lower-transitive");
	apply_step(&f, "degrade spb1 ss1a 200G");
	assert_true(advertised(&f, SIM_RULE_CONFIG, "leafa1", "spb1", "leafb1", 1) == GBPS(600));
	sim_fabric_free(&f);
}

/* fare_clos3 test_leaves_weights_show_and_kernel, _expected_leaf_view():
 * every leaf to every other leaf, min(link(leaf, spine j), link(dest,
 * spine j)) over their GCD
 */
static const unsigned int clos3_links[5][5] = {
	[1] = { 0, 400, 400, 800, 800 },
	[2] = { 0, 800, 800, 800, 400 },
	[3] = { 0, 800, 800, 800, 800 },
	[4] = { 0, 400, 400, 400, 400 },
};

static unsigned int gcd(unsigned int a, unsigned int b)
{
	return b ? gcd(b, a % b) : a;
}

static void test_clos3_every_leaf(void **state)
{
	struct sim_fabric f;
	char want[256], leaf[16], dest[16];
	unsigned int i, d, j, bw[5], g;

	(void)state;
	load(&f, "clos3.fab");
	for (i = 1; i <= 4; i++)
		for (d = 1; d <= 4; d++) {
			size_t n;

			if (i == d)
				continue;
			for (g = 0, j = 1; j <= 4; j++) {
				bw[j] = clos3_links[i][j] < clos3_links[d][j] ? clos3_links[i][j]
									      : clos3_links[d][j];
				g = gcd(bw[j], g);
			}
			n = snprintf(want, sizeof(want), "wcmp");
			for (j = 1; j <= 4; j++)
				n += snprintf(want + n, sizeof(want) - n, " spine%u#1=%u", j,
					      bw[j] / g);
			snprintf(leaf, sizeof(leaf), "leaf%u", i);
			snprintf(dest, sizeof(dest), "leaf%u", d);
			expect_weights(&f, SIM_RULE_CONFIG, leaf, dest, want,
				       "fare_clos3 test_leaves_weights_show_and_kernel");
		}
	sim_fabric_free(&f);
}

/* ---- traffic, max-flow, events ------------------------------------------------- */

static double pair_throughput(const struct sim_fabric *f, enum sim_rule rule, const char *src,
			      const char *dst)
{
	struct sim_state s;
	struct sim_maxflow *m = sim_maxflow_new(f);
	struct sim_demand d = { router(f, src), prefix(f, dst), 1 };
	double *load = calloc(2 * f->n_links, sizeof(*load)), lost = 0, lambda, mf;

	assert_non_null(m);
	assert_non_null(load);
	assert_int_equal(sim_state_init(&s, f), 0);
	sim_route_prefix(&s, d.dst, rule);
	sim_flow_add(&s, d.dst, &d, 1, load, &lost);
	lambda = sim_flow_lambda(f, load);
	mf = sim_maxflow_pair(m, d.src, d.dst);
	assert_true(lost == 0);
	sim_state_free(&s);
	sim_maxflow_free(m);
	free(load);
	return lambda / mf;
}

/* fare_maxflow's figures: max-flow 325G; per neighbor all of it, per
 * session 250G (0.77), plain ECMP 4 x 25G (0.31)
 */
static void test_maxflow_fabric_throughput(void **state)
{
	struct sim_fabric f;
	struct sim_maxflow *m;

	(void)state;
	load(&f, "maxflow.fab");
	m = sim_maxflow_new(&f);
	assert_true(sim_maxflow_pair(m, router(&f, "leaf2"), prefix(&f, "leaf1")) == GBPS(325));
	sim_maxflow_free(m);
	assert_true(fabs(pair_throughput(&f, SIM_RULE_DRAFT, "leaf2", "leaf1") - 1) < 1e-9);
	assert_true(fabs(pair_throughput(&f, SIM_RULE_PER_SESSION, "leaf2", "leaf1") -
			 250.0 / 325) < 1e-9);
	assert_true(fabs(pair_throughput(&f, SIM_RULE_ECMP, "leaf2", "leaf1") - 100.0 / 325) < 1e-9);
	sim_fabric_free(&f);
}

static void test_all_to_one_reference(void **state)
{
	struct sim_fabric f;
	struct sim_maxflow *m;
	struct sim_demand d[3];
	char err[SIM_ERR_LEN];
	uint32_t i;
	double lambda;

	(void)state;
	/* 4 leaves, 2 spines, 100G; leaf1's links are the cut: 200G for 3 */
	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "clos3:leaves=4,spines=2,gbps=100", err,
					     sizeof(err)),
			 0);
	m = sim_maxflow_new(&f);
	for (i = 0; i < 3; i++)
		d[i] = (struct sim_demand){ router(&f, "leaf2") + i, prefix(&f, "leaf1"), 1 };
	lambda = sim_maxflow_concurrent_to_one(m, d, 3, d[0].dst);
	assert_true(fabs(lambda - GBPS(200) / 3) < GBPS(200) * 1e-5);
	sim_maxflow_free(m);
	sim_fabric_free(&f);
}

/* SUN-1: a GPU server is never transit, in the routes and the max-flow */
static void test_scaleup_no_host_transit(void **state)
{
	struct sim_fabric f;
	struct sim_maxflow *m;
	struct sim_state s;
	char err[SIM_ERR_LEN];

	(void)state;
	sim_fabric_init(&f);
	assert_int_equal(sim_fabric_generate(&f, "scaleup:servers=3,planes=2,subports=1", err,
					     sizeof(err)),
			 0);
	/* s1 reaches only p2, s2 only p1: through s3 alone */
	event(&f, "fail s1 p1");
	event(&f, "fail s2 p2");
	m = sim_maxflow_new(&f);
	assert_true(sim_maxflow_pair(m, router(&f, "s1"), prefix(&f, "s2")) == 0);
	assert_true(sim_maxflow_pair(m, router(&f, "s1"), prefix(&f, "s3")) == GBPS(400));
	sim_maxflow_free(m);
	assert_int_equal(sim_state_init(&s, &f), 0);
	sim_route_prefix(&s, prefix(&f, "s2"), SIM_RULE_DRAFT);
	assert_int_equal(s.r[router(&f, "s1")].dist, -1);
	sim_state_free(&s);
	sim_fabric_free(&f);
}

/* whitepaper, L4 fails: spine2's value drops, it tells leaf2 on both
 * sessions; leaf2's own advertisement (n_out 0: capped at the link) stays
 */
static void test_event_updates(void **state)
{
	struct sim_fabric f, after;
	struct sim_event ev;
	uint64_t updates[4];
	uint32_t vb[4], va[4];

	(void)state;
	load(&f, "whitepaper.fab");
	after = f;
	after.links = malloc(f.n_links * sizeof(*after.links));
	assert_non_null(after.links);
	memcpy(after.links, f.links, f.n_links * sizeof(*after.links));
	event(&after, "fail spine2 leaf1 2");
	ev = (struct sim_event){ updates, vb, va, 0 };
	assert_int_equal(sim_event_count(&f, &after, SIM_RULE_CONFIG, -1, 0, false, &ev), 0);
	assert_int_equal(updates[router(&f, "spine2")], 2);
	assert_int_equal(updates[router(&f, "spine1")], 0);
	assert_int_equal(updates[router(&f, "leaf2")], 0);
	assert_int_equal(vb[router(&f, "leaf2")], 1);
	/* plain ECMP: nothing changes hands but the lost session */
	assert_int_equal(sim_event_count(&f, &after, SIM_RULE_ECMP, -1, 0, false, &ev), 0);
	assert_int_equal(updates[router(&f, "spine2")], 0);
	free(after.links);
	sim_fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_and_write),
		cmocka_unit_test(test_generators),
		cmocka_unit_test(test_topotest_weights),
		cmocka_unit_test(test_topotest_advertised),
		cmocka_unit_test(test_clos3_every_leaf),
		cmocka_unit_test(test_maxflow_fabric_throughput),
		cmocka_unit_test(test_all_to_one_reference),
		cmocka_unit_test(test_scaleup_no_host_transit),
		cmocka_unit_test(test_event_updates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
