// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Shared nexthop groups: keys, their canonical order, hash and
 * equality.
 */

#include <stdlib.h>
#include <string.h>

#include "fare_nhg.h"

/* The next hop of a member, its weight aside */
static int fare_nhg_member_cmp(const void *pa, const void *pb)
{
	const struct fare_nhg_member *a = pa, *b = pb;
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = memcmp(a->gate, b->gate, sizeof(a->gate));
	if (c)
		return c;
	if (a->ifindex != b->ifindex)
		return a->ifindex < b->ifindex ? -1 : 1;
	if (a->vrf_id != b->vrf_id)
		return a->vrf_id < b->vrf_id ? -1 : 1;
	return 0;
}

bool fare_nhg_key_normalize(struct fare_nhg_key *key)
{
	uint16_t i;

	qsort(key->m, key->n, sizeof(key->m[0]), fare_nhg_member_cmp);
	for (i = 1; i < key->n; i++)
		if (!fare_nhg_member_cmp(&key->m[i - 1], &key->m[i]))
			return false;
	return true;
}

/* FNV-1a over the fields one by one (no padding bytes hashed) */
static uint32_t fare_fnv(uint32_t h, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

uint32_t fare_nhg_key_hash(const struct fare_nhg_key *key)
{
	uint32_t h = 2166136261u;
	uint16_t i;

	h = fare_fnv(h, &key->vrf_id, sizeof(key->vrf_id));
	h = fare_fnv(h, &key->n, sizeof(key->n));
	for (i = 0; i < key->n; i++) {
		const struct fare_nhg_member *m = &key->m[i];

		h = fare_fnv(h, &m->family, sizeof(m->family));
		h = fare_fnv(h, &m->onlink, sizeof(m->onlink));
		h = fare_fnv(h, m->gate, sizeof(m->gate));
		h = fare_fnv(h, &m->ifindex, sizeof(m->ifindex));
		h = fare_fnv(h, &m->vrf_id, sizeof(m->vrf_id));
		h = fare_fnv(h, &m->weight, sizeof(m->weight));
	}
	return h;
}

bool fare_nhg_key_same_nexthops(const struct fare_nhg_key *a, const struct fare_nhg_key *b)
{
	uint16_t i;

	if (a->vrf_id != b->vrf_id || a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (fare_nhg_member_cmp(&a->m[i], &b->m[i]) || a->m[i].onlink != b->m[i].onlink)
			return false;
	return true;
}

bool fare_nhg_key_equal(const struct fare_nhg_key *a, const struct fare_nhg_key *b)
{
	uint16_t i;

	if (!fare_nhg_key_same_nexthops(a, b))
		return false;
	for (i = 0; i < a->n; i++)
		if (a->m[i].weight != b->m[i].weight)
			return false;
	return true;
}
