// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_hookpeer: a second bgpd module on the hooks bgpd_fare uses, built
 * and loaded by the topotest fare_hooks to check that two modules on the
 * same hooks combine as bgpd says they do (doc/user/fare-patches.rst,
 * "Several modules on the same hooks"). Each handler follows that
 * contract:
 *
 * - bgp_ecommunity_unknown_str: names the Path Bandwidth community
 *   (type 0x00 or 0x40, sub-type 0x30) "HOOKPEER" while the text is
 *   still empty;
 * - bgp_zebra_nexthop_weights: while no weight is set, gives every
 *   multipath entry weight 1 (plain ECMP);
 * - bgp_route_announce_attr: sets the MED of the outgoing attribute to 1
 *   when it carries a Path Bandwidth community (as the modules before it
 *   left it), else to 2;
 * - bgp_route_announce_withhold: withholds 10.99.0.0/24 from every peer;
 * - bgp_updgrp_peer_class: adds the value "hookpeer" 7 for every peer.
 *
 * Load it with -M /path/bgpd_hookpeer.so:first to run before bgpd_fare
 * (hook priority 900) or :last to run after it (1100); bgpd_fare uses
 * the default priority, 1000. It needs no other module.
 */

#include <zebra.h>

#include "hook.h"
#include "log.h"
#include "module.h"
#include "prefix.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"
#include "bgpd/bgp_zebra.h"

#define HOOKPEER_PRIO_FIRST 900
#define HOOKPEER_PRIO_LAST  1100

/* Path Bandwidth: Two-Octet AS-Specific, transitive or not, sub-type 0x30 */
#define HOOKPEER_PB_TYPE_T  0x00
#define HOOKPEER_PB_TYPE_NT 0x40
#define HOOKPEER_PB_SUBTYPE 0x30

#define HOOKPEER_MED_PB	   1
#define HOOKPEER_MED_NO_PB 2

#define HOOKPEER_WITHHELD    "10.99.0.0/24"
#define HOOKPEER_CLASS_NAME  "hookpeer"
#define HOOKPEER_CLASS_VALUE 7

static struct prefix hookpeer_withheld;

static bool hookpeer_is_pb(const uint8_t *val)
{
	return (val[0] == HOOKPEER_PB_TYPE_T || val[0] == HOOKPEER_PB_TYPE_NT) &&
	       val[1] == HOOKPEER_PB_SUBTYPE;
}

static int hookpeer_ecommunity_str(const uint8_t *val, size_t unit_size, char *buf, size_t bufsz)
{
	/* an earlier module named it */
	if (!bufsz || buf[0])
		return 0;
	if (unit_size != ECOMMUNITY_SIZE || !hookpeer_is_pb(val))
		return 0;
	strlcpy(buf, "HOOKPEER", bufsz);
	return 1;
}

static int hookpeer_nexthop_weights(struct bgp *bgp, struct bgp_dest *dest,
				    struct bgp_path_info *best, uint64_t *weights, unsigned int max)
{
	struct bgp_path_info *pi;
	unsigned int i;

	/* an earlier module weighted the route */
	for (i = 0; i < max; i++)
		if (weights[i])
			return 0;

	for (pi = best, i = 0; pi && i < max; pi = bgp_path_info_mpath_next(pi), i++)
		weights[i] = 1;
	return i ? 1 : 0;
}

static int hookpeer_announce_attr(struct bgp_dest *dest, struct bgp_path_info *pi,
				  struct update_subgroup *subgrp, struct peer *peer, afi_t afi,
				  safi_t safi, struct attr *attr, bool nh_self)
{
	struct ecommunity *ecom = bgp_attr_get_ecommunity(attr);
	bool pb = false;
	uint32_t i;

	for (i = 0; ecom && ecom->unit_size == ECOMMUNITY_SIZE && i < ecom->size; i++)
		if (hookpeer_is_pb(ecom->val + i * ECOMMUNITY_SIZE))
			pb = true;
	attr->med = pb ? HOOKPEER_MED_PB : HOOKPEER_MED_NO_PB;
	SET_FLAG(attr->flag, ATTR_FLAG_BIT(BGP_ATTR_MULTI_EXIT_DISC));
	return 0;
}

static int hookpeer_announce_withhold(struct bgp_dest *dest, struct bgp_path_info *pi,
				      struct update_subgroup *subgrp, struct peer *peer, afi_t afi,
				      safi_t safi)
{
	return prefix_same(bgp_dest_get_prefix(dest), &hookpeer_withheld) ? 1 : 0;
}

static int hookpeer_updgrp_peer_class(const struct peer *peer, afi_t afi, safi_t safi,
				      struct updgrp_module_class *cls)
{
	updgrp_module_class_add(cls, HOOKPEER_CLASS_NAME, HOOKPEER_CLASS_VALUE);
	return 0;
}

static int hookpeer_module_init(void)
{
	const char *arg = THIS_MODULE->load_args;
	int prio;

	if (!arg || (strcmp(arg, "first") && strcmp(arg, "last"))) {
		zlog_err("bgpd_hookpeer: load argument must be first or last, not %s",
			 arg ? arg : "(none)");
		return -1;
	}
	prio = strcmp(arg, "first") ? HOOKPEER_PRIO_LAST : HOOKPEER_PRIO_FIRST;
	if (!str2prefix(HOOKPEER_WITHHELD, &hookpeer_withheld))
		return -1;

	hook_register_prio(bgp_ecommunity_unknown_str, prio, hookpeer_ecommunity_str);
	hook_register_prio(bgp_zebra_nexthop_weights, prio, hookpeer_nexthop_weights);
	hook_register_prio(bgp_route_announce_attr, prio, hookpeer_announce_attr);
	hook_register_prio(bgp_route_announce_withhold, prio, hookpeer_announce_withhold);
	hook_register_prio(bgp_updgrp_peer_class, prio, hookpeer_updgrp_peer_class);

	zlog_info("bgpd_hookpeer loaded, hook priority %d (%s)", prio, arg);
	return 0;
}

FRR_MODULE_SETUP(.name = "bgpd_hookpeer", .version = "1.0",
		 .description = "bgpd test module on the hooks of bgpd_fare",
		 .init = hookpeer_module_init);
