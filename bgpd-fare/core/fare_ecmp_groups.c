// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Enhanced ECMP: uplink sub-groups (EE-2), the remote-group map (EE-4) and
 * the egress member of each ingress port of a group (EE-1).
 */

#include <stdlib.h>
#include <string.h>

#include "fare_apportion.h"
#include "fare_ecmp_groups.h"

/* EE-2 ---------------------------------------------------------------- */

int fare_ecmp_layout_uniform(size_t m, uint32_t size, uint32_t *subgroup_of)
{
	size_t i, groups;

	if (size == 0 || (m && !subgroup_of))
		return -1;
	groups = m ? (m - 1) / size + 1 : 0;
	if (groups > FARE_ECMP_MAX_SUBGROUPS)
		return -1;
	/* the last group keeps m % size uplinks when size does not divide m */
	for (i = 0; i < m; i++)
		subgroup_of[i] = (uint32_t)(i / size);
	return (int)groups;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int fare_ecmp_ifname_cmp(const char *a, const char *b)
{
	const char *sa = a, *sb = b;
	int tie = 0; /* first difference in leading zeros, for a total order */

	while (*a && *b) {
		if (is_digit(*a) && is_digit(*b)) {
			const char *ea, *eb, *za = a, *zb = b;
			size_t la, lb;
			int c;

			while (*za == '0' && is_digit(za[1]))
				za++;
			while (*zb == '0' && is_digit(zb[1]))
				zb++;
			for (ea = za; is_digit(*ea); ea++)
				;
			for (eb = zb; is_digit(*eb); eb++)
				;
			la = (size_t)(ea - za);
			lb = (size_t)(eb - zb);
			if (la != lb)
				return la < lb ? -1 : 1;
			c = memcmp(za, zb, la);
			if (c)
				return c < 0 ? -1 : 1;
			/* same value: fewer leading zeros first */
			if (!tie && (ea - a) != (eb - b))
				tie = (ea - a) < (eb - b) ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	if (tie)
		return tie;
	tie = strcmp(sa, sb);
	return (tie > 0) - (tie < 0);
}

int fare_ecmp_ifname_qcmp(const void *a, const void *b)
{
	return fare_ecmp_ifname_cmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int fare_ecmp_layout_explicit(size_t m, const uint32_t *given, uint32_t *subgroup_of)
{
	uint32_t *numbers;
	size_t i, used = 0, distinct = 0;

	if (m && (!given || !subgroup_of))
		return -1;
	if (m == 0)
		return 0;
	numbers = malloc(m * sizeof(*numbers));
	if (!numbers)
		return -1;
	for (i = 0; i < m; i++)
		if (given[i] != FARE_ECMP_SUBGROUP_NONE)
			numbers[used++] = given[i];
	qsort(numbers, used, sizeof(*numbers), cmp_u32);
	for (i = 0; i < used; i++)
		if (i == 0 || numbers[i] != numbers[distinct - 1])
			numbers[distinct++] = numbers[i];
	if (distinct > FARE_ECMP_MAX_SUBGROUPS) {
		free(numbers);
		return -1;
	}

	/* EE-2: dense indexes in the order of the configured numbers */
	for (i = 0; i < m; i++) {
		uint32_t *found;

		if (given[i] == FARE_ECMP_SUBGROUP_NONE) {
			subgroup_of[i] = FARE_ECMP_SUBGROUP_NONE;
			continue;
		}
		found = bsearch(&given[i], numbers, distinct, sizeof(*numbers), cmp_u32);
		subgroup_of[i] = (uint32_t)(found - numbers);
	}
	free(numbers);
	return (int)distinct;
}

/* EE-4 ---------------------------------------------------------------- */

struct map_entry {
	uint64_t key; /* router ID << 16 | group ID: key order */
	uint32_t subgroup;
	uint32_t explicit_subgroup;
	bool present;
};

struct fare_ecmp_map {
	struct map_entry *entries; /* sorted by key */
	size_t count, cap;
	uint32_t k;
	/* 3 * k counters in one block: automatic keys per sub-group, and the
	 * rebalancing's keys to give and to take
	 */
	uint32_t *load, *give, *take;
	fare_ecmp_map_move_cb cb;
	void *cb_arg;
};

static uint64_t key_pack(struct fare_ecmp_key key)
{
	return (uint64_t)key.router_id << 16 | key.group_id;
}

static struct fare_ecmp_key key_unpack(uint64_t packed)
{
	struct fare_ecmp_key key = {
		.router_id = (uint32_t)(packed >> 16),
		.group_id = (uint16_t)packed,
	};

	return key;
}

/* true if found; *pos is its index, or where it would go */
static bool map_find(const struct fare_ecmp_map *map, uint64_t key, size_t *pos)
{
	size_t lo = 0, hi = map->count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (map->entries[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	*pos = lo;
	return lo < map->count && map->entries[lo].key == key;
}

static struct map_entry *map_get(const struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	size_t pos;

	return map_find(map, key_pack(key), &pos) ? &map->entries[pos] : NULL;
}

/* the entry of key, added (not present, no sub-group) if new */
static struct map_entry *map_get_or_insert(struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	uint64_t packed = key_pack(key);
	struct map_entry *e;
	size_t pos;

	if (map_find(map, packed, &pos))
		return &map->entries[pos];
	if (map->count == map->cap) {
		size_t cap = map->cap ? map->cap * 2 : 16;
		struct map_entry *grown = realloc(map->entries, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		map->entries = grown;
		map->cap = cap;
	}
	e = &map->entries[pos];
	memmove(e + 1, e, (map->count - pos) * sizeof(*e));
	map->count++;
	e->key = packed;
	e->subgroup = FARE_ECMP_SUBGROUP_NONE;
	e->explicit_subgroup = FARE_ECMP_SUBGROUP_NONE;
	e->present = false;
	return e;
}

static void map_delete(struct fare_ecmp_map *map, struct map_entry *e)
{
	size_t pos = (size_t)(e - map->entries);

	memmove(e, e + 1, (map->count - pos - 1) * sizeof(*e));
	map->count--;
}

static bool entry_pinned(const struct fare_ecmp_map *map, const struct map_entry *e)
{
	return e->explicit_subgroup < map->k;
}

static bool entry_automatic(const struct fare_ecmp_map *map, const struct map_entry *e)
{
	return e->present && !entry_pinned(map, e);
}

static void entry_move(struct fare_ecmp_map *map, struct map_entry *e, uint32_t to)
{
	if (e->subgroup == to)
		return;
	if (e->present && map->cb)
		map->cb(map->cb_arg, key_unpack(e->key), e->subgroup, to);
	e->subgroup = to;
}

/* EE-4: an automatic key not counted in the loads goes to the least loaded
 * sub-group, the lowest index on ties; prefer (its current sub-group)
 * when that one is least loaded too. Never moves another key.
 */
static void place(struct fare_ecmp_map *map, struct map_entry *e, uint32_t prefer)
{
	uint32_t g, best = 0;

	if (map->k == 0) {
		entry_move(map, e, FARE_ECMP_SUBGROUP_NONE);
		return;
	}
	for (g = 1; g < map->k; g++)
		if (map->load[g] < map->load[best])
			best = g;
	if (prefer < map->k && map->load[prefer] == map->load[best])
		best = prefer;
	map->load[best]++;
	entry_move(map, e, best);
}

/*
 * EE-4: restore the balance with the fewest moves. The automatic keys are
 * those counted in the loads and `unplaced` ones (sub-group >= k). Each
 * sub-group's target is q or q + 1 (q = keys / k); the q + 1 go first to
 * the sub-groups above q, lowest index first, then to the lowest-index
 * others. A sub-group above its target gives its lowest keys; those and
 * the unplaced keys fill the sub-groups below target in key order, lowest
 * index first.
 */
static void rebalance(struct fare_ecmp_map *map, size_t unplaced)
{
	uint64_t placed = 0, total, q;
	uint32_t g, extra, recv = 0;
	size_t i, moving = unplaced;

	if (map->k == 0) {
		for (i = 0; i < map->count; i++)
			if (map->entries[i].present)
				entry_move(map, &map->entries[i], FARE_ECMP_SUBGROUP_NONE);
		return;
	}
	for (g = 0; g < map->k; g++)
		placed += map->load[g];
	total = placed + unplaced;
	q = total / map->k;
	extra = (uint32_t)(total % map->k);

	for (g = 0; g < map->k; g++) /* take[] holds the targets for now */
		map->take[g] = (uint32_t)q;
	for (g = 0; g < map->k && extra; g++)
		if (map->load[g] > q) {
			map->take[g]++;
			extra--;
		}
	for (g = 0; g < map->k && extra; g++)
		if (map->load[g] <= q) {
			map->take[g]++;
			extra--;
		}
	for (g = 0; g < map->k; g++) {
		uint32_t target = map->take[g];

		map->give[g] = map->load[g] > target ? map->load[g] - target : 0;
		map->take[g] = map->load[g] < target ? target - map->load[g] : 0;
		moving += map->give[g];
	}

	while (recv < map->k && !map->take[recv])
		recv++;
	for (i = 0; i < map->count && moving; i++) {
		struct map_entry *e = &map->entries[i];

		if (!entry_automatic(map, e))
			continue;
		if (e->subgroup < map->k) {
			if (!map->give[e->subgroup])
				continue;
			map->give[e->subgroup]--;
			map->load[e->subgroup]--;
		}
		map->load[recv]++;
		map->take[recv]--;
		entry_move(map, e, recv);
		moving--;
		while (recv < map->k && !map->take[recv])
			recv++;
	}
}

/* the counters of k sub-groups, zeroed; NULL for k == 0 or no memory */
static uint32_t *counters_new(uint32_t k)
{
	return k ? calloc(3 * (size_t)k, sizeof(uint32_t)) : NULL;
}

static void map_set_counters(struct fare_ecmp_map *map, uint32_t *block, uint32_t k)
{
	free(map->load);
	map->k = k;
	map->load = block;
	map->give = block ? block + k : NULL;
	map->take = block ? block + 2 * (size_t)k : NULL;
}

struct fare_ecmp_map *fare_ecmp_map_new(uint32_t k)
{
	struct fare_ecmp_map *map;
	uint32_t *block;

	if (k > FARE_ECMP_MAX_SUBGROUPS)
		return NULL;
	map = calloc(1, sizeof(*map));
	block = counters_new(k);
	if (!map || (k && !block)) {
		free(map);
		free(block);
		return NULL;
	}
	map_set_counters(map, block, k);
	return map;
}

void fare_ecmp_map_free(struct fare_ecmp_map *map)
{
	if (!map)
		return;
	free(map->entries);
	free(map->load);
	free(map);
}

void fare_ecmp_map_set_move_cb(struct fare_ecmp_map *map, fare_ecmp_map_move_cb cb, void *arg)
{
	map->cb = cb;
	map->cb_arg = arg;
}

bool fare_ecmp_map_set_subgroups(struct fare_ecmp_map *map, uint32_t k)
{
	uint32_t *block;
	size_t i, unplaced = 0;

	if (k > FARE_ECMP_MAX_SUBGROUPS)
		return false;
	if (k == map->k)
		return true;
	block = counters_new(k);
	if (k && !block)
		return false;

	for (i = 0; i < map->count; i++) {
		struct map_entry *e = &map->entries[i];

		if (e->explicit_subgroup < k) {
			entry_move(map, e, e->explicit_subgroup);
		} else if (!e->present) {
			e->subgroup = FARE_ECMP_SUBGROUP_NONE;
		} else if (e->subgroup < k) {
			/* an automatic key whose sub-group survives stays;
			 * a key pinned before has its explicit index >= k
			 */
			block[e->subgroup]++;
		} else {
			unplaced++;
		}
	}
	map_set_counters(map, block, k);
	rebalance(map, unplaced);
	return true;
}

uint32_t fare_ecmp_map_subgroups(const struct fare_ecmp_map *map)
{
	return map->k;
}

static int subgroup_index(const struct fare_ecmp_map *map, const struct map_entry *e)
{
	return e && e->subgroup < map->k ? (int)e->subgroup : -1;
}

int fare_ecmp_map_lookup_or_add(struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	struct map_entry *e = map_get_or_insert(map, key);

	if (!e)
		return -1;
	if (!e->present) {
		/* placed before it is present: no callback for it */
		if (!entry_pinned(map, e))
			place(map, e, FARE_ECMP_SUBGROUP_NONE);
		e->present = true;
	}
	return subgroup_index(map, e);
}

int fare_ecmp_map_lookup(const struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	return subgroup_index(map, map_get(map, key));
}

bool fare_ecmp_map_remove(struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	struct map_entry *e = map_get(map, key);
	bool automatic;

	if (!e || !e->present)
		return false;
	automatic = entry_automatic(map, e);
	if (automatic && e->subgroup < map->k)
		map->load[e->subgroup]--;
	e->present = false;
	if (e->explicit_subgroup == FARE_ECMP_SUBGROUP_NONE)
		map_delete(map, e);
	else if (automatic)
		e->subgroup = FARE_ECMP_SUBGROUP_NONE; /* dormant explicit index */
	if (automatic)
		rebalance(map, 0);
	return true;
}

bool fare_ecmp_map_set_explicit(struct fare_ecmp_map *map, struct fare_ecmp_key key,
				uint32_t subgroup)
{
	struct map_entry *e;
	bool was_automatic;

	if (subgroup == FARE_ECMP_SUBGROUP_NONE)
		return false;
	e = map_get_or_insert(map, key);
	if (!e)
		return false;
	was_automatic = entry_automatic(map, e);
	e->explicit_subgroup = subgroup;

	if (!e->present) {
		e->subgroup = subgroup < map->k ? subgroup : FARE_ECMP_SUBGROUP_NONE;
	} else if (subgroup < map->k) {
		/* pinned: out of the balancing, like a removal */
		if (was_automatic && e->subgroup < map->k)
			map->load[e->subgroup]--;
		entry_move(map, e, subgroup);
		if (was_automatic)
			rebalance(map, 0);
	} else if (!was_automatic) {
		/* a dormant index: the pinned key becomes automatic */
		place(map, e, e->subgroup);
	}
	return true;
}

bool fare_ecmp_map_clear_explicit(struct fare_ecmp_map *map, struct fare_ecmp_key key)
{
	struct map_entry *e = map_get(map, key);
	bool was_pinned;

	if (!e || e->explicit_subgroup == FARE_ECMP_SUBGROUP_NONE)
		return false;
	was_pinned = entry_pinned(map, e);
	e->explicit_subgroup = FARE_ECMP_SUBGROUP_NONE;
	if (!e->present)
		map_delete(map, e);
	else if (was_pinned)
		place(map, e, e->subgroup);
	return true;
}

size_t fare_ecmp_map_count(const struct fare_ecmp_map *map)
{
	return map->count;
}

size_t fare_ecmp_map_dump(const struct fare_ecmp_map *map, struct fare_ecmp_map_entry *out,
			  size_t max)
{
	size_t i;

	for (i = 0; i < map->count && i < max; i++) {
		const struct map_entry *e = &map->entries[i];

		out[i].key = key_unpack(e->key);
		out[i].subgroup = e->subgroup;
		out[i].explicit_subgroup = e->explicit_subgroup;
		out[i].present = e->present;
		out[i].pinned = entry_pinned(map, e);
	}
	return map->count;
}

void fare_ecmp_map_loads(const struct fare_ecmp_map *map, uint32_t *automatic, uint32_t *pinned)
{
	size_t i;

	if (automatic && map->k)
		memcpy(automatic, map->load, map->k * sizeof(*automatic));
	if (!pinned)
		return;
	memset(pinned, 0, map->k * sizeof(*pinned));
	for (i = 0; i < map->count; i++)
		if (map->entries[i].present && entry_pinned(map, &map->entries[i]))
			pinned[map->entries[i].subgroup]++;
}

/* EE-1 ---------------------------------------------------------------- */

uint32_t fare_ecmp_port_seats(const uint32_t *weights, size_t m, uint32_t n, uint32_t *seats)
{
	return fare_apportion(weights, m, n, seats);
}

int fare_ecmp_port_members(const uint32_t *weights, size_t m, uint32_t n, int32_t *member_of_port)
{
	struct fare_apportion ap;
	uint32_t port = 0, k;
	int used = 0;
	size_t i;

	if (!fare_apportion_init(&ap, weights, m, n)) {
		for (k = 0; k < n; k++)
			member_of_port[k] = -1;
		return -1;
	}
	/* EE-1: ports in member order, so port k -> k-th usable member when
	 * the weights are equal and n <= m
	 */
	for (i = 0; i < m && port < n; i++) {
		uint32_t seats = fare_apportion_seats(&ap, i);

		if (seats)
			used++;
		while (seats--)
			member_of_port[port++] = (int32_t)i;
	}
	return used;
}
