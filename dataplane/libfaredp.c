// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp (fare_dp_app.h): QP plans for RDMA applications, from the
 * kernel's nexthop group of a destination (SUN-3). Also what fare-dp's
 * "plan" uses when fare-dpd is not running.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/rtnetlink.h>

#include "fare_dpd.h"
#include "fare_dp_app.h"

int dp_dest_from_kernel(const char *dest, struct dp_dest *out)
{
	/* the dump fills in the routes of the configuration's destinations */
	static struct dp_config cfg;
	struct dp_dest *d = &cfg.dests[0];
	struct dp_hop hops[DP_HOPS_MAX];
	struct dp_nl *nl;
	uint32_t group;
	int n, k = 0;

	memset(&cfg, 0, sizeof(cfg));
	memset(out, 0, sizeof(*out));
	cfg.mark_base = DP_DEFAULT_MARK_BASE;
	cfg.table_base = DP_DEFAULT_TABLE_BASE;
	cfg.ndests = 1;
	if (!dp_prefix_parse(dest, &d->family, d->addr, &d->plen)) {
		errno = EINVAL;
		return -1;
	}
	dp_prefix_format(d->family, d->addr, d->plen, d->name, sizeof(d->name));
	d->mode = DP_PER_FLOW;
	nl = dp_nl_open(false);
	if (!nl || dp_nl_dump(nl, &cfg, false, NULL, NULL) < 0) {
		dp_nl_close(nl);
		errno = EIO;
		return -1;
	}
	n = dp_nl_resolve(nl, d, hops, DP_HOPS_MAX, &group);
	dp_nl_close(nl);
	if (n < 0) {
		*out = *d;
		errno = ENOENT;
		return -1;
	}
	d->group = group;
	for (int i = 0; i < n && k < FARE_DP_MEMBERS_MAX; i++) {
		struct dp_member *m;
		int j;

		if (!hops[i].weight)
			continue;
		/* a member is (device, gateway): merge repeated ones */
		for (j = 0; j < k; j++)
			if (d->members[j].ifindex == hops[i].ifindex &&
			    dp_gw_equal(&d->members[j].gw, &hops[i].gw))
				break;
		m = &d->members[j];
		if (j == k) {
			k++;
			m->used = m->in_group = true;
			m->ifindex = hops[i].ifindex;
			m->gw = hops[i].gw;
		}
		m->weight += hops[i].weight;
	}
	*out = *d;
	return k;
}

int fare_dp_app_members(const char *dest, struct fare_dp_app_member *members, size_t max)
{
	static struct dp_dest d;
	int n = dp_dest_from_kernel(dest, &d);

	if (n < 0)
		return -1;
	if ((size_t)n > max)
		n = (int)max;
	for (int k = 0; k < n; k++) {
		dp_ifname(d.members[k].ifindex, members[k].ifname, sizeof(members[k].ifname));
		dp_gw_format(&d.members[k].gw, members[k].gateway, sizeof(members[k].gateway));
		members[k].weight = d.members[k].weight;
	}
	return n;
}

int fare_dp_app_plan(const char *dest, uint32_t qps, uint16_t first_port,
		     struct fare_dp_app_plan *plan)
{
	uint32_t w[FARE_DP_MEMBERS_MAX];
	struct fare_dp_plan p;
	int n;

	memset(plan, 0, sizeof(*plan));
	n = fare_dp_app_members(dest, plan->member, FARE_DP_MEMBERS_MAX);
	if (n < 0)
		return -1;
	for (int k = 0; k < n; k++)
		w[k] = plan->member[k].weight;
	fare_dp_plan(w, (size_t)n, qps, first_port, &p);
	if (!p.qps || p.qps > FARE_DP_APP_QPS_MAX) {
		errno = ERANGE;
		return -1;
	}
	plan->qps = p.qps;
	plan->first_port = p.first_port;
	plan->members = (size_t)n;
	memcpy(plan->per_member, p.per_member, sizeof(plan->per_member));
	fare_dp_plan_members(w, (size_t)n, &p, plan->qp_member);
	return 0;
}

/* RDMA NICs (SUN-3, SUN-4): the kernel's members, then dp_rdma.c */

static int dest_family(const char *dest)
{
	return strchr(dest, ':') ? AF_INET6 : AF_INET;
}

int fare_dp_app_rdma_plan(const char *dest, uint32_t qps, uint16_t first_port,
			  const char *sysfs_root, struct fare_dp_app_rdma_plan *plan)
{
	static struct fare_dp_app_member m[FARE_DP_MEMBERS_MAX];
	int n = fare_dp_app_members(dest, m, FARE_DP_MEMBERS_MAX);

	if (n < 0) {
		memset(plan, 0, sizeof(*plan));
		return -1;
	}
	if (fare_dp_app_rdma_plan_members(m, (size_t)n, dest_family(dest), qps, first_port,
					  sysfs_root, plan) < 0)
		return -1;
	snprintf(plan->dest, sizeof(plan->dest), "%s", dest);
	return 0;
}

int fare_dp_app_rdma_replan(struct fare_dp_app_rdma_plan *plan, enum fare_dp_recover recover,
			    struct fare_dp_qp_move *moves)
{
	static struct fare_dp_app_member m[FARE_DP_MEMBERS_MAX];
	int n = fare_dp_app_members(plan->dest, m, FARE_DP_MEMBERS_MAX);

	if (n < 0)
		return -1;
	return fare_dp_app_rdma_replan_members(plan, m, (size_t)n, recover, moves);
}

struct fare_dp_app_watch {
	struct mnl_socket *nl;
	char buf[8192]; /* MNL_SOCKET_BUFFER_SIZE at most */
};

struct fare_dp_app_watch *fare_dp_app_watch_open(void)
{
	static const unsigned int groups[] = { RTNLGRP_NEXTHOP, RTNLGRP_IPV4_ROUTE,
					       RTNLGRP_IPV6_ROUTE };
	struct fare_dp_app_watch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!w->nl || mnl_socket_bind(w->nl, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int g = (int)groups[i];

		if (mnl_socket_setsockopt(w->nl, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
			goto fail;
	}
	return w;
fail:
	fare_dp_app_watch_close(w);
	return NULL;
}

int fare_dp_app_watch_fd(const struct fare_dp_app_watch *w)
{
	return mnl_socket_get_fd(w->nl);
}

int fare_dp_app_watch_read(struct fare_dp_app_watch *w)
{
	int changed = 0;

	for (;;) {
		ssize_t len = mnl_socket_recvfrom(w->nl, w->buf, sizeof(w->buf));
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)w->buf;

		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return changed;
			return -1; /* ENOBUFS: lost some, the caller replans */
		}
		for (; mnl_nlmsg_ok(nlh, (int)len); nlh = mnl_nlmsg_next(nlh, (int *)&len))
			switch (nlh->nlmsg_type) {
			case RTM_NEWNEXTHOP:
			case RTM_DELNEXTHOP:
			case RTM_NEWROUTE:
			case RTM_DELROUTE:
				changed = 1;
				break;
			default:
				break;
			}
	}
}

void fare_dp_app_watch_close(struct fare_dp_app_watch *w)
{
	if (!w)
		return;
	if (w->nl)
		mnl_socket_close(w->nl);
	free(w);
}
