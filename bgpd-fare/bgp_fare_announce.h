// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the FARE communities of an outgoing attribute
 * (bgp_fare_announce.c).
 */
#ifndef _BGP_FARE_ANNOUNCE_H
#define _BGP_FARE_ANNOUNCE_H

struct update_subgroup;

/* the bgp_route_announce_attr hook */
extern int fare_announce_attr(struct bgp_dest *dest, struct bgp_path_info *pi,
			      struct update_subgroup *subgrp, struct peer *conf, afi_t afi,
			      safi_t safi, struct attr *attr, bool nh_self);
/* at bgpd's exit: the outgoing communities kept */
extern void fare_announce_fini(void);

#endif /* _BGP_FARE_ANNOUNCE_H */
