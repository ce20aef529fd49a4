// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE propagation rules for one prefix: from what was received on each
 * equal-cost path, the weight of every path and what to advertise.
 * Pure C, no FRR headers: the bgpd glue fills the inputs.
 *
 * SPEC: FARE-4 .. FARE-10 (draft-xu-idr-fare).
 */
#ifndef FARE_RULES_H
#define FARE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_wcmp.h"

/* What one path carries of one Path Bandwidth community type. */
enum fare_pb_state {
	FARE_PB_ABSENT,	  /* no community of this type */
	FARE_PB_PRESENT,  /* one usable value (duplicates that agree) */
	FARE_PB_INVALID,  /* NaN, infinite, negative or subnormal */
	FARE_PB_CONFLICT, /* several values that disagree */
	FARE_PB_STALE,	  /* not written by the neighbor it came from: a
			   * router without FARE passed it on (FARE-7) */
};

struct fare_path_in {
	double link_bw;		    /* bytes/s towards the advertising neighbor, 0: unknown
			 * (FARE-3) */
	enum fare_pb_state t_state; /* transitive Path Bandwidth */
	double t_bw;
	enum fare_pb_state nt_state; /* non-transitive (FARE-8/9) */
	double nt_bw;
	bool from_super_spine; /* received from a super-spine (FARE-9) */
	bool ignored;	       /* from a boundary peer (FARE-11) */
	bool held_down;	       /* session re-established, in its hold-down (WP-7):
			 * its capacity does not count yet */
	/* Paths over one session share its link (add-path, parallel paths
	 * through one neighbor): paths with the same non-zero link_group
	 * are capped together by link_bw. 0: a link of its own.
	 */
	unsigned int link_group;
	/* Paths with the same non-zero nexthop_group reach the same next
	 * hop over the same link: one forwarding entry, weighted once (the
	 * first of them); the others get weight 0. 0: its own next hop.
	 */
	unsigned int nexthop_group;
	/* Draft mode, parallel links: paths with the same non-zero
	 * neighbor_group come from one neighbor router over several links
	 * (sessions). Each carries the neighbor's whole Path Bandwidth; the
	 * neighbor gets min(sum of its links, that value), split over its
	 * links in proportion to their bandwidths. 0: a neighbor of its own.
	 */
	unsigned int neighbor_group;
	/* The data plane cannot weight this path exactly: its next hop
	 * resolves recursively over several links, or onto the same link
	 * as another path's.
	 */
	bool inexact_nexthop;
};

/* Propagation rule, per BGP instance (SPEC section 5). */
enum fare_mode {
	FARE_MODE_DRAFT,    /* draft-xu-idr-fare: min/sum (FARE-4/5) */
	FARE_MODE_AVERAGED, /* white paper: received values, averaged out
			     * over the outgoing interfaces (WP-1..3) */
};

enum fare_role {
	FARE_ROLE_NODE,	       /* leaf or spine: FARE-4/5/6/7/10 */
	FARE_ROLE_SUPER_SPINE, /* FARE-8 */
	FARE_ROLE_HOST,	       /* GPU server of a scale-up network (SUN-1):
				* weights like a node, never transit */
};

struct fare_prefix_params {
	enum fare_mode mode;
	enum fare_role role;
	uint32_t multihoming;  /* FARE-6 k, >= 1 */
	bool lower_transitive; /* FARE-9 option */
	struct fare_wcmp_limits limits;
	/* EE-4: NULL, or the prefix's remote ECMP group has a local
	 * sub-group and subgroup[i] says whether path i's session is on one
	 * of its uplinks: the weights are then the sub-group's (see
	 * fare_prefix_compute()).
	 */
	const bool *subgroup;
	/* NULL, or the weights of vectors seen before (fare_wcmp_weights_memo()) */
	struct fare_wcmp_memo *memo;
};

/* Why a prefix is (not) weighted; index of the path concerned, if any. */
enum fare_reason {
	FARE_REASON_WCMP,		    /* weighted by Path Bandwidth */
	FARE_REASON_PATH_WITHOUT_PB,	    /* FARE-7: a path lacks it */
	FARE_REASON_PATH_INVALID_PB,	    /* a path's value is unusable */
	FARE_REASON_PATH_CONFLICTING_PB,    /* a path carries several values */
	FARE_REASON_PATH_IGNORED,	    /* a path from a boundary peer */
	FARE_REASON_SUPER_SPINE_WITHOUT_NT, /* FARE-9: ECMP */
	FARE_REASON_ALL_ZERO,		    /* every path has 0 bandwidth */
	FARE_REASON_WEIGHTS_UNFIT,	    /* limits cannot hold the group */
	FARE_REASON_PATH_STALE_PB,	    /* FARE-7: passed on by a router
					     * without FARE */
	FARE_REASON_INEXACT_NEXTHOP,	    /* recursive next hop */
	FARE_REASON_MAX,
};

