// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP egress grouping (EE-2, EE-3, EE-4), the
 * feature of bgp_fare_ecmp.c (state, configuration, EE-4's restriction
 * of a prefix's weights, registered as fare_ecmp_feature),
 * bgp_fare_ecmp_count.c (the routes per remote group) and
 * bgp_fare_ecmp_vty.c (its commands and show).
 */
#ifndef _BGP_FARE_ECMP_H
#define _BGP_FARE_ECMP_H

#include "bgpd/fare/bgp_fare.h"

struct fare_ecmp_peer_sg;

/* EE-4: the remote group each destination's route is counted under, and
 * the routes per remote group, kept as routes change (bgp_fare_ecmp.c)
 */
PREDECL_DLIST(fare_ecmp_dests);
PREDECL_HASH(fare_ecmp_counts);
PREDECL_HASH(fare_ecmp_egress_cache);

/* how long a change of the sub-group layout settles (EE-2) */
#define FARE_ECMP_LAYOUT_SETTLE_MS 200

/* Enhanced ECMP of one BGP instance (EE-2, EE-3, EE-4) */
struct fare_ecmp_state {
	uint8_t subtype;     /* EE-3 GroupID sub-type */
	struct list *egress; /* struct fare_ecmp_egress, by group */
	/* EE-3: each originated prefix's group, found once per change of
	 * the lines or of any prefix-list (fare_ecmp_egress_group())
	 */
	struct fare_ecmp_egress_cache_head egress_cache;
	uint32_t egress_cache_plists; /* prefix-lists' generation it is of */
	uint32_t subgroup_size;	      /* EE-2 by size, 0: off */
	struct list *members;	      /* struct fare_ecmp_member: explicit */
	struct list *pins;	      /* struct fare_ecmp_pin: operator's map */
	struct fare_ecmp_map *map;    /* EE-4 remote group -> sub-group */
	uint64_t layout_generation;
	bool layout_deferred;	/* a change settling, or a config read */
	struct event *t_layout; /* the change settled */
	char **uplinks;		/* sorted interface names */
	uint32_t *uplink_subgroup;
	size_t n_uplinks;
	struct fare_ecmp_peer_sg *peer_sg; /* by peer address */
	size_t n_peer_sg;
	uint32_t n_subgroups;
	/* EE-4: routes per remote group, kept while the map is */
	bool counted;
	struct fare_ecmp_dests_head dests;
	struct fare_ecmp_counts_head counts;
	/* remote groups whose last route went, looked at once the events
	 * at hand are handled (a route that moves between groups, or comes
	 * back, keeps its group in the map)
	 */
	struct fare_ecmp_key *gone;
	size_t n_gone, cap_gone;
	struct event *t_gone;
};

extern const struct fare_feature fare_ecmp_feature;

extern uint8_t fare_ecmp_groupid_subtype(const struct fare_instance *fi);
extern bool fare_ecmp_display_groupid_subtype(uint8_t subtype);
extern void fare_ecmp_subtype_set(struct fare_instance *fi, uint8_t subtype);
extern void fare_ecmp_subgroup_size_set(struct fare_instance *fi, uint32_t size);
extern void fare_ecmp_egress_set(struct fare_instance *fi, uint16_t group, const char *plist,
				 bool set);
extern void fare_ecmp_member_set(struct fare_instance *fi, const char *ifname, uint32_t subgroup);
extern void fare_ecmp_pin_set(struct fare_instance *fi, struct fare_ecmp_key key, uint32_t subgroup);
extern bool fare_ecmp_ingress_enabled(const struct fare_instance *fi);
extern void fare_ecmp_config_end(struct fare_instance *fi);
extern void fare_ecmp_subgroups_changed(struct fare_instance *fi);
extern bool fare_ecmp_egress_uses_plist(const struct fare_instance *fi, const char *name);
extern uint16_t fare_ecmp_egress_group(struct fare_instance *fi, const struct prefix *p);
extern void fare_ecmp_plists_changed(void);
extern bool fare_ecmp_route_groupid(const struct fare_instance *fi, const struct attr *attr,
				    struct fare_groupid *gid);
extern void fare_ecmp_layout_update(struct fare_instance *fi);
extern void fare_ecmp_config_write(struct vty *vty, struct fare_instance *fi);

static inline int fare_ecmp_key_cmp(struct fare_ecmp_key a, struct fare_ecmp_key b)
{
	if (a.router_id != b.router_id)
		return a.router_id < b.router_id ? -1 : 1;
	return a.group_id < b.group_id ? -1 : a.group_id > b.group_id;
}

/* bgp_fare_ecmp_count.c: routes per remote group (EE-4) */
extern void fare_ecmp_count_state_init(struct fare_instance *fi);
extern void fare_ecmp_count_state_fini(struct fare_instance *fi);
extern void fare_ecmp_counts_build(struct fare_instance *fi);
extern void fare_ecmp_counts_clear(struct fare_instance *fi);
extern void fare_ecmp_dest_selected(struct fare_instance *fi, const struct bgp_dest *dest);
extern void fare_ecmp_dest_changed(struct fare_instance *fi, const struct bgp_dest *dest);
extern void fare_ecmp_gone_check(struct fare_instance *fi, struct fare_ecmp_key key);
extern uint32_t fare_ecmp_count_prefixes(struct fare_instance *fi, struct fare_ecmp_key key);

/* bgp_fare_ecmp_vty.c */
extern void fare_ecmp_show(struct vty *vty, struct fare_instance *fi, json_object *json);
extern void fare_ecmp_vty_init(void);

#endif /* _BGP_FARE_ECMP_H */
