// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Fully Adaptive Routing Ethernet for bgpd.
 *
 * The FRR glue between bgpd and the pure core in core/: reads Path
 * Bandwidth communities from paths, finds each session's link bandwidth,
 * and applies the core's results to zebra (weights) and to peers
 * (re-advertised communities). SPEC: FARE-1 .. FARE-11.
 */
#ifndef _BGP_FARE_H
#define _BGP_FARE_H

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

struct fare_peer_cfg {
	char *name; /* address, interface or peer-group name */
	uint32_t set;
	double link_bw; /* bytes/s, FARE-3 override */
};

/* WP-7: the link bandwidth a neighbor's paths are weighted with, while an
 * increase (a LAG member back, a session re-established) waits out the
 * hold-down; decreases apply at once.
 */
struct fare_link_state {
	struct fare_instance *fi;
	char *name;	 /* as fare_peer_cfg_name() */
	double held_bw;	 /* bytes/s used until the hold-down ends */
	bool recovering; /* session re-established: counts 0 */
	/* a dynamic (listen range) neighbor of this address was established
	 * and went: bgpd deleted it, its return is a re-establishment
	 */
	bool dynamic_was_up;
	struct event *t_hold;
};

/* What the module knows of one peer, resolved from the name-keyed
 * configuration and hold-down state once per generation of that state
 * (fare_generation): the per-path rules read it through the peer's
 * address instead of searching the lists by name.
 */
PREDECL_HASH(fare_peer_views);
struct fare_peer_view {
	struct fare_peer_views_item item;
	const struct peer *peer;
	uint64_t generation;
	const struct peer_group *group; /* resolved with this peer-group */
	uint32_t flags;			/* FARE_PEER_*, own or peer-group's */
	double link_bw;			/* FARE_PEER_LINK_BW: bytes/s */
	struct fare_link_state *link;	/* hold-down state, if any */
	bool refresh;			/* its prefixes are due a refresh */
	/* The neighbor router it last reached (SUN-1: on a host, the plane's
	 * switch), kept while the session is down: bgpd forgets it.
	 */
	struct in_addr plane_id;
	char plane_name[64]; /* its hostname, if it sent one */
	/* FARE-3: the interface its session runs over (fare_peer_interface()),
	 * IFINDEX_INTERNAL: none
	 */
	ifindex_t ifindex;
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

/* Enhanced ECMP of one BGP instance (EE-2, EE-3, EE-4), bgp_fare_ecmp.c */
struct fare_ecmp_state {
	uint8_t subtype;	   /* EE-3 GroupID sub-type */
	struct list *egress;	   /* struct fare_ecmp_egress, by group */
	uint32_t subgroup_size;	   /* EE-2 by size, 0: off */
	struct list *members;	   /* struct fare_ecmp_member: explicit */
	struct list *pins;	   /* struct fare_ecmp_pin: operator's map */
	struct fare_ecmp_map *map; /* EE-4 remote group -> sub-group */
	uint64_t layout_generation;
	char **uplinks; /* sorted interface names */
	uint32_t *uplink_subgroup;
	size_t n_uplinks;
	struct fare_ecmp_peer_sg *peer_sg; /* by peer address */
	size_t n_peer_sg;
	uint32_t n_subgroups;
	struct event *t_sweep;
};

/* Enhanced ECMP ingress-interface grouping (EE-1), bgp_fare_ingress.c:
 * kernel table of interface k of group g (policy rule "iif IF lookup").
 */
#define FARE_INGRESS_TABLE_BASE 1000000

/* EE-1: the routes the kernel's main table holds for one prefix, as the
 * module's rtnetlink view of it (bgp_fare_ingress_rtnl.c) knows them.
 */
struct fare_ingress_main_route {
	uint32_t metric;
	uint32_t oif;
	uint8_t tos;
	uint8_t protocol;
};

PREDECL_HASH(fare_ingress_prefixes);
PREDECL_DLIST(fare_ingress_pending);
struct fare_ingress_prefix {
	struct fare_ingress_prefixes_item item;
	struct fare_ingress_pending_item pending_item;
	struct prefix p;
	bool pending;	      /* in the pending list, to be synced */
	bool installed;	      /* BGP copy in the ingress tables */
	bool throw_installed; /* throw route in the ingress tables */
	uint8_t n_main;	      /* routes of the main table for p */
	struct fare_ingress_main_route *main;
};

struct fare_ingress_state {
	struct list *ifs; /* struct fare_ingress_if, (group, name) order */
	struct fare_ingress_prefixes_head prefixes;
	struct fare_ingress_pending_head pending;
	bool rules_installed;
	struct event *t_sync;
	/* the main table's view (rtnetlink) and the throw routes */
	int rtnl_events; /* subscribed to the route groups, -1 when closed */
	int rtnl_cmd;	 /* throw routes go out here, errors come back */
	struct event *t_rtnl_events;
	struct event *t_rtnl_cmd;
	struct event *t_rtnl_resync;
	uint32_t throws;       /* prefixes with a throw in every ingress table */
	uint32_t main_routes;  /* routes of the main table in the view */
	uint32_t rtnl_errors;  /* throw routes the kernel refused */
	uint32_t rtnl_resyncs; /* full dumps (events overrun, link down) */
};

/* FARE configuration of one BGP instance. */
struct fare_instance {
	struct bgp *bgp;
	bool enabled;
	enum fare_mode mode;	  /* draft (default) or averaged */
	bool per_session;	  /* draft mode: parallel links counted per
				   * session, not per neighbor router */
	uint32_t hold_down;	  /* seconds before an increase applies (WP-7) */
	bool originate;		  /* FARE-2 */
	double originate_bw;	  /* bytes/s */
	enum fare_role role;	  /* FARE-8 */
	bool lower_transitive;	  /* FARE-9 option */
	uint8_t subtype;	  /* FARE-1 */
	uint32_t max_members;	  /* WP-3 group size limit */
	uint32_t max_weight;	  /* WP-3 largest weight of a member */
	struct list *peers;	  /* struct fare_peer_cfg */
	struct list *link_states; /* struct fare_link_state */
	struct list *multihoming; /* struct fare_multihoming */
	struct fare_peer_views_head peer_views;
	struct fare_ecmp_state ecmp;
	struct fare_ingress_state ingress;
	struct event *t_refresh; /* fare_instance_refresh_later() */
	const char *refresh_why;
	bool refresh_all; /* else only prefixes via peers marked in
				   * peer_views (fare_peer_refresh_later) */
};

/* Counters of what was received and done, shown by "show bgp fare". */
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
	uint64_t frr_weighted_routes;		 /* routes FARE did not weigh that
						  * FRR's own weighted ECMP did */
	uint64_t transit_withheld;		 /* host role: announcements of routes
						  * not originated here (SUN-1) */
};

