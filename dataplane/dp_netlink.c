// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd: the kernel's routes and nexthop groups (dump, then events on
 * RTNLGRP_NEXTHOP, RTNLGRP_IPV4_ROUTE, RTNLGRP_IPV6_ROUTE, and
 * RTNLGRP_LINK for the devices going down) and the
 * per-member tables and fwmark rules, through libmnl.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <net/if.h>
#include <linux/fib_rules.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "fare_dpd.h"

#define NH_BUCKETS 4096
#define DP_NL_BUF  (64 * 1024)

/*
 * struct nexthop_grp as Linux 6.12+ has it: resvd1 became weight_high, and
 * the weight is ((weight_high << 8) | weight) + 1. Older kernels leave
 * that byte 0, so the same formula reads both.
 */
struct dp_nexthop_grp {
	uint32_t id;
	uint8_t weight;
	uint8_t weight_high;
	uint16_t resvd2;
};

struct dp_grp_entry {
	uint32_t id;
	uint32_t weight;
};

struct dp_nh {
	struct dp_nh *next;
	uint32_t id;
	bool group;
	bool blackhole;
	uint8_t flags;
	int oif;
	struct dp_gw gw;
	size_t ngrp;
	struct dp_grp_entry *grp;
};

/* a route or rule a previous instance left behind */
struct dp_leftover {
	bool rule;
	uint8_t family;
	uint8_t plen;
	uint8_t dst[16];
	uint32_t table;
	uint32_t prio, mark, mask;
	struct dp_hop hop; /* a route's (first) next hop */
};

struct dp_nl {
	struct mnl_socket *req; /* requests: dumps, routes, rules */
	struct mnl_socket *ev;	/* events */
	uint32_t seq;
	uint32_t portid;
	char *buf;
	struct dp_nh *nh[NH_BUCKETS];

	unsigned fail_dumps; /* test option: dumps to fail */

	/* while parsing */
	struct dp_config *cfg;
	bool dumping, cleanup;
	bool changed, resync;
	struct dp_leftover *left;
	size_t nleft, capleft;
};

struct attr_tab {
	const struct nlattr **tb;
	int max;
};

static int attr_cb(const struct nlattr *attr, void *data)
{
	struct attr_tab *t = data;
	int type = mnl_attr_get_type(attr);

	/* newer kernels send attributes this build does not know: skip them */
	if (type <= t->max)
		t->tb[type] = attr;
	return MNL_CB_OK;
}

static bool attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (!a || mnl_attr_get_payload_len(a) < sizeof(uint32_t))
		return false;
	*v = mnl_attr_get_u32(a);
	return true;
}

/* RTA_GATEWAY / NHA_GATEWAY: the address family from the length */
static void attr_gw(const struct nlattr *a, struct dp_gw *gw)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	memset(gw, 0, sizeof(*gw));
	if (len == 4) {
		gw->family = AF_INET;
		memcpy(gw->addr, mnl_attr_get_payload(a), 4);
	} else if (len == 16) {
		gw->family = AF_INET6;
		memcpy(gw->addr, mnl_attr_get_payload(a), 16);
	}
}

/* RTA_VIA: struct rtvia, an IPv6 gateway of an IPv4 route (RFC 5549) */
static void attr_via(const struct nlattr *a, struct dp_gw *gw)
{
	const struct rtvia *via = mnl_attr_get_payload(a);
	uint16_t len = mnl_attr_get_payload_len(a);

	memset(gw, 0, sizeof(*gw));
	if (len < sizeof(*via))
		return;
	len -= sizeof(*via);
	if (via->rtvia_family == AF_INET6 && len >= 16) {
		gw->family = AF_INET6;
		memcpy(gw->addr, via->rtvia_addr, 16);
	} else if (via->rtvia_family == AF_INET && len >= 4) {
		gw->family = AF_INET;
		memcpy(gw->addr, via->rtvia_addr, 4);
	}
}

/* ---- nexthop cache ---- */

static struct dp_nh **nh_slot(struct dp_nl *nl, uint32_t id)
{
	struct dp_nh **p = &nl->nh[id % NH_BUCKETS];

	while (*p && (*p)->id != id)
		p = &(*p)->next;
	return p;
}

static const struct dp_nh *nh_find(const struct dp_nl *nl, uint32_t id)
{
	const struct dp_nh *nh = nl->nh[id % NH_BUCKETS];

	while (nh && nh->id != id)
		nh = nh->next;
	return nh;
}

