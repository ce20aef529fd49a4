// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp-verbs (fare_dp_verbs.h): QPs of a plan on rdma-core's
 * libibverbs, and re-ports through mlx5dv where it is there (SUN-3,
 * SUN-4). Built only when configure finds libibverbs.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>
#ifdef HAVE_MLX5DV_MODIFY_QP_UDP_SPORT
#include <infiniband/mlx5dv.h>
#endif

#include "fare_dp_verbs.h"

struct ibv_context *fare_dp_verbs_open(const char *dev)
{
	struct ibv_device **list;
	struct ibv_context *ctx = NULL;
	bool found = false;
	int n, err;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL; /* errno: ENOSYS without RDMA in the kernel */
	for (int i = 0; i < n && !found; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev)) {
			found = true;
			ctx = ibv_open_device(list[i]);
		}
	err = found ? errno : ENODEV;
	ibv_free_device_list(list);
	if (!ctx)
		errno = err;
	return ctx;
}

struct ibv_qp *fare_dp_verbs_create_qp(const struct fare_dp_app_rdma_plan *plan, uint32_t i,
				       struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr attr = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE,
	};
	struct ibv_qp *qp;
	int err;

	if (i >= plan->qp.qps) {
		errno = EINVAL;
		return NULL;
	}
	attr.port_num = plan->member[plan->qp.qp[i].member].rdma.port;
	qp = ibv_create_qp(pd, &init);
	if (!qp)
		return NULL;
	err = ibv_modify_qp(qp, &attr,
			    IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err) {
		ibv_destroy_qp(qp);
		errno = err;
		return NULL;
	}
	return qp;
}

void fare_dp_verbs_ah_attr(const struct fare_dp_app_rdma_plan *plan, uint32_t i,
			   const union ibv_gid *dgid, struct ibv_ah_attr *ah)
{
	const struct fare_dp_qp *q = &plan->qp.qp[i];
	const struct fare_dp_rdma_port *r = &plan->member[q->member].rdma;

	memset(ah, 0, sizeof(*ah));
	ah->is_global = 1;
	ah->port_num = r->port;
	ah->grh.dgid = *dgid;
	ah->grh.sgid_index = (uint8_t)r->gid_index;
	ah->grh.hop_limit = 64;
	ah->grh.flow_label = q->flow_label;
}

bool fare_dp_verbs_can_set_sport(void)
{
#ifdef HAVE_MLX5DV_MODIFY_QP_UDP_SPORT
	return true;
#else
	return false;
#endif
}

int fare_dp_verbs_set_sport(struct ibv_qp *qp, uint16_t sport)
{
#ifdef HAVE_MLX5DV_MODIFY_QP_UDP_SPORT
	if (!mlx5dv_is_supported(qp->context->device))
		return EOPNOTSUPP;
	return mlx5dv_modify_qp_udp_sport(qp, sport);
#else
	(void)qp;
	(void)sport;
	return EOPNOTSUPP;
#endif
}
