// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE data plane: queue-pair (QP) plans for RDMA NICs, applied by the
 * application (SUN-3, SUN-4). Pure C, no verbs or kernel headers.
 *
 * A hardware RoCE NIC consults the kernel once, when a QP is set up; then
 * it sends every packet itself, and no nftables rule, fwmark or conntrack
 * entry of fare-dpd sees them. So the weights must be applied where the QP
 * is made: the application opens each QP on the RDMA device of a member
 * (a plane and a sub-port: one next hop of the destination's kernel
 * nexthop group) and gives it a RoCEv2 UDP source port (the fabric's ECMP
 * hash input). This file plans that: how many QPs on each member
 * (fare_dp_quota(), largest remainder), in which order, with which source
 * port, and which QPs to move when the weights change (fare_dp_rebalance()).
 */
#ifndef FARE_DP_QP_H
#define FARE_DP_QP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_dp.h"

#define FARE_DP_QPS_MAX 1024

/* RoCEv2 source ports derived from a flow label lie in 0xC000..0xFFFF */
#define FARE_DP_ROCE_SPORT_MIN	0xC000u
#define FARE_DP_FLOW_LABEL_MASK 0xFFFFFu

/*
 * The RoCEv2 UDP source port of a GRH flow label, by the convention of
 * rdma-core (ibv_flow_label_to_udp_sport() in infiniband/verbs.h) and the
 * kernel (rdma_flow_label_to_udp_sport()): the label's low 14 bits XOR its
 * high 6 bits, in 0xC000..0xFFFF. Identical to rdma-core's function for
 * every 20-bit label (checked in tests/unit/test_dp_qp.c when verbs.h is
 * there).
 */
uint16_t fare_dp_flow_label_sport(uint32_t flow_label);

/*
 * A flow label whose source port is `sport`, never 0 (the kernel derives
 * the port from the QP numbers when the label is 0): the port's low 14
 * bits, or 0x4001 for 0xC000. 0 when sport < 0xC000 (no label gives it;
 * only a provider call such as mlx5dv_modify_qp_udp_sport() does).
 */
uint32_t fare_dp_sport_flow_label(uint16_t sport);

/* One QP of a plan */
struct fare_dp_qp {
	uint8_t member;	     /* the member (RDMA device) it is opened on */
	uint16_t sport;	     /* its RoCEv2 UDP source port */
	uint32_t flow_label; /* a GRH flow label giving sport (0: none does) */
};

/*
 * SUN-3: a per-QP plan. QP i has source port first_port + i (all distinct,
 * so QPs of one member hash apart in a fabric that hashes on the source
 * port); member k holds per_member[k] = fare_dp_quota(weights, qps) QPs,
 * interleaved in the order fare_dp_place() gives (QPs opened one by one
 * follow the weights at every step). Re-ports (below) take fresh ports from
 * next_port on.
 */
struct fare_dp_qp_plan {
	size_t members;
	uint32_t weights[FARE_DP_MEMBERS_MAX];	  /* what the plan follows */
	uint32_t per_member[FARE_DP_MEMBERS_MAX]; /* QPs on each member now */
	uint32_t qps;
	uint16_t first_port;
	uint32_t next_port; /* first port not yet handed out (<= 65536) */
	struct fare_dp_qp qp[FARE_DP_QPS_MAX];
};

/*
 * The plan for `qps` QPs over n members with weights[] (0: the smallest
 * number that follows the weights exactly, fare_dp_plan(): at least one
 * per usable member and a whole turn of the weights' slot map). Returns
 * the number of QPs planned; 0 when every weight is 0, n >
 * FARE_DP_MEMBERS_MAX, qps > FARE_DP_QPS_MAX or the ports would pass 65535
 * (plan->qps 0 then).
 */
uint32_t fare_dp_qp_plan(const uint32_t *weights, size_t n, uint32_t qps, uint16_t first_port,
			 struct fare_dp_qp_plan *plan);

enum fare_dp_qp_action {
	/* open the QP again on the new member's RDMA device (same port) */
	FARE_DP_QP_MOVE,
	/*
	 * the new member has the same RDMA device and port as the old one
	 * (next hops that differ only in the gateway): the NIC cannot choose
	 * between them, so the QP stays and takes a fresh source port, the
	 * one header field the sender controls (mlx5dv_modify_qp_udp_sport()
	 * on a live QP where the provider has it, otherwise re-created)
	 */
	FARE_DP_QP_REPORT,
};

struct fare_dp_qp_move {
	uint32_t qp;	     /* index in the plan */
	uint8_t from, to;    /* members */
	uint16_t sport;	     /* the QP's source port after the move */
	uint32_t flow_label; /* fare_dp_sport_flow_label(sport) */
	enum fare_dp_qp_action action;
};

/*
 * SUN-4: follow new weights (same member indexes; n may grow, new members
 * start with no QP; a member that left has weight 0) with the fewest QP
 * moves: fare_dp_rebalance(plan->weights, weights, plan->per_member,
 * recover) gives each member's new count; a member above it releases its
 * most recently planned QPs (highest index first), and the released QPs,
 * lowest index first, go one at a time to the member with the largest
 * deficit left (ties to the lower index). QPs of members whose weight did
 * not fall never move (with FARE_DP_RECOVER_NEXT_BURST, or when no weight
 * rose). path[k] names member k's RDMA device and port (any id; equal ids:
 * the same device and port) and decides MOVE or REPORT; NULL: all MOVE.
 * A re-ported QP takes next_port (none left: it keeps its port).
 *
 * Updates the plan (weights, per_member, members, qp[].member and ports)
 * and writes the moves in moves[] (room for plan->qps). Returns their
 * number; 0 when every new weight is 0 (nothing moves: the QPs have no
 * path to go to) or n > FARE_DP_MEMBERS_MAX or n < plan->members.
 */
uint32_t fare_dp_qp_replan(struct fare_dp_qp_plan *plan, const uint32_t *weights, size_t n,
			   const uint32_t *path, enum fare_dp_recover recover,
			   struct fare_dp_qp_move *moves);

#endif /* FARE_DP_QP_H */
