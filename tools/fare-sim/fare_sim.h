// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fare-sim: a fabric simulator on FARE's pure core (bgpd-fare/core). It
 * propagates the Path Bandwidth over a whole fabric by calling the
 * functions the bgpd module calls (fare_prefix_compute(),
 * fare_averaged_advertised(), fare_bw_wire_value()), follows a traffic
 * matrix through the resulting weights and compares it with the fabric's
 * max-flow (doc/user/fare-sim.rst).
 *
 * No FRR headers: the core and libc only.
 */
#ifndef FARE_SIM_H
#define FARE_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fare_rules.h"

#define SIM_NAME_LEN  32
#define SIM_MAX_AS    12  /* longest AS path followed */
#define SIM_MAX_PATHS 256 /* multipaths per prefix (FRR's MULTIPATH_NUM here) */
#define SIM_ERR_LEN   256

/* How every router of a run weights its paths (doc/user/fare-sim.rst) */
enum sim_rule {
	SIM_RULE_ECMP,		 /* equal split over the multipaths */
	SIM_RULE_FRR_CUMULATIVE, /* FRR's link-bandwidth, `cumulative` */
	SIM_RULE_DRAFT,		 /* FARE draft mode, per neighbor (FARE-4) */
	SIM_RULE_PER_SESSION,	 /* FARE draft mode, per session */
	SIM_RULE_AVERAGED,	 /* FARE averaged mode (WP-1..3) */
	SIM_RULE_CONFIG,	 /* each router as the fabric file says */
	SIM_RULE_MAX,
};

struct sim_router {
	char name[SIM_NAME_LEN];
	uint32_t as;
	int tier;
	enum fare_role role;
	bool fare;	     /* FARE configured (off: passes communities on) */
	bool originate;	     /* originates a prefix of its own */
	double originate_bw; /* FARE-2's value (default the largest float) */
	enum sim_rule rule;  /* draft, per-session or averaged (config) */
	uint32_t multihoming;
	bool lower_transitive; /* FARE-9 option */
	struct fare_wcmp_limits limits;
	uint32_t adj_start, adj_n; /* its links in sim_fabric.adj[] */
};

struct sim_link {
	uint32_t a, b;	   /* routers */
	double bw;	   /* configured, bytes/s (FARE-3) */
	double cur_bw;	   /* now: degraded, 0 = failed */
	uint8_t boundary;  /* FARE-11: 1 a treats b as one, 2 b treats a */
	uint32_t parallel; /* 1-based index among the links a-b */
	uint32_t lineno;   /* where it was declared, 0 = generated */
};

struct sim_prefix {
	char name[SIM_NAME_LEN];
	uint32_t *origins; /* routers */
	uint32_t n_origins;
	uint32_t multihoming; /* FARE-6 k (0: each router's own) */
	uint32_t *mh_at;      /* the routers configured with it (none: all) */
	uint32_t n_mh_at;
};

/* an adjacency: a router's end of a link */
struct sim_adj {
	uint32_t link;
	uint32_t peer;
};

struct sim_fabric {
	struct sim_router *routers;
	uint32_t n_routers, cap_routers;
	struct sim_link *links;
	uint32_t n_links, cap_links;
	struct sim_prefix *prefixes;
	uint32_t n_prefixes, cap_prefixes;
	struct sim_adj *adj; /* 2 * n_links, grouped by router */
	uint64_t gpus;	     /* GPUs the generator put behind the fabric */
	/* defaults of the `fabric` line */
	enum sim_rule rule;
	struct fare_wcmp_limits limits;
};

/* ---- fabric: sim_fabric.c --------------------------------------------- */

void sim_fabric_init(struct sim_fabric *f);
void sim_fabric_free(struct sim_fabric *f);
/* Parse the text format from a stream; on error 0 is not returned and err
 * holds "LINE: message".
 */
int sim_fabric_parse(struct sim_fabric *f, FILE *in, const char *fname, char *err, size_t errlen);
int sim_fabric_parse_string(struct sim_fabric *f, const char *text, char *err, size_t errlen);
/* A generator: "clos3:leaves=4,spines=4,gbps=800", clos5, scaleup */
int sim_fabric_generate(struct sim_fabric *f, const char *spec, char *err, size_t errlen);
/* One event line (fail / degrade / restore), as in the file */
int sim_fabric_event(struct sim_fabric *f, const char *line, char *err, size_t errlen);
/* Random failures: each link down with probability fail_rate, else at
 * half its bandwidth with probability halve_rate.
 */
void sim_fabric_random_failures(struct sim_fabric *f, double fail_rate, double halve_rate,
				uint64_t seed);
/* After the routers and links are in: adjacency, prefixes */
int sim_fabric_finish(struct sim_fabric *f, char *err, size_t errlen);
void sim_fabric_write(const struct sim_fabric *f, FILE *out);
int sim_router_find(const struct sim_fabric *f, const char *name);
bool sim_bw_parse(const char *s, double *bytes_per_sec);
const char *sim_rule_str(enum sim_rule rule);
int sim_rule_parse(const char *s);

