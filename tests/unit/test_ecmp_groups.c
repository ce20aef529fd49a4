// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: Enhanced ECMP uplink sub-groups (EE-2), the remote-group map
 * (EE-4) and the egress member of each ingress port (EE-1).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fare_ecmp_groups.h"
#include "prng.h"

#define MAP_CHECK(cond) assert_true(cond)
#include "ecmp_map_check.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NONE	      FARE_ECMP_SUBGROUP_NONE

/* EE-2 ---------------------------------------------------------------- */

/* EE-2: 128 links in groups of 4 */
static void test_layout_uniform(void **state)
{
	uint32_t sg[130];
	size_t i;

	(void)state;
	assert_int_equal(fare_ecmp_layout_uniform(128, 4, sg), 32);
	for (i = 0; i < 128; i++)
		assert_int_equal(sg[i], i / 4);

	/* the last group keeps what is left: 4 + 4 + 2 */
	assert_int_equal(fare_ecmp_layout_uniform(10, 4, sg), 3);
	assert_int_equal(sg[7], 1);
	assert_int_equal(sg[8], 2);
	assert_int_equal(sg[9], 2);

	assert_int_equal(fare_ecmp_layout_uniform(3, 8, sg), 1);
	assert_int_equal(sg[2], 0);
	assert_int_equal(fare_ecmp_layout_uniform(5, 1, sg), 5);
	assert_int_equal(sg[4], 4);
	assert_int_equal(fare_ecmp_layout_uniform(0, 4, NULL), 0);
	assert_int_equal(fare_ecmp_layout_uniform(4, 0, sg), -1);
	assert_int_equal(fare_ecmp_layout_uniform(4, 2, NULL), -1);
	assert_int_equal(fare_ecmp_layout_uniform((size_t)FARE_ECMP_MAX_SUBGROUPS + 1, 1, sg), -1);
}

/* EE-2: uplinks in natural name order, swp2 before swp10 */
static void test_ifname_order(void **state)
{
	const char *names[] = { "swp10", "swp2", "swp12", "swp1", "swp11", "swp3",
				"swp9",	 "swp4", "swp8",  "swp5", "swp7",  "swp6" };
	const char *expected[] = { "swp1", "swp2", "swp3", "swp4",  "swp5",  "swp6",
				   "swp7", "swp8", "swp9", "swp10", "swp11", "swp12" };
	const char *pairs[][2] = {
		/* a strictly before b */
		{ "swp2", "swp10" },   { "swp1s2", "swp1s10" }, { "swp1s10", "swp2s1" },
		{ "eth0", "swp1" },    { "swp", "swp1" },	{ "swp1", "swp1s0" },
		{ "swp9", "swpa" },    { "to-s2", "to-s10" },	{ "swp1", "swp01" },
		{ "swp01", "swp001" }, { "swp1", "swp2" },	{ "", "a" },
		{ "a9b", "a10a" },     { "99", "100" },
	};
	uint32_t sg[ARRAY_SIZE(names)];
	const char *key = "swp10", **found;
	size_t i;

	(void)state;
	qsort(names, ARRAY_SIZE(names), sizeof(names[0]), fare_ecmp_ifname_qcmp);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		assert_string_equal(names[i], expected[i]);
	found = bsearch(&key, names, ARRAY_SIZE(names), sizeof(names[0]), fare_ecmp_ifname_qcmp);
	assert_non_null(found);
	assert_int_equal(found - names, 9);
	/* 12 uplinks in sub-groups of 4: swp1-4, swp5-8, swp9-12 */
	assert_int_equal(fare_ecmp_layout_uniform(ARRAY_SIZE(names), 4, sg), 3);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		assert_int_equal(sg[i], i / 4);

	for (i = 0; i < ARRAY_SIZE(pairs); i++) {
		assert_int_equal(fare_ecmp_ifname_cmp(pairs[i][0], pairs[i][1]), -1);
		assert_int_equal(fare_ecmp_ifname_cmp(pairs[i][1], pairs[i][0]), 1);
		assert_int_equal(fare_ecmp_ifname_cmp(pairs[i][0], pairs[i][0]), 0);
	}
}

