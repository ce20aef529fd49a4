// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: FARE per-prefix rules (FARE-4 .. FARE-9, FARE-11) and the
 * Enhanced ECMP sub-group restriction (EE-4), exact weights, path
 * bandwidths and re-advertisement of fare_prefix_compute().
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <stdbool.h>
#include <string.h>

#include "fare_rules.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* link speeds in bytes per second: exact for these multiples of 8 */
#define GBPS(g) ((g)*1e9 / 8)

/* cmocka 1.1.5 has no double assertion: compare exactly, show both */
#define assert_double_exact(a, b)                                                                  \
	do {                                                                                       \
		double a_ = (a), b_ = (b);                                                         \
		if (a_ != b_)                                                                      \
			print_error("%.17g != %.17g\n", a_, b_);                                   \
		assert_true(a_ == b_);                                                             \
	} while (0)

#define MAX_PATHS 64

static const struct fare_prefix_params node_params = {
	.role = FARE_ROLE_NODE,
	.multihoming = 1,
	.limits = { .max_weight = 255, .max_members = 128 },
};

/* a path from a leaf or spine, carrying T */
static struct fare_path_in node_path(double link_bw, double t_bw)
{
	return (struct fare_path_in){ .link_bw = link_bw, .t_bw = t_bw, .t_state = FARE_PB_PRESENT };
}

/* a path from a super-spine, carrying a non-transitive value (FARE-9) */
static struct fare_path_in ss_path(double link_bw, double nt_bw)
{
	return (struct fare_path_in){ .link_bw = link_bw,
				      .nt_bw = nt_bw,
				      .nt_state = FARE_PB_PRESENT,
				      .from_super_spine = true };
}

static double path_bw[MAX_PATHS];
static uint32_t weights[MAX_PATHS];
static struct fare_prefix_out out;

static void compute(const struct fare_path_in *in, size_t n, const struct fare_prefix_params *params)
{
	/* garbage, to see that everything is written */
	memset(path_bw, 0xA5, sizeof(path_bw));
	memset(weights, 0xA5, sizeof(weights));
	memset(&out, 0xA5, sizeof(out));
	fare_prefix_compute(in, n, params, path_bw, weights, &out);
}

static void assert_result(size_t n, const double *bw, const uint32_t *w)
{
	size_t i;

	for (i = 0; i < n; i++) {
		assert_double_exact(path_bw[i], bw ? bw[i] : 0);
		assert_int_equal(weights[i], w ? w[i] : 0);
	}
}

/* plain ECMP because of one path: nothing weighted */
static void assert_ecmp(size_t n, enum fare_reason reason, size_t path, enum fare_adv_action action)
{
	assert_false(out.wcmp);
	assert_int_equal(out.reason, reason);
	assert_int_equal(out.reason_path, path);
	assert_result(n, NULL, NULL);
	assert_int_equal(out.t_action, action);
}

/* FARE-4, FARE-5: links 400G,400G,800G,400G, T = FLT_MAX from the leaf */
static void test_fare4_min_and_reduce(void **state)
{
	struct fare_path_in in[4];
	const double bw[] = { GBPS(400), GBPS(400), GBPS(800), GBPS(400) };
	const double exp_bw[] = { 5e10, 5e10, 1e11, 5e10 };
	const uint32_t exp_w[] = { 1, 1, 2, 1 };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++)
		in[i] = node_path(bw[i], FLT_MAX);
	compute(in, ARRAY_SIZE(in), &node_params);
	assert_true(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_WCMP);
	assert_result(ARRAY_SIZE(in), exp_bw, exp_w);
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, 2.5e11);
	assert_false(out.nt_attach);

	/* a Path Bandwidth below the link limits; an unknown link does not */
	in[0] = node_path(GBPS(100), 1e10);
	in[1] = node_path(0, 3e10);
	compute(in, 2, &node_params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ 1e10, 3e10 }, (const uint32_t[]){ 1, 3 });
	assert_double_exact(out.t_value, 4e10);
}

/* FARE-5: 64 x 800G sums exactly */
static void test_fare5_sum_64(void **state)
{
	struct fare_path_in in[64];
	double exp_bw[64];
	uint32_t exp_w[64];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++) {
		in[i] = node_path(GBPS(800), FLT_MAX);
		exp_bw[i] = 1e11;
		exp_w[i] = 1;
	}
	compute(in, ARRAY_SIZE(in), &node_params);
	assert_true(out.wcmp);
	assert_result(ARRAY_SIZE(in), exp_bw, exp_w);
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, 6.4e12);
}

