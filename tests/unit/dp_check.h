// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The invariants of the FARE data plane core (fare_dp.h), for the unit
 * tests and the fuzz target: rebalance (SUN-4) against its rules applied
 * one flow at a time, and the spread of slot maps (SUN-5, WP-6).
 *
 * The includer defines DP_CHECK(cond) first: a cmocka assertion, or
 * FUZZ_CHECK(). Groups checked here have at most FARE_DP_MEMBERS_MAX
 * members.
 */
#ifndef FARE_TEST_DP_CHECK_H
#define FARE_TEST_DP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fare_dp.h"

/* the one-at-a-time reference only up to this many flows (it is slow) */
#define DP_REF_FLOWS_MAX 20000

static inline uint64_t dp_sum(const uint32_t *v, size_t n)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum;
}

static inline uint32_t dp_max(const uint32_t *v, size_t n)
{
	uint32_t max = 0;
	size_t i;

	for (i = 0; i < n; i++)
		max = v[i] > max ? v[i] : max;
	return max;
}

/* fare_dp.h: relative to the largest weight; weight 0 fell */
static inline bool dp_ref_fell(const uint32_t *old_w, const uint32_t *w, size_t n, size_t i)
{
	uint32_t old_max = dp_max(old_w, n), new_max = dp_max(w, n);

	if (!w[i])
		return true;
	return old_max && (uint64_t)w[i] * old_max < (uint64_t)old_w[i] * new_max;
}

static inline bool dp_ref_rose(const uint32_t *old_w, const uint32_t *w, size_t n, size_t i)
{
	uint32_t old_max = dp_max(old_w, n), new_max = dp_max(w, n);

	return w[i] && (!old_max || (uint64_t)w[i] * old_max > (uint64_t)old_w[i] * new_max);
}

/* the chosen member with the largest a - b > 0, the lower index on ties */
static inline size_t dp_ref_largest(const uint32_t *a, const uint32_t *b, const bool *chosen,
				    size_t n)
{
	size_t best = n, i;

	for (i = 0; i < n; i++)
		if (chosen[i] && a[i] > b[i] && (best == n || a[i] - b[i] > a[best] - b[best]))
			best = i;
	return best;
}

/* the rules of fare_dp_rebalance(), one flow at a time */
static inline uint32_t dp_ref_rebalance(const uint32_t *old_w, const uint32_t *w, size_t n,
					const uint32_t *count, enum fare_dp_recover recover,
					uint32_t *target)
{
	uint32_t quota[FARE_DP_MEMBERS_MAX], moved, released = 0;
	bool all[FARE_DP_MEMBERS_MAX], rose[FARE_DP_MEMBERS_MAX];
	uint64_t total = dp_sum(count, n);
	size_t i;

	memcpy(target, count, n * sizeof(*target));
	if (!dp_max(w, n) || total > UINT32_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		all[i] = true;
		rose[i] = dp_ref_rose(old_w, w, n, i);
	}
	fare_dp_quota(w, n, (uint32_t)total, quota);
	for (i = 0; i < n; i++) {
		if (dp_ref_fell(old_w, w, n, i) && target[i] > quota[i]) {
			released += target[i] - quota[i];
			target[i] = quota[i];
		}
	}
	for (moved = released; released; released--) {
		i = dp_ref_largest(quota, target, all, n);
		DP_CHECK(i < n);
		target[i]++;
	}
	if (recover != FARE_DP_RECOVER_AT_ONCE)
		return moved;
	for (;;) {
		size_t to = dp_ref_largest(quota, target, rose, n);
		size_t from = dp_ref_largest(target, quota, all, n);

		if (to == n || from == n)
			return moved;
		target[to]++;
		target[from]--;
		moved++;
	}
}

/*
 * fare_dp_rebalance() gave target[] and moved for count[]: sum(target) ==
 * sum(count); the flows lost are the flows gained are moved; a loser ends
 * at or above its quota, a gainer at or below; with next burst, or when no
 * weight rose, only members whose weight fell lose flows; weight 0 ends
 * empty; nothing moves without a usable member or beyond UINT32_MAX
 * flows; the same as the one-at-a-time rules; a fixed point.
 */