/* What happens to the transitive Path Bandwidth on re-advertisement. */
enum fare_adv_action {
	FARE_ADV_REPLACE, /* set to t_value (averaged mode: per outgoing
			   * session, fare_averaged_advertised()), Global
			   * Administrator = local AS */
	FARE_ADV_KEEP,	  /* pass the received one through unchanged */
	FARE_ADV_STRIP,	  /* remove it: upstream falls back to ECMP (FARE-7) */
};

/* EE-4: what the sub-group restriction (params->subgroup) did */
enum fare_subgroup_result {
	FARE_SUBGROUP_NONE,	/* no restriction: the full set's weights */
	FARE_SUBGROUP_APPLIED,	/* the weights are the sub-group's */
	FARE_SUBGROUP_FALLBACK, /* no usable path in the sub-group: the full
				 * set's weights (never a blackhole) */
};

struct fare_prefix_out {
	bool wcmp;
	enum fare_reason reason;
	size_t reason_path;
	enum fare_adv_action t_action;
	double t_value;
	bool nt_attach; /* FARE-8: super-spine attaches a non-transitive one */
	size_t dropped; /* paths with bandwidth left at weight 0 by the
			 * member budget (share below 1/W, WP-3) */
	double nt_value;
	enum fare_subgroup_result subgroup; /* EE-4 */
};

/*
 * Compute one prefix. in[0] is the best path, in[1..n-1] its equal-cost
 * multipaths. path_bw[i] receives w_i in bytes/s (FARE-4/9), weights[i]
 * the integer WCMP weight (0 = not installed); both are all 0 when
 * out->wcmp is false (plain ECMP).
 *
 * Per path v = the received value (the non-transitive one from a
 * super-spine, FARE-9), divided by the multihoming factor (FARE-6).
 * Paths to one next hop over one link count once (the largest v, on the
 * first of them); the paths over one link are then capped together by
 * its bandwidth, in proportion to their v: w = v * min(1, link / sum of
 * v over the link). With one path per link this is FARE-4's
 * min(link, v), in both modes (a receiver never weights a path above its
 * own link, WP-3 included). Paths of one neighbor_group (parallel links
 * to one neighbor router) share min(sum of the group's link bandwidths,
 * the largest v of the group), split over its links in proportion to
 * their bandwidths and on each link over its paths in proportion to v.
 *
 * EE-4, with params->subgroup: weights[] are the sub-group's, WP-3's
 * reduction within the limits over the paths of the sub-group that the
 * full set uses: their w when the prefix is weighted (a path the member
 * budget leaves at weight 0 in the full set stays out), 1 each when it
 * falls back to plain ECMP; the paths outside the sub-group get weight 0.
 * When no path of the sub-group is usable, the full set's weights stay
 * (never a blackhole). out->subgroup says which; path_bw[] and the rest of
 * out, what is advertised included (FARE-5: every path counts), are the
 * full set's either way.
 */
void fare_prefix_compute(const struct fare_path_in *in, size_t n,
			 const struct fare_prefix_params *params, double *path_bw,
			 uint32_t *weights, struct fare_prefix_out *out);

/*
 * WP-2: what an intermediate node in averaged mode advertises on one
 * outgoing session: the sum of the received values averaged over the
 * n_out eligible outgoing interfaces, capped by that session's line rate
 * (out_link_bw, 0 = unknown: no cap). WP-1 origination is the same with
 * sum = the originated value and n_out = 1.
 */
double fare_averaged_advertised(double sum, unsigned int n_out, double out_link_bw);

/*
 * SUN-1: whether a router of this role announces a route. A host (a GPU
 * server peering with the switch of every plane) announces only the routes
 * it originates, its GPUs' loopbacks: re-advertising one plane's routes
 * into another would make it transit between planes, and when a port
 * fails a plane would reach that GPU through another server instead of
 * taking itself out (SUN-2).
 */
bool fare_role_announces(enum fare_role role, bool originated);

const char *fare_reason_str(enum fare_reason reason);
const char *fare_mode_str(enum fare_mode mode);
const char *fare_pb_state_str(enum fare_pb_state state);
const char *fare_adv_action_str(enum fare_adv_action action);

#endif /* FARE_RULES_H */
