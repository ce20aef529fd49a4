// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the kernel main table as Enhanced ECMP ingress grouping
 * (EE-1) must see it, and the throw routes that keep the ingress tables
 * from capturing traffic they do not own.
 *
 * The policy rules "iif IF lookup TABLE" (priority 250) come before the
 * main table. An ingress table holds copies of BGP routes only, so a
 * covering BGP route there (a default route, an aggregate) would take
 * traffic whose best match in the main table is more specific: a
 * connected subnet, a static or IGP route, a prefix for which zebra
 * installed another protocol's route. For every prefix of the main table
 * that the ingress tables do not hold as the copy of main's own BGP route,
 * each ingress table gets a throw route for the same prefix: the policy
 * lookup falls through to the next rule, the main table, which gives its
 * own answer. Zebra's ZAPI cannot install throw routes; this file keeps an
 * rtnetlink view of the main table (dump, then RTM_NEWROUTE/RTM_DELROUTE
 * of the IPv4 and IPv6 route groups) and installs the throws itself, with
 * protocol FARE_INGRESS_RTPROT and metric 1 (zebra's routes have 20: a
 * throw wins over a copy still being withdrawn).
 */
#include <zebra.h>

#include <linux/filter.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "lib_errors.h"
#include "prefix.h"
#include "privs.h"

#include "bgpd/bgpd.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_ingress.h"

DEFINE_MTYPE_STATIC(FARE, FARE_INGRESS_MAIN, "FARE ingress main-table view");

extern struct zebra_privs_t bgpd_privs;

#define FARE_RTNL_THROW_METRIC 1
#define FARE_RTNL_RCVBUF       (32 * 1024 * 1024)
#define FARE_RTNL_BATCH	       32768
#define FARE_RTNL_READS	       256 /* messages per read event, then yield */

static uint8_t fare_rtnl_buf[FARE_RTNL_BATCH];
static size_t fare_rtnl_len;
static uint32_t fare_rtnl_seq;

