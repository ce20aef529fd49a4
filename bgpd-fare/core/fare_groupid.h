// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Enhanced ECMP GroupID extended community (EE-3): wire codec, value
 * classes and display text.
 *
 * Pure C11 core (no FRR headers), shared by the bgpd module and the unit
 * tests. Rule numbers are defined in doc/user/fare-rules.rst.
 */

#ifndef _FARE_GROUPID_H
#define _FARE_GROUPID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * EE-3: type 0x83, as the draft draws it. RFC 7153 leaves 0x80-0x8F to
 * experimental use; 0x83 has the transitive bit (0x40) clear, so the
 * community crosses every BGP speaker unchanged.
 */
#define FARE_GROUPID_TYPE 0x83
/*
 * EE-3: the sub-type is not yet assigned; 0x47 ('G', GroupID) is only a
 * default, the sub-type is configurable. Why 0x47:
 * - FRR 10.3 (bgpd/bgp_ecommunity.c, ecommunity_ecom2str()) decodes no
 *   sub-type at all under type 0x83: every 0x83 value is "UNK" there and
 *   reaches the module's bgp_ecommunity_unknown_str hook. Under the
 *   experimental types it does decode (0x80, and 0x81/0x82, RFC 7674's
 *   parts 2 and 3 of the same flowspec space) it reads sub-types 0x00,
 *   0x02, 0x06, 0x07, 0x08, 0x09 and 0x0d (bgp_ecommunity.c, bgp_pbr.c);
 *   should a later FRR extend that family to 0x83, it would take those
 *   numbers again. 0x47 is above every sub-type FRR 10.3 names under any
 *   type (the largest is 0x0d).
 * - It differs from FARE_PATHBW_SUBTYPE_DEFAULT (0x30, fare_pathbw.h): the
 *   module's display hook picks a decoder by sub-type first
 *   (fare_display_subtype()) and FRR's flowspec code reads some sub-types
 *   without their type (ecommunity_fill_pbr_action()); with distinct
 *   sub-types, a sub-type alone names the community in "UNK:131, 71"
 *   lines, debug logs and configuration, whatever type it is under. 0x31,
 *   next to 0x30, is left for a moved Path Bandwidth sub-type.
 */
#define FARE_GROUPID_SUBTYPE_DEFAULT 0x47
#define FARE_GROUPID_SIZE	     8
/* EE-3, our decision: group 0 is reserved, "no group" */
#define FARE_GROUPID_NONE 0

/* What a received extended community means for EE-3/EE-4 */
enum fare_groupid_class {
	FARE_GROUPID_VALID,	     /* router ID != 0, group != 0 */
	FARE_GROUPID_NOT_OURS,	     /* another type or sub-type: not a GroupID */
	FARE_GROUPID_BAD_LENGTH,     /* not 8 octets (e.g. an IPv6 ext. community) */
	FARE_GROUPID_NO_GROUP,	     /* group 0 (reserved): the route carries no GroupID */
	FARE_GROUPID_ROUTER_ID_ZERO, /* router ID 0.0.0.0: invalid, ignored */
	FARE_GROUPID_CLASS_MAX,
};

/* A decoded ECMP GroupID community (EE-3) */
struct fare_groupid {
	uint8_t subtype;
	/* the BGP Router ID as a host-order integer: 10.255.0.3 is
	 * 0x0aff0003 (ntohl() of an in_addr)
	 */
	uint32_t router_id;
	uint16_t group_id;
	enum fare_groupid_class class;
};

/*
 * EE-3: write the 8 octets: type 0x83, sub-type, router ID and group ID in
 * network byte order, independent of the host's endianness. The caller
 * does not originate group FARE_GROUPID_NONE or router ID 0; they are
 * written as given (the decoder classifies them).
 */
void fare_groupid_encode(uint8_t out[FARE_GROUPID_SIZE], uint8_t subtype, uint32_t router_id,
			 uint16_t group_id);

/*
 * EE-3: classify the len octets at ec as a GroupID community with this
 * sub-type. The checks go in this order: len != FARE_GROUPID_SIZE (or ec
 * NULL) is BAD_LENGTH; another type or sub-type is NOT_OURS; router ID 0
 * is ROUTER_ID_ZERO (even when the group is 0 too); group 0 is NO_GROUP;
 * else VALID. Fills *gid, class included, when gid != NULL and the class
 * is VALID, NO_GROUP or ROUTER_ID_ZERO (so displays can show the value);
 * otherwise *gid is left alone.
 */
enum fare_groupid_class fare_groupid_decode(const uint8_t *ec, size_t len, uint8_t subtype,
					    struct fare_groupid *gid);

/* "valid", "not-ours", "bad-length", "no-group", "router-id-zero";
 * "unknown" for anything else
 */
const char *fare_groupid_class_name(enum fare_groupid_class c);

/* EE-4: a value that names a remote group: VALID only */
bool fare_groupid_class_usable(enum fare_groupid_class c);

/*
 * "EG:<router-id>:<group>", e.g. "EG:10.255.0.3:2", for FRR's displays; a
 * value that is not usable gets its class appended, e.g.
 * "EG:10.255.0.3:0(no-group)", "EG:0.0.0.0:2(router-id-zero)". Never
 * writes more than len octets (none when len is 0), always terminated
 * when len > 0. Returns the length snprintf() would have written.
 */
int fare_groupid_format(char *buf, size_t len, const struct fare_groupid *gid);

#ifdef __cplusplus
}
#endif

#endif /* _FARE_GROUPID_H */