static void nh_free(struct dp_nh *nh)
{
	free(nh->grp);
	free(nh);
}

static void nh_free_all(struct dp_nh **buckets)
{
	for (size_t i = 0; i < NH_BUCKETS; i++) {
		while (buckets[i]) {
			struct dp_nh *nh = buckets[i];

			buckets[i] = nh->next;
			nh_free(nh);
		}
	}
}

static void nh_flush(struct dp_nl *nl)
{
	nh_free_all(nl->nh);
}

static void nh_msg(struct dp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct nhmsg *nhm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[NHA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, NHA_MAX };
	struct dp_nh **slot, *nh;
	uint32_t id, oif;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*nhm)))
		return;
	mnl_attr_parse(nlh, sizeof(*nhm), attr_cb, &t);
	if (!attr_u32(tb[NHA_ID], &id))
		return;
	nl->changed = true;
	slot = nh_slot(nl, id);
	if (*slot) {
		nh = *slot;
		*slot = nh->next;
		nh_free(nh);
	}
	if (nlh->nlmsg_type == RTM_DELNEXTHOP) {
		/* the kernel removed the member table routes through it */
		for (size_t i = 0; nl->cfg && i < nl->cfg->ndests; i++)
			for (size_t k = 0; k < FARE_DP_MEMBERS_MAX; k++)
				if (nl->cfg->dests[i].members[k].used &&
				    nl->cfg->dests[i].members[k].nhid == id)
					nl->cfg->dests[i].members[k].stale = true;
		return;
	}

	nh = calloc(1, sizeof(*nh));
	if (!nh) {
		nl->resync = true;
		return;
	}
	nh->id = id;
	nh->flags = nhm->nh_flags & RTNH_F_ONLINK;
	nh->blackhole = tb[NHA_BLACKHOLE] != NULL;
	if (attr_u32(tb[NHA_OIF], &oif))
		nh->oif = (int)oif;
	if (tb[NHA_GATEWAY])
		attr_gw(tb[NHA_GATEWAY], &nh->gw);
	if (tb[NHA_GROUP]) {
		const struct dp_nexthop_grp *g = mnl_attr_get_payload(tb[NHA_GROUP]);
		size_t n = mnl_attr_get_payload_len(tb[NHA_GROUP]) / sizeof(*g);

		nh->group = true;
		nh->grp = calloc(n ? n : 1, sizeof(*nh->grp));
		if (!nh->grp) {
			free(nh);
			nl->resync = true;
			return;
		}
		for (size_t i = 0; i < n; i++) {
			nh->grp[i].id = g[i].id;
			nh->grp[i].weight = (uint32_t)g[i].weight + 1 +
					    ((uint32_t)g[i].weight_high << 8);
		}
		nh->ngrp = n;
	}
	nh->next = nl->nh[id % NH_BUCKETS];
	nl->nh[id % NH_BUCKETS] = nh;
	dp_dbg("nexthop %u: %s%zu entries, oif %d", id, nh->group ? "group, " : "", nh->ngrp,
	       nh->oif);
}

/* ---- routes ---- */

static void route_hops(struct dp_route *r, const struct rtmsg *rtm, const struct nlattr **tb)
{
	uint32_t v;

	r->nhops = 0;
	if (tb[RTA_MULTIPATH]) {
		const struct rtnexthop *rtnh = mnl_attr_get_payload(tb[RTA_MULTIPATH]);
		int len = mnl_attr_get_payload_len(tb[RTA_MULTIPATH]);

		while (len >= (int)sizeof(*rtnh) && rtnh->rtnh_len >= sizeof(*rtnh) &&
		       rtnh->rtnh_len <= len && r->nhops < FARE_DP_MEMBERS_MAX) {
			struct dp_hop *h = &r->hops[r->nhops++];
			const struct nlattr *ntb[RTA_MAX + 1] = { 0 };
			struct attr_tab t = { ntb, RTA_MAX };

			memset(h, 0, sizeof(*h));
			h->ifindex = rtnh->rtnh_ifindex;
			/* a dead hop (its device is down) stays, with weight 0 */
			h->weight = rtnh->rtnh_flags & RTNH_F_DEAD ? 0
								   : (uint32_t)rtnh->rtnh_hops + 1;
			h->flags = rtnh->rtnh_flags & RTNH_F_ONLINK;
			mnl_attr_parse_payload(RTNH_DATA(rtnh), rtnh->rtnh_len - RTNH_LENGTH(0),
					       attr_cb, &t);
			if (ntb[RTA_GATEWAY])
				attr_gw(ntb[RTA_GATEWAY], &h->gw);
			else if (ntb[RTA_VIA])
				attr_via(ntb[RTA_VIA], &h->gw);
			len -= RTNH_ALIGN(rtnh->rtnh_len);
			rtnh = RTNH_NEXT(rtnh);
		}
		return;
	}
	if (tb[RTA_OIF] || tb[RTA_GATEWAY] || tb[RTA_VIA]) {
		struct dp_hop *h = &r->hops[r->nhops++];

		memset(h, 0, sizeof(*h));
		if (attr_u32(tb[RTA_OIF], &v))
			h->ifindex = (int)v;
		h->weight = rtm->rtm_flags & RTNH_F_DEAD ? 0 : 1;
		if (tb[RTA_GATEWAY])
			attr_gw(tb[RTA_GATEWAY], &h->gw);
		else if (tb[RTA_VIA])
			attr_via(tb[RTA_VIA], &h->gw);
	}
}