static int fare_rtnl_socket(uint32_t groups)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int fd = -1, size = FARE_RTNL_RCVBUF;

	frr_with_privs (&bgpd_privs) {
		fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
		if (fd >= 0 && groups &&
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	}
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&snl, sizeof(snl)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ------------------------------------------------------------------ */
/* The prefixes of the ingress tables and of the main table's view       */
/* ------------------------------------------------------------------ */

struct fare_ingress_prefix *fare_ingress_prefix_get(struct fare_instance *fi, const struct prefix *p)
{
	struct fare_ingress_prefix key = {}, *e;

	prefix_copy(&key.p, p);
	e = fare_ingress_prefixes_find(&fi->ingress->prefixes, &key);
	if (!e) {
		e = XCALLOC(MTYPE_FARE_INGRESS, sizeof(*e));
		prefix_copy(&e->p, p);
		fare_ingress_prefixes_add(&fi->ingress->prefixes, e);
	}
	return e;
}

/* Every prefix's routes of the main table forgotten (and each prefix
 * synced again when mark).
 */
void fare_ingress_main_forget(struct fare_instance *fi, bool mark)
{
	struct fare_ingress_prefix *e;

	frr_each (fare_ingress_prefixes, &fi->ingress->prefixes, e) {
		fare_rtnl_main_clear(fi, e);
		if (mark)
			fare_ingress_mark(fi, e);
	}
}

/* e is synced in the next deferred pass (one pass for many changes). */
void fare_ingress_mark(struct fare_instance *fi, struct fare_ingress_prefix *e)
{
	if (!e->pending) {
		e->pending = true;
		fare_ingress_pending_add_tail(&fi->ingress->pending, e);
	}
	event_add_event(bm->master, fi->ingress->sync, fi, 0, &fi->ingress->t_sync);
}

/* ------------------------------------------------------------------ */
/* The main table's view                                                */
/* ------------------------------------------------------------------ */

/* The main table's answer for e->p is zebra's BGP route: every route of
 * the lowest metric there has protocol BGP. (A tie with another protocol
 * counts as not BGP: the throw gives main's answer whatever it is.)
 */
bool fare_rtnl_main_is_bgp(const struct fare_ingress_prefix *e)
{
	uint32_t best = UINT32_MAX;
	bool bgp = true;
	uint8_t i;

	for (i = 0; i < e->n_main; i++)
		if (e->main[i].metric < best)
			best = e->main[i].metric;
	for (i = 0; i < e->n_main; i++)
		if (e->main[i].metric == best && e->main[i].protocol != RTPROT_BGP)
			bgp = false;
	return e->n_main && bgp;
}

/* e's routes of the main table are forgotten. */
void fare_rtnl_main_clear(struct fare_instance *fi, struct fare_ingress_prefix *e)
{
	fi->ingress->main_routes -= e->n_main;
	e->n_main = 0;
	XFREE(MTYPE_FARE_INGRESS_MAIN, e->main);
}

static void fare_rtnl_main_del(struct fare_instance *fi, struct fare_ingress_prefix *e, uint8_t i)
{
	e->main[i] = e->main[--e->n_main];
	fi->ingress->main_routes--;
	if (!e->n_main)
		XFREE(MTYPE_FARE_INGRESS_MAIN, e->main);
}

/* One route of the main table added (replace: the routes of the same
 * TOS and metric go, as the kernel replaces them) or deleted. Idempotent
 * per (TOS, metric, output interface), so events queued before a dump and
 * read after it change nothing.
 */
static void fare_rtnl_main_update(struct fare_instance *fi, const struct prefix *p, bool add,
				  bool replace, const struct fare_ingress_main_route *r)
{
	struct fare_ingress_prefix *e = fare_ingress_prefix_get(fi, p);
	uint8_t i;

	for (i = e->n_main; i-- > 0;)
		if (e->main[i].tos == r->tos && e->main[i].metric == r->metric &&
		    (replace || e->main[i].oif == r->oif))
			fare_rtnl_main_del(fi, e, i);
	if (add && e->n_main < UINT8_MAX) {
		e->main = XREALLOC(MTYPE_FARE_INGRESS_MAIN, e->main,
				   (e->n_main + 1) * sizeof(*e->main));
		e->main[e->n_main++] = *r;
		fi->ingress->main_routes++;
	}
	fare_ingress_mark(fi, e);
}

static void fare_rtnl_send(struct fare_instance *fi);

/* A route message of the kernel (a dump or an event). */
static void fare_rtnl_route_msg(struct fare_instance *fi, const struct nlmsghdr *h, bool sweep)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	const struct rtattr *rta;
	struct fare_ingress_main_route r = {};
	struct prefix p = {};
	uint32_t table = rtm->rtm_table;
	int len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	size_t alen = rtm->rtm_family == AF_INET ? 4 : 16;

	if (len < 0 || (rtm->rtm_family != AF_INET && rtm->rtm_family != AF_INET6) ||
	    (rtm->rtm_flags & RTM_F_CLONED) || rtm->rtm_dst_len > alen * 8)
		return;
	p.family = rtm->rtm_family;
	p.prefixlen = rtm->rtm_dst_len;
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);

		if (rta->rta_type == RTA_TABLE && plen >= 4)
			memcpy(&table, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_DST && plen >= alen)
			memcpy(&p.u.prefix, RTA_DATA(rta), alen);
		else if (rta->rta_type == RTA_PRIORITY && plen >= 4)
			memcpy(&r.metric, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_OIF && plen >= 4)
			memcpy(&r.oif, RTA_DATA(rta), 4);
	}
	apply_mask(&p);
	if (rtm->rtm_protocol == FARE_INGRESS_RTPROT) {
		/* a throw of an earlier bgpd (the first dump only): removed */
		if (sweep && h->nlmsg_type == RTM_NEWROUTE && table >= FARE_INGRESS_TABLE_BASE)
			fare_rtnl_throw(fi, false, &p, &table, 1);
		return;
	}
	if (table != RT_TABLE_MAIN)
		return;
	r.tos = rtm->rtm_tos;
	r.protocol = rtm->rtm_protocol;
	fare_rtnl_main_update(fi, &p, h->nlmsg_type == RTM_NEWROUTE,
			      (h->nlmsg_flags & NLM_F_REPLACE) && h->nlmsg_type == RTM_NEWROUTE, &r);
}

