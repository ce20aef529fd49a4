// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: shared nexthop groups, the key of a route (bgp_fare_nhg.c):
 * its weighted next hops, each with the interface the kernel's nexthop
 * objects need, in the order of core/fare_nhg.h.
 */
#include <zebra.h>

#include "jhash.h"
#include "memory.h"
#include "nexthop.h"
#include "zclient.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_nexthop.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_zebra.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_nhg.h"

#ifdef FARE_HAVE_NHG

#include "bgpd/fare/bgp_fare_nhg_private.h"

DEFINE_MTYPE(FARE, FARE_NHG_KEY, "FARE nexthop group key");

/* ------------------------------------------------------------------ */
/* Keys from routes                                                     */
/* ------------------------------------------------------------------ */

/* The connected or single resolved hop of a next hop bgpd sent without
 * an interface (an IPv4 or global IPv6 address): the kernel's nexthop
 * objects need both. False when it resolves to several hops or none.
 */
static bool fare_nhg_resolve(struct bgp_path_info *best, const struct zapi_nexthop *api_nh,
			     struct fare_nhg_member *m)
{
	struct bgp_path_info *pi;
	int family = api_nh->type == NEXTHOP_TYPE_IPV4 ? AF_INET : AF_INET6;

	for (pi = best; pi; pi = bgp_path_info_mpath_next(pi)) {
		const struct bgp_nexthop_cache *bnc = pi->nexthop;
		const struct nexthop *nh;

		if (!bnc || bnc->prefix.family != family)
			continue;
		if (family == AF_INET ? bnc->prefix.u.prefix4.s_addr != api_nh->gate.ipv4.s_addr
				      : !IPV6_ADDR_SAME(&bnc->prefix.u.prefix6, &api_nh->gate.ipv6))
			continue;
		nh = bnc->nexthop;
		if (!CHECK_FLAG(bnc->flags, BGP_NEXTHOP_VALID) || bnc->nexthop_num != 1 || !nh ||
		    !nh->ifindex)
			return false;
		m->ifindex = nh->ifindex;
		if (CHECK_FLAG(bnc->flags, BGP_NEXTHOP_CONNECTED))
			return true;
		/* recursive: the hop it resolves to */
		switch (nh->type) {
		case NEXTHOP_TYPE_IPV4_IFINDEX:
			m->family = FARE_NHG_IPV4;
			memset(m->gate, 0, sizeof(m->gate));
			memcpy(m->gate, &nh->gate.ipv4, 4);
			return true;
		case NEXTHOP_TYPE_IPV6_IFINDEX:
			m->family = FARE_NHG_IPV6;
			memcpy(m->gate, &nh->gate.ipv6, 16);
			return true;
		case NEXTHOP_TYPE_IFINDEX:
		case NEXTHOP_TYPE_IPV4:
		case NEXTHOP_TYPE_IPV6:
		case NEXTHOP_TYPE_BLACKHOLE:
			return false;
		}
		return false;
	}
	return false;
}

/* The key of a route as bgpd built it for zebra; NULL when it cannot go
 * through a group: not weighted by FARE, or a next hop the kernel's
 * nexthop objects do not take as it is (labels, SRv6, unresolved, ...).
 * NULL too for a single next hop: it has no weight to change in place,
 * and zebra's own next hop serves it as without the groups.
 */
struct fare_nhg_key *fare_nhg_key_of(struct bgp_path_info *best, const struct zapi_route *api)
{
	struct fare_nhg_key *key;
	uint16_t i;

	if (!CHECK_FLAG(api->flags, ZEBRA_FLAG_NEXTHOP_WEIGHT_EXACT) ||
	    CHECK_FLAG(api->message, ZAPI_MESSAGE_NHG) ||
	    CHECK_FLAG(api->message, ZAPI_MESSAGE_BACKUP_NEXTHOPS) ||
	    CHECK_FLAG(api->message, ZAPI_MESSAGE_SRTE) || api->nexthop_num < 2 ||
	    api->nexthop_num > MULTIPATH_NUM)
		return NULL;

	key = XCALLOC(MTYPE_FARE_NHG_KEY, fare_nhg_key_size(api->nexthop_num));
	key->vrf_id = api->vrf_id;
	key->n = api->nexthop_num;
	for (i = 0; i < api->nexthop_num; i++) {
		const struct zapi_nexthop *api_nh = &api->nexthops[i];
		struct fare_nhg_member *m = &key->m[i];

		if (api_nh->label_num || api_nh->seg_num ||
		    CHECK_FLAG(api_nh->flags, ZAPI_NEXTHOP_FLAG_EVPN) || !api_nh->weight)
			goto fail;
		m->vrf_id = api_nh->vrf_id;
		m->weight = api_nh->weight;
		m->onlink = CHECK_FLAG(api_nh->flags, ZAPI_NEXTHOP_FLAG_ONLINK);
		m->ifindex = api_nh->ifindex;
		switch (api_nh->type) {
		case NEXTHOP_TYPE_IPV4:
		case NEXTHOP_TYPE_IPV4_IFINDEX:
			m->family = FARE_NHG_IPV4;
			memcpy(m->gate, &api_nh->gate.ipv4, 4);
			break;
		case NEXTHOP_TYPE_IPV6:
		case NEXTHOP_TYPE_IPV6_IFINDEX:
			m->family = FARE_NHG_IPV6;
			memcpy(m->gate, &api_nh->gate.ipv6, 16);
			break;
		case NEXTHOP_TYPE_IFINDEX:
		case NEXTHOP_TYPE_BLACKHOLE:
			goto fail;
		}
		if (!m->ifindex && !fare_nhg_resolve(best, api_nh, m))
			goto fail;
	}
	if (fare_nhg_key_normalize(key))
		return key;
fail:
	XFREE(MTYPE_FARE_NHG_KEY, key);
	return NULL;
}

