// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the traffic each member of a nexthop group really carried.
 *
 * Since Linux 6.9 the kernel counts the packets it forwards through each
 * member of a nexthop group, and reports them when an RTM_GETNEXTHOP
 * request carries NHA_OP_FLAGS with NHA_OP_FLAG_DUMP_STATS: the reply's
 * NHA_GROUP_STATS holds one entry (member id, packets) per member. This
 * file reads them, in the network namespace of the instance (bgpd's own,
 * or the VRF's with the netns backend), for the groups that carry the
 * instance's routes, and sets them against the weights installed: the
 * intended share of each member (weight / sum of weights), its measured
 * share of the packets since the last "clear bgp fare traffic" and the
 * deviation (shown by "show bgp [vrf NAME] fare traffic").
 *
 * Why here, in the module, with a plain rtnetlink socket: the module
 * knows which groups carry FARE's routes (its own, "bgp fare
 * nexthop-groups": bgp_fare_nhg.c) and FARE's weights for them, and its
 * shows are where the operator looks at FARE's weights already. Reading
 * the counters needs no privilege and no new ZAPI message: a zebra patch
 * would have to carry every counter over ZAPI to bgpd for the same
 * answer, and a helper process could not name the groups FARE owns.
 * Without "bgp fare nexthop-groups" the groups are zebra's: a dump of the
 * instance's kernel table gives the group (RTA_NH_ID) of each BGP route.
 *
 * The kernel's counters are never cleared: a clear keeps them as the
 * baseline. A group replaced since (new weights: one RTM_NEWNEXTHOP of
 * the same id) starts its counters again from 0; the baseline of such a
 * group is dropped (the module's own groups: the times the module sent
 * it; zebra's: a member's count below its baseline).
 */
#include <zebra.h>

#include <math.h>

#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "if.h"
#include "json.h"
#include "lib_errors.h"
#include "memory.h"
#include "privs.h"
#include "vrf.h"
#include "vty.h"

#include "bgpd/bgpd.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_nhg.h"
#include "bgpd/fare/bgp_fare_traffic.h"

#include "fare_nhg.h"
#include "fare_nhstats.h"

DEFINE_MTYPE_STATIC(FARE, FARE_TRAFFIC, "FARE traffic counters");

extern struct zebra_privs_t bgpd_privs;

#define FARE_TRAFFIC_BUF	 (256 * 1024)
#define FARE_TRAFFIC_MAX_MEMBERS 4096 /* members of one group read */
#define FARE_TRAFFIC_TIMEOUT	 2    /* seconds a read of the kernel may take */
#define FARE_TRAFFIC_LOG_SECS	 60   /* an alarm logged at most this often */

/* A member's packets at a snapshot */
struct fare_traffic_base_member {
	uint32_t id;
	uint64_t packets;
};

/* A group's counters at a snapshot */
struct fare_traffic_base {
	uint32_t group;
	uint64_t installs; /* the module's group: times sent, then */
	uint16_t n;
	struct fare_traffic_base_member *m;
};

/* The groups' counters at one time */
struct fare_traffic_snap {
	struct fare_traffic_base *base; /* sorted by group */
	size_t n;
	time_t taken; /* monotime, 0: none */
};

struct fare_traffic_state {
	struct fare_traffic_snap cleared; /* at the last clear */
	uint32_t threshold;		  /* percentage points */
	uint64_t min_packets;		  /* a group's packets for its deviation to count */
	/* the alarm ("bgp fare traffic-alarm"): every interval, the
	 * deviation over the packets since the last read (window)
	 */
	bool alarm;
	uint32_t interval;
	struct fare_traffic_snap window;
	struct event *t_alarm;
	uint64_t checks, read_errors, alarms, log_suppressed;
	time_t logged; /* monotime of the last line logged */
	struct {
		uint32_t group, member;
		double points;
		uint64_t packets;
		enum fare_nhs_cause cause;
		time_t at; /* 0: none yet */
	} last;
};

/* ------------------------------------------------------------------ */
/* Reading the kernel                                                   */
/* ------------------------------------------------------------------ */

/* One nexthop object of the kernel */
struct fare_traffic_nh {
	struct fare_nhs_entry e;
	struct fare_nhs_member *m;
};

/* What the kernel has: every nexthop object, sorted by id */
struct fare_traffic_kernel {
	struct fare_traffic_nh *nh;
	size_t n, cap;
	bool stats; /* asked with NHA_OP_FLAG_DUMP_STATS, the kernel took it */
	int err;    /* errno of the nexthop dump, 0: read */
	uint64_t malformed;
};

/* A group carrying the instance's routes */
struct fare_traffic_group {
	uint32_t id;
	uint32_t prefixes;
	uint64_t installs;		/* the module's: times sent to zebra */
	const struct fare_nhg_key *key; /* the module's: FARE's weights */
};

struct fare_traffic_groups {
	struct fare_traffic_group *g;
	size_t n, cap;
};

static uint8_t fare_traffic_buf[FARE_TRAFFIC_BUF];
static struct fare_nhs_member fare_traffic_members[FARE_TRAFFIC_MAX_MEMBERS];
static uint32_t fare_traffic_seq;

/* A netlink socket in the namespace of the instance's VRF */
static int fare_traffic_socket(vrf_id_t vrf_id)
{
	struct timeval tv = { .tv_sec = FARE_TRAFFIC_TIMEOUT };
	int fd = -1;

	frr_with_privs (&bgpd_privs) {
		if (vrf_is_backend_netns() && vrf_id != VRF_DEFAULT)
			fd = vrf_socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE, vrf_id,
					NULL);
		else
			fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	}
	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

typedef void (*fare_traffic_msg_fn)(const struct nlmsghdr *h, size_t len, void *arg);

/* Send a dump request, give each message of the answer to fn; 0 or an
 * errno (the kernel's error answer, or the socket's)
 */
static int fare_traffic_dump(int fd, struct nlmsghdr *req, fare_traffic_msg_fn fn, void *arg)
{
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK };

	req->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req->nlmsg_seq = ++fare_traffic_seq;
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&snl, sizeof(snl)) < 0)
		return errno;
	for (;;) {
		ssize_t n = recv(fd, fare_traffic_buf, sizeof(fare_traffic_buf), 0);
		struct nlmsghdr *h;
		int len = n;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? errno : EIO;
		for (h = (struct nlmsghdr *)fare_traffic_buf; NLMSG_OK(h, (unsigned int)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *err = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*err)))
					return EIO;
				if (err->error)
					return -err->error;
				continue;
			}
			fn(h, (size_t)len, arg);
		}
	}
}

