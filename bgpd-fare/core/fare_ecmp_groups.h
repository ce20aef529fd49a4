// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Enhanced ECMP: uplink sub-groups (EE-2), the map from remote ECMP groups
 * to local sub-groups (EE-4) and the egress member of each ingress port of
 * a group (EE-1).
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers are defined in doc/user/fare-rules.rst.
 */

#ifndef _FARE_ECMP_GROUPS_H
#define _FARE_ECMP_GROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* an uplink in no sub-group, a key mapped to none */
#define FARE_ECMP_SUBGROUP_NONE UINT32_MAX
/* more sub-groups than any switch has uplinks */
#define FARE_ECMP_MAX_SUBGROUPS 65535

/*
 * EE-2: fixed-size sub-groups. The m uplinks come in a stable order (the
 * caller sorts them, e.g. by interface name); uplink i goes to sub-group
 * i / size and subgroup_of[i] says which. When size does not divide m the
 * last sub-group holds the m % size uplinks left: it is kept, so that
 * every uplink carries traffic, but EE-4 gives it as many remote groups as
 * the full ones, so each of those gets less bandwidth; choose a size that
 * divides m, or an explicit layout, to avoid it. Returns the number of
 * sub-groups, ceil(m / size) (0 for m == 0); -1 for size 0, a NULL
 * subgroup_of with m > 0, or more than FARE_ECMP_MAX_SUBGROUPS sub-groups.
 */
int fare_ecmp_layout_uniform(size_t m, uint32_t size, uint32_t *subgroup_of);

/*
 * EE-2: the operator's layout: given[i] is uplink i's sub-group number as
 * configured, FARE_ECMP_SUBGROUP_NONE for an uplink in none. The numbers
 * become dense indexes in increasing order (configured 1, 3, 7 give 0, 1,
 * 2), so that gaps, from numbers not configured or from uplinks that are
 * down, never make an empty sub-group; subgroup_of[i] is the index, or
 * FARE_ECMP_SUBGROUP_NONE. subgroup_of may be given itself. Returns the
 * number of sub-groups (0 when no uplink has one); -1 for NULL arrays with
 * m > 0, more than FARE_ECMP_MAX_SUBGROUPS sub-groups or no memory (then
 * subgroup_of is unchanged).
 */
int fare_ecmp_layout_explicit(size_t m, const uint32_t *given, uint32_t *subgroup_of);

/*
 * EE-2: the order of uplinks, by interface name in natural order: runs of
 * digits compare by their value, so swp2 comes before swp10 (and swp1s2
 * before swp1s10); other characters compare as bytes. Names that differ
 * only in leading zeros (swp01, swp1) compare by the shorter run first,
 * then bytewise, so the order is total: 0 only for equal strings. A
 * qsort()/bsearch() comparator over const char * is
 * fare_ecmp_ifname_qcmp().
 */
int fare_ecmp_ifname_cmp(const char *a, const char *b);
int fare_ecmp_ifname_qcmp(const void *a, const void *b);

/* EE-4: a remote ECMP group, as its GroupID community names it (EE-3) */
struct fare_ecmp_key {
	uint32_t router_id; /* host order */
	uint16_t group_id;
};

/* one key of the map, for show commands */
struct fare_ecmp_map_entry {
	struct fare_ecmp_key key;
	/* the local sub-group its routes use, FARE_ECMP_SUBGROUP_NONE for
	 * none (no sub-groups, or an operator's entry for a key not seen)
	 */
	uint32_t subgroup;
	/* the operator's sub-group for it, FARE_ECMP_SUBGROUP_NONE if none */
	uint32_t explicit_subgroup;
	bool present; /* added by lookup_or_add() and not removed since */
	bool pinned;  /* subgroup is explicit_subgroup (it exists) */
};

/*
 * EE-4: the map from remote (router ID, group ID) to local sub-group
 * indexes 0..k-1.
 *
 * Keys present and not pinned are automatic. Invariants, after every call:
 * - balance: the numbers of automatic keys of any two sub-groups differ by
 *   at most 1;
 * - an add (lookup_or_add() of a new key) never moves another key: the
 *   new key goes to the least loaded sub-group, the lowest index on ties;
 * - a removal (remove(), or set_explicit() that takes an automatic key
 *   out of the balancing) moves at most one other key, and only when the
 *   balance needs it;
 * - set_subgroups() keeps every automatic key whose sub-group survives,
 *   unless the balance needs it to move, and then moves as few as the
 *   balance allows; keys of sub-groups that are gone are placed in key
 *   order (router ID, then group ID).
 * When keys must move to restore the balance (q keys per sub-group and r
 * left over), the r sub-groups that end with q + 1 are the lowest-index
 * ones among those above q, then, if fewer than r are, the lowest-index
 * others (as after a run of adds); a sub-group above its target gives its
 * lowest keys, and the keys that move fill the sub-groups below target in
 * key order, lowest index first. Everything is decided from the map's content: the same
 * sequence of calls gives the same map, whatever the platform.
 *
 * Explicit entries (the operator's map, set_explicit()) are pinned: their
 * sub-group is the operator's, they are neither counted in nor moved by the
 * balancing. An explicit index that does not exist (>= k) is kept but
 * dormant: the key is automatic until set_subgroups() makes the index
 * exist. An explicit entry outlives remove() (the key is then not present
 * but keeps its sub-group for when it comes back).
 *
 * Cost: keys are a sorted array: lookups O(log n); adds, removals and
 * explicit changes O(n) worst case (array shifts, and finding the lowest
 * key of a sub-group when one must move); set_subgroups() O(n + k). At
 * 10,000 keys every call is microseconds.
 */
