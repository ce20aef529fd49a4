// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: integer WCMP weights, fare_wcmp_weights() (WP-3,
 * FARE-4), with fare_wcmp_throughput() and fare_wcmp_max_error().
 *
 * Input: max_weight and max_members (fuzz_limit()), a power-of-two scale
 * (1 byte), the path count (2 bytes, up to FUZZ_MAX_PATHS), then one
 * bandwidth per path (fuzz_bandwidth(): NaN, infinities, negative, zero,
 * subnormal and huge values included).
 *
 * Checks, as fare_wcmp.h documents them:
 * - -1 exactly for n == 0, a bandwidth negative, NaN or infinite, all
 *   bandwidths zero or a zero limit; otherwise the number of non-zero
 *   weights, at least 1 and at most that of non-zero bandwidths;
 * - every weight <= max_weight, 1 <= sum <= max_members, no member on a
 *   path without bandwidth (FARE-4);
 * - throughput in (0, 1]; equal bandwidths that fit: all 1; an exact
 *   integer ratio that fits: that ratio reduced by the GCD (WP-3);
 * - the same weights for the bandwidths scaled by a power of two (only
 *   the ratios matter), where the search covers max_members;
 * - n <= 4 and max_members <= 12: the throughput is the best of all
 *   vectors within the limits (brute force, the objective of WP-3 computed
 *   here); for integral bandwidths exactly, ties included: then the
 *   smallest sum, then the most paths used.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_wcmp.h"
#include "fuzz_input.h"

/* above the 128 paths fare_wcmp_weights() keeps on the stack, and above
 * the 256 bgpd hands it
 */
#define FUZZ_MAX_PATHS 320

#define BRUTE_PATHS   4
#define BRUTE_MEMBERS 12

static uint64_t gcd(uint64_t a, uint64_t b)
{
	return b ? gcd(b, a % b) : a;
}

/* WP-3: all integral (< 2^63) and reduced by the GCD within the limits:
 * the expected weights, else false
 */
static bool reduced_ratio(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			  uint32_t *expected)
{
	uint64_t g = 0, total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (bw[i] >= 0x1p63 || bw[i] != floor(bw[i]))
			return false;
		g = gcd((uint64_t)bw[i], g);
	}
	for (i = 0; i < n; i++) {
		uint64_t w = (uint64_t)bw[i] / g;

		if (w > lim->max_weight || (total += w) > lim->max_members)
			return false;
		expected[i] = (uint32_t)w;
	}
	return true;
}

/*
 * The objective, computed here: min over w_i > 0 of (b_i/B) / (w_i/W), in
 * units of the largest bandwidth (no overflow).
 */
static double throughput(const double *bw, const uint32_t *w, size_t n)
{
	double b_max = 0, b_sum = 0, worst = INFINITY;
	uint64_t total = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		b_max = fmax(b_max, bw[i]);
		total += w[i];
	}
	for (i = 0; i < n; i++)
		b_sum += bw[i] / b_max;
	for (i = 0; i < n; i++)
		if (w[i])
			worst = fmin(worst, (bw[i] / b_max) / ((double)w[i] / total));
	return total ? worst / b_sum : 0;
}

/* integral bandwidths below 2^53: T(x) vs T(y) exactly, as
 * W_x min(b / w) vs W_y min(b / w), by cross-multiplication
 */
struct exact_t {
	uint64_t total, b, w;
	unsigned int used;
};

static struct exact_t exact_of(const double *bw, const uint32_t *w, size_t n)
{
	struct exact_t t = { 0, 0, 1, 0 };
	size_t i;

	for (i = 0; i < n; i++) {
		t.total += w[i];
		if (!w[i])
			continue;
		t.used++;
		if (!t.b || (uint64_t)bw[i] * t.w < t.b * w[i]) {
			t.b = (uint64_t)bw[i];
			t.w = w[i];
		}
	}
	return t;
}

/* WP-3 order: larger throughput, then smaller sum, then more paths used */
static int exact_cmp(const struct exact_t *x, const struct exact_t *y)
{
	unsigned __int128 a = (unsigned __int128)x->total * x->b * y->w;
	unsigned __int128 b = (unsigned __int128)y->total * y->b * x->w;

	if (a != b)
		return a > b ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return (x->used > y->used) - (x->used < y->used);
}

struct brute {
	const double *bw;
	size_t n;
	uint32_t cap, members;
	bool exact;
	uint32_t w[BRUTE_PATHS];
	double best_t;
	struct exact_t best;
	bool found;
};

/* every vector: w_i in [0, cap] (0 without bandwidth), 1 <= sum <= members */
static void brute_walk(struct brute *br, size_t i, uint32_t left)
{
	uint32_t k, top;

	if (i == br->n) {
		if (left == br->members)
			return; /* sum 0 */
		br->best_t = fmax(br->best_t, throughput(br->bw, br->w, br->n));
		if (br->exact) {
			struct exact_t t = exact_of(br->bw, br->w, br->n);

			if (!br->found || exact_cmp(&t, &br->best) > 0)
				br->best = t;
		}
		br->found = true;
		return;
	}
	top = br->bw[i] > 0 ? (br->cap < left ? br->cap : left) : 0;
	for (k = 0; k <= top; k++) {
		br->w[i] = k;
		brute_walk(br, i + 1, left - k);
	}
	br->w[i] = 0;
}

