// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the FARE data plane core (dataplane/core/fare_dp.h):
 * fare_dp_quota(), fare_dp_rebalance(), fare_dp_place(), fare_dp_slots()
 * and fare_dp_plan() on one group (SUN-3, SUN-4, SUN-5, WP-6).
 *
 * Input: the member count n (1 byte, 0 to FARE_DP_MEMBERS_MAX + 1), flags
 * (1 byte: bit 0 recover at once, else next burst), max_slots (2 bytes),
 * the QPs requested (4 bytes), the first port (2 bytes), then per member
 * its old weight, new weight and live flows (fuzz_dp_weight(),
 * fuzz_dp_count(): small values in one byte, any 32-bit value after
 * 0xf0-0xfe, UINT32_MAX for 0xff).
 *
 * Checks, as fare_dp.h documents them:
 * - quota: sums to the flows (0 without a usable member), each member
 *   floor or ceil of its exact share, weight 0 nothing;
 * - rebalance: tests/unit/dp_check.h (sum kept, losers at or above their
 *   quota and only fallen ones unless a weight rose at once, gainers at or
 *   below, the one-at-a-time rules, a fixed point), the same in place;
 * - place: n iff nothing is usable, else a usable member below its quota
 *   for one flow more;
 * - slots: the reduced weights when they fit, else at most max_slots with
 *   a slot for every usable member (when there are enough), and the
 *   spread of dp_check_slot_spread();
 * - plan: a multiple of the slots, at least the request unless the ports
 *   run out, within port 65535, per member the quota.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_dp.h"
#include "fuzz_input.h"

#define DP_CHECK(cond) FUZZ_CHECK(cond)
#include "../unit/dp_check.h"

/* a weight: 0-15 in one byte, any after 0xf0-0xfe, UINT32_MAX for 0xff */
static uint32_t fuzz_dp_weight(struct fuzz_input *in)
{
	uint8_t b = fuzz_u8(in);

	if (b == 0xff)
		return UINT32_MAX;
	if (b >= 0xf0)
		return fuzz_u32(in);
	return b % 16;
}

/* live flows: 0-239 in one byte, any after 0xf0-0xfe, UINT32_MAX for 0xff */
static uint32_t fuzz_dp_count(struct fuzz_input *in)
{
	uint8_t b = fuzz_u8(in);

	if (b == 0xff)
		return UINT32_MAX;
	if (b >= 0xf0)
		return fuzz_u32(in);
	return b;
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
	return b ? gcd32(b, a % b) : a;
}

static void check_quota(const uint32_t *w, size_t n, uint32_t flows)
{
	uint32_t *quota = malloc(n * sizeof(*quota) + 1);
	uint64_t total = dp_sum(w, n), sum = 0;
	size_t i;

	fare_dp_quota(w, n, flows, quota);
	for (i = 0; i < n; i++) {
		uint64_t exact = total ? (uint64_t)flows * w[i] / total : 0;

		FUZZ_CHECK(quota[i] == exact || quota[i] == exact + 1);
		FUZZ_CHECK(w[i] || !quota[i]);
		sum += quota[i];
	}
	FUZZ_CHECK(sum == (total ? flows : 0));
	free(quota);
}

static void check_rebalance(const uint32_t *old_w, const uint32_t *w, size_t n,
			    const uint32_t *count, enum fare_dp_recover recover)
{
	uint32_t *target = malloc(n * sizeof(*target) + 1);
	uint32_t *again = malloc(n * sizeof(*again) + 1);
	uint32_t moved;

	moved = fare_dp_rebalance(old_w, w, n, count, recover, target);
	if (n <= FARE_DP_MEMBERS_MAX)
		dp_check_rebalance(old_w, w, n, count, recover, target, moved);
	else
		FUZZ_CHECK(dp_sum(target, n) == dp_sum(count, n));
	/* target may be count */
	memcpy(again, count, n * sizeof(*again));
	FUZZ_CHECK(fare_dp_rebalance(old_w, w, n, again, recover, again) == moved);
	FUZZ_CHECK(!memcmp(again, target, n * sizeof(*again)));
	free(target);
	free(again);
}

static void check_place(const uint32_t *w, size_t n, const uint32_t *count)
{
	size_t member = fare_dp_place(w, count, n);
	uint64_t total = dp_sum(count, n);
	uint32_t *quota;

	if (!dp_max(w, n)) {
		FUZZ_CHECK(member == n);
		return;
	}
	FUZZ_CHECK(member < n && w[member]);
	if (total >= UINT32_MAX)
		return;
	quota = malloc(n * sizeof(*quota));
	fare_dp_quota(w, n, (uint32_t)total + 1, quota);
	/* the deficits sum to 1 at least: the largest is >= 1 */
	FUZZ_CHECK(count[member] < quota[member]);
	free(quota);
}

