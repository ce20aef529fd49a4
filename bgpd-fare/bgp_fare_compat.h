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

#endif /* _BGP_FARE_COMPAT_H */
