// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: shared nexthop groups (bgp_fare_nhg.c): FARE-weighted routes
 * with the same weighted next hops point to one nexthop group in zebra,
 * replaced in place when its weights change.
 */
#ifndef _BGP_FARE_NHG_H
#define _BGP_FARE_NHG_H

#include "bgpd/fare/bgp_fare.h"

struct zapi_route;
struct fare_nhg_key;

/* The hooks of patch 0021 exist (bgp_zebra_route_nhg) */
#ifdef BGP_ZEBRA_ROUTE_NHG
#define FARE_HAVE_NHG 1
#endif

extern const struct fare_feature fare_nhg_feature;
extern void fare_nhg_init(void);
extern void fare_nhg_fini(void);
/* "bgp fare nexthop-groups" set or removed: routes move on or off */
extern void fare_nhg_instance_changed(struct fare_instance *fi);
/* bgpd selected a destination's paths anew */
extern void fare_nhg_dest_selected(struct bgp_dest *dest);
/* zebra (re)connected: groups are sent again before their routes */
extern void fare_nhg_zebra_connected(void);
/* the group id zebra has a route on (0: its own next hops) */
extern uint32_t fare_nhg_dest_group(const struct bgp_dest *dest);
/* show bgp fare nexthop-groups */
extern void fare_nhg_show(struct vty *vty, struct fare_instance *fi, json_object *json);
extern bool fare_nhg_supported(void);
/* The module's groups of a VRF sent to zebra: id, prefixes, times sent
 * (each replaces the kernel's group), weighted next hops
 */
typedef void (*fare_nhg_group_fn)(uint32_t id, uint32_t prefixes, uint64_t installs,
				  const struct fare_nhg_key *key, void *arg);
extern void fare_nhg_walk(vrf_id_t vrf_id, fare_nhg_group_fn fn, void *arg);

#endif /* _BGP_FARE_NHG_H */