static void leftover_add(struct dp_nl *nl, const struct dp_leftover *l)
{
	if (nl->nleft == nl->capleft) {
		size_t cap = nl->capleft ? nl->capleft * 2 : 16;
		struct dp_leftover *p = realloc(nl->left, cap * sizeof(*p));

		if (!p)
			return;
		nl->left = p;
		nl->capleft = cap;
	}
	nl->left[nl->nleft++] = *l;
}

static void route_msg(struct dp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[RTA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, RTA_MAX };
	uint32_t table, metric = 0, nhid = 0;
	uint8_t dst[16] = { 0 };
	size_t alen;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*rtm)))
		return;
	if (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6)
		return;
	mnl_attr_parse(nlh, sizeof(*rtm), attr_cb, &t);
	if (!attr_u32(tb[RTA_TABLE], &table))
		table = rtm->rtm_table;
	alen = rtm->rtm_family == AF_INET ? 4 : 16;
	if (tb[RTA_DST]) {
		if (mnl_attr_get_payload_len(tb[RTA_DST]) < alen)
			return;
		memcpy(dst, mnl_attr_get_payload(tb[RTA_DST]), alen);
	}

	if (table != RT_TABLE_MAIN) {
		if (nl->dumping && nl->cleanup && rtm->rtm_protocol == DP_RTPROT &&
		    nlh->nlmsg_type == RTM_NEWROUTE) {
			struct dp_leftover l = { .family = rtm->rtm_family,
						 .plen = rtm->rtm_dst_len,
						 .table = table };
			struct dp_route r = { 0 };

			memcpy(l.dst, dst, alen);
			route_hops(&r, rtm, tb);
			if (r.nhops)
				l.hop = r.hops[0];
			attr_u32(tb[RTA_NH_ID], &l.hop.nhid);
			leftover_add(nl, &l);
		}
		return;
	}
	if (rtm->rtm_src_len || rtm->rtm_tos || !nl->cfg)
		return;
	attr_u32(tb[RTA_PRIORITY], &metric);
	attr_u32(tb[RTA_NH_ID], &nhid);

	for (size_t i = 0; i < nl->cfg->ndests; i++) {
		struct dp_dest *d = &nl->cfg->dests[i];
		struct dp_route *r = &d->route;

		if (d->family != rtm->rtm_family || d->plen != rtm->rtm_dst_len ||
		    memcmp(d->addr, dst, alen))
			continue;
		nl->changed = true;
		if (nlh->nlmsg_type == RTM_DELROUTE) {
			if (r->present && r->metric == metric) {
				r->present = false;
				/* another route of the prefix may remain */
				nl->resync = true;
			}
			dp_dbg("%s: route deleted (metric %u)", d->name, metric);
			continue;
		}
		if (r->present && metric > r->metric)
			continue;
		/* IPv6 "route append" notifies the added hop only: read it all again */
		if (r->present && metric == r->metric && (nlh->nlmsg_flags & NLM_F_APPEND) &&
		    !nl->dumping)
			nl->resync = true;
		r->present = true;
		r->metric = metric;
		r->nhid = nhid;
		r->type = rtm->rtm_type;
		route_hops(r, rtm, tb);
		dp_dbg("%s: route, nhid %u, %zu hops, metric %u", d->name, nhid, r->nhops, metric);
	}
}

