// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: the FARE data plane core (dataplane/core/fare_dp.c):
 * apportionment and QP plan (SUN-3), connection-tracked rebalance and
 * placement (SUN-4), per-packet slot maps (SUN-5, WP-6). Exact values,
 * then random cases against invariants and a one-flow-at-a-time reference.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "fare_dp.h"
#include "prng.h"

#define DP_CHECK(cond) assert_true(cond)
#include "dp_check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define NO_CHANGE 0xA5A5A5A5u

static void assert_u32_array(const uint32_t *got, const uint32_t *expected, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != expected[i])
			print_error("index %zu: %u != %u\n", i, got[i], expected[i]);
		assert_int_equal(got[i], expected[i]);
	}
}

static void check_quota(const uint32_t *weights, size_t n, uint32_t flows, const uint32_t *expected)
{
	uint32_t quota[FARE_DP_MEMBERS_MAX];

	assert_true(n <= ARRAY_SIZE(quota));
	memset(quota, 0xA5, sizeof(quota));
	fare_dp_quota(weights, n, flows, quota);
	assert_u32_array(quota, expected, n);
	/* nothing written past n */
	if (n < ARRAY_SIZE(quota))
		assert_int_equal(quota[n], NO_CHANGE);
}

static const uint32_t equal8[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
static const uint32_t half6_2[8] = { 2, 2, 2, 2, 2, 2, 1, 1 };

/* SUN-3: 64 QPs over 8 equal members (2 sub-ports x 4 planes): 8 each */
static void test_quota_equal(void **state)
{
	const uint32_t eights[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };
	const uint32_t threes[8] = { 3, 3, 3, 3, 3, 3, 3, 3 };

	(void)state;
	check_quota(equal8, 8, 64, eights);
	/* only the ratios matter */
	check_quota(threes, 8, 64, eights);
}

/* SUN-3: two planes at half bandwidth, 2:2:2:2:2:2:1:1 */
static void test_quota_unequal(void **state)
{
	(void)state;
	/* 64 * 2 / 14 = 9.14, 64 / 14 = 4.57: the two 0.57 take the 2 left */
	check_quota(half6_2, 8, 64, (const uint32_t[]){ 9, 9, 9, 9, 9, 9, 5, 5 });
	check_quota(half6_2, 8, 14, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 });
	check_quota(half6_2, 8, 1, (const uint32_t[]){ 1, 0, 0, 0, 0, 0, 0, 0 });
	check_quota(half6_2, 8, 7, (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1, 0 });
	/* 3:5 over 5: 1.875 and 3.125, the remainder 7/8 takes the one left */
	check_quota((const uint32_t[]){ 3, 5 }, 2, 5, (const uint32_t[]){ 2, 3 });
}

/* equal remainders: the lower index */
static void test_quota_ties(void **state)
{
	(void)state;
	check_quota((const uint32_t[]){ 1, 1, 1 }, 3, 10, (const uint32_t[]){ 4, 3, 3 });
	check_quota((const uint32_t[]){ 1, 1, 1 }, 3, 11, (const uint32_t[]){ 4, 4, 3 });
	check_quota((const uint32_t[]){ 1, 0, 1, 1 }, 4, 2, (const uint32_t[]){ 1, 0, 1, 0 });
}

static void test_quota_zero(void **state)
{
	const uint32_t zeros[4] = { 0 };

	(void)state;
	/* every weight 0: nothing, whatever the flows */
	check_quota(zeros, 4, 64, zeros);
	check_quota(zeros, 4, UINT32_MAX, zeros);
	/* no flows */
	check_quota(half6_2, 8, 0, (const uint32_t[8]){ 0 });
	/* weight 0 members get nothing */
	check_quota((const uint32_t[]){ 0, 3, 0, 1 }, 4, 9, (const uint32_t[]){ 0, 7, 0, 2 });
	/* n = 0: nothing read or written */
	fare_dp_quota(NULL, 0, 64, NULL);
}

/* flows * weight needs 64 bits, the sum of weights more than 32 */
static void test_quota_large(void **state)
{
	(void)state;
	check_quota((const uint32_t[]){ UINT32_MAX, UINT32_MAX, 1 }, 3, UINT32_MAX,
		    (const uint32_t[]){ 2147483647, 2147483647, 1 });
	check_quota((const uint32_t[]){ UINT32_MAX, 1 }, 2, UINT32_MAX,
		    (const uint32_t[]){ UINT32_MAX - 1, 1 });
	check_quota((const uint32_t[]){ UINT32_MAX }, 1, UINT32_MAX,
		    (const uint32_t[]){ UINT32_MAX });
}

static bool any_u32(const uint32_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i])
			return true;
	return false;
}