extern struct fare_counters fare_counters;

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

/* Enhanced ECMP (EE-4) for one prefix: its remote group, local sub-group
 * and the paths of it.
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
	uint32_t weights[MULTIPATH_NUM]; /* as installed (EE-4 applied) */
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


extern struct fare_instance *fare_instance_find(const struct bgp *bgp);
extern struct fare_instance *fare_instance_get(struct bgp *bgp);
extern struct fare_peer_cfg *fare_peer_cfg_find(struct fare_instance *fi, const char *name);
extern struct fare_peer_cfg *fare_peer_cfg_get(struct fare_instance *fi, const char *name);
extern void fare_peer_cfg_release(struct fare_instance *fi, struct fare_peer_cfg *pc);
extern void fare_multihoming_set(struct fare_instance *fi, const char *plist, uint32_t factor);
extern const char *fare_peer_cfg_name(struct peer *peer);
extern bool fare_peer_flag(struct fare_instance *fi, struct peer *peer, uint32_t flag);
extern double fare_peer_link_bw(struct fare_instance *fi, struct peer *peer, const char **source,
				bool *held);
extern unsigned int fare_eligible_outgoing(struct fare_instance *fi, struct bgp_dest *dest,
					   const struct fare_prefix *fp, afi_t afi);
extern void fare_instance_regroup(struct fare_instance *fi);
extern bool fare_display_subtype(uint8_t subtype);
extern void fare_display_refresh(void);
extern void fare_instance_refresh_later(struct fare_instance *fi, const char *why);
extern void fare_peer_refresh_later(struct fare_instance *fi, struct peer *peer, const char *why);
extern void fare_state_changed(void);

extern enum fare_weight_source fare_weight_source(struct fare_instance *fi, struct bgp_dest *dest,
						  struct bgp_path_info *best,
						  const struct fare_prefix *fp);
extern const char *fare_weight_source_str(enum fare_weight_source src);

extern void fare_prefix_compute_dest(struct fare_instance *fi, struct bgp_dest *dest,
				     struct bgp_path_info *best, struct fare_prefix *fp);