/* FARE-6: k divides T before the min() */
static void test_fare6_multihoming(void **state)
{
	struct fare_path_in in[2] = { node_path(GBPS(100), 2e10), node_path(GBPS(100), 5e10) };
	struct fare_prefix_params params = node_params;

	(void)state;
	compute(in, 2, &params);
	assert_result(2, (const double[]){ 1.25e10, 1.25e10 }, (const uint32_t[]){ 1, 1 });
	assert_double_exact(out.t_value, 2.5e10);

	params.multihoming = 2;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ 1e10, 1.25e10 }, (const uint32_t[]){ 4, 5 });
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, 2.25e10);

	/* 0 is taken as 1 */
	params.multihoming = 0;
	compute(in, 2, &params);
	assert_double_exact(out.t_value, 2.5e10);
}

/* FARE-7, FARE-11: one path without a usable value, any index */
static void test_fare7_all_or_nothing(void **state)
{
	struct fare_path_in in[4];
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(in); i++)
		in[i] = node_path(GBPS(400), FLT_MAX);

	in[1].t_state = FARE_PB_ABSENT;
	compute(in, 4, &node_params);
	assert_ecmp(4, FARE_REASON_PATH_WITHOUT_PB, 1, FARE_ADV_STRIP);
	assert_false(out.nt_attach);

	in[1].t_state = FARE_PB_PRESENT;
	in[2].t_state = FARE_PB_INVALID;
	compute(in, 4, &node_params);
	assert_ecmp(4, FARE_REASON_PATH_INVALID_PB, 2, FARE_ADV_STRIP);

	in[2].t_state = FARE_PB_PRESENT;
	in[0].t_state = FARE_PB_CONFLICT;
	compute(in, 4, &node_params);
	assert_ecmp(4, FARE_REASON_PATH_CONFLICTING_PB, 0, FARE_ADV_STRIP);

	in[0].t_state = FARE_PB_PRESENT;
	in[3].ignored = true;
	compute(in, 4, &node_params);
	assert_ecmp(4, FARE_REASON_PATH_IGNORED, 3, FARE_ADV_STRIP);
}

/* zero bandwidth: no member for that path; all zero: ECMP, advertise 0 */
static void test_zero(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(100), FLT_MAX), node_path(GBPS(100), 0),
				      node_path(GBPS(200), FLT_MAX) };

	(void)state;
	compute(in, 3, &node_params);
	assert_true(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_WCMP);
	assert_result(3, (const double[]){ 1.25e10, 0, 2.5e10 }, (const uint32_t[]){ 1, 0, 2 });
	assert_double_exact(out.t_value, 3.75e10);

	in[0].t_bw = 0;
	in[2].t_bw = 0;
	compute(in, 3, &node_params);
	assert_false(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_ALL_ZERO);
	assert_result(3, NULL, NULL);
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, 0);
}

/* FARE-8: a super-spine keeps T and attaches its link bandwidth */
static void test_fare8_super_spine(void **state)
{
	struct fare_path_in in[2] = { node_path(GBPS(100), FLT_MAX), node_path(GBPS(200), FLT_MAX) };
	struct fare_prefix_params params = node_params;

	(void)state;
	params.role = FARE_ROLE_SUPER_SPINE;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ 1.25e10, 2.5e10 }, (const uint32_t[]){ 1, 2 });
	assert_int_equal(out.t_action, FARE_ADV_KEEP);
	assert_true(out.nt_attach);
	assert_double_exact(out.nt_value, 3.75e10);

	/* unknown link: nothing to attach, weights still from T */
	in[1] = node_path(0, GBPS(200));
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ 1.25e10, 2.5e10 }, (const uint32_t[]){ 1, 2 });
	assert_int_equal(out.t_action, FARE_ADV_KEEP);
	assert_false(out.nt_attach);

	/* FARE-7 ECMP: still not touching T */
	in[1] = node_path(GBPS(200), 0);
	in[1].t_state = FARE_PB_ABSENT;
	compute(in, 2, &params);
	assert_ecmp(2, FARE_REASON_PATH_WITHOUT_PB, 1, FARE_ADV_KEEP);
	assert_true(out.nt_attach);
	assert_double_exact(out.nt_value, 3.75e10);
}