static uint32_t sum_u32(const uint32_t *v, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

static void check_rebalance(const uint32_t *old_w, const uint32_t *new_w, size_t n,
			    const uint32_t *count, enum fare_dp_recover recover, uint32_t moved,
			    const uint32_t *expected)
{
	uint32_t target[FARE_DP_MEMBERS_MAX], again[FARE_DP_MEMBERS_MAX];

	assert_true(n < ARRAY_SIZE(target));
	memset(target, 0xA5, sizeof(target));
	assert_int_equal(fare_dp_rebalance(old_w, new_w, n, count, recover, target), moved);
	assert_u32_array(target, expected, n);
	assert_int_equal(target[n], NO_CHANGE);
	assert_int_equal(sum_u32(target, n), sum_u32(count, n));
	/* in place: the same */
	memcpy(again, count, n * sizeof(*again));
	assert_int_equal(fare_dp_rebalance(old_w, new_w, n, again, recover, again), moved);
	assert_u32_array(again, expected, n);
	/* then a fixed point: the same weights move nothing */
	assert_int_equal(fare_dp_rebalance(new_w, new_w, n, target, recover, again), 0);
	assert_u32_array(again, target, n);
}

/*
 * SUN-4: plane of members 0 and 1 fails: their 16 QPs are released and
 * spread over the other 6 in line with the new weights (quota 11 x 4 +
 * 10 x 2: +3, +3, +3, +3, +2, +2, the extra ones to the lower indexes);
 * no other member loses a flow. Both recovery modes: nothing rose.
 */
static void test_rebalance_plane_failure(void **state)
{
	const uint32_t failed[8] = { 0, 0, 1, 1, 1, 1, 1, 1 };
	const uint32_t count[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };
	const uint32_t expected[8] = { 0, 0, 11, 11, 11, 11, 10, 10 };

	(void)state;
	check_rebalance(equal8, failed, 8, count, FARE_DP_RECOVER_AT_ONCE, 16, expected);
	check_rebalance(equal8, failed, 8, count, FARE_DP_RECOVER_NEXT_BURST, 16, expected);
	/* the planes' weights need not be 1 */
	check_rebalance((const uint32_t[]){ 5, 5, 5, 5, 5, 5, 5, 5 },
			(const uint32_t[]){ 0, 0, 5, 5, 5, 5, 5, 5 }, 8, count,
			FARE_DP_RECOVER_NEXT_BURST, 16, expected);
}

/*
 * SUN-4: members 6 and 7 lose half their bandwidth, 2 -> 1 of 2:...:2:
 * quota 9 x 6 + 5 x 2; each releases 3, members 0..5 get one each. The
 * weights FARE installs are reduced by the GCD: 1:...:1 -> 2:...:2:1:1 is
 * the same change (relative to the largest weight).
 */
static void test_rebalance_half_failure(void **state)
{
	const uint32_t count[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };
	const uint32_t twos[8] = { 2, 2, 2, 2, 2, 2, 2, 2 };
	const uint32_t expected[8] = { 9, 9, 9, 9, 9, 9, 5, 5 };

	(void)state;
	check_rebalance(twos, half6_2, 8, count, FARE_DP_RECOVER_AT_ONCE, 6, expected);
	check_rebalance(twos, half6_2, 8, count, FARE_DP_RECOVER_NEXT_BURST, 6, expected);
	check_rebalance(equal8, half6_2, 8, count, FARE_DP_RECOVER_NEXT_BURST, 6, expected);
	check_rebalance(equal8, half6_2, 8, count, FARE_DP_RECOVER_AT_ONCE, 6, expected);
}

/*
 * SUN-4, recovery at once: the plane comes back; the members above their
 * quota give back exactly their excess (3, 3, 3, 3, 2, 2), the recovered
 * members reach their quota (8 each).
 */
static void test_rebalance_recovery_at_once(void **state)
{
	const uint32_t failed[8] = { 0, 0, 1, 1, 1, 1, 1, 1 };
	const uint32_t count[8] = { 0, 0, 11, 11, 11, 11, 10, 10 };
	const uint32_t eights[8] = { 8, 8, 8, 8, 8, 8, 8, 8 };

	(void)state;
	check_rebalance(failed, equal8, 8, count, FARE_DP_RECOVER_AT_ONCE, 16, eights);
	/* 68 flows: quota 9 x 4 + 8 x 4, excess 3 each, deficit 9 + 9 */
	check_rebalance(failed, equal8, 8, (const uint32_t[]){ 0, 0, 12, 12, 11, 11, 11, 11 },
			FARE_DP_RECOVER_AT_ONCE, 18, (const uint32_t[]){ 9, 9, 9, 9, 8, 8, 8, 8 });
	/*
	 * 52 flows (quota 7 x 4 + 6 x 4), members 6 and 7 below theirs (they
	 * did not rise: not filled): excess 5, 3, 4, 4 gives 14, largest
	 * first, the last ones to the lower indexes: 5, 3, 3, 3. Members 4
	 * and 5 stay one above their quota.
	 */
	check_rebalance(failed, equal8, 8, (const uint32_t[]){ 0, 0, 12, 10, 10, 10, 5, 5 },
			FARE_DP_RECOVER_AT_ONCE, 14, (const uint32_t[]){ 7, 7, 7, 7, 7, 7, 5, 5 });
	/* half recovery, reduced weights 2:...:2:1:1 -> 1:...:1 */
	check_rebalance(half6_2, equal8, 8, (const uint32_t[]){ 9, 9, 9, 9, 9, 9, 5, 5 },
			FARE_DP_RECOVER_AT_ONCE, 6, eights);
}

/* SUN-4, recovery at the next burst: live flows stay, new ones fill it */
static void test_rebalance_recovery_next_burst(void **state)
{
	const uint32_t failed[8] = { 0, 0, 1, 1, 1, 1, 1, 1 };
	const uint32_t count[8] = { 0, 0, 11, 11, 11, 11, 10, 10 };
	const uint32_t half_count[8] = { 9, 9, 9, 9, 9, 9, 5, 5 };
	uint32_t live[8];

	(void)state;
	check_rebalance(failed, equal8, 8, count, FARE_DP_RECOVER_NEXT_BURST, 0, count);
	check_rebalance(half6_2, equal8, 8, half_count, FARE_DP_RECOVER_NEXT_BURST, 0, half_count);
	/* the next new flows go to the recovered members */
	memcpy(live, count, sizeof(live));
	assert_int_equal(fare_dp_place(equal8, live, 8), 0);
	live[0]++;
	assert_int_equal(fare_dp_place(equal8, live, 8), 1);
	live[1]++;
	assert_int_equal(fare_dp_place(equal8, live, 8), 0);
}

/*
 * Released flows level the deficits, one at a time to the largest: member
 * 0 goes (6 released), quota 5, 5, 5 for 15: deficits 5 and 2, member 3
 * one above its quota keeps its 6.
 */
static void test_rebalance_levels(void **state)
{
	const uint32_t four[4] = { 1, 1, 1, 1 };
	const uint32_t three[4] = { 0, 1, 1, 1 };

	(void)state;
	check_rebalance(four, three, 4, (const uint32_t[]){ 6, 0, 3, 6 }, FARE_DP_RECOVER_AT_ONCE,
			6, (const uint32_t[]){ 0, 5, 4, 6 });
	/*
	 * quota 3, 3, 2, 0 for 8: member 3 releases 5, deficits 3 and 3
	 * (member 2 one above its quota keeps it): level 1, the odd one to
	 * the lower index: +3, +2
	 */
	check_rebalance((const uint32_t[]){ 1, 1, 1, 1 }, (const uint32_t[]){ 1, 1, 1, 0 }, 4,
			(const uint32_t[]){ 0, 0, 3, 5 }, FARE_DP_RECOVER_NEXT_BURST, 5,
			(const uint32_t[]){ 3, 2, 3, 0 });
}

static void test_rebalance_edges(void **state)
{
	const uint32_t count[4] = { 3, 0, 2, 1 };
	const uint32_t zeros[4] = { 0 };
	uint32_t target[4];

	(void)state;
	/* unchanged weights, off quota: nothing moves */
	check_rebalance(equal8, equal8, 4, count, FARE_DP_RECOVER_AT_ONCE, 0, count);
	/* every new weight 0: nowhere to go, nothing moves */
	check_rebalance(equal8, zeros, 4, count, FARE_DP_RECOVER_AT_ONCE, 0, count);
	/* a member already at weight 0 with flows left: they go */
	check_rebalance((const uint32_t[]){ 0, 1, 1, 1 }, (const uint32_t[]){ 0, 1, 1, 1 }, 4,
			count, FARE_DP_RECOVER_NEXT_BURST, 3, (const uint32_t[]){ 0, 2, 2, 2 });
	/* from no usable member: all rose; at once, the quota 2, 2, 1, 1 */
	check_rebalance(zeros, (const uint32_t[]){ 1, 1, 1, 1 }, 4, count, FARE_DP_RECOVER_AT_ONCE,
			2, (const uint32_t[]){ 2, 2, 1, 1 });
	check_rebalance(zeros, (const uint32_t[]){ 1, 1, 1, 1 }, 4, count,
			FARE_DP_RECOVER_NEXT_BURST, 0, count);
	/* no flows */
	check_rebalance(equal8, (const uint32_t[]){ 0, 1, 2, 3 }, 4, zeros, FARE_DP_RECOVER_AT_ONCE,
			0, zeros);
	/* beyond UINT32_MAX flows: nothing moves */
	memset(target, 0, sizeof(target));
	assert_int_equal(fare_dp_rebalance(equal8, (const uint32_t[]){ 0, 1, 1, 1 }, 2,
					   (const uint32_t[]){ UINT32_MAX, 1 },
					   FARE_DP_RECOVER_AT_ONCE, target),
			 0);
	assert_int_equal(target[0], UINT32_MAX);
	assert_int_equal(target[1], 1);
	/* at UINT32_MAX exactly, it does */
	assert_int_equal(fare_dp_rebalance(equal8, (const uint32_t[]){ 0, 1, 1, 1 }, 2,
					   (const uint32_t[]){ UINT32_MAX - 1, 1 },
					   FARE_DP_RECOVER_AT_ONCE, target),
			 UINT32_MAX - 1);
	assert_int_equal(target[0], 0);
	assert_int_equal(target[1], UINT32_MAX);
	assert_int_equal(fare_dp_rebalance(NULL, NULL, 0, NULL, FARE_DP_RECOVER_AT_ONCE, NULL), 0);
}

/*
 * SUN-4: 14 new flows over 2:2:2:2:2:2:1:1 from zero, each to the member
 * furthest below its quota: the Hamilton order, ending at the quota of 14
 * (2 each, 1 for the half planes); 14 more: twice that.
 */
static void test_place_sequence(void **state)
{
	const size_t order[14] = { 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5 };
	uint32_t count[8] = { 0 };
	size_t k;

	(void)state;
	for (k = 0; k < 14; k++) {
		size_t member = fare_dp_place(half6_2, count, 8);

		assert_int_equal(member, order[k]);
		count[member]++;
	}
	assert_u32_array(count, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 }, 8);
	for (k = 0; k < 14; k++) {
		size_t member = fare_dp_place(half6_2, count, 8);

		assert_int_equal(member, order[k]);
		count[member]++;
	}
	assert_u32_array(count, (const uint32_t[]){ 4, 4, 4, 4, 4, 4, 2, 2 }, 8);
}

