// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests: nexthop objects and their per-member packet counters from
 * rtnetlink (core/fare_nhstats.h): a group with and without
 * FARE_NHA_GROUP_STATS (Linux 6.9 and later, or older), 16-bit weights, a
 * single next hop, malformed messages refused, shares and deviations.
 */

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "fare_nhstats.h"

struct msg {
	uint8_t b[1024];
	size_t len;
	size_t nest[4];
	int depth;
};

static void msg_begin(struct msg *m)
{
	struct nlmsghdr h = { .nlmsg_type = RTM_NEWNEXTHOP };

	memset(m, 0, sizeof(*m));
	m->len = NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct nhmsg)));
	memcpy(m->b, &h, sizeof(h));
}

static void msg_put(struct msg *m, uint16_t type, const void *data, size_t dlen)
{
	uint16_t alen = NLA_HDRLEN + dlen;

	memcpy(m->b + m->len, &alen, 2);
	memcpy(m->b + m->len + 2, &type, 2);
	if (dlen)
		memcpy(m->b + m->len + NLA_HDRLEN, data, dlen);
	m->len += NLA_ALIGN(alen);
}

static void msg_u32(struct msg *m, uint16_t type, uint32_t v)
{
	msg_put(m, type, &v, 4);
}

static void msg_u64(struct msg *m, uint16_t type, uint64_t v)
{
	msg_put(m, type, &v, 8);
}

static void msg_nest(struct msg *m, uint16_t type)
{
	m->nest[m->depth++] = m->len;
	msg_put(m, type | NLA_F_NESTED, NULL, 0);
}

static void msg_nest_end(struct msg *m)
{
	size_t at = m->nest[--m->depth];
	uint16_t alen = m->len - at;

	memcpy(m->b + at, &alen, 2);
}

static size_t msg_end(struct msg *m)
{
	uint32_t len = m->len;

	memcpy(m->b, &len, 4);
	return m->len;
}

/* group id 70 of members 11 (weight w1) and 12 (weight w2) */
static void group_msg(struct msg *m, uint32_t w1, uint32_t w2, bool stats)
{
	uint8_t grp[16] = {};
	uint32_t id1 = 11, id2 = 12;

	msg_begin(m);
	msg_u32(m, NHA_ID, 70);
	memcpy(grp, &id1, 4);
	grp[4] = (w1 - 1) & 0xff;
	grp[5] = (w1 - 1) >> 8;
	memcpy(grp + 8, &id2, 4);
	grp[12] = (w2 - 1) & 0xff;
	grp[13] = (w2 - 1) >> 8;
	msg_put(m, NHA_GROUP, grp, sizeof(grp));
	if (stats) {
		msg_nest(m, FARE_NHA_GROUP_STATS);
		/* the kernel's order need not be the group's */
		msg_nest(m, FARE_NHA_GROUP_STATS_ENTRY);
		msg_u32(m, FARE_NHA_GROUP_STATS_ENTRY_ID, 12);
		msg_u64(m, FARE_NHA_GROUP_STATS_ENTRY_PACKETS, 3058);
		msg_nest_end(m);
		msg_nest(m, FARE_NHA_GROUP_STATS_ENTRY);
		msg_u32(m, FARE_NHA_GROUP_STATS_ENTRY_ID, 11);
		msg_u64(m, FARE_NHA_GROUP_STATS_ENTRY_PACKETS, 942);
		msg_u64(m, FARE_NHA_GROUP_STATS_ENTRY_PACKETS_HW, 7);
		msg_nest_end(m);
		msg_nest_end(m);
	}
	msg_end(m);
}

static void test_group_with_stats(void **state)
{
	struct msg m;
	struct fare_nhs_entry e;
	struct fare_nhs_member mm[4];

	(void)state;
	group_msg(&m, 1, 3, true);
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 4), 0);
	assert_int_equal(e.id, 70);
	assert_true(e.group);
	assert_true(e.has_stats);
	assert_int_equal(e.n, 2);
	assert_int_equal(mm[0].id, 11);
	assert_int_equal(mm[0].weight, 1);
	assert_true(mm[0].has_packets);
	assert_int_equal(mm[0].packets, 942);
	assert_true(mm[0].has_hw);
	assert_int_equal(mm[0].packets_hw, 7);
	assert_int_equal(mm[1].id, 12);
	assert_int_equal(mm[1].weight, 3);
	assert_int_equal(mm[1].packets, 3058);
	assert_false(mm[1].has_hw);
}

/* a kernel older than 6.9: the group, no counters */
static void test_group_without_stats(void **state)
{
	struct msg m;
	struct fare_nhs_entry e;
	struct fare_nhs_member mm[4];

	(void)state;
	group_msg(&m, 254, 1000, false);
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 4), 0);
	assert_true(e.group);
	assert_false(e.has_stats);
	assert_int_equal(mm[0].weight, 254);
	assert_int_equal(mm[1].weight, 1000); /* Linux 6.12's 16-bit weights */
	assert_false(mm[0].has_packets);
}