/* ---- routing: sim_route.c ----------------------------------------------- */

/* What a router advertises for one prefix (per session in averaged mode) */
struct sim_adv {
	bool present;	 /* transitive value attached */
	float value;	 /* on the wire */
	uint32_t writer; /* router whose AS it carries */
	bool nt_present; /* FARE-8 */
	float nt_value;
};

/* One router's state for one prefix */
struct sim_rstate {
	int32_t dist; /* AS hops from an origin, -1: no route */
	uint8_t n_as; /* its best path's AS_PATH as received */
	uint32_t as_path[SIM_MAX_AS];
	uint32_t mp_start, n_mp; /* multipaths in sim_state.mp_adj[] */
	bool wcmp;		 /* weighted (else equal split) */
	/* what it advertises */
	enum fare_adv_action t_action;
	double t_value; /* REPLACE: before WP-2; KEEP: the kept one */
	bool t_present;
	uint32_t t_writer;
	bool nt_attach;
	double nt_value;
	unsigned int n_out; /* WP-2's N */
	bool originated;
};

#define SIM_WIRE_CACHE_BITS 12

struct sim_state {
	const struct sim_fabric *f;
	enum sim_rule rule;
	/* UPDATEs: bgpd's `neighbor X sender-as-path-loop-detection`, no
	 * route sent to a peer whose AS is in its AS_PATH (default off)
	 */
	bool sender_loop_detection;
	uint32_t prefix;      /* the prefix last routed */
	struct sim_rstate *r; /* n_routers */
	uint32_t *order;      /* routers by distance, reachable ones */
	uint32_t n_order;
	uint32_t *mp_adj;    /* adjacency index (into f->adj) per multipath */
	uint32_t *mp_weight; /* its weight */
	uint32_t n_mp, cap_mp;
	/* scratch */
	uint32_t *peer_first; /* scratch, all UINT32_MAX between uses */
	uint8_t *link_mark;   /* scratch, all 0 between uses */
	struct {
		uint32_t bits;
		bool valid;
		double value;
	} wire_cache[1 << SIM_WIRE_CACHE_BITS];
	double *amount; /* traffic at each router */
	struct fare_path_in *in;
	double *path_bw;
	uint32_t *weights;
	double *bw;
};

int sim_state_init(struct sim_state *s, const struct sim_fabric *f);
void sim_state_free(struct sim_state *s);
/* Routes, weights and advertisements of every router for one prefix */
void sim_route_prefix(struct sim_state *s, uint32_t prefix, enum sim_rule rule);
/* What router r sends on its adjacency ai for the prefix last routed */
bool sim_adv_on(const struct sim_state *s, uint32_t r, uint32_t ai, struct sim_adv *adv);
/* Whether router r treats the peer over link as a boundary (FARE-11) */
bool sim_boundary(const struct sim_fabric *f, uint32_t link, uint32_t r);
/* Whether r sends the prefix on adjacency ai at all */
bool sim_sends_on(const struct sim_state *s, uint32_t r, uint32_t ai);

/* ---- traffic and max-flow: sim_flow.c ----------------------------------- */

struct sim_demand {
	uint32_t src, dst; /* router, prefix */
	double amount;
};

/* Link loads per direction: load[2 * link + (0: a->b, 1: b->a)] */
void sim_flow_add(const struct sim_state *s, uint32_t prefix, const struct sim_demand *d, size_t n,
		  double *load, double *lost);
/* The largest factor the demands can be scaled by before a link saturates */
double sim_flow_lambda(const struct sim_fabric *f, const double *load);

struct sim_maxflow;
struct sim_maxflow *sim_maxflow_new(const struct sim_fabric *f);
void sim_maxflow_free(struct sim_maxflow *m);
/* bytes/s from router src to the origins of prefix dst */
double sim_maxflow_pair(struct sim_maxflow *m, uint32_t src, uint32_t prefix);
/* The largest lambda with which every source can send lambda * amount to
 * the origins of one prefix at once (all-to-one)
 */
double sim_maxflow_concurrent_to_one(struct sim_maxflow *m, const struct sim_demand *d, size_t n,
				     uint32_t prefix);

/* ---- events: sim_event.c ------------------------------------------------ */

/* Per router (arrays of n_routers, the caller's) */
struct sim_event {
	uint64_t *updates;    /* UPDATEs it sends */
	uint32_t *vec_before; /* distinct weight vectors before the event */
	uint32_t *vec_after;  /* and after */
	uint32_t prefixes;    /* prefixes looked at */
};

/* after: the same fabric (routers, links, prefixes) with the event
 * applied to its links. only_prefix >= 0: that prefix only; else the
 * first max_prefixes (0: all).
 */
int sim_event_count(const struct sim_fabric *before, const struct sim_fabric *after,
		    enum sim_rule rule, int only_prefix, uint32_t max_prefixes,
		    bool sender_loop_detection, struct sim_event *ev);

#endif /* FARE_SIM_H */