static void rule_msg(struct dp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct fib_rule_hdr *frh = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *tb[FRA_MAX + 1] = { 0 };
	struct attr_tab t = { tb, FRA_MAX };
	struct dp_leftover l = { .rule = true };

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*frh)) || !nl->cleanup)
		return;
	mnl_attr_parse(nlh, sizeof(*frh), attr_cb, &t);
	if (!tb[FRA_PROTOCOL] || mnl_attr_get_u8(tb[FRA_PROTOCOL]) != DP_RTPROT)
		return;
	l.family = frh->family;
	attr_u32(tb[FRA_PRIORITY], &l.prio);
	attr_u32(tb[FRA_FWMARK], &l.mark);
	attr_u32(tb[FRA_FWMASK], &l.mask);
	if (!attr_u32(tb[FRA_TABLE], &l.table))
		l.table = frh->table;
	leftover_add(nl, &l);
}

/* a device one of the nexthops or destinations uses */
static bool link_used(const struct dp_nl *nl, int ifindex)
{
	for (size_t i = 0; i < NH_BUCKETS; i++)
		for (const struct dp_nh *nh = nl->nh[i]; nh; nh = nh->next)
			if (nh->oif == ifindex)
				return true;
	for (size_t i = 0; nl->cfg && i < nl->cfg->ndests; i++) {
		const struct dp_dest *d = &nl->cfg->dests[i];

		for (size_t h = 0; h < d->route.nhops; h++)
			if (d->route.hops[h].ifindex == ifindex)
				return true;
	}
	return false;
}

/*
 * The kernel removes the nexthops (and routes) of a device that goes down
 * without a notification: a link event for a device in use means dumping
 * again.
 */
static void link_msg(struct dp_nl *nl, const struct nlmsghdr *nlh)
{
	const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
	bool up, used;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*ifi)))
		return;
	up = nlh->nlmsg_type == RTM_NEWLINK && (ifi->ifi_flags & IFF_UP) &&
	     (ifi->ifi_flags & IFF_RUNNING);
	used = link_used(nl, ifi->ifi_index);
	/* the kernel flushed (IPv4) or may have flushed the members' table routes */
	for (size_t i = 0; nl->cfg && i < nl->cfg->ndests; i++) {
		struct dp_dest *d = &nl->cfg->dests[i];

		for (size_t k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
			struct dp_member *m = &d->members[k];

			if (m->used && m->ifindex == ifi->ifi_index) {
				m->stale = true;
				used = true;
			}
		}
	}
	if (!used)
		return;
	dp_dbg("link %d %s: dumping again", ifi->ifi_index, up ? "up" : "down");
	nl->changed = nl->resync = true;
}

static int msg_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dp_nl *nl = data;

	switch (nlh->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		if (!nl->dumping)
			link_msg(nl, nlh);
		break;
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP:
		nh_msg(nl, nlh);
		break;
	case RTM_NEWROUTE:
	case RTM_DELROUTE:
		route_msg(nl, nlh);
		break;
	case RTM_NEWRULE:
		if (nl->dumping)
			rule_msg(nl, nlh);
		break;
	default:
		break;
	}
	return MNL_CB_OK;
}

/* ---- requests ---- */

