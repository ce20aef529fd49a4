// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd: the tracked flows of the per-flow destinations, through
 * libnetfilter-conntrack. A flow table keyed by conntrack id holds the
 * flows carrying one of our marks (NEW and DESTROY events, and a dump at
 * start, on lost events and before each rebalance); live counts per member
 * follow it. Moving a flow is a conntrack update of its mark's bits within
 * mark-mask (CTA_MARK_MASK): other tools' bits of the mark stay.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <libnetfilter_conntrack/libnetfilter_conntrack.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>

#include "fare_dpd.h"

#define FLOW_BUCKETS	 16384
#define DP_CT_LOOKUP_MAX 512

struct dp_flow {
	struct dp_flow *next;
	uint32_t id;
	uint32_t gen;
	uint16_t d;
	uint8_t k;
	struct nf_conntrack *tuple; /* original tuple (and zone) */
};

struct dp_ct {
	struct nfct_handle *ev; /* NEW and DESTROY events */
	struct nfct_handle *q;	/* dumps and lookups */
	struct mnl_socket *upd; /* mark updates (with a mask) */
	uint32_t upd_seq;
	struct dp_flow *flows[FLOW_BUCKETS];
	size_t nflows;
	uint32_t gen;
	struct nfct_filter_dump_mark range; /* a superset of our marks */

	/* while reading */
	struct dp_config *cfg;
	uint64_t idle;
};

/* A flow is its conntrack id and original tuple: the kernel's 32-bit id
 * is a hash, and two live flows can share one.
 */
static struct dp_flow **flow_slot(struct dp_ct *ct, uint32_t id, const struct nf_conntrack *c)
{
	struct dp_flow **p = &ct->flows[id % FLOW_BUCKETS];

	while (*p && ((*p)->id != id || !nfct_cmp((*p)->tuple, c, NFCT_CMP_ORIG)))
		p = &(*p)->next;
	return p;
}

static void flow_unlink(struct dp_ct *ct, struct dp_flow **slot)
{
	struct dp_flow *f = *slot;

	*slot = f->next;
	nfct_destroy(f->tuple);
	free(f);
	ct->nflows--;
}

/* A per-flow destination's member from a conntrack entry's mark. */
static bool flow_member(const struct dp_config *cfg, const struct nf_conntrack *c, size_t *d,
			unsigned *k)
{
	if (!nfct_attr_is_set(c, ATTR_MARK) || !nfct_attr_is_set(c, ATTR_ID))
		return false;
	if (!dp_mark_member(cfg, nfct_get_attr_u32(c, ATTR_MARK), d, k))
		return false;
	return cfg->dests[*d].mode == DP_PER_FLOW;
}

/* Add the flow or move it to member k: false when out of memory. */
static bool flow_put(struct dp_ct *ct, const struct nf_conntrack *c, size_t d, unsigned k,
		     bool *added)
{
	uint32_t id = nfct_get_attr_u32(c, ATTR_ID);
	struct dp_flow **slot = flow_slot(ct, id, c), *f = *slot;

	*added = false;
	if (!f) {
		f = calloc(1, sizeof(*f));
		if (!f)
			return false;
		f->tuple = nfct_new();
		if (!f->tuple) {
			free(f);
			return false;
		}
		nfct_copy(f->tuple, c, NFCT_CP_ORIG);
		if (nfct_attr_is_set(c, ATTR_ZONE))
			nfct_set_attr_u16(f->tuple, ATTR_ZONE, nfct_get_attr_u16(c, ATTR_ZONE));
		f->id = id;
		f->next = *slot;
		*slot = f;
		ct->nflows++;
		*added = true;
	}
	f->d = (uint16_t)d;
	f->k = (uint8_t)k;
	f->gen = ct->gen;
	return true;
}

static uint32_t dest_live(const struct dp_dest *d)
{
	uint32_t n = 0;

	for (size_t k = 0; k < FARE_DP_MEMBERS_MAX; k++)
		n += d->members[k].live;
	return n;
}