/*
 * SUN-4: the agent's slot map while flows are live (fare_dp_fill): from
 * counts at the quota every member gets its share of a cycle; from counts
 * below it (recover next-burst after 6:2 -> equal) the members below
 * their quota get the new flows first, and then the cycle is even.
 */
static void test_fill_from_live(void **state)
{
	const uint32_t equal4[4] = { 1, 1, 1, 1 };
	uint8_t slots[16];
	uint32_t per[4] = { 0 };

	(void)state;
	/* 14 live flows at the 2:2:2:2:2:2:1:1 quota: one cycle = the weights */
	assert_int_equal(fare_dp_fill(half6_2, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 }, 8, 14,
				      slots),
			 14);
	{
		uint32_t c[8] = { 0 };

		for (size_t j = 0; j < 14; j++)
			c[slots[j]]++;
		assert_u32_array(c, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 }, 8);
	}
	/* members 2 and 3 at 1 flow, 0 and 1 at 5: the first 8 new flows fill 2 and 3 */
	assert_int_equal(fare_dp_fill(equal4, (const uint32_t[]){ 5, 5, 1, 1 }, 4, 12, slots), 12);
	for (size_t j = 0; j < 8; j++)
		assert_true(slots[j] == 2 || slots[j] == 3);
	for (size_t j = 0; j < 12; j++)
		per[slots[j]]++;
	assert_u32_array(per, (const uint32_t[]){ 1, 1, 5, 5 }, 4);
	/* count[] unchanged; weight 0 never; all 0: none; too many members: none */
	assert_int_equal(fare_dp_fill((const uint32_t[]){ 0, 1 }, (const uint32_t[]){ 0, 7 }, 2, 3,
				      slots),
			 3);
	assert_int_equal(slots[0] + slots[1] + slots[2], 3);
	assert_int_equal(fare_dp_fill((const uint32_t[]){ 0, 0 }, (const uint32_t[]){ 1, 1 }, 2, 3,
				      slots),
			 0);
	assert_int_equal(fare_dp_fill(equal4, per, FARE_DP_MEMBERS_MAX + 1, 3, slots), 0);
}