static void fare_traffic_nh_msg(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct fare_traffic_kernel *k = arg;
	struct fare_traffic_nh *nh;
	struct fare_nhs_entry e;

	if (h->nlmsg_type != RTM_NEWNEXTHOP)
		return;
	if (fare_nhs_parse(h, len, &e, fare_traffic_members, FARE_TRAFFIC_MAX_MEMBERS) < 0) {
		k->malformed++;
		return;
	}
	if (k->n == k->cap) {
		k->cap = k->cap ? 2 * k->cap : 64;
		k->nh = XREALLOC(MTYPE_FARE_TRAFFIC, k->nh, k->cap * sizeof(*k->nh));
	}
	nh = &k->nh[k->n++];
	nh->e = e;
	nh->m = NULL;
	if (e.n) {
		nh->m = XMALLOC(MTYPE_FARE_TRAFFIC, e.n * sizeof(*nh->m));
		memcpy(nh->m, fare_traffic_members, e.n * sizeof(*nh->m));
	}
}

static int fare_traffic_nh_cmp(const void *a, const void *b)
{
	const struct fare_traffic_nh *x = a, *y = b;

	return numcmp(x->e.id, y->e.id);
}

static const struct fare_traffic_nh *fare_traffic_nh_find(const struct fare_traffic_kernel *k,
							  uint32_t id)
{
	struct fare_traffic_nh ref = { .e.id = id };

	return k->n ? bsearch(&ref, k->nh, k->n, sizeof(*k->nh), fare_traffic_nh_cmp) : NULL;
}

static void fare_traffic_kernel_free(struct fare_traffic_kernel *k)
{
	for (size_t i = 0; i < k->n; i++)
		XFREE(MTYPE_FARE_TRAFFIC, k->nh[i].m);
	XFREE(MTYPE_FARE_TRAFFIC, k->nh);
	k->n = k->cap = 0;
}

/* Every nexthop object of the namespace, with the counters where the
 * kernel has them: a kernel before 6.9 refuses NHA_OP_FLAGS (EINVAL), and
 * is asked again without.
 */
static void fare_traffic_kernel_read(struct fare_traffic_kernel *k, int fd)
{
	struct {
		struct nlmsghdr n;
		struct nhmsg nh;
		struct nlattr a;
		uint32_t flags;
	} req = {};

	memset(k, 0, sizeof(*k));
	req.n.nlmsg_type = RTM_GETNEXTHOP;
	req.nh.nh_family = AF_UNSPEC;
	req.a.nla_len = NLA_HDRLEN + sizeof(req.flags);
	req.a.nla_type = FARE_NHA_OP_FLAGS;
	req.flags = FARE_NHA_OP_FLAG_DUMP_STATS;
	req.n.nlmsg_len = sizeof(req);
	k->stats = true;
	k->err = fare_traffic_dump(fd, &req.n, fare_traffic_nh_msg, k);
	if (k->err == EINVAL || k->err == EOPNOTSUPP) {
		fare_traffic_kernel_free(k);
		k->stats = false;
		req.n.nlmsg_len = NLMSG_LENGTH(sizeof(req.nh));
		k->err = fare_traffic_dump(fd, &req.n, fare_traffic_nh_msg, k);
	}
	if (k->n)
		qsort(k->nh, k->n, sizeof(*k->nh), fare_traffic_nh_cmp);
	if (k->malformed && FARE_DEBUG)
		zlog_debug("FARE: traffic: %" PRIu64
			   " nexthop message(s) of the kernel not understood",
			   k->malformed);
}

/* ------------------------------------------------------------------ */
/* The groups of the instance's routes                                  */
/* ------------------------------------------------------------------ */

static struct fare_traffic_group *fare_traffic_group_add(struct fare_traffic_groups *gs, uint32_t id)
{
	struct fare_traffic_group *g;

	if (gs->n == gs->cap) {
		gs->cap = gs->cap ? 2 * gs->cap : 16;
		gs->g = XREALLOC(MTYPE_FARE_TRAFFIC, gs->g, gs->cap * sizeof(*gs->g));
	}
	g = &gs->g[gs->n++];
	memset(g, 0, sizeof(*g));
	g->id = id;
	return g;
}

static void fare_traffic_module_group(uint32_t id, uint32_t prefixes, uint64_t installs,
				      const struct fare_nhg_key *key, void *arg)
{
	struct fare_traffic_group *g = fare_traffic_group_add(arg, id);

	g->prefixes = prefixes;
	g->installs = installs;
	g->key = key;
}

/* One BGP route of the kernel's: its table, its group (RTA_NH_ID, 0:
 * none) and its destination (dst NULL: none, a default route)
 */
struct fare_traffic_route {
	uint8_t family, dst_len;
	uint32_t table, nhid;
	const void *dst;
	size_t dst_size;
};

