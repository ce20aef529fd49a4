// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: the shared largest-remainder apportionment and GCD
 * (bgpd-fare/core/fare_apportion.c), exact values: ties, zeros, the limits,
 * and the same answer from both cores' entry points (EE-1's
 * fare_ecmp_port_seats(), SUN-3's fare_dp_quota()).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "fare_apportion.h"
#include "fare_dp.h"
#include "fare_ecmp_groups.h"
#include "prng.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_MEMBERS   64

/*
 * seats over weights by fare_apportion(), member by member through
 * fare_apportion_init()/seats(), and by both cores' entry points: all
 * equal to exp[]; the return value `placed`.
 */
static void check(const uint32_t *weights, size_t n, uint32_t seats, const uint32_t *exp,
		  uint32_t placed)
{
	uint32_t out[MAX_MEMBERS];
	struct fare_apportion ap;
	bool any = false;
	size_t i;

	for (i = 0; i < n; i++)
		any |= weights[i] > 0;
	memset(out, 0xA5, sizeof(out));
	assert_int_equal(fare_apportion(weights, n, seats, out), placed);
	assert_memory_equal(out, exp, n * sizeof(*exp));

	assert_int_equal(fare_apportion_init(&ap, weights, n, seats), any);
	for (i = 0; i < n; i++)
		assert_int_equal(fare_apportion_seats(&ap, i), exp[i]);

	memset(out, 0xA5, sizeof(out));
	assert_int_equal(fare_ecmp_port_seats(weights, n, seats, out), placed);
	assert_memory_equal(out, exp, n * sizeof(*exp));

	memset(out, 0xA5, sizeof(out));
	fare_dp_quota(weights, n, seats, out);
	assert_memory_equal(out, exp, n * sizeof(*exp));
}

/* exact shares: no remainder */
static void test_exact(void **state)
{
	(void)state;
	/* EE-1 (topotest fare_ecmp_ingress): 1:1:1:1 over 4 ports */
	check((const uint32_t[]){ 1, 1, 1, 1 }, 4, 4, (const uint32_t[]){ 1, 1, 1, 1 }, 4);
	/* 1:1:2:2 over 6 ports: members 1, 2, 3, 3, 4, 4 */
	check((const uint32_t[]){ 1, 1, 2, 2 }, 4, 6, (const uint32_t[]){ 1, 1, 2, 2 }, 6);
	/* twice the cycle */
	check((const uint32_t[]){ 1, 1, 2, 2 }, 4, 12, (const uint32_t[]){ 2, 2, 4, 4 }, 12);
	check((const uint32_t[]){ 5 }, 1, 7, (const uint32_t[]){ 7 }, 7);
}

/* the seats the floors leave go to the largest remainders */
static void test_largest_remainder(void **state)
{
	(void)state;
	/* 3:5 over 5: 1.875 and 3.125, the remainder 7/8 takes the one left */
	check((const uint32_t[]){ 3, 5 }, 2, 5, (const uint32_t[]){ 2, 3 }, 5);
	/* 2:1:1 over 5: 2.5, 1.25, 1.25 */
	check((const uint32_t[]){ 2, 1, 1 }, 3, 5, (const uint32_t[]){ 3, 1, 1 }, 5);
	/* FARE-4 weights of topotest fare_ecmp_groups' no-group route,
	 * 100:200:400:400 over 6: 0.55, 1.09, 2.18, 2.18
	 */
	check((const uint32_t[]){ 100, 200, 400, 400 }, 4, 6, (const uint32_t[]){ 1, 1, 2, 2 }, 6);
	/* the remainder decides, not the weight: 1:9:9 over 4 is 0.21,
	 * 1.89, 1.89; 4:9:9 is 0.73, 1.64, 1.64
	 */
	check((const uint32_t[]){ 1, 9, 9 }, 3, 4, (const uint32_t[]){ 0, 2, 2 }, 4);
	check((const uint32_t[]){ 4, 9, 9 }, 3, 4, (const uint32_t[]){ 1, 2, 1 }, 4);
}

