// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd: the FARE data-plane agent (dataplane/DESIGN.md). For each
 * configured destination it follows the kernel's route (main table) and
 * nexthop group, and makes flows (per-flow, conntrack marks) or packets
 * (per-packet) follow the group's weights exactly: one routing table and
 * fwmark rule per member, the slot map in nftables (table inet fare_dp),
 * and on a weight change the fewest flows re-marked (fare_dp_rebalance).
 *
 * usage: fare-dpd [-f CONFIG] [-s SOCKET] [-d]
 * Runs in the foreground, one instance per network namespace.
 *
 * Restart, crash, failures (dataplane/DESIGN.md): SIGTERM, SIGINT stop
 * and remove everything; SIGUSR2 (systemd's RestartKillSignal) exits for
 * a restart, leaving the mapping in place for the next instance, which
 * adopts it; a crash fails open (the nftables table is owned by the
 * process). Under systemd: Type=notify, READY=1 and WATCHDOG=1 over
 * $NOTIFY_SOCKET.
 */
#define _GNU_SOURCE /* accept4, ppoll */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>

#include "fare_dpd.h"

#define CLIENTS_MAX	16
#define CLIENT_TIMEOUT	5000 /* ms */
#define CLIENT_LINE_MAX 512
#define RETRY_INTERVAL	1000 /* ms, programming, a resync or a rebalance that failed */
#define HANDOFF_GRACE	30   /* s, the mapping kept for the next instance (SIGUSR2) */
/* test option: SIGUSR1 makes the next resync dump and conntrack catch-up fail */
#define TEST_FAULTS_ENV "FARE_DPD_TEST_FAULTS"

struct client {
	int fd;
	size_t len;
	char buf[CLIENT_LINE_MAX];
	struct dp_stamp since;
	bool replying;	   /* the request is read: writing out, when writable */
	struct dp_buf out; /* the reply */
	size_t off;	   /* of out written */
};

struct dpd {
	struct dp_config cfg;
	struct dp_nl *nl;
	struct dp_nft *nft;
	struct dp_ct *ct; /* with per-flow destinations */
	const char *sock_path;
	int lock_fd;
	int listen_fd;
	struct client clients[CLIENTS_MAX];
	bool keep_pending;    /* a previous instance's hand-off table to delete */
	bool test_faults;     /* TEST_FAULTS_ENV set */
	unsigned ct_fail;     /* test option: conntrack catch-ups to fail */
	uint64_t watchdog_ms; /* 0: no systemd watchdog */
};

static volatile sig_atomic_t stop_signal, fault_signal;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		fault_signal = 1;
	else
		stop_signal = sig;
}

/* ---- systemd: sd_notify(3) by hand, over $NOTIFY_SOCKET ---- */

static void sd_notify_msg(const char *msg)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	socklen_t len;
	int fd;

	if (!path || !*path || strlen(path) >= sizeof(sa.sun_path) ||
	    (path[0] != '/' && path[0] != '@'))
		return;
	memcpy(sa.sun_path, path, strlen(path));
	if (path[0] == '@')
		sa.sun_path[0] = '\0'; /* abstract */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (sendto(fd, msg, strlen(msg), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0)
		dp_dbg("sd_notify %s: %s", msg, strerror(errno));
	close(fd);
}

/* WatchdogSec=: WATCHDOG_USEC (for this process: WATCHDOG_PID), kicked at half of it */
static uint64_t sd_watchdog_ms(void)
{
	const char *usec = getenv("WATCHDOG_USEC"), *pid = getenv("WATCHDOG_PID");
	unsigned long long v;

	if (!usec || (pid && strtol(pid, NULL, 10) != (long)getpid()))
		return 0;
	v = strtoull(usec, NULL, 10);
	return v / 2000;
}

/* ---- configuration ---- */

static bool parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long x;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static int config_error(const char *path, unsigned line, const char *msg, const char *tok)
{
	dp_log(LOG_ERR, "%s:%u: %s%s%s", path, line, msg, tok ? ": " : "", tok ? tok : "");
	return -1;
}

static int config_dest(struct dp_config *cfg, char **tok, size_t ntok, const char *path,
		       unsigned line)
{
	struct dp_dest *d;
	uint32_t v;

	if (cfg->ndests == DP_DEST_MAX)
		return config_error(path, line, "too many destinations", NULL);
	if (ntok < 3)
		return config_error(path, line,
				    "usage: destination PREFIX per-flow|per-packet [udp-port N] "
				    "[idle SECONDS] [recover at-once|next-burst]",
				    NULL);
	d = &cfg->dests[cfg->ndests];
	memset(d, 0, sizeof(*d));
	d->idx = (unsigned)cfg->ndests;
	d->recover = FARE_DP_RECOVER_AT_ONCE;
	if (!dp_prefix_parse(tok[1], &d->family, d->addr, &d->plen))
		return config_error(path, line, "bad prefix", tok[1]);
	dp_prefix_format(d->family, d->addr, d->plen, d->name, sizeof(d->name));
	for (size_t i = 0; i < cfg->ndests; i++)
		if (!strcmp(cfg->dests[i].name, d->name))
			return config_error(path, line, "destination given twice", d->name);
	if (!strcmp(tok[2], "per-flow"))
		d->mode = DP_PER_FLOW;
	else if (!strcmp(tok[2], "per-packet"))
		d->mode = DP_PER_PACKET;
	else
		return config_error(path, line, "mode is per-flow or per-packet", tok[2]);

	for (size_t i = 3; i < ntok; i += 2) {
		const char *arg = i + 1 < ntok ? tok[i + 1] : NULL;

		if (!arg)
			return config_error(path, line, "missing value", tok[i]);
		if (!strcmp(tok[i], "udp-port")) {
			if (!parse_u32(arg, &v) || !v || v > 65535)
				return config_error(path, line, "bad udp-port", arg);
			d->udp_port = (uint16_t)v;
		} else if (!strcmp(tok[i], "idle")) {
			if (!parse_u32(arg, &v) || !v || v > 86400)
				return config_error(path, line, "bad idle (seconds, 1-86400)", arg);
			d->idle = v;
		} else if (!strcmp(tok[i], "recover")) {
			if (!strcmp(arg, "at-once"))
				d->recover = FARE_DP_RECOVER_AT_ONCE;
			else if (!strcmp(arg, "next-burst"))
				d->recover = FARE_DP_RECOVER_NEXT_BURST;
			else
				return config_error(path, line, "recover is at-once or next-burst",
						    arg);
		} else {
			return config_error(path, line, "unknown option", tok[i]);
		}
	}
	if (d->mode == DP_PER_PACKET && (d->idle || d->recover != FARE_DP_RECOVER_AT_ONCE))
		dp_log(LOG_WARNING, "%s:%u: idle and recover apply to per-flow destinations only",
		       path, line);
	cfg->ndests++;
	return 0;
}