static struct nlmsghdr *nl_msg(struct dp_nl *nl, char *buf, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/* Whether buf holds the end (NLMSG_DONE, NLMSG_ERROR) of request seq. */
static bool nl_has_end(const char *buf, ssize_t n, uint32_t seq)
{
	int len = (int)n;

	for (const struct nlmsghdr *h = (const void *)buf; mnl_nlmsg_ok(h, len);
	     h = mnl_nlmsg_next(h, &len))
		if (h->nlmsg_seq == seq &&
		    (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR))
			return true;
	return false;
}

/*
 * Send a request and read its replies (dump, or the ack): 0 or -errno.
 * An interrupted dump (NLM_F_DUMP_INTR: the table changed meanwhile)
 * returns -EINTR after reading the rest of it, so that the socket is
 * ready for the next request.
 */
static int nl_talk(struct dp_nl *nl, const struct nlmsghdr *nlh, mnl_cb_t cb)
{
	int ret;

	if (mnl_socket_sendto(nl->req, nlh, nlh->nlmsg_len) < 0)
		return -errno;
	do {
		ssize_t n = mnl_socket_recvfrom(nl->req, nl->buf, DP_NL_BUF);

		if (n < 0)
			return -errno;
		ret = mnl_cb_run(nl->buf, n, nlh->nlmsg_seq, nl->portid, cb, nl);
		if (ret < 0 && errno == EINTR) {
			while (!nl_has_end(nl->buf, n, nlh->nlmsg_seq)) {
				n = mnl_socket_recvfrom(nl->req, nl->buf, DP_NL_BUF);
				if (n < 0)
					break;
			}
			dp_log(4, "netlink: dump interrupted (NLM_F_DUMP_INTR)");
			if (nl->cfg)
				nl->cfg->rb.dumps_interrupted++;
			return -EINTR;
		}
	} while (ret > MNL_CB_STOP);
	return ret < 0 ? -errno : 0;
}

static int nl_dump(struct dp_nl *nl, uint16_t type, const void *hdr, size_t hlen)
{
	char buf[256] = { 0 };
	int ret = -EINTR;

	for (int tries = 0; tries < 5 && ret == -EINTR; tries++) {
		struct nlmsghdr *nlh = nl_msg(nl, buf, type, NLM_F_DUMP);

		memcpy(mnl_nlmsg_put_extra_header(nlh, hlen), hdr, hlen);
		ret = nl_talk(nl, nlh, msg_cb);
	}
	return ret;
}

static void put_addr(struct nlmsghdr *nlh, uint16_t type, int family, const uint8_t *a)
{
	mnl_attr_put(nlh, type, family == AF_INET ? 4 : 16, a);
}

static int route_req(struct dp_nl *nl, uint16_t type, uint16_t flags, int family,
		     const uint8_t *dst, uint8_t plen, uint32_t table, const struct dp_member *m)
{
	char buf[512] = { 0 };
	struct nlmsghdr *nlh = nl_msg(nl, buf, type, NLM_F_ACK | flags);
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));

	rtm->rtm_family = family;
	rtm->rtm_dst_len = plen;
	rtm->rtm_table = RT_TABLE_UNSPEC;
	rtm->rtm_protocol = DP_RTPROT;
	rtm->rtm_scope = RT_SCOPE_UNIVERSE;
	rtm->rtm_type = RTN_UNICAST;
	if (type == RTM_DELROUTE)
		rtm->rtm_scope = RT_SCOPE_NOWHERE;
	put_addr(nlh, RTA_DST, family, dst);
	mnl_attr_put_u32(nlh, RTA_TABLE, table);
	if (m && m->nhid) {
		/* through the member's nexthop object: the kernel removes the
		 * route with it (a crashed agent leaves no stale table) */
		mnl_attr_put_u32(nlh, RTA_NH_ID, m->nhid);
	} else if (m) {
		rtm->rtm_flags = m->flags;
		if (m->ifindex)
			mnl_attr_put_u32(nlh, RTA_OIF, (uint32_t)m->ifindex);
		if (!m->gw.family) {
			rtm->rtm_scope = RT_SCOPE_LINK;
		} else if (m->gw.family == family) {
			put_addr(nlh, RTA_GATEWAY, family, m->gw.addr);
		} else {
			/* RFC 5549: an IPv6 gateway of an IPv4 route (struct rtvia) */
			uint8_t via[offsetof(struct rtvia, rtvia_addr) + 16] = { 0 };
			__kernel_sa_family_t vfamily = m->gw.family;
			size_t alen = m->gw.family == AF_INET ? 4 : 16;

			memcpy(via, &vfamily, sizeof(vfamily));
			memcpy(via + offsetof(struct rtvia, rtvia_addr), m->gw.addr, alen);
			mnl_attr_put(nlh, RTA_VIA, offsetof(struct rtvia, rtvia_addr) + alen, via);
		}
	}
	return nl_talk(nl, nlh, NULL);
}

static int rule_req(struct dp_nl *nl, uint16_t type, uint16_t flags, int family, uint32_t prio,
		    uint32_t mark, uint32_t mask, uint32_t table)
{
	char buf[256] = { 0 };
	struct nlmsghdr *nlh = nl_msg(nl, buf, type, NLM_F_ACK | flags);
	struct fib_rule_hdr *frh = mnl_nlmsg_put_extra_header(nlh, sizeof(*frh));

	frh->family = family;
	frh->action = FR_ACT_TO_TBL;
	frh->table = RT_TABLE_UNSPEC;
	mnl_attr_put_u32(nlh, FRA_PRIORITY, prio);
	mnl_attr_put_u32(nlh, FRA_FWMARK, mark);
	mnl_attr_put_u32(nlh, FRA_FWMASK, mask);
	mnl_attr_put_u32(nlh, FRA_TABLE, table);
	if (type == RTM_NEWRULE)
		mnl_attr_put_u8(nlh, FRA_PROTOCOL, DP_RTPROT);
	return nl_talk(nl, nlh, NULL);
}

