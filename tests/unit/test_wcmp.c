// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: WCMP integer weights from path bandwidths (WP-3, WP-4, WP-5,
 * FARE-4): the throughput optimum (SPEC section 5, "Integer weights"),
 * checked against brute force and an independent reference.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fare_wcmp.h"
#include "prng.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* link speeds in bytes per second */
#define GBPS(g) ((g)*1e9 / 8)

static const struct fare_wcmp_limits kernel_limits = {
	.max_weight = 255,
	.max_members = 128,
};

/* uniform in [lo, hi] */
static uint32_t prng_range(struct prng *prng, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(prng_next(prng) % ((uint64_t)hi - lo + 1));
}

static void check_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			  const uint32_t *expected)
{
	uint32_t weights[16];
	size_t i;
	int nonzero = 0;

	assert_true(n <= ARRAY_SIZE(weights));
	for (i = 0; i < n; i++)
		nonzero += expected[i] > 0;
	memset(weights, 0xA5, sizeof(weights));
	assert_int_equal(fare_wcmp_weights(bw, n, lim, weights), nonzero);
	for (i = 0; i < n; i++)
		assert_int_equal(weights[i], expected[i]);
}

/*
 * Sign of x1 b1 - x2 b2, exactly, for integers x and positive finite
 * doubles: b = mantissa 2^e with a 53-bit integer mantissa, so x b is an
 * integer below 2^117 times a power of 2 (independent of the core's
 * two-product comparison).
 */
static int exact_cmp(uint64_t x1, double b1, uint64_t x2, double b2)
{
	int e1, e2, len1, len2;
	uint64_t m1 = (uint64_t)ldexp(frexp(b1, &e1), 53);
	uint64_t m2 = (uint64_t)ldexp(frexp(b2, &e2), 53);
	unsigned __int128 a = (unsigned __int128)x1 * m1, b = (unsigned __int128)x2 * m2;

	if (!a || !b)
		return (a > 0) - (b > 0);
	len1 = 128 -
	       (a >> 64 ? __builtin_clzll((uint64_t)(a >> 64)) : 64 + __builtin_clzll((uint64_t)a));
	len2 = 128 -
	       (b >> 64 ? __builtin_clzll((uint64_t)(b >> 64)) : 64 + __builtin_clzll((uint64_t)b));
	if (len1 + e1 != len2 + e2)
		return len1 + e1 < len2 + e2 ? -1 : 1;
	/* same magnitude: e1 - e2 = len2 - len1, below 128 */
	if (e1 > e2)
		a <<= e1 - e2;
	else
		b <<= e2 - e1;
	return a < b ? -1 : (a > b);
}

/*
 * A vector's throughput, as W min b_i / w_i (the common 1 / sum(b)
 * dropped): total W, and the minimum as b / w.
 */
struct throughput {
	uint64_t total;
	double b;
	uint64_t w;
	int used; /* non-zero weights */
};

static void throughput_of(const double *bw, const uint32_t *weights, size_t n, struct throughput *t)
{
	size_t i;

	t->total = 0;
	t->used = 0;
	t->b = 0;
	t->w = 1;
	for (i = 0; i < n; i++) {
		t->total += weights[i];
		if (!weights[i])
			continue;
		t->used++;
		/* b_i / w_i < b / w <=> w b_i < w_i b */
		if (!t->b || exact_cmp(t->w, bw[i], weights[i], t->b) < 0) {
			t->b = bw[i];
			t->w = weights[i];
		}
	}
}

/* sign of T(x) - T(y): W_x b_x / w_x - W_y b_y / w_y */
static int throughput_cmp(const struct throughput *x, const struct throughput *y)
{
	return exact_cmp(x->total * y->w, x->b, y->total * x->w, y->b);
}

