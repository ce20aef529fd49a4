// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The EE-4 invariants of the remote-group map (fare_ecmp_groups.h),
 * checked after each operation, for the unit tests and the fuzz target.
 *
 * The includer defines MAP_CHECK(cond) first: a cmocka assertion, or
 * FUZZ_CHECK(). Maps checked here have at most MAP_CHECK_SUBGROUPS
 * sub-groups and MAP_SNAPSHOT_MAX entries, and their move callback is
 * map_on_move() with a struct map_moves.
 */
#ifndef FARE_TEST_ECMP_MAP_CHECK_H
#define FARE_TEST_ECMP_MAP_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_ecmp_groups.h"

#define MAP_SNAPSHOT_MAX    4096
#define MAP_CHECK_SUBGROUPS 64

/* the callback's view: every move, and the last one */
struct map_moves {
	size_t count;
	struct fare_ecmp_key key;
	uint32_t from, to;
};

static inline void map_on_move(void *arg, struct fare_ecmp_key key, uint32_t from, uint32_t to)
{
	struct map_moves *mv = arg;

	MAP_CHECK(from != to);
	mv->count++;
	mv->key = key;
	mv->from = from;
	mv->to = to;
}

struct map_snapshot {
	size_t count;
	struct fare_ecmp_map_entry entries[MAP_SNAPSHOT_MAX];
};

static inline void map_snapshot(const struct fare_ecmp_map *map, struct map_snapshot *s)
{
	s->count = fare_ecmp_map_dump(map, s->entries, MAP_SNAPSHOT_MAX);
	MAP_CHECK(s->count <= MAP_SNAPSHOT_MAX);
}

static inline struct fare_ecmp_key map_key(uint32_t router_id, uint16_t group_id)
{
	struct fare_ecmp_key key = { .router_id = router_id, .group_id = group_id };

	return key;
}

static inline bool map_key_equal(struct fare_ecmp_key a, struct fare_ecmp_key b)
{
	return a.router_id == b.router_id && a.group_id == b.group_id;
}

static inline bool map_key_less(struct fare_ecmp_key a, struct fare_ecmp_key b)
{
	return a.router_id < b.router_id || (a.router_id == b.router_id && a.group_id < b.group_id);
}

static inline const struct fare_ecmp_map_entry *map_find_entry(const struct map_snapshot *s,
							       struct fare_ecmp_key key)
{
	size_t i;

	for (i = 0; i < s->count; i++)
		if (map_key_equal(s->entries[i].key, key))
			return &s->entries[i];
	return NULL;
}

/* the same entries, field by field (not the padding) */
static inline bool map_snapshot_equal(const struct map_snapshot *a, const struct map_snapshot *b)
{
	size_t i;

	if (a->count != b->count)
		return false;
	for (i = 0; i < a->count; i++) {
		const struct fare_ecmp_map_entry *x = &a->entries[i], *y = &b->entries[i];

		if (!map_key_equal(x->key, y->key) || x->subgroup != y->subgroup ||
		    x->explicit_subgroup != y->explicit_subgroup || x->present != y->present ||
		    x->pinned != y->pinned)
			return false;
	}
	return true;
}

static inline bool map_automatic(const struct fare_ecmp_map_entry *e)
{
	return e->present && !e->pinned;
}

/* keys present in both whose sub-group changed, the key `self` aside (a
 * merge: dumps are in key order)
 */
static inline size_t map_moved(const struct map_snapshot *before, const struct map_snapshot *after,
			       const struct fare_ecmp_key *self)
{
	size_t i = 0, j = 0, n = 0;

	while (i < before->count && j < after->count) {
		const struct fare_ecmp_map_entry *a = &before->entries[i], *b = &after->entries[j];

		if (map_key_less(a->key, b->key)) {
			i++;
		} else if (map_key_less(b->key, a->key)) {
			j++;
		} else {
			n += a->present && b->present && a->subgroup != b->subgroup &&
			     !(self && map_key_equal(a->key, *self));
			i++;
			j++;
		}
	}
	return n;
}

/*
 * EE-4 invariants: the dump is in key order, the loads are those of the
 * dump, every automatic key has a sub-group (when there are any), pinned
 * ones their operator's, lookups agree, and the automatic loads differ by
 * at most 1. Returns max - min.
 */