extern struct bgp_path_info *fare_dest_selected(struct bgp_dest *dest);
extern bool fare_route_is_local(struct bgp *bgp, struct bgp_path_info *pi);
extern void fare_instance_refresh(struct fare_instance *fi, const char *why);

extern void fare_vty_init(void);

/* Host role, SUN-1 (bgp_fare_host.c) */
struct update_subgroup;
extern struct fare_peer_view *fare_peer_view(struct fare_instance *fi, struct peer *peer);
extern int fare_host_announce_withhold(struct bgp_dest *dest, struct bgp_path_info *pi,
				       struct update_subgroup *subgrp, struct peer *peer, afi_t afi,
				       safi_t safi);
extern void fare_host_peer_up(struct fare_instance *fi, struct peer *peer);
extern void fare_host_show(struct vty *vty, struct bgp *bgp, struct fare_instance *fi,
			   json_object *json);
extern uint64_t fare_generation_now(void);

extern void fare_ecmp_init(struct fare_instance *fi);
extern void fare_ecmp_fini(struct fare_instance *fi);
extern void fare_ecmp_egress_set(struct fare_instance *fi, uint16_t group, const char *plist,
				 bool set);
extern void fare_ecmp_member_set(struct fare_instance *fi, const char *ifname, uint32_t subgroup);
extern void fare_ecmp_pin_set(struct fare_instance *fi, struct fare_ecmp_key key, uint32_t subgroup);
extern bool fare_ecmp_ingress_enabled(const struct fare_instance *fi);
extern void fare_ecmp_subgroups_changed(struct fare_instance *fi);
extern bool fare_ecmp_egress_uses_plist(const struct fare_instance *fi, const char *name);
extern uint16_t fare_ecmp_egress_group(struct fare_instance *fi, const struct prefix *p);
extern bool fare_ecmp_route_groupid(const struct fare_instance *fi, const struct attr *attr,
				    struct fare_groupid *gid);
extern const bool *fare_ecmp_restrict(struct fare_instance *fi, struct bgp_path_info *best,
				      struct fare_prefix *fp);
extern void fare_ecmp_apply(struct fare_prefix *fp);
extern const char *fare_peer_ifname(struct peer *peer);
extern struct interface *fare_peer_interface(struct peer *peer);
extern void fare_ecmp_show(struct vty *vty, struct fare_instance *fi, json_object *json);
extern void fare_ecmp_config_write(struct vty *vty, struct fare_instance *fi);
extern void fare_installed_weights(struct fare_instance *fi, struct bgp_dest *dest,
				   struct bgp_path_info *best, uint32_t *weights, size_t n);

/* EE-1 (bgp_fare_ingress.c) */
extern void fare_ingress_init(struct fare_instance *fi);
extern void fare_ingress_fini(struct fare_instance *fi);
extern bool fare_ingress_enabled(const struct fare_instance *fi);
extern uint32_t fare_ingress_table(uint32_t group, uint32_t index);
extern void fare_ingress_note(struct fare_instance *fi, const struct bgp_dest *dest);
extern void fare_ingress_flush(struct fare_instance *fi);
extern void fare_ingress_resync(struct fare_instance *fi);
extern void fare_ingress_if_set(struct fare_instance *fi, const char *ifname, uint32_t group);
extern void fare_ingress_config_write(struct vty *vty, struct fare_instance *fi);
extern void fare_ingress_show(struct vty *vty, struct fare_instance *fi, json_object *json);
extern void fare_ingress_mark(struct fare_instance *fi, struct fare_ingress_prefix *e);
extern void fare_ingress_main_forget(struct fare_instance *fi, bool mark);
extern struct fare_ingress_prefix *fare_ingress_prefix_get(struct fare_instance *fi,
							   const struct prefix *p);

/* EE-1: the main table's view and the throw routes (bgp_fare_ingress_rtnl.c) */
#define FARE_INGRESS_RTPROT 238 /* rtm_protocol of the module's throw routes */
extern bool fare_rtnl_open(struct fare_instance *fi);
extern void fare_rtnl_close(struct fare_instance *fi);
extern void fare_rtnl_throw(struct fare_instance *fi, bool add, const struct prefix *p,
			    const uint32_t *tables, size_t n_tables);
extern void fare_rtnl_flush(struct fare_instance *fi);
extern bool fare_rtnl_main_is_bgp(const struct fare_ingress_prefix *e);
extern void fare_rtnl_main_clear(struct fare_instance *fi, struct fare_ingress_prefix *e);

#endif /* _BGP_FARE_H */