static void test_group_truncated(void **state)
{
	struct msg m;
	struct fare_nhs_entry e;
	struct fare_nhs_member mm[1];

	(void)state;
	group_msg(&m, 1, 3, true);
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 1), 0);
	assert_int_equal(e.n, 1);
	assert_true(e.truncated);
	assert_int_equal(mm[0].packets, 942);
}

static void test_single_nexthop(void **state)
{
	struct msg m;
	struct fare_nhs_entry e;
	struct fare_nhs_member mm[1];
	uint8_t gw[4] = { 10, 0, 0, 2 };

	(void)state;
	msg_begin(&m);
	msg_u32(&m, NHA_ID, 11);
	msg_u32(&m, NHA_OIF, 5);
	msg_put(&m, NHA_GATEWAY, gw, 4);
	msg_end(&m);
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 1), 0);
	assert_false(e.group);
	assert_int_equal(e.oif, 5);
	assert_int_equal(e.gw_family, AF_INET);
	assert_memory_equal(e.gw, gw, 4);
}

/* every truncation of a good message, and broken lengths: refused or
 * parsed within the bytes given (run under ASan by scripts/run-asan.sh)
 */
static void test_malformed(void **state)
{
	struct msg m;
	struct fare_nhs_entry e;
	struct fare_nhs_member mm[4];
	uint8_t *copy;
	size_t len, cut;

	(void)state;
	group_msg(&m, 1, 3, true);
	len = m.len;
	for (cut = 0; cut < len; cut++) {
		copy = malloc(cut ? cut : 1);
		memcpy(copy, m.b, cut);
		assert_int_equal(fare_nhs_parse(copy, cut, &e, mm, 4), -1);
		free(copy);
	}
	/* an attribute longer than the message */
	group_msg(&m, 1, 3, true);
	m.b[NLMSG_ALIGN(NLMSG_LENGTH(sizeof(struct nhmsg)))] = 0xff;
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 4), -1);
	/* a group of 7 bytes */
	msg_begin(&m);
	msg_u32(&m, NHA_ID, 70);
	msg_put(&m, NHA_GROUP, "1234567", 7);
	msg_end(&m);
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 4), -1);
	/* not a nexthop */
	group_msg(&m, 1, 3, true);
	m.b[4] = RTM_NEWROUTE;
	assert_int_equal(fare_nhs_parse(m.b, m.len, &e, mm, 4), -1);
}

static void test_shares(void **state)
{
	uint32_t w[4] = { 1, 1, 2, 2 };
	uint64_t p[4] = { 1000, 1000, 2000, 2000 };
	struct fare_nhs_share s[4];
	uint64_t total;
	size_t worst;

	(void)state;
	worst = fare_nhs_shares(w, p, 4, s, &total);
	assert_int_equal(total, 6000);
	assert_float_equal(s[2].intended, 1.0 / 3, 1e-9);
	assert_float_equal(s[2].measured, 1.0 / 3, 1e-9);
	assert_float_equal(s[worst].deviation, 0, 1e-9);
	/* four elephants over 1:1:2:2: one member carries two of them */
	p[0] = 2;
	p[1] = 0;
	p[2] = 1;
	p[3] = 1;
	worst = fare_nhs_shares(w, p, 4, s, &total);
	assert_int_equal(worst, 0);
	assert_float_equal(s[0].deviation, 0.5 - 1.0 / 6, 1e-9);
	/* no packets yet: no deviation */
	memset(p, 0, sizeof(p));
	fare_nhs_shares(w, p, 4, s, &total);
	assert_int_equal(total, 0);
	assert_float_equal(s[0].measured, 0, 1e-9);
	assert_float_equal(s[0].deviation, 0, 1e-9);
}

static void test_cause(void **state)
{
	uint32_t w[4] = { 1, 1, 2, 2 }, fw[4] = { 1, 1, 2, 2 };
	uint64_t p[4] = { 100, 900, 1000, 1000 };

	(void)state;
	assert_int_equal(fare_nhs_cause(w, fw, p, 4), FARE_NHS_CAUSE_POLARIZATION);
	assert_int_equal(fare_nhs_cause(w, NULL, p, 4), FARE_NHS_CAUSE_POLARIZATION);
	p[1] = 0; /* elephants: one member idle */
	assert_int_equal(fare_nhs_cause(w, fw, p, 4), FARE_NHS_CAUSE_FEW_FLOWS);
	fw[3] = 0; /* a member FARE does not have */
	assert_int_equal(fare_nhs_cause(w, fw, p, 4), FARE_NHS_CAUSE_NOT_FARES);
	assert_non_null(fare_nhs_cause_str(FARE_NHS_CAUSE_NOT_FARES));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group_with_stats), cmocka_unit_test(test_group_without_stats),
		cmocka_unit_test(test_group_truncated),	 cmocka_unit_test(test_single_nexthop),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_cause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
