// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: what differs between the FRR releases the module builds
 * against (10.3, Debian 13's; 10.7.1, the newest release), all in this
 * header. Each difference is tested by what the release defines, not by
 * its version number.
 */
#ifndef _BGP_FARE_COMPAT_H
#define _BGP_FARE_COMPAT_H

#include "bgpd/bgpd.h"

/* A peer that carries only an accepted connection (the doppelganger of a
 * configured neighbor), not a neighbor of the configuration: the test
 * bgpd's own peer_delete() makes. FRR 10.3 flags it
 * PEER_STATUS_ACCEPT_PEER; FRR 10.7 has no such flag and tests
 * PEER_FLAG_CONFIG_NODE (peer_is_config_node()).
 */
static inline bool fare_peer_is_accept(const struct peer *peer)
{
#ifdef PEER_STATUS_ACCEPT_PEER
	return CHECK_FLAG(peer->sflags, PEER_STATUS_ACCEPT_PEER);
#else
	return !peer_is_config_node(peer);
#endif
}

/* The last reason bgpd names in peer_down_str[]: PEER_DOWN_ROUTER_ID_ZERO
 * in FRR 10.3; 10.7 adds one per Cease subcode, up to
 * PEER_DOWN_CEASE_UNKNOWN.
 */
#ifdef PEER_DOWN_CEASE_UNKNOWN
#define FARE_PEER_DOWN_LAST PEER_DOWN_CEASE_UNKNOWN
#else
#define FARE_PEER_DOWN_LAST PEER_DOWN_ROUTER_ID_ZERO
#endif

/* bgpd's session to zebra: the global "zclient" in FRR 10.3, renamed
 * "bgp_zclient" by 10.7 (lib/ has no macro telling which). Both are
 * declared weak here, so the module loads into either bgpd and uses the
 * one it exports; NULL before bgpd has one.
 */
struct zclient;
static inline struct zclient *fare_bgp_zclient(void)
{
	extern struct zclient *zclient __attribute__((weak));
	extern struct zclient *bgp_zclient __attribute__((weak));

	if (&bgp_zclient)
		return bgp_zclient;
	if (&zclient)
		return zclient;
	return NULL;
}

#endif /* _BGP_FARE_COMPAT_H */
