// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-dpd, the FARE data-plane agent (dataplane/DESIGN.md): state shared by
 * the daemon (fare-dpd.c), its kernel interfaces (dp_netlink.c, dp_nft.c,
 * dp_conntrack.c), its reports (dp_report.c) and the CLI (fare-dp.c).
 */
#ifndef FARE_DPD_H
#define FARE_DPD_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "fare_dp.h"

#define DP_DEST_MAX		 64
#define DP_MEMBER_STRIDE	 64 /* marks and tables per destination */
#define DP_DEFAULT_MARK_BASE	 0x4641000u
#define DP_DEFAULT_TABLE_BASE	 4641000u
#define DP_DEFAULT_RULE_PRIORITY 100u
#define DP_DEFAULT_SOCKET	 "/run/fare-dpd/fare-dpd.sock"
#define DP_DEFAULT_SOCKET_MODE	 0660u
#define DP_DEFAULT_CONFIG	 "/etc/frr/fare-dpd.conf"
#define DP_DEFAULT_PLAN_PORT	 49152u
/* rtm_protocol of the agent's routes and FRA_PROTOCOL of its rules ('F') */
#define DP_RTPROT   0x46
#define DP_NAME_LEN 64
#define DP_HOPS_MAX 256 /* members of a kernel group read */

enum dp_mode {
	DP_PER_FLOW,
	DP_PER_PACKET,
};

/* A gateway: family 0 when the member is a directly connected device. */
struct dp_gw {
	uint8_t family;
	uint8_t addr[16];
};

/* One next hop of a destination as the kernel has it. */
struct dp_hop {
	int ifindex;
	struct dp_gw gw;
	uint8_t flags; /* RTNH_F_ONLINK */
	uint32_t weight;
	uint32_t nhid; /* the member's nexthop object, 0 in RTA_MULTIPATH */
};

/* The kernel's route for a destination (exact prefix, main table). */
struct dp_route {
	bool present;
	uint32_t metric;
	uint32_t nhid;
	uint8_t type;
	size_t nhops;
	struct dp_hop hops[FARE_DP_MEMBERS_MAX];
};

/*
 * Member k of destination d: fwmark mark-base + d*64 + k + 1, table
 * table-base + d*64 + k. Members are identified by (ifindex, gateway) so a
 * weight change keeps marks stable.
 */
struct dp_member {
	bool used;
	bool in_group;	 /* in the kernel's group now */
	bool programmed; /* table route and fwmark rule installed */
	bool stale;	 /* its device went down or up: install the route again */
	int ifindex;
	struct dp_gw gw;
	uint8_t flags;
	uint32_t nhid;
	uint32_t weight; /* programmed weight (0: left the group) */
	uint32_t live;	 /* live flows carrying its mark (per-flow) */
};

struct dp_stamp {
	struct timespec real;
	struct timespec mono;
};

/* The last change of a destination's mapping. */
struct dp_change {
	bool valid;
	struct dp_stamp rx;   /* netlink message arrival */
	struct dp_stamp done; /* new mapping programmed */
	uint32_t group;
	uint32_t moved;
	size_t nweights;
	uint32_t weights[FARE_DP_MEMBERS_MAX];
};

struct dp_dest {
	unsigned int idx;
	char name[DP_NAME_LEN]; /* prefix as configured, normalised */
	int family;		/* AF_INET, AF_INET6 */
	uint8_t addr[16];
	uint8_t plen;
	enum dp_mode mode;
	uint16_t udp_port; /* 0: any */
	uint32_t idle;	   /* seconds, 0: unset */
	enum fare_dp_recover recover;

	struct dp_route route; /* kernel's route */
	bool programmed;       /* a mapping is in place */
	bool dirty;	       /* programming failed: retry */
	uint32_t group;	       /* group id of the programmed mapping */
	struct dp_member members[FARE_DP_MEMBERS_MAX];
	size_t nslots;
	uint8_t slots[FARE_DP_SLOTS_MAX]; /* member index k per slot */
	bool fill;			  /* slots: one cycle from the live counts */

	uint64_t placed, moved, expired;
	uint64_t placed_cycle; /* flows placed since numgen was reset */
	struct dp_change last;

	/*
	 * A rebalance whose conntrack catch-up or moves failed: retried with
	 * the weights the live flows were placed with (pend_old, by member).
	 */
	bool pend;
	uint32_t pend_old[FARE_DP_MEMBERS_MAX];
};