int dp_nl_member_add(struct dp_nl *nl, const struct dp_config *cfg, const struct dp_dest *d,
		     unsigned k)
{
	const struct dp_member *m = &d->members[k];
	uint32_t table = dp_table(cfg, d, k), mark = dp_mark(cfg, d, k);
	int ret;

	ret = route_req(nl, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_REPLACE, d->family, d->addr, d->plen,
			table, m);
	if (ret < 0) {
		char gw[64];

		dp_gw_format(&m->gw, gw, sizeof(gw));
		dp_log(3, "%s: member %u: route via %s in table %u: %s", d->name, k, gw, table,
		       strerror(-ret));
		return ret;
	}
	ret = rule_req(nl, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, d->family, cfg->rule_priority,
		       mark, cfg->mark_mask, table);
	if (ret < 0 && ret != -EEXIST) {
		dp_log(3, "%s: member %u: rule fwmark 0x%x/0x%x lookup %u: %s", d->name, k, mark,
		       cfg->mark_mask, table, strerror(-ret));
		return ret;
	}
	dp_dbg("%s: member %u: fwmark 0x%x lookup %u", d->name, k, mark, table);
	return 0;
}

int dp_nl_member_del(struct dp_nl *nl, const struct dp_config *cfg, const struct dp_dest *d,
		     unsigned k)
{
	uint32_t table = dp_table(cfg, d, k), mark = dp_mark(cfg, d, k);
	int r1, r2;

	r1 = rule_req(nl, RTM_DELRULE, 0, d->family, cfg->rule_priority, mark, cfg->mark_mask,
		      table);
	r2 = route_req(nl, RTM_DELROUTE, 0, d->family, d->addr, d->plen, table, NULL);
	if (r1 < 0 && r1 != -ENOENT)
		dp_log(4, "%s: member %u: deleting rule: %s", d->name, k, strerror(-r1));
	if (r2 < 0 && r2 != -ESRCH && r2 != -ENOENT)
		dp_log(4, "%s: member %u: deleting table %u: %s", d->name, k, table, strerror(-r2));
	dp_dbg("%s: member %u: rule and table %u removed", d->name, k, table);
	return r1 < 0 && r1 != -ENOENT ? r1 : 0;
}

/* ---- public ---- */

struct dp_nl *dp_nl_open(bool events)
{
	struct dp_nl *nl = calloc(1, sizeof(*nl));
	static const unsigned int groups[] = { RTNLGRP_NEXTHOP, RTNLGRP_IPV4_ROUTE,
					       RTNLGRP_IPV6_ROUTE, RTNLGRP_LINK };
	int rcvbuf = 8 * 1024 * 1024;

	if (!nl)
		return NULL;
	nl->buf = malloc(DP_NL_BUF);
	nl->req = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC);
	if (!nl->buf || !nl->req || mnl_socket_bind(nl->req, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	nl->portid = mnl_socket_get_portid(nl->req);
	nl->seq = (uint32_t)time(NULL);
	if (!events)
		return nl;

	nl->ev = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (!nl->ev || mnl_socket_bind(nl->ev, 0, MNL_SOCKET_AUTOPID) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		int g = (int)groups[i];

		if (mnl_socket_setsockopt(nl->ev, NETLINK_ADD_MEMBERSHIP, &g, sizeof(g)) < 0)
			goto fail;
	}
	if (setsockopt(mnl_socket_get_fd(nl->ev), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)) < 0)
		setsockopt(mnl_socket_get_fd(nl->ev), SOL_SOCKET, SO_RCVBUF, &rcvbuf,
			   sizeof(rcvbuf));
	return nl;
fail:
	dp_log(3, "netlink: %s", strerror(errno));
	dp_nl_close(nl);
	return NULL;
}

void dp_nl_close(struct dp_nl *nl)
{
	if (!nl)
		return;
	if (nl->req)
		mnl_socket_close(nl->req);
	if (nl->ev)
		mnl_socket_close(nl->ev);
	nh_flush(nl);
	free(nl->left);
	free(nl->buf);
	free(nl);
}

int dp_nl_fd(const struct dp_nl *nl)
{
	return nl->ev ? mnl_socket_get_fd(nl->ev) : -1;
}