static int ev_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *c, void *data)
{
	struct dp_ct *ct = data;
	struct dp_config *cfg = ct->cfg;
	size_t d;
	unsigned k;

	if (type == NFCT_T_NEW) {
		bool added;

		if (!flow_member(cfg, c, &d, &k))
			return NFCT_CB_CONTINUE;
		cfg->dests[d].placed++;
		cfg->dests[d].placed_cycle++;
		if (!flow_put(ct, c, d, k, &added))
			return NFCT_CB_CONTINUE; /* counted at the next sync */
		if (added)
			cfg->dests[d].members[k].live++;
		dp_dbg("%s: flow %u placed on member %u", cfg->dests[d].name,
		       nfct_get_attr_u32(c, ATTR_ID), k);
	} else if (type == NFCT_T_DESTROY && nfct_attr_is_set(c, ATTR_ID)) {
		struct dp_flow **slot = flow_slot(ct, nfct_get_attr_u32(c, ATTR_ID), c);
		struct dp_dest *dest;

		if (!*slot)
			return NFCT_CB_CONTINUE;
		dest = &cfg->dests[(*slot)->d];
		if (dest->members[(*slot)->k].live)
			dest->members[(*slot)->k].live--;
		dest->expired++;
		dp_dbg("%s: flow %u expired from member %u", dest->name, (*slot)->id, (*slot)->k);
		flow_unlink(ct, slot);
		if (dest_live(dest) == 0)
			ct->idle |= 1ull << dest->idx;
	}
	return NFCT_CB_CONTINUE;
}

static int dump_cb(enum nf_conntrack_msg_type type, struct nf_conntrack *c, void *data)
{
	struct dp_ct *ct = data;
	size_t d;
	unsigned k;
	bool added;

	(void)type;
	if (flow_member(ct->cfg, c, &d, &k))
		flow_put(ct, c, d, k, &added);
	return NFCT_CB_CONTINUE;
}

/* The smallest mark/mask range holding every mark of ours (within mark-mask). */
static void mark_range(const struct dp_config *cfg, struct nfct_filter_dump_mark *r)
{
	uint32_t lo = cfg->mark_base + 1;
	uint32_t hi = cfg->mark_base + (uint32_t)cfg->ndests * DP_MEMBER_STRIDE;
	uint32_t x = lo ^ hi;
	int bits = x ? 32 - __builtin_clz(x) : 0;

	r->mask = (bits >= 32 ? 0 : ~0u << bits) & cfg->mark_mask;
	r->val = lo & r->mask;
}

struct dp_ct *dp_ct_open(const struct dp_config *cfg)
{
	struct dp_ct *ct = calloc(1, sizeof(*ct));
	struct nfct_filter *filter;
	int fd, rcvbuf = 8 * 1024 * 1024;

	if (!ct)
		return NULL;
	mark_range(cfg, &ct->range);
	ct->ev = nfct_open(CONNTRACK, NF_NETLINK_CONNTRACK_NEW | NF_NETLINK_CONNTRACK_DESTROY);
	ct->q = nfct_open(CONNTRACK, 0);
	ct->upd = mnl_socket_open(NETLINK_NETFILTER);
	if (ct->upd && mnl_socket_bind(ct->upd, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(ct->upd);
		ct->upd = NULL;
	}
	if (!ct->ev || !ct->q || !ct->upd) {
		dp_log(3, "conntrack: %s", strerror(errno));
		dp_ct_close(ct);
		return NULL;
	}
	fd = nfct_fd(ct->ev);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(nfct_fd(ct->q), F_SETFD, FD_CLOEXEC);
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));

	/* only the events of flows carrying our marks reach us */
	filter = nfct_filter_create();
	if (filter) {
		nfct_filter_add_attr(filter, NFCT_FILTER_MARK, &ct->range);
		nfct_filter_set_logic(filter, NFCT_FILTER_MARK, NFCT_FILTER_LOGIC_POSITIVE);
		if (nfct_filter_attach(fd, filter) < 0)
			dp_log(4, "conntrack: event filter: %s (reading every event)",
			       strerror(errno));
		nfct_filter_destroy(filter);
	}
	nfct_callback_register(ct->ev, NFCT_T_NEW | NFCT_T_DESTROY, ev_cb, ct);
	nfct_callback_register(ct->q, NFCT_T_ALL, dump_cb, ct);
	return ct;
}

void dp_ct_close(struct dp_ct *ct)
{
	if (!ct)
		return;
	for (size_t i = 0; i < FLOW_BUCKETS; i++)
		while (ct->flows[i])
			flow_unlink(ct, &ct->flows[i]);
	if (ct->ev)
		nfct_close(ct->ev);
	if (ct->q)
		nfct_close(ct->q);
	if (ct->upd)
		mnl_socket_close(ct->upd);
	free(ct);
}