static int config_load(const char *path, struct dp_config *cfg)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	unsigned lineno = 0;
	char err[256];

	memset(cfg, 0, sizeof(*cfg));
	cfg->mark_base = DP_DEFAULT_MARK_BASE;
	cfg->table_base = DP_DEFAULT_TABLE_BASE;
	cfg->rule_priority = DP_DEFAULT_RULE_PRIORITY;
	cfg->socket_mode = DP_DEFAULT_SOCKET_MODE;
	if (!f) {
		dp_log(LOG_ERR, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *tok[16], *save = NULL, *p;
		size_t ntok = 0;

		lineno++;
		p = strchr(line, '#');
		if (p)
			*p = '\0';
		for (p = strtok_r(line, " \t\r\n", &save); p && ntok < 16;
		     p = strtok_r(NULL, " \t\r\n", &save))
			tok[ntok++] = p;
		if (!ntok)
			continue;
		if (!strcmp(tok[0], "destination")) {
			if (config_dest(cfg, tok, ntok, path, lineno) < 0)
				goto fail;
			continue;
		}
		uint32_t *field = !strcmp(tok[0], "mark-base")	     ? &cfg->mark_base
				  : !strcmp(tok[0], "table-base")    ? &cfg->table_base
				  : !strcmp(tok[0], "rule-priority") ? &cfg->rule_priority
				  : !strcmp(tok[0], "mark-mask")     ? &cfg->mark_mask
				  : !strcmp(tok[0], "socket-mode")   ? &cfg->socket_mode
								     : NULL;

		if (!field) {
			config_error(path, lineno, "unknown statement", tok[0]);
			goto fail;
		}
		if (ntok != 2 || !parse_u32(tok[1], field) ||
		    (field == &cfg->mark_mask && !*field)) {
			config_error(path, lineno, "bad value", tok[0]);
			goto fail;
		}
	}
	fclose(f);

	if (dp_config_check(cfg, err, sizeof(err)) < 0) {
		dp_log(LOG_ERR, "%s: %s", path, err);
		return -1;
	}
	if (!cfg->ndests)
		dp_log(LOG_WARNING, "%s: no destination configured", path);
	return 0;
fail:
	fclose(f);
	return -1;
}

/* ---- members and mappings ---- */

static bool dest_has_flows(const struct dp_dest *d)
{
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
		if (d->members[k].live)
			return true;
	return false;
}

static int member_find(const struct dp_dest *d, const struct dp_hop *h)
{
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (m->used && m->ifindex == h->ifindex && dp_gw_equal(&m->gw, &h->gw))
			return (int)k;
	}
	return -1;
}

static int member_alloc(struct dp_dest *d, const struct dp_hop *h)
{
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		struct dp_member *m = &d->members[k];

		/* not a mark still carried by flows of a member gone (adoption) */
		if (m->used || m->live)
			continue;
		memset(m, 0, sizeof(*m));
		m->used = true;
		m->ifindex = h->ifindex;
		m->gw = h->gw;
		m->flags = h->flags;
		return (int)k;
	}
	return -1;
}

static void member_free(struct dpd *dpd, struct dp_dest *d, unsigned k)
{
	struct dp_member *m = &d->members[k];

	if (m->programmed)
		dp_nl_member_del(dpd->nl, &dpd->cfg, d, k);
	memset(m, 0, sizeof(*m));
}

/* Members that left the group go once no flow uses them (per-packet: at once). */
static void dest_gc(struct dpd *dpd, struct dp_dest *d)
{
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		struct dp_member *m = &d->members[k];

		if (m->used && !m->in_group && (d->mode == DP_PER_PACKET || !m->live)) {
			dp_dbg("%s: member %u left the group, no flow on it: removed", d->name, k);
			member_free(dpd, d, k);
		}
	}
}

/*
 * The slot map of the members in the group (and programmed): the weights'
 * interleaved cycle (fare_dp_slots), which `fare-dp plan` follows. With
 * from_live, per-flow, when the live flows are off their quota (recover
 * next-burst, flows that expired or moved): one cycle of the next new
 * flows placed from the live counts (fare_dp_fill, SUN-4), members below
 * their quota first; once it is used, dest_idle writes the weights' cycle
 * again (a static map repeats: a second cycle of it would overfill them).
 */
static bool dest_at_quota(const struct dp_dest *d);