/* WP-4: Leaf2 installs 75:75:100:100 = 3:3:4:4 */
static void test_wp4_vector(void **state)
{
	const double bw[] = { GBPS(75), GBPS(75), GBPS(100), GBPS(100) };
	const uint32_t expected[] = { 3, 3, 4, 4 };
	const struct fare_wcmp_limits twelve = { 254, 12 };
	uint32_t weights[4];

	(void)state;
	check_weights(bw, 4, &kernel_limits, expected);
	fare_wcmp_weights(bw, 4, &kernel_limits, weights);
	assert_true(fare_wcmp_max_error(bw, weights, 4) < 1e-15);
	assert_true(fare_wcmp_throughput(bw, weights, 4) == 1.0);
	/*
	 * 3:3:4:4 needs 14 members: with 12, 2:2:3:3 carries 20/21 of the
	 * ideal (its 100G paths saturate at 100 / (3/10) = 333G of 350G);
	 * 3:3:3:3 only 6/7.
	 */
	check_weights(bw, 4, &twelve, (const uint32_t[]){ 2, 2, 3, 3 });
	fare_wcmp_weights(bw, 4, &twelve, weights);
	assert_true(fabs(fare_wcmp_throughput(bw, weights, 4) - 20.0 / 21) < 1e-15);
	/* not whole numbers: the search, not the GCD, finds the same ratio */
	check_weights((const double[]){ 37.5, 37.5, 50, 50 }, 4, &kernel_limits, expected);
	check_weights((const double[]){ 0.75, 0.75, 1, 1 }, 4, &kernel_limits, expected);
}

/* WP-3: GCD reduction, 100G : 160G = 125 : 200 = 5 : 8 */
static void test_ratio_5_8(void **state)
{
	const double bw[] = { GBPS(100), GBPS(160) };
	const double bw_small[] = { 125, 200 };
	const uint32_t expected[] = { 5, 8 };

	(void)state;
	check_weights(bw, 2, &kernel_limits, expected);
	check_weights(bw_small, 2, &kernel_limits, expected);
}

/* WP-5: 4 x 100G and 4 x 200G split 1/3 : 2/3 */
static void test_wp5_split(void **state)
{
	const double bw[] = { GBPS(100), GBPS(100), GBPS(100), GBPS(100),
			      GBPS(200), GBPS(200), GBPS(200), GBPS(200) };
	const uint32_t expected[] = { 1, 1, 1, 1, 2, 2, 2, 2 };

	(void)state;
	check_weights(bw, 8, &kernel_limits, expected);
}

static void test_equal(void **state)
{
	const double bw2[] = { GBPS(400), GBPS(400) };
	const double bw_odd[] = { 1.0 / 3, 1.0 / 3, 1.0 / 3 };
	const double bw_max[] = { 3.4e38, 3.4e38, 3.4e38, 3.4e38 };
	const double bw_huge[] = { DBL_MAX, DBL_MAX, DBL_MAX };
	const uint32_t ones[] = { 1, 1, 1, 1 };
	const struct fare_wcmp_limits tight = { 1, 4 };
	const struct fare_wcmp_limits three = { 255, 3 };

	(void)state;
	check_weights(bw2, 2, &kernel_limits, ones);
	check_weights(bw_odd, 3, &kernel_limits, ones);
	check_weights(bw_max, 4, &kernel_limits, ones);
	check_weights(bw_max, 4, &tight, ones);
	check_weights(bw_huge, 3, &kernel_limits, ones);
	/* 4 equal paths, 3 members: 3 of them, 3/4 of the ideal throughput */
	check_weights(bw_max, 4, &three, (const uint32_t[]){ 1, 1, 1, 0 });
}

/* FARE-4: a path with no bandwidth gets weight 0 and takes no member */
static void test_zero_bandwidth(void **state)
{
	const double bw[] = { GBPS(100), 0, GBPS(200), -0.0 };
	const uint32_t expected[] = { 1, 0, 2, 0 };
	const double bw_one[] = { 0, GBPS(100), 0 };
	const uint32_t expected_one[] = { 0, 1, 0 };
	const double bw_real[] = { 0, 1.5, 0.5 };
	const uint32_t expected_real[] = { 0, 3, 1 };
	const struct fare_wcmp_limits two = { 255, 2 };

	(void)state;
	check_weights(bw, 4, &kernel_limits, expected);
	check_weights(bw_one, 3, &kernel_limits, expected_one);
	check_weights(bw_real, 3, &kernel_limits, expected_real);
	/*
	 * Zero paths do not count against max_members. 100:200 in 2 members
	 * was 1:1 under the old share-error objective; 1:1 and 0:1 both
	 * carry 2/3 of the ideal (the 100G path saturates at 2 x 100G; the
	 * 200G path alone carries 200G), and the tie goes to fewer members.
	 */
	check_weights(bw, 4, &two, (const uint32_t[]){ 0, 0, 1, 0 });
}

