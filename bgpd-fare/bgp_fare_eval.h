// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the per-prefix rules and their results (bgp_fare_eval.c),
 * above the instance and neighbor records (bgp_fare.h).
 */
#ifndef _BGP_FARE_EVAL_H
#define _BGP_FARE_EVAL_H

#include "bgpd/fare/bgp_fare.h"

struct zclient_capabilities;

/* Enhanced ECMP (EE-4) for one prefix: its remote group, local sub-group
 * and the paths of it, as the feature set them (fare_feature
 * prefix_restrict, before the core's computation, and prefix_evaluated,
 * after it).
 */
struct fare_ecmp_selection {
	bool has_gid;
	struct fare_groupid gid;
	uint32_t subgroup; /* 0-based, FARE_ECMP_SUBGROUP_NONE: none */
	bool applied;	   /* weights restricted to the sub-group */
	bool fallback;	   /* no usable member: the full set */
	const char *reason;
	bool member[MULTIPATH_NUM];
};

/* Result of one prefix, as the core computed it from the live paths. */
struct fare_prefix {
	size_t n;
	uint32_t multihoming;
	struct bgp_path_info *paths[MULTIPATH_NUM];
	const char *link_source[MULTIPATH_NUM];
	bool link_held[MULTIPATH_NUM];	  /* in a hold-down (WP-7) */
	uint16_t stale_as[MULTIPATH_NUM]; /* AS that wrote a stale value */
	struct fare_path_in in[MULTIPATH_NUM];
	double path_bw[MULTIPATH_NUM];
	uint32_t weights[MULTIPATH_NUM]; /* as installed (EE-4 included) */
	struct fare_prefix_out out;
	struct fare_ecmp_selection ee;
};

/* Who set the weights of a route's nexthops in zebra (show: weightSource) */
enum fare_weight_source {
	FARE_WSRC_FARE,		 /* Path Bandwidth (FARE-4, FARE-7) */
	FARE_WSRC_FARE_SUBGROUP, /* an Enhanced ECMP sub-group only (EE-4) */
	FARE_WSRC_FRR_LINK_BW,	 /* FRR: link-bandwidth extended community */
	FARE_WSRC_FRR_NNHN,	 /* FRR: next-next-hop node count */
	FARE_WSRC_FRR_UNDERLAY,	 /* FRR: use-underlays-nexthop-weight */
	FARE_WSRC_EQUAL,	 /* nobody: plain ECMP */
};

/* The result of a prefix kept for zebra and the update-groups: what the
 * outbound attribute needs (bgp_fare_announce.c) and the weights.
 */
#define FARE_RESULT_PATHS 16 /* more paths: computed each time */

struct fare_result {
	const struct bgp_path_info *best;
	uint64_t generation;
	double t_value;
	double nt_value;
	double kept_bw; /* FARE_ADV_KEEP: the best path's value */
	int32_t n_out;	/* WP-2 eligible outgoing, -1: not counted yet */
	uint32_t dropped;
	uint16_t n;
	bool wcmp;     /* weighted by Path Bandwidth */
	bool weighted; /* weights to install (FARE's, or EE-4's) */
	bool nt_attach;
	bool kept_present;
	uint8_t t_action; /* enum fare_adv_action */
	uint8_t reason;	  /* enum fare_reason */
	uint16_t weights[FARE_RESULT_PATHS];
};

extern void fare_prefix_compute_dest(struct fare_instance *fi, struct bgp_dest *dest,
				     struct bgp_path_info *best, struct fare_prefix *fp);
extern struct fare_result *fare_result_get(struct fare_instance *fi, struct bgp_dest *dest,
					   struct bgp_path_info *best);
extern uint32_t fare_result_weight(const struct fare_result *res, size_t i);
extern void fare_result_forget(const struct bgp_dest *dest);
extern void fare_results_shared_flush(void);
extern void fare_eval_fini(void);
extern void fare_out_sets_free(struct fare_instance *fi);
extern void fare_installed_weights(struct fare_instance *fi, struct bgp_dest *dest,
				   struct bgp_path_info *best, uint32_t *weights, size_t n);
extern unsigned int fare_eligible_outgoing_best(struct fare_instance *fi, struct bgp_dest *dest,
						struct bgp_path_info *best, afi_t afi);
extern unsigned int fare_eligible_outgoing(struct fare_instance *fi, struct bgp_dest *dest,
					   const struct fare_prefix *fp, afi_t afi);
extern enum fare_weight_source fare_weight_source(struct fare_instance *fi, struct bgp_dest *dest,
						  struct bgp_path_info *best,
						  const struct fare_prefix *fp);
extern const char *fare_weight_source_str(enum fare_weight_source src);
/* the bgp_zebra_nexthop_weights hook */
extern int fare_zebra_nexthop_weights(struct bgp *bgp, struct bgp_dest *dest,
				      struct bgp_path_info *best, uint64_t *weights,
				      unsigned int max);

#endif /* _BGP_FARE_EVAL_H */