/*
 * Restarts and failures (dataplane/DESIGN.md, "Restart, crash, failures"),
 * shown by `fare-dp show json` under "robustness".
 */
struct dp_robust {
	uint32_t adopted_members; /* rebuilt from the kernel's rules and tables at start */
	uint32_t adopted_flows;	  /* live flows with our marks found at start */
	bool handoff_found;	  /* a previous instance's table inet fare_dp_keep */
	bool resync_pending;	  /* the last resync dump failed: retried */
	uint64_t resync_failed, resync_retried;
	uint64_t dumps_interrupted;	/* NLM_F_DUMP_INTR replies (the dump is tried again) */
	uint64_t ct_failed, ct_retried; /* conntrack catch-ups or moves */
	uint64_t faults_injected;	/* test option FARE_DPD_TEST_FAULTS, SIGUSR1 */
};

struct dp_config {
	uint32_t mark_base;
	uint32_t mark_mask; /* the bits of the marks that are the agent's; 0: default */
	uint32_t table_base;
	uint32_t rule_priority;
	uint32_t socket_mode; /* of the control socket, from its creation */
	size_t ndests;
	struct dp_dest dests[DP_DEST_MAX];
	struct dp_robust rb;
};

/* dp_report.c: logging to stderr ("<progname>: ...") and, with dp_syslog, to syslog */
extern bool dp_debug;
extern bool dp_syslog;
extern const char *dp_progname;
void dp_log(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define dp_dbg(...)                                                                                \
	do {                                                                                       \
		if (dp_debug)                                                                      \
			dp_log(7, __VA_ARGS__);                                                    \
	} while (0)

static inline uint32_t dp_mark(const struct dp_config *cfg, const struct dp_dest *d, unsigned k)
{
	return cfg->mark_base + d->idx * DP_MEMBER_STRIDE + k + 1;
}

static inline uint32_t dp_table(const struct dp_config *cfg, const struct dp_dest *d, unsigned k)
{
	return cfg->table_base + d->idx * DP_MEMBER_STRIDE + k;
}

/*
 * dp_config.c: the mark, table and rule ranges. Fills in the default
 * mark-mask (the bits of mark-base and the bits its offsets reach), then
 * checks: every mark within the mask and 32 bits, no table 0 or 253-255,
 * rule-priority 1..32765 (before the main rule). 0, or -1 with err set.
 */
uint32_t dp_default_mark_mask(uint32_t mark_base);
int dp_config_check(struct dp_config *cfg, char *err, size_t errlen);

/* The destination and member of a mark (other bits than the mask's ignored); false when not one of ours. */
bool dp_mark_member(const struct dp_config *cfg, uint32_t mark, size_t *d, unsigned *k);
bool dp_gw_equal(const struct dp_gw *a, const struct dp_gw *b);
/* "10.0.4.0/24" -> family, address (host bits cleared), length */
bool dp_prefix_parse(const char *s, int *family, uint8_t *addr, uint8_t *plen);
void dp_prefix_format(int family, const uint8_t *addr, uint8_t plen, char *buf, size_t len);
void dp_stamp_now(struct dp_stamp *s);
double dp_stamp_ms(const struct dp_stamp *from, const struct dp_stamp *to);

/* dp_report.c: a growing text buffer and the show / plan replies */
struct dp_buf {
	char *s;
	size_t len, cap;
	bool oom;
};
void dp_buf_printf(struct dp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dp_buf_json_str(struct dp_buf *b, const char *s);
void dp_buf_free(struct dp_buf *b);
void dp_report_show(struct dp_buf *b, const struct dp_config *cfg, bool json);
/* the usable members (weight > 0) of d, in member order */
size_t dp_dest_weights(const struct dp_dest *d, uint32_t *weights, unsigned *ks);
/* libfaredp.c: d from the kernel's route for dest (no daemon); members or -1, errno */
int dp_dest_from_kernel(const char *dest, struct dp_dest *d);
void dp_report_plan(struct dp_buf *b, const struct dp_dest *d, uint32_t qps, uint16_t first_port,
		    const char *source);
void dp_gw_format(const struct dp_gw *gw, char *buf, size_t len);
void dp_ifname(int ifindex, char *buf, size_t len);

/* dp_netlink.c: routes, nexthops, rules (libmnl) */
struct dp_nl;
struct dp_nl *dp_nl_open(bool events);
void dp_nl_close(struct dp_nl *nl);
int dp_nl_fd(const struct dp_nl *nl);
/* A member table route and fwmark rule a previous instance left (DP_RTPROT). */
struct dp_adopt {
	size_t d;
	unsigned k;
	bool route, rule;
	struct dp_hop hop; /* the route's next hop (nhid: the nexthop object's) */
};
/*
 * Dump nexthops and routes: fills the destinations' routes. With adopt
 * (at start), also the routes and rules a previous instance left
 * (DP_RTPROT): those of this config's members are returned in *adopted
 * (count *nadopted, free()), the others removed. On a failed dump (an
 * error reply, an interrupted dump) the routes stay as they were and -1
 * is returned: keep the mapping and dump again later.
 */
int dp_nl_dump(struct dp_nl *nl, struct dp_config *cfg, bool adopt, struct dp_adopt **adopted,
	       size_t *nadopted);
/* Test option: the next n dumps fail as on an error reply. */
void dp_nl_fail_dumps(struct dp_nl *nl, unsigned n);
/*
 * Read the pending route and nexthop events; *changed when one may concern
 * a destination (its route, a nexthop), *resync when events were lost or
 * a destination's route was deleted (dump again). rx: arrival of the first
 * message read. Returns -1 on a socket error.
 */
int dp_nl_read(struct dp_nl *nl, struct dp_config *cfg, bool *changed, bool *resync,
	       struct dp_stamp *rx);
/* The members and weights of d's route (its group's members): count, -1 without route. */
int dp_nl_resolve(const struct dp_nl *nl, const struct dp_dest *d, struct dp_hop *hops, size_t max,
		  uint32_t *group);
/* Member k's table route and fwmark rule. */
int dp_nl_member_add(struct dp_nl *nl, const struct dp_config *cfg, const struct dp_dest *d,
		     unsigned k);
int dp_nl_member_del(struct dp_nl *nl, const struct dp_config *cfg, const struct dp_dest *d,
		     unsigned k);

/* dp_nft.c: the table inet fare_dp (libnftables) */
struct dp_nft;
struct dp_nft *dp_nft_open(void);
/* (Re)create the table: chains out and pre jumping to one chain per destination. */
int dp_nft_init(struct dp_nft *nft, const struct dp_config *cfg);
/* Rewrite destination d's chain in one batch (and so reset its numgen). */
int dp_nft_dest(struct dp_nft *nft, const struct dp_config *cfg, const struct dp_dest *d);
/* Delete the table (and a hand-off table left). */
int dp_nft_fini(struct dp_nft *nft);
/*
 * Planned restart: table inet fare_dp_keep, not owned, a copy of the
 * destinations' chains effective until now + grace seconds; the next
 * instance deletes it once its own table is programmed (dp_nft_unkeep).
 */
int dp_nft_keep(struct dp_nft *nft, const struct dp_config *cfg, unsigned grace);
/* Delete table inet fare_dp_keep: 1 when there was one, 0, -1 on error. */
int dp_nft_unkeep(struct dp_nft *nft);
void dp_nft_close(struct dp_nft *nft);

/* dp_conntrack.c: tracked flows of the per-flow destinations */
struct dp_ct;
struct dp_ct *dp_ct_open(const struct dp_config *cfg);
void dp_ct_close(struct dp_ct *ct);
int dp_ct_fd(const struct dp_ct *ct);
/*
 * Read pending NEW/DESTROY events: live counts and counters of cfg; bit d
 * of *idle set when per-flow destination d's last live flow went. Returns
 * -1 when events were lost (call dp_ct_sync).
 */
int dp_ct_read(struct dp_ct *ct, struct dp_config *cfg, uint64_t *idle);
/* Dump the conntrack table: the flows with our marks and the live counts. */
int dp_ct_sync(struct dp_ct *ct, struct dp_config *cfg);
/*
 * Check the tracked flows (a lookup each, or a dump when there are many):
 * the kernel reaps the timed-out ones, which leave the flow table.
 */
int dp_ct_refresh(struct dp_ct *ct, struct dp_config *cfg);
/*
 * Re-mark flows of d so that member k carries target[k]: from the members
 * above their target, lowest conntrack id first, to the members below it,
 * in member order. Returns the number of flows moved.
 */
uint32_t dp_ct_move(struct dp_ct *ct, struct dp_config *cfg, struct dp_dest *d,
		    const uint32_t *target, uint32_t *failed);

#endif /* FARE_DPD_H */