void dp_nl_fail_dumps(struct dp_nl *nl, unsigned n)
{
	nl->fail_dumps += n;
}

/* Leftover l as member (d, k) of this config, or false: remove it. */
static bool leftover_member(const struct dp_config *cfg, const struct dp_leftover *l, size_t *d,
			    unsigned *k)
{
	const struct dp_dest *dest;
	uint32_t off;

	if (l->table < cfg->table_base)
		return false;
	off = l->table - cfg->table_base;
	if (off / DP_MEMBER_STRIDE >= cfg->ndests)
		return false;
	*d = off / DP_MEMBER_STRIDE;
	*k = off % DP_MEMBER_STRIDE;
	dest = &cfg->dests[*d];
	if (*k >= FARE_DP_MEMBERS_MAX || l->family != dest->family)
		return false;
	if (l->rule)
		return l->prio == cfg->rule_priority;
	return l->plen == dest->plen &&
	       !memcmp(l->dst, dest->addr, dest->family == AF_INET ? 4 : 16);
}

static struct dp_adopt *adopt_slot(struct dp_adopt **list, size_t *n, size_t d, unsigned k)
{
	struct dp_adopt *p;

	for (size_t i = 0; i < *n; i++)
		if ((*list)[i].d == d && (*list)[i].k == k)
			return &(*list)[i];
	p = realloc(*list, (*n + 1) * sizeof(*p));
	if (!p)
		return NULL;
	*list = p;
	p = &p[(*n)++];
	memset(p, 0, sizeof(*p));
	p->d = d;
	p->k = k;
	return p;
}

/*
 * The routes and rules a previous instance left: this config's members
 * into *adopted, the rest removed.
 */
static void leftovers(struct dp_nl *nl, const struct dp_config *cfg, struct dp_adopt **adopted,
		      size_t *nadopted)
{
	size_t routes = 0, rules = 0, failed = 0, kept = 0;

	for (size_t i = 0; i < nl->nleft; i++) {
		const struct dp_leftover *l = &nl->left[i];
		struct dp_adopt *a;
		size_t d;
		unsigned k;
		int r;

		if (adopted && leftover_member(cfg, l, &d, &k) &&
		    (a = adopt_slot(adopted, nadopted, d, k))) {
			kept++;
			if (l->rule) {
				a->rule = true;
				continue;
			}
			a->route = true;
			a->hop = l->hop;
			if (l->hop.nhid) {
				const struct dp_nh *nh = nh_find(nl, l->hop.nhid);

				if (nh && !nh->group) {
					a->hop.ifindex = nh->oif;
					a->hop.gw = nh->gw;
					a->hop.flags = nh->flags;
				}
			}
			continue;
		}
		if (l->rule)
			r = rule_req(nl, RTM_DELRULE, 0, l->family, l->prio, l->mark, l->mask,
				     l->table);
		else
			r = route_req(nl, RTM_DELROUTE, 0, l->family, l->dst, l->plen, l->table,
				      NULL);
		if (r < 0)
			failed++;
		else if (l->rule)
			rules++;
		else
			routes++;
	}
	if (kept)
		dp_log(6, "adopted %zu route(s) and rule(s) of a previous instance", kept);
	if (routes + rules + failed)
		dp_log(6, "removed %zu route(s) and %zu rule(s) left by a previous instance%s",
		       routes, rules, failed ? " (some could not be removed)" : "");
	nl->nleft = 0;
}