/* FARE-9: spine in another PoD, paths from super-spines */
static void test_fare9_from_super_spine(void **state)
{
	struct fare_path_in in[2] = { ss_path(GBPS(100), 1e10), ss_path(GBPS(100), 5e10) };
	struct fare_prefix_params params = node_params;

	(void)state;
	in[0].t_state = FARE_PB_PRESENT;
	in[0].t_bw = 3e10;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ 1e10, 1.25e10 }, (const uint32_t[]){ 4, 5 });
	assert_int_equal(out.t_action, FARE_ADV_KEEP);
	assert_false(out.nt_attach);

	/* option: lower T to the sum when that is smaller */
	params.lower_transitive = true;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, 2.25e10);

	in[0].t_bw = 2e10;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_int_equal(out.t_action, FARE_ADV_KEEP);

	/* one without a non-transitive value: ECMP, keep */
	in[1].nt_state = FARE_PB_ABSENT;
	compute(in, 2, &params);
	assert_ecmp(2, FARE_REASON_SUPER_SPINE_WITHOUT_NT, 1, FARE_ADV_KEEP);

	/* one not from a super-spine at all */
	in[1] = node_path(GBPS(100), FLT_MAX);
	compute(in, 2, &params);
	assert_ecmp(2, FARE_REASON_SUPER_SPINE_WITHOUT_NT, 1, FARE_ADV_KEEP);
}

/* limits that cannot hold one member per path */
static void test_weights_unfit(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(100), FLT_MAX), node_path(GBPS(100), FLT_MAX),
				      node_path(GBPS(200), FLT_MAX) };
	struct fare_prefix_params params = node_params;

	(void)state;
	params.limits.max_members = 2;
	compute(in, 3, &params);
	/* WP-3: two members cannot hold 1:1:2. 0:0:1 and 1:1:0 both carry
	 * half the ideal throughput (0:1:1 overloads a 100G path); the tie
	 * goes to fewer members: the 200G path alone. The dropped paths are
	 * counted, and only what the weights deliver is advertised: 400G x
	 * 0.5 = 200G.
	 */
	assert_true(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_WCMP);
	assert_result(3, (const double[]){ GBPS(100), GBPS(100), GBPS(200) },
		      (const uint32_t[]){ 0, 0, 1 });
	assert_int_equal(out.dropped, 2);
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, GBPS(200));

	/* exact ratios: nothing dropped, the whole sum */
	params.limits.max_members = 4;
	compute(in, 3, &params);
	assert_result(3, (const double[]){ GBPS(100), GBPS(100), GBPS(200) },
		      (const uint32_t[]){ 1, 1, 2 });
	assert_int_equal(out.dropped, 0);
	assert_double_exact(out.t_value, GBPS(400));
}

static void test_no_path(void **state)
{
	struct fare_prefix_params params = node_params;

	(void)state;
	compute(NULL, 0, &params);
	assert_false(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_PATH_WITHOUT_PB);
	assert_int_equal(out.t_action, FARE_ADV_STRIP);

	params.role = FARE_ROLE_SUPER_SPINE;
	compute(NULL, 0, &params);
	assert_false(out.wcmp);
	assert_int_equal(out.t_action, FARE_ADV_KEEP);
	assert_false(out.nt_attach);
}

/* WP-4, the white paper's worked example, in averaged mode: Spine1 gets
 * 50G and 100G from Leaf1 and has 2 outgoing links (L5, L6) -> 75G each;
 * Spine2 gets 100G + 100G -> 100G each; Leaf2 installs 3:3:4:4.
 */
static void test_averaged_mode_wp4(void **state)
{
	struct fare_path_in spine1[2] = { node_path(GBPS(50), GBPS(50)),
					  node_path(GBPS(100), GBPS(100)) };
	struct fare_path_in spine2[2] = { node_path(GBPS(100), GBPS(100)),
					  node_path(GBPS(100), GBPS(100)) };
	struct fare_path_in leaf2[4] = { node_path(GBPS(100), GBPS(75)),
					 node_path(GBPS(100), GBPS(75)),
					 node_path(GBPS(100), GBPS(100)),
					 node_path(GBPS(100), GBPS(100)) };
	struct fare_prefix_params params = node_params;

	(void)state;
	params.mode = FARE_MODE_AVERAGED;
	compute(spine1, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ GBPS(50), GBPS(100) }, (const uint32_t[]){ 1, 2 });
	assert_int_equal(out.t_action, FARE_ADV_REPLACE);
	assert_double_exact(out.t_value, GBPS(150));
	assert_double_exact(fare_averaged_advertised(out.t_value, 2, GBPS(100)), GBPS(75));
	compute(spine2, 2, &params);
	assert_double_exact(fare_averaged_advertised(out.t_value, 2, GBPS(100)), GBPS(100));
	compute(leaf2, 4, &params);
	assert_result(4, (const double[]){ GBPS(75), GBPS(75), GBPS(100), GBPS(100) },
		      (const uint32_t[]){ 3, 3, 4, 4 });
	/* a receiver never weights a path above its own link, in averaged
	 * mode too: 75:75:10:100 = 15:15:2:20
	 */
	leaf2[2].link_bw = GBPS(10);
	compute(leaf2, 4, &params);
	assert_result(4, (const double[]){ GBPS(75), GBPS(75), GBPS(10), GBPS(100) },
		      (const uint32_t[]){ 15, 15, 2, 20 });
}