/* EE-2: the operator's numbers become dense indexes, in order */
static void test_layout_explicit(void **state)
{
	const uint32_t given[] = { 30, 10, NONE, 70, 10, 30, 70, 70 };
	const uint32_t expected[] = { 1, 0, NONE, 2, 0, 1, 2, 2 };
	uint32_t sg[ARRAY_SIZE(given)], inplace[ARRAY_SIZE(given)];
	const uint32_t none[] = { NONE, NONE };

	(void)state;
	assert_int_equal(fare_ecmp_layout_explicit(ARRAY_SIZE(given), given, sg), 3);
	assert_memory_equal(sg, expected, sizeof(expected));

	memcpy(inplace, given, sizeof(given));
	assert_int_equal(fare_ecmp_layout_explicit(ARRAY_SIZE(given), inplace, inplace), 3);
	assert_memory_equal(inplace, expected, sizeof(expected));

	assert_int_equal(fare_ecmp_layout_explicit(2, none, sg), 0);
	assert_int_equal(sg[0], NONE);
	assert_int_equal(sg[1], NONE);
	assert_int_equal(fare_ecmp_layout_explicit(0, NULL, NULL), 0);
	assert_int_equal(fare_ecmp_layout_explicit(2, NULL, sg), -1);
	assert_int_equal(fare_ecmp_layout_explicit(2, given, NULL), -1);
}

/* EE-4 ---------------------------------------------------------------- */

/* EE-4: adds fill the sub-groups round robin; removals re-balance */
static void test_map_basic(void **state)
{
	struct fare_ecmp_map *map = fare_ecmp_map_new(4);
	struct map_moves mv = { 0 };
	uint16_t g;

	(void)state;
	assert_non_null(map);
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (g = 1; g <= 8; g++)
		assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(0x0a000001, g)),
				 (g - 1) % 4);
	/* again: no change */
	for (g = 1; g <= 8; g++)
		assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(0x0a000001, g)),
				 (g - 1) % 4);
	assert_int_equal(fare_ecmp_map_count(map), 8);
	assert_int_equal(mv.count, 0);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(0x0a000001, 9)), -1);
	assert_int_equal(fare_ecmp_map_count(map), 8);

	/* loads 2,2,2,2 -> remove group 1 (sub-group 0): 1,2,2,2, balanced */
	assert_true(fare_ecmp_map_remove(map, map_key(0x0a000001, 1)));
	assert_false(fare_ecmp_map_remove(map, map_key(0x0a000001, 1)));
	assert_int_equal(mv.count, 0);
	/* remove group 5 too: 0,2,2,2 -> 6 keys, 2 sub-groups keep 2: the
	 * lowest-index ones, 1 and 2; sub-group 3 hands its lowest key,
	 * group 4, to sub-group 0: 1,2,2,1
	 */
	assert_true(fare_ecmp_map_remove(map, map_key(0x0a000001, 5)));
	assert_int_equal(mv.count, 1);
	assert_true(map_key_equal(mv.key, map_key(0x0a000001, 4)));
	assert_int_equal(mv.from, 3);
	assert_int_equal(mv.to, 0);
	map_check(map);
	/* a new key goes to the least loaded, lowest index */
	assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(0x0a000002, 1)), 0);
	assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(0x0a000002, 2)), 3);
	assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(0x0a000002, 3)), 0);
	map_check(map);
	fare_ecmp_map_free(map);
	fare_ecmp_map_free(NULL);

	assert_null(fare_ecmp_map_new(FARE_ECMP_MAX_SUBGROUPS + 1));
}