static void dest_slots(struct dp_dest *d, bool from_live)
{
	uint32_t w[FARE_DP_MEMBERS_MAX], live[FARE_DP_MEMBERS_MAX];
	unsigned ks[FARE_DP_MEMBERS_MAX];
	uint8_t slots[FARE_DP_SLOTS_MAX];
	size_t n = 0, nslots;

	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (m->used && m->in_group && m->weight && m->programmed) {
			w[n] = m->weight;
			live[n] = m->live;
			ks[n++] = k;
		}
	}
	nslots = n ? fare_dp_slots(w, n, FARE_DP_SLOTS_MAX, slots) : 0;
	d->fill = nslots && from_live && d->mode == DP_PER_FLOW && dest_has_flows(d) &&
		  !dest_at_quota(d);
	if (d->fill)
		nslots = fare_dp_fill(w, live, n, nslots, slots);
	d->nslots = nslots;
	for (size_t s = 0; s < d->nslots; s++)
		d->slots[s] = (uint8_t)ks[slots[s]];
}

/* Per-flow: the live counts of the usable members at their quota. */
static bool dest_at_quota(const struct dp_dest *d)
{
	uint32_t w[FARE_DP_MEMBERS_MAX], live[FARE_DP_MEMBERS_MAX], q[FARE_DP_MEMBERS_MAX],
		total = 0;
	size_t n = 0;

	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (m->used && m->in_group && m->weight && m->programmed) {
			w[n] = m->weight;
			live[n] = m->live;
			total += m->live;
			n++;
		}
	}
	fare_dp_quota(w, n, total, q);
	return !memcmp(q, live, n * sizeof(*q));
}

static void dest_record(struct dp_dest *d, const struct dp_stamp *rx, uint32_t moved)
{
	char w[FARE_DP_MEMBERS_MAX * 11 + 8];
	size_t len = 0;

	d->last.valid = true;
	d->last.rx = *rx;
	dp_stamp_now(&d->last.done);
	d->last.group = d->group;
	d->last.moved = moved;
	d->last.nweights = 0;
	w[0] = '\0';
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (!m->used || !m->in_group)
			continue;
		d->last.weights[d->last.nweights++] = m->weight;
		len += (size_t)snprintf(w + len, sizeof(w) - len, "%s%u", len ? "," : "", m->weight);
	}
	if (d->mode == DP_PER_FLOW)
		dp_log(LOG_INFO, "%s group %u: weights %s programmed in %.3f ms (moved %u flows)",
		       d->name, d->group, len ? w : "(none)", dp_stamp_ms(rx, &d->last.done), moved);
	else
		dp_log(LOG_INFO, "%s group %u: weights %s programmed in %.3f ms (%zu slots)",
		       d->name, d->group, len ? w : "(none)", dp_stamp_ms(rx, &d->last.done),
		       d->nslots);
}

/* The route is gone: its members' tables and rules, and its slot map. */
static void dest_withdraw(struct dpd *dpd, struct dp_dest *d, const struct dp_stamp *rx)
{
	bool had = d->programmed;

	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
		if (d->members[k].used)
			member_free(dpd, d, k);
	d->nslots = 0;
	d->group = 0;
	d->dirty = dp_nft_dest(dpd->nft, &dpd->cfg, d) < 0;
	d->programmed = false;
	if (had) {
		dp_log(LOG_INFO, "%s: no route in the main table: mapping removed", d->name);
		dest_record(d, rx, 0);
	}
}

/* The flow table up to date before a rebalance: pending events, then a refresh. */
static int ct_catch_up(struct dpd *dpd)
{
	uint64_t idle;

	if (dpd->ct_fail) {
		dpd->ct_fail--;
		dp_log(LOG_WARNING, "conntrack catch-up: injected failure (test option)");
		return -1;
	}
	if (dp_ct_read(dpd->ct, &dpd->cfg, &idle) < 0)
		return dp_ct_sync(dpd->ct, &dpd->cfg);
	return dp_ct_refresh(dpd->ct, &dpd->cfg);
}

/*
 * SUN-4: re-mark the flows a weight change releases. oldw: the weights
 * the flows were placed with, by member. When the conntrack catch-up or a
 * move fails, the old weights are kept (pend_old) and the rebalance is
 * retried (the destination stays dirty): false.
 */
static bool dest_rebalance(struct dpd *dpd, struct dp_dest *d, const uint32_t *oldw, uint32_t *moved)
{
	uint32_t ow[FARE_DP_MEMBERS_MAX], nw[FARE_DP_MEMBERS_MAX], cnt[FARE_DP_MEMBERS_MAX],
		tgt[FARE_DP_MEMBERS_MAX], target[FARE_DP_MEMBERS_MAX] = { 0 }, wsum = 0, failed = 0;
	unsigned ks[FARE_DP_MEMBERS_MAX];
	size_t n = 0;

	if (!d->pend)
		memcpy(d->pend_old, oldw, sizeof(d->pend_old));
	if (ct_catch_up(dpd) < 0) {
		dp_log(LOG_WARNING, "%s: conntrack catch-up failed: the rebalance is retried",
		       d->name);
		dpd->cfg.rb.ct_failed++;
		d->pend = true;
		return false;
	}
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		/*
		 * a mark of no member (a previous instance's member whose
		 * table went while no agent ran): its flows are released
		 */
		if (!m->used && m->live) {
			ow[n] = 1;
			nw[n] = 0;
			cnt[n] = m->live;
			ks[n++] = k;
			continue;
		}
		if (!m->used)
			continue;
		ow[n] = d->pend_old[k];
		nw[n] = m->in_group && m->programmed ? m->weight : 0;
		cnt[n] = m->live;
		wsum += nw[n];
		ks[n++] = k;
	}
	if (wsum && dest_has_flows(d)) {
		fare_dp_rebalance(ow, nw, n, cnt, d->recover, tgt);
		for (size_t i = 0; i < n; i++)
			target[ks[i]] = tgt[i];
		*moved = dp_ct_move(dpd->ct, &dpd->cfg, d, target, &failed);
		d->moved += *moved;
	}
	if (failed) {
		dp_log(LOG_WARNING, "%s: %u flow(s) could not be moved: the rebalance is retried",
		       d->name, failed);
		dpd->cfg.rb.ct_failed++;
		d->pend = true;
		return false;
	}
	if (d->pend) {
		dpd->cfg.rb.ct_retried++;
		dp_log(LOG_INFO, "%s: rebalance retried: done", d->name);
	}
	d->pend = false;
	return true;
}