int dp_ct_fd(const struct dp_ct *ct)
{
	return nfct_fd(ct->ev);
}

int dp_ct_read(struct dp_ct *ct, struct dp_config *cfg, uint64_t *idle)
{
	int lost = 0;

	ct->cfg = cfg;
	ct->idle = 0;
	for (;;) {
		if (nfct_catch(ct->ev) >= 0)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			break;
		if (errno == ENOBUFS) {
			lost = -1;
			continue;
		}
		dp_log(3, "conntrack events: %s", strerror(errno));
		break;
	}
	*idle = ct->idle;
	return lost;
}

/* After a dump or a refresh: forget the flows not seen, count the live ones. */
static void flow_sweep(struct dp_ct *ct, struct dp_config *cfg)
{
	for (size_t i = 0; i < cfg->ndests; i++)
		for (size_t k = 0; k < FARE_DP_MEMBERS_MAX; k++)
			cfg->dests[i].members[k].live = 0;
	for (size_t i = 0; i < FLOW_BUCKETS; i++) {
		struct dp_flow **p = &ct->flows[i];

		while (*p) {
			if ((*p)->gen != ct->gen || (*p)->d >= cfg->ndests) {
				/* gone: timed out (a dump or a lookup reaps it) */
				if ((*p)->d < cfg->ndests)
					cfg->dests[(*p)->d].expired++;
				flow_unlink(ct, p);
				continue;
			}
			cfg->dests[(*p)->d].members[(*p)->k].live++;
			p = &(*p)->next;
		}
	}
}

int dp_ct_sync(struct dp_ct *ct, struct dp_config *cfg)
{
	struct nfct_filter_dump *fd;
	int ret;

	fd = nfct_filter_dump_create();
	ct->cfg = cfg;
	ct->gen++;
	if (fd) {
		nfct_filter_dump_set_attr(fd, NFCT_FILTER_DUMP_MARK, &ct->range);
		ret = nfct_query(ct->q, NFCT_Q_DUMP_FILTER, fd);
		nfct_filter_dump_destroy(fd);
	} else {
		uint32_t family = AF_UNSPEC;

		ret = nfct_query(ct->q, NFCT_Q_DUMP, &family);
	}
	if (ret < 0) {
		dp_log(3, "conntrack dump: %s", strerror(errno));
		return -1;
	}
	flow_sweep(ct, cfg);
	return 0;
}

int dp_ct_refresh(struct dp_ct *ct, struct dp_config *cfg)
{
	struct dp_flow **all;
	size_t n = 0;

	/*
	 * A dump walks the whole conntrack hash (all namespaces share it: a
	 * few ms); a lookup per tracked flow is cheaper for a few hundred.
	 */
	if (ct->nflows > DP_CT_LOOKUP_MAX)
		return dp_ct_sync(ct, cfg);
	ct->cfg = cfg;
	ct->gen++;
	all = calloc(ct->nflows ? ct->nflows : 1, sizeof(*all));
	if (!all)
		return dp_ct_sync(ct, cfg);
	for (size_t i = 0; i < FLOW_BUCKETS; i++)
		for (struct dp_flow *f = ct->flows[i]; f; f = f->next)
			all[n++] = f;
	for (size_t i = 0; i < n; i++) {
		/* the answer goes through dump_cb, which marks the flow seen */
		if (nfct_query(ct->q, NFCT_Q_GET, all[i]->tuple) < 0) {
			dp_dbg("conntrack: flow %u: %s", all[i]->id, strerror(errno));
			if (errno != ENOENT)
				all[i]->gen = ct->gen; /* keep it on other errors */
		} else if (all[i]->gen != ct->gen) {
			dp_dbg("conntrack: flow %u: answer not seen", all[i]->id);
		}
	}
	free(all);
	flow_sweep(ct, cfg);
	return 0;
}

/*
 * The flow's mark bits within mask := those of u's mark, the others kept
 * (the kernel's newmark = (mark & ~CTA_MARK_MASK) ^ CTA_MARK); libnetfilter-
 * conntrack 1.0.9 has no mask on updates, so the request is built here.
 * -1 with errno on failure (ENOENT: the flow is gone).
 */
