// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd and fare-dp: logging, small helpers, and the replies of the
 * control socket (show, show json, plan).
 */
#include <arpa/inet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <syslog.h>

#include "fare_dpd.h"

bool dp_debug;
bool dp_syslog;
const char *dp_progname = "fare-dpd";

void dp_log(int prio, const char *fmt, ...)
{
	va_list ap;

	if (prio >= LOG_DEBUG && !dp_debug)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", dp_progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	if (dp_syslog && prio < LOG_DEBUG) {
		va_start(ap, fmt);
		vsyslog(prio, fmt, ap);
		va_end(ap);
	}
}

/* ---- helpers ---- */

bool dp_mark_member(const struct dp_config *cfg, uint32_t mark, size_t *d, unsigned *k)
{
	uint32_t off;

	if (cfg->mark_mask)
		mark &= cfg->mark_mask; /* the other bits are other tools' */
	if (mark <= cfg->mark_base)
		return false;
	off = mark - cfg->mark_base - 1;
	if (off / DP_MEMBER_STRIDE >= cfg->ndests)
		return false;
	*d = off / DP_MEMBER_STRIDE;
	*k = off % DP_MEMBER_STRIDE;
	return true;
}

bool dp_gw_equal(const struct dp_gw *a, const struct dp_gw *b)
{
	if (a->family != b->family)
		return false;
	return !a->family || !memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16);
}

bool dp_prefix_parse(const char *s, int *family, uint8_t *addr, uint8_t *plen)
{
	char tmp[DP_NAME_LEN], *slash, *end;
	unsigned long len;
	size_t alen, max;

	if (strlen(s) >= sizeof(tmp))
		return false;
	strcpy(tmp, s);
	slash = strchr(tmp, '/');
	if (slash)
		*slash++ = '\0';
	memset(addr, 0, 16);
	if (inet_pton(AF_INET, tmp, addr) == 1)
		*family = AF_INET;
	else if (inet_pton(AF_INET6, tmp, addr) == 1)
		*family = AF_INET6;
	else
		return false;
	alen = *family == AF_INET ? 4 : 16;
	max = alen * 8;
	len = max;
	if (slash) {
		len = strtoul(slash, &end, 10);
		if (!*slash || *end || len > max)
			return false;
	}
	*plen = (uint8_t)len;
	for (size_t bit = len; bit < max; bit++)
		addr[bit / 8] &= (uint8_t) ~(0x80u >> (bit % 8));
	return true;
}

void dp_prefix_format(int family, const uint8_t *addr, uint8_t plen, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, a, sizeof(a)))
		strcpy(a, "?");
	snprintf(buf, len, "%s/%u", a, plen);
}

void dp_gw_format(const struct dp_gw *gw, char *buf, size_t len)
{
	if (!gw->family) {
		snprintf(buf, len, "-");
		return;
	}
	if (!inet_ntop(gw->family, gw->addr, buf, len))
		snprintf(buf, len, "?");
}

void dp_ifname(int ifindex, char *buf, size_t len)
{
	char name[IF_NAMESIZE];

	if (ifindex && if_indextoname((unsigned)ifindex, name))
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "if%d", ifindex);
}

void dp_stamp_now(struct dp_stamp *s)
{
	clock_gettime(CLOCK_REALTIME, &s->real);
	clock_gettime(CLOCK_MONOTONIC, &s->mono);
}

double dp_stamp_ms(const struct dp_stamp *from, const struct dp_stamp *to)
{
	return (double)(to->mono.tv_sec - from->mono.tv_sec) * 1e3 +
	       (double)(to->mono.tv_nsec - from->mono.tv_nsec) / 1e6;
}

/* ---- buffer ---- */

void dp_buf_printf(struct dp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (b->oom)
		return;
	for (;;) {
		size_t room = b->cap - b->len;

		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			b->oom = true;
			return;
		}
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap : 1024;

		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);

		if (!s) {
			b->oom = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
}

void dp_buf_json_str(struct dp_buf *b, const char *s)
{
	dp_buf_printf(b, "\"");
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			dp_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			dp_buf_printf(b, "\\u%04x", c);
		else
			dp_buf_printf(b, "%c", c);
	}
	dp_buf_printf(b, "\"");
}

