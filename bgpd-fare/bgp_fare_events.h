// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the handlers of FRR's events (bgp_fare_events.c), registered
 * by the module setup (bgp_fare.c).
 */
#ifndef _BGP_FARE_EVENTS_H
#define _BGP_FARE_EVENTS_H

struct interface;
struct prefix_list;
struct updgrp_module_class;
struct zclient_capabilities;

extern void fare_events_init(void);
extern void fare_events_fini(void);

extern int fare_ecommunity_str(const uint8_t *val, size_t unit_size, char *buf, size_t bufsz);
extern int fare_route_selected(struct bgp *bgp, afi_t afi, safi_t safi, struct bgp_dest *dest);
extern int fare_if_update(struct interface *ifp);
extern int fare_if_gone(struct interface *ifp);
extern int fare_updgrp_peer_class(const struct peer *peer, afi_t afi, safi_t safi,
				  struct updgrp_module_class *cls);
extern int fare_peer_status_changed(struct peer *peer);
extern int fare_peer_delete(struct peer *peer);
extern int fare_peer_group_delete(struct peer_group *group);
extern int fare_prefix_list_update(struct prefix_list *plist);
extern int fare_config_end(struct bgp *bgp);
extern int fare_bgp_delete(struct bgp *bgp);
extern int fare_zebra_capabilities(const struct zclient_capabilities *cap);

#endif /* _BGP_FARE_EVENTS_H */