/* WP-3: a path whose share the budget cannot represent gets weight 0 */
static void test_drop_path(void **state)
{
	const double bw[] = { 1000, 1 };
	const double bw_mixed[] = { 1, 1000, 999 };
	const struct fare_wcmp_limits eight = { 255, 8 };
	uint32_t weights[3];

	(void)state;
	/*
	 * 1000:1 in 8 members: at weight 1 the small path saturates at
	 * 1/(w_0 + 1) of the traffic, >= 1/9 where its share is 1/1001:
	 * throughput at most 9/1001. Alone, the large path carries
	 * 1000/1001, and with one member as with eight (a tie: fewer).
	 */
	check_weights(bw, 2, &eight, (const uint32_t[]){ 1, 0 });
	fare_wcmp_weights(bw, 2, &eight, weights);
	assert_true(fabs(fare_wcmp_throughput(bw, weights, 2) - 1000.0 / 1001) < 1e-15);
	assert_true(fare_wcmp_max_error(bw, weights, 2) == 1.0);
	/* 1:1000:999 in 8: the two large ones 1:1, the small one dropped */
	check_weights(bw_mixed, 3, &eight, (const uint32_t[]){ 0, 1, 1 });
	/* with room for the exact ratio, nothing is dropped */
	check_weights(bw_mixed, 3, &(struct fare_wcmp_limits){ 1000, 2000 },
		      (const uint32_t[]){ 1, 1000, 999 });
}

/* WP-3: equal throughput goes to fewer members, then fewer dropped paths */
static void test_ties(void **state)
{
	const struct fare_wcmp_limits two = { 255, 2 }, three = { 255, 3 }, four = { 255, 4 };

	(void)state;
	/* 3:1 in 3: 1:0, 2:0 and 2:1 all carry 3/4: one member */
	check_weights((const double[]){ 3, 1 }, 2, &three, (const uint32_t[]){ 1, 0 });
	/* and with 4 members the exact ratio */
	check_weights((const double[]){ 3, 1 }, 2, &four, (const uint32_t[]){ 3, 1 });
	/* 2:1 in 2: 1:0 and 1:1 carry 2/3 */
	check_weights((const double[]){ 2, 1 }, 2, &two, (const uint32_t[]){ 1, 0 });
	/*
	 * 2:1:1 in 3: 2:1:0 (D'Hondt) and 1:1:1 both carry 3/4 with 3
	 * members; 1:1:1 drops no path.
	 */
	check_weights((const double[]){ 2, 1, 1 }, 3, &three, (const uint32_t[]){ 1, 1, 1 });
	/*
	 * 3:1:1:1 in 4: 2/3 with 4 members, by 3:1:0:0, 2:1:1:0 or 1:1:1:1:
	 * the path with units above the run gives one up for the last path.
	 */
	check_weights((const double[]){ 3, 1, 1, 1 }, 4, &four, (const uint32_t[]){ 1, 1, 1, 1 });
}

