// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE core: nexthop objects and their per-member packet counters from
 * rtnetlink (fare_nhstats.h). Every length is checked against the bytes
 * given: a malformed message is refused, never read past.
 */
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "fare_nhstats.h"

/* the attributes of a buffer, one at a time: 1 and *type, *data, *dlen
 * set, 0 at the end, -1 when malformed
 */
struct fare_nhs_iter {
	const uint8_t *p;
	size_t left;
};

static int fare_nhs_next(struct fare_nhs_iter *it, uint16_t *type, const uint8_t **data,
			 size_t *dlen)
{
	uint16_t alen;
	size_t step;

	if (it->left < sizeof(struct nlattr))
		return it->left ? -1 : 0;
	memcpy(&alen, it->p, 2);
	memcpy(type, it->p + 2, 2);
	*type &= NLA_TYPE_MASK;
	if (alen < sizeof(struct nlattr) || alen > it->left)
		return -1;
	*data = it->p + NLA_HDRLEN;
	*dlen = alen - NLA_HDRLEN;
	step = NLA_ALIGN(alen);
	if (step > it->left)
		step = it->left;
	it->p += step;
	it->left -= step;
	return 1;
}

static uint32_t fare_nhs_u32(const uint8_t *data)
{
	uint32_t v;

	memcpy(&v, data, 4);
	return v;
}

static uint64_t fare_nhs_uint(const uint8_t *data, size_t dlen)
{
	uint64_t v = 0;

	if (dlen >= 8)
		memcpy(&v, data, 8);
	else if (dlen >= 4)
		v = fare_nhs_u32(data);
	return v;
}

/* NHA_GROUP: struct nexthop_grp { u32 id; u8 weight; u8 weight_high
 * (Linux 6.12, reserved before: 0); u16 reserved }
 */
static int fare_nhs_group(const uint8_t *data, size_t dlen, struct fare_nhs_entry *e,
			  struct fare_nhs_member *m, size_t cap)
{
	size_t i;

	if (dlen % 8)
		return -1;
	e->group = true;
	for (i = 0; i < dlen / 8; i++) {
		if (i >= cap || i >= UINT16_MAX) {
			e->truncated = true;
			break;
		}
		memset(&m[i], 0, sizeof(m[i]));
		m[i].id = fare_nhs_u32(data + 8 * i);
		m[i].weight = (uint32_t)data[8 * i + 4] + 1 + ((uint32_t)data[8 * i + 5] << 8);
		e->n = i + 1;
	}
	return 0;
}

/* NHA_GROUP_STATS: NHA_GROUP_STATS_ENTRY { _ID, _PACKETS, _PACKETS_HW }
 * per member, matched to the members by id
 */
static int fare_nhs_stats(const uint8_t *data, size_t dlen, struct fare_nhs_entry *e,
			  struct fare_nhs_member *m)
{
	struct fare_nhs_iter it = { data, dlen };
	const uint8_t *d, *d2;
	size_t l, l2;
	uint16_t t, t2;
	int r;

	e->has_stats = true;
	while ((r = fare_nhs_next(&it, &t, &d, &l)) > 0) {
		struct fare_nhs_iter in = { d, l };
		struct fare_nhs_member got = {};
		bool has_id = false;
		uint16_t i;

		if (t != FARE_NHA_GROUP_STATS_ENTRY)
			continue;
		while ((r = fare_nhs_next(&in, &t2, &d2, &l2)) > 0) {
			if (t2 == FARE_NHA_GROUP_STATS_ENTRY_ID && l2 >= 4) {
				got.id = fare_nhs_u32(d2);
				has_id = true;
			} else if (t2 == FARE_NHA_GROUP_STATS_ENTRY_PACKETS && l2 >= 4) {
				got.packets = fare_nhs_uint(d2, l2);
				got.has_packets = true;
			} else if (t2 == FARE_NHA_GROUP_STATS_ENTRY_PACKETS_HW && l2 >= 4) {
				got.packets_hw = fare_nhs_uint(d2, l2);
				got.has_hw = true;
			}
		}
		if (r < 0)
			return -1;
		if (!has_id)
			continue;
		for (i = 0; i < e->n; i++) {
			if (m[i].id != got.id)
				continue;
			m[i].packets = got.packets;
			m[i].has_packets = got.has_packets;
			m[i].packets_hw = got.packets_hw;
			m[i].has_hw = got.has_hw;
			break;
		}
	}
	return r;
}