static int ct_set_mark(struct dp_ct *ct, const struct nf_conntrack *u, uint32_t mask)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;
	uint32_t seq = ++ct->upd_seq, portid = mnl_socket_get_portid(ct->upd);
	ssize_t n;
	int ret;

	nlh->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | IPCTNL_MSG_CT_NEW;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = nfct_get_attr_u8(u, ATTR_L3PROTO);
	nfg->version = NFNETLINK_V0;
	nfg->res_id = 0;
	if (nfct_nlmsg_build(nlh, u) < 0)
		return -1;
	mnl_attr_put_u32(nlh, CTA_MARK_MASK, htonl(mask));
	if (mnl_socket_sendto(ct->upd, nlh, nlh->nlmsg_len) < 0)
		return -1;
	do {
		n = mnl_socket_recvfrom(ct->upd, buf, sizeof(buf));
		if (n < 0)
			return -1;
		ret = mnl_cb_run(buf, (size_t)n, seq, portid, NULL, NULL);
	} while (ret > 0);
	return ret < 0 ? -1 : 0;
}

static int flow_cmp(const void *a, const void *b)
{
	const struct dp_flow *x = *(struct dp_flow *const *)a, *y = *(struct dp_flow *const *)b;

	return x->id < y->id ? -1 : x->id > y->id;
}

uint32_t dp_ct_move(struct dp_ct *ct, struct dp_config *cfg, struct dp_dest *d,
		    const uint32_t *target, uint32_t *failed)
{
	struct dp_flow **all = NULL, **moving = NULL;
	size_t n = 0, nmoving = 0, next = 0;
	uint32_t moved = 0;

	*failed = 0;

	for (size_t i = 0; i < FLOW_BUCKETS; i++)
		for (struct dp_flow *f = ct->flows[i]; f; f = f->next)
			n += f->d == d->idx;
	if (!n)
		return 0;
	all = calloc(n, sizeof(*all));
	moving = calloc(n, sizeof(*moving));
	if (!all || !moving) {
		dp_log(3, "%s: out of memory moving flows", d->name);
		*failed = 1;
		goto out;
	}
	n = 0;
	for (size_t i = 0; i < FLOW_BUCKETS; i++)
		for (struct dp_flow *f = ct->flows[i]; f; f = f->next)
			if (f->d == d->idx)
				all[n++] = f;
	qsort(all, n, sizeof(*all), flow_cmp);

	/* the released flows: each member above its target, lowest id first */
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		uint32_t release = d->members[k].live > target[k] ? d->members[k].live - target[k]
								  : 0;

		for (size_t i = 0; i < n && release; i++) {
			if (all[i]->k != k)
				continue;
			moving[nmoving++] = all[i];
			release--;
		}
	}
	/* to the members below their target, in member order */
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX && next < nmoving; k++) {
		while (d->members[k].live < target[k] && next < nmoving) {
			struct dp_flow *f = moving[next++];
			struct nf_conntrack *u = nfct_new();
			uint32_t mark = dp_mark(cfg, d, k);

			if (!u) {
				(*failed)++;
				break;
			}
			nfct_copy(u, f->tuple, NFCT_CP_ORIG);
			if (nfct_attr_is_set(f->tuple, ATTR_ZONE))
				nfct_set_attr_u16(u, ATTR_ZONE,
						  nfct_get_attr_u16(f->tuple, ATTR_ZONE));
			nfct_set_attr_u32(u, ATTR_MARK, mark);
			if (ct_set_mark(ct, u, cfg->mark_mask) < 0) {
				int err = errno;

				nfct_destroy(u);
				dp_log(err == ENOENT ? 7 : 4, "%s: flow %u: mark update: %s",
				       d->name, f->id, strerror(err));
				if (err == ENOENT) {
					/* gone meanwhile: its DESTROY is not counted */
					if (d->members[f->k].live)
						d->members[f->k].live--;
					flow_unlink(ct, flow_slot(ct, f->id, f->tuple));
				} else {
					/* it stays where it is: the rebalance is retried */
					(*failed)++;
				}
				continue;
			}
			nfct_destroy(u);
			dp_dbg("%s: flow %u moved from member %u to %u", d->name, f->id, f->k, k);
			d->members[f->k].live--;
			d->members[k].live++;
			f->k = (uint8_t)k;
			moved++;
		}
	}
out:
	free(all);
	free(moving);
	return moved;
}
