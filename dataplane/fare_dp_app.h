// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp: for applications on a GPU server (SUN-3, SUN-4), from the
 * weights FARE installed in the kernel's nexthop group. Link with
 * -lfaredp -lmnl.
 *
 * What steers the traffic depends on who sends it:
 *
 * - Traffic the kernel sends (UDP or TCP sockets, Soft-RoCE): fare-dpd
 *   (per-flow mode) places each new flow in the order flows start.
 *   fare_dp_app_plan() says how many flows to open and with which UDP
 *   source ports; open them in port order and flow i lands on member
 *   plan.qp_member[i]:
 *
 *     struct fare_dp_app_plan plan;
 *
 *     if (fare_dp_app_plan("10.0.4.1/32", 0, 49152, &plan) == 0)
 *             for (uint32_t i = 0; i < plan.qps; i++)
 *                     open_flow(plan.first_port + i);
 *
 * - Queue pairs (QPs) of a hardware RDMA NIC: the NIC sends without the
 *   kernel after QP setup, so fare-dpd never sees those packets (nor does
 *   it reach switch ASICs). The application applies the weights itself,
 *   per QP: fare_dp_app_rdma_plan() below gives the RDMA device, port and
 *   GID index to open each QP on and its RoCEv2 source port, and
 *   fare_dp_app_rdma_replan() the QPs to move when the weights change.
 */
#ifndef FARE_DP_APP_H
#define FARE_DP_APP_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>

#include "fare_dp.h"
#include "fare_dp_qp.h"

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

/*
 * RDMA NICs (SUN-3, SUN-4): the application applies the weights itself,
 * per queue pair. fare-dpd cannot: a hardware RoCE NIC sends a QP's
 * packets without the kernel once the QP is set up.
 *
 *   struct fare_dp_app_rdma_plan *p = calloc(1, sizeof(*p));
 *
 *   fare_dp_app_rdma_plan("10.0.4.1", 16, 0xC000, NULL, p);
 *   for (uint32_t i = 0; i < p->qp.qps; i++) {
 *           const struct fare_dp_app_rdma_member *m = &p->member[p->qp.qp[i].member];
 *           // open QP i on m->rdma.dev, port m->rdma.port, sgid_index
 *           // m->rdma.gid_index, GRH flow label p->qp.qp[i].flow_label
 *           // (or set source port p->qp.qp[i].sport)
 *   }
 *   // poll fare_dp_app_watch_fd(w); on input, fare_dp_app_watch_read(w)
 *   // then fare_dp_app_rdma_replan(p, FARE_DP_RECOVER_AT_ONCE, moves)
 *
 * Nothing here was run on an RDMA NIC: the sysfs mapping is tested on a
 * fake sysfs tree, the plans and moves by unit tests (tests/unit/test_dp_qp.c).
 */

/* The RDMA device, port and RoCE v2 GID of a netdev */
struct fare_dp_rdma_port {
	char dev[64];  /* "" when no RDMA device has a RoCE v2 GID on it */
	uint8_t port;  /* from 1 */
	int gid_index; /* the sgid_index of the QP's address vector */
	char gid[40];  /* as sysfs shows it */
};

/*
 * Map netdev `ifname` to an RDMA device, port and RoCE v2 GID through
 * sysfs under `sysfs_root` (NULL: "/sys"): the GID table entries whose
 * <root>/class/infiniband/DEV/ports/N/gid_attrs/ndevs/IDX names ifname and
 * gid_attrs/types/IDX is "RoCE v2"; the device of
 * <root>/class/net/IFNAME/device/infiniband/ (a NIC's own netdev) is
 * searched first, then every device in name order (Soft-RoCE has no such
 * link). For AF_INET the IPv4-mapped GID (::ffff:a.b.c.d), for AF_INET6 a
 * GID that is not IPv4-mapped, global before link-local (fe80::); the
 * lowest index among equals. Returns 0, or -1 with errno ENOENT (no such
 * GID: dev "", gid_index -1).
 */
int fare_dp_rdma_port_of(const char *sysfs_root, const char *ifname, int family,
			 struct fare_dp_rdma_port *out);

struct fare_dp_app_rdma_member {
	char ifname[IF_NAMESIZE];
	char gateway[INET6_ADDRSTRLEN];
	uint32_t weight;	       /* in the kernel's group */
	struct fare_dp_rdma_port rdma; /* dev "": not usable for QPs */
};

struct fare_dp_app_rdma_plan {
	char dest[INET6_ADDRSTRLEN + 4];
	int family;
	char sysfs_root[128]; /* "" : /sys */
	/* qp.members entries; qp.weights[k] is member k's weight, or 0 when
	 * it has no RoCE v2 device */
	struct fare_dp_app_rdma_member member[FARE_DP_MEMBERS_MAX];
	struct fare_dp_qp_plan qp;
};

/*
 * The per-QP plan for `dest` (an address or the exact prefix of a main
 * table route): the kernel group's members mapped to RDMA devices
 * (fare_dp_rdma_port_of()), then fare_dp_qp_plan() over the weights of the
 * members that have one (`qps` 0: the minimum; ports from first_port,
 * 0xC000 or above so that a flow label can give them). Returns 0, or -1
 * with errno set (ENOENT: no route, or no member with an RDMA device;
 * ERANGE: qps > FARE_DP_QPS_MAX or ports past 65535).
 */
int fare_dp_app_rdma_plan(const char *dest, uint32_t qps, uint16_t first_port,
			  const char *sysfs_root, struct fare_dp_app_rdma_plan *plan);

/*
 * The same from members already read (fare_dp_app_members()), for
 * `family` (AF_INET or AF_INET6).
 */
int fare_dp_app_rdma_plan_members(const struct fare_dp_app_member *members, size_t n, int family,
				  uint32_t qps, uint16_t first_port, const char *sysfs_root,
				  struct fare_dp_app_rdma_plan *plan);

/*
 * SUN-4: follow the kernel's current group for plan->dest with the fewest
 * QP moves (fare_dp_qp_replan()); moves[] has room for FARE_DP_QPS_MAX.
 * Members keep their index by (device, gateway); a member that left gets
 * weight 0, a new one is appended. Returns the number of moves (0: none
 * needed), or -1 with errno set (ENOENT: the route is gone; the plan is
 * unchanged).
 */
int fare_dp_app_rdma_replan(struct fare_dp_app_rdma_plan *plan, enum fare_dp_recover recover,
			    struct fare_dp_qp_move *moves);

/* The same from members already read */
int fare_dp_app_rdma_replan_members(struct fare_dp_app_rdma_plan *plan,
				    const struct fare_dp_app_member *members, size_t n,
				    enum fare_dp_recover recover, struct fare_dp_qp_move *moves);

/*
 * Weight changes: a netlink socket on the kernel's nexthop and route
 * notifications (RTNLGRP_NEXTHOP, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE).
 * Poll fare_dp_app_watch_fd() for input; fare_dp_app_watch_read() drains
 * it and returns 1 when a nexthop or route changed (then call
 * fare_dp_app_rdma_replan()), 0 when nothing did, -1 on error (errno;
 * ENOBUFS: notifications were lost, replan anyway).
 */
struct fare_dp_app_watch;

struct fare_dp_app_watch *fare_dp_app_watch_open(void);
int fare_dp_app_watch_fd(const struct fare_dp_app_watch *w);
int fare_dp_app_watch_read(struct fare_dp_app_watch *w);
void fare_dp_app_watch_close(struct fare_dp_app_watch *w);

#endif /* FARE_DP_APP_H */