void dp_buf_free(struct dp_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- show ---- */

static const char *mode_str(enum dp_mode m)
{
	return m == DP_PER_FLOW ? "per-flow" : "per-packet";
}

static const char *recover_str(enum fare_dp_recover r)
{
	return r == FARE_DP_RECOVER_AT_ONCE ? "at-once" : "next-burst";
}

static void time_str(const struct timespec *ts, char *buf, size_t len)
{
	struct tm tm;
	char s[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%09ldZ", s, ts->tv_nsec);
}

size_t dp_dest_weights(const struct dp_dest *d, uint32_t *weights, unsigned *ks)
{
	size_t n = 0;

	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (!m->used || !m->in_group || !m->weight)
			continue;
		weights[n] = m->weight;
		ks[n++] = k;
	}
	return n;
}

/* the quotas of the live flows over all members in use, by member */
static void dest_quota(const struct dp_dest *d, uint32_t *quota_by_k)
{
	uint32_t w[FARE_DP_MEMBERS_MAX], q[FARE_DP_MEMBERS_MAX], live = 0;
	unsigned ks[FARE_DP_MEMBERS_MAX];
	size_t n = 0;

	memset(quota_by_k, 0, sizeof(uint32_t) * FARE_DP_MEMBERS_MAX);
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		if (!d->members[k].used)
			continue;
		w[n] = d->members[k].in_group ? d->members[k].weight : 0;
		ks[n++] = k;
		live += d->members[k].live;
	}
	if (!n)
		return;
	fare_dp_quota(w, n, live, q);
	for (size_t i = 0; i < n; i++)
		quota_by_k[ks[i]] = q[i];
}

/* Restarts and failures (dataplane/DESIGN.md, "Restart, crash, failures") */
static void show_robust_text(struct dp_buf *b, const struct dp_robust *rb)
{
	dp_buf_printf(b,
		      "  at start: %u member(s), %u live flow(s) adopted%s\n"
		      "  resync dumps failed %llu, retried %llu%s, interrupted dumps %llu; "
		      "conntrack failed %llu, retried %llu\n",
		      rb->adopted_members, rb->adopted_flows,
		      rb->handoff_found ? ", a previous instance's hand-off table replaced" : "",
		      (unsigned long long)rb->resync_failed, (unsigned long long)rb->resync_retried,
		      rb->resync_pending ? " (pending)" : "",
		      (unsigned long long)rb->dumps_interrupted, (unsigned long long)rb->ct_failed,
		      (unsigned long long)rb->ct_retried);
	if (rb->faults_injected)
		dp_buf_printf(b, "  test faults injected: %llu\n",
			      (unsigned long long)rb->faults_injected);
}

static void show_text(struct dp_buf *b, const struct dp_config *cfg)
{
	dp_buf_printf(b,
		      "fare-dpd: %zu destination(s), mark-base 0x%x, mark-mask 0x%x, table-base %u, "
		      "rule-priority %u\n",
		      cfg->ndests, cfg->mark_base, cfg->mark_mask, cfg->table_base,
		      cfg->rule_priority);
	show_robust_text(b, &cfg->rb);
	for (size_t i = 0; i < cfg->ndests; i++) {
		const struct dp_dest *d = &cfg->dests[i];
		uint32_t quota[FARE_DP_MEMBERS_MAX], live = 0;

		dest_quota(d, quota);
		dp_buf_printf(b, "\ndestination %s %s%s", d->name, mode_str(d->mode),
			      d->pend ? " (rebalance pending)" : "");
		if (d->udp_port)
			dp_buf_printf(b, " udp-port %u", d->udp_port);
		if (d->mode == DP_PER_FLOW) {
			if (d->idle)
				dp_buf_printf(b, " idle %u", d->idle);
			dp_buf_printf(b, " recover %s", recover_str(d->recover));
		}
		dp_buf_printf(b, "\n");
		if (!d->route.present) {
			dp_buf_printf(b, "  route: none in the main table\n");
		} else {
			if (d->group)
				dp_buf_printf(b, "  route: nexthop group %u", d->group);
			else
				dp_buf_printf(b, "  route: no nexthop group");
			dp_buf_printf(b, ", %zu slot(s) %s%s\n", d->nslots,
				      d->fill ? "from the live counts" : "of the weights' cycle",
				      d->dirty ? " (programming failed, retrying)" : "");
		}
		dp_buf_printf(b, "  %-3s %-12s %-26s %6s %-11s %-9s %5s %5s\n", "k", "device",
			      "gateway", "weight", "mark", "table", "live", "quota");
		for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
			const struct dp_member *m = &d->members[k];
			char dev[IF_NAMESIZE + 8], gw[INET6_ADDRSTRLEN], mark[16];

			if (!m->used)
				continue;
			dp_ifname(m->ifindex, dev, sizeof(dev));
			dp_gw_format(&m->gw, gw, sizeof(gw));
			snprintf(mark, sizeof(mark), "0x%x", dp_mark(cfg, d, k));
			dp_buf_printf(b, "  %-3u %-12s %-26s %6u %-11s %-9u %5u %5u%s\n", k, dev,
				      gw, m->in_group ? m->weight : 0, mark, dp_table(cfg, d, k),
				      m->live, quota[k], m->in_group ? "" : " (left the group)");
			live += m->live;
		}
		if (d->last.valid) {
			char rx[48], done[48];

			time_str(&d->last.rx.real, rx, sizeof(rx));
			time_str(&d->last.done.real, done, sizeof(done));
			dp_buf_printf(b, "  last change: group %u weights ", d->last.group);
			for (size_t j = 0; j < d->last.nweights; j++)
				dp_buf_printf(b, "%s%u", j ? "," : "", d->last.weights[j]);
			if (!d->last.nweights)
				dp_buf_printf(b, "(none)");
			dp_buf_printf(b,
				      "\n    netlink %s\n    programmed %s\n"
				      "    latency %.3f ms, moved %u flow(s)\n",
				      rx, done, dp_stamp_ms(&d->last.rx, &d->last.done),
				      d->last.moved);
		}
		dp_buf_printf(b, "  flows: live %u, placed %llu, moved %llu, expired %llu\n", live,
			      (unsigned long long)d->placed, (unsigned long long)d->moved,
			      (unsigned long long)d->expired);
	}
}

