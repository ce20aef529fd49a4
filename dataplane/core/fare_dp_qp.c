// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE data plane: QP plans for RDMA NICs, applied by the application
 * (SUN-3, SUN-4). See fare_dp_qp.h. The apportionment, placement order and
 * rebalance are the core's (fare_dp.c); this file only lays QPs and ports
 * on them.
 */
#include <string.h>

#include "fare_dp_qp.h"

uint16_t fare_dp_flow_label_sport(uint32_t flow_label)
{
	uint32_t lo = flow_label & 0x3FFFu, hi = flow_label & 0xFC000u;

	lo ^= hi >> 14;
	return (uint16_t)(lo | FARE_DP_ROCE_SPORT_MIN);
}

uint32_t fare_dp_sport_flow_label(uint16_t sport)
{
	if (sport < FARE_DP_ROCE_SPORT_MIN)
		return 0;
	if (sport & 0x3FFFu)
		return sport & 0x3FFFu;
	/* high bits 1, low bits 1: 1 ^ 1 = 0, port 0xC000, label not 0 */
	return (1u << 14) | 1u;
}

static void qp_port(struct fare_dp_qp *qp, uint16_t sport)
{
	qp->sport = sport;
	qp->flow_label = fare_dp_sport_flow_label(sport);
}

uint32_t fare_dp_qp_plan(const uint32_t *weights, size_t n, uint32_t qps, uint16_t first_port,
			 struct fare_dp_qp_plan *plan)
{
	uint32_t count[FARE_DP_MEMBERS_MAX] = { 0 };
	struct fare_dp_plan min;

	memset(plan, 0, sizeof(*plan));
	if (n > FARE_DP_MEMBERS_MAX)
		return 0;
	plan->members = n;
	memcpy(plan->weights, weights, n * sizeof(*weights));
	plan->first_port = first_port;
	plan->next_port = first_port;
	if (!qps) {
		fare_dp_plan(weights, n, 0, first_port, &min);
		qps = min.qps;
	}
	if (!qps || qps > FARE_DP_QPS_MAX || (uint32_t)first_port + qps > UINT16_MAX + 1u)
		return 0;
	fare_dp_quota(weights, n, qps, plan->per_member);
	if (fare_dp_place(weights, count, n) == n)
		return 0; /* every weight 0: the quota is all 0 */
	/*
	 * One full turn of placement with the quota as weights ends at the
	 * quota exactly (fare_dp_place()), and every prefix follows it.
	 */
	for (uint32_t i = 0; i < qps; i++) {
		size_t k = fare_dp_place(plan->per_member, count, n);

		count[k]++;
		plan->qp[i].member = (uint8_t)k;
		qp_port(&plan->qp[i], (uint16_t)(first_port + i));
	}
	plan->qps = qps;
	plan->next_port = (uint32_t)first_port + qps;
	return qps;
}

uint32_t fare_dp_qp_replan(struct fare_dp_qp_plan *plan, const uint32_t *weights, size_t n,
			   const uint32_t *path, enum fare_dp_recover recover,
			   struct fare_dp_qp_move *moves)
{
	uint32_t old[FARE_DP_MEMBERS_MAX] = { 0 }, count[FARE_DP_MEMBERS_MAX] = { 0 };
	uint32_t target[FARE_DP_MEMBERS_MAX], excess[FARE_DP_MEMBERS_MAX] = { 0 };
	uint32_t released[FARE_DP_QPS_MAX], nrel = 0, nmoves = 0;
	uint64_t total = 0;

	if (n > FARE_DP_MEMBERS_MAX || n < plan->members)
		return 0;
	memcpy(old, plan->weights, plan->members * sizeof(*old));
	memcpy(count, plan->per_member, plan->members * sizeof(*count));
	for (size_t k = 0; k < n; k++)
		total += weights[k];
	if (!total)
		return 0;
	fare_dp_rebalance(old, weights, n, count, recover, target);

	for (size_t k = 0; k < n; k++)
		excess[k] = count[k] > target[k] ? count[k] - target[k] : 0;
	/* each member above its target gives its last QPs */
	for (uint32_t i = plan->qps; i-- > 0;) {
		uint8_t k = plan->qp[i].member;

		if (excess[k]) {
			excess[k]--;
			released[nrel++] = i;
		}
	}
	/* lowest QP index first */
	for (uint32_t a = 0, b = nrel ? nrel - 1 : 0; a < b; a++, b--) {
		uint32_t t = released[a];

		released[a] = released[b];
		released[b] = t;
	}
	for (uint32_t r = 0; r < nrel; r++) {
		struct fare_dp_qp *qp = &plan->qp[released[r]];
		struct fare_dp_qp_move *mv = &moves[nmoves++];
		size_t best = n;
		uint32_t best_deficit = 0;

		for (size_t k = 0; k < n; k++) {
			uint32_t d = target[k] > count[k] ? target[k] - count[k] : 0;

			if (d > best_deficit) {
				best_deficit = d;
				best = k;
			}
		}
		if (best == n) { /* cannot happen: sum(target) == sum(count) */
			nmoves--;
			continue;
		}
		mv->qp = released[r];
		mv->from = qp->member;
		mv->to = (uint8_t)best;
		mv->action = path && path[mv->from] == path[best] ? FARE_DP_QP_REPORT
								  : FARE_DP_QP_MOVE;
		count[mv->from]--;
		count[best]++;
		qp->member = (uint8_t)best;
		if (mv->action == FARE_DP_QP_REPORT && plan->next_port <= UINT16_MAX)
			qp_port(qp, (uint16_t)plan->next_port++);
		mv->sport = qp->sport;
		mv->flow_label = qp->flow_label;
	}
	plan->members = n;
	memcpy(plan->weights, weights, n * sizeof(*weights));
	memcpy(plan->per_member, count, n * sizeof(*count));
	return nmoves;
}
