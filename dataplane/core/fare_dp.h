// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE data plane: how flows and packets follow WCMP weights (SUN-3,
 * SUN-4, SUN-5, WP-6). Pure C, no kernel or library headers: the agent
 * (dataplane/fare-dpd.c) feeds it the members and weights of a kernel
 * nexthop group and the flows it tracks, and programs what it returns.
 *
 * A "member" is one next hop of a destination's group (a plane and a
 * sub-port on a GPU server, an uplink on a switch), with an integer weight
 * (0: not usable).
 */
#ifndef FARE_DP_H
#define FARE_DP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FARE_DP_MEMBERS_MAX 64
#define FARE_DP_SLOTS_MAX   256

/*
 * SUN-3: largest-remainder (Hamilton) apportionment of `flows` flows over
 * n members in proportion to weights[]: quota[i] = floor(flows * w_i / W)
 * plus one for the members with the largest remainders, ties to the lower
 * index. Members of weight 0 get 0. All quotas 0 when every weight is 0.
 * Any n (no allocation; O(n^2) at worst); flows * weight is exact in 64
 * bits.
 */
void fare_dp_quota(const uint32_t *weights, size_t n, uint32_t flows, uint32_t *quota);

/* What to do when a member's weight rises again (SUN-4). */
enum fare_dp_recover {
	FARE_DP_RECOVER_AT_ONCE,    /* move a proportionate subset back now */
	FARE_DP_RECOVER_NEXT_BURST, /* leave live flows; new flows follow the
				     * weights (entries expire between bursts) */
};

/*
 * SUN-4: new per-member flow counts after a change of weights, moving as
 * few flows as the new apportionment needs. count[i] is what member i
 * carries now; old_weights[] what it was placed with. On return target[i]
 * is what it should carry; sum(target) == sum(count).
 *
 * quota: fare_dp_quota(weights, sum(count)).
 *
 * "Fell" and "rose" compare each weight relative to the largest of its
 * vector, w_i / max(w) against old_i / max(old): FARE installs weights
 * reduced by their GCD (WP-3), so 1:1:1:1 -> 2:2:2:1 is member 3 losing
 * half its bandwidth and 2:2:2:1 -> 1:1:1:1 its recovery; the largest
 * member (a plane at full rate) is the reference. A member of weight 0
 * counts as fallen whatever its old weight (its flows have no path); when
 * every old weight is 0, every member of non-zero weight rose.
 *
 * - A member whose weight fell (to 0 included) keeps min(count, quota) and
 *   releases the rest. A member whose weight did not fall keeps all its
 *   flows, even one or two above its quota (it never moves), except as a
 *   giver below.
 * - Released flows go to the members below their quota, largest deficit
 *   first (ties to the lower index): one at a time to the member with the
 *   largest deficit left, so deficits are levelled.
 * - A member whose weight rose: with FARE_DP_RECOVER_AT_ONCE, members above
 *   their quota give back their excess, largest excess first (one at a
 *   time, ties to the lower index), until it reaches its quota (the risen
 *   members filled as the released flows are, as far as the excess goes);
 *   with FARE_DP_RECOVER_NEXT_BURST nothing moves for it.
 *
 * So: a member that loses flows ends at its quota or above it, one that
 * gains ends at its quota or below it, a flow moves at most once, and with
 * FARE_DP_RECOVER_NEXT_BURST (or when no weight rose) only fallen members
 * lose flows. Unchanged weights move nothing once a rebalance has run.
 * Nothing moves (target = count, returns 0) when every new weight is 0
 * (the flows wait or expire) or when sum(count) exceeds UINT32_MAX. Any n;
 * target may be count.
 *
 * Returns the number of flows that move (sum of releases and give-backs).
 */
uint32_t fare_dp_rebalance(const uint32_t *old_weights, const uint32_t *weights, size_t n,
			   const uint32_t *count, enum fare_dp_recover recover, uint32_t *target);

/*
 * SUN-4, new flows: the member a new flow should go to, given the live
 * counts: the member furthest below its quota for (sum(count) + 1) flows
 * (largest deficit, then larger weight, then lower index). Returns n when
 * every weight is 0. Placing flows one by one this way from zero follows
 * the quota: after k full cycles of sum(weights) flows every member holds
 * exactly k times its weight. sum(count) >= UINT32_MAX: the quota for
 * UINT32_MAX flows.
 */
