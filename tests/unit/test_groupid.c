// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: Enhanced ECMP GroupID extended community codec, value
 * classes and display text (EE-3).
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <string.h>

#include "fare_groupid.h"
#include "fare_pathbw.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* 10.255.0.3 as a host-order integer */
#define RID_10_255_0_3 0x0aff0003u

/* EE-3: the known vector, exact octets */
static void test_encode_known_vector(void **state)
{
	static const uint8_t expected[FARE_GROUPID_SIZE] = {
		0x83, 0x47, 0x0a, 0xff, 0x00, 0x03, 0x00, 0x02,
	};
	uint8_t ec[FARE_GROUPID_SIZE];

	(void)state;
	fare_groupid_encode(ec, FARE_GROUPID_SUBTYPE_DEFAULT, RID_10_255_0_3, 2);
	assert_memory_equal(ec, expected, FARE_GROUPID_SIZE);
}

/* EE-3: router ID and group ID are read in network byte order */
static void test_decode_byte_order(void **state)
{
	static const uint8_t ec[FARE_GROUPID_SIZE] = {
		0x83, 0x47, 0xc0, 0xa8, 0x01, 0x02, 0x12, 0x34,
	};
	struct fare_groupid gid;

	(void)state;
	assert_int_equal(fare_groupid_decode(ec, sizeof(ec), 0x47, &gid), FARE_GROUPID_VALID);
	assert_int_equal(gid.subtype, 0x47);
	assert_int_equal(gid.router_id, 0xc0a80102u);
	assert_int_equal(gid.group_id, 0x1234);
	assert_int_equal(gid.class, FARE_GROUPID_VALID);
	/* the decoder needs no output */
	assert_int_equal(fare_groupid_decode(ec, sizeof(ec), 0x47, NULL), FARE_GROUPID_VALID);
}

static void test_round_trip(void **state)
{
	static const uint32_t rids[] = { 1, RID_10_255_0_3, 0x7fffffffu, 0x80000000u, UINT32_MAX };
	static const uint16_t groups[] = { 1, 2, 255, 256, 0x8000, UINT16_MAX };
	static const uint8_t subtypes[] = { FARE_GROUPID_SUBTYPE_DEFAULT, 0x00, 0x31, 0xff };
	uint8_t ec[FARE_GROUPID_SIZE];
	struct fare_groupid gid;
	size_t r, g, s;

	(void)state;
	for (r = 0; r < ARRAY_SIZE(rids); r++)
		for (g = 0; g < ARRAY_SIZE(groups); g++)
			for (s = 0; s < ARRAY_SIZE(subtypes); s++) {
				fare_groupid_encode(ec, subtypes[s], rids[r], groups[g]);
				memset(&gid, 0xa5, sizeof(gid));
				assert_int_equal(fare_groupid_decode(ec, sizeof(ec), subtypes[s],
								     &gid),
						 FARE_GROUPID_VALID);
				assert_int_equal(ec[0], FARE_GROUPID_TYPE);
				assert_int_equal(gid.subtype, subtypes[s]);
				assert_int_equal(gid.router_id, rids[r]);
				assert_int_equal(gid.group_id, groups[g]);
				assert_true(fare_groupid_class_usable(gid.class));
			}
}

/* a decode that must not touch its output */
static void check_untouched(const uint8_t *ec, size_t len, uint8_t subtype,
			    enum fare_groupid_class expected)
{
	struct fare_groupid gid, canary;

	memset(&gid, 0x5a, sizeof(gid));
	canary = gid;
	assert_int_equal(fare_groupid_decode(ec, len, subtype, &gid), expected);
	assert_memory_equal(&gid, &canary, sizeof(gid));
	assert_false(fare_groupid_class_usable(expected));
}

