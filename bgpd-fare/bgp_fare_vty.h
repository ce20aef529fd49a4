// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the module's commands: bgp_fare_vty.c (configuration),
 * bgp_fare_vty_show.c (shows), bgp_fare_ecmp_vty.c (Enhanced ECMP's).
 */
#ifndef _BGP_FARE_VTY_H
#define _BGP_FARE_VTY_H

#include "bgpd/fare/bgp_fare.h"

#define FARE_STR "Fully Adaptive Routing Ethernet (Path Bandwidth WCMP)\n"

static inline const char *fare_role_str(enum fare_role role)
{
	switch (role) {
	case FARE_ROLE_SUPER_SPINE:
		return "super-spine";
	case FARE_ROLE_HOST:
		return "host";
	case FARE_ROLE_NODE:
		break;
	}
	return "node";
}

/* bgp_fare_vty.c */
extern void fare_vty_init(void);

/* bgp_fare_vty_show.c */
extern void fare_vty_show_init(void);
extern struct bgp *fare_vty_bgp(struct vty *vty, const char *vrf_name, bool uj);
extern int fare_vty_show_feature(struct vty *vty, const char *vrf_name, bool uj,
				 void (*show)(struct vty *vty, struct fare_instance *fi,
					      json_object *json));

#endif /* _BGP_FARE_VTY_H */