/* false when the message is not a BGP route */
static bool fare_traffic_route_parse(const struct nlmsghdr *h, struct fare_traffic_route *r)
{
	const struct rtmsg *rtm = NLMSG_DATA(h);
	const struct rtattr *rta;
	int alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));

	if (h->nlmsg_type != RTM_NEWROUTE || alen < 0 || rtm->rtm_protocol != RTPROT_BGP)
		return false;
	memset(r, 0, sizeof(*r));
	r->family = rtm->rtm_family;
	r->dst_len = rtm->rtm_dst_len;
	r->table = rtm->rtm_table;
	for (rta = RTM_RTA(rtm); RTA_OK(rta, alen); rta = RTA_NEXT(rta, alen)) {
		if (rta->rta_type == RTA_TABLE && RTA_PAYLOAD(rta) >= 4)
			memcpy(&r->table, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_NH_ID && RTA_PAYLOAD(rta) >= 4)
			memcpy(&r->nhid, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_DST) {
			r->dst = RTA_DATA(rta);
			r->dst_size = RTA_PAYLOAD(rta);
		}
	}
	return true;
}

/* The kernel's table of the instance's routes */
static uint32_t fare_traffic_table(const struct fare_instance *fi)
{
	struct vrf *vrf = vrf_lookup_by_id(fi->bgp->vrf_id);

	if (vrf && vrf->vrf_id != VRF_DEFAULT && !vrf_is_backend_netns() && vrf->data.l.table_id)
		return vrf->data.l.table_id;
	return RT_TABLE_MAIN;
}

/* The kernel's routes of the instance's table: the group of each BGP route */
struct fare_traffic_routes {
	uint32_t table;
	uint32_t *ids;
	size_t n, cap;
};

static void fare_traffic_route_msg(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct fare_traffic_routes *rs = arg;
	struct fare_traffic_route r;

	if (!fare_traffic_route_parse(h, &r) || r.table != rs->table || !r.nhid)
		return;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 256;
		rs->ids = XREALLOC(MTYPE_FARE_TRAFFIC, rs->ids, rs->cap * sizeof(*rs->ids));
	}
	rs->ids[rs->n++] = r.nhid;
}

/* One prefix's route in the instance's table: its group (nhid, 0: the
 * kernel has no BGP route of that prefix, or not on a group)
 */
struct fare_traffic_prefix_route {
	uint32_t table;
	const struct prefix *p;
	uint32_t nhid;
};

static void fare_traffic_prefix_msg(const struct nlmsghdr *h, size_t len, void *arg)
{
	struct fare_traffic_prefix_route *pr = arg;
	struct fare_traffic_route r;
	size_t blen = prefix_blen(pr->p);

	if (!fare_traffic_route_parse(h, &r) || r.table != pr->table || r.family != pr->p->family ||
	    r.dst_len != pr->p->prefixlen)
		return;
	if (pr->p->prefixlen &&
	    (!r.dst || r.dst_size < blen || memcmp(r.dst, &pr->p->u.prefix, blen)))
		return;
	pr->nhid = r.nhid;
}

/* Send an RTM_GETROUTE dump of family, each route to fn */
static void fare_traffic_route_dump(int fd, int family, fare_traffic_msg_fn fn, void *arg)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg r;
	} req = {};

	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(req.r));
	req.n.nlmsg_type = RTM_GETROUTE;
	req.r.rtm_family = family;
	fare_traffic_dump(fd, &req.n, fn, arg);
}

static int fare_traffic_u32_cmp(const void *a, const void *b)
{
	return numcmp(*(const uint32_t *)a, *(const uint32_t *)b);
}

/* zebra's groups: those of the BGP routes of the instance's table that
 * the kernel has as groups
 */
static void fare_traffic_zebra_groups(struct fare_instance *fi, int fd,
				      const struct fare_traffic_kernel *k,
				      struct fare_traffic_groups *gs)
{
	struct fare_traffic_routes rs = { .table = fare_traffic_table(fi) };
	size_t i, j;

	fare_traffic_route_dump(fd, AF_INET, fare_traffic_route_msg, &rs);
	fare_traffic_route_dump(fd, AF_INET6, fare_traffic_route_msg, &rs);
	if (rs.n)
		qsort(rs.ids, rs.n, sizeof(*rs.ids), fare_traffic_u32_cmp);
	for (i = 0; i < rs.n; i = j) {
		const struct fare_traffic_nh *nh = fare_traffic_nh_find(k, rs.ids[i]);

		for (j = i; j < rs.n && rs.ids[j] == rs.ids[i]; j++)
			;
		if (nh && nh->e.group)
			fare_traffic_group_add(gs, rs.ids[i])->prefixes = j - i;
	}
	XFREE(MTYPE_FARE_TRAFFIC, rs.ids);
}

/* The groups that carry the instance's routes: the module's own with
 * "bgp fare nexthop-groups", else zebra's
 */
static void fare_traffic_groups(struct fare_instance *fi, int fd,
				const struct fare_traffic_kernel *k, struct fare_traffic_groups *gs)
{
	memset(gs, 0, sizeof(*gs));
	if (fi->nhg && fare_nhg_supported())
		fare_nhg_walk(fi->bgp->vrf_id, fare_traffic_module_group, gs);
	else
		fare_traffic_zebra_groups(fi, fd, k, gs);
}

/* ------------------------------------------------------------------ */
/* Snapshots: the baseline of a clear, the alarm's last read            */
/* ------------------------------------------------------------------ */

static void fare_traffic_snap_free(struct fare_traffic_snap *snap)
{
	for (size_t i = 0; i < snap->n; i++)
		XFREE(MTYPE_FARE_TRAFFIC, snap->base[i].m);
	XFREE(MTYPE_FARE_TRAFFIC, snap->base);
	snap->n = 0;
	snap->taken = 0;
}

static int fare_traffic_base_cmp(const void *a, const void *b)
{
	const struct fare_traffic_base *x = a, *y = b;

	return numcmp(x->group, y->group);
}

static const struct fare_traffic_base *fare_traffic_base_find(const struct fare_traffic_snap *snap,
							      uint32_t group)
{
	struct fare_traffic_base ref = { .group = group };

	return snap->n ? bsearch(&ref, snap->base, snap->n, sizeof(*snap->base),
				 fare_traffic_base_cmp)
		       : NULL;
}