static void test_invalid(void **state)
{
	const double good[] = { GBPS(100), GBPS(200) };
	const double negative[] = { GBPS(100), -1 };
	const double not_a_number[] = { NAN, GBPS(100) };
	const double infinite[] = { GBPS(100), INFINITY };
	const double negative_infinite[] = { -INFINITY, GBPS(100) };
	const double zeros[] = { 0, 0, -0.0 };
	const struct fare_wcmp_limits no_weight = { 0, 128 };
	const struct fare_wcmp_limits no_member = { 255, 0 };
	const struct fare_wcmp_limits one_member = { 255, 1 };
	const struct fare_wcmp_limits *kernel = &kernel_limits;
	uint32_t weights[4];

	(void)state;
	assert_int_equal(fare_wcmp_weights(good, 0, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(negative, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(not_a_number, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(infinite, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(negative_infinite, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(zeros, 3, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, &no_weight, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, &no_member, weights), -1);
	assert_int_equal(fare_wcmp_weights(NULL, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, NULL, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, kernel, NULL), -1);
	/* fewer members than paths: no longer an error, the best path alone */
	check_weights(good, 2, &one_member, (const uint32_t[]){ 0, 1 });

	assert_true(isnan(fare_wcmp_max_error(good, weights, 0)));
	assert_true(isnan(fare_wcmp_max_error(negative, weights, 2)));
	assert_true(isnan(fare_wcmp_throughput(good, weights, 0)));
	assert_true(isnan(fare_wcmp_throughput(negative, weights, 2)));
	assert_true(isnan(fare_wcmp_throughput(NULL, weights, 2)));
	assert_true(isnan(fare_wcmp_throughput(good, NULL, 2)));
	weights[0] = weights[1] = 0;
	assert_true(isinf(fare_wcmp_max_error(good, weights, 2)));
	assert_true(fare_wcmp_throughput(good, weights, 2) == 0);
	weights[0] = 1;
	weights[1] = 1;
	assert_true(isnan(fare_wcmp_throughput(zeros, weights, 2)));
	assert_true(isinf(fare_wcmp_max_error((const double[]){ GBPS(100), 0 }, weights, 2)));
	assert_true(fare_wcmp_throughput((const double[]){ GBPS(100), 0 }, weights, 2) == 0);
	assert_true(fabs(fare_wcmp_max_error(good, weights, 2) - 0.5) < 1e-15);
	/* 1:1 on 100G:200G: the 100G path saturates at 2 x 100G of 300G */
	assert_true(fabs(fare_wcmp_throughput(good, weights, 2) - 2.0 / 3) < 1e-15);
}

/* WP-3: ratios that do not fit the data plane are approximated inside it */
static void test_limits_respected(void **state)
{
	const double primes[] = { 97, 101, 103 };
	const double wide[] = { 1, 1000 };
	const double far[] = { 1, 1e6 };
	const struct fare_wcmp_limits small = { 12, 24 };
	const struct fare_wcmp_limits exact = { 255, 301 };
	const struct fare_wcmp_limits kernel = { 255, 4096 };
	uint32_t weights[3];

	(void)state;
	/*
	 * 97:101:103 needs 301 members: in 24 (at most 12 each), 1:1:1
	 * carries 3 x 97 / 301 of the ideal, 8:8:8 the same with more
	 * members, 7:8:8 only 23 x 101/8 / 301.
	 */
	check_weights(primes, 3, &small, (const uint32_t[]){ 1, 1, 1 });
	/* and exact when it fits */
	check_weights(primes, 3, &exact, (const uint32_t[]){ 97, 101, 103 });

	/*
	 * 1:1000 with 8-bit weights was 1:255 under the old share-error
	 * objective: the small path then saturates at 1/256 of the traffic,
	 * 256/1001 of the ideal. Dropping it carries 1000/1001, with one
	 * member as with 255 (a tie: fewer members).
	 */
	check_weights(wide, 2, &kernel, (const uint32_t[]){ 0, 1 });
	fare_wcmp_weights(wide, 2, &kernel, weights);
	assert_true(fabs(fare_wcmp_throughput(wide, weights, 2) - 1000.0 / 1001) < 1e-15);
	/* likewise 1:1e6 in {12, 24}, was 1:12 */
	check_weights(far, 2, &small, (const uint32_t[]){ 0, 1 });
}

/* arbitrary values, exactly representable or not, at the edges */
static double adversarial_bandwidth(struct prng *prng, double base)
{
	switch (prng_range(prng, 0, 7)) {
	case 0:
		return base; /* equal: runs of ties */
	case 1:
		return base * prng_range(prng, 1, 4); /* exact multiples */
	case 2:
		return base / prng_range(prng, 1, 6); /* exact fractions */
	case 3:
		return nextafter(base, INFINITY); /* 1 ulp apart */
	case 4:
		return base * 1e-6; /* below any budget's representation */
	case 5:
		return base * 1e-300; /* far below: never used */
	case 6:
		return 0;
	default:
		return base * (1 + prng_unit(prng));
	}
}

static double random_bandwidth(struct prng *prng, int kind)
{
	static const double speeds_gbps[] = { 10, 25, 40, 50, 100, 200, 400, 800 };

	if (prng_range(prng, 0, 9) == 0)
		return 0; /* FARE-4: a failed path */
	switch (kind) {
	case 0: /* small integers: exact ratios, fitting or not */
		return prng_range(prng, 1, 20);
	case 1: /* link speeds (FARE-3), some multihomed: / k (FARE-6) */
		return GBPS(speeds_gbps[prng_range(prng, 0, 7)]) / prng_range(prng, 1, 3);
	case 2: /* WP-2 averages of link speeds */
		return GBPS(speeds_gbps[prng_range(prng, 0, 7)] +
			    speeds_gbps[prng_range(prng, 0, 7)]) /
		       prng_range(prng, 1, 7);
	case 3: /* arbitrary reals over two decades */
		return GBPS(1 + 99 * prng_unit(prng));
	default: /* fast links, a few degraded (WP-7, SUN-2) */
		return GBPS(400 * (1 + prng_range(prng, 0, 1)) *
			    (prng_range(prng, 0, 7) ? 1 : 0.5 + 0.5 * prng_unit(prng)));
	}
}

struct brute_result {
	struct throughput best; /* highest, then fewest members, most used */
	uint32_t weights[4];	/* a vector of it */
	uint64_t vectors;
};

/* better: higher throughput, then fewer members, then more paths used */
static bool brute_better(const struct throughput *x, const struct throughput *y)
{
	int cmp = throughput_cmp(x, y);

	if (cmp)
		return cmp > 0;
	if (x->total != y->total)
		return x->total < y->total;
	return x->used > y->used;
}

/* every vector with w_i in [0, max_weight], 1 <= sum <= max_members */
static void brute_force(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			struct brute_result *result)
{
	uint32_t w[4] = { 0 }, cap = lim->max_weight;
	size_t i;
	bool more = true;

	assert_true(n <= ARRAY_SIZE(w));
	if (cap > lim->max_members)
		cap = lim->max_members;
	result->best.total = 0;
	result->vectors = 0;
	while (more) {
		struct throughput t;

		throughput_of(bw, w, n, &t);
		if (t.total >= 1 && t.total <= lim->max_members) {
			result->vectors++;
			if (!result->best.total || brute_better(&t, &result->best)) {
				result->best = t;
				memcpy(result->weights, w, sizeof(w));
			}
		}
		/* next vector, odometer style; zero-bandwidth paths stay 0 */
		more = false;
		for (i = 0; i < n; i++) {
			if (bw[i] > 0 && w[i] < cap && t.total < lim->max_members) {
				w[i]++;
				more = true;
				break;
			}
			w[i] = 0;
			throughput_of(bw, w, n, &t);
		}
	}
}

/* the result of fare_wcmp_weights() is the brute-force optimum */
static void check_brute(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			uint64_t *vectors, int *dropped, int *exact)
{
	struct brute_result brute;
	struct throughput got;
	uint32_t weights[4];
	int ret, m = 0;
	size_t i;

	for (i = 0; i < n; i++)
		m += bw[i] > 0;
	memset(weights, 0xA5, sizeof(weights));
	ret = fare_wcmp_weights(bw, n, lim, weights);
	if (m == 0) {
		assert_int_equal(ret, -1);
		return;
	}
	for (i = 0; i < n; i++) {
		assert_in_range(weights[i], 0, lim->max_weight);
		if (bw[i] == 0)
			assert_int_equal(weights[i], 0);
	}
	throughput_of(bw, weights, n, &got);
	assert_int_equal(ret, got.used);
	assert_in_range(got.total, 1, lim->max_members);

	brute_force(bw, n, lim, &brute);
	if (throughput_cmp(&got, &brute.best) != 0 || got.total != brute.best.total ||
	    got.used != brute.best.used) {
		for (i = 0; i < n; i++)
			print_message("bw[%zu] = %.17g -> %u\n", i, bw[i], weights[i]);
		fail_msg("limits {%u, %u}: throughput %.17g sum %llu used %d, brute "
			 "force %.17g sum %llu used %d",
			 lim->max_weight, lim->max_members, fare_wcmp_throughput(bw, weights, n),
			 (unsigned long long)got.total, got.used,
			 fare_wcmp_throughput(bw, brute.weights, n),
			 (unsigned long long)brute.best.total, brute.best.used);
	}
	*vectors += brute.vectors;
	*dropped += got.used < m;
	*exact += fare_wcmp_throughput(bw, weights, n) == 1.0;
}

/* WP-3: exactly optimal, compared with all vectors (n <= 4, budget <= 12) */
static void test_brute_force(void **state)
{
	struct prng prng = { 0x9E3779B97F4A7C15ULL };
	uint64_t vectors = 0;
	int cases = 0, dropped = 0, exact = 0, round;

	(void)state;
	for (round = 0; round < 6000; round++) {
		struct fare_wcmp_limits lim;
		double bw[4];
		size_t n = prng_range(&prng, 1, 4), i;
		int kind = prng_range(&prng, 0, 5);
		double base = kind == 5 ? ldexp(1 + prng_unit(&prng),
						(int)prng_range(&prng, 0, 2040) - 1020)
					: 0;

		for (i = 0; i < n; i++)
			bw[i] = kind == 5 ? adversarial_bandwidth(&prng, base)
					  : random_bandwidth(&prng, kind);
		lim.max_weight = prng_range(&prng, 1, 12);
		lim.max_members = prng_range(&prng, 1, 12);
		check_brute(bw, n, &lim, &vectors, &dropped, &exact);
		cases++;
	}
	print_message("%d random groups optimal (%d exact ratios, %d with paths "
		      "dropped), %llu vectors enumerated\n",
		      cases, exact, dropped, (unsigned long long)vectors);
}

/* a unit (k-th member of a path) of the reference below */
struct ref_unit {
	double b;
	uint32_t k;
};

static int ref_unit_desc(const void *pa, const void *pb)
{
	const struct ref_unit *a = pa, *b = pb;

	/* b_a / k_a vs b_b / k_b, descending */
	return -exact_cmp(b->k, a->b, a->k, b->b);
}

/*
 * Large groups: the throughput equals that of an independent reference
 * (sort all units b_i / k by value, take the best W v_W: the argument in
 * fare_wcmp.c), with the same total, and the limits hold.
 */
static void check_large_group(struct prng *prng, size_t n, int kind, uint32_t members)
{
	const struct fare_wcmp_limits lim = { 254, members };
	static struct ref_unit units[512 * 254];
	double bw[512];
	uint32_t weights[512], k_cap = lim.max_weight;
	struct throughput got, ref = { 0 };
	size_t i, count = 0, total;
	int m = 0;

	assert_true(n <= ARRAY_SIZE(bw));
	for (i = 0; i < n; i++) {
		bw[i] = random_bandwidth(prng, kind);
		if (bw[i] > 0)
			m++;
	}
	if (k_cap > members)
		k_cap = members;
	for (i = 0; i < n; i++) {
		uint32_t k;

		for (k = 1; bw[i] > 0 && k <= k_cap; k++) {
			units[count].b = bw[i];
			units[count++].k = k;
		}
	}
	qsort(units, count, sizeof(*units), ref_unit_desc);
	for (total = 1; total <= members && total <= count; total++) {
		struct throughput t = { total, units[total - 1].b, units[total - 1].k, 0 };

		if (!ref.total || throughput_cmp(&t, &ref) > 0)
			ref = t;
	}

	assert_in_range(fare_wcmp_weights(bw, n, &lim, weights), 1, m);
	for (i = 0; i < n; i++) {
		assert_in_range(weights[i], 0, lim.max_weight);
		if (bw[i] == 0)
			assert_int_equal(weights[i], 0);
	}
	throughput_of(bw, weights, n, &got);
	assert_true(got.total <= members);
	assert_int_equal(throughput_cmp(&got, &ref), 0);
	assert_int_equal(got.total, ref.total);

	print_message("n = %3zu kind %d budget %4u: %3d paths, %3d used, %4llu members, "
		      "throughput %.4f (worst share error %.4f)\n",
		      n, kind, members, m, got.used, (unsigned long long)got.total,
		      fare_wcmp_throughput(bw, weights, n), fare_wcmp_max_error(bw, weights, n));
}

static void test_large_groups(void **state)
{
	struct prng prng = { 0xFA4EFA4EFA4E0001ULL };
	int kind;

	(void)state;
	for (kind = 0; kind < 5; kind++) {
		check_large_group(&prng, 16, kind, 512);
		check_large_group(&prng, 64, kind, 512);
		check_large_group(&prng, 512, kind, 512);
		check_large_group(&prng, 512, kind, 4096);
	}
}

/* The memo gives what fare_wcmp_weights() gives, from a pool of vectors
 * seen again and again (as a table's prefixes share a few), with limits
 * in the key, and hits once a vector was seen; over
 * FARE_WCMP_MEMO_PATHS paths, and on a failure, it computes each time.
 */
static void test_memo(void **state)
{
	static struct fare_wcmp_memo memo;
	struct prng prng = { 0x4D454D4F4D454D4FULL };
	double pool[24][FARE_WCMP_MEMO_PATHS + 1];
	size_t pool_n[24];
	uint32_t got[FARE_WCMP_MEMO_PATHS + 1], want[FARE_WCMP_MEMO_PATHS + 1];
	const double bad[2] = { GBPS(100), NAN };
	uint64_t kept = 0, failed = 0, hits;
	size_t p, i;
	int round, result;

	(void)state;
	for (p = 0; p < 24; p++) {
		/* the last vectors: one path more than the memo keeps */
		pool_n[p] = p >= 22 ? FARE_WCMP_MEMO_PATHS + 1 : prng_range(&prng, 1, 8);
		for (i = 0; i < pool_n[p]; i++)
			pool[p][i] = random_bandwidth(&prng, (int)(p % 5));
	}
	for (round = 0; round < 2000; round++) {
		struct fare_wcmp_limits lim = { .max_weight = round % 3 ? 255 : 7,
						.max_members = round % 3 ? 128 : 10 };

		p = prng_range(&prng, 0, 23);
		memset(got, 0xff, sizeof(got));
		memset(want, 0xff, sizeof(want));
		result = fare_wcmp_weights(pool[p], pool_n[p], &lim, want);
		assert_int_equal(fare_wcmp_weights_memo(&memo, pool[p], pool_n[p], &lim, got),
				 result);
		assert_memory_equal(got, want, pool_n[p] * sizeof(*got));
		kept += pool_n[p] <= FARE_WCMP_MEMO_PATHS;
		failed += pool_n[p] <= FARE_WCMP_MEMO_PATHS && result < 0;
	}
	/* the 17 paths bypass it; 22 vectors of at most 16 paths under 2
	 * limits in 64 slots: each computed once, or a few times where two
	 * share a slot
	 */
	assert_int_equal(memo.hits + memo.misses, kept);
	assert_true(memo.misses - failed < 100);
	assert_true(memo.hits > kept - failed - 100);
	/* seen just now: a hit */
	result = fare_wcmp_weights_memo(&memo, pool[0], pool_n[0], &kernel_limits, got);
	hits = memo.hits;
	assert_int_equal(fare_wcmp_weights_memo(&memo, pool[0], pool_n[0], &kernel_limits, got),
			 result);
	assert_int_equal(memo.hits, hits + (result >= 0 ? 1 : 0));

	/* a failure is not kept: the same again fails again, a miss again */
	assert_int_equal(fare_wcmp_weights_memo(&memo, bad, 2, &kernel_limits, got), -1);
	hits = memo.misses;
	assert_int_equal(fare_wcmp_weights_memo(&memo, bad, 2, &kernel_limits, got), -1);
	assert_int_equal(memo.misses, hits + 1);
	/* no memo: computed */
	assert_int_equal(fare_wcmp_weights_memo(NULL, pool[0], pool_n[0], &kernel_limits, got),
			 fare_wcmp_weights(pool[0], pool_n[0], &kernel_limits, want));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wp4_vector),
		cmocka_unit_test(test_ratio_5_8),
		cmocka_unit_test(test_wp5_split),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_zero_bandwidth),
		cmocka_unit_test(test_drop_path),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_limits_respected),
		cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_large_groups),
		cmocka_unit_test(test_memo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
