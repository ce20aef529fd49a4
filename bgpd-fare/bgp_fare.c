// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Fully Adaptive Routing Ethernet for bgpd (draft-xu-idr-fare).
 *
 * BGP carries the bottleneck bandwidth of each path in the Path Bandwidth
 * extended community; this module turns it into weighted ECMP (WCMP) and
 * re-advertises it. The rules live in core/ (no FRR headers); the glue
 * is layered (bgp_fare.h says how). This file is the module's setup
 * only: it registers the features with the evaluation and the module's
 * handlers with bgpd's hooks.
 */
#include <zebra.h>

#include "if.h"
#include "libfrr.h"
#include "log.h"
#include "plist.h"
#include "lib/version.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_zebra.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_announce.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_eval.h"
#include "bgpd/fare/bgp_fare_events.h"
#include "bgpd/fare/bgp_fare_host.h"
#include "bgpd/fare/bgp_fare_ingress.h"
#include "bgpd/fare/bgp_fare_nhg.h"
#include "bgpd/fare/bgp_fare_traffic.h"
#include "bgpd/fare/bgp_fare_vty.h"

static int fare_late_init(struct event_loop *tm)
{
	fare_vty_init();
	fare_ecmp_vty_init();
	fare_vty_show_init();
	return 0;
}

static int fare_fini(void)
{
	fare_instance_module_fini();
	fare_nhg_fini();
	fare_events_fini();
	fare_eval_fini();
	fare_announce_fini();
	return 0;
}

static int bgp_fare_module_init(void)
{
	fare_instance_module_init();
	fare_events_init();
	/* in this order: the instance's state made, its config written */
	fare_feature_register(&fare_ecmp_feature);
	fare_feature_register(&fare_ingress_feature);
	fare_feature_register(&fare_host_feature);
	fare_feature_register(&fare_nhg_feature);
	fare_feature_register(&fare_traffic_feature);
	fare_nhg_init();

	hook_register(bgp_ecommunity_unknown_str, fare_ecommunity_str);
	hook_register(bgp_zebra_nexthop_weights, fare_zebra_nexthop_weights);
	hook_register(bgp_zebra_capabilities, fare_zebra_capabilities);
	hook_register(bgp_route_announce_attr, fare_announce_attr);
	hook_register(bgp_route_announce_withhold, fare_host_announce_withhold);
	hook_register(bgp_updgrp_peer_class, fare_updgrp_peer_class);
	hook_register(peer_status_changed, fare_peer_status_changed);
	hook_register(bgp_inst_delete, fare_bgp_delete);
	hook_register(if_real, fare_if_update);
	/* before bgpd's own (priority 0): its next-hop tracking then sets
	 * the paths over the interface apart from their sorted place, which
	 * keeps shared nexthop groups from being replaced at once
	 * (fare_nhg_refresh_due())
	 */
	hook_register_prio(if_up, -10, fare_if_update);
	hook_register(if_down, fare_if_update);
	hook_register(if_unreal, fare_if_gone);
	hook_register(if_del, fare_if_gone);
	hook_register(bgp_peer_delete, fare_peer_delete);
	hook_register(bgp_peer_group_delete, fare_peer_group_delete);
	hook_register(bgp_prefix_list_update, fare_prefix_list_update);
	hook_register(bgp_route_selected, fare_route_selected);
	hook_register(bgp_config_end, fare_config_end);
	hook_register(frr_late_init, fare_late_init);
	hook_register(frr_early_fini, fare_fini);

	zlog_info("FARE %s loaded (Path Bandwidth sub-type default 0x%02x)", FARE_VERSION,
		  FARE_PATHBW_SUBTYPE_DEFAULT);
	return 0;
}

FRR_MODULE_SETUP(.name = "bgpd_fare", .version = FARE_VERSION,
		 .description = "bgpd FARE: Path Bandwidth weighted ECMP",
		 .init = bgp_fare_module_init, );