size_t fare_dp_place(const uint32_t *weights, const uint32_t *count, size_t n);

/*
 * SUN-4, the next new flows when flows are live: slots[j] is the member
 * fare_dp_place() picks for the (j+1)-th new flow, from count[] and the
 * j flows placed before it (count[] itself is not changed), for
 * j < nslots (at most FARE_DP_SLOTS_MAX). A slot map for the agent that
 * starts from the live flows rather than from zero: from counts at their
 * quota it gives each member its share of every new flow; from counts
 * below it (recover next-burst, flows that expired) the members below
 * their quota get the new flows first. Returns the number of slots
 * written: 0 when every weight is 0 or n > FARE_DP_MEMBERS_MAX.
 */
size_t fare_dp_fill(const uint32_t *weights, const uint32_t *count, size_t n, size_t nslots,
		    uint8_t *slots);

/*
 * SUN-5, WP-6: a slot map for per-packet spray: each member repeated in
 * proportion to its weight, the weights first divided by their GCD
 * (1:1:2:2 -> 6 slots), interleaved in smooth weighted round-robin order
 * (1:1:2:2 -> 2,3,0,1,2,3 or similar: no member twice in a row while
 * another can go) so that consecutive packets spread. When the reduced
 * weights sum to more than max_slots (<= FARE_DP_SLOTS_MAX), they are
 * apportioned over max_slots by fare_dp_quota() with every usable member
 * keeping at least one slot. slots[] receives member indexes; returns the
 * number of slots (0 when every weight is 0).
 *
 * Details: max_slots above FARE_DP_SLOTS_MAX counts as FARE_DP_SLOTS_MAX;
 * 0 slots for max_slots 0 or n > FARE_DP_MEMBERS_MAX. At least one slot
 * each: the members the quota leaves at 0 get 1 and the other slots are
 * apportioned again among the rest; with more usable members than
 * max_slots, the quota alone (the smallest members get none). An
 * apportioned map is reduced by its GCD again (2:2:4 -> 1:1:2).
 * Interleave: smooth weighted round-robin (each slot, every member's
 * current weight grows by its slot count, the largest takes the slot, ties
 * to the lower index, and loses the total), a member passed over when
 * taking the slot would leave the rest of the cycle unable to avoid a
 * member twice in a row, the wrap from the last slot to the first
 * included: when no member has more than half the slots, no two
 * consecutive slots (cyclically) hold the same member. When one has more,
 * each other member takes one slot between its runs (in smooth order
 * among themselves), and its runs differ by one slot at most.
 */
size_t fare_dp_slots(const uint32_t *weights, size_t n, size_t max_slots, uint8_t *slots);

/*
 * SUN-3: queue pairs to open towards one destination GPU: at least
 * members (sub-ports x planes), and a multiple of the number of slots of
 * the weights so that per-flow placement is exact; `requested` (0: the
 * minimum) raises it. first_port is the first UDP source port; the QPs use
 * consecutive ports.
 *
 * qps: the smallest multiple of S = fare_dp_slots(weights, n,
 * FARE_DP_SLOTS_MAX) that is >= max(requested, S) (S >= the usable
 * members); with requested 20 and 8 equal members, 24. The ports stop at
 * 65535: qps is at most the whole cycles of S that fit from first_port
 * (0 if not one). qps 0 and per_member all 0 when every weight is 0 or
 * n > FARE_DP_MEMBERS_MAX. When the reduced weights fit in S,
 * per_member[i] is qps / S times member i's slots.
 */
struct fare_dp_plan {
	uint32_t qps;
	uint32_t per_member[FARE_DP_MEMBERS_MAX]; /* fare_dp_quota(qps) */
	uint16_t first_port;
};

void fare_dp_plan(const uint32_t *weights, size_t n, uint32_t requested, uint16_t first_port,
		  struct fare_dp_plan *plan);

/*
 * The member each QP of a plan lands on: QP i (source port first_port + i)
 * goes to the member of slot i mod S of fare_dp_slots(weights), the order
 * in which the agent places new flows from a reset cycle, so member k gets
 * plan->per_member[k] QPs. qp_member[] has plan->qps entries.
 */
void fare_dp_plan_members(const uint32_t *weights, size_t n, const struct fare_dp_plan *plan,
			  uint8_t *qp_member);

#endif /* FARE_DP_H */