static void test_place_ties(void **state)
{
	const uint32_t zeros[3] = { 0 };

	(void)state;
	/* quota of 2 over 1:1:2 is 1, 0, 1: deficits 1, -1, 1, larger weight */
	assert_int_equal(fare_dp_place((const uint32_t[]){ 1, 1, 2 }, (const uint32_t[]){ 0, 1, 0 },
				       3),
			 2);
	/* equal weights: lower index */
	assert_int_equal(fare_dp_place((const uint32_t[]){ 1, 1, 1 }, (const uint32_t[]){ 0, 0, 0 },
				       3),
			 0);
	/* a member far above its quota (next burst) is not chosen */
	assert_int_equal(fare_dp_place((const uint32_t[]){ 1, 1, 1 }, (const uint32_t[]){ 9, 0, 0 },
				       3),
			 1);
	/* weight 0: never, even without flows */
	assert_int_equal(fare_dp_place((const uint32_t[]){ 0, 1, 1 }, (const uint32_t[]){ 0, 5, 5 },
				       3),
			 1);
	/* nothing usable: n */
	assert_int_equal(fare_dp_place(zeros, zeros, 3), 3);
	assert_int_equal(fare_dp_place(NULL, NULL, 0), 0);
	/* UINT32_MAX flows already: still a member */
	assert_int_equal(fare_dp_place((const uint32_t[]){ 1, 1 },
				       (const uint32_t[]){ UINT32_MAX, 0 }, 2),
			 1);
}