/* A member's packets in the snapshot (0: not in it) */
static uint64_t fare_traffic_base_packets(const struct fare_traffic_base *b, uint32_t id)
{
	for (uint16_t i = 0; b && i < b->n; i++)
		if (b->m[i].id == id)
			return b->m[i].packets;
	return 0;
}

/* Whether the group's counters started again since the snapshot: the
 * module sent it again, or a member counts fewer packets than then
 */
static bool fare_traffic_restarted(const struct fare_traffic_base *b,
				   const struct fare_traffic_group *g,
				   const struct fare_traffic_nh *nh)
{
	if (!b)
		return false;
	if (g->key && g->installs != b->installs)
		return true;
	for (uint16_t i = 0; i < nh->e.n; i++)
		if (nh->m[i].packets < fare_traffic_base_packets(b, nh->m[i].id))
			return true;
	return false;
}

/* The packets p[] of group g's members (nh) since the snapshot; true
 * when its counters started again since (p[]: all they counted)
 */
static bool fare_traffic_since(const struct fare_traffic_snap *snap,
			       const struct fare_traffic_group *g, const struct fare_traffic_nh *nh,
			       uint64_t *p)
{
	const struct fare_traffic_base *b = fare_traffic_base_find(snap, g->id);
	bool restarted = fare_traffic_restarted(b, g, nh);

	for (uint16_t i = 0; i < nh->e.n; i++) {
		p[i] = nh->m[i].packets;
		if (!restarted)
			p[i] -= MIN(p[i], fare_traffic_base_packets(b, nh->m[i].id));
	}
	return restarted;
}

/* The counters of the groups gs as the kernel has them now (k) */
static void fare_traffic_snap_take(struct fare_traffic_snap *snap,
				   const struct fare_traffic_kernel *k,
				   const struct fare_traffic_groups *gs)
{
	fare_traffic_snap_free(snap);
	snap->base = XCALLOC(MTYPE_FARE_TRAFFIC, (gs->n ? gs->n : 1) * sizeof(*snap->base));
	for (size_t i = 0; i < gs->n; i++) {
		const struct fare_traffic_nh *nh = fare_traffic_nh_find(k, gs->g[i].id);
		struct fare_traffic_base *b;

		if (!nh || !nh->e.group)
			continue;
		b = &snap->base[snap->n++];
		b->group = gs->g[i].id;
		b->installs = gs->g[i].installs;
		b->n = nh->e.n;
		b->m = XCALLOC(MTYPE_FARE_TRAFFIC, (b->n ? b->n : 1) * sizeof(*b->m));
		for (uint16_t j = 0; j < b->n; j++) {
			b->m[j].id = nh->m[j].id;
			b->m[j].packets = nh->m[j].packets;
		}
	}
	if (snap->n)
		qsort(snap->base, snap->n, sizeof(*snap->base), fare_traffic_base_cmp);
	snap->taken = monotime(NULL);
}

/* The kernel's nexthop objects (k) and the groups of the instance's
 * routes (gs); with pr, also the group of pr's prefix
 */
static bool fare_traffic_read(struct fare_instance *fi, struct fare_traffic_kernel *k,
			      struct fare_traffic_groups *gs, struct fare_traffic_prefix_route *pr,
			      const char **err)
{
	int fd = fare_traffic_socket(fi->bgp->vrf_id);

	memset(k, 0, sizeof(*k));
	memset(gs, 0, sizeof(*gs));
	if (fd < 0) {
		*err = safe_strerror(errno);
		return false;
	}
	fare_traffic_kernel_read(k, fd);
	if (k->err) {
		*err = safe_strerror(k->err);
		close(fd);
		return false;
	}
	fare_traffic_groups(fi, fd, k, gs);
	if (pr) {
		pr->table = fare_traffic_table(fi);
		fare_traffic_route_dump(fd, pr->p->family, fare_traffic_prefix_msg, pr);
	}
	close(fd);
	return true;
}

static void fare_traffic_read_free(struct fare_traffic_kernel *k, struct fare_traffic_groups *gs)
{
	fare_traffic_kernel_free(k);
	XFREE(MTYPE_FARE_TRAFFIC, gs->g);
	gs->n = gs->cap = 0;
}

bool fare_traffic_clear(struct fare_instance *fi, const char **err)
{
	struct fare_traffic_state *ts = fi->traffic;
	struct fare_traffic_kernel k;
	struct fare_traffic_groups gs;

	if (!fare_traffic_read(fi, &k, &gs, NULL, err)) {
		fare_traffic_read_free(&k, &gs);
		return false;
	}
	fare_traffic_snap_take(&ts->cleared, &k, &gs);
	fare_traffic_read_free(&k, &gs);
	if (FARE_DEBUG)
		zlog_debug("FARE: %s: traffic counters of %zu group(s) kept as the baseline",
			   fi->bgp->name_pretty, ts->cleared.n);
	return true;
}

/* FARE's weight of the kernel's member nh (the module's group): the
 * member of the key with its interface and gateway; 0: none
 */
static uint32_t fare_traffic_fare_weight(const struct fare_nhg_key *key,
					 const struct fare_traffic_nh *nh)
{
	if (!key || !nh)
		return 0;
	for (uint16_t i = 0; i < key->n; i++) {
		const struct fare_nhg_member *m = &key->m[i];
		size_t alen = m->family == FARE_NHG_IPV4 ? 4 : 16;
		uint8_t fam = m->family == FARE_NHG_IPV4 ? AF_INET : AF_INET6;

		if (m->ifindex == nh->e.oif && fam == nh->e.gw_family &&
		    !memcmp(m->gate, nh->e.gw, alen))
			return m->weight;
	}
	return 0;
}