/* EE-4: no sub-groups: keys are kept, mapped to none, placed later */
static void test_map_no_subgroups(void **state)
{
	struct fare_ecmp_map *map = fare_ecmp_map_new(0);
	struct map_moves mv = { 0 };
	uint16_t g;

	(void)state;
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (g = 1; g <= 5; g++)
		assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(1, g)), -1);
	map_check(map);
	assert_true(fare_ecmp_map_set_subgroups(map, 2));
	assert_int_equal(mv.count, 5);
	assert_int_equal(map_check(map), 1);
	/* in key order, the lowest index first: 3 then 2 */
	for (g = 1; g <= 5; g++)
		assert_int_equal(fare_ecmp_map_lookup(map, map_key(1, g)), g <= 3 ? 0 : 1);
	assert_true(fare_ecmp_map_set_subgroups(map, 0));
	assert_int_equal(mv.count, 10);
	assert_int_equal(mv.to, NONE);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(1, 1)), -1);
	assert_false(fare_ecmp_map_set_subgroups(map, FARE_ECMP_MAX_SUBGROUPS + 1));
	map_check(map);
	fare_ecmp_map_free(map);
}

/* a key from a pool: 64 router IDs times 8 groups */
static struct fare_ecmp_key random_key(struct prng *prng)
{
	uint64_t r = prng_next(prng);

	return map_key(0x0aff0000u + (uint32_t)(r % 64), (uint16_t)(1 + (r >> 8) % 8));
}

/* one random operation (mostly adds and removes) with its EE-4 checks */
static int random_op(struct fare_ecmp_map *map, struct prng *prng, struct map_moves *mv,
		     bool with_explicit)
{
	struct fare_ecmp_key key = random_key(prng);
	uint32_t k = fare_ecmp_map_subgroups(map);
	uint64_t op = prng_next(prng) % 100;

	if (op < 55)
		return map_op_checked(map, mv, MAP_OP_ADD, key, 0);
	if (op < 90 || !with_explicit)
		return map_op_checked(map, mv, MAP_OP_REMOVE, key, 0);
	if (op < 96)
		return map_op_checked(map, mv, MAP_OP_SET_EXPLICIT, key,
				      (uint32_t)(prng_next(prng) % (k + 2)));
	return map_op_checked(map, mv, MAP_OP_CLEAR_EXPLICIT, key, 0);
}

static void run_random(uint64_t seed, uint32_t k, size_t ops, bool with_explicit, int *trace)
{
	struct prng prng = { .state = seed };
	struct fare_ecmp_map *map = fare_ecmp_map_new(k);
	struct map_moves mv = { 0 };
	size_t i;

	assert_non_null(map);
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (i = 0; i < ops; i++) {
		int ret = random_op(map, &prng, &mv, with_explicit);

		if (trace)
			trace[i] = ret;
	}
	fare_ecmp_map_free(map);
}

/* EE-4: balance and minimal moves under random adds and removes */
static void test_map_random(void **state)
{
	static const uint32_t ks[] = { 1, 2, 3, 7, 16 };
	size_t i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(ks); i++)
		run_random(0x9e3779b97f4a7c15ull + i, ks[i], 4000, false, NULL);
}

/* EE-4: the same sequence gives the same map, call by call */
static void test_map_deterministic(void **state)
{
	enum { OPS = 3000 };
	static int a[OPS], b[OPS];
	static struct map_snapshot sa, sb;
	struct prng pa = { .state = 42 }, pb = { .state = 42 };
	struct fare_ecmp_map *ma = fare_ecmp_map_new(5), *mb = fare_ecmp_map_new(5);
	struct map_moves mva = { 0 }, mvb = { 0 };
	size_t i;

	(void)state;
	fare_ecmp_map_set_move_cb(ma, map_on_move, &mva);
	fare_ecmp_map_set_move_cb(mb, map_on_move, &mvb);
	run_random(7, 5, OPS, true, a);
	run_random(7, 5, OPS, true, b);
	assert_memory_equal(a, b, sizeof(a));

	/* and the same dumps, including after a resize */
	for (i = 0; i < OPS; i++) {
		random_op(ma, &pa, &mva, true);
		random_op(mb, &pb, &mvb, true);
	}
	fare_ecmp_map_set_subgroups(ma, 3);
	fare_ecmp_map_set_subgroups(mb, 3);
	map_snapshot(ma, &sa);
	map_snapshot(mb, &sb);
	assert_true(map_snapshot_equal(&sa, &sb));
	assert_int_equal(mva.count, mvb.count);
	fare_ecmp_map_free(ma);
	fare_ecmp_map_free(mb);
}

