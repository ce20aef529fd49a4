// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * FARE core: the kernel's nexthop objects as rtnetlink describes them
 * (RTM_NEWNEXTHOP), with the per-member packet counters of a group that
 * Linux 6.9 and later report when asked (NHA_OP_FLAGS with
 * NHA_OP_FLAG_DUMP_STATS: NHA_GROUP_STATS), and the shares of traffic
 * they measure against the weights installed. No FRR headers: parsing
 * and arithmetic only, so that the unit tests feed it any bytes.
 */
#ifndef _FARE_NHSTATS_H
#define _FARE_NHSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Attributes of Linux 6.9 (linux/nexthop.h, enum values there, so not
 * testable with #ifdef; Debian 12's headers lack them): our own names
 */
#define FARE_NHA_OP_FLAGS		      14 /* u32, in a request */
#define FARE_NHA_GROUP_STATS		      15 /* nested, in the answer */
#define FARE_NHA_OP_FLAG_DUMP_STATS	      (1U << 0)
#define FARE_NHA_GROUP_STATS_ENTRY	      1 /* nested, one per member */
#define FARE_NHA_GROUP_STATS_ENTRY_ID	      1 /* u32 */
#define FARE_NHA_GROUP_STATS_ENTRY_PACKETS    2 /* uint (u64) */
#define FARE_NHA_GROUP_STATS_ENTRY_PACKETS_HW 3 /* uint, where a driver offloads */

/* One member of a group: its nexthop id, its weight as installed (1 ..
 * 65536: the kernel's weight byte plus one, and the high byte of Linux
 * 6.12), its packets as counted (has_packets: the kernel said)
 */
struct fare_nhs_member {
	uint32_t id;
	uint32_t weight;
	uint64_t packets;
	uint64_t packets_hw;
	bool has_packets;
	bool has_hw;
};

/* One nexthop object: a single next hop (oif, gateway) or a group */
struct fare_nhs_entry {
	uint32_t id;
	uint32_t oif;	   /* 0: none */
	uint8_t gw_family; /* AF_INET, AF_INET6, 0: no gateway */
	uint8_t gw[16];
	bool blackhole;
	bool group;	/* NHA_GROUP: members below */
	bool has_stats; /* NHA_GROUP_STATS present (Linux 6.9+) */
	uint16_t n;	/* members (at most the caller's capacity) */
	bool truncated; /* more members than the capacity */
};

/*
 * Parse one netlink message of type RTM_NEWNEXTHOP (msg points to its
 * struct nlmsghdr, len bytes available). The group's members go to m
 * (cap of them), in the kernel's order, with their counters where the
 * message had NHA_GROUP_STATS. Returns 0, or -1 when the message is not
 * a nexthop or is malformed (e is then unspecified): never reads past
 * len.
 */
extern int fare_nhs_parse(const void *msg, size_t len, struct fare_nhs_entry *e,
			  struct fare_nhs_member *m, size_t cap);

/* Shares of one group: intended (weight / sum of weights), measured
 * (packets / sum of packets; 0 when there are none) and the deviation
 * (measured - intended), each a fraction of 1.
 */
struct fare_nhs_share {
	double intended;
	double measured;
	double deviation;
};

/*
 * Shares of n members of weights w[] that carried p[] packets. Returns
 * the index of the member of the largest |deviation| (0 when n is 0),
 * total (optional) the sum of p[].
 */
extern size_t fare_nhs_shares(const uint32_t *w, const uint64_t *p, size_t n,
			      struct fare_nhs_share *s, uint64_t *total);

/* The likely cause of a group's deviation (fare_nhs_cause()) */
enum fare_nhs_cause {
	/* the kernel's weights are not FARE's: a member FARE leaves out
	 * (or weighs otherwise) carries traffic
	 */
	FARE_NHS_CAUSE_NOT_FARES,
	/* a member the weights give traffic carried none: too few flows,
	 * or flows too large, for the hash to follow the weights
	 */
	FARE_NHS_CAUSE_FEW_FLOWS,
	/* every member carried traffic, not in the weights' proportions:
	 * this router hashes alike the tier before it (hash polarization)
	 */
	FARE_NHS_CAUSE_POLARIZATION,
};

/*
 * The likely cause of the deviation of n members of kernel weights w[]
 * that carried p[] packets; fw[] (NULL: unknown) FARE's weight of each
 * member (0: FARE has no such member).
 */
extern enum fare_nhs_cause fare_nhs_cause(const uint32_t *w, const uint32_t *fw, const uint64_t *p,
					  size_t n);
extern const char *fare_nhs_cause_str(enum fare_nhs_cause cause);

#endif /* _FARE_NHSTATS_H */