static inline uint32_t map_check(const struct fare_ecmp_map *map)
{
	static struct map_snapshot s;
	uint32_t k = fare_ecmp_map_subgroups(map);
	uint32_t loads[MAP_CHECK_SUBGROUPS], pinned[MAP_CHECK_SUBGROUPS];
	uint32_t auto_count[MAP_CHECK_SUBGROUPS] = { 0 }, pin_count[MAP_CHECK_SUBGROUPS] = { 0 };
	uint32_t g, lo = UINT32_MAX, hi = 0;
	size_t i;

	MAP_CHECK(k <= MAP_CHECK_SUBGROUPS);
	map_snapshot(map, &s);
	MAP_CHECK(s.count == fare_ecmp_map_count(map));
	fare_ecmp_map_loads(map, loads, pinned);
	for (i = 0; i < s.count; i++) {
		const struct fare_ecmp_map_entry *e = &s.entries[i];

		if (i)
			MAP_CHECK(map_key_less(s.entries[i - 1].key, e->key));
		MAP_CHECK(e->present || e->explicit_subgroup != FARE_ECMP_SUBGROUP_NONE);
		MAP_CHECK(e->pinned == (e->explicit_subgroup < k));
		if (e->pinned) {
			MAP_CHECK(e->subgroup == e->explicit_subgroup);
			pin_count[e->subgroup] += e->present;
		} else if (e->present) {
			MAP_CHECK(k == 0 ? e->subgroup == FARE_ECMP_SUBGROUP_NONE : e->subgroup < k);
			if (k)
				auto_count[e->subgroup]++;
		} else {
			MAP_CHECK(e->subgroup == FARE_ECMP_SUBGROUP_NONE);
		}
		MAP_CHECK(fare_ecmp_map_lookup(map, e->key) ==
			  (e->subgroup < k ? (int)e->subgroup : -1));
	}
	for (g = 0; g < k; g++) {
		MAP_CHECK(loads[g] == auto_count[g]);
		MAP_CHECK(pinned[g] == pin_count[g]);
		lo = loads[g] < lo ? loads[g] : lo;
		hi = loads[g] > hi ? loads[g] : hi;
	}
	if (k)
		MAP_CHECK(hi - lo <= 1);
	return k ? hi - lo : 0;
}

/* the lowest-index least-loaded sub-group: where a new key goes */
static inline int map_least_loaded(const struct fare_ecmp_map *map)
{
	uint32_t loads[MAP_CHECK_SUBGROUPS], g, k = fare_ecmp_map_subgroups(map);
	int best = 0;

	if (!k)
		return -1;
	fare_ecmp_map_loads(map, loads, NULL);
	for (g = 1; g < k; g++)
		if (loads[g] < loads[best])
			best = (int)g;
	return best;
}

/*
 * EE-4: the fewest moves a resize to k needs among the automatic keys that
 * stay automatic in a surviving sub-group: with S_g of them in sub-group g
 * and N automatic keys after (q = N / k, r = N % k), sum max(0, S_g - (q+1))
 * plus, when c > r sub-groups have S_g > q, c - r. *stayers_moved gets how
 * many of them did move.
 */
static inline size_t map_resize_min_moves(const struct map_snapshot *before,
					  const struct map_snapshot *after, uint32_t k,
					  size_t *stayers_moved)
{
	uint32_t stay[MAP_CHECK_SUBGROUPS] = { 0 }, g, c = 0, q, r;
	size_t i, n = 0, expected = 0;

	*stayers_moved = 0;
	if (!k)
		return 0;
	for (i = 0; i < after->count; i++) {
		const struct fare_ecmp_map_entry *a = &after->entries[i];
		const struct fare_ecmp_map_entry *b = map_find_entry(before, a->key);

		if (!map_automatic(a))
			continue;
		n++;
		if (b && map_automatic(b) && b->subgroup < k) {
			stay[b->subgroup]++;
			*stayers_moved += a->subgroup != b->subgroup;
		}
	}
	q = (uint32_t)(n / k);
	r = (uint32_t)(n % k);
	for (g = 0; g < k; g++) {
		if (stay[g] > q + 1)
			expected += stay[g] - (q + 1);
		c += stay[g] > q;
	}
	if (c > r)
		expected += c - r;
	return expected;
}