/* The whole main table (and every table, for throws left by an earlier
 * bgpd), read on a socket of its own, blocking.
 */
static bool fare_rtnl_dump(struct fare_instance *fi, bool sweep)
{
	static uint8_t buf[65536];
	int families[] = { AF_INET, AF_INET6 };
	int fd = fare_rtnl_socket(0);
	bool ok = fd >= 0;

	for (size_t f = 0; ok && f < array_size(families); f++) {
		struct {
			struct nlmsghdr n;
			struct rtmsg r;
		} req = {};
		bool done = false;

		req.n.nlmsg_len = NLMSG_LENGTH(sizeof(req.r));
		req.n.nlmsg_type = RTM_GETROUTE;
		req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
		req.n.nlmsg_seq = ++fare_rtnl_seq;
		req.r.rtm_family = families[f];
		if (send(fd, &req, req.n.nlmsg_len, 0) < 0)
			ok = false;
		while (ok && !done) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			struct nlmsghdr *h;
			int len = n;

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				ok = false;
				break;
			}
			for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)len);
			     h = NLMSG_NEXT(h, len)) {
				if (h->nlmsg_type == NLMSG_DONE) {
					done = true;
					break;
				}
				if (h->nlmsg_type == NLMSG_ERROR) {
					ok = false;
					break;
				}
				if (h->nlmsg_type == RTM_NEWROUTE)
					fare_rtnl_route_msg(fi, h, sweep);
			}
		}
	}
	if (fd >= 0)
		close(fd);
	fare_rtnl_send(fi);
	return ok;
}

/* After an overrun of the events (ENOBUFS), or an interface gone down
 * (the kernel removes its IPv4 routes without a notification): the view
 * from a new dump.
 */
static void fare_rtnl_resync(struct fare_instance *fi)
{
	fi->ingress->rtnl_resyncs++;
	fare_ingress_main_forget(fi, true);
	if (!fare_rtnl_dump(fi, false))
		flog_err(EC_LIB_SOCKET, "bgpd_fare: EE-1: dump of the main table failed: %s",
			 safe_strerror(errno));
}

static void fare_rtnl_resync_event(struct event *event)
{
	fare_rtnl_resync(EVENT_ARG(event));
}

/* An interface down or deleted: one re-read a second later for all. */
static void fare_rtnl_link_msg(struct fare_instance *fi, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)) ||
	    (h->nlmsg_type == RTM_NEWLINK && (ifi->ifi_flags & IFF_UP)))
		return;
	event_add_timer(bm->master, fare_rtnl_resync_event, fi, 1, &fi->ingress->t_rtnl_resync);
}

static void fare_rtnl_events_read(struct event *event)
{
	static uint8_t buf[65536];
	struct fare_instance *fi = EVENT_ARG(event);
	int i;

	for (i = 0; i < FARE_RTNL_READS; i++) {
		ssize_t n = recv(fi->ingress->rtnl_events, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *h;
		int len = n;

		if (n < 0 && errno == ENOBUFS) {
			zlog_warn(
				"bgpd_fare: EE-1: route events overran, reading the main table again");
			fare_rtnl_resync(fi);
			continue;
		}
		if (n <= 0)
			break;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)len);
		     h = NLMSG_NEXT(h, len))
			if (h->nlmsg_type == RTM_NEWROUTE || h->nlmsg_type == RTM_DELROUTE)
				fare_rtnl_route_msg(fi, h, false);
			else if (h->nlmsg_type == RTM_NEWLINK || h->nlmsg_type == RTM_DELLINK)
				fare_rtnl_link_msg(fi, h);
	}
	event_add_read(bm->master, fare_rtnl_events_read, fi, fi->ingress->rtnl_events,
		       &fi->ingress->t_rtnl_events);
}