static void fare_traffic_member_names(const struct fare_instance *fi,
				      const struct fare_traffic_nh *nh, char *addr, size_t alen,
				      const char **ifname)
{
	struct interface *ifp = NULL;

	snprintf(addr, alen, "-");
	*ifname = "-";
	if (!nh)
		return;
	if (nh->e.gw_family)
		inet_ntop(nh->e.gw_family, nh->e.gw, addr, alen);
	if (nh->e.oif) {
		ifp = if_lookup_by_index(nh->e.oif, fi->bgp->vrf_id);
		*ifname = ifp ? ifp->name : "unknown";
	}
}

/* ------------------------------------------------------------------ */
/* The alarm                                                            */
/* ------------------------------------------------------------------ */

/* One group over the alarm's interval: above the threshold over enough
 * packets, the alarm is counted and logged (at most one line a minute
 * per instance, those left out counted in the next)
 */
static void fare_traffic_alarm_group(struct fare_instance *fi, const struct fare_traffic_kernel *k,
				     const struct fare_traffic_group *g, time_t secs)
{
	struct fare_traffic_state *ts = fi->traffic;
	const struct fare_traffic_nh *nh = fare_traffic_nh_find(k, g->id);
	struct fare_nhs_share *s;
	uint32_t *w, *fw;
	uint64_t *p, total;
	size_t i, wi;
	double points;
	char addr[INET6_ADDRSTRLEN];
	const char *ifname;

	if (!nh || !nh->e.group || !nh->e.has_stats || !nh->e.n)
		return;
	w = XCALLOC(MTYPE_TMP, nh->e.n * sizeof(*w));
	fw = XCALLOC(MTYPE_TMP, nh->e.n * sizeof(*fw));
	p = XCALLOC(MTYPE_TMP, nh->e.n * sizeof(*p));
	s = XCALLOC(MTYPE_TMP, nh->e.n * sizeof(*s));
	fare_traffic_since(&ts->window, g, nh, p);
	for (i = 0; i < nh->e.n; i++) {
		w[i] = nh->m[i].weight;
		fw[i] = fare_traffic_fare_weight(g->key, fare_traffic_nh_find(k, nh->m[i].id));
	}
	wi = fare_nhs_shares(w, p, nh->e.n, s, &total);
	points = fabs(s[wi].deviation) * 100;
	if (total >= ts->min_packets && points > ts->threshold) {
		time_t now = monotime(NULL);

		ts->alarms++;
		ts->last.group = g->id;
		ts->last.member = nh->m[wi].id;
		ts->last.points = points;
		ts->last.packets = total;
		ts->last.cause = fare_nhs_cause(w, g->key ? fw : NULL, p, nh->e.n);
		ts->last.at = now;
		if (ts->logged && now - ts->logged < FARE_TRAFFIC_LOG_SECS) {
			ts->log_suppressed++;
		} else {
			fare_traffic_member_names(fi, fare_traffic_nh_find(k, nh->m[wi].id), addr,
						  sizeof(addr), &ifname);
			zlog_warn("FARE: %s: traffic of nexthop group %u deviates %.1f points from its weights over %" PRIu64
				  " packets in %lld s (member %u via %s %s: measured %.1f%%, intended %.1f%%); likely cause: %s (%" PRIu64
				  " alarm(s), %" PRIu64 " not logged)",
				  fi->bgp->name_pretty, g->id, points, total, (long long)secs,
				  nh->m[wi].id, addr, ifname, s[wi].measured * 100,
				  s[wi].intended * 100, fare_nhs_cause_str(ts->last.cause),
				  ts->alarms, ts->log_suppressed);
			ts->logged = now;
		}
	}
	XFREE(MTYPE_TMP, w);
	XFREE(MTYPE_TMP, fw);
	XFREE(MTYPE_TMP, p);
	XFREE(MTYPE_TMP, s);
}

/* Every interval: the deviation of each group over the packets since the
 * last read
 */
static void fare_traffic_alarm_check(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);
	struct fare_traffic_state *ts = fi->traffic;
	struct fare_traffic_kernel k;
	struct fare_traffic_groups gs;
	const char *err = NULL;

	if (fare_traffic_read(fi, &k, &gs, NULL, &err)) {
		if (ts->window.taken && k.stats)
			for (size_t i = 0; i < gs.n; i++)
				fare_traffic_alarm_group(fi, &k, &gs.g[i],
							 monotime(NULL) - ts->window.taken);
		fare_traffic_snap_take(&ts->window, &k, &gs);
		ts->checks++;
	} else {
		ts->read_errors++;
		if (FARE_DEBUG)
			zlog_debug("FARE: %s: traffic alarm: no nexthop objects read: %s",
				   fi->bgp->name_pretty, err);
	}
	fare_traffic_read_free(&k, &gs);
	event_add_timer(bm->master, fare_traffic_alarm_check, fi, ts->interval, &ts->t_alarm);
}

void fare_traffic_alarm_set(struct fare_instance *fi, bool on, uint32_t threshold,
			    uint64_t min_packets, uint32_t interval)
{
	struct fare_traffic_state *ts = fi->traffic;

	ts->alarm = on;
	ts->threshold = on ? threshold : FARE_TRAFFIC_THRESHOLD_DEFAULT;
	ts->min_packets = on ? min_packets : FARE_TRAFFIC_MIN_PACKETS_DEFAULT;
	ts->interval = on ? interval : FARE_TRAFFIC_INTERVAL_DEFAULT;
	event_cancel(&ts->t_alarm);
	fare_traffic_snap_free(&ts->window);
	if (on)
		event_add_event(bm->master, fare_traffic_alarm_check, fi, 0, &ts->t_alarm);
}