/* EE-4: explicit entries win, are not balanced, and outlive removal */
static void test_map_explicit(void **state)
{
	struct fare_ecmp_map *map = fare_ecmp_map_new(3);
	struct map_moves mv = { 0 };
	uint32_t loads[3], pinned[3];
	uint16_t g;

	(void)state;
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (g = 1; g <= 6; g++)
		fare_ecmp_map_lookup_or_add(map, map_key(1, g)); /* 0 1 2 0 1 2 */

	/* pin group 1 (automatic in 0) to 2: loads 1,2,2 -> balanced */
	assert_true(fare_ecmp_map_set_explicit(map, map_key(1, 1), 2));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(1, 1)), 2);
	assert_int_equal(mv.count, 1); /* the key itself */
	fare_ecmp_map_loads(map, loads, pinned);
	assert_int_equal(loads[0], 1);
	assert_int_equal(loads[2], 2);
	assert_int_equal(pinned[2], 1);
	map_check(map);

	/* pin group 4 (the other in 0): 0,2,2 -> one key moves to 0 */
	assert_true(fare_ecmp_map_set_explicit(map, map_key(1, 4), 1));
	assert_int_equal(mv.count, 3);
	assert_int_equal(mv.to, 0);
	assert_int_equal(map_check(map), 1);

	/* removal keeps the operator's entry; the key comes back pinned */
	assert_true(fare_ecmp_map_remove(map, map_key(1, 4)));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(1, 4)), 1);
	assert_int_equal(fare_ecmp_map_count(map), 6);
	fare_ecmp_map_loads(map, NULL, pinned);
	assert_int_equal(pinned[1], 0);
	assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(1, 4)), 1);

	/* an entry for a key not seen yet */
	assert_true(fare_ecmp_map_set_explicit(map, map_key(9, 9), 0));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(9, 9)), 0);
	assert_int_equal(fare_ecmp_map_lookup_or_add(map, map_key(9, 9)), 0);
	map_check(map);

	/* cleared: back to automatic, no other key moves */
	mv.count = 0;
	assert_true(fare_ecmp_map_clear_explicit(map, map_key(1, 1)));
	assert_false(fare_ecmp_map_clear_explicit(map, map_key(1, 1)));
	assert_false(fare_ecmp_map_clear_explicit(map, map_key(1, 2)));
	assert_true(mv.count <= 1);
	map_check(map);

	/* cleared for a key not present: the entry goes */
	assert_true(fare_ecmp_map_remove(map, map_key(9, 9)));
	assert_int_equal(fare_ecmp_map_count(map), 7);
	assert_true(fare_ecmp_map_clear_explicit(map, map_key(9, 9)));
	assert_int_equal(fare_ecmp_map_count(map), 6);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(9, 9)), -1);

	assert_false(fare_ecmp_map_set_explicit(map, map_key(1, 2), NONE));
	fare_ecmp_map_free(map);
}

/* EE-4: an explicit index that does not exist is dormant until it does */
static void test_map_dormant(void **state)
{
	struct fare_ecmp_map *map = fare_ecmp_map_new(2);
	static struct map_snapshot s;
	uint16_t g;

	(void)state;
	for (g = 1; g <= 4; g++)
		fare_ecmp_map_lookup_or_add(map, map_key(2, g)); /* 0 1 0 1 */
	assert_true(fare_ecmp_map_set_explicit(map, map_key(2, 1), 3));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(2, 1)), 0); /* automatic still */
	map_snapshot(map, &s);
	assert_false(s.entries[0].pinned);
	assert_int_equal(s.entries[0].explicit_subgroup, 3);
	assert_int_equal(map_check(map), 0);

	assert_true(fare_ecmp_map_set_subgroups(map, 4));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(2, 1)), 3);
	map_snapshot(map, &s);
	assert_true(s.entries[0].pinned);
	map_check(map);

	/* the index goes away again: automatic, placed */
	assert_true(fare_ecmp_map_set_subgroups(map, 3));
	assert_true(fare_ecmp_map_lookup(map, map_key(2, 1)) >= 0);
	assert_true(fare_ecmp_map_lookup(map, map_key(2, 1)) < 3);
	map_check(map);

	/* a pinned key given a dormant index becomes automatic */
	assert_true(fare_ecmp_map_set_explicit(map, map_key(2, 2), 1));
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(2, 2)), 1);
	assert_true(fare_ecmp_map_set_explicit(map, map_key(2, 2), 10));
	map_check(map);
	fare_ecmp_map_free(map);
}