static void check_slots(const uint32_t *weights, size_t n, size_t max_slots,
			const uint8_t *expected, size_t total)
{
	uint8_t slots[FARE_DP_SLOTS_MAX + 1];
	size_t k;

	memset(slots, 0xA5, sizeof(slots));
	assert_int_equal(fare_dp_slots(weights, n, max_slots, slots), total);
	for (k = 0; k < total; k++) {
		if (slots[k] != expected[k])
			print_error("slot %zu: %u != %u\n", k, slots[k], expected[k]);
		assert_int_equal(slots[k], expected[k]);
	}
	assert_int_equal(slots[total], 0xA5);
}

/* SUN-5, WP-6: 1:1:2:2 -> six slots, each member its weight, spread */
static void test_slots_wp6(void **state)
{
	const uint8_t expected[6] = { 2, 3, 0, 1, 2, 3 };
	uint8_t slots[FARE_DP_SLOTS_MAX];

	(void)state;
	check_slots((const uint32_t[]){ 1, 1, 2, 2 }, 4, FARE_DP_SLOTS_MAX, expected, 6);
	fare_dp_slots((const uint32_t[]){ 1, 1, 2, 2 }, 4, FARE_DP_SLOTS_MAX, slots);
	dp_check_slot_spread(slots, 6, (const uint32_t[]){ 1, 1, 2, 2 }, 4);
	/* reduced by the GCD */
	check_slots((const uint32_t[]){ 2, 2, 4, 4 }, 4, FARE_DP_SLOTS_MAX, expected, 6);
	check_slots((const uint32_t[]){ 0, 6, 6, 0 }, 4, 6, (const uint8_t[]){ 1, 2 }, 2);
	check_slots(equal8, 8, 8, (const uint8_t[]){ 0, 1, 2, 3, 4, 5, 6, 7 }, 8);
	check_slots(half6_2, 8, FARE_DP_SLOTS_MAX,
		    (const uint8_t[]){ 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5 }, 14);
	/*
	 * Plain smooth weighted round-robin gives 2, 0, 1, 2 for 1:1:2: member
	 * 2 twice across the wrap; here it waits
	 */
	check_slots((const uint32_t[]){ 1, 1, 2 }, 3, FARE_DP_SLOTS_MAX,
		    (const uint8_t[]){ 2, 0, 2, 1 }, 4);
	/* exactly half: 2, 1, 2, 0, 2, 1 */
	check_slots((const uint32_t[]){ 1, 2, 3 }, 3, FARE_DP_SLOTS_MAX,
		    (const uint8_t[]){ 2, 1, 2, 0, 2, 1 }, 6);
}

/* one member above half the slots: it repeats, in even runs */
static void test_slots_dominant(void **state)
{
	(void)state;
	check_slots((const uint32_t[]){ 1, 3 }, 2, FARE_DP_SLOTS_MAX,
		    (const uint8_t[]){ 1, 1, 1, 0 }, 4);
	check_slots((const uint32_t[]){ 5, 1, 1, 1, 1 }, 5, FARE_DP_SLOTS_MAX,
		    (const uint8_t[]){ 0, 1, 0, 2, 0, 3, 0, 0, 4 }, 9);
	check_slots((const uint32_t[]){ 0, 7, 0 }, 3, FARE_DP_SLOTS_MAX, (const uint8_t[]){ 1 }, 1);
}