static void json_time(struct dp_buf *b, const char *key, const struct timespec *ts)
{
	char s[48];

	time_str(ts, s, sizeof(s));
	dp_buf_printf(b, "\"%s\":\"%s\",\"%s_ns\":%lld", key, s, key,
		      (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec);
}

static void show_json(struct dp_buf *b, const struct dp_config *cfg)
{
	const struct dp_robust *rb = &cfg->rb;

	dp_buf_printf(b, "{\"mark_base\":%u,\"mark_mask\":%u,\"table_base\":%u,\"rule_priority\":%u,",
		      cfg->mark_base, cfg->mark_mask, cfg->table_base, cfg->rule_priority);
	dp_buf_printf(b,
		      "\"robustness\":{\"adopted_members\":%u,\"adopted_flows\":%u,"
		      "\"handoff_found\":%s,\"resync_pending\":%s,\"resync_failed\":%llu,"
		      "\"resync_retried\":%llu,\"dumps_interrupted\":%llu,\"ct_failed\":%llu,"
		      "\"ct_retried\":%llu,\"faults_injected\":%llu},\"destinations\":[",
		      rb->adopted_members, rb->adopted_flows, rb->handoff_found ? "true" : "false",
		      rb->resync_pending ? "true" : "false", (unsigned long long)rb->resync_failed,
		      (unsigned long long)rb->resync_retried,
		      (unsigned long long)rb->dumps_interrupted, (unsigned long long)rb->ct_failed,
		      (unsigned long long)rb->ct_retried, (unsigned long long)rb->faults_injected);
	for (size_t i = 0; i < cfg->ndests; i++) {
		const struct dp_dest *d = &cfg->dests[i];
		uint32_t quota[FARE_DP_MEMBERS_MAX], live = 0;
		bool first = true;

		dest_quota(d, quota);
		dp_buf_printf(b, "%s{\"prefix\":", i ? "," : "");
		dp_buf_json_str(b, d->name);
		dp_buf_printf(b,
			      ",\"index\":%u,\"mode\":\"%s\",\"udp_port\":%u,\"idle\":%u,"
			      "\"recover\":\"%s\",\"route\":%s,\"group\":%u,\"slots\":%zu,"
			      "\"slots_from\":\"%s\",\"programmed\":%s,\"rebalance_pending\":%s,"
			      "\"members\":[",
			      d->idx, mode_str(d->mode), d->udp_port, d->idle,
			      recover_str(d->recover), d->route.present ? "true" : "false",
			      d->group, d->nslots, d->fill ? "live-counts" : "weights",
			      d->programmed && !d->dirty ? "true" : "false",
			      d->pend ? "true" : "false");
		for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
			const struct dp_member *m = &d->members[k];
			char dev[IF_NAMESIZE + 8], gw[INET6_ADDRSTRLEN];

			if (!m->used)
				continue;
			dp_ifname(m->ifindex, dev, sizeof(dev));
			dp_gw_format(&m->gw, gw, sizeof(gw));
			dp_buf_printf(b, "%s{\"member\":%u,\"device\":", first ? "" : ",", k);
			dp_buf_json_str(b, dev);
			dp_buf_printf(b, ",\"ifindex\":%d,\"gateway\":", m->ifindex);
			if (m->gw.family)
				dp_buf_json_str(b, gw);
			else
				dp_buf_printf(b, "null");
			dp_buf_printf(b,
				      ",\"nhid\":%u,\"weight\":%u,\"in_group\":%s,\"mark\":%u,"
				      "\"table\":%u,\"live\":%u,\"quota\":%u}",
				      m->nhid, m->in_group ? m->weight : 0,
				      m->in_group ? "true" : "false", dp_mark(cfg, d, k),
				      dp_table(cfg, d, k), m->live, quota[k]);
			live += m->live;
			first = false;
		}
		dp_buf_printf(b, "],\"last_change\":");
		if (d->last.valid) {
			dp_buf_printf(b, "{\"group\":%u,\"weights\":[", d->last.group);
			for (size_t j = 0; j < d->last.nweights; j++)
				dp_buf_printf(b, "%s%u", j ? "," : "", d->last.weights[j]);
			dp_buf_printf(b, "],");
			json_time(b, "netlink", &d->last.rx.real);
			dp_buf_printf(b, ",");
			json_time(b, "programmed", &d->last.done.real);
			dp_buf_printf(b, ",\"latency_ms\":%.3f,\"moved\":%u}",
				      dp_stamp_ms(&d->last.rx, &d->last.done), d->last.moved);
		} else {
			dp_buf_printf(b, "null");
		}
		dp_buf_printf(b,
			      ",\"flows\":{\"live\":%u,\"placed\":%llu,\"moved\":%llu,"
			      "\"expired\":%llu}}",
			      live, (unsigned long long)d->placed, (unsigned long long)d->moved,
			      (unsigned long long)d->expired);
	}
	dp_buf_printf(b, "]}\n");
}

