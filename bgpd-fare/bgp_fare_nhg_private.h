// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: shared nexthop groups, the parts bgp_fare_nhg.c (the groups
 * and their routes) and bgp_fare_nhg_key.c (a route's key) share.
 */
#ifndef _BGP_FARE_NHG_PRIVATE_H
#define _BGP_FARE_NHG_PRIVATE_H

#include "memory.h"
#include "typesafe.h"

#include "fare_nhg.h"

struct bgp_path_info;
struct zapi_route;

DECLARE_MTYPE(FARE_NHG_KEY);

PREDECL_HASH(fare_nhgs);
PREDECL_DLIST(fare_nhg_routes);
PREDECL_DLIST(fare_nhg_pending);
PREDECL_DLIST(fare_nhg_members);

/* A nexthop group of the module in zebra */
struct fare_nhg {
	struct fare_nhgs_item item;
	uint32_t id;
	uint32_t hash;
	struct fare_nhg_key *key;
	struct fare_nhg_members_head routes; /* the routes assigned to it */
	uint32_t sent_users;		     /* routes zebra has on it */
	uint32_t pending;		     /* its routes announced with another key */
	/* the key its first route waiting was announced with, and how many
	 * of those waiting have it: when all its routes do, it is replaced
	 * in place at once (fare_nhg_replaceable())
	 */
	struct fare_nhg_key *pending_key;
	uint32_t pending_same;
	/* a change of this router's own is due (fare_nhg_refresh_due()):
	 * the first of its routes with new weights replaces it ahead of the
	 * others (fare_nhg_ahead())
	 */
	bool ahead_due;
	/* The paths of its routes (fare_nhg_route->paths): sig, that of its
	 * first route when last counted, and how many of its routes have it.
	 * When all but the one announced with new weights have it, a
	 * neighbor's new Path Bandwidth replaces it ahead of its routes too
	 * (fare_nhg_routes_alike()).
	 */
	uint32_t sig;
	uint32_t sig_same;
	bool alike_checked; /* this change's answer, alike, is known */
	bool alike;
	bool installed;		 /* sent to zebra (this connection) */
	uint64_t replaced;	 /* times replaced in place */
	uint64_t replaced_early; /* of those, before bgpd's pass (refresh_due) */
	/* times sent to zebra: each replaces the kernel's group, whose
	 * per-member packet counters start again from 0 (bgp_fare_traffic.c)
	 */
	uint64_t installs;
	/* Replaced ahead of its routes (fare_nhg_ahead()): the key it had,
	 * and how many of its routes were announced with the new one since
	 * (those whose confirmed equals gen)
	 */
	struct fare_nhg_key *prev_key;
	uint32_t gen;
	uint32_t confirmed;
};

/* A route FARE weighs, sent or to be sent through a group */
struct fare_nhg_route {
	struct fare_nhg_routes_item item; /* in every route's list */
	struct fare_nhg_pending_item pitem;
	struct fare_nhg_members_item gitem; /* in its group's routes */
	const struct bgp_dest *dest;
	struct bgp *bgp;
	struct fare_nhg *group;	     /* assigned */
	struct fare_nhg *sent_group; /* what zebra has (NULL: not on one) */
	/* the route as sent: on sent_group, fare_nhg_fingerprint(); on
	 * none, fare_nhg_direct_fingerprint() (0: not sent, or unknown)
	 */
	uint64_t sent_fp;
	struct fare_nhg_key *want; /* announced with this key, waiting */
	uint32_t confirmed;	   /* its group's gen when announced with its key */
	/* its selected and multipath paths when last announced: a hash of
	 * each one's neighbor and (interned) attributes, in any order
	 */
	uint32_t paths;
};

/* The key of the route bgpd is about to send (its weighted next hops,
 * each with an interface), or NULL when it cannot go through a group.
 */
extern struct fare_nhg_key *fare_nhg_key_of(struct bgp_path_info *best,
					    const struct zapi_route *api);
/* What else of the route zebra has (0 never: 0 is "not sent") */
extern uint64_t fare_nhg_fingerprint(const struct zapi_route *api, uint32_t nhg_id);
/* All of a route zebra gets with its own next hops (0: more than it reads) */
extern uint64_t fare_nhg_direct_fingerprint(const struct zapi_route *api);
extern struct fare_nhg_key *fare_nhg_key_dup(const struct fare_nhg_key *key);

#endif /* _BGP_FARE_NHG_PRIVATE_H */
