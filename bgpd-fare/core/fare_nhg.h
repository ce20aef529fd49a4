// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shared nexthop groups: the key of a group, a route's weighted
 * next hops in a canonical order, with its hash and equality. Routes
 * whose keys are equal share one group in zebra and the kernel; a change
 * of weights replaces that group in place (bgp_fare_nhg.c).
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers are defined in doc/user/fare-rules.rst.
 */

#ifndef _FARE_NHG_H
#define _FARE_NHG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Address family of a member's gateway */
enum fare_nhg_family {
	FARE_NHG_IPV4 = 4,
	FARE_NHG_IPV6 = 6,
};

/* One next hop of a group: a gateway on an interface, with its weight */
struct fare_nhg_member {
	uint8_t family; /* enum fare_nhg_family */
	bool onlink;
	uint8_t gate[16]; /* IPv4: the first 4 octets, the rest 0 */
	uint32_t ifindex;
	uint32_t vrf_id;
	uint32_t weight;
};

/* A group's key: the VRF of its routes and its members */
struct fare_nhg_key {
	uint32_t vrf_id;
	uint16_t n;
	struct fare_nhg_member m[];
};

/* Bytes of a key of n members */
static inline size_t fare_nhg_key_size(uint16_t n)
{
	return sizeof(struct fare_nhg_key) + (size_t)n * sizeof(struct fare_nhg_member);
}

/* Put the members in a canonical order (family, gateway, interface,
 * VRF), so that two routes with the same next hops in another order
 * share a group. False when two members are one next hop (the same
 * gateway on the same interface): the data plane would hold it once,
 * its weights not as computed; such a route keeps its own next hops.
 */
bool fare_nhg_key_normalize(struct fare_nhg_key *key);

uint32_t fare_nhg_key_hash(const struct fare_nhg_key *key);
bool fare_nhg_key_equal(const struct fare_nhg_key *a, const struct fare_nhg_key *b);
/* Same next hops, whatever their weights */
bool fare_nhg_key_same_nexthops(const struct fare_nhg_key *a, const struct fare_nhg_key *b);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_NHG_H */