void dp_report_show(struct dp_buf *b, const struct dp_config *cfg, bool json)
{
	if (json)
		show_json(b, cfg);
	else
		show_text(b, cfg);
}

/* ---- plan ---- */

static void ports_str(struct dp_buf *b, const uint16_t *ports, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && ports[j + 1] == ports[j] + 1)
			j++;
		dp_buf_printf(b, "%s%u", i ? "," : "", ports[i]);
		if (j > i)
			dp_buf_printf(b, "-%u", ports[j]);
		i = j + 1;
	}
}

void dp_report_plan(struct dp_buf *b, const struct dp_dest *d, uint32_t qps, uint16_t first_port,
		    const char *source)
{
	uint32_t w[FARE_DP_MEMBERS_MAX];
	unsigned ks[FARE_DP_MEMBERS_MAX];
	struct fare_dp_plan plan;
	size_t n = dp_dest_weights(d, w, ks);
	uint16_t *ports;
	uint8_t *member_of;

	if (!n) {
		dp_buf_printf(b, "error: %s: no usable member (%s)\n", d->name,
			      d->route.present ? "every weight is 0" : "no route in the main table");
		return;
	}
	memset(&plan, 0, sizeof(plan));
	fare_dp_plan(w, n, qps, first_port, &plan);
	if (!plan.qps || (uint32_t)plan.first_port + plan.qps - 1 > 65535) {
		dp_buf_printf(b, "error: %s: %u QPs from UDP port %u do not fit\n", d->name,
			      plan.qps, plan.first_port);
		return;
	}
	ports = calloc(plan.qps, sizeof(*ports));
	member_of = calloc(plan.qps, sizeof(*member_of));
	if (!ports || !member_of) {
		free(ports);
		free(member_of);
		dp_buf_printf(b, "error: %s: out of memory\n", d->name);
		return;
	}
	/* the QPs opened in port order from a reset cycle land as the slot
	 * map places them: each member gets its quota (plan.per_member)
	 */
	fare_dp_plan_members(w, n, &plan, member_of);

	dp_buf_printf(b, "plan for %s (%s", d->name, source);
	if (d->group)
		dp_buf_printf(b, ", group %u", d->group);
	dp_buf_printf(b, ", weights ");
	for (size_t i = 0; i < n; i++)
		dp_buf_printf(b, "%s%u", i ? "," : "", w[i]);
	dp_buf_printf(b, "): %u QPs, UDP source ports %u-%u\n", plan.qps, plan.first_port,
		      plan.first_port + plan.qps - 1);
	dp_buf_printf(b, "  %-3s %-12s %-26s %6s %5s  %s\n", "k", "device", "gateway", "weight",
		      "qps", "source ports");
	for (size_t i = 0; i < n; i++) {
		const struct dp_member *m = &d->members[ks[i]];
		char dev[IF_NAMESIZE + 8], gw[INET6_ADDRSTRLEN];
		size_t np = 0;

		for (uint32_t q = 0; q < plan.qps; q++)
			if (member_of[q] == i)
				ports[np++] = (uint16_t)(plan.first_port + q);
		dp_ifname(m->ifindex, dev, sizeof(dev));
		dp_gw_format(&m->gw, gw, sizeof(gw));
		dp_buf_printf(b, "  %-3u %-12s %-26s %6u %5u  ", ks[i], dev, gw, w[i],
			      plan.per_member[i]);
		ports_str(b, ports, np);
		dp_buf_printf(b, "\n");
	}
	if (d->mode == DP_PER_FLOW)
		dp_buf_printf(b,
			      "  (ports map to members in this order when the QPs are opened in "
			      "port order with no live flow towards %s)\n",
			      d->name);
	free(ports);
	free(member_of);
}