/* ------------------------------------------------------------------ */
/* Throw routes                                                         */
/* ------------------------------------------------------------------ */

static void fare_rtnl_put(struct nlmsghdr *n, uint16_t type, const void *data, size_t len)
{
	struct rtattr *rta = (struct rtattr *)((uint8_t *)n + NLMSG_ALIGN(n->nlmsg_len));

	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + RTA_ALIGN(rta->rta_len);
}

/* The kernel's answers to the throw routes: errors only (no ACK asked). */
static void fare_rtnl_cmd_read(struct event *event)
{
	static uint8_t buf[8192];
	struct fare_instance *fi = EVENT_ARG(event);
	ssize_t n;

	while ((n = recv(fi->ingress->rtnl_cmd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct nlmsghdr *h;
		int len = n;

		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned int)len);
		     h = NLMSG_NEXT(h, len)) {
			const struct nlmsgerr *err = NLMSG_DATA(h);

			if (h->nlmsg_type != NLMSG_ERROR || !err->error)
				continue;
			/* a delete of a throw already gone is no error */
			if (err->msg.nlmsg_type == RTM_DELROUTE && err->error == -ESRCH)
				continue;
			fi->ingress->rtnl_errors++;
			zlog_warn("bgpd_fare: EE-1: kernel refused a throw route (%s, %u so far)",
				  safe_strerror(-err->error), fi->ingress->rtnl_errors);
		}
	}
	event_add_read(bm->master, fare_rtnl_cmd_read, fi, fi->ingress->rtnl_cmd,
		       &fi->ingress->t_rtnl_cmd);
}

static void fare_rtnl_send(struct fare_instance *fi)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };
	ssize_t n = 0;

	if (!fare_rtnl_len)
		return;
	if (fi->ingress->rtnl_cmd >= 0)
		frr_with_privs (&bgpd_privs) {
			n = sendto(fi->ingress->rtnl_cmd, fare_rtnl_buf, fare_rtnl_len, 0,
				   (struct sockaddr *)&snl, sizeof(snl));
		}
	if (n < 0) {
		fi->ingress->rtnl_errors++;
		zlog_warn("bgpd_fare: EE-1: sending throw routes failed: %s", safe_strerror(errno));
	}
	fare_rtnl_len = 0;
}

/* Add or remove the throw route of p in each of the n tables (batched:
 * sent by fare_rtnl_flush, or when the buffer is full).
 */
void fare_rtnl_throw(struct fare_instance *fi, bool add, const struct prefix *p,
		     const uint32_t *tables, size_t n_tables)
{
	uint32_t metric = FARE_RTNL_THROW_METRIC;
	size_t alen = p->family == AF_INET ? 4 : 16;
	size_t need = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct rtmsg))) + RTA_SPACE(alen) +
		      2 * RTA_SPACE(4);

	for (size_t t = 0; t < n_tables; t++) {
		struct nlmsghdr *n;
		struct rtmsg *rtm;

		if (fare_rtnl_len + need > sizeof(fare_rtnl_buf))
			fare_rtnl_send(fi);
		n = (struct nlmsghdr *)(fare_rtnl_buf + fare_rtnl_len);
		memset(n, 0, need);
		n->nlmsg_len = NLMSG_LENGTH(sizeof(*rtm));
		n->nlmsg_type = add ? RTM_NEWROUTE : RTM_DELROUTE;
		n->nlmsg_flags = NLM_F_REQUEST | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
		n->nlmsg_seq = ++fare_rtnl_seq;
		rtm = NLMSG_DATA(n);
		rtm->rtm_family = p->family;
		rtm->rtm_dst_len = p->prefixlen;
		rtm->rtm_table = RT_TABLE_UNSPEC;
		rtm->rtm_protocol = FARE_INGRESS_RTPROT;
		rtm->rtm_scope = RT_SCOPE_UNIVERSE;
		rtm->rtm_type = RTN_THROW;
		fare_rtnl_put(n, RTA_DST, &p->u.prefix, alen);
		fare_rtnl_put(n, RTA_TABLE, &tables[t], 4);
		fare_rtnl_put(n, RTA_PRIORITY, &metric, 4);
		fare_rtnl_len += NLMSG_ALIGN(n->nlmsg_len);
	}
}