/* Averaged mode: a neighbor announcing the largest float (a wrong or
 * hostile sender) gets no more than the link it sits behind.
 */
static void test_averaged_capped_by_link(void **state)
{
	struct fare_path_in in[2] = { node_path(GBPS(10), FLT_MAX), node_path(GBPS(10), GBPS(10)) };
	struct fare_prefix_params params = node_params;

	(void)state;
	params.mode = FARE_MODE_AVERAGED;
	compute(in, 2, &params);
	assert_true(out.wcmp);
	assert_result(2, (const double[]){ GBPS(10), GBPS(10) }, (const uint32_t[]){ 1, 1 });
	assert_double_exact(out.t_value, GBPS(20));
}

/* FARE-7: a value passed on by a router without FARE counts as missing */
static void test_stale_value(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(400), FLT_MAX), node_path(GBPS(400), FLT_MAX),
				      node_path(GBPS(400), FLT_MAX) };

	(void)state;
	in[1].t_state = FARE_PB_STALE;
	compute(in, 3, &node_params);
	assert_ecmp(3, FARE_REASON_PATH_STALE_PB, 1, FARE_ADV_STRIP);
}

/* Add-path: two paths from one neighbor to one next hop (both carrying
 * the neighbor's whole sum, 1200G) over a 1000G link, and a 200G path
 * from another neighbor: the link counts once, 1000:0:200 = 5:0:1, and
 * the sum re-advertised is 1200G, not 2200G.
 */
static void test_addpath_same_nexthop(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(1000), GBPS(1200)),
				      node_path(GBPS(1000), GBPS(1200)),
				      node_path(GBPS(200), GBPS(200)) };

	(void)state;
	in[0].link_group = in[1].link_group = 1;
	in[0].nexthop_group = in[1].nexthop_group = 1;
	compute(in, 3, &node_params);
	assert_true(out.wcmp);
	assert_result(3, (const double[]){ GBPS(1000), 0, GBPS(200) },
		      (const uint32_t[]){ 5, 0, 1 });
	assert_double_exact(out.t_value, GBPS(1200));

	/* the duplicate with the larger value lends it to the first */
	in[0].t_bw = GBPS(100);
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(1000), 0, GBPS(200) },
		      (const uint32_t[]){ 5, 0, 1 });
}

/* Paths to different next hops over one session share its link: 600G +
 * 600G over 800G are scaled to 400G each; with a 400G path elsewhere
 * 1:1:1, sum 1200G. Under the link nothing is scaled.
 */
static void test_paths_share_link(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(800), GBPS(600)),
				      node_path(GBPS(800), GBPS(600)),
				      node_path(GBPS(400), FLT_MAX) };

	(void)state;
	in[0].link_group = in[1].link_group = 7;
	compute(in, 3, &node_params);
	assert_true(out.wcmp);
	assert_result(3, (const double[]){ GBPS(400), GBPS(400), GBPS(400) },
		      (const uint32_t[]){ 1, 1, 1 });
	assert_double_exact(out.t_value, GBPS(1200));

	in[0].t_bw = GBPS(100);
	in[1].t_bw = GBPS(300);
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(100), GBPS(300), GBPS(400) },
		      (const uint32_t[]){ 1, 3, 4 });

	/* FARE-8: a super-spine attaches its links towards the spine,
	 * each link once
	 */
	{
		struct fare_prefix_params ss = node_params;

		ss.role = FARE_ROLE_SUPER_SPINE;
		compute(in, 3, &ss);
		assert_true(out.nt_attach);
		assert_double_exact(out.nt_value, GBPS(1200));
	}
}

