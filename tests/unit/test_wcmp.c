// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: WCMP integer weights from path bandwidths (WP-3, WP-4, WP-5,
 * FARE-4), checked against brute force.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "fare_wcmp.h"
#include "prng.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* link speeds in bytes per second */
#define GBPS(g) ((g)*1e9 / 8)

/* same optimum for the tests: within this relative error, a tie */
#define ERROR_TOLERANCE 1e-9

static const struct fare_wcmp_limits kernel_limits = {
	.max_weight = 255,
	.max_members = 128,
};

/* uniform in [lo, hi] */
static uint32_t prng_range(struct prng *prng, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(prng_next(prng) % ((uint64_t)hi - lo + 1));
}

static double tolerance(double error)
{
	return ERROR_TOLERANCE * (error > 1.0 ? error : 1.0);
}

static void check_weights(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			  const uint32_t *expected)
{
	uint32_t weights[16];
	size_t i;
	int nonzero = 0;

	assert_true(n <= ARRAY_SIZE(weights));
	for (i = 0; i < n; i++)
		nonzero += bw[i] > 0;
	memset(weights, 0xA5, sizeof(weights));
	assert_int_equal(fare_wcmp_weights(bw, n, lim, weights), nonzero);
	for (i = 0; i < n; i++)
		assert_int_equal(weights[i], expected[i]);
}

/* WP-4: Leaf2 installs 75:75:100:100 = 3:3:4:4 */
static void test_wp4_vector(void **state)
{
	const double bw[] = { GBPS(75), GBPS(75), GBPS(100), GBPS(100) };
	const uint32_t expected[] = { 3, 3, 4, 4 };
	uint32_t weights[4];

	(void)state;
	check_weights(bw, 4, &kernel_limits, expected);
	fare_wcmp_weights(bw, 4, &kernel_limits, weights);
	assert_true(fare_wcmp_max_error(bw, weights, 4) < 1e-15);
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
	const uint32_t ones[] = { 1, 1, 1, 1 };
	const struct fare_wcmp_limits tight = { 1, 4 };

	(void)state;
	check_weights(bw2, 2, &kernel_limits, ones);
	check_weights(bw_odd, 3, &kernel_limits, ones);
	check_weights(bw_max, 4, &kernel_limits, ones);
	check_weights(bw_max, 4, &tight, ones);
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
	/* zero paths do not count against max_members */
	check_weights(bw, 4, &two, (const uint32_t[]){ 1, 0, 1, 0 });
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
	assert_int_equal(fare_wcmp_weights(good, 2, &one_member, weights), -1);
	assert_int_equal(fare_wcmp_weights(NULL, 2, kernel, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, NULL, weights), -1);
	assert_int_equal(fare_wcmp_weights(good, 2, kernel, NULL), -1);

	assert_true(isnan(fare_wcmp_max_error(good, weights, 0)));
	assert_true(isnan(fare_wcmp_max_error(negative, weights, 2)));
	weights[0] = weights[1] = 0;
	assert_true(isinf(fare_wcmp_max_error(good, weights, 2)));
	weights[0] = 1;
	weights[1] = 1;
	assert_true(isinf(fare_wcmp_max_error((const double[]){ GBPS(100), 0 }, weights, 2)));
	assert_true(fabs(fare_wcmp_max_error(good, weights, 2) - 0.5) < 1e-15);
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
	/* 97:101:103 needs 301 members: the best fit in 24 is 1:1:1 */
	assert_int_equal(fare_wcmp_weights(primes, 3, &small, weights), 3);
	assert_int_equal(weights[0] + weights[1] + weights[2], 3);
	/* and exact when it fits */
	assert_int_equal(fare_wcmp_weights(primes, 3, &exact, weights), 3);
	assert_int_equal(weights[0], 97);
	assert_int_equal(weights[2], 103);

	/* 1:1000 with 8-bit weights: 1:255 is the closest */
	assert_int_equal(fare_wcmp_weights(wide, 2, &kernel, weights), 2);
	assert_int_equal(weights[0], 1);
	assert_int_equal(weights[1], 255);
	assert_int_equal(fare_wcmp_weights(far, 2, &small, weights), 2);
	assert_int_equal(weights[0], 1);
	assert_int_equal(weights[1], 12);
}

struct brute_result {
	double error;
	uint32_t sum;
	uint64_t vectors;
};