static void fare_traffic_config_write(struct vty *vty, struct fare_instance *fi)
{
	struct fare_traffic_state *ts = fi->traffic;

	if (!ts->alarm)
		return;
	vty_out(vty, " bgp fare traffic-alarm");
	if (ts->threshold != FARE_TRAFFIC_THRESHOLD_DEFAULT)
		vty_out(vty, " threshold %u", ts->threshold);
	if (ts->min_packets != FARE_TRAFFIC_MIN_PACKETS_DEFAULT)
		vty_out(vty, " min-packets %" PRIu64, ts->min_packets);
	if (ts->interval != FARE_TRAFFIC_INTERVAL_DEFAULT)
		vty_out(vty, " interval %u", ts->interval);
	vty_out(vty, "\n");
}

static void fare_traffic_alarm_show(struct vty *vty, const struct fare_traffic_state *ts,
				    json_object *json)
{
	json_object *ja, *jl;

	if (json) {
		ja = json_object_new_object();
		json_object_boolean_add(ja, "enabled", ts->alarm);
		json_object_int_add(ja, "intervalSecs", ts->interval);
		json_object_int_add(ja, "checks", ts->checks);
		json_object_int_add(ja, "readErrors", ts->read_errors);
		json_object_int_add(ja, "alarms", ts->alarms);
		json_object_int_add(ja, "notLogged", ts->log_suppressed);
		if (ts->last.at) {
			jl = json_object_new_object();
			json_object_int_add(jl, "group", ts->last.group);
			json_object_int_add(jl, "member", ts->last.member);
			json_object_double_add(jl, "deviationPoints", ts->last.points);
			json_object_int_add(jl, "packets", ts->last.packets);
			json_object_string_add(jl, "cause", fare_nhs_cause_str(ts->last.cause));
			json_object_int_add(jl, "secsAgo", monotime(NULL) - ts->last.at);
			json_object_object_add(ja, "last", jl);
		}
		json_object_object_add(json, "alarm", ja);
		return;
	}
	if (!ts->alarm) {
		vty_out(vty, "  Alarm: off\n");
		return;
	}
	vty_out(vty, "  Alarm: every %u s, %" PRIu64 " alarm(s) (%" PRIu64 " not logged)",
		ts->interval, ts->alarms, ts->log_suppressed);
	if (ts->last.at)
		vty_out(vty, ", last %lld s ago: group %u, %.1f points over %" PRIu64 " packets: %s",
			(long long)(monotime(NULL) - ts->last.at), ts->last.group, ts->last.points,
			ts->last.packets, fare_nhs_cause_str(ts->last.cause));
	vty_out(vty, "\n");
}

/* ------------------------------------------------------------------ */
/* The show                                                             */
/* ------------------------------------------------------------------ */

/* The worst deviation over the groups shown */
struct fare_traffic_worst {
	double points;
	uint32_t group;
	uint32_t member;
	const char *ifname;
	uint64_t packets;
	uint32_t groups, above;
	json_object *jabove;
};

/* One group: its members' weights, shares and deviations */
static void fare_traffic_show_group(struct vty *vty, struct fare_instance *fi,
				    const struct fare_traffic_kernel *k,
				    const struct fare_traffic_group *g, json_object *jgroups,
				    struct fare_traffic_worst *worst)
{
	struct fare_traffic_state *ts = fi->traffic;
	const struct fare_traffic_nh *nh = fare_traffic_nh_find(k, g->id);
	struct fare_nhs_share *s;
	uint32_t *w;
	uint64_t *p, total = 0;
	json_object *jg = NULL, *jms = NULL;
	bool restarted, counted, above;
	size_t i, wi;
	char addr[INET6_ADDRSTRLEN], dev[32];
	const char *ifname;

	if (jgroups) {
		jg = json_object_new_object();
		json_object_int_add(jg, "id", g->id);
		json_object_string_add(jg, "owner", g->key ? "fare" : "zebra");
		json_object_int_add(jg, "prefixes", g->prefixes);
		json_object_boolean_add(jg, "inKernel", nh && nh->e.group);
		json_object_array_add(jgroups, jg);
	}
	if (!nh || !nh->e.group) {
		if (!jg)
			vty_out(vty, "  Group %u (%s, %u prefix(es)): not in the kernel\n", g->id,
				g->key ? "FARE's" : "zebra's", g->prefixes);
		return;
	}
	counted = k->stats && nh->e.has_stats;
	w = XCALLOC(MTYPE_TMP, (nh->e.n + 1) * sizeof(*w));
	p = XCALLOC(MTYPE_TMP, (nh->e.n + 1) * sizeof(*p));
	s = XCALLOC(MTYPE_TMP, (nh->e.n + 1) * sizeof(*s));
	restarted = fare_traffic_since(&ts->cleared, g, nh, p);
	for (i = 0; i < nh->e.n; i++)
		w[i] = nh->m[i].weight;
	wi = fare_nhs_shares(w, p, nh->e.n, s, &total);
	above = counted && total >= ts->min_packets && nh->e.n &&
		fabs(s[wi].deviation) * 100 > ts->threshold;
	worst->groups++;
	if (above) {
		worst->above++;
		if (worst->jabove)
			json_object_array_add(worst->jabove, json_object_new_int64(g->id));
	}
	if (counted && nh->e.n && total && fabs(s[wi].deviation) * 100 >= worst->points) {
		const struct fare_traffic_nh *mnh = fare_traffic_nh_find(k, nh->m[wi].id);

		fare_traffic_member_names(fi, mnh, addr, sizeof(addr), &ifname);
		worst->points = fabs(s[wi].deviation) * 100;
		worst->group = g->id;
		worst->member = nh->m[wi].id;
		worst->ifname = ifname;
	}
	worst->packets += total;

