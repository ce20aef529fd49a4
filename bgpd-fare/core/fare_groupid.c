// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Enhanced ECMP GroupID extended community: wire codec, value classes and
 * display text (EE-3).
 */

#include <stdio.h>

#include "fare_groupid.h"

void fare_groupid_encode(uint8_t out[FARE_GROUPID_SIZE], uint8_t subtype, uint32_t router_id,
			 uint16_t group_id)
{
	out[0] = FARE_GROUPID_TYPE;
	out[1] = subtype;
	/* EE-3: network byte order, whatever the host is */
	out[2] = (uint8_t)(router_id >> 24);
	out[3] = (uint8_t)(router_id >> 16);
	out[4] = (uint8_t)(router_id >> 8);
	out[5] = (uint8_t)router_id;
	out[6] = (uint8_t)(group_id >> 8);
	out[7] = (uint8_t)group_id;
}

enum fare_groupid_class fare_groupid_decode(const uint8_t *ec, size_t len, uint8_t subtype,
					    struct fare_groupid *gid)
{
	enum fare_groupid_class class;
	uint32_t router_id;
	uint16_t group_id;

	if (!ec || len != FARE_GROUPID_SIZE)
		return FARE_GROUPID_BAD_LENGTH;
	if (ec[0] != FARE_GROUPID_TYPE || ec[1] != subtype)
		return FARE_GROUPID_NOT_OURS;

	router_id = (uint32_t)ec[2] << 24 | (uint32_t)ec[3] << 16 | (uint32_t)ec[4] << 8 |
		    (uint32_t)ec[5];
	group_id = (uint16_t)(ec[6] << 8 | ec[7]);
	if (router_id == 0)
		class = FARE_GROUPID_ROUTER_ID_ZERO;
	else if (group_id == FARE_GROUPID_NONE)
		class = FARE_GROUPID_NO_GROUP;
	else
		class = FARE_GROUPID_VALID;

	if (gid) {
		gid->subtype = ec[1];
		gid->router_id = router_id;
		gid->group_id = group_id;
		gid->class = class;
	}
	return class;
}

const char *fare_groupid_class_name(enum fare_groupid_class c)
{
	switch (c) {
	case FARE_GROUPID_VALID:
		return "valid";
	case FARE_GROUPID_NOT_OURS:
		return "not-ours";
	case FARE_GROUPID_BAD_LENGTH:
		return "bad-length";
	case FARE_GROUPID_NO_GROUP:
		return "no-group";
	case FARE_GROUPID_ROUTER_ID_ZERO:
		return "router-id-zero";
	case FARE_GROUPID_CLASS_MAX:
		break;
	}
	return "unknown";
}

bool fare_groupid_class_usable(enum fare_groupid_class c)
{
	return c == FARE_GROUPID_VALID;
}

int fare_groupid_format(char *buf, size_t len, const struct fare_groupid *gid)
{
	uint32_t rid = gid->router_id;
	bool usable = fare_groupid_class_usable(gid->class);

	/* snprintf() with len 0 writes nothing, and buf may then be NULL */
	return snprintf(buf, len, "EG:%u.%u.%u.%u:%u%s%s%s", (unsigned int)(rid >> 24),
			(unsigned int)(rid >> 16 & 0xff), (unsigned int)(rid >> 8 & 0xff),
			(unsigned int)(rid & 0xff), (unsigned int)gid->group_id, usable ? "" : "(",
			usable ? "" : fare_groupid_class_name(gid->class), usable ? "" : ")");
}