/* WP-4's fabric in draft mode with parallel links counted per neighbor:
 * spine1 gets leaf1's prefix over L1 50G and L3 100G: min(150, max) = 150,
 * split 50:100; leaf2 gets 150 from spine1 over two 100G links (75:75) and
 * 200 from spine2 over two 100G links (100:100): 3:3:4:4. Per session it
 * would be min(100, 150) and min(100, 200): 1:1:1:1.
 */
static void test_parallel_links_per_neighbor_wp4(void **state)
{
	struct fare_path_in spine1[2] = { node_path(GBPS(50), FLT_MAX),
					  node_path(GBPS(100), FLT_MAX) };
	struct fare_path_in leaf2[4] = { node_path(GBPS(100), GBPS(150)),
					 node_path(GBPS(100), GBPS(150)),
					 node_path(GBPS(100), GBPS(200)),
					 node_path(GBPS(100), GBPS(200)) };

	(void)state;
	spine1[0].neighbor_group = spine1[1].neighbor_group = 1;
	compute(spine1, 2, &node_params);
	assert_result(2, (const double[]){ GBPS(50), GBPS(100) }, (const uint32_t[]){ 1, 2 });
	assert_double_exact(out.t_value, GBPS(150));

	compute(leaf2, 4, &node_params); /* per session */
	assert_result(4, (const double[]){ GBPS(100), GBPS(100), GBPS(100), GBPS(100) },
		      (const uint32_t[]){ 1, 1, 1, 1 });
	leaf2[0].neighbor_group = leaf2[1].neighbor_group = 4;
	leaf2[2].neighbor_group = leaf2[3].neighbor_group = 9;
	compute(leaf2, 4, &node_params);
	assert_true(out.wcmp);
	assert_result(4, (const double[]){ GBPS(75), GBPS(75), GBPS(100), GBPS(100) },
		      (const uint32_t[]){ 3, 3, 4, 4 });
	assert_double_exact(out.t_value, GBPS(350));
}

/* 25G + 100G to one neighbor: min(125, value) split 1:4 by the links; a
 * link in its hold-down adds nothing; an unknown link leaves the group to
 * the per-link cap.
 */
static void test_parallel_links_split_by_bandwidth(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(25), GBPS(200)),
				      node_path(GBPS(100), GBPS(200)),
				      node_path(GBPS(400), GBPS(125)) };

	(void)state;
	in[0].neighbor_group = in[1].neighbor_group = 1;
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(25), GBPS(100), GBPS(125) },
		      (const uint32_t[]){ 1, 4, 5 });
	assert_double_exact(out.t_value, GBPS(250));

	in[0].t_bw = in[1].t_bw = GBPS(50);
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(10), GBPS(40), GBPS(125) },
		      (const uint32_t[]){ 2, 8, 25 });

	in[0].t_bw = in[1].t_bw = GBPS(200);
	in[0].held_down = true;
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ 0, GBPS(100), GBPS(125) }, (const uint32_t[]){ 0, 4, 5 });

	in[0].held_down = false;
	in[0].link_bw = 0;
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(200), GBPS(100), GBPS(125) },
		      (const uint32_t[]){ 8, 4, 5 });
}

/* SUN-1/SUN-2 on a GPU server: 4 planes, a Y-cable of two 400G sub-ports
 * per plane, one session per sub-port. A plane switch advertises the sum
 * over the destination's live sub-ports (800G, 400G after a half failure);
 * the sender weights each plane by min(its sub-ports, that value), split
 * over its sub-ports.
 */
static void test_scaleup_y_cable(void **state)
{
	struct fare_path_in in[8];
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++) {
		in[i] = node_path(GBPS(400), GBPS(800));
		in[i].neighbor_group = 1 + (i / 2) * 2; /* plane = 2 sub-ports */
	}
	compute(in, 8, &node_params);
	assert_result(8,
		      (const double[]){ GBPS(400), GBPS(400), GBPS(400), GBPS(400), GBPS(400),
					GBPS(400), GBPS(400), GBPS(400) },
		      (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1, 1 });

	/* the destination's sub-port on plane 4 fails: that plane carries
	 * 400G, 2:2:2:2:2:2:1:1 (SUN-2: its share halves, 1/4 -> 1/7)
	 */
	in[6].t_bw = in[7].t_bw = GBPS(400);
	compute(in, 8, &node_params);
	assert_result(8,
		      (const double[]){ GBPS(400), GBPS(400), GBPS(400), GBPS(400), GBPS(400),
					GBPS(400), GBPS(200), GBPS(200) },
		      (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 });

	/* the sender's own sub-port on plane 4 fails instead: one link of
	 * 400G left in that plane, the same halved share
	 */
	in[6].t_bw = GBPS(800);
	compute(in, 7, &node_params);
	assert_result(7,
		      (const double[]){ GBPS(400), GBPS(400), GBPS(400), GBPS(400), GBPS(400),
					GBPS(400), GBPS(400) },
		      (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1 });
}

