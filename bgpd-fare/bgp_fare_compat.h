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
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_zebra.h"

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

/* FRR's own weighted ECMP, what bgpd weights a route's nexthops by when no
 * module does (bgp_zebra_announce_actual(), patch 0004): the link-bandwidth
 * extended community in both releases; from 10.6 on also the next-next-hop
 * node count of the Next Hop Characteristics attribute (with "bgp bestpath
 * bandwidth ignore") and the underlay's weight ("use-underlays-nexthop-weight").
 * FRR 10.3's bgp_path_info_mpath_chkwtd() takes the best path and says only
 * whether link bandwidth weighs it; 10.7's takes the destination and returns
 * enum bgp_wecmp_behavior. Told apart by BGP_ATTR_NHC, which came with it.
 */
enum fare_frr_wecmp {
	FARE_FRR_WECMP_NONE,
	FARE_FRR_WECMP_LINK_BW,
	FARE_FRR_WECMP_NNHN,
	FARE_FRR_WECMP_UNDERLAY,
};

#ifdef BGP_ATTR_NHC
#include "bgpd/bgp_nhc.h"
#endif

static inline enum fare_frr_wecmp fare_frr_wecmp(struct bgp *bgp, struct bgp_dest *dest,
						 struct bgp_path_info *best)
{
#ifdef BGP_ATTR_NHC
	switch (bgp_path_info_mpath_chkwtd(bgp, dest)) {
	case BGP_WECMP_BEHAVIOR_LINK_BW:
		return FARE_FRR_WECMP_LINK_BW;
	case BGP_WECMP_BEHAVIOR_NNHN_COUNT:
		return FARE_FRR_WECMP_NNHN;
	case BGP_WECMP_BEHAVIOR_USE_RECURSIVE_VALUE:
		return FARE_FRR_WECMP_UNDERLAY;
	case BGP_WECMP_BEHAVIOR_NONE:
		break;
	}
	return FARE_FRR_WECMP_NONE;
#else
	return bgp_path_info_mpath_chkwtd(bgp, best) ? FARE_FRR_WECMP_LINK_BW : FARE_FRR_WECMP_NONE;
#endif
}

/* "use-underlays-nexthop-weight" (10.6+; FRR 10.3 has no such knob) */
static inline bool fare_frr_underlay_weight(const struct bgp *bgp)
{
#ifdef BGP_FLAG_USE_RECURSIVE_WEIGHT
	return CHECK_FLAG(bgp->flags, BGP_FLAG_USE_RECURSIVE_WEIGHT);
#else
	return false;
#endif
}

/* Whether bgpd weights routes that carry the Next Hop Characteristics
 * attribute by next-next-hop node count: "bgp bestpath bandwidth ignore"
 * from 10.6 on; FRR 10.3 has no such weighting.
 */
static inline bool fare_frr_nnhn(const struct bgp *bgp)
{
#ifdef BGP_ATTR_NHC
	return bgp->lb_handling == BGP_LINK_BW_IGNORE_BW;
#else
	return false;
#endif
}

/* The weight bgpd gives one path's nexthop under FRR's weighted ECMP `how`,
 * before zebra scales it (bgp_zebra_announce_parse_nexthop()): its link
 * bandwidth, or BGP_ZEBRA_DEFAULT_NHOP_WEIGHT for a path without one under
 * "bgp bestpath bandwidth default-weight-for-missing", 0 (left out) under
 * skip-missing; its next-next-hop node count (0: none). 0 otherwise.
 */
static inline uint64_t fare_frr_path_weight(const struct bgp *bgp, struct bgp_path_info *pi,
					    enum fare_frr_wecmp how)
{
	uint64_t bw;

	switch (how) {
	case FARE_FRR_WECMP_LINK_BW:
#ifdef BGP_ATTR_NHC
		bw = bgp_path_info_get_link_bw(pi);
#else
		bw = pi->attr->link_bw;
#endif
		if (bw)
			return bw;
		return bgp->lb_handling == BGP_LINK_BW_SKIP_MISSING ? 0
								    : BGP_ZEBRA_DEFAULT_NHOP_WEIGHT;
	case FARE_FRR_WECMP_NNHN:
#ifdef BGP_ATTR_NHC
		if (bgp_attr_exists(pi->attr, BGP_ATTR_NHC))
			return bgp_nhc_nnhn_count(bgp_attr_get_nhc(pi->attr));
#endif
		return 0;
	case FARE_FRR_WECMP_UNDERLAY:
	case FARE_FRR_WECMP_NONE:
		break;
	}
	return 0;
}

#endif /* _BGP_FARE_COMPAT_H */