static void check_brute_force(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			      const uint32_t *weights)
{
	struct brute br = { .bw = bw, .n = n, .members = lim->max_members, .exact = true };
	double got = throughput(bw, weights, n);
	size_t i;

	br.cap = lim->max_weight < lim->max_members ? lim->max_weight : lim->max_members;
	for (i = 0; i < n; i++)
		br.exact &= bw[i] < 0x1p53 && bw[i] == floor(bw[i]);
	brute_walk(&br, 0, lim->max_members);
	FUZZ_CHECK(br.found);
	FUZZ_CHECK(got >= br.best_t * (1 - 1e-12));
	if (br.exact) {
		struct exact_t t = exact_of(bw, weights, n);

		FUZZ_CHECK(exact_cmp(&t, &br.best) == 0);
	}
}

/* only the ratios matter: scaled by 2^s, the same weights */
static void check_scaled(const double *bw, size_t n, const struct fare_wcmp_limits *lim,
			 const uint32_t *weights, int s)
{
	double *scaled = malloc(n * sizeof(*scaled));
	uint32_t *again = malloc(n * sizeof(*again));
	bool exact = true;
	size_t i;

	for (i = 0; i < n; i++) {
		scaled[i] = ldexp(bw[i], s);
		/* exactly the same ratios: no overflow, no subnormal */
		exact &= bw[i] == 0 || (isnormal(scaled[i]) && isnormal(bw[i]));
	}
	if (exact) {
		FUZZ_CHECK(fare_wcmp_weights(scaled, n, lim, again) >= 1);
		FUZZ_CHECK(memcmp(again, weights, n * sizeof(*again)) == 0);
	}
	free(scaled);
	free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = { data, size, 0 };
	struct fare_wcmp_limits lim;
	double *bw, first = 0, t;
	uint32_t *weights, *expected;
	uint64_t total = 0;
	size_t n, i, m = 0;
	bool valid, all_equal = true;
	int ret, used = 0, scale;

	lim.max_weight = fuzz_limit(&input);
	lim.max_members = fuzz_limit(&input);
	scale = (int)(fuzz_u8(&input) % 17) - 8;
	n = fuzz_u16(&input) % (FUZZ_MAX_PATHS + 1);
	/* exactly n elements: ASan sees any access past them */
	bw = malloc(n * sizeof(*bw));
	weights = malloc(n * sizeof(*weights));
	expected = malloc(n * sizeof(*expected));
	valid = n > 0 && lim.max_weight > 0 && lim.max_members > 0;
	for (i = 0; i < n; i++) {
		bw[i] = fuzz_bandwidth(&input);
		valid &= isfinite(bw[i]) && bw[i] >= 0;
		if (bw[i] > 0) {
			all_equal &= !m || bw[i] == first;
			first = m ? first : bw[i];
			m++;
		}
	}
	valid &= m > 0;

	memset(weights, 0xA5, n * sizeof(*weights));
	ret = fare_wcmp_weights(bw, n, &lim, weights);
	FUZZ_CHECK((ret == -1) == !valid);
	if (!valid)
		goto done;

	for (i = 0; i < n; i++) {
		FUZZ_CHECK(weights[i] <= lim.max_weight);
		FUZZ_CHECK(!weights[i] || bw[i] > 0); /* FARE-4 */
		total += weights[i];
		used += weights[i] > 0;
	}
	FUZZ_CHECK(ret == used && used >= 1 && (size_t)used <= m);
	FUZZ_CHECK(total >= 1 && total <= lim.max_members);

	t = fare_wcmp_throughput(bw, weights, n);
	FUZZ_CHECK(t > 0 && t <= 1);
	t = fare_wcmp_max_error(bw, weights, n);
	FUZZ_CHECK(isfinite(t) && t >= 0);

	/* WP-3: exact ratios when they fit */
	if (all_equal && m <= lim.max_members)
		for (i = 0; i < n; i++)
			FUZZ_CHECK(weights[i] == (bw[i] > 0));
	if (reduced_ratio(bw, n, &lim, expected))
		FUZZ_CHECK(memcmp(weights, expected, n * sizeof(*weights)) == 0);

	/* beyond the search, only the integer ratio is exact (fare_wcmp.h) */
	if (lim.max_members <= FARE_WCMP_SEARCH_MAX_TOTAL)
		check_scaled(bw, n, &lim, weights, scale);
	if (n <= BRUTE_PATHS && lim.max_members <= BRUTE_MEMBERS)
		check_brute_force(bw, n, &lim, weights);
done:
	free(bw);
	free(weights);
	free(expected);
	return 0;
}