	if (jg) {
		json_object_boolean_add(jg, "counted", counted);
		json_object_boolean_add(jg, "countersRestarted", restarted);
		json_object_int_add(jg, "packets", total);
		json_object_double_add(jg, "worstDeviationPoints",
				       nh->e.n ? fabs(s[wi].deviation) * 100 : 0);
		json_object_boolean_add(jg, "aboveThreshold", above);
		jms = json_object_new_array();
		json_object_object_add(jg, "members", jms);
	} else {
		vty_out(vty, "  Group %u (%s, %u prefix(es)): ", g->id,
			g->key ? "FARE's" : "zebra's", g->prefixes);
		if (counted)
			vty_out(vty, "%" PRIu64 " packet(s)%s, worst deviation %.1f point(s)%s\n",
				total, restarted ? " since it was replaced" : "",
				nh->e.n ? fabs(s[wi].deviation) * 100 : 0,
				above ? ", ABOVE THRESHOLD" : "");
		else
			vty_out(vty, "not counted by this kernel\n");
		vty_out(vty, "    %-10s %-26s %-12s %6s %8s %8s %9s %12s\n", "Member", "Nexthop",
			"Interface", "Weight", "Intended", "Measured", "Deviation", "Packets");
	}
	for (i = 0; i < nh->e.n; i++) {
		const struct fare_traffic_nh *mnh = fare_traffic_nh_find(k, nh->m[i].id);
		uint32_t fw = fare_traffic_fare_weight(g->key, mnh);

		fare_traffic_member_names(fi, mnh, addr, sizeof(addr), &ifname);
		if (jms) {
			json_object *jm = json_object_new_object();

			json_object_int_add(jm, "id", nh->m[i].id);
			json_object_string_add(jm, "nexthop", addr);
			json_object_string_add(jm, "interface", ifname);
			json_object_int_add(jm, "weight", w[i]);
			if (g->key)
				json_object_int_add(jm, "fareWeight", fw);
			json_object_double_add(jm, "intendedPercent", s[i].intended * 100);
			if (counted) {
				json_object_int_add(jm, "packets", p[i]);
				json_object_double_add(jm, "measuredPercent", s[i].measured * 100);
				json_object_double_add(jm, "deviationPoints", s[i].deviation * 100);
				if (nh->m[i].has_hw)
					json_object_int_add(jm, "packetsHw", nh->m[i].packets_hw);
			}
			json_object_array_add(jms, jm);
			continue;
		}
		/* with libc's snprintf: FRR 10.7.1's printfrr ends its output
		 * at a negative double
		 */
		snprintf(dev, sizeof(dev), "%+.1f", s[i].deviation * 100);
		if (counted)
			vty_out(vty, "    %-10u %-26s %-12s %6u %7.1f%% %7.1f%% %9s %12" PRIu64 "\n",
				nh->m[i].id, addr, ifname, w[i], s[i].intended * 100,
				s[i].measured * 100, dev, p[i]);
		else
			vty_out(vty, "    %-10u %-26s %-12s %6u %7.1f%% %8s %9s %12s\n",
				nh->m[i].id, addr, ifname, w[i], s[i].intended * 100, "-", "-", "-");
	}
	XFREE(MTYPE_TMP, w);
	XFREE(MTYPE_TMP, p);
	XFREE(MTYPE_TMP, s);
}

static const char *fare_traffic_unsupported =
	"this kernel does not count packets per member of a nexthop group (Linux 6.9 and later do)";
static const char *fare_traffic_no_group =
	"the kernel has no BGP route of this prefix on a nexthop group (not installed, or a single next hop)";

/* The kernel's nexthop objects and the instance's groups, for a show;
 * false (said in json or text) when they could not be read
 */
static bool fare_traffic_show_read(struct vty *vty, struct fare_instance *fi,
				   struct fare_traffic_kernel *k, struct fare_traffic_groups *gs,
				   struct fare_traffic_prefix_route *pr, json_object *json)
{
	const char *err = NULL;

	if (fare_traffic_read(fi, k, gs, pr, &err))
		return true;
	if (json) {
		json_object_boolean_add(json, "countersSupported", false);
		json_object_string_addf(json, "reason", "no nexthop objects read: %s", err);
	} else {
		vty_out(vty, "%% No nexthop objects read from the kernel: %s\n", err);
	}
	fare_traffic_read_free(k, gs);
	return false;
}

/* What both shows begin with: whether the kernel counts, since when,
 * the threshold
 */
static void fare_traffic_show_head(struct vty *vty, struct fare_instance *fi,
				   const struct fare_traffic_kernel *k, json_object *json)
{
	struct fare_traffic_state *ts = fi->traffic;
	bool counted, any_group;
	size_t i;

	/* the kernel took the flag, and reports counters of its groups (a
	 * kernel before 6.9 refuses the flag, or may ignore it); with no
	 * group in the namespace at all, nothing says otherwise
	 */
	counted = k->stats;
	for (i = 0, any_group = false; k->stats && i < k->n; i++) {
		if (!k->nh[i].e.group)
			continue;
		if (!any_group)
			counted = false;
		any_group = true;
		if (k->nh[i].e.has_stats)
			counted = true;
	}
	if (json) {
		json_object_string_add(json, "vrf", fi->bgp->name_pretty);
		json_object_boolean_add(json, "countersSupported", counted);
		if (!counted)
			json_object_string_add(json, "reason", fare_traffic_unsupported);
		json_object_string_add(json, "groupsOf",
				       fi->nhg ? "bgp fare nexthop-groups" : "zebra");
		json_object_int_add(json, "sinceClearSecs",
				    ts->cleared.taken ? monotime(NULL) - ts->cleared.taken : -1);
		json_object_int_add(json, "thresholdPoints", ts->threshold);
		json_object_int_add(json, "minPackets", ts->min_packets);
		return;
	}
	if (!counted)
		vty_out(vty, "  %s\n", fare_traffic_unsupported);
	if (ts->cleared.taken)
		vty_out(vty, "  Counted since the clear %lld s ago\n",
			(long long)(monotime(NULL) - ts->cleared.taken));
	else
		vty_out(vty, "  Counted since each group was installed (never cleared)\n");
}