struct fare_ecmp_map;

/*
 * Called for each present key whose sub-group changes (from, to: indexes
 * or FARE_ECMP_SUBGROUP_NONE; from may be a sub-group that set_subgroups()
 * has just removed), except for the key lookup_or_add() returns the index
 * of: the caller re-installs that key's routes. It must not call the map.
 */
typedef void (*fare_ecmp_map_move_cb)(void *arg, struct fare_ecmp_key key, uint32_t from,
				      uint32_t to);

/* a map with k sub-groups (0: keys are kept, mapped to none); NULL when
 * out of memory or k > FARE_ECMP_MAX_SUBGROUPS
 */
struct fare_ecmp_map *fare_ecmp_map_new(uint32_t k);
void fare_ecmp_map_free(struct fare_ecmp_map *map);
void fare_ecmp_map_set_move_cb(struct fare_ecmp_map *map, fare_ecmp_map_move_cb cb, void *arg);

/* false (map unchanged) when out of memory or k > FARE_ECMP_MAX_SUBGROUPS */
bool fare_ecmp_map_set_subgroups(struct fare_ecmp_map *map, uint32_t k);
uint32_t fare_ecmp_map_subgroups(const struct fare_ecmp_map *map);

/*
 * EE-4: the sub-group of key, which becomes present (added if new); -1 when
 * there are no sub-groups or out of memory (the caller falls back to all
 * uplinks; a later call retries).
 */
int fare_ecmp_map_lookup_or_add(struct fare_ecmp_map *map, struct fare_ecmp_key key);
/* the sub-group of key without adding it; -1 if it has none */
int fare_ecmp_map_lookup(const struct fare_ecmp_map *map, struct fare_ecmp_key key);
/* the remote group is gone; false if key was not present */
bool fare_ecmp_map_remove(struct fare_ecmp_map *map, struct fare_ecmp_key key);

/* the operator's sub-group for key (any index but FARE_ECMP_SUBGROUP_NONE;
 * see dormant indexes above); false when out of memory or index is NONE
 */
bool fare_ecmp_map_set_explicit(struct fare_ecmp_map *map, struct fare_ecmp_key key,
				uint32_t subgroup);
/* back to automatic: a present key stays where it is when that keeps the
 * balance, else it is placed like a new key; false if key had no explicit
 * entry
 */
bool fare_ecmp_map_clear_explicit(struct fare_ecmp_map *map, struct fare_ecmp_key key);

/* entries, present or explicit */
size_t fare_ecmp_map_count(const struct fare_ecmp_map *map);
/* writes the first min(max, count) entries in key order; returns count */
size_t fare_ecmp_map_dump(const struct fare_ecmp_map *map, struct fare_ecmp_map_entry *out,
			  size_t max);
/* per sub-group (arrays of k, either may be NULL): automatic keys, and
 * present pinned keys
 */
void fare_ecmp_map_loads(const struct fare_ecmp_map *map, uint32_t *automatic, uint32_t *pinned);

/*
 * EE-1 with FARE weights: n ingress ports of a group share the m members
 * of a prefix's next-hop list by weight. weights[i] is member i's integer
 * weight, 0 for a member not used. The ports per member are the largest
 * remainder (Hamilton) apportionment of n seats (fare_apportion(), the
 * data plane's too): member i gets
 * floor(n * w_i / W) or one more (W the sum of the weights), the extra
 * seats going to the largest remainders, the lowest member index on
 * ties; exact integer arithmetic. A member of weight 0 gets no seat.
 * seats[i] receives member i's ports. Returns the number of ports placed:
 * n, or 0 when all weights are 0 (or m == 0).
 */
uint32_t fare_ecmp_port_seats(const uint32_t *weights, size_t m, uint32_t n, uint32_t *seats);

/*
 * EE-1: member_of_port[k] is the member that ingress port k (0..n-1) of
 * the group sends to: ports go to members in member order, each member
 * taking its seats (fare_ecmp_port_seats()), so equal non-zero weights
 * with n <= m give port k the k-th usable member, and n distinct members.
 * Never a member of weight 0. m <= INT32_MAX. Cost O(m^2) at worst (no memory
 * allocated), for the few hundred members of a next-hop list. Returns the
 * number of distinct members used (0 for n == 0); -1 when all weights are
 * 0 or m == 0, with every member_of_port[k] -1: the caller hashes flows
 * as plain ECMP does.
 */
int fare_ecmp_port_members(const uint32_t *weights, size_t m, uint32_t n, int32_t *member_of_port);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_ECMP_GROUPS_H */
