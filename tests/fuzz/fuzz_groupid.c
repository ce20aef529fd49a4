// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: the Enhanced ECMP GroupID extended community codec and
 * its display text (fare_groupid.[ch], EE-3).
 *
 * Input: sub-type (1 byte), a length (1 byte, 0 to 23), that many octets
 * (the community as bgpd would hand it, exactly that long on the heap), a
 * router ID (4 bytes), a group ID (2 bytes), a buffer length (1 byte).
 *
 * Checks:
 * - decode: a length other than 8 (or no octets) is bad-length, then a
 *   type other than 0x83 or another sub-type is not-ours, and for both the
 *   output is not touched; otherwise the fields are the octets in network
 *   order, router ID 0 is router-id-zero (even with group 0), group 0
 *   no-group, the rest valid; the class is the same without an output and
 *   has a name; decode then encode gives back the 8 octets;
 * - encode then decode gives back the router ID and group ID;
 * - fare_groupid_format() never writes past the length it is given,
 *   always terminates, truncates to a prefix of the full text and returns
 *   its length; the full text reads back as "EG:a.b.c.d:g" with the value's
 *   router ID and group, followed by "(<class>)" exactly when the class is
 *   not usable.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fare_groupid.h"
#include "fuzz_input.h"

#define FULL_LEN 64
#define MAX_LEN	 23

static enum fare_groupid_class expected_class(uint32_t router_id, uint16_t group_id)
{
	if (router_id == 0)
		return FARE_GROUPID_ROUTER_ID_ZERO;
	if (group_id == FARE_GROUPID_NONE)
		return FARE_GROUPID_NO_GROUP;
	return FARE_GROUPID_VALID;
}

static void check_decode(const uint8_t *ec, size_t len, uint8_t subtype)
{
	struct fare_groupid gid, canary;
	enum fare_groupid_class class;
	uint8_t again[FARE_GROUPID_SIZE];
	const char *name;

	memset(&gid, 0x5a, sizeof(gid));
	canary = gid;
	class = fare_groupid_decode(ec, len, subtype, &gid);
	FUZZ_CHECK(fare_groupid_decode(ec, len, subtype, NULL) == class);
	name = fare_groupid_class_name(class);
	FUZZ_CHECK(name && strcmp(name, "unknown") != 0);
	FUZZ_CHECK(fare_groupid_class_usable(class) == (class == FARE_GROUPID_VALID));

	if (!ec || len != FARE_GROUPID_SIZE) {
		FUZZ_CHECK(class == FARE_GROUPID_BAD_LENGTH);
		FUZZ_CHECK(memcmp(&gid, &canary, sizeof(gid)) == 0);
		return;
	}
	if (ec[0] != FARE_GROUPID_TYPE || ec[1] != subtype) {
		FUZZ_CHECK(class == FARE_GROUPID_NOT_OURS);
		FUZZ_CHECK(memcmp(&gid, &canary, sizeof(gid)) == 0);
		return;
	}
	FUZZ_CHECK(gid.subtype == subtype);
	FUZZ_CHECK(gid.router_id ==
		   ((uint32_t)ec[2] << 24 | (uint32_t)ec[3] << 16 | (uint32_t)ec[4] << 8 | ec[5]));
	FUZZ_CHECK(gid.group_id == (uint16_t)(ec[6] << 8 | ec[7]));
	FUZZ_CHECK(class == expected_class(gid.router_id, gid.group_id));
	FUZZ_CHECK(gid.class == class);

	fare_groupid_encode(again, gid.subtype, gid.router_id, gid.group_id);
	FUZZ_CHECK(memcmp(again, ec, FARE_GROUPID_SIZE) == 0);
}

static void check_encode(uint8_t subtype, uint32_t router_id, uint16_t group_id)
{
	uint8_t ec[FARE_GROUPID_SIZE];
	struct fare_groupid gid;

	fare_groupid_encode(ec, subtype, router_id, group_id);
	FUZZ_CHECK(ec[0] == FARE_GROUPID_TYPE && ec[1] == subtype);
	FUZZ_CHECK(fare_groupid_decode(ec, sizeof(ec), subtype, &gid) ==
		   expected_class(router_id, group_id));
	FUZZ_CHECK(gid.router_id == router_id && gid.group_id == group_id);
	FUZZ_CHECK(fare_groupid_decode(ec, sizeof(ec), (uint8_t)(subtype + 1), NULL) ==
		   FARE_GROUPID_NOT_OURS);
}

static int format_groupid(char *buf, size_t len, const void *arg)
{
	return fare_groupid_format(buf, len, arg);
}

/* the text into exactly len bytes, against the full text, which reads
 * back
 */
static void check_format(const struct fare_groupid *gid, size_t len)
{
	char full[FULL_LEN], suffix[FULL_LEN] = "";
	unsigned int a, b, c, d, group;
	int n = 0;

	FUZZ_CHECK(fuzz_check_truncation(format_groupid, gid, len, full, sizeof(full)) > 0);
	FUZZ_CHECK(sscanf(full, "EG:%u.%u.%u.%u:%u%n", &a, &b, &c, &d, &group, &n) == 5);
	FUZZ_CHECK(a < 256 && b < 256 && c < 256 && d < 256);
	FUZZ_CHECK((a << 24 | b << 16 | c << 8 | d) == gid->router_id);
	FUZZ_CHECK(group == gid->group_id);
	if (!fare_groupid_class_usable(gid->class))
		snprintf(suffix, sizeof(suffix), "(%s)", fare_groupid_class_name(gid->class));
	FUZZ_CHECK(strcmp(full + n, suffix) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { data, size, 0 };
	uint8_t subtype = fuzz_u8(&in);
	size_t len = fuzz_u8(&in) % (MAX_LEN + 1), i;
	uint8_t *ec = len ? malloc(len) : NULL;
	struct fare_groupid gid;
	uint32_t router_id;
	uint16_t group_id;
	size_t buflen;

	for (i = 0; i < len; i++)
		ec[i] = fuzz_u8(&in);
	router_id = fuzz_u32(&in);
	group_id = fuzz_u16(&in);
	buflen = fuzz_u8(&in) % (FULL_LEN + 8);

	check_decode(ec, len, subtype);
	check_decode(NULL, FARE_GROUPID_SIZE, subtype);
	if (fare_groupid_decode(ec, len, subtype, &gid) != FARE_GROUPID_BAD_LENGTH &&
	    fare_groupid_decode(ec, len, subtype, &gid) != FARE_GROUPID_NOT_OURS)
		check_format(&gid, buflen);
	free(ec);

	check_encode(subtype, router_id, group_id);
	gid.subtype = subtype;
	gid.router_id = router_id;
	gid.group_id = group_id;
	gid.class = expected_class(router_id, group_id);
	check_format(&gid, buflen);
	return 0;
}
