// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Fully Adaptive Routing Ethernet for bgpd.
 *
 * The module's lowest layer: the record of each BGP instance FARE is
 * configured in (bgp_fare_instance.c), the record of each of its
 * neighbors (bgp_fare_peer.c, below it), the features' registration, and
 * the walk of an instance's unicast tables. The module's files call down
 * only, never up (a file calls the files below it, not those above):
 *
 *   bgp_fare.c: module setup, the registration of hooks and features
 *   bgp_fare_vty.c, bgp_fare_ecmp_vty.c > bgp_fare_vty_show.c: commands
 *   bgp_fare_events.c (FRR's events), bgp_fare_announce.c (outbound)
 *   features, one header each: bgp_fare_ecmp.h (Enhanced ECMP),
 *     bgp_fare_ingress.h (bgp_fare_ingress.c > bgp_fare_ingress_rtnl.c),
 *     bgp_fare_host.h (host role), bgp_fare_traffic.h (measured shares)
 *   bgp_fare_eval.c: the per-prefix rules and their results
 *   bgp_fare_instance.c > bgp_fare_peer.c: this header
 *
 * The evaluation and the events reach the features through the table
 * each registers (struct fare_feature), never by name. SPEC: FARE-1 ..
 * FARE-11.
 */
#ifndef _BGP_FARE_H
#define _BGP_FARE_H

#include "jhash.h"
#include "linklist.h"
#include "json.h"
#include "memory.h"
#include "typesafe.h"

#include "fare_ecmp_groups.h"
#include "fare_groupid.h"
#include "fare_pathbw.h"
#include "fare_rules.h"
#include "fare_wcmp.h"

#define FARE_VERSION "0.1.0"

DECLARE_MGROUP(FARE);

/* Largest weight of a next hop by default: what zebra passes to any
 * kernel unscaled (8-bit nexthop weights; zebra's scale value is 254).
 * Up to 65535 with "bgp fare wcmp max-weight" where zebra and the kernel
 * take 16-bit weights (Linux 6.12 and later, patch 0009); never above
 * what zebra says it installs as it is (fare_max_weight()).
 */
#define FARE_MAX_WEIGHT		 254
#define FARE_MAX_MEMBERS_DEFAULT 512
#define FARE_HOLD_DOWN_DEFAULT	 10 /* seconds, WP-7 */

/* Per neighbor or peer-group configuration; a neighbor inherits each
 * field it does not set from its peer-group.
 */
#define FARE_PEER_LINK_BW     (1 << 0)
#define FARE_PEER_BOUNDARY    (1 << 1)
#define FARE_PEER_SUPER_SPINE (1 << 2)

struct fare_instance;
struct fare_prefix;
struct fare_ecmp_state;
struct fare_out_sets;
struct fare_ingress_state;
struct fare_traffic_state;

/* The one record of a neighbor (or a peer-group) of an instance, keyed
 * by the name its configuration is kept under (fare_peer_cfg_name():
 * address, interface or peer-group name), which outlives bgpd's peer: a
 * dynamic (listen range) neighbor is deleted when its session goes and
 * created anew when it comes back, under the same name (WP-7). Created
 * when a setting, a hold-down or a session needs it (bgp_fare_peer.c),
 * freed with the neighbor or peer-group (bgp_peer_delete,
 * bgp_peer_group_delete hooks) or the instance.
 */
PREDECL_HASH(fare_peers);
PREDECL_DLIST(fare_peer_cfgs);
struct fare_peer {
	struct fare_peers_item item;
	struct fare_peer_cfgs_item cfg_item; /* while set: configuration order */
	struct fare_instance *fi;
	char *name;
	bool in_cfgs; /* in fi->cfgs */

	/* settings ("neighbor X fare ...") */
	uint32_t set;	/* FARE_PEER_* */
	double link_bw; /* bytes/s, FARE-3 override */

	/* WP-7: the link bandwidth its paths are weighted with, while an
	 * increase (a LAG member back, a session re-established) waits out
	 * the hold-down; decreases apply at once.
	 */
	double held_bw;	 /* bytes/s used until the hold-down ends */
	bool recovering; /* session re-established: counts 0 */
	/* a dynamic (listen range) neighbor of this address was established
	 * and went: bgpd deleted it, its return is a re-establishment
	 */
	bool dynamic_was_up;
	bool link_state; /* a hold-down or dynamic_was_up was ever kept */
	struct event *t_hold;

	/* Resolved for the neighbor once per generation of the state
	 * (fare_generation_now()): the per-path rules read it instead of
	 * resolving the peer-group's settings and the interface each time.
	 */
	uint64_t generation;
	const struct peer_group *group; /* resolved with this peer-group */
	uint32_t flags;			/* FARE_PEER_*, own or peer-group's */
	double eff_link_bw;		/* FARE_PEER_LINK_BW: bytes/s */
	/* FARE-3: the interface its session runs over (fare_peer_interface()),
	 * IFINDEX_INTERNAL: none
	 */
	ifindex_t ifindex;

	bool refresh;	 /* its prefixes are due a refresh */
	bool refreshing; /* ... in the pass under way */
	/* The neighbor router it last reached (SUN-1: on a host, the plane's
	 * switch), kept while the session is down: bgpd forgets it.
	 */
	struct in_addr plane_id;
	char plane_name[64]; /* its hostname, if it sent one */
	/* WP-2: names of its outbound filters per address family, hashed
	 * (0: not seen yet), to tell when its policy changed
	 */
	uint32_t out_policy[2];
};

/* FARE-3: where a session's link bandwidth is unknown, and so a received
 * value is not capped by it (show: linkBandwidthSource, uncappedReason)
 */
#define FARE_LINK_SOURCE_NO_INTERFACE "unknown: no interface"
#define FARE_LINK_SOURCE_NO_SPEED     "unknown: no speed"

struct fare_multihoming {
	char *plist; /* IPv4 or IPv6 prefix-list name */
	uint32_t factor;
};

/* Counters of what was received and done, per instance, shown by "show
 * bgp fare".
 */
struct fare_counters {
	uint64_t value_class[FARE_BW_CLASS_MAX]; /* per received value */
	uint64_t duplicate;			 /* same community twice with one value */
	uint64_t conflicting;			 /* same type with different values */
	uint64_t stale;				 /* not written by the neighbor (FARE-7) */
	uint64_t ignored_boundary;		 /* paths from boundary peers (FARE-11) */
	uint64_t stripped_boundary;		 /* announcements stripped (FARE-11) */
	uint64_t originated;			 /* FARE-2 attachments */
	uint64_t replaced;			 /* FARE-5 rewrites */
	uint64_t passed_unchanged;		 /* next hop not self: as received */
	uint64_t stripped_fallback;		 /* FARE-7: stripped, could not sum */
	uint64_t nt_attached;			 /* FARE-8 */
	uint64_t held_down;			 /* increases delayed by the hold-down (WP-7) */
	uint64_t graceful_restarts;		 /* re-established after GR: no hold-down */
	uint64_t wcmp_routes;			 /* routes sent to zebra weighted */
	uint64_t dropped_paths;			 /* paths left at weight 0 by the
						  * member budget (WP-3) */
	uint64_t ecmp_routes;			 /* routes sent to zebra as plain ECMP */
	uint64_t zebra_unchanged;		 /* routes bgpd would have sent zebra
						  * again as zebra has them (nexthop
						  * groups on) */
	uint64_t frr_weighted_routes;		 /* routes FARE did not weigh that
						  * FRR's own weighted ECMP did */
	uint64_t transit_withheld;		 /* host role: announcements of routes
						  * not originated here (SUN-1) */
	uint64_t table_walks;			 /* walks of the whole table by the
						  * module (shows of all prefixes aside) */
	uint64_t peer_only_refreshes;		 /* WP-2: values re-announced to the
						  * peers, no route re-sent to zebra */
	uint64_t announce_passes;		 /* passes of those over the table
						  * and the update sub-groups */
	uint64_t announce_subgrps;		 /* sub-groups the passes built
						  * route by route */
	uint64_t announce_routes;		 /* routes the passes built for
						  * them */
	uint64_t reevaluated_routes;		 /* routes the module had bgpd
						  * process again (re-evaluation
						  * passes, EE-4 moves) */
};

/* FARE configuration and state of one BGP instance. */
PREDECL_HASH(fare_instances);

/* A pass of the module's over many routes works for at most this long
 * per task, checked every FARE_PASS_CHECK routes, then lets bgpd's other
 * tasks run: in one task, a pass over 200,000 prefixes took 0.1 to 0.25 s
 * (scripts/bench.sh spine).
 */
#define FARE_PASS_BUDGET_US 20000
#define FARE_PASS_CHECK	    64

/* Where a pass over the unicast tables, in tasks of bounded time, goes
 * on: after `from` (if set) in afi's table.
 */
struct fare_table_pass {
	afi_t afi, last_afi;
	struct prefix from;
	bool from_set;
};

struct fare_instance {
	struct fare_instances_item item;
	struct bgp *bgp;
	bool enabled;
	enum fare_mode mode;		 /* draft (default) or averaged */
	bool per_session;		 /* draft mode: parallel links counted per
				   * session, not per neighbor router */
	uint32_t hold_down;		 /* seconds before an increase applies (WP-7) */
	bool originate;			 /* FARE-2 */
	double originate_bw;		 /* bytes/s */
	enum fare_role role;		 /* FARE-8 */
	bool lower_transitive;		 /* FARE-9 option */
	uint8_t subtype;		 /* FARE-1 */
	uint32_t max_members;		 /* WP-3 group size limit */
	uint32_t max_weight;		 /* WP-3 largest weight of a member */
	bool nhg;			 /* shared nexthop groups (bgp_fare_nhg.c) */
	struct fare_peers_head peers;	 /* struct fare_peer, by name */
	struct fare_peer_cfgs_head cfgs; /* those with settings, in order */
	struct list *multihoming;	 /* struct fare_multihoming */
	struct fare_counters counters;
	/* the features' state (bgp_fare_ecmp.h, bgp_fare_ingress.h) */
	struct fare_ecmp_state *ecmp;
	struct fare_ingress_state *ingress;
	struct fare_traffic_state *traffic; /* bgp_fare_traffic.h */
	/* WP-2: N's candidate sessions per address family (bgp_fare_eval.c) */
	struct fare_out_sets *out_sets;
	struct event *t_refresh; /* fare_instance_refresh_later() */
	const char *refresh_why;
	/* asked for while bgpd read a configuration: at its end, for the
	 * destinations bgpd had selected by the last request (their
	 * tables' versions then, per address family)
	 */
	bool refresh_held;
	bool refresh_upto_set;
	uint64_t refresh_upto[AFI_MAX];
	/* else only prefixes via peers marked (fare_peer_refresh_later) */
	bool refresh_all;
	/* the pass of fare_instance_refresh(), in tasks of bounded time */
	struct event *t_refresh_step;
	struct fare_table_pass refresh_pass;
	const char *refresh_pass_why;
	bool refresh_pass_all;
	bool refresh_pass_upto_set; /* only destinations up to refresh_upto */
	uint64_t refresh_pass_upto[AFI_MAX];
	unsigned long refresh_count, refresh_walked;
	unsigned int refresh_tasks;
	bool announce_pending; /* fare_instance_announce_later() */
	/* WP-2: sessions changing together cost one pass
	 * (fare_instance_announce_settle())
	 */
	struct event *t_session_settle;
	struct timeval session_settle_first;
	const char *session_settle_why;
	/* the pass of fare_instance_announce(): sub-group by sub-group, in
	 * order of id, each in tasks of bounded time
	 */
	struct event *t_announce;
	afi_t announce_afi;
	uint64_t announce_subgrp_id; /* the one under way, or the next >= */
	bool announce_subgrp_begun;
	struct fare_table_pass announce_pass;
	bool announce_again;
	unsigned int announce_subgrps, announce_tasks;
	/* the sub-groups bgpd wanted refreshed when the pass began (a peer
	 * moved between update-groups), and the last id then: each of those,
	 * and one made since that wants it, gets every route built
	 */
	uint64_t *announce_full;
	size_t announce_full_n, announce_full_cap;
	uint64_t announce_last_id;
	bool announce_subgrp_full;
};

/* Largest nexthop weight zebra installs as it is, from its capabilities
 * (patch 0015): 255 (8 bits) or 65535 (16 bits); 0 until zebra says.
 */
extern uint32_t fare_zebra_weight_max;

/* WP-3: the largest weight of a member in force: "bgp fare wcmp
 * max-weight", within what zebra installs as it is, so that the data
 * plane holds the weights FARE computed.
 */
static inline uint32_t fare_max_weight(const struct fare_instance *fi)
{
	if (fare_zebra_weight_max && fare_zebra_weight_max < fi->max_weight)
		return fare_zebra_weight_max;
	return fi->max_weight;
}
extern unsigned long fare_debug;

#define FARE_DEBUG (fare_debug != 0)

/* ------------------------------------------------------------------ */
/* Features (Enhanced ECMP, ingress grouping, host role)                */
/* ------------------------------------------------------------------ */

/* What a feature does at the evaluation's events; registered at module
 * setup, called in the order registered. Any member may be NULL.
 */
struct fare_feature {
	const char *name;
	/* its state of an instance, made and freed with the instance */
	void (*instance_new)(struct fare_instance *fi);
	void (*instance_free)(struct fare_instance *fi);
	/* before a prefix's weights are computed (fp->paths, fp->n known):
	 * NULL, or which paths the weights are restricted to (EE-4: the
	 * remote group's sub-group; the core's fare_prefix_params.subgroup).
	 * The first feature that restricts decides.
	 */
	const bool *(*prefix_restrict)(struct fare_instance *fi, struct bgp_path_info *best,
				       struct fare_prefix *fp);
	/* a prefix's weights computed (EE-4 notes what the core did) */
	void (*prefix_evaluated)(struct fare_instance *fi, struct bgp_path_info *best,
				 struct fare_prefix *fp);
	/* a destination's paths were selected anew (bgp_route_selected:
	 * the path selected before still carries bgpd's flag)
	 */
	void (*dest_selected)(struct fare_instance *fi, const struct bgp_dest *dest);
	/* a destination's weights were sent to zebra (EE-1 follows both) */
	void (*dest_changed)(struct fare_instance *fi, const struct bgp_dest *dest);
	/* a session came up */
	void (*peer_up)(struct fare_instance *fi, struct peer *peer);
	/* a re-evaluation of the instance's routes is due (all of them, or
	 * those through the peers due a refresh): called when the pass
	 * starts (fare_instance_refresh()), and for a link's bandwidth as
	 * soon as zebra tells it, before bgpd's own handling of the event
	 * (fare_instance_refresh_ahead())
	 */
	void (*refresh_due)(struct fare_instance *fi, bool all);
	/* its lines of the instance's running-config */
	void (*config_write)(struct vty *vty, struct fare_instance *fi);
};

extern void fare_feature_register(const struct fare_feature *feature);
extern const bool *fare_features_prefix_restrict(struct fare_instance *fi,
						 struct bgp_path_info *best, struct fare_prefix *fp);
extern void fare_features_prefix_evaluated(struct fare_instance *fi, struct bgp_path_info *best,
					   struct fare_prefix *fp);
extern void fare_features_dest_selected(struct fare_instance *fi, const struct bgp_dest *dest);
extern void fare_features_dest_changed(struct fare_instance *fi, const struct bgp_dest *dest);
extern void fare_features_peer_up(struct fare_instance *fi, struct peer *peer);
extern void fare_features_config_write(struct vty *vty, struct fare_instance *fi);

/* ------------------------------------------------------------------ */
/* Instances (bgp_fare_instance.c)                                      */
/* ------------------------------------------------------------------ */

extern void fare_instance_module_init(void);
extern void fare_instance_module_fini(void);
extern struct fare_instance *fare_instance_find(const struct bgp *bgp);
extern struct fare_instance *fare_instance_get(struct bgp *bgp);
extern void fare_instance_delete(struct bgp *bgp);
extern size_t fare_instance_count(void);
/* every instance: frr_each (fare_instances, fare_instances_head(), fi) */
static inline int fare_instance_cmp(const struct fare_instance *a, const struct fare_instance *b)
{
	return numcmp((uintptr_t)a->bgp, (uintptr_t)b->bgp);
}

static inline uint32_t fare_instance_hash(const struct fare_instance *fi)
{
	return jhash(&fi->bgp, sizeof(fi->bgp), 0x46415245);
}

DECLARE_HASH(fare_instances, struct fare_instance, item, fare_instance_cmp, fare_instance_hash);
extern struct fare_instances_head *fare_instances_head(void);

extern void fare_multihoming_set(struct fare_instance *fi, const char *plist, uint32_t factor);
extern uint32_t fare_multihoming_factor(struct fare_instance *fi, const struct prefix *p);
extern bool fare_display_subtype(uint8_t subtype);
extern void fare_display_refresh(void);

/* Generation of everything the per-prefix results depend on besides a
 * prefix's own paths: configuration, link bandwidths, hold-downs,
 * sessions. Bumped by fare_state_changed(); results and resolved peer
 * records of an older generation are recomputed when next needed.
 */
extern void fare_state_changed(void);
extern uint64_t fare_generation_now(void);

/* Re-evaluation of an instance's routes (weights to zebra, values to
 * peers), deferred so that changes together cost one pass.
 */
extern void fare_instance_regroup(struct fare_instance *fi);
extern void fare_instance_refresh(struct fare_instance *fi, const char *why);
extern void fare_instance_refresh_later(struct fare_instance *fi, const char *why);
extern void fare_instance_refresh_ahead(struct fare_instance *fi);
extern void fare_instance_config_end(struct fare_instance *fi);
extern void fare_instance_announce_later(struct fare_instance *fi, const char *why);
extern void fare_instance_announce_settle(struct fare_instance *fi, const char *why);

/* WP-2: how long the re-announcement of N's change waits for more
 * sessions to change: this long after the last change, and no longer than
 * the second after the first
 */
#define FARE_SESSION_SETTLE_MS	   100
#define FARE_SESSION_SETTLE_MAX_MS 1000
extern void fare_peer_refresh_later(struct fare_instance *fi, struct peer *peer, const char *why);
extern void fare_name_refresh_later(struct fare_instance *fi, const char *name, const char *why);
/* one of the destination's best and multipaths comes from a peer due a
 * refresh
 */
extern bool fare_dest_due_refresh(struct fare_instance *fi, struct bgp_dest *dest);
extern void fare_dest_reprocess(struct bgp *bgp, struct bgp_dest *dest, struct bgp_path_info *best);

/* Routes: the selected path of a destination; whether a path was
 * originated here; every destination with a selected path of an
 * instance's IPv4 and IPv6 unicast tables (afi AFI_UNSPEC), or of one.
 */
extern struct bgp_path_info *fare_dest_selected(struct bgp_dest *dest);
extern size_t fare_dest_mpaths(struct bgp_dest *dest, struct bgp_path_info *best,
			       struct bgp_path_info **paths, size_t max);
extern bool fare_route_is_local(struct bgp *bgp, struct bgp_path_info *pi);
extern bool fare_afi_safi(afi_t afi, safi_t safi);
typedef void (*fare_dest_fn)(struct bgp_dest *dest, struct bgp_path_info *best, void *arg);
extern void fare_unicast_walk(struct bgp *bgp, afi_t afi, fare_dest_fn fn, void *arg);
extern void fare_unicast_walk_show(struct bgp *bgp, afi_t afi, fare_dest_fn fn, void *arg);

/* What the module keeps of a destination, on the destination itself
 * (bgp_dest's module_info, patch 0029): found without a lookup when a
 * hook hands the module the destination. Each record holds a lock on the
 * destination while it is kept here; fare_dest_records_put() frees the
 * holder once it keeps none.
 */
struct fare_nhg_route;
struct fare_ecmp_dest;
struct fare_dest_records {
	struct fare_nhg_route *nhg_route; /* bgp_fare_nhg.c */
	struct fare_ecmp_dest *ecmp_dest; /* bgp_fare_ecmp_count.c */
};

extern struct fare_dest_records *fare_dest_records(const struct bgp_dest *dest);
extern struct fare_dest_records *fare_dest_records_get(struct bgp_dest *dest);
extern void fare_dest_records_put(struct bgp_dest *dest);

/* ------------------------------------------------------------------ */
/* Neighbors (bgp_fare_peer.c)                                          */
/* ------------------------------------------------------------------ */

extern void fare_peer_records_init(struct fare_instance *fi);
extern void fare_peer_records_fini(struct fare_instance *fi);
extern const char *fare_peer_cfg_name(struct peer *peer);
extern struct fare_peer *fare_peer_find(struct fare_instance *fi, const char *name);
extern struct fare_peer *fare_peer_get(struct fare_instance *fi, const char *name);
extern void fare_peer_forget(struct fare_instance *fi, struct fare_peer *fp);
/* settings: SET_FLAG/UNSET_FLAG of fp->set, then this */
extern void fare_peer_settings_changed(struct fare_instance *fi, struct fare_peer *fp);
/* the record of a neighbor, its settings resolved; a connection accepted
 * for a neighbor is kept in none: a resolved copy, valid until the next
 * call
 */
extern struct fare_peer *fare_peer_of(struct fare_instance *fi, struct peer *peer);
extern bool fare_peer_flag(struct fare_instance *fi, struct peer *peer, uint32_t flag);
extern bool fare_peer_on_link(const struct peer *peer);
extern double fare_peer_link_bw(struct fare_instance *fi, struct peer *peer, const char **source,
				bool *held);
extern bool fare_peer_recovering(struct fare_instance *fi, struct peer *peer);
extern const char *fare_peer_ifname(struct peer *peer);
extern struct interface *fare_peer_interface(struct peer *peer);
extern void fare_peer_detach(struct fare_instance *fi, struct fare_peer *fp);
extern bool fare_peer_due_refresh(struct fare_instance *fi, struct peer *peer);
extern bool fare_peers_due_refresh(struct fare_instance *fi);
extern void fare_peers_refresh_begin(struct fare_instance *fi);
extern bool fare_peer_in_refresh(struct fare_instance *fi, struct peer *peer);
extern void fare_peers_refresh_end(struct fare_instance *fi);
/* the neighbors with settings, in configuration order */
DECLARE_DLIST(fare_peer_cfgs, struct fare_peer, cfg_item);

#endif /* _BGP_FARE_H */