enum map_op {
	MAP_OP_ADD,	       /* lookup_or_add(key) */
	MAP_OP_REMOVE,	       /* remove(key) */
	MAP_OP_SET_EXPLICIT,   /* set_explicit(key, arg) */
	MAP_OP_CLEAR_EXPLICIT, /* clear_explicit(key) */
	MAP_OP_RESIZE,	       /* set_subgroups(arg) */
	MAP_OP_MAX,
};

/*
 * One operation on map with its EE-4 checks: an add moves no other key and
 * goes to the least loaded sub-group, lowest index; a removal moves one
 * other key exactly when the balance needs it; pinning an automatic key
 * moves at most one other, clearing none; a resize moves the fewest keys
 * the balance allows among those that stay; every move goes through the
 * callback; the invariants of map_check() hold after. Returns what the
 * call returned, for determinism checks.
 */
static inline int map_op_checked(struct fare_ecmp_map *map, struct map_moves *mv, enum map_op op,
				 struct fare_ecmp_key key, uint32_t arg)
{
	static struct map_snapshot before, after;
	uint32_t k = fare_ecmp_map_subgroups(map), loads[MAP_CHECK_SUBGROUPS], g;
	const struct fare_ecmp_map_entry *e;
	size_t cb_before = mv->count, stayers_moved, needs = 0;
	int ret = 0, expected;

	map_snapshot(map, &before);
	fare_ecmp_map_loads(map, loads, NULL);
	e = map_find_entry(&before, key);
	switch (op) {
	case MAP_OP_ADD:
		expected = map_least_loaded(map);
		if (e && (e->present || e->pinned))
			expected = e->subgroup < k ? (int)e->subgroup : -1;
		ret = fare_ecmp_map_lookup_or_add(map, key);
		MAP_CHECK(ret == expected);
		map_snapshot(map, &after);
		MAP_CHECK(map_moved(&before, &after, &key) == 0);
		MAP_CHECK(mv->count == cb_before);
		break;
	case MAP_OP_REMOVE:
		ret = fare_ecmp_map_remove(map, key);
		MAP_CHECK(ret == (e && e->present));
		map_snapshot(map, &after);
		/* the balance broke: the key's sub-group was least loaded and
		 * another had one more
		 */
		if (e && map_automatic(e))
			for (g = 0; g < k; g++)
				needs |= loads[g] > loads[e->subgroup];
		MAP_CHECK(map_moved(&before, &after, NULL) == needs);
		break;
	case MAP_OP_SET_EXPLICIT:
		ret = fare_ecmp_map_set_explicit(map, key, arg);
		MAP_CHECK(ret == (arg != FARE_ECMP_SUBGROUP_NONE));
		map_snapshot(map, &after);
		/* pinning an automatic key is a removal from the balancing */
		MAP_CHECK(map_moved(&before, &after, &key) <= (size_t)(e && map_automatic(e)));
		if (ret && arg < k)
			MAP_CHECK(fare_ecmp_map_lookup(map, key) == (int)arg);
		break;
	case MAP_OP_CLEAR_EXPLICIT:
		ret = fare_ecmp_map_clear_explicit(map, key);
		MAP_CHECK(ret == (e && e->explicit_subgroup != FARE_ECMP_SUBGROUP_NONE));
		map_snapshot(map, &after);
		MAP_CHECK(map_moved(&before, &after, &key) == 0);
		break;
	case MAP_OP_RESIZE:
		ret = fare_ecmp_map_set_subgroups(map, arg);
		MAP_CHECK(ret == (arg <= FARE_ECMP_MAX_SUBGROUPS));
		map_snapshot(map, &after);
		if (ret)
			MAP_CHECK(map_resize_min_moves(&before, &after, arg, &stayers_moved) ==
				  stayers_moved);
		break;
	case MAP_OP_MAX:
		map_snapshot(map, &after);
		break;
	}
	/* each change the dump shows went through the callback */
	MAP_CHECK(mv->count - cb_before == map_moved(&before, &after, NULL));
	map_check(map);
	return ret;
}

#endif /* FARE_TEST_ECMP_MAP_CHECK_H */
