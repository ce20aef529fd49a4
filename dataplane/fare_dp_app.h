// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp: for RDMA applications on a GPU server (SUN-3). How many queue
 * pairs (QPs) to open towards a destination GPU, and which UDP source
 * ports, from the weights FARE installed in the kernel's nexthop group.
 *
 *   struct fare_dp_app_plan plan;
 *
 *   if (fare_dp_app_plan("10.0.4.1/32", 0, 49152, &plan) == 0)
 *           for (uint32_t i = 0; i < plan.qps; i++)
 *                   open_qp(plan.first_port + i);  // QP i, member plan.qp_member[i]
 *
 * Link with -lfaredp -lmnl. The QPs are placed by fare-dpd (per-flow mode)
 * in the order they start: open them in port order.
 */
#ifndef FARE_DP_APP_H
#define FARE_DP_APP_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>

#include "fare_dp.h"

#define FARE_DP_APP_QPS_MAX 1024

struct fare_dp_app_member {
	char ifname[IF_NAMESIZE];
	char gateway[INET6_ADDRSTRLEN]; /* "" for a device route */
	uint32_t weight;		/* in the kernel's group */
};

struct fare_dp_app_plan {
	uint32_t qps;	     /* QPs to open: >= members, whole turns of the slot map */
	uint16_t first_port; /* QP i uses UDP source port first_port + i */
	size_t members;
	struct fare_dp_app_member member[FARE_DP_MEMBERS_MAX];
	uint32_t per_member[FARE_DP_MEMBERS_MAX]; /* QPs on each member */
	uint8_t qp_member[FARE_DP_APP_QPS_MAX];	  /* member of QP i (i < qps) */
};

/*
 * The members of the kernel route for `dest` (an address or the exact
 * prefix, main table) with their weights. Returns their number, or -1 with
 * errno set (ENOENT: no such route).
 */
int fare_dp_app_members(const char *dest, struct fare_dp_app_member *members, size_t max);

/*
 * The QP plan for `dest`: `qps` requested (0: the minimum), consecutive UDP
 * source ports from `first_port`. Returns 0, or -1 with errno set (ENOENT:
 * no route; ERANGE: the plan needs more than FARE_DP_APP_QPS_MAX QPs or
 * ports beyond 65535).
 */
int fare_dp_app_plan(const char *dest, uint32_t qps, uint16_t first_port,
		     struct fare_dp_app_plan *plan);

#endif /* FARE_DP_APP_H */
