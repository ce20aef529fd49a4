// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: keys of the shared nexthop groups (core/fare_nhg.h): the
 * canonical order, duplicates, hash and equality.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fare_nhg.h"

static struct fare_nhg_key *key_new(uint32_t vrf_id, uint16_t n)
{
	struct fare_nhg_key *key = calloc(1, fare_nhg_key_size(n));

	key->vrf_id = vrf_id;
	key->n = n;
	return key;
}

static void member_v4(struct fare_nhg_member *m, uint8_t last, uint32_t ifindex, uint32_t weight)
{
	memset(m, 0, sizeof(*m));
	m->family = FARE_NHG_IPV4;
	m->gate[0] = 10;
	m->gate[3] = last;
	m->ifindex = ifindex;
	m->weight = weight;
}

/* Two routes with the same next hops in another order share a key */
static void test_order_does_not_matter(void **state)
{
	struct fare_nhg_key *a = key_new(0, 3), *b = key_new(0, 3);

	(void)state;
	member_v4(&a->m[0], 1, 2, 5);
	member_v4(&a->m[1], 2, 3, 7);
	member_v4(&a->m[2], 3, 4, 9);
	member_v4(&b->m[0], 3, 4, 9);
	member_v4(&b->m[1], 1, 2, 5);
	member_v4(&b->m[2], 2, 3, 7);
	assert_true(fare_nhg_key_normalize(a));
	assert_true(fare_nhg_key_normalize(b));
	assert_true(fare_nhg_key_equal(a, b));
	assert_int_equal(fare_nhg_key_hash(a), fare_nhg_key_hash(b));
	assert_int_equal(a->m[0].gate[3], 1);
	assert_int_equal(a->m[2].gate[3], 3);
	free(a);
	free(b);
}

/* A change of one weight is another key with the same next hops */
static void test_weights(void **state)
{
	struct fare_nhg_key *a = key_new(0, 2), *b = key_new(0, 2);

	(void)state;
	member_v4(&a->m[0], 1, 2, 1);
	member_v4(&a->m[1], 2, 3, 1);
	member_v4(&b->m[0], 1, 2, 1);
	member_v4(&b->m[1], 2, 3, 2);
	assert_true(fare_nhg_key_normalize(a));
	assert_true(fare_nhg_key_normalize(b));
	assert_false(fare_nhg_key_equal(a, b));
	assert_true(fare_nhg_key_same_nexthops(a, b));
	assert_int_not_equal(fare_nhg_key_hash(a), fare_nhg_key_hash(b));
	free(a);
	free(b);
}

/* VRF, interface, family and member count tell keys apart */
static void test_apart(void **state)
{
	struct fare_nhg_key *a = key_new(0, 2), *b = key_new(5, 2), *c = key_new(0, 1),
			    *d = key_new(0, 2);

	(void)state;
	member_v4(&a->m[0], 1, 2, 1);
	member_v4(&a->m[1], 2, 3, 1);
	memcpy(b->m, a->m, 2 * sizeof(a->m[0]));
	member_v4(&c->m[0], 1, 2, 1);
	memcpy(d->m, a->m, 2 * sizeof(a->m[0]));
	d->m[1].ifindex = 9;
	assert_false(fare_nhg_key_same_nexthops(a, b)); /* VRF */
	assert_false(fare_nhg_key_same_nexthops(a, c)); /* count */
	assert_false(fare_nhg_key_same_nexthops(a, d)); /* interface */
	d->m[1].ifindex = 3;
	d->m[1].family = FARE_NHG_IPV6;
	assert_false(fare_nhg_key_same_nexthops(a, d)); /* family */
	free(a);
	free(b);
	free(c);
	free(d);
}

/* One next hop twice: the data plane would hold it once */
static void test_duplicate(void **state)
{
	struct fare_nhg_key *a = key_new(0, 3);

	(void)state;
	member_v4(&a->m[0], 1, 2, 1);
	member_v4(&a->m[1], 2, 3, 1);
	member_v4(&a->m[2], 1, 2, 3);
	assert_false(fare_nhg_key_normalize(a));
	/* the same gateway on another link: two hops */
	member_v4(&a->m[0], 1, 2, 1);
	member_v4(&a->m[1], 2, 3, 1);
	member_v4(&a->m[2], 1, 4, 3);
	assert_true(fare_nhg_key_normalize(a));
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_does_not_matter),
		cmocka_unit_test(test_weights),
		cmocka_unit_test(test_apart),
		cmocka_unit_test(test_duplicate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
