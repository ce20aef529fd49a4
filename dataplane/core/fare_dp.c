// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE data plane: how flows and packets follow WCMP weights (SUN-3,
 * SUN-4, SUN-5, WP-6). See fare_dp.h for the contract of each function.
 *
 * Nothing here allocates: the apportionment of a member is computed in
 * O(1) once the cut of the largest remainders is known (struct
 * fare_apportion, shared with the bgpd module's core),
 * so the rebalance works in place in target[] for any n, and the slot maps
 * use arrays of FARE_DP_MEMBERS_MAX on the stack.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fare_apportion.h"
#include "fare_dp.h"

/* SUN-3: the largest-remainder apportionment of the flows (fare_apportion.h) */
void fare_dp_quota(const uint32_t *weights, size_t n, uint32_t flows, uint32_t *quota)
{
	fare_apportion(weights, n, flows, quota);
}

/*
 * SUN-4: connection tracking across a change of weights, in target[]
 * (the flows each member carries as the rebalance goes on).
 */
struct dp_rebalance {
	struct fare_apportion quota; /* of the new weights, for sum(count) flows */
	const uint32_t *old_weights;
	const uint32_t *weights;
	uint32_t *target;
	size_t n;
	uint32_t old_max, new_max;
};

/*
 * Weights are compared relative to the largest of their vector: FARE
 * installs them reduced by their GCD (WP-3), so 1:1:1:1 becoming 2:2:2:1
 * is member 3 halving, and 2:2:2:1 becoming 1:1:1:1 its recovery; the
 * largest member (a plane at full rate) is the reference. w / max(w) <
 * old / max(old), cross-multiplied: products below 2^64.
 */
static bool dp_fell(const struct dp_rebalance *rb, size_t i)
{
	uint32_t w = rb->weights[i];

	/* weight 0: no route to keep flows on, whatever it was */
	if (!w)
		return true;
	return rb->old_max && (uint64_t)w * rb->old_max < (uint64_t)rb->old_weights[i] * rb->new_max;
}

static bool dp_rose(const struct dp_rebalance *rb, size_t i)
{
	uint32_t w = rb->weights[i];

	if (!w)
		return false;
	/* from no usable member at all: every usable one came back */
	return !rb->old_max ||
	       (uint64_t)w * rb->old_max > (uint64_t)rb->old_weights[i] * rb->new_max;
}

enum dp_gap {
	DP_DEFICIT,	  /* below the quota: receives released flows */
	DP_RISEN_DEFICIT, /* weight rose and below the quota (at-once) */
	DP_EXCESS,	  /* above the quota: gives back (at-once) */
};

/* member i's gap to its quota, as target[] stands */
static uint32_t dp_gap(const struct dp_rebalance *rb, size_t i, enum dp_gap kind)
{
	uint32_t quota = fare_apportion_seats(&rb->quota, i), now = rb->target[i];

	switch (kind) {
	case DP_DEFICIT:
		return now < quota ? quota - now : 0;
	case DP_RISEN_DEFICIT:
		return now < quota && dp_rose(rb, i) ? quota - now : 0;
	case DP_EXCESS:
		return now > quota ? now - quota : 0;
	}
	return 0;
}

/* sum of the gaps beyond level, and the largest gap */
static uint64_t dp_gap_above(const struct dp_rebalance *rb, enum dp_gap kind, uint32_t level,
			     uint32_t *max_gap)
{
	uint64_t sum = 0;
	size_t i;

	if (max_gap)
		*max_gap = 0;
	for (i = 0; i < rb->n; i++) {
		uint32_t gap = dp_gap(rb, i, kind);

		if (gap > level)
			sum += gap - level;
		if (max_gap && gap > *max_gap)
			*max_gap = gap;
	}
	return sum;
}

/*
 * Moves `amount` flows (at most the sum of the gaps) into the deficits, or
 * out of the excesses, one at a time to or from the member with the largest
 * gap left, ties to the lower index (SUN-4: largest deficit first, largest
 * excess first). Done by levels: the gaps above the lowest level L whose
 * sum is at most `amount` all go, and the rest, fewer than the members
 * with a gap of at least L, takes one more from those members in index
 * order: exactly what the one-at-a-time order gives, in O(n log max gap).
 */
static void dp_level_move(struct dp_rebalance *rb, enum dp_gap kind, uint64_t amount)
{
	uint32_t lo = 0, hi;
	uint64_t extra;
	size_t i;

	if (!amount)
		return;
	dp_gap_above(rb, kind, 0, &hi);
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (dp_gap_above(rb, kind, mid, NULL) <= amount)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* lo = 0 leaves nothing: amount <= sum of the gaps */
	extra = amount - dp_gap_above(rb, kind, lo, NULL);
	/* in place: a member's gap depends on its own target only */
	for (i = 0; i < rb->n; i++) {
		uint32_t gap = dp_gap(rb, i, kind), step;

		if (!gap || gap < lo)
			continue;
		step = gap - lo;
		if (extra) {
			step++;
			extra--;
		}
		if (kind == DP_EXCESS)
			rb->target[i] -= step;
		else
			rb->target[i] += step;
	}
}

uint32_t fare_dp_rebalance(const uint32_t *old_weights, const uint32_t *weights, size_t n,
			   const uint32_t *count, enum fare_dp_recover recover, uint32_t *target)
{
	struct dp_rebalance rb = {
		.old_weights = old_weights,
		.weights = weights,
		.target = target,
		.n = n,
	};
	uint64_t total = 0, released = 0, moved;
	size_t i;

	for (i = 0; i < n; i++) {
		total += count[i];
		target[i] = count[i]; /* target may be count */
		if (old_weights[i] > rb.old_max)
			rb.old_max = old_weights[i];
		if (weights[i] > rb.new_max)
			rb.new_max = weights[i];
	}
	/* nowhere to go (the flows wait or expire), or beyond a quota */
	if (!rb.new_max || total > UINT32_MAX)
		return 0;
	fare_apportion_init(&rb.quota, weights, n, (uint32_t)total);

	/*
	 * SUN-4: only the members whose weight fell (a plane lost bandwidth)
	 * release flows, down to their quota; the flows of the others keep
	 * their paths, even one or two above their quota.
	 */
	for (i = 0; i < n; i++) {
		uint32_t quota = fare_apportion_seats(&rb.quota, i);

		if (target[i] > quota && dp_fell(&rb, i)) {
			released += target[i] - quota;
			target[i] = quota;
		}
	}
	/*
	 * The released flows go in line with the new weights: to the members
	 * below their quota, largest deficit first. The deficits sum to at
	 * least the released flows (sum(quota) = sum(count)).
	 */
	dp_level_move(&rb, DP_DEFICIT, released);
	moved = released;

	/*
	 * SUN-4, recovery at once: a member whose weight rose is reinstated
	 * up to its quota by the members above theirs, largest excess first.
	 * Next burst: nothing moves for it, new flows fill it (entries expire
	 * between bursts).
	 */
	if (recover == FARE_DP_RECOVER_AT_ONCE) {
		uint64_t deficit = dp_gap_above(&rb, DP_RISEN_DEFICIT, 0, NULL);
		uint64_t excess = dp_gap_above(&rb, DP_EXCESS, 0, NULL);
		uint64_t back = deficit < excess ? deficit : excess;

		/* distinct members: above their quota vs below it */
		dp_level_move(&rb, DP_EXCESS, back);
		dp_level_move(&rb, DP_RISEN_DEFICIT, back);
		moved += back;
	}
	/* a flow moves once at most: moved <= total */
	return (uint32_t)moved;
}

size_t fare_dp_place(const uint32_t *weights, const uint32_t *count, size_t n)
{
	struct fare_apportion qc;
	uint64_t total = 0;
	int64_t best_deficit = 0;
	size_t best = n, i;

	for (i = 0; i < n; i++)
		total += count[i];
	/* SUN-4: the quota with this flow counted */
	fare_apportion_init(&qc, weights, n, total < UINT32_MAX ? (uint32_t)total + 1 : UINT32_MAX);
	for (i = 0; i < n; i++) {
		int64_t deficit;

		if (!weights[i])
			continue;
		deficit = (int64_t)fare_apportion_seats(&qc, i) - count[i];
		/* largest deficit, then larger weight, then lower index */
		if (best == n || deficit > best_deficit ||
		    (deficit == best_deficit && weights[i] > weights[best])) {
			best = i;
			best_deficit = deficit;
		}
	}
	return best;
}

size_t fare_dp_fill(const uint32_t *weights, const uint32_t *count, size_t n, size_t nslots,
		    uint8_t *slots)
{
	uint32_t c[FARE_DP_MEMBERS_MAX];
	size_t j;

	if (n > FARE_DP_MEMBERS_MAX)
		return 0;
	if (nslots > FARE_DP_SLOTS_MAX)
		nslots = FARE_DP_SLOTS_MAX;
	memcpy(c, count, n * sizeof(*c));
	for (j = 0; j < nslots; j++) {
		size_t k = fare_dp_place(weights, c, n);

		if (k == n)
			return 0;
		slots[j] = (uint8_t)k;
		if (c[k] < UINT32_MAX)
			c[k]++;
	}
	return j;
}

/*
 * More reduced weights than slots: the slots apportioned by quota, every
 * usable member keeping one (when there are enough slots): the members the
 * quota leaves at 0 are set to 1, and the rest apportioned again among
 * the others until none is left at 0 (at most `usable` rounds: the largest
 * of the others always gets a slot).
 */
static void dp_slots_apportion(const uint32_t *weights, size_t n, size_t max_slots, size_t usable,
			       uint32_t *counts)
{
	uint32_t others[FARE_DP_MEMBERS_MAX];
	bool forced[FARE_DP_MEMBERS_MAX] = { false };
	size_t nforced = 0, i;
	bool again = true;

	while (again) {
		for (i = 0; i < n; i++)
			others[i] = forced[i] ? 0 : weights[i];
		fare_dp_quota(others, n, (uint32_t)(max_slots - nforced), counts);
		/* not a slot each: the quota alone, the smallest left out */
		if (usable > max_slots)
			break;
		again = false;
		for (i = 0; i < n; i++) {
			if (weights[i] && !forced[i] && !counts[i]) {
				forced[i] = true;
				nforced++;
				again = true;
			}
		}
	}
	for (i = 0; i < n; i++)
		if (forced[i])
			counts[i] = 1;
}

/*
 * Who may take slot k (1 <= k < total, slots 0 to k - 1 holding no member
 * twice in a row) so that the `rest` slots after it can still be filled
 * with no member twice in a row up to the first slot (the map wraps
 * around). left[] counts the slots still to give, slot k's included. With
 * p (slot k) and f (slot 0) fixed at the ends of a line of N = rest + 2
 * slots, member j appears t_j = left_j + (j == f) times in it, whoever p
 * is; no member twice in a row is possible iff every t_j <= ceil(N / 2),
 * a member reaching (N + 1) / 2 with N odd is at both ends (j == p == f),
 * and one reaching N / 2 with N even at one end at least (j == p or
 * j == f). Returns n when any member may take it, the one member that
 * must, or n + 1 when none can (not reached: slot 0 starts a feasible
 * cycle, and each slot keeps it so).
 */
static size_t dp_slot_rule(const uint32_t *left, size_t n, size_t first, size_t rest)
{
	size_t size = rest + 2, only = n, j;

	for (j = 0; j < n; j++) {
		size_t t = left[j] + (j == first);
		bool must;

		if (t > (size + 1) / 2)
			return n + 1;
		if (size % 2)
			must = t == (size + 1) / 2; /* and j == f: checked below */
		else
			must = t == size / 2 && j != first;
		if (!must)
			continue;
		if ((size % 2 && j != first) || (only != n && only != j))
			return n + 1;
		only = j;
	}
	return only;
}

/*
 * SUN-5, WP-6: the interleave. Smooth weighted round-robin as nginx does
 * it: each slot, every member's current weight grows by its count and the
 * largest (lower index on ties) takes the slot and loses the total; over a
 * cycle each member takes exactly its count, spread evenly.
 *
 * When no member has more than half the slots, the same order, but a
 * member only takes a slot if the rest of the cycle can still be filled
 * with no member twice in a row, the wrap from the last slot to the first
 * included (dp_slot_rule()); 1:1:2:2 stays 2,3,0,1,2,3. When one member
 * has more than half, it must repeat: the others each take one slot
 * between its runs, in smooth order among themselves, and its runs differ
 * by one slot at most (floor((k + 1) c / o) - floor(k c / o)).
 */
static void dp_interleave(const uint32_t *counts, size_t n, size_t total, uint8_t *slots)
{
	int32_t current[FARE_DP_MEMBERS_MAX] = { 0 };
	uint32_t left[FARE_DP_MEMBERS_MAX];
	size_t big = n, i, k, pos = 0;

	for (i = 0; i < n; i++)
		if (2 * (size_t)counts[i] > total)
			big = i;

	if (big < n) {
		size_t others = total - counts[big];

		if (!others) {
			for (k = 0; k < total; k++)
				slots[k] = (uint8_t)big;
			return;
		}
		for (k = 0; k < others; k++) {
			size_t run = (k + 1) * counts[big] / others - k * counts[big] / others;
			size_t best = n;

			while (run--)
				slots[pos++] = (uint8_t)big;
			for (i = 0; i < n; i++) {
				if (i == big || !counts[i])
					continue;
				current[i] += (int32_t)counts[i];
				if (best == n || current[i] > current[best])
					best = i;
			}
			current[best] -= (int32_t)others;
			slots[pos++] = (uint8_t)best;
		}
		return;
	}

	memcpy(left, counts, n * sizeof(*left));
	for (k = 0; k < total; k++) {
		/* slot 0: anyone, a cyclic order can be started anywhere */
		size_t only = k ? dp_slot_rule(left, n, slots[0], total - k - 1) : n;
		size_t best = n, fallback = n;

		for (i = 0; i < n; i++)
			current[i] += (int32_t)counts[i];
		for (i = 0; i < n; i++) {
			if (!left[i])
				continue;
			if (fallback == n || current[i] > current[fallback])
				fallback = i;
			if ((k && i == slots[k - 1]) || (only != n && i != only))
				continue;
			if (best == n || current[i] > current[best])
				best = i;
		}
		/* a fitting member always exists (see above): only defensive */
		if (best == n)
			best = fallback;
		left[best]--;
		current[best] -= (int32_t)total;
		slots[k] = (uint8_t)best;
	}
}

size_t fare_dp_slots(const uint32_t *weights, size_t n, size_t max_slots, uint8_t *slots)
{
	uint32_t counts[FARE_DP_MEMBERS_MAX], divisor;
	uint64_t reduced = 0;
	size_t usable = 0, total = 0, i;

	if (!n || n > FARE_DP_MEMBERS_MAX)
		return 0;
	if (max_slots > FARE_DP_SLOTS_MAX)
		max_slots = FARE_DP_SLOTS_MAX;
	divisor = fare_gcd_array(weights, n);
	for (i = 0; i < n; i++)
		usable += weights[i] > 0;
	if (!divisor || !max_slots)
		return 0;
	/* WP-6: 2:2:4:4 is the cycle of 1:1:2:2 */
	for (i = 0; i < n; i++)
		reduced += weights[i] / divisor;
	if (reduced <= max_slots) {
		for (i = 0; i < n; i++)
			counts[i] = weights[i] / divisor;
	} else {
		dp_slots_apportion(weights, n, max_slots, usable, counts);
		/* the apportioned cycle may be a repeat of a shorter one */
		divisor = fare_gcd_array(counts, n);
		for (i = 0; i < n; i++)
			counts[i] /= divisor;
	}
	for (i = 0; i < n; i++)
		total += counts[i];
	dp_interleave(counts, n, total, slots);
	return total;
}

void fare_dp_plan(const uint32_t *weights, size_t n, uint32_t requested, uint16_t first_port,
		  struct fare_dp_plan *plan)
{
	uint8_t slots[FARE_DP_SLOTS_MAX];
	uint64_t cycle, want, qps, ports = (uint64_t)UINT16_MAX + 1 - first_port;

	memset(plan, 0, sizeof(*plan));
	plan->first_port = first_port;
	cycle = fare_dp_slots(weights, n, FARE_DP_SLOTS_MAX, slots);
	if (!cycle)
		return;
	/*
	 * SUN-3: at least m x n QPs per GPU pair, one per member (sub-port x
	 * plane): cycle >= usable members. Whole cycles spread them over the
	 * planes by path bandwidth and, the sub-ports of a plane having equal
	 * weights, evenly over its links.
	 */
	want = requested > cycle ? requested : cycle;
	qps = (want + cycle - 1) / cycle * cycle;
	/* consecutive source ports up to 65535, whole cycles only */
	if (qps > ports)
		qps = ports / cycle * cycle;
	plan->qps = (uint32_t)qps;
	fare_dp_quota(weights, n, plan->qps, plan->per_member);
}

void fare_dp_plan_members(const uint32_t *weights, size_t n, const struct fare_dp_plan *plan,
			  uint8_t *qp_member)
{
	uint8_t slots[FARE_DP_SLOTS_MAX];
	size_t nslots = fare_dp_slots(weights, n, FARE_DP_SLOTS_MAX, slots);
	uint32_t i;

	for (i = 0; i < plan->qps; i++)
		qp_member[i] = nslots ? slots[i % nslots] : 0;
}