static void dest_reconcile(struct dpd *dpd, struct dp_dest *d, const struct dp_stamp *rx)
{
	struct dp_hop hops[DP_HOPS_MAX];
	uint32_t neww[FARE_DP_MEMBERS_MAX] = { 0 }, oldw[FARE_DP_MEMBERS_MAX];
	bool newin[FARE_DP_MEMBERS_MAX] = { false };
	bool changed, ok = true;
	uint32_t group, moved = 0;
	struct dp_stamp t0, t1, t2, t3;
	int nh;

	nh = dp_nl_resolve(dpd->nl, d, hops, DP_HOPS_MAX, &group);
	if (nh < 0) {
		if (d->programmed || d->dirty)
			dest_withdraw(dpd, d, rx);
		return;
	}
	for (int i = 0; i < nh; i++) {
		int k;

		if (!hops[i].weight)
			continue;
		k = member_find(d, &hops[i]);
		if (k < 0)
			k = member_alloc(d, &hops[i]);
		if (k < 0) {
			dp_log(LOG_WARNING, "%s: more than %d members: one ignored", d->name,
			       FARE_DP_MEMBERS_MAX);
			continue;
		}
		neww[k] += hops[i].weight;
		newin[k] = true;
		/* its table route goes through the nexthop object: a new one, a new route */
		if (d->members[k].programmed && d->members[k].nhid != hops[i].nhid)
			d->members[k].stale = true;
		d->members[k].nhid = hops[i].nhid;
	}

	changed = !d->programmed || d->dirty || group != d->group;
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		const struct dp_member *m = &d->members[k];

		if (m->used &&
		    (newin[k] != m->in_group || neww[k] != m->weight || (newin[k] && m->stale)))
			changed = true;
	}
	if (!changed)
		return;

	/* 1. tables and rules of the new members */
	dp_stamp_now(&t0);
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		struct dp_member *m = &d->members[k];

		if (m->used && newin[k] && (!m->programmed || m->stale)) {
			if (dp_nl_member_add(dpd->nl, &dpd->cfg, d, k) == 0) {
				m->programmed = true;
				m->stale = false;
			} else {
				ok = false;
			}
		}
	}
	for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++) {
		struct dp_member *m = &d->members[k];

		oldw[k] = m->used && m->in_group && m->programmed ? m->weight : 0;
		if (!m->used)
			continue;
		m->weight = neww[k];
		m->in_group = newin[k];
	}
	d->group = group;

	/* 2. the slot map, in one nft batch (numgen starts again at slot 0) */
	dp_stamp_now(&t1);
	dest_slots(d, true);
	if (dp_nft_dest(dpd->nft, &dpd->cfg, d) < 0)
		ok = false;
	d->placed_cycle = 0;
	dp_stamp_now(&t2);

	/* 3. per-flow: re-mark exactly the released flows */
	if (d->mode == DP_PER_FLOW && dpd->ct && !dest_rebalance(dpd, d, oldw, &moved))
		ok = false;
	/* the next new flows from the counts after the moves */
	if (moved) {
		dest_slots(d, true);
		if (dp_nft_dest(dpd->nft, &dpd->cfg, d) < 0)
			ok = false;
	}

	/* 4. members that left the group and carry no flow */
	dp_stamp_now(&t3);
	dest_gc(dpd, d);
	d->programmed = true;
	d->dirty = !ok;
	dest_record(d, rx, moved);
	dp_dbg("%s: tables and rules %.3f ms, nft %.3f ms, conntrack %.3f ms", d->name,
	       dp_stamp_ms(&t0, &t1), dp_stamp_ms(&t1, &t2), dp_stamp_ms(&t2, &t3));
}

static void reconcile_all(struct dpd *dpd, const struct dp_stamp *rx)
{
	for (size_t i = 0; i < dpd->cfg.ndests; i++)
		dest_reconcile(dpd, &dpd->cfg.dests[i], rx);
}

/*
 * A per-flow destination without live flows: the next burst starts at
 * slot 0 of the weights' cycle, also when the map is still a cycle from
 * live counts that have all expired since (none of it used: the counts
 * it was made for are gone). With live flows off their quota once a
 * cycle of the map is used: the weights' cycle again.
 */
static void dest_idle(struct dpd *dpd, struct dp_dest *d)
{
	const char *why;

	dest_gc(dpd, d);
	if (!d->programmed)
		return;
	if (d->fill && d->placed_cycle >= d->nslots)
		why = "the cycle from the live counts used: the weights' cycle";
	else if (!dest_has_flows(d) && (d->placed_cycle || d->fill))
		why = "no live flow: numgen cycle reset to the weights' cycle";
	else
		return;
	dest_slots(d, false);
	/* a failed write leaves the old map: the retry timer programs it all again */
	if (dp_nft_dest(dpd->nft, &dpd->cfg, d) < 0) {
		d->dirty = true;
		return;
	}
	dp_dbg("%s: %s", d->name, why);
	d->placed_cycle = 0;
}

/* ---- control socket ---- */