/* every vector in the limits: best error, smallest sum among the ties */
static void brute_force(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			struct brute_result *result)
{
	uint32_t w[8] = { 0 };
	double errors_by_sum[64];
	size_t nonzero[8], m = 0, i;
	uint32_t sum;
	bool more = true;

	for (i = 0; i < n; i++)
		if (bw[i] > 0)
			nonzero[m++] = i;
	for (i = 0; i < ARRAY_SIZE(errors_by_sum); i++)
		errors_by_sum[i] = INFINITY;
	for (i = 0; i < m; i++)
		w[nonzero[i]] = 1;

	result->vectors = 0;
	while (more) {
		sum = 0;
		for (i = 0; i < n; i++)
			sum += w[i];
		if (sum <= lim->max_members) {
			double error = fare_wcmp_max_error(bw, w, n);

			result->vectors++;
			if (error < errors_by_sum[sum])
				errors_by_sum[sum] = error;
		}
		/* next vector, odometer style */
		more = false;
		for (i = 0; i < m; i++) {
			if (w[nonzero[i]] < lim->max_weight) {
				w[nonzero[i]]++;
				more = true;
				break;
			}
			w[nonzero[i]] = 1;
		}
	}

	result->error = INFINITY;
	for (sum = 0; sum < ARRAY_SIZE(errors_by_sum); sum++)
		if (errors_by_sum[sum] < result->error)
			result->error = errors_by_sum[sum];
	for (sum = 0; sum < ARRAY_SIZE(errors_by_sum); sum++)
		if (errors_by_sum[sum] <= result->error + tolerance(result->error))
			break;
	result->sum = sum;
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

/* WP-3: the result is optimal, compared with all vectors (n <= 4) */
static void test_brute_force(void **state)
{
	struct prng prng = { 0x9E3779B97F4A7C15ULL };
	uint64_t vectors = 0;
	int cases = 0, exact = 0, round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		struct fare_wcmp_limits lim;
		struct brute_result brute;
		double bw[4];
		uint32_t weights[4], sum = 0;
		size_t n = prng_range(&prng, 2, 4), i;
		int kind = prng_range(&prng, 0, 4), m = 0, ret;
		double error;

		for (i = 0; i < n; i++) {
			bw[i] = random_bandwidth(&prng, kind);
			m += bw[i] > 0;
		}
		lim.max_weight = prng_range(&prng, 1, 12);
		lim.max_members = prng_range(&prng, 1, 24);

		ret = fare_wcmp_weights(bw, n, &lim, weights);
		if (m == 0 || lim.max_members < (uint32_t)m) {
			assert_int_equal(ret, -1);
			continue;
		}
		assert_int_equal(ret, m);
		for (i = 0; i < n; i++) {
			if (bw[i] == 0) {
				assert_int_equal(weights[i], 0);
				continue;
			}
			assert_in_range(weights[i], 1, lim.max_weight);
			sum += weights[i];
		}
		assert_true(sum <= lim.max_members);

		brute_force(bw, n, &lim, &brute);
		error = fare_wcmp_max_error(bw, weights, n);
		if (error > brute.error + tolerance(brute.error) || sum != brute.sum) {
			for (i = 0; i < n; i++)
				print_message("bw[%zu] = %.17g -> %u\n", i, bw[i], weights[i]);
			fail_msg("limits {%u, %u}: error %.17g sum %u, brute "
				 "force %.17g sum %u",
				 lim.max_weight, lim.max_members, error, sum, brute.error,
				 brute.sum);
		}
		cases++;
		exact += error < 1e-12;
		vectors += brute.vectors;
	}
	print_message("%d random groups optimal (%d exact ratios), %llu "
		      "vectors enumerated\n",
		      cases, exact, (unsigned long long)vectors);
}

/*
 * Large groups: limits hold, and the error is within two upper bounds of the
 * optimum: the plain rounding of the shares into max_members, and the
 * a-priori bound of largest-remainder apportionment. With T members and
 * every ideal weight t_i = T b_i / sum(b) in [1, max_weight - 1], each
 * |w_i - t_i| < 1, so the error is below 1 / min(t_i).
 */
static void check_large_group(struct prng *prng, size_t n, int kind)
{
	const struct fare_wcmp_limits lim = { 255, 4096 };
	double bw[512], bw_sum = 0, bw_min = INFINITY, bw_max = 0;
	double error, rounding_error, apportion_bound = INFINITY, total;
	uint32_t weights[512], rounded[512], sum = 0;
	size_t i, m = 0;

	assert_true(n <= ARRAY_SIZE(bw));
	for (i = 0; i < n; i++) {
		bw[i] = random_bandwidth(prng, kind);
		if (bw[i] == 0)
			continue;
		m++;
		bw_sum += bw[i];
		bw_min = fmin(bw_min, bw[i]);
		bw_max = fmax(bw_max, bw[i]);
	}
	assert_int_equal(fare_wcmp_weights(bw, n, &lim, weights), m);
	for (i = 0; i < n; i++) {
		if (bw[i] == 0) {
			assert_int_equal(weights[i], 0);
			continue;
		}
		assert_in_range(weights[i], 1, lim.max_weight);
		sum += weights[i];
	}
	assert_true(sum <= lim.max_members);
	error = fare_wcmp_max_error(bw, weights, n);

	/* sum(rounded) <= m + (max_members - m) = max_members */
	for (i = 0; i < n; i++) {
		double share = bw[i] / bw_sum * (lim.max_members - m);

		rounded[i] = bw[i] == 0 ? 0 : 1 + (uint32_t)floor(share);
		if (rounded[i] > lim.max_weight)
			rounded[i] = lim.max_weight;
	}
	rounding_error = fare_wcmp_max_error(bw, rounded, n);
	assert_true(error <= rounding_error + tolerance(rounding_error));

	total = fmin(lim.max_members, floor((lim.max_weight - 1) * bw_sum / bw_max));
	if (total * bw_min / bw_sum >= 1)
		apportion_bound = bw_sum / (total * bw_min);
	assert_true(error < apportion_bound);

	print_message("n = %3zu kind %d: %3zu paths, %4u members, worst "
		      "share error %8.4f%% (bounds: rounding %8.4f%%, "
		      "apportionment %8.4f%%)\n",
		      n, kind, m, sum, 100 * error, 100 * rounding_error, 100 * apportion_bound);
}

static void test_large_groups(void **state)
{
	struct prng prng = { 0xFA4EFA4EFA4E0001ULL };
	int kind;

	(void)state;
	for (kind = 0; kind < 5; kind++) {
		check_large_group(&prng, 64, kind);
		check_large_group(&prng, 512, kind);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wp4_vector),	 cmocka_unit_test(test_ratio_5_8),
		cmocka_unit_test(test_wp5_split),	 cmocka_unit_test(test_equal),
		cmocka_unit_test(test_zero_bandwidth),	 cmocka_unit_test(test_invalid),
		cmocka_unit_test(test_limits_respected), cmocka_unit_test(test_brute_force),
		cmocka_unit_test(test_large_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