void fare_traffic_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	struct fare_traffic_state *ts = fi->traffic;
	struct fare_traffic_kernel k;
	struct fare_traffic_groups gs;
	struct fare_traffic_worst worst = {};
	json_object *jgroups = NULL, *jsum;
	size_t i;

	if (!fare_traffic_show_read(vty, fi, &k, &gs, NULL, json))
		return;
	if (!json)
		vty_out(vty,
			"FARE traffic %s: packets per member of the nexthop groups of its routes (%s)\n",
			fi->bgp->name_pretty, fi->nhg ? "the module's groups" : "zebra's groups");
	fare_traffic_show_head(vty, fi, &k, json);
	if (json) {
		jgroups = json_object_new_array();
		json_object_object_add(json, "groups", jgroups);
		worst.jabove = json_object_new_array();
	}
	for (i = 0; i < gs.n; i++)
		fare_traffic_show_group(vty, fi, &k, &gs.g[i], jgroups, &worst);
	if (json) {
		jsum = json_object_new_object();
		json_object_int_add(jsum, "groups", worst.groups);
		json_object_int_add(jsum, "packets", worst.packets);
		json_object_double_add(jsum, "worstDeviationPoints", worst.points);
		if (worst.group) {
			json_object_int_add(jsum, "worstGroup", worst.group);
			json_object_int_add(jsum, "worstMember", worst.member);
			json_object_string_add(jsum, "worstInterface", worst.ifname);
		}
		json_object_object_add(jsum, "groupsAboveThreshold", worst.jabove);
		json_object_object_add(json, "summary", jsum);
	} else {
		vty_out(vty,
			"  Summary: %u group(s), %" PRIu64
			" packet(s), worst deviation %.1f point(s)",
			worst.groups, worst.packets, worst.points);
		if (worst.group)
			vty_out(vty, " (group %u, member %u via %s)", worst.group, worst.member,
				worst.ifname);
		vty_out(vty, "; %u group(s) above %u point(s) over %" PRIu64 " packet(s) or more\n",
			worst.above, ts->threshold, ts->min_packets);
	}
	fare_traffic_alarm_show(vty, ts, json);
	fare_traffic_read_free(&k, &gs);
}

void fare_traffic_show_prefix(struct vty *vty, struct fare_instance *fi, const struct prefix *p,
			      json_object *json)
{
	struct fare_traffic_kernel k;
	struct fare_traffic_groups gs;
	struct fare_traffic_worst worst = {};
	struct fare_traffic_prefix_route pr = { .p = p };
	struct fare_traffic_group one = {}, *g = NULL;
	const struct fare_traffic_nh *nh;
	json_object *jgroups;
	uint32_t single = 0;
	size_t i;

	if (!fare_traffic_show_read(vty, fi, &k, &gs, &pr, json))
		return;
	/* a route on one next hop has a nexthop object of its own, no group */
	nh = pr.nhid ? fare_traffic_nh_find(&k, pr.nhid) : NULL;
	if (nh && !nh->e.group) {
		single = pr.nhid;
		pr.nhid = 0;
	}
	if (json) {
		json_object_string_addf(json, "prefix", "%pFX", p);
	} else {
		vty_out(vty, "FARE traffic %s, %pFX: ", fi->bgp->name_pretty, p);
		if (pr.nhid)
			vty_out(vty, "kernel nexthop group %u\n", pr.nhid);
		else if (single)
			vty_out(vty, "one next hop (kernel nexthop %u), no group\n", single);
		else
			vty_out(vty, "no kernel nexthop group\n");
	}
	fare_traffic_show_head(vty, fi, &k, json);
	if (json) {
		json_object_int_add(json, "nexthopGroupId", pr.nhid);
		if (single)
			json_object_int_add(json, "nexthopId", single);
	}
	/* the group as the show of all has it (owner, prefixes), else the
	 * route's group alone (zebra's)
	 */
	for (i = 0; pr.nhid && i < gs.n && !g; i++)
		if (gs.g[i].id == pr.nhid)
			g = &gs.g[i];
	if (pr.nhid && !g) {
		one.id = pr.nhid;
		g = &one;
	}
	if (!g) {
		if (json)
			json_object_string_add(json, "reason", fare_traffic_no_group);
		else
			vty_out(vty, "  %s\n", fare_traffic_no_group);
	} else if (json) {
		jgroups = json_object_new_array();
		fare_traffic_show_group(vty, fi, &k, g, jgroups, &worst);
		json_object_object_add(json, "group",
				       json_object_get(json_object_array_get_idx(jgroups, 0)));
		json_object_put(jgroups);
	} else {
		fare_traffic_show_group(vty, fi, &k, g, NULL, &worst);
	}
	fare_traffic_read_free(&k, &gs);
}

/* ------------------------------------------------------------------ */
/* The instance's state                                                 */
/* ------------------------------------------------------------------ */

static void fare_traffic_instance_new(struct fare_instance *fi)
{
	fi->traffic = XCALLOC(MTYPE_FARE_TRAFFIC, sizeof(*fi->traffic));
	fi->traffic->threshold = FARE_TRAFFIC_THRESHOLD_DEFAULT;
	fi->traffic->min_packets = FARE_TRAFFIC_MIN_PACKETS_DEFAULT;
	fi->traffic->interval = FARE_TRAFFIC_INTERVAL_DEFAULT;
}

static void fare_traffic_instance_free(struct fare_instance *fi)
{
	if (!fi->traffic)
		return;
	event_cancel(&fi->traffic->t_alarm);
	fare_traffic_snap_free(&fi->traffic->cleared);
	fare_traffic_snap_free(&fi->traffic->window);
	XFREE(MTYPE_FARE_TRAFFIC, fi->traffic);
}

const struct fare_feature fare_traffic_feature = {
	.name = "traffic",
	.instance_new = fare_traffic_instance_new,
	.instance_free = fare_traffic_instance_free,
	.config_write = fare_traffic_config_write,
};
