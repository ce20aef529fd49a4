// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Benchmark: time to compute one WCMP group's weights (WP-3) for 8, 64 and
 * 512 paths with random bandwidths, kernel-like limits {255, 4096}.
 * Prints figures only, asserts nothing about time. Side by side, the
 * baseline: what zebra does with FRR's link-bandwidth weights (the largest
 * scaled to 254, the others rounded down, at least 1), with its time and
 * worst share error, and the members it uses (sum of weights) unbounded.
 */

#define _POSIX_C_SOURCE 200809L /* clock_gettime() */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fare_wcmp.h"
#include "prng.h"

#define MAX_PATHS 512
#define GROUPS	  64

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* bytes per second: 25G..400G links, real-valued (WP-2 averages, FARE-6) */
static double random_bandwidth(struct prng *prng)
{
	return (25 + 375 * prng_unit(prng)) * 1e9 / 8;
}

/* zebra_rib's scaling of nexthop weights (zapi_read_nexthops()) */
static void zebra_scaled(const double *bw, size_t n, uint32_t *weights)
{
	double max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		max = fmax(max, bw[i]);
	for (i = 0; i < n; i++) {
		uint64_t w = (uint64_t)(bw[i] * 254 / max);

		weights[i] = w ? (uint32_t)w : 1;
	}
}

static void bench(size_t n, const struct fare_wcmp_limits *lim, struct prng *prng)
{
	static double bw[GROUPS][MAX_PATHS];
	static uint32_t weights[MAX_PATHS];
	double start, elapsed, total = 0, worst = 0;
	double fastest = INFINITY, slowest = 0;
	unsigned long long members = 0;
	size_t g, i;
	int repeat, repeats = n <= 8 ? 200 : (n <= 64 ? 20 : 4), ret = -1;

	for (g = 0; g < GROUPS; g++)
		for (i = 0; i < n; i++)
			bw[g][i] = random_bandwidth(prng);

	for (g = 0; g < GROUPS; g++) {
		start = now_ns();
		for (repeat = 0; repeat < repeats; repeat++)
			ret = fare_wcmp_weights(bw[g], n, lim, weights);
		elapsed = (now_ns() - start) / repeats;
		if (ret != (int)n) {
			fprintf(stderr, "fare_wcmp_weights failed\n");
			exit(1);
		}
		total += elapsed;
		fastest = fmin(fastest, elapsed);
		slowest = fmax(slowest, elapsed);
		worst = fmax(worst, fare_wcmp_max_error(bw[g], weights, n));
		for (i = 0; i < n; i++)
			members += weights[i];
	}
	printf("%4zu paths: FARE %9.1f us/group avg (min %.1f, max %.1f), "
	       "%6.1f members avg, worst share error %.3f%%\n",
	       n, total / GROUPS / 1e3, fastest / 1e3, slowest / 1e3, (double)members / GROUPS,
	       100 * worst);

	total = worst = 0;
	members = 0;
	for (g = 0; g < GROUPS; g++) {
		start = now_ns();
		for (repeat = 0; repeat < repeats; repeat++)
			zebra_scaled(bw[g], n, weights);
		total += (now_ns() - start) / repeats;
		worst = fmax(worst, fare_wcmp_max_error(bw[g], weights, n));
		for (i = 0; i < n; i++)
			members += weights[i];
	}
	printf("%4zu paths: zebra scaling %9.3f us/group avg, "
	       "%6.1f members avg (no limit), worst share error %.3f%%\n",
	       n, total / GROUPS / 1e3, (double)members / GROUPS, 100 * worst);
}

int main(void)
{
	const struct fare_wcmp_limits lim = { 255, 4096 };
	static const size_t sizes[] = { 8, 64, 512 };
	struct prng prng = { 0xB0A710AD5EED0001ULL };
	size_t i;

	printf("fare_wcmp_weights, limits {max_weight %u, max_members %u}, "
	       "%d random groups each\n",
	       lim.max_weight, lim.max_members, GROUPS);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		bench(sizes[i], &lim, &prng);
	return 0;
}