/*
 * EE-4: compute with the sub-group restriction `member` and check the
 * weights against exp_w and the result; path_bw and the rest of out must
 * be those of the same prefix computed without the restriction.
 */
static void compute_subgroup(const struct fare_path_in *in, size_t n,
			     const struct fare_prefix_params *params, const bool *member,
			     enum fare_subgroup_result result, const uint32_t *exp_w)
{
	struct fare_prefix_params restricted = *params;
	struct fare_prefix_out full;
	double full_bw[MAX_PATHS];
	size_t i;

	compute(in, n, params);
	assert_int_equal(out.subgroup, FARE_SUBGROUP_NONE);
	full = out;
	memcpy(full_bw, path_bw, n * sizeof(*path_bw));

	restricted.subgroup = member;
	compute(in, n, &restricted);
	assert_int_equal(out.subgroup, result);
	for (i = 0; i < n; i++) {
		assert_double_exact(path_bw[i], full_bw[i]);
		assert_int_equal(weights[i], exp_w[i]);
	}
	assert_int_equal(out.wcmp, full.wcmp);
	assert_int_equal(out.reason, full.reason);
	assert_int_equal(out.reason_path, full.reason_path);
	assert_int_equal(out.t_action, full.t_action);
	assert_double_exact(out.t_value, full.t_value);
	assert_int_equal(out.nt_attach, full.nt_attach);
	assert_double_exact(out.nt_value, full.nt_value);
	assert_int_equal(out.dropped, full.dropped);
}

/*
 * EE-4 with FARE-4 weights, the ingress leaf of topotest fare_ecmp_groups:
 * uplinks to-s1..to-s4 at 100G, 200G, 400G, 400G, every spine advertising
 * 800G; sub-groups of 2 uplinks. Sub-group 1 is {to-s1: 1, to-s2: 2},
 * sub-group 2 {to-s3: 1, to-s4: 1}, a route without GroupID (no
 * restriction) 1:2:4:4; the advertisement is the full set's (1100G).
 */
static void ecmp_groups_leaf1(struct fare_path_in *in)
{
	in[0] = node_path(GBPS(100), GBPS(800));
	in[1] = node_path(GBPS(200), GBPS(800));
	in[2] = node_path(GBPS(400), GBPS(800));
	in[3] = node_path(GBPS(400), GBPS(800));
}

static void test_ee4_subgroup_weights(void **state)
{
	struct fare_path_in in[4];

	(void)state;
	ecmp_groups_leaf1(in);
	compute(in, 4, &node_params);
	assert_result(4, (const double[]){ GBPS(100), GBPS(200), GBPS(400), GBPS(400) },
		      (const uint32_t[]){ 1, 2, 4, 4 });
	assert_int_equal(out.subgroup, FARE_SUBGROUP_NONE);
	assert_double_exact(out.t_value, GBPS(1100));

	compute_subgroup(in, 4, &node_params, (const bool[]){ true, true, false, false },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 1, 2, 0, 0 });
	assert_true(out.wcmp);
	assert_double_exact(out.t_value, GBPS(1100));
	compute_subgroup(in, 4, &node_params, (const bool[]){ false, false, true, true },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 0, 0, 1, 1 });
	/* sub-groups of one uplink (size 1): that uplink alone */
	compute_subgroup(in, 4, &node_params, (const bool[]){ false, true, false, false },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 0, 1, 0, 0 });

	/* to-s2 down (its path gone): sub-group 1 is {to-s1: 1}, no GroupID
	 * {to-s1: 1, to-s3: 4, to-s4: 4}
	 */
	in[1] = in[2];
	in[2] = in[3];
	compute(in, 3, &node_params);
	assert_result(3, (const double[]){ GBPS(100), GBPS(400), GBPS(400) },
		      (const uint32_t[]){ 1, 4, 4 });
	compute_subgroup(in, 3, &node_params, (const bool[]){ true, false, false },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 1, 0, 0 });

	/* to-s1 down too: no path in sub-group 1: the full set, {to-s3: 1,
	 * to-s4: 1}; sub-group 2 the same, restricted
	 */
	compute_subgroup(in + 1, 2, &node_params, (const bool[]){ false, false },
			 FARE_SUBGROUP_FALLBACK, (const uint32_t[]){ 1, 1 });
	compute_subgroup(in + 1, 2, &node_params, (const bool[]){ true, true },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 1, 1 });
}