static void test_map_resize(void **state)
{
	static const uint32_t sizes[] = { 8, 5, 6, 1, 3, 0, 4, 12, 2, 9, 9, 7 };
	struct prng prng = { .state = 2024 };
	struct fare_ecmp_map *map = fare_ecmp_map_new(4);
	struct map_moves mv = { 0 };
	size_t round, i;

	(void)state;
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (round = 0; round < 20; round++)
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			size_t op;

			for (op = 0; op < 40; op++)
				random_op(map, &prng, &mv, true);
			map_op_checked(map, &mv, MAP_OP_RESIZE, map_key(0, 0), sizes[i]);
		}

	/* growing 2 -> 4 with 8 keys: the lowest two keys of each old
	 * sub-group move, 4 moves, and none for 4 -> 4
	 */
	fare_ecmp_map_free(map);
	map = fare_ecmp_map_new(2);
	fare_ecmp_map_set_move_cb(map, map_on_move, &mv);
	for (i = 1; i <= 8; i++)
		fare_ecmp_map_lookup_or_add(map, map_key(3, (uint16_t)i)); /* 0 1 0 1 0 1 0 1 */
	mv.count = 0;
	assert_true(fare_ecmp_map_set_subgroups(map, 4));
	assert_int_equal(mv.count, 4);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 1)), 2);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 2)), 2);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 3)), 3);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 4)), 3);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 5)), 0);
	assert_int_equal(fare_ecmp_map_lookup(map, map_key(3, 6)), 1);
	assert_true(fare_ecmp_map_set_subgroups(map, 4));
	assert_int_equal(mv.count, 4);
	map_check(map);
	fare_ecmp_map_free(map);
}

/* EE-4 at scale: 10,000 keys over 32 sub-groups */
static void test_map_large(void **state)
{
	struct fare_ecmp_map *map = fare_ecmp_map_new(32);
	struct prng prng = { .state = 5 };
	uint32_t loads[32], g;
	size_t i;

	(void)state;
	for (i = 0; i < 10000; i++)
		assert_true(fare_ecmp_map_lookup_or_add(map, map_key((uint32_t)prng_next(&prng) | 1,
								     (uint16_t)(i % 4 + 1))) >= 0);
	assert_true(fare_ecmp_map_count(map) > 9900);
	for (i = 0; i < 5000; i++) {
		struct fare_ecmp_map_entry e;

		fare_ecmp_map_dump(map, &e, 1);
		assert_true(fare_ecmp_map_remove(map, e.key));
	}
	assert_true(fare_ecmp_map_set_subgroups(map, 24));
	fare_ecmp_map_loads(map, loads, NULL);
	for (g = 1; g < 24; g++)
		assert_true(loads[g] + 1 >= loads[0] && loads[g] <= loads[0] + 1);
	fare_ecmp_map_free(map);
}

/* EE-1 ---------------------------------------------------------------- */

static void check_ports(const uint32_t *weights, size_t m, uint32_t n, const int32_t *expected,
			int used)
{
	int32_t ports[64];
	uint32_t seats[64];
	uint32_t k;

	assert_true(n <= ARRAY_SIZE(ports) && m <= ARRAY_SIZE(seats));
	assert_int_equal(fare_ecmp_port_members(weights, m, n, ports), used);
	for (k = 0; k < n; k++)
		assert_int_equal(ports[k], expected[k]);
	assert_int_equal(fare_ecmp_port_seats(weights, m, n, seats), used < 0 ? 0 : n);
}