static int ctl_open(struct dpd *dpd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], *slash;
	mode_t old_umask;
	int fd, ret;

	if (strlen(dpd->sock_path) >= sizeof(sa.sun_path)) {
		dp_log(LOG_ERR, "%s: socket path too long", dpd->sock_path);
		return -1;
	}
	strcpy(sa.sun_path, dpd->sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		dp_log(LOG_ERR,
		       "%s: another fare-dpd answers there (one per namespace, each with its "
		       "own -s PATH)",
		       dpd->sock_path);
		close(fd);
		return -1;
	}
	close(fd);
	strcpy(dir, dpd->sock_path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			dp_log(LOG_WARNING, "%s: %s", dir, strerror(errno));
	}
	unlink(dpd->sock_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		dp_log(LOG_ERR, "%s: %s", dpd->sock_path, strerror(errno));
		return -1;
	}
	/* the socket file is created with socket-mode: no window with another mode */
	old_umask = umask(~(mode_t)dpd->cfg.socket_mode & 0777);
	ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old_umask);
	if (ret < 0 || listen(fd, 16) < 0) {
		dp_log(LOG_ERR, "%s: %s", dpd->sock_path, strerror(errno));
		close(fd);
		return -1;
	}
	dpd->listen_fd = fd;
	return 0;
}

/* One instance per network namespace: an abstract socket is per namespace. */
static int ns_lock(struct dpd *dpd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static const char name[] = "fare-dpd";
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memcpy(sa.sun_path + 1, name, sizeof(name) - 1);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa,
		 offsetof(struct sockaddr_un, sun_path) + sizeof(name)) < 0) {
		dp_log(LOG_ERR, "another fare-dpd runs in this network namespace (%s)",
		       strerror(errno));
		close(fd);
		return -1;
	}
	dpd->lock_fd = fd;
	return 0;
}

static struct dp_dest *dest_lookup(struct dp_config *cfg, const char *s)
{
	struct dp_dest *best = NULL;
	uint8_t addr[16];
	uint8_t plen;
	int family;

	if (!dp_prefix_parse(s, &family, addr, &plen))
		return NULL;
	for (size_t i = 0; i < cfg->ndests; i++) {
		struct dp_dest *d = &cfg->dests[i];
		size_t full = d->plen / 8;
		uint8_t rem = d->plen % 8;

		if (d->family != family)
			continue;
		if (strchr(s, '/')) {
			if (d->plen == plen && !memcmp(d->addr, addr, 16))
				return d;
			continue;
		}
		/* an address: the longest configured prefix holding it */
		if (memcmp(d->addr, addr, full))
			continue;
		if (rem && (d->addr[full] ^ addr[full]) & (uint8_t)(0xff00u >> rem))
			continue;
		if (!best || d->plen > best->plen)
			best = d;
	}
	return best;
}

static void ctl_request(struct dpd *dpd, char *line, struct dp_buf *b)
{
	char *tok[8], *save = NULL, *p;
	size_t n = 0;

	for (p = strtok_r(line, " \t\r\n", &save); p && n < 8; p = strtok_r(NULL, " \t\r\n", &save))
		tok[n++] = p;
	if (n >= 1 && !strcmp(tok[0], "show") && (n == 1 || (n == 2 && !strcmp(tok[1], "json")))) {
		dp_report_show(b, &dpd->cfg, n == 2);
		return;
	}
	if (n >= 2 && n <= 4 && !strcmp(tok[0], "plan")) {
		struct dp_dest *d = dest_lookup(&dpd->cfg, tok[1]);
		uint32_t qps = 0, port = DP_DEFAULT_PLAN_PORT;

		if ((n >= 3 && !parse_u32(tok[2], &qps)) ||
		    (n == 4 && (!parse_u32(tok[3], &port) || !port || port > 65535))) {
			dp_buf_printf(b, "error: usage: plan DEST [QPS [PORT]]\n");
			return;
		}
		if (!d) {
			dp_buf_printf(b, "error: %s: not a configured destination\n", tok[1]);
			return;
		}
		dp_report_plan(b, d, qps, (uint16_t)port, "fare-dpd");
		return;
	}
	dp_buf_printf(b, "error: unknown request (show [json], plan DEST [QPS [PORT]])\n");
}

static void client_close(struct client *c)
{
	close(c->fd);
	c->fd = -1;
	c->replying = false;
	dp_buf_free(&c->out);
	c->off = 0;
}

/*
 * Write what the socket takes now (non-blocking); the rest when it is
 * writable again (POLLOUT). A client that does not read is closed at
 * CLIENT_TIMEOUT: it never holds up the event loop.
 */
static void client_write(struct client *c)
{
	while (c->off < c->out.len) {
		ssize_t w = send(c->fd, c->out.s + c->off, c->out.len - c->off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (w <= 0)
			break;
		c->off += (size_t)w;
	}
	client_close(c);
}

static void client_reply(struct dpd *dpd, struct client *c)
{
	c->buf[c->len] = '\0';
	ctl_request(dpd, c->buf, &c->out);
	if (c->out.oom) {
		dp_buf_free(&c->out);
		dp_buf_printf(&c->out, "error: out of memory\n");
	}
	c->off = 0;
	c->replying = true;
	client_write(c);
}

static void client_read(struct dpd *dpd, struct client *c)
{
	ssize_t n = recv(c->fd, c->buf + c->len, sizeof(c->buf) - 1 - c->len, 0);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n < 0) {
		client_close(c);
		return;
	}
	c->len += (size_t)n;
	if (n == 0 || memchr(c->buf, '\n', c->len) || c->len == sizeof(c->buf) - 1) {
		char *nl = memchr(c->buf, '\n', c->len);

		if (nl)
			c->len = (size_t)(nl - c->buf);
		client_reply(dpd, c);
	}
}