void fare_rtnl_flush(struct fare_instance *fi)
{
	fare_rtnl_send(fi);
}

/* ------------------------------------------------------------------ */
/* Life cycle                                                           */
/* ------------------------------------------------------------------ */

/* Subscribe, then dump (events of routes the dump has already seen change
 * nothing, see fare_rtnl_main_update()).
 */
bool fare_rtnl_open(struct fare_instance *fi)
{
	/* only links and the main table's routes reach the socket: not the
	 * ingress tables' copies and throws (n times the routes); the type
	 * is loaded in network order
	 */
	struct sock_filter main_only[] = {
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, offsetof(struct nlmsghdr, nlmsg_type)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htons(RTM_NEWLINK), 4, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, htons(RTM_DELLINK), 3, 0),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, NLMSG_HDRLEN + offsetof(struct rtmsg, rtm_table)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, RT_TABLE_MAIN, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
	};
	struct sock_fprog prog = { .len = array_size(main_only), .filter = main_only };

	if (fi->ingress->rtnl_events >= 0)
		return true;
	fi->ingress->rtnl_events = fare_rtnl_socket(RTMGRP_LINK | RTMGRP_IPV4_ROUTE |
						    RTMGRP_IPV6_ROUTE);
	if (fi->ingress->rtnl_events >= 0 && setsockopt(fi->ingress->rtnl_events, SOL_SOCKET,
							SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0)
		zlog_warn("bgpd_fare: EE-1: no filter on the route events (%s): all tables read",
			  safe_strerror(errno));
	fi->ingress->rtnl_cmd = fare_rtnl_socket(0);
	if (fi->ingress->rtnl_events < 0 || fi->ingress->rtnl_cmd < 0 || !fare_rtnl_dump(fi, true)) {
		flog_err(EC_LIB_SOCKET,
			 "bgpd_fare: EE-1: no view of the main table (%s): ingress tables stay empty",
			 safe_strerror(errno));
		fare_rtnl_close(fi);
		return false;
	}
	event_add_read(bm->master, fare_rtnl_events_read, fi, fi->ingress->rtnl_events,
		       &fi->ingress->t_rtnl_events);
	event_add_read(bm->master, fare_rtnl_cmd_read, fi, fi->ingress->rtnl_cmd,
		       &fi->ingress->t_rtnl_cmd);
	return true;
}

/* The view goes (the throws must be gone already: fare_ingress_flush()). */
void fare_rtnl_close(struct fare_instance *fi)
{
	fare_rtnl_send(fi);
	event_cancel(&fi->ingress->t_rtnl_events);
	event_cancel(&fi->ingress->t_rtnl_cmd);
	event_cancel(&fi->ingress->t_rtnl_resync);
	if (fi->ingress->rtnl_events >= 0)
		close(fi->ingress->rtnl_events);
	if (fi->ingress->rtnl_cmd >= 0)
		close(fi->ingress->rtnl_cmd);
	fi->ingress->rtnl_events = fi->ingress->rtnl_cmd = -1;
	fare_ingress_main_forget(fi, false);
}