/* equal remainders: the lower index */
static void test_ties(void **state)
{
	(void)state;
	/* EE-1 (topotest fare_ecmp_ingress): 1:1:1:3 over 4 ports: 0.67 x 3
	 * and 2, the 2 seats left to members 0 and 1: ports 1, 2, 4, 4
	 */
	check((const uint32_t[]){ 1, 1, 1, 3 }, 4, 4, (const uint32_t[]){ 1, 1, 0, 2 }, 4);
	/* 1:3 over 2: 0.5 and 1.5 */
	check((const uint32_t[]){ 1, 3 }, 2, 2, (const uint32_t[]){ 1, 1 }, 2);
	/* more members than seats, all equal: the first ones */
	check((const uint32_t[]){ 1, 1, 1, 1, 1 }, 5, 3, (const uint32_t[]){ 1, 1, 1, 0, 0 }, 3);
	/* 7:7:7 over 10: 3.33 each, the one left to member 0 */
	check((const uint32_t[]){ 7, 7, 7 }, 3, 10, (const uint32_t[]){ 4, 3, 3 }, 10);
	/* 2:1:1 over 2: 1, 0.5, 0.5 */
	check((const uint32_t[]){ 2, 1, 1 }, 3, 2, (const uint32_t[]){ 1, 1, 0 }, 2);
}

/* weight 0 never gets a seat; all 0, nobody does */
static void test_zeros(void **state)
{
	(void)state;
	check((const uint32_t[]){ 0, 1, 1 }, 3, 1, (const uint32_t[]){ 0, 1, 0 }, 1);
	check((const uint32_t[]){ 0, 5, 0 }, 3, 3, (const uint32_t[]){ 0, 3, 0 }, 3);
	check((const uint32_t[]){ 1, 0, 1, 0 }, 4, 3, (const uint32_t[]){ 2, 0, 1, 0 }, 3);
	/* every weight 0: nothing placed */
	check((const uint32_t[]){ 0, 0, 0 }, 3, 5, (const uint32_t[]){ 0, 0, 0 }, 0);
	/* no seat to give */
	check((const uint32_t[]){ 2, 3 }, 2, 0, (const uint32_t[]){ 0, 0 }, 0);
	/* no member: nothing read or written */
	assert_int_equal(fare_apportion(NULL, 0, 64, NULL), 0);
	assert_int_equal(fare_ecmp_port_seats(NULL, 0, 64, NULL), 0);
	fare_dp_quota(NULL, 0, 64, NULL);
}

/* the limits: products up to (2^32 - 1)^2, sums above 2^32 */
static void test_limits(void **state)
{
	const uint32_t max = UINT32_MAX;

	(void)state;
	/* W = 2^33 - 1: 2^31 - 0.5 each for the large ones, 0.5 for the
	 * third, whose remainder is the largest
	 */
	check((const uint32_t[]){ max, max, 1 }, 3, max,
	      (const uint32_t[]){ 2147483647, 2147483647, 1 }, max);
	check((const uint32_t[]){ max, 1, 1, 1 }, 4, max, (const uint32_t[]){ 4294967292, 1, 1, 1 },
	      max);
	/* one seat over a huge and a tiny weight */
	check((const uint32_t[]){ max, 1 }, 2, 1, (const uint32_t[]){ 1, 0 }, 1);
	check((const uint32_t[]){ 1, max }, 2, 3, (const uint32_t[]){ 0, 3 }, 3);
	check((const uint32_t[]){ max, max }, 2, max, (const uint32_t[]){ 2147483648, 2147483647 },
	      max);
}

/* many members: 64 of weight 1 .. 64 over 1000 seats, against a naive
 * reference (floors, then the leftover one by one to the largest
 * remainder left, lower index first); and random vectors
 */