static void ctl_accept(struct dpd *dpd)
{
	for (;;) {
		int fd = accept4(dpd->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct client *c = NULL;

		if (fd < 0)
			return;
		for (size_t i = 0; i < CLIENTS_MAX; i++)
			if (dpd->clients[i].fd < 0) {
				c = &dpd->clients[i];
				break;
			}
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->len = 0;
		c->replying = false;
		c->off = 0;
		dp_stamp_now(&c->since);
	}
}

/* ---- restart, crash, failures ---- */

/*
 * At start: the member tables and rules a previous instance left, as
 * members again (same index, so the same mark and table), programmed, with
 * the weights the kernel's group gives them now (a member no longer in it:
 * weight 1, it gives up its flows at the first rebalance). The first
 * reconcile then writes the slot map and moves no flow unless the group
 * changed.
 */
static void adopt_members(struct dpd *dpd, const struct dp_adopt *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct dp_dest *d = &dpd->cfg.dests[a[i].d];
		struct dp_member *m = &d->members[a[i].k];

		if (!a[i].route || !a[i].hop.ifindex || member_find(d, &a[i].hop) >= 0) {
			/* a rule without its table route (the nexthop went): removed */
			dp_nl_member_del(dpd->nl, &dpd->cfg, d, a[i].k);
			continue;
		}
		memset(m, 0, sizeof(*m));
		m->used = m->in_group = true;
		m->programmed = a[i].rule; /* a missing rule: added again */
		m->ifindex = a[i].hop.ifindex;
		m->gw = a[i].hop.gw;
		m->flags = a[i].hop.flags;
		m->nhid = a[i].hop.nhid;
		m->weight = 1;
		d->programmed = d->dirty = true;
		dpd->cfg.rb.adopted_members++;
	}
	for (size_t i = 0; i < dpd->cfg.ndests; i++) {
		struct dp_dest *d = &dpd->cfg.dests[i];
		struct dp_hop hops[DP_HOPS_MAX];
		uint32_t group;
		int nh;

		if (!d->programmed)
			continue;
		nh = dp_nl_resolve(dpd->nl, d, hops, DP_HOPS_MAX, &group);
		d->group = group;
		for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
			if (d->members[k].used) {
				uint32_t w = 0;

				for (int h = 0; h < nh; h++)
					if (hops[h].ifindex == d->members[k].ifindex &&
					    dp_gw_equal(&hops[h].gw, &d->members[k].gw))
						w += hops[h].weight;
				d->members[k].weight = w ? w : 1;
			}
	}
}

/* Dump routes and nexthops again; on failure keep the mapping and retry. */
static void dpd_resync(struct dpd *dpd, const struct dp_stamp *rx)
{
	if (dp_nl_dump(dpd->nl, &dpd->cfg, false, NULL, NULL) < 0) {
		dpd->cfg.rb.resync_failed++;
		if (!dpd->cfg.rb.resync_pending)
			dp_log(LOG_WARNING,
			       "netlink: resync dump failed: the mappings stay as they are, "
			       "retrying every %d ms",
			       RETRY_INTERVAL);
		dpd->cfg.rb.resync_pending = true;
		return;
	}
	if (dpd->cfg.rb.resync_pending) {
		dpd->cfg.rb.resync_retried++;
		dp_log(LOG_INFO, "netlink: resync dump retried: done");
	}
	dpd->cfg.rb.resync_pending = false;
	reconcile_all(dpd, rx);
}

/* The previous instance's hand-off table, once every mapping is ours. */
static void unkeep(struct dpd *dpd)
{
	int r;

	for (size_t i = 0; i < dpd->cfg.ndests; i++)
		if (dpd->cfg.dests[i].dirty)
			return;
	r = dp_nft_unkeep(dpd->nft);
	if (r < 0)
		return;
	if (r > 0) {
		dpd->cfg.rb.handoff_found = true;
		dp_log(LOG_INFO, "the previous instance's table inet fare_dp_keep: replaced");
	}
	dpd->keep_pending = false;
}

/* Test option: the next resync dump and conntrack catch-up fail; resync now. */
static void inject_faults(struct dpd *dpd)
{
	struct dp_stamp now;

	fault_signal = 0;
	if (!dpd->test_faults) {
		dp_log(LOG_WARNING, "SIGUSR1 ignored (test faults need " TEST_FAULTS_ENV "=1)");
		return;
	}
	dpd->cfg.rb.faults_injected++;
	dp_log(LOG_WARNING, "test option: the next resync dump and conntrack catch-up fail");
	dp_nl_fail_dumps(dpd->nl, 1);
	if (dpd->ct)
		dpd->ct_fail++;
	dp_stamp_now(&now);
	dpd_resync(dpd, &now);
}

/* ---- main ---- */

/*
 * remove: a clean stop (SIGTERM, SIGINT): the tables, rules and the nft
 * table go. Otherwise (SIGUSR2, a fatal error) they stay for the next
 * instance; the owned nft table goes with the process all the same, so
 * until then the kernel's ECMP carries the flows, except after SIGUSR2,
 * whose hand-off table keeps the mapping HANDOFF_GRACE seconds.
 */