/* more reduced weight than slots: apportioned, one slot each at least */
static void test_slots_budget(void **state)
{
	uint8_t slots[FARE_DP_SLOTS_MAX], expected[FARE_DP_SLOTS_MAX];
	uint32_t many[FARE_DP_MEMBERS_MAX + 1];
	size_t k;

	(void)state;
	/* 1:1:100 in 16: the quota 0, 0, 16, then 1, 1 and 14 */
	check_slots((const uint32_t[]){ 1, 1, 100 }, 3, 16,
		    (const uint8_t[]){ 2, 2, 2, 2, 2, 2, 2, 0, 2, 2, 2, 2, 2, 2, 2, 1 }, 16);
	/* 3:5 in 4: 2:2, reduced to 1:1 */
	check_slots((const uint32_t[]){ 3, 5 }, 2, 4, (const uint8_t[]){ 0, 1 }, 2);
	/* 4 members, 3 slots: the quota, the last one left out */
	check_slots((const uint32_t[]){ 1, 1, 1, 1 }, 4, 3, (const uint8_t[]){ 0, 1, 2 }, 3);
	/* max_slots above FARE_DP_SLOTS_MAX: FARE_DP_SLOTS_MAX */
	for (k = 0; k < 255; k++)
		expected[k] = 1;
	expected[255] = 0;
	check_slots((const uint32_t[]){ 1, 299 }, 2, 1000, expected, 256);
	check_slots((const uint32_t[]){ 1, 299 }, 2, 300, expected, 256);
	/* nothing */
	assert_int_equal(fare_dp_slots((const uint32_t[]){ 0, 0 }, 2, 16, slots), 0);
	assert_int_equal(fare_dp_slots((const uint32_t[]){ 1, 1 }, 2, 0, slots), 0);
	assert_int_equal(fare_dp_slots(NULL, 0, 16, slots), 0);
	for (k = 0; k < ARRAY_SIZE(many); k++)
		many[k] = 1;
	assert_int_equal(fare_dp_slots(many, FARE_DP_MEMBERS_MAX + 1, 256, slots), 0);
	assert_int_equal(fare_dp_slots(many, FARE_DP_MEMBERS_MAX, 256, slots), FARE_DP_MEMBERS_MAX);
	/* weights at the top of the range */
	check_slots((const uint32_t[]){ UINT32_MAX, UINT32_MAX - 1 }, 2, 256,
		    (const uint8_t[]){ 0, 1 }, 2);
}

static void check_plan(const uint32_t *weights, size_t n, uint32_t requested, uint16_t port,
		       uint32_t qps, const uint32_t *per_member)
{
	struct fare_dp_plan plan;
	size_t i;

	memset(&plan, 0xA5, sizeof(plan));
	fare_dp_plan(weights, n, requested, port, &plan);
	assert_int_equal(plan.qps, qps);
	assert_int_equal(plan.first_port, port);
	/* n > FARE_DP_MEMBERS_MAX: no plan, per_member all 0 */
	assert_u32_array(plan.per_member, per_member,
			 n < FARE_DP_MEMBERS_MAX ? n : FARE_DP_MEMBERS_MAX);
	for (i = n; i < FARE_DP_MEMBERS_MAX; i++)
		assert_int_equal(plan.per_member[i], 0);
}

/*
 * SUN-3: at least m x n QPs (one per member), a multiple of the slot
 * cycle: 8 equal members: 8; 20 requested: 24 (the next multiple of 8).
 */
static void test_plan(void **state)
{
	static const uint32_t none[FARE_DP_MEMBERS_MAX + 1];
	const uint32_t zeros[8] = { 0 };
	uint32_t many[FARE_DP_MEMBERS_MAX + 1];
	size_t k;

	(void)state;
	check_plan(equal8, 8, 0, 49152, 8, (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1, 1 });
	check_plan(equal8, 8, 8, 49152, 8, (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1, 1 });
	check_plan(equal8, 8, 20, 49152, 24, (const uint32_t[]){ 3, 3, 3, 3, 3, 3, 3, 3 });
	/* two planes at half: a cycle of 14 */
	check_plan(half6_2, 8, 0, 49152, 14, (const uint32_t[]){ 2, 2, 2, 2, 2, 2, 1, 1 });
	check_plan(half6_2, 8, 20, 49152, 28, (const uint32_t[]){ 4, 4, 4, 4, 4, 4, 2, 2 });
	/* a plane down: its members get none */
	check_plan((const uint32_t[]){ 0, 0, 1, 1, 1, 1, 1, 1 }, 8, 0, 49152, 6,
		   (const uint32_t[]){ 0, 0, 1, 1, 1, 1, 1, 1 });
	/* ports up to 65535: 65528..65535 hold one cycle, 65530.. none */
	check_plan(equal8, 8, 20, 65528, 8, (const uint32_t[]){ 1, 1, 1, 1, 1, 1, 1, 1 });
	check_plan(equal8, 8, 0, 65530, 0, zeros);
	check_plan(equal8, 8, UINT32_MAX, 0, 65536,
		   (const uint32_t[]){ 8192, 8192, 8192, 8192, 8192, 8192, 8192, 8192 });
	check_plan(half6_2, 8, UINT32_MAX, 1, 65534,
		   (const uint32_t[]){ 9362, 9362, 9362, 9362, 9362, 9362, 4681, 4681 });
	/* nothing usable, too many members */
	check_plan(zeros, 8, 20, 49152, 0, zeros);
	for (k = 0; k < ARRAY_SIZE(many); k++)
		many[k] = 1;
	check_plan(many, FARE_DP_MEMBERS_MAX + 1, 0, 49152, 0, none);
}