/*
 * EE-4 with parallel links, topotest fare_ecmp_uplinks after swp1 is
 * deleted: 11 uplinks at 10G, swp2..swp4 to spine1, swp5..swp8 to
 * spine2, swp9..swp12 to spine3, each spine advertising 10G: spine1's 3
 * links carry 10G / 3 each, the others 2.5G (FARE-4 per neighbor). In
 * sub-groups of 4, sub-group 1 = swp2..swp5 weighs 4:4:4:3, sub-group 2 =
 * swp6..swp9 1:1:1:1, sub-group 3 = swp10..swp12 1:1:1.
 */
static void test_ee4_subgroup_parallel_links(void **state)
{
	struct fare_path_in in[11];
	bool member[11];
	uint32_t exp_w[11];
	size_t i, sg;

	(void)state;
	for (i = 0; i < 11; i++) {
		in[i] = node_path(GBPS(10), GBPS(10));
		in[i].neighbor_group = i < 3 ? 1 : i < 7 ? 4 : 8;
	}
	compute(in, 11, &node_params);
	assert_true(out.wcmp);
	assert_result(11,
		      (const double[]){ GBPS(10) / 3, GBPS(10) / 3, GBPS(10) / 3, GBPS(2.5),
					GBPS(2.5), GBPS(2.5), GBPS(2.5), GBPS(2.5), GBPS(2.5),
					GBPS(2.5), GBPS(2.5) },
		      (const uint32_t[]){ 4, 4, 4, 3, 3, 3, 3, 3, 3, 3, 3 });

	for (sg = 0; sg < 3; sg++) {
		for (i = 0; i < 11; i++) {
			member[i] = i / 4 == sg;
			exp_w[i] = !member[i] ? 0 : sg ? 1 : i < 3 ? 4 : 3;
		}
		compute_subgroup(in, 11, &node_params, member, FARE_SUBGROUP_APPLIED, exp_w);
	}
}

/*
 * EE-4 when FARE falls back to plain ECMP (the same leaf, a path without
 * Path Bandwidth, FARE-7): the sub-group's paths at 1 each; no path in the
 * sub-group: plain ECMP over every path (weights 0).
 */
static void test_ee4_subgroup_ecmp(void **state)
{
	struct fare_path_in in[4];

	(void)state;
	ecmp_groups_leaf1(in);
	in[3].t_state = FARE_PB_ABSENT;
	compute_subgroup(in, 4, &node_params, (const bool[]){ true, true, false, false },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 1, 1, 0, 0 });
	assert_false(out.wcmp);
	assert_int_equal(out.reason, FARE_REASON_PATH_WITHOUT_PB);
	assert_int_equal(out.t_action, FARE_ADV_STRIP);
	compute_subgroup(in, 4, &node_params, (const bool[]){ false, false, true, true },
			 FARE_SUBGROUP_APPLIED, (const uint32_t[]){ 0, 0, 1, 1 });
	compute_subgroup(in, 4, &node_params, (const bool[]){ false, false, false, false },
			 FARE_SUBGROUP_FALLBACK, (const uint32_t[]){ 0, 0, 0, 0 });
}

/*
 * EE-4 and WP-3's member budget: with 2 members, 100G:100G:200G keeps the
 * 200G path alone (test_weights_unfit). A sub-group of the two 100G paths
 * has no path the full set uses: the full set's weights stay; one with
 * the 200G path has it alone. What is advertised stays the full set's
 * (200G).
 */
static void test_ee4_subgroup_budget(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(100), FLT_MAX), node_path(GBPS(100), FLT_MAX),
				      node_path(GBPS(200), FLT_MAX) };
	struct fare_prefix_params params = node_params;

	(void)state;
	params.limits.max_members = 2;
	compute_subgroup(in, 3, &params, (const bool[]){ true, true, false },
			 FARE_SUBGROUP_FALLBACK, (const uint32_t[]){ 0, 0, 1 });
	assert_int_equal(out.dropped, 2);
	assert_double_exact(out.t_value, GBPS(200));
	compute_subgroup(in, 3, &params, (const bool[]){ true, false, true }, FARE_SUBGROUP_APPLIED,
			 (const uint32_t[]){ 0, 0, 1 });

	/* no path at all: no restriction to apply */
	params.subgroup = (const bool[]){ true };
	compute(NULL, 0, &params);
	assert_int_equal(out.subgroup, FARE_SUBGROUP_NONE);
}

