// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the traffic each member of a nexthop group really carried,
 * from the kernel's per-member packet counters (Linux 6.9 and later),
 * against the weights installed (bgp_fare_traffic.c).
 */
#ifndef _BGP_FARE_TRAFFIC_H
#define _BGP_FARE_TRAFFIC_H

#include "bgpd/fare/bgp_fare.h"

/* Defaults of the deviation that counts (percentage points of a member's
 * share) and of the packets a group must have carried for it to count
 */
#define FARE_TRAFFIC_THRESHOLD_DEFAULT	 10
#define FARE_TRAFFIC_MIN_PACKETS_DEFAULT 1000
#define FARE_TRAFFIC_INTERVAL_DEFAULT	 60 /* seconds between the alarm's reads */

extern const struct fare_feature fare_traffic_feature;
/* show bgp [vrf NAME] fare traffic [json] */
extern void fare_traffic_show(struct vty *vty, struct fare_instance *fi, json_object *json);
/* show bgp [vrf NAME] <ipv4|ipv6> fare PREFIX traffic [json]: the
 * kernel's group of the prefix's route, as the show of all has it
 */
extern void fare_traffic_show_prefix(struct vty *vty, struct fare_instance *fi,
				     const struct prefix *p, json_object *json);
/* clear bgp [vrf NAME] fare traffic: the counters as they are now are the
 * baseline of the shows; false (and *err) when the kernel could not be read
 */
extern bool fare_traffic_clear(struct fare_instance *fi, const char **err);

/* bgp fare traffic-alarm [threshold T] [min-packets N] [interval S]: on,
 * or off (the defaults back)
 */
extern void fare_traffic_alarm_set(struct fare_instance *fi, bool on, uint32_t threshold,
				   uint64_t min_packets, uint32_t interval);

#endif /* _BGP_FARE_TRAFFIC_H */