static inline void dp_check_rebalance(const uint32_t *old_w, const uint32_t *w, size_t n,
				      const uint32_t *count, enum fare_dp_recover recover,
				      const uint32_t *target, uint32_t moved)
{
	uint32_t quota[FARE_DP_MEMBERS_MAX], again[FARE_DP_MEMBERS_MAX];
	uint64_t total = dp_sum(count, n), lost = 0, gained = 0;
	bool any_rose = false, usable = dp_max(w, n) > 0;
	size_t i;

	DP_CHECK(n <= FARE_DP_MEMBERS_MAX);
	DP_CHECK(dp_sum(target, n) == total);
	if (!usable || total > UINT32_MAX) {
		DP_CHECK(moved == 0);
		DP_CHECK(!memcmp(target, count, n * sizeof(*target)));
		return;
	}
	fare_dp_quota(w, n, (uint32_t)total, quota);
	DP_CHECK(dp_sum(quota, n) == total);
	for (i = 0; i < n; i++)
		any_rose |= dp_ref_rose(old_w, w, n, i);
	for (i = 0; i < n; i++) {
		if (target[i] < count[i]) {
			lost += count[i] - target[i];
			DP_CHECK(target[i] >= quota[i]);
			if (recover == FARE_DP_RECOVER_NEXT_BURST || !any_rose)
				DP_CHECK(dp_ref_fell(old_w, w, n, i));
		} else if (target[i] > count[i]) {
			gained += target[i] - count[i];
			DP_CHECK(target[i] <= quota[i]);
		}
		if (!w[i])
			DP_CHECK(target[i] == 0);
	}
	DP_CHECK(moved == lost);
	DP_CHECK(moved == gained);
	if (total <= DP_REF_FLOWS_MAX) {
		DP_CHECK(dp_ref_rebalance(old_w, w, n, count, recover, again) == moved);
		DP_CHECK(!memcmp(target, again, n * sizeof(*target)));
	}
	/* the same weights again: nothing moves */
	DP_CHECK(fare_dp_rebalance(w, w, n, target, recover, again) == 0);
	DP_CHECK(!memcmp(target, again, n * sizeof(*target)));
}

/*
 * A slot map of `total` slots: member i in counts[i] of them; when no
 * member has more than half, no member in two consecutive slots (the wrap
 * from the last to the first included); otherwise no two others in a row
 * and the big member's runs differ by one at most.
 */
static inline void dp_check_slot_spread(const uint8_t *slots, size_t total, const uint32_t *counts,
					size_t n)
{
	uint32_t seen[FARE_DP_MEMBERS_MAX] = { 0 };
	size_t k, big = n, others, run = 0, start = 0, min_run = total, max_run = 0;

	DP_CHECK(n <= FARE_DP_MEMBERS_MAX);
	for (k = 0; k < total; k++) {
		DP_CHECK(slots[k] < n);
		seen[slots[k]]++;
	}
	DP_CHECK(!memcmp(seen, counts, n * sizeof(*counts)));
	for (k = 0; k < n; k++)
		if (2 * (size_t)counts[k] > total)
			big = k;
	if (big == n) {
		for (k = 0; total > 1 && k < total; k++)
			DP_CHECK(slots[k] != slots[(k + 1) % total]);
		return;
	}
	others = total - counts[big];
	if (!others)
		return;
	for (k = 0; k < total; k++) {
		DP_CHECK(slots[k] == big || slots[(k + 1) % total] == big);
		if (slots[k] != big)
			start = k + 1;
	}
	/* from the slot after an other: every run of big ends at an other */
	for (k = 0; k < total; k++) {
		if (slots[(start + k) % total] == big) {
			run++;
			continue;
		}
		min_run = run < min_run ? run : min_run;
		max_run = run > max_run ? run : max_run;
		run = 0;
	}
	DP_CHECK(max_run - min_run <= 1);
}

#endif /* FARE_TEST_DP_CHECK_H */