/* SUN-1: a host announces only what it originates. */
static void test_role_announces(void **state)
{
	(void)state;
	assert_true(fare_role_announces(FARE_ROLE_HOST, true));
	assert_false(fare_role_announces(FARE_ROLE_HOST, false));
	assert_true(fare_role_announces(FARE_ROLE_NODE, false));
	assert_true(fare_role_announces(FARE_ROLE_SUPER_SPINE, false));
}

/* A next hop that zebra resolves over several links cannot be weighted
 * exactly: plain ECMP, and said so.
 */
static void test_inexact_nexthop(void **state)
{
	struct fare_path_in in[2] = { node_path(GBPS(400), FLT_MAX), node_path(GBPS(800), FLT_MAX) };

	(void)state;
	in[1].inexact_nexthop = true;
	compute(in, 2, &node_params);
	assert_ecmp(2, FARE_REASON_INEXACT_NEXTHOP, 1, FARE_ADV_STRIP);
}

static void test_averaged_advertised(void **state)
{
	(void)state;
	/* WP-2: cap by the outgoing line rate */
	assert_double_exact(fare_averaged_advertised(GBPS(400), 2, GBPS(100)), GBPS(100));
	/* WP-1: origination at the line rate, n_out 1 */
	assert_double_exact(fare_averaged_advertised(3.4e38, 1, GBPS(400)), GBPS(400));
	/* unknown outgoing line rate: no cap; no outgoing link: the sum */
	assert_double_exact(fare_averaged_advertised(GBPS(300), 3, 0), GBPS(100));
	assert_double_exact(fare_averaged_advertised(GBPS(300), 0, 0), GBPS(300));
}

/* WP-7: a re-established session in its hold-down carries nothing yet */
static void test_held_down_path(void **state)
{
	struct fare_path_in in[3] = { node_path(GBPS(400), 3.4e38), node_path(GBPS(400), 3.4e38),
				      node_path(GBPS(800), 3.4e38) };

	(void)state;
	in[2].held_down = true;
	compute(in, 3, &node_params);
	assert_true(out.wcmp);
	assert_result(3, (const double[]){ GBPS(400), GBPS(400), 0 }, (const uint32_t[]){ 1, 1, 0 });
	assert_double_exact(out.t_value, GBPS(800));
}

static void assert_name(const char *s)
{
	assert_non_null(s);
	assert_true(s[0] != '\0');
	assert_string_not_equal(s, "unknown");
}

static void test_strings(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < FARE_REASON_MAX; i++)
		assert_name(fare_reason_str(i));
	for (i = FARE_PB_ABSENT; i <= FARE_PB_STALE; i++)
		assert_name(fare_pb_state_str(i));
	for (i = FARE_ADV_REPLACE; i <= FARE_ADV_STRIP; i++)
		assert_name(fare_adv_action_str(i));
	assert_string_equal(fare_reason_str(FARE_REASON_MAX), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fare4_min_and_reduce),
		cmocka_unit_test(test_fare5_sum_64),
		cmocka_unit_test(test_fare6_multihoming),
		cmocka_unit_test(test_fare7_all_or_nothing),
		cmocka_unit_test(test_zero),
		cmocka_unit_test(test_fare8_super_spine),
		cmocka_unit_test(test_fare9_from_super_spine),
		cmocka_unit_test(test_weights_unfit),
		cmocka_unit_test(test_no_path),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_averaged_mode_wp4),
		cmocka_unit_test(test_averaged_advertised),
		cmocka_unit_test(test_held_down_path),
		cmocka_unit_test(test_averaged_capped_by_link),
		cmocka_unit_test(test_stale_value),
		cmocka_unit_test(test_addpath_same_nexthop),
		cmocka_unit_test(test_paths_share_link),
		cmocka_unit_test(test_inexact_nexthop),
		cmocka_unit_test(test_parallel_links_per_neighbor_wp4),
		cmocka_unit_test(test_parallel_links_split_by_bandwidth),
		cmocka_unit_test(test_scaleup_y_cable),
		cmocka_unit_test(test_ee4_subgroup_weights),
		cmocka_unit_test(test_ee4_subgroup_parallel_links),
		cmocka_unit_test(test_ee4_subgroup_ecmp),
		cmocka_unit_test(test_ee4_subgroup_budget),
		cmocka_unit_test(test_role_announces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