/* Wrong lengths: an IPv6-address-specific community is 20 octets */
static void test_bad_length(void **state)
{
	uint8_t buf[20];
	size_t lens[] = { 0, 1, 7, 9, 16, 20 };
	size_t i;

	(void)state;
	memset(buf, 0, sizeof(buf));
	fare_groupid_encode(buf, FARE_GROUPID_SUBTYPE_DEFAULT, RID_10_255_0_3, 2);
	for (i = 0; i < ARRAY_SIZE(lens); i++)
		check_untouched(buf, lens[i], FARE_GROUPID_SUBTYPE_DEFAULT, FARE_GROUPID_BAD_LENGTH);
	check_untouched(NULL, FARE_GROUPID_SIZE, FARE_GROUPID_SUBTYPE_DEFAULT,
			FARE_GROUPID_BAD_LENGTH);
	/* the length is checked first: a short foreign value is a bad length */
	buf[0] = 0x00;
	check_untouched(buf, 7, FARE_GROUPID_SUBTYPE_DEFAULT, FARE_GROUPID_BAD_LENGTH);
}

/* Other types (flowspec 0x80-0x82, Path Bandwidth 0x00/0x40, opaque) and
 * other sub-types are not GroupIDs
 */
static void test_not_ours(void **state)
{
	static const uint8_t types[] = { 0x00, 0x01, 0x02, 0x03, 0x40, 0x43,
					 0x80, 0x81, 0x82, 0x84, 0x8f, 0xc3 };
	uint8_t ec[FARE_GROUPID_SIZE];
	size_t i;

	(void)state;
	fare_groupid_encode(ec, FARE_GROUPID_SUBTYPE_DEFAULT, RID_10_255_0_3, 2);
	check_untouched(ec, sizeof(ec), 0x48, FARE_GROUPID_NOT_OURS);
	check_untouched(ec, sizeof(ec), FARE_PATHBW_SUBTYPE_DEFAULT, FARE_GROUPID_NOT_OURS);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		ec[0] = types[i];
		check_untouched(ec, sizeof(ec), FARE_GROUPID_SUBTYPE_DEFAULT, FARE_GROUPID_NOT_OURS);
	}

	/* a Path Bandwidth community with the GroupID sub-type */
	fare_pathbw_encode(ec, true, FARE_GROUPID_SUBTYPE_DEFAULT, 65001, 1.25e10f);
	check_untouched(ec, sizeof(ec), FARE_GROUPID_SUBTYPE_DEFAULT, FARE_GROUPID_NOT_OURS);
}

/* EE-3: group 0 is reserved ("no group"); router ID 0 is invalid and
 * wins over group 0. The value is still filled in, for displays.
 */
static void test_reserved_values(void **state)
{
	uint8_t ec[FARE_GROUPID_SIZE];
	struct fare_groupid gid;

	(void)state;
	fare_groupid_encode(ec, FARE_GROUPID_SUBTYPE_DEFAULT, RID_10_255_0_3, FARE_GROUPID_NONE);
	assert_int_equal(fare_groupid_decode(ec, sizeof(ec), FARE_GROUPID_SUBTYPE_DEFAULT, &gid),
			 FARE_GROUPID_NO_GROUP);
	assert_int_equal(gid.class, FARE_GROUPID_NO_GROUP);
	assert_int_equal(gid.router_id, RID_10_255_0_3);
	assert_int_equal(gid.group_id, 0);
	assert_false(fare_groupid_class_usable(gid.class));

	fare_groupid_encode(ec, FARE_GROUPID_SUBTYPE_DEFAULT, 0, 7);
	assert_int_equal(fare_groupid_decode(ec, sizeof(ec), FARE_GROUPID_SUBTYPE_DEFAULT, &gid),
			 FARE_GROUPID_ROUTER_ID_ZERO);
	assert_int_equal(gid.class, FARE_GROUPID_ROUTER_ID_ZERO);
	assert_int_equal(gid.group_id, 7);
	assert_false(fare_groupid_class_usable(gid.class));

	fare_groupid_encode(ec, FARE_GROUPID_SUBTYPE_DEFAULT, 0, FARE_GROUPID_NONE);
	assert_int_equal(fare_groupid_decode(ec, sizeof(ec), FARE_GROUPID_SUBTYPE_DEFAULT, &gid),
			 FARE_GROUPID_ROUTER_ID_ZERO);
}