int dp_nl_dump(struct dp_nl *nl, struct dp_config *cfg, bool adopt, struct dp_adopt **adopted,
	       size_t *nadopted)
{
	struct nhmsg nhm = { .nh_family = AF_UNSPEC };
	struct rtmsg rtm = { .rtm_family = AF_UNSPEC };
	struct fib_rule_hdr frh = { .family = AF_UNSPEC };
	struct dp_route *saved = malloc(sizeof(*saved) * (cfg->ndests ? cfg->ndests : 1));
	int ret, nret;

	if (adopted) {
		*adopted = NULL;
		*nadopted = 0;
	}
	/* the nexthops as they were, kept until the dump is complete */
	struct dp_nh **saved_nh = malloc(sizeof(nl->nh));

	if (!saved || !saved_nh) {
		free(saved);
		free(saved_nh);
		return -1;
	}
	memcpy(saved_nh, nl->nh, sizeof(nl->nh));
	memset(nl->nh, 0, sizeof(nl->nh));
	for (size_t i = 0; i < cfg->ndests; i++) {
		saved[i] = cfg->dests[i].route;
		cfg->dests[i].route.present = false;
	}
	nl->cfg = cfg;
	nl->dumping = true;
	nl->cleanup = adopt;
	nl->nleft = 0;
	nret = nl_dump(nl, RTM_GETNEXTHOP, &nhm, sizeof(nhm));
	/* kernels without nexthop objects answer EINVAL or EOPNOTSUPP */
	if (nret == -EINVAL || nret == -EOPNOTSUPP)
		nret = 0;
	if (nret < 0)
		dp_log(3, "netlink: nexthop dump: %s", strerror(-nret));
	ret = nl_dump(nl, RTM_GETROUTE, &rtm, sizeof(rtm));
	if (ret == 0 && nl->fail_dumps) {
		nl->fail_dumps--;
		ret = -EIO;
		dp_log(4, "netlink: route dump: injected failure (test option)");
	} else if (ret < 0) {
		dp_log(3, "netlink: route dump: %s", strerror(-ret));
	}
	if (ret == 0 && nret == 0 && adopt) {
		int r = nl_dump(nl, RTM_GETRULE, &frh, sizeof(frh));

		if (r < 0)
			dp_log(4, "netlink: rule dump: %s", strerror(-r));
	}
	nl->dumping = false;
	nl->cleanup = false;
	if (ret < 0 || nret < 0) {
		/* a partial view: the routes and nexthops as they were (a
		 * route's group resolved through a partial nexthop table would
		 * lose members until the next dump); dump again later
		 */
		for (size_t i = 0; i < cfg->ndests; i++)
			cfg->dests[i].route = saved[i];
		nh_flush(nl);
		memcpy(nl->nh, saved_nh, sizeof(nl->nh));
		free(saved_nh);
		free(saved);
		nl->nleft = 0;
		return -1;
	}
	free(saved);
	nh_free_all(saved_nh);
	free(saved_nh);
	leftovers(nl, cfg, adopt ? adopted : NULL, nadopted);
	return 0;
}

int dp_nl_read(struct dp_nl *nl, struct dp_config *cfg, bool *changed, bool *resync,
	       struct dp_stamp *rx)
{
	bool first = true;

	nl->cfg = cfg;
	nl->changed = nl->resync = false;
	for (;;) {
		ssize_t n = mnl_socket_recvfrom(nl->ev, nl->buf, DP_NL_BUF);

		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				dp_log(4, "netlink: events lost (ENOBUFS): dumping again");
				nl->resync = true;
				continue;
			}
			dp_log(3, "netlink: %s", strerror(errno));
			return -1;
		}
		if (first) {
			dp_stamp_now(rx);
			first = false;
		}
		mnl_cb_run(nl->buf, n, 0, 0, msg_cb, nl);
	}
	if (first)
		dp_stamp_now(rx);
	*changed = nl->changed;
	*resync = nl->resync;
	return 0;
}

int dp_nl_resolve(const struct dp_nl *nl, const struct dp_dest *d, struct dp_hop *hops, size_t max,
		  uint32_t *group)
{
	const struct dp_route *r = &d->route;
	const struct dp_nh *nh;
	size_t n = 0;

	*group = 0;
	if (!r->present)
		return -1;
	if (r->type != RTN_UNICAST)
		return 0;
	*group = r->nhid;
	nh = r->nhid ? nh_find(nl, r->nhid) : NULL;
	if (!nh) {
		/* no nexthop object: the route's own hops (RTA_MULTIPATH or one) */
		for (size_t i = 0; i < r->nhops && n < max; i++)
			hops[n++] = r->hops[i];
		return (int)n;
	}
	if (nh->blackhole)
		return 0;
	if (!nh->group) {
		hops[0] = (struct dp_hop){ .ifindex = nh->oif,
					   .gw = nh->gw,
					   .flags = nh->flags,
					   .weight = 1,
					   .nhid = nh->id };
		return max ? 1 : 0;
	}
	for (size_t i = 0; i < nh->ngrp && n < max; i++) {
		const struct dp_nh *m = nh_find(nl, nh->grp[i].id);

		if (!m || m->group || m->blackhole)
			continue;
		hops[n++] = (struct dp_hop){ .ifindex = m->oif,
					     .gw = m->gw,
					     .flags = m->flags,
					     .weight = nh->grp[i].weight,
					     .nhid = m->id };
	}
	return (int)n;
}