/* the slot map; returns its size */
static size_t check_slots(const uint32_t *w, size_t n, size_t max_slots)
{
	uint8_t *slots = malloc(FARE_DP_SLOTS_MAX);
	uint32_t counts[FARE_DP_MEMBERS_MAX] = { 0 }, divisor = 0;
	size_t cap = max_slots < FARE_DP_SLOTS_MAX ? max_slots : FARE_DP_SLOTS_MAX;
	size_t total, usable = 0, i;
	uint64_t reduced = 0;

	total = fare_dp_slots(w, n, max_slots, slots);
	FUZZ_CHECK(total <= cap);
	if (!n || n > FARE_DP_MEMBERS_MAX || !dp_max(w, n) || !cap) {
		FUZZ_CHECK(total == 0);
		free(slots);
		return 0;
	}
	FUZZ_CHECK(total >= 1);
	for (i = 0; i < total; i++) {
		FUZZ_CHECK(slots[i] < n);
		counts[slots[i]]++;
	}
	for (i = 0; i < n; i++) {
		divisor = gcd32(w[i], divisor);
		usable += w[i] > 0;
	}
	for (i = 0; i < n; i++)
		reduced += w[i] / divisor;
	for (i = 0; i < n; i++) {
		FUZZ_CHECK(w[i] || !counts[i]);
		if (reduced <= cap)
			FUZZ_CHECK(counts[i] == w[i] / divisor);
		else if (usable <= cap)
			FUZZ_CHECK(!w[i] || counts[i]);
	}
	dp_check_slot_spread(slots, total, counts, n);
	free(slots);
	return total;
}

static void check_plan(const uint32_t *w, size_t n, uint32_t requested, uint16_t port)
{
	struct fare_dp_plan *plan = malloc(sizeof(*plan));
	uint8_t *slots = malloc(FARE_DP_SLOTS_MAX);
	uint64_t cycle = fare_dp_slots(w, n, FARE_DP_SLOTS_MAX, slots), sum = 0;
	uint64_t ports = 65536 - (uint64_t)port;
	uint32_t *quota = malloc(n * sizeof(*quota) + 1);
	size_t i;

	fare_dp_plan(w, n, requested, port, plan);
	FUZZ_CHECK(plan->first_port == port);
	FUZZ_CHECK(plan->qps <= ports);
	if (!cycle) {
		FUZZ_CHECK(plan->qps == 0);
	} else {
		uint64_t want = requested > cycle ? requested : cycle;
		uint64_t qps = (want + cycle - 1) / cycle * cycle;

		/* the smallest multiple, or as many whole cycles as ports */
		FUZZ_CHECK(plan->qps == (qps <= ports ? qps : ports / cycle * cycle));
		FUZZ_CHECK(plan->qps % cycle == 0);
	}
	for (i = 0; i < FARE_DP_MEMBERS_MAX; i++) {
		FUZZ_CHECK(i < n || plan->per_member[i] == 0);
		sum += plan->per_member[i];
	}
	FUZZ_CHECK(sum == plan->qps);
	if (n <= FARE_DP_MEMBERS_MAX) {
		fare_dp_quota(w, n, plan->qps, quota);
		FUZZ_CHECK(!memcmp(quota, plan->per_member, n * sizeof(*quota)));
	}
	free(quota);
	free(plan);
	free(slots);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input input = { data, size, 0 };
	size_t n = fuzz_u8(&input) % (FARE_DP_MEMBERS_MAX + 2), max_slots, i;
	enum fare_dp_recover recover = fuzz_u8(&input) & 1 ? FARE_DP_RECOVER_AT_ONCE
							   : FARE_DP_RECOVER_NEXT_BURST;
	uint32_t requested, *old_w, *w, *count;
	uint64_t total;
	uint16_t port;

	max_slots = fuzz_u16(&input);
	requested = fuzz_u32(&input);
	port = fuzz_u16(&input);
	/* exactly n elements (one byte more for malloc(0)): ASan sees overruns */
	old_w = malloc(n * sizeof(*old_w) + 1);
	w = malloc(n * sizeof(*w) + 1);
	count = malloc(n * sizeof(*count) + 1);
	for (i = 0; i < n; i++) {
		old_w[i] = fuzz_dp_weight(&input);
		w[i] = fuzz_dp_weight(&input);
		count[i] = fuzz_dp_count(&input);
	}
	total = dp_sum(count, n);

	check_quota(w, n, total > UINT32_MAX ? UINT32_MAX : (uint32_t)total);
	check_quota(w, n, requested);
	check_rebalance(old_w, w, n, count, recover);
	check_place(w, n, count);
	check_slots(w, n, max_slots);
	check_plan(w, n, requested, port);

	free(old_w);
	free(w);
	free(count);
	return 0;
}