int fare_nhs_parse(const void *msg, size_t len, struct fare_nhs_entry *e, struct fare_nhs_member *m,
		   size_t cap)
{
	const struct nlmsghdr *h = msg;
	const uint8_t *stats = NULL, *d;
	size_t hlen = NLMSG_LENGTH(sizeof(struct nhmsg)), stats_len = 0, l;
	struct fare_nhs_iter it;
	struct nlmsghdr hdr;
	uint16_t t;
	int r;

	memset(e, 0, sizeof(*e));
	if (len < sizeof(hdr))
		return -1;
	memcpy(&hdr, h, sizeof(hdr));
	if (hdr.nlmsg_type != RTM_NEWNEXTHOP || hdr.nlmsg_len < hlen || hdr.nlmsg_len > len)
		return -1;
	it.p = (const uint8_t *)msg + NLMSG_ALIGN(hlen);
	it.left = hdr.nlmsg_len > NLMSG_ALIGN(hlen) ? hdr.nlmsg_len - NLMSG_ALIGN(hlen) : 0;
	while ((r = fare_nhs_next(&it, &t, &d, &l)) > 0) {
		switch (t) {
		case NHA_ID:
			if (l < 4)
				return -1;
			e->id = fare_nhs_u32(d);
			break;
		case NHA_OIF:
			if (l < 4)
				return -1;
			e->oif = fare_nhs_u32(d);
			break;
		case NHA_GATEWAY:
			if (l == 4 || l == 16) {
				e->gw_family = l == 4 ? AF_INET : AF_INET6;
				memcpy(e->gw, d, l);
			}
			break;
		case NHA_BLACKHOLE:
			e->blackhole = true;
			break;
		case NHA_GROUP:
			if (fare_nhs_group(d, l, e, m, cap) < 0)
				return -1;
			break;
		case FARE_NHA_GROUP_STATS:
			/* after the members, whatever the order */
			stats = d;
			stats_len = l;
			break;
		default:
			break;
		}
	}
	if (r < 0 || !e->id)
		return -1;
	if (stats && fare_nhs_stats(stats, stats_len, e, m) < 0)
		return -1;
	return 0;
}

size_t fare_nhs_shares(const uint32_t *w, const uint64_t *p, size_t n, struct fare_nhs_share *s,
		       uint64_t *total)
{
	uint64_t wsum = 0, psum = 0;
	size_t i, worst = 0;
	double dev, worst_dev = -1;

	for (i = 0; i < n; i++) {
		wsum += w[i];
		psum += p[i];
	}
	for (i = 0; i < n; i++) {
		s[i].intended = wsum ? (double)w[i] / (double)wsum : 0;
		s[i].measured = psum ? (double)p[i] / (double)psum : 0;
		s[i].deviation = psum ? s[i].measured - s[i].intended : 0;
		dev = s[i].deviation < 0 ? -s[i].deviation : s[i].deviation;
		if (dev > worst_dev) {
			worst_dev = dev;
			worst = i;
		}
	}
	if (total)
		*total = psum;
	return worst;
}

enum fare_nhs_cause fare_nhs_cause(const uint32_t *w, const uint32_t *fw, const uint64_t *p,
				   size_t n)
{
	size_t i;

	for (i = 0; fw && i < n; i++)
		if (fw[i] != w[i])
			return FARE_NHS_CAUSE_NOT_FARES;
	for (i = 0; i < n; i++)
		if (w[i] && !p[i])
			return FARE_NHS_CAUSE_FEW_FLOWS;
	return FARE_NHS_CAUSE_POLARIZATION;
}

const char *fare_nhs_cause_str(enum fare_nhs_cause cause)
{
	switch (cause) {
	case FARE_NHS_CAUSE_NOT_FARES:
		return "the kernel's weights are not FARE's: a member FARE leaves out or weighs otherwise carries traffic";
	case FARE_NHS_CAUSE_FEW_FLOWS:
		return "a member carried no packet: too few flows, or flows too large, for the hash to follow the weights";
	case FARE_NHS_CAUSE_POLARIZATION:
		break;
	}
	return "every member carried traffic, not in the weights' proportions: hash polarization with a tier that hashes alike (per-device hash seeds, net.ipv4.fib_multipath_hash_seed)";
}