static void test_ports_exact(void **state)
{
	const uint32_t w1111[] = { 1, 1, 1, 1 }, w1122[] = { 1, 1, 2, 2 }, w13[] = { 1, 3 };
	const uint32_t w0101[] = { 0, 1, 0, 1 }, w0000[] = { 0, 0, 0 };
	const uint32_t w_big[] = { UINT32_MAX, UINT32_MAX, UINT32_MAX - 1 };

	(void)state;
	check_ports(w1111, 4, 4, (const int32_t[]){ 0, 1, 2, 3 }, 4);
	check_ports(w1122, 4, 6, (const int32_t[]){ 0, 1, 2, 2, 3, 3 }, 4);
	check_ports(w13, 2, 4, (const int32_t[]){ 0, 1, 1, 1 }, 2);
	/* EE-1: n < m equal weights: port k -> k-th member */
	check_ports(w1111, 4, 2, (const int32_t[]){ 0, 1 }, 2);
	check_ports(w1111, 4, 3, (const int32_t[]){ 0, 1, 2 }, 3);
	/* n > m: 5 ports on 4 members, the extra port to the lowest index */
	check_ports(w1111, 4, 5, (const int32_t[]){ 0, 0, 1, 2, 3 }, 4);
	/* zero weights are skipped: port k -> k-th usable member */
	check_ports(w0101, 4, 2, (const int32_t[]){ 1, 3 }, 2);
	check_ports(w0101, 4, 3, (const int32_t[]){ 1, 1, 3 }, 2);
	/* all zero: -1 everywhere, the caller hashes */
	check_ports(w0000, 3, 3, (const int32_t[]){ -1, -1, -1 }, -1);
	check_ports(w0000, 0, 2, (const int32_t[]){ -1, -1 }, -1);
	check_ports(w1111, 4, 0, NULL, 0);
	/* 1:3 with 2 ports: quotas 0.5 and 1.5, remainders tie: member 0 */
	check_ports(w13, 2, 2, (const int32_t[]){ 0, 1 }, 2);
	/* no overflow with the largest weights */
	check_ports(w_big, 3, 3, (const int32_t[]){ 0, 1, 2 }, 3);
}

/* EE-1: every member gets the floor or the ceiling of its quota n*w/W,
 * weight 0 none, n in all; ports sorted by member
 */
static void test_ports_quota(void **state)
{
	struct prng prng = { .state = 77 };
	uint32_t w[16], seats[16];
	int32_t ports[64];
	size_t round;

	(void)state;
	for (round = 0; round < 20000; round++) {
		size_t m = 1 + prng_next(&prng) % 16, i;
		uint32_t n = (uint32_t)(prng_next(&prng) % 65), k, count[16] = { 0 };
		uint64_t total = 0;
		int used;

		for (i = 0; i < m; i++) {
			w[i] = prng_next(&prng) % 3 ? (uint32_t)(prng_next(&prng) % 9) : 0;
			if (round % 7 == 0)
				w[i] = (uint32_t)prng_next(&prng);
			total += w[i];
		}
		used = fare_ecmp_port_members(w, m, n, ports);
		if (!total) {
			assert_int_equal(used, -1);
			continue;
		}
		assert_int_equal(fare_ecmp_port_seats(w, m, n, seats), n);
		for (k = 0; k < n; k++) {
			assert_true(ports[k] >= 0 && (size_t)ports[k] < m);
			assert_true(w[ports[k]] > 0);
			if (k)
				assert_true(ports[k - 1] <= ports[k]);
			count[ports[k]]++;
		}
		for (i = 0; i < m; i++) {
			uint64_t lo = (uint64_t)n * w[i] / total;
			uint64_t hi = lo + ((uint64_t)n * w[i] % total != 0);

			assert_int_equal(count[i], seats[i]);
			assert_true(seats[i] >= lo && seats[i] <= hi);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_uniform),	  cmocka_unit_test(test_layout_explicit),
		cmocka_unit_test(test_ifname_order),	  cmocka_unit_test(test_map_basic),
		cmocka_unit_test(test_map_no_subgroups),  cmocka_unit_test(test_map_random),
		cmocka_unit_test(test_map_deterministic), cmocka_unit_test(test_map_explicit),
		cmocka_unit_test(test_map_dormant),	  cmocka_unit_test(test_map_resize),
		cmocka_unit_test(test_map_large),	  cmocka_unit_test(test_ports_exact),
		cmocka_unit_test(test_ports_quota),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