static void reference(const uint32_t *w, size_t n, uint32_t seats, uint32_t *out)
{
	uint64_t total = 0, floors = 0, rem[MAX_MEMBERS];
	bool taken[MAX_MEMBERS] = { false };
	size_t i;

	for (i = 0; i < n; i++)
		total += w[i];
	for (i = 0; i < n; i++) {
		out[i] = total ? (uint32_t)((uint64_t)seats * w[i] / total) : 0;
		rem[i] = total ? (uint64_t)seats * w[i] % total : 0;
		floors += out[i];
	}
	while (total && floors < seats) {
		size_t best = n;

		for (i = 0; i < n; i++)
			if (w[i] && !taken[i] && (best == n || rem[i] > rem[best]))
				best = i;
		taken[best] = true;
		out[best]++;
		floors++;
	}
}

static void test_against_reference(void **state)
{
	uint32_t w[MAX_MEMBERS], exp[MAX_MEMBERS], total = 0;
	struct prng prng = { 23 };
	size_t n, i, round;

	(void)state;
	for (i = 0; i < MAX_MEMBERS; i++)
		w[i] = (uint32_t)i + 1;
	reference(w, MAX_MEMBERS, 1000, exp);
	for (i = 0; i < MAX_MEMBERS; i++)
		total += exp[i];
	assert_int_equal(total, 1000);
	check(w, MAX_MEMBERS, 1000, exp, 1000);

	for (round = 0; round < 2000; round++) {
		uint32_t seats = (uint32_t)(prng_next(&prng) % 300);
		bool any = false;

		n = 1 + prng_next(&prng) % MAX_MEMBERS;
		for (i = 0; i < n; i++) {
			w[i] = (uint32_t)(prng_next(&prng) % (round % 2 ? 4 : 100000));
			any |= w[i] > 0;
		}
		reference(w, n, seats, exp);
		check(w, n, seats, exp, any ? seats : 0);
	}
}

/* GCD: the fold's start, coprimes, the limits */
static void test_gcd(void **state)
{
	(void)state;
	assert_int_equal(fare_gcd(0, 0), 0);
	assert_int_equal(fare_gcd(0, 7), 7);
	assert_int_equal(fare_gcd(7, 0), 7);
	assert_int_equal(fare_gcd(12, 18), 6);
	assert_int_equal(fare_gcd(18, 12), 6);
	assert_int_equal(fare_gcd(17, 5), 1);
	assert_int_equal(fare_gcd(1, UINT64_MAX), 1);
	assert_true(fare_gcd(UINT64_MAX, UINT64_MAX) == UINT64_MAX);
	assert_true(fare_gcd(UINT64_C(1) << 63, UINT64_C(3) << 61) == UINT64_C(1) << 61);
	/* WP-3 (test_wcmp): 100G : 160G = 125 : 200 in bytes/s, GCD 25e9 */
	assert_true(fare_gcd(UINT64_C(12500000000), UINT64_C(20000000000)) == UINT64_C(2500000000));

	assert_int_equal(fare_gcd_array(NULL, 0), 0);
	assert_int_equal(fare_gcd_array((const uint32_t[]){ 0, 0 }, 2), 0);
	assert_int_equal(fare_gcd_array((const uint32_t[]){ 4, 6, 8 }, 3), 2);
	/* WP-6 (test_dp): 2:2:4:4 is the cycle of 1:1:2:2 */
	assert_int_equal(fare_gcd_array((const uint32_t[]){ 2, 2, 4, 4 }, 4), 2);
	assert_int_equal(fare_gcd_array((const uint32_t[]){ 0, 6, 0, 9 }, 4), 3);
	assert_int_equal(fare_gcd_array((const uint32_t[]){ UINT32_MAX, UINT32_MAX }, 2),
			 UINT32_MAX);
	assert_int_equal(fare_gcd_array((const uint32_t[]){ UINT32_MAX, 0x10000 }, 2), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),  cmocka_unit_test(test_largest_remainder),
		cmocka_unit_test(test_ties),   cmocka_unit_test(test_zeros),
		cmocka_unit_test(test_limits), cmocka_unit_test(test_against_reference),
		cmocka_unit_test(test_gcd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
