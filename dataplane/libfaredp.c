// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libfaredp (fare_dp_app.h): QP plans for RDMA applications, from the
 * kernel's nexthop group of a destination (SUN-3). Also what fare-dp's
 * "plan" uses when fare-dpd is not running.
 */
#include <errno.h>
#include <string.h>

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