/* SUN-3: the QPs of a plan, opened in port order, land as the slot map
 * places them: each member gets its share, 1:1:2:2 in slot order.
 */
static void test_plan_members(void **state)
{
	const uint32_t wp6[4] = { 1, 1, 2, 2 };
	uint8_t slots[FARE_DP_SLOTS_MAX], qp_member[64];
	struct fare_dp_plan plan;
	uint32_t count[8];
	size_t i, nslots;

	(void)state;
	fare_dp_plan(half6_2, 8, 20, 49152, &plan);
	assert_int_equal(plan.qps, 28);
	fare_dp_plan_members(half6_2, 8, &plan, qp_member);
	memset(count, 0, sizeof(count));
	for (i = 0; i < plan.qps; i++)
		count[qp_member[i]]++;
	assert_memory_equal(count, plan.per_member, sizeof(count));

	fare_dp_plan(wp6, 4, 0, 49152, &plan);
	assert_int_equal(plan.qps, 6);
	fare_dp_plan_members(wp6, 4, &plan, qp_member);
	nslots = fare_dp_slots(wp6, 4, FARE_DP_SLOTS_MAX, slots);
	assert_int_equal(nslots, 6);
	assert_memory_equal(qp_member, slots, 6);
}

/* uniform in [lo, hi] */
static uint32_t prng_range(struct prng *prng, uint32_t lo, uint32_t hi)
{
	return lo + (uint32_t)(prng_next(prng) % ((uint64_t)hi - lo + 1));
}

/* a weight vector as FARE gives them: small, some 0, sometimes huge */
static void random_weights(struct prng *prng, uint32_t *w, size_t n)
{
	uint32_t top = prng_range(prng, 0, 3) == 0 ? UINT32_MAX : prng_range(prng, 1, 8);
	size_t i;

	for (i = 0; i < n; i++)
		w[i] = prng_range(prng, 0, 4) == 0 ? 0 : prng_range(prng, 1, top);
}

/*
 * SUN-4 invariants on random groups (dp_check_rebalance()): sum(target) ==
 * sum(count); quota sums to the flows; a member whose weight did not fall
 * never loses a flow (next burst, or nothing rose); losers end at or above
 * their quota, gainers at or below it; the one-at-a-time reference.
 */
static void test_rebalance_random(void **state)
{
	struct prng prng = { 0xFA4E0D0D0D0D0001ULL };
	int round, rounds_moved = 0;

	(void)state;
	for (round = 0; round < 20000; round++) {
		uint32_t old_w[FARE_DP_MEMBERS_MAX], w[FARE_DP_MEMBERS_MAX];
		uint32_t count[FARE_DP_MEMBERS_MAX], target[FARE_DP_MEMBERS_MAX];
		uint32_t quota[FARE_DP_MEMBERS_MAX];
		size_t n = prng_range(&prng, 1, round % 10 ? 10 : FARE_DP_MEMBERS_MAX), i;
		enum fare_dp_recover recover = round % 2 ? FARE_DP_RECOVER_AT_ONCE
							 : FARE_DP_RECOVER_NEXT_BURST;
		uint32_t moved, total;

		random_weights(&prng, old_w, n);
		/* a few members change, or all */
		for (i = 0; i < n; i++)
			w[i] = old_w[i];
		if (round % 3) {
			for (i = prng_range(&prng, 1, 3); i > 0; i--)
				w[prng_range(&prng, 0, (uint32_t)n - 1)] = prng_range(&prng, 0, 8);
		} else {
			random_weights(&prng, w, n);
		}
		/* placed with the old weights, or anything */
		total = prng_range(&prng, 0, 300);
		if (round % 4) {
			fare_dp_quota(old_w, n, total, count);
			for (i = 0; i < n; i++)
				if (prng_range(&prng, 0, 3) == 0)
					count[i] += prng_range(&prng, 0, 3);
		} else {
			for (i = 0; i < n; i++)
				count[i] = prng_range(&prng, 0, 40);
		}
		total = sum_u32(count, n);

		/* the quota sums to the flows */
		fare_dp_quota(w, n, total, quota);
		assert_int_equal(sum_u32(quota, n), any_u32(w, n) ? total : 0);
		/* dp_check.h: the invariants, the one-at-a-time rules */
		moved = fare_dp_rebalance(old_w, w, n, count, recover, target);
		dp_check_rebalance(old_w, w, n, count, recover, target, moved);
		if (moved)
			rounds_moved++;
	}
	/* the cases do move flows */
	assert_true(rounds_moved > 10000);
}

