// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the host role of a multi-plane scale-up network (SUN-1,
 * SUN-2, SUN-6), bgp_fare_host.c: registered as fare_host_feature (it
 * keeps each session's plane), its bgp_route_announce_withhold handler,
 * and "show bgp fare planes".
 */
#ifndef _BGP_FARE_HOST_H
#define _BGP_FARE_HOST_H

#include "json.h"

#include "bgpd/fare/bgp_fare.h"

struct update_subgroup;

extern const struct fare_feature fare_host_feature;

extern int fare_host_announce_withhold(struct bgp_dest *dest, struct bgp_path_info *pi,
				       struct update_subgroup *subgrp, struct peer *peer, afi_t afi,
				       safi_t safi);
extern void fare_host_show(struct vty *vty, struct bgp *bgp, struct fare_instance *fi,
			   json_object *json);

#endif /* _BGP_FARE_HOST_H */
