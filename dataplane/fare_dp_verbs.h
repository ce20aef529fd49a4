// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp-verbs: the verbs side of a QP plan (fare_dp_app.h) for RDMA
 * NICs (SUN-3, SUN-4), on rdma-core's libibverbs. Link with
 * -lfaredp-verbs -lfaredp -libverbs [-lmlx5] -lmnl.
 *
 * Not run on an RDMA NIC: this machine's kernel has no RDMA support; it
 * is built and its plan inputs are unit-tested.
 */
#ifndef FARE_DP_VERBS_H
#define FARE_DP_VERBS_H

#include <infiniband/verbs.h>

#include "fare_dp_app.h"

/* The verbs context of RDMA device `dev` (the plan's member[k].rdma.dev) */
struct ibv_context *fare_dp_verbs_open(const char *dev);

/*
 * An RC QP for QP `i` of the plan, on pd (of the member's device) with cq
 * for both queues, moved to INIT on the member's port. The caller connects
 * it (RTR with fare_dp_verbs_ah_attr(), then RTS). NULL with errno set.
 */
struct ibv_qp *fare_dp_verbs_create_qp(const struct fare_dp_app_rdma_plan *plan, uint32_t i,
				       struct ibv_pd *pd, struct ibv_cq *cq);

/*
 * The address vector of QP `i` towards `dgid`: the member's port and GID
 * index, and the GRH flow label of the QP's source port (providers that
 * derive the RoCEv2 source port from the flow label, as rdma-core's
 * ibv_flow_label_to_udp_sport() does, then send with that port).
 */
void fare_dp_verbs_ah_attr(const struct fare_dp_app_rdma_plan *plan, uint32_t i,
			   const union ibv_gid *dgid, struct ibv_ah_attr *ah);

/*
 * A re-port (FARE_DP_QP_REPORT) on a live QP in RTS: mlx5's
 * mlx5dv_modify_qp_udp_sport() when libfaredp-verbs was built with it
 * (fare_dp_verbs_can_set_sport()) and the QP is on an mlx5 device. Returns
 * 0, or an errno value: EOPNOTSUPP when no such call is there (re-create
 * the QP with the move's flow label instead).
 */
int fare_dp_verbs_set_sport(struct ibv_qp *qp, uint16_t sport);
bool fare_dp_verbs_can_set_sport(void);

#endif /* FARE_DP_VERBS_H */