/* Fingerprints: two 32-bit hashes of the same words with different
 * seeds, 64 bits in all (a route's content changes millions of times in
 * a fabric's life; a false match would leave zebra's route as it was).
 */
struct fare_nhg_fp {
	uint32_t a, b;
};

static void fare_nhg_fp_words(struct fare_nhg_fp *fp, uint32_t x, uint32_t y, uint32_t z)
{
	fp->a = jhash_3words(x, y, z, fp->a);
	fp->b = jhash_3words(x, y, z, fp->b ^ 0x85ebca6b);
}

static void fare_nhg_fp_bytes(struct fare_nhg_fp *fp, const void *p, uint32_t len)
{
	fp->a = jhash(p, len, fp->a);
	fp->b = jhash(p, len, fp->b ^ 0x85ebca6b);
}

static uint64_t fare_nhg_fp_value(const struct fare_nhg_fp *fp)
{
	return ((uint64_t)fp->b << 32 | fp->a) | 1; /* never 0: 0 is "not sent" */
}

static void fare_nhg_fp_route(struct fare_nhg_fp *fp, const struct zapi_route *api, uint32_t nhg_id)
{
	uint32_t msg = api->message & ~(ZAPI_MESSAGE_NHG | ZAPI_MESSAGE_NEXTHOP);

	fare_nhg_fp_bytes(fp, &api->prefix.u, PSIZE(api->prefix.prefixlen));
	fare_nhg_fp_words(fp, api->prefix.family, api->prefix.prefixlen, api->vrf_id);
	fare_nhg_fp_words(fp, api->type << 16 | api->instance, api->safi, api->flags);
	fare_nhg_fp_words(fp, msg, api->distance, api->metric);
	fare_nhg_fp_words(fp, (uint32_t)api->tag, api->mtu, api->tableid);
	fare_nhg_fp_words(fp, nhg_id, api->srte_color, 0);
	if (CHECK_FLAG(api->message, ZAPI_MESSAGE_OPAQUE))
		fare_nhg_fp_bytes(fp, api->opaque.data, api->opaque.length);
}

/* Everything of a route zebra installs but its next hops */
uint64_t fare_nhg_fingerprint(const struct zapi_route *api, uint32_t nhg_id)
{
	struct fare_nhg_fp fp = { 0x46415245, 0x4e484730 };

	fare_nhg_fp_route(&fp, api, nhg_id);
	return fare_nhg_fp_value(&fp);
}

/* Everything of a route zebra gets with its own next hops, those
 * included; 0 when a next hop carries more than the fingerprint reads
 * (labels, SRv6, EVPN, backup next hops): such a route is always sent.
 */
uint64_t fare_nhg_direct_fingerprint(const struct zapi_route *api)
{
	struct fare_nhg_fp fp = { 0x46415245, 0x4e484730 };
	uint16_t i;

	if (CHECK_FLAG(api->message, ZAPI_MESSAGE_NHG) ||
	    CHECK_FLAG(api->message, ZAPI_MESSAGE_BACKUP_NEXTHOPS) ||
	    !CHECK_FLAG(api->message, ZAPI_MESSAGE_NEXTHOP) || api->nexthop_num > MULTIPATH_NUM)
		return 0;
	fare_nhg_fp_route(&fp, api, 0);
	fare_nhg_fp_words(&fp, api->nexthop_num, 0, 0);
	for (i = 0; i < api->nexthop_num; i++) {
		const struct zapi_nexthop *nh = &api->nexthops[i];
		struct in6_addr gate = {};

		if (nh->label_num || nh->seg_num || nh->seg6local_action || nh->backup_num ||
		    CHECK_FLAG(nh->flags, ZAPI_NEXTHOP_FLAG_EVPN))
			return 0;
		switch (nh->type) {
		case NEXTHOP_TYPE_IPV4:
		case NEXTHOP_TYPE_IPV4_IFINDEX:
			memcpy(&gate, &nh->gate.ipv4, 4);
			break;
		case NEXTHOP_TYPE_IPV6:
		case NEXTHOP_TYPE_IPV6_IFINDEX:
			gate = nh->gate.ipv6;
			break;
		case NEXTHOP_TYPE_BLACKHOLE:
			memcpy(&gate, &nh->bh_type, sizeof(nh->bh_type));
			break;
		case NEXTHOP_TYPE_IFINDEX:
			break;
		}
		fare_nhg_fp_words(&fp, nh->type, nh->vrf_id, nh->ifindex);
		fare_nhg_fp_words(&fp, nh->flags, (uint32_t)nh->weight,
				  (uint32_t)(nh->weight >> 32));
		fare_nhg_fp_words(&fp, nh->srte_color, 0, 0);
		fare_nhg_fp_bytes(&fp, &gate, sizeof(gate));
	}
	return fare_nhg_fp_value(&fp);
}

struct fare_nhg_key *fare_nhg_key_dup(const struct fare_nhg_key *key)
{
	struct fare_nhg_key *copy = XMALLOC(MTYPE_FARE_NHG_KEY, fare_nhg_key_size(key->n));

	memcpy(copy, key, fare_nhg_key_size(key->n));
	return copy;
}

#endif /* FARE_HAVE_NHG */