/* placement from zero over full cycles ends at the weights; slot maps */
static void test_place_slots_random(void **state)
{
	struct prng prng = { 0xFA4E0D0D0D0D0002ULL };
	int round;

	(void)state;
	for (round = 0; round < 3000; round++) {
		uint32_t w[FARE_DP_MEMBERS_MAX], count[FARE_DP_MEMBERS_MAX] = { 0 };
		uint32_t reduced[FARE_DP_MEMBERS_MAX], quota[FARE_DP_MEMBERS_MAX], divisor = 0;
		uint8_t slots[FARE_DP_SLOTS_MAX];
		size_t n = prng_range(&prng, 1, round % 10 ? 8 : FARE_DP_MEMBERS_MAX), i, k,
		       total = 0;
		struct fare_dp_plan plan;

		for (i = 0; i < n; i++) {
			w[i] = prng_range(&prng, 0, 2) == 0 ? 0 : prng_range(&prng, 1, 6);
			total += w[i];
		}
		if (!total) {
			assert_int_equal(fare_dp_place(w, count, n), n);
			assert_int_equal(fare_dp_slots(w, n, 256, slots), 0);
			continue;
		}
		for (k = 0; k < 2 * total; k++) {
			size_t member = fare_dp_place(w, count, n);

			assert_true(member < n && w[member] > 0);
			count[member]++;
			/* never above the quota of the flows so far */
			fare_dp_quota(w, n, (uint32_t)(k + 1), quota);
			assert_true(count[member] <= quota[member]);
		}
		for (i = 0; i < n; i++)
			assert_int_equal(count[i], 2 * w[i]);

		for (i = 0; i < n; i++) {
			uint32_t a = w[i], b = divisor;

			while (b) {
				uint32_t r = a % b;

				a = b;
				b = r;
			}
			divisor = a;
		}
		total = 0;
		for (i = 0; i < n; i++) {
			reduced[i] = w[i] / divisor;
			total += reduced[i];
		}
		if (total <= 256) {
			assert_int_equal(fare_dp_slots(w, n, 256, slots), total);
			dp_check_slot_spread(slots, total, reduced, n);
			fare_dp_plan(w, n, 0, 49152, &plan);
			assert_int_equal(plan.qps, total);
			assert_u32_array(plan.per_member, reduced, n);
		}
		/* a small budget: every usable member still gets a slot */
		k = fare_dp_slots(w, n, 64, slots);
		assert_true(k >= 1 && k <= 64);
		memset(count, 0, sizeof(count));
		for (i = 0; i < k; i++)
			count[slots[i]]++;
		for (i = 0; i < n; i++)
			assert_true((count[i] > 0) == (w[i] > 0));
		dp_check_slot_spread(slots, k, count, n);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quota_equal),
		cmocka_unit_test(test_quota_unequal),
		cmocka_unit_test(test_quota_ties),
		cmocka_unit_test(test_quota_zero),
		cmocka_unit_test(test_quota_large),
		cmocka_unit_test(test_rebalance_plane_failure),
		cmocka_unit_test(test_rebalance_half_failure),
		cmocka_unit_test(test_rebalance_recovery_at_once),
		cmocka_unit_test(test_rebalance_recovery_next_burst),
		cmocka_unit_test(test_rebalance_levels),
		cmocka_unit_test(test_rebalance_edges),
		cmocka_unit_test(test_place_sequence),
		cmocka_unit_test(test_place_ties),
		cmocka_unit_test(test_fill_from_live),
		cmocka_unit_test(test_slots_wp6),
		cmocka_unit_test(test_slots_dominant),
		cmocka_unit_test(test_slots_budget),
		cmocka_unit_test(test_plan),
		cmocka_unit_test(test_plan_members),
		cmocka_unit_test(test_rebalance_random),
		cmocka_unit_test(test_place_slots_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