static void cleanup(struct dpd *dpd, bool remove)
{
	for (size_t i = 0; remove && i < dpd->cfg.ndests; i++) {
		struct dp_dest *d = &dpd->cfg.dests[i];

		for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
			if (d->members[k].used && dpd->nl)
				member_free(dpd, d, k);
	}
	if (dpd->nft) {
		if (remove)
			dp_nft_fini(dpd->nft);
		dp_nft_close(dpd->nft);
	}
	dp_ct_close(dpd->ct);
	dp_nl_close(dpd->nl);
	for (size_t i = 0; i < CLIENTS_MAX; i++)
		if (dpd->clients[i].fd >= 0)
			client_close(&dpd->clients[i]);
	if (dpd->listen_fd >= 0) {
		close(dpd->listen_fd);
		unlink(dpd->sock_path);
	}
	if (dpd->lock_fd >= 0)
		close(dpd->lock_fd);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fare-dpd [-f CONFIG] [-s SOCKET] [-d]\n"
		   "  -f CONFIG  configuration (default " DP_DEFAULT_CONFIG ")\n"
		   "  -s SOCKET  control socket (default " DP_DEFAULT_SOCKET ")\n"
		   "  -d         debug logs to stderr\n"
		   "Runs in the foreground; one instance per network namespace.\n");
}

static int setup(struct dpd *dpd)
{
	struct dp_adopt *adopted = NULL;
	size_t nadopted = 0;
	struct dp_stamp now;
	bool per_flow = false;

	if (ns_lock(dpd) < 0 || ctl_open(dpd) < 0)
		return -1;
	for (size_t i = 0; i < dpd->cfg.ndests; i++) {
		const struct dp_dest *d = &dpd->cfg.dests[i];

		if (d->mode == DP_PER_FLOW)
			per_flow = true;
	}

	dpd->nl = dp_nl_open(true);
	if (!dpd->nl)
		return -1;
	dpd->nft = dp_nft_open();
	if (!dpd->nft) {
		dp_log(LOG_ERR, "libnftables: cannot create a context");
		return -1;
	}
	/* the table first: conntrack runs in the namespace once a ct rule needs it */
	if (dp_nft_init(dpd->nft, &dpd->cfg) < 0)
		return -1;
	if (per_flow) {
		dpd->ct = dp_ct_open(&dpd->cfg);
		if (!dpd->ct)
			return -1;
	}
	dp_stamp_now(&now);
	if (dp_nl_dump(dpd->nl, &dpd->cfg, true, &adopted, &nadopted) < 0)
		return -1;
	adopt_members(dpd, adopted, nadopted);
	free(adopted);
	if (dpd->ct)
		dp_ct_sync(dpd->ct, &dpd->cfg);
	for (size_t i = 0; i < dpd->cfg.ndests; i++)
		for (unsigned k = 0; k < FARE_DP_MEMBERS_MAX; k++)
			dpd->cfg.rb.adopted_flows += dpd->cfg.dests[i].members[k].live;
	if (dpd->cfg.rb.adopted_members)
		dp_log(LOG_INFO, "restart: %u member(s) and %u live flow(s) adopted",
		       dpd->cfg.rb.adopted_members, dpd->cfg.rb.adopted_flows);
	reconcile_all(dpd, &now);
	dpd->keep_pending = true;
	unkeep(dpd);
	for (size_t i = 0; i < dpd->cfg.ndests; i++) {
		struct dp_dest *d = &dpd->cfg.dests[i];

		if (!d->route.present)
			dp_log(LOG_INFO, "%s: no route in the main table yet", d->name);
	}
	return 0;
}

/*
 * The interval of the expiry sweep, 0 when no per-flow destination has
 * live flows. The kernel reaps timed-out entries lazily (its gc worker, or
 * a lookup of the same tuple, which then comes with the next burst); a
 * conntrack dump reaps them at once, so the end of a burst is seen within
 * half the idle time and the next burst starts at slot 0. (So does a
 * lookup of each tracked flow, dp_ct_refresh.)
 */
static long reap_interval(const struct dpd *dpd)
{
	long ms = 0;

	if (!dpd->ct)
		return 0;
	for (size_t i = 0; i < dpd->cfg.ndests; i++) {
		const struct dp_dest *d = &dpd->cfg.dests[i];
		long v = d->idle ? (long)d->idle * 500 : 1000;

		if (d->mode != DP_PER_FLOW || !dest_has_flows(d))
			continue;
		if (v < 200)
			v = 200;
		if (v > 1000)
			v = 1000;
		if (!ms || v < ms)
			ms = v;
	}
	return ms;
}

/* After conntrack events or a refresh: every per-flow destination (a few
 * comparisons each), not only those that lost a flow.
 */
static void ct_idle(struct dpd *dpd)
{
	for (size_t i = 0; i < dpd->cfg.ndests; i++) {
		struct dp_dest *d = &dpd->cfg.dests[i];

		if (d->mode == DP_PER_FLOW)
			dest_idle(dpd, d);
	}
}