static void test_class_names(void **state)
{
	(void)state;
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_VALID), "valid");
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_NOT_OURS), "not-ours");
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_BAD_LENGTH), "bad-length");
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_NO_GROUP), "no-group");
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_ROUTER_ID_ZERO), "router-id-zero");
	assert_string_equal(fare_groupid_class_name(FARE_GROUPID_CLASS_MAX), "unknown");
	assert_string_equal(fare_groupid_class_name((enum fare_groupid_class)99), "unknown");
	assert_true(fare_groupid_class_usable(FARE_GROUPID_VALID));
	assert_false(fare_groupid_class_usable(FARE_GROUPID_CLASS_MAX));
}

static void check_format(uint32_t rid, uint16_t group, enum fare_groupid_class class,
			 const char *expected)
{
	struct fare_groupid gid = {
		.subtype = FARE_GROUPID_SUBTYPE_DEFAULT,
		.router_id = rid,
		.group_id = group,
		.class = class,
	};
	char buf[64];

	assert_int_equal(fare_groupid_format(buf, sizeof(buf), &gid), strlen(expected));
	assert_string_equal(buf, expected);
}

static void test_format(void **state)
{
	(void)state;
	check_format(RID_10_255_0_3, 2, FARE_GROUPID_VALID, "EG:10.255.0.3:2");
	check_format(UINT32_MAX, UINT16_MAX, FARE_GROUPID_VALID, "EG:255.255.255.255:65535");
	check_format(0x01000000u, 1, FARE_GROUPID_VALID, "EG:1.0.0.0:1");
	check_format(RID_10_255_0_3, 0, FARE_GROUPID_NO_GROUP, "EG:10.255.0.3:0(no-group)");
	check_format(0, 2, FARE_GROUPID_ROUTER_ID_ZERO, "EG:0.0.0.0:2(router-id-zero)");
}

/* Bounded: never past len, always terminated, the full length returned */
static void test_format_bounded(void **state)
{
	static const char full[] = "EG:255.255.255.255:65535(router-id-zero)";
	struct fare_groupid gid = {
		.router_id = UINT32_MAX,
		.group_id = UINT16_MAX,
		.class = FARE_GROUPID_ROUTER_ID_ZERO,
	};
	char buf[sizeof(full) + 8];
	size_t len;

	(void)state;
	assert_int_equal(fare_groupid_format(NULL, 0, &gid), strlen(full));
	for (len = 0; len <= sizeof(full) + 1; len++) {
		memset(buf, '#', sizeof(buf));
		assert_int_equal(fare_groupid_format(buf, len, &gid), strlen(full));
		if (len) {
			assert_int_equal(strlen(buf),
					 len - 1 < strlen(full) ? len - 1 : strlen(full));
			assert_memory_equal(buf, full, strlen(buf));
		}
		for (size_t i = len; i < sizeof(buf); i++)
			assert_int_equal(buf[i], '#');
	}
}

/* EE-3: the default sub-type differs from Path Bandwidth's, and from every
 * sub-type FRR 10.3 decodes under the experimental types 0x80-0x82
 */
static void test_default_subtype(void **state)
{
	static const uint8_t frr_experimental[] = { 0x00, 0x02, 0x06, 0x07, 0x08, 0x09, 0x0d };
	size_t i;

	(void)state;
	assert_int_equal(FARE_GROUPID_TYPE, 0x83);
	assert_true(FARE_GROUPID_TYPE >= 0x80 && FARE_GROUPID_TYPE <= 0x8f);
	assert_int_not_equal(FARE_GROUPID_SUBTYPE_DEFAULT, FARE_PATHBW_SUBTYPE_DEFAULT);
	for (i = 0; i < ARRAY_SIZE(frr_experimental); i++)
		assert_int_not_equal(FARE_GROUPID_SUBTYPE_DEFAULT, frr_experimental[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_known_vector),
		cmocka_unit_test(test_decode_byte_order),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_not_ours),
		cmocka_unit_test(test_reserved_values),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_bounded),
		cmocka_unit_test(test_default_subtype),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