/* The event loop, until a signal (0) or a fatal error (-1). */
static int loop(struct dpd *dpd)
{
	struct dp_stamp last_retry, last_reap, last_watchdog;
	sigset_t empty;

	sigemptyset(&empty);
	dp_stamp_now(&last_retry);
	last_reap = last_watchdog = last_retry;
	while (!stop_signal) {
		struct pollfd pfd[3 + CLIENTS_MAX];
		struct client *pc[3 + CLIENTS_MAX];
		long reap = reap_interval(dpd);
		struct timespec timeout = { .tv_sec = reap ? 0 : 1,
					    .tv_nsec = reap ? (reap < 1000 ? reap : 999) * 1000000L
							    : 0 };
		struct dp_stamp now;
		size_t n = 0;
		int ret;

		pfd[n++] = (struct pollfd){ .fd = dp_nl_fd(dpd->nl), .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = dpd->ct ? dp_ct_fd(dpd->ct) : -1,
					    .events = POLLIN };
		pfd[n++] = (struct pollfd){ .fd = dpd->listen_fd, .events = POLLIN };
		for (size_t i = 0; i < CLIENTS_MAX; i++) {
			if (dpd->clients[i].fd < 0)
				continue;
			pc[n] = &dpd->clients[i];
			pfd[n++] = (struct pollfd){ .fd = dpd->clients[i].fd,
						    .events = dpd->clients[i].replying ? POLLOUT
										       : POLLIN };
		}
		ret = ppoll(pfd, n, &timeout, &empty);
		if (ret < 0 && errno != EINTR) {
			dp_log(LOG_ERR, "poll: %s", strerror(errno));
			return -1;
		}
		if (stop_signal)
			break;
		if (fault_signal)
			inject_faults(dpd);

		if (ret > 0 && pfd[0].revents) {
			bool changed = false, resync = false;
			struct dp_stamp rx;

			if (dp_nl_read(dpd->nl, &dpd->cfg, &changed, &resync, &rx) < 0)
				return -1;
			/* after a failed dump, only a good one (the cache is partial) */
			if (resync || (changed && dpd->cfg.rb.resync_pending))
				dpd_resync(dpd, &rx);
			else if (changed)
				reconcile_all(dpd, &rx);
		}
		if (ret > 0 && pfd[1].revents && dpd->ct) {
			uint64_t idle = 0;

			if (dp_ct_read(dpd->ct, &dpd->cfg, &idle) < 0) {
				dp_log(LOG_WARNING, "conntrack events lost: dumping again");
				dp_ct_sync(dpd->ct, &dpd->cfg);
			}
			ct_idle(dpd);
		}
		if (ret > 0 && pfd[2].revents)
			ctl_accept(dpd);
		for (size_t i = 3; ret > 0 && i < n; i++)
			if (pfd[i].revents && pc[i]->fd >= 0) {
				if (pc[i]->replying)
					client_write(pc[i]);
				else
					client_read(dpd, pc[i]);
			}

		/* timers: watchdog, expiry sweep, stale clients, failed programming */
		dp_stamp_now(&now);
		if (dpd->watchdog_ms && dp_stamp_ms(&last_watchdog, &now) >= dpd->watchdog_ms) {
			last_watchdog = now;
			sd_notify_msg("WATCHDOG=1");
		}
		if (reap && dp_stamp_ms(&last_reap, &now) >= reap) {
			last_reap = now;
			if (dp_ct_refresh(dpd->ct, &dpd->cfg) == 0)
				ct_idle(dpd);
		}
		for (size_t i = 0; i < CLIENTS_MAX; i++) {
			struct client *c = &dpd->clients[i];

			if (c->fd >= 0 && dp_stamp_ms(&c->since, &now) > CLIENT_TIMEOUT)
				client_close(c);
		}
		if (dp_stamp_ms(&last_retry, &now) < RETRY_INTERVAL)
			continue;
		last_retry = now;
		if (dpd->cfg.rb.resync_pending) {
			dpd_resync(dpd, &now);
			continue;
		}
		for (size_t i = 0; i < dpd->cfg.ndests; i++) {
			struct dp_dest *d = &dpd->cfg.dests[i];

			if (d->dirty)
				dest_reconcile(dpd, d, &now);
		}
		if (dpd->keep_pending)
			unkeep(dpd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct dpd dpd;
	const char *config = DP_DEFAULT_CONFIG;
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;
	int opt, rc = 0;

	dpd.sock_path = DP_DEFAULT_SOCKET;
	dpd.test_faults = getenv(TEST_FAULTS_ENV) && *getenv(TEST_FAULTS_ENV) &&
			  strcmp(getenv(TEST_FAULTS_ENV), "0");
	dpd.lock_fd = dpd.listen_fd = -1;
	for (size_t i = 0; i < CLIENTS_MAX; i++)
		dpd.clients[i].fd = -1;
	dp_progname = "fare-dpd";
	while ((opt = getopt(argc, argv, "f:s:dh")) != -1) {
		switch (opt) {
		case 'f':
			config = optarg;
			break;
		case 's':
			dpd.sock_path = optarg;
			break;
		case 'd':
			dp_debug = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	/* under systemd, stderr already goes to the journal */
	dp_syslog = !getenv("JOURNAL_STREAM");
	if (dp_syslog)
		openlog("fare-dpd", LOG_PID, LOG_DAEMON);
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (config_load(config, &dpd.cfg) < 0)
		return 1;

	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);

	if (setup(&dpd) < 0) {
		/* leave what a previous instance left for the next start to adopt */
		rc = 1;
	} else {
		dp_log(LOG_INFO, "running: %zu destination(s), control socket %s", dpd.cfg.ndests,
		       dpd.sock_path);
		dpd.watchdog_ms = sd_watchdog_ms();
		sd_notify_msg("READY=1");
		if (loop(&dpd) < 0)
			rc = 1;
	}
	if (stop_signal == SIGUSR2 && !rc) {
		/* a planned restart: the mapping stays for the next instance */
		sd_notify_msg("STOPPING=1");
		if (dp_nft_keep(dpd.nft, &dpd.cfg, HANDOFF_GRACE) == 0)
			dp_log(LOG_INFO,
			       "%s: exiting for a restart: the mapping stays %d s for the next "
			       "instance",
			       strsignal(stop_signal), HANDOFF_GRACE);
		cleanup(&dpd, false);
	} else if (stop_signal && !rc) {
		sd_notify_msg("STOPPING=1");
		dp_log(LOG_INFO, "%s: cleaning up", strsignal(stop_signal));
		cleanup(&dpd, true);
	} else {
		/* fatal: fail open (the nft table goes with us), the next start adopts */
		dp_log(LOG_ERR, "exiting on an error: the kernel's ECMP carries the flows");
		cleanup(&dpd, false);
	}
	closelog();
	return rc;
}
