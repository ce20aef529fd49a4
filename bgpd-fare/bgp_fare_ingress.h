// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP ingress-interface grouping (EE-1), the feature
 * of bgp_fare_ingress.c (groups, rules and ingress tables, registered as
 * fare_ingress_feature) and of the layer below it,
 * bgp_fare_ingress_rtnl.c (the prefixes of the ingress tables, the
 * kernel main table's view, the throw routes).
 */
#ifndef _BGP_FARE_INGRESS_H
#define _BGP_FARE_INGRESS_H

#include "prefix.h"

#include "bgpd/fare/bgp_fare.h"

DECLARE_MTYPE(FARE_INGRESS);

/* Kernel table of interface k of group g (policy rule "iif IF lookup"). */
#define FARE_INGRESS_TABLE_BASE 1000000

/* EE-1: the routes the kernel's main table holds for one prefix, as the
 * module's rtnetlink view of it (bgp_fare_ingress_rtnl.c) knows them.
 */
struct fare_ingress_main_route {
	uint32_t metric;
	uint32_t oif;
	uint8_t tos;
	uint8_t protocol;
};

PREDECL_HASH(fare_ingress_prefixes);
PREDECL_DLIST(fare_ingress_pending);
struct fare_ingress_prefix {
	struct fare_ingress_prefixes_item item;
	struct fare_ingress_pending_item pending_item;
	struct prefix p;
	bool pending;	      /* in the pending list, to be synced */
	bool installed;	      /* BGP copy in the ingress tables */
	bool throw_installed; /* throw route in the ingress tables */
	uint8_t n_main;	      /* routes of the main table for p */
	struct fare_ingress_main_route *main;
};

struct fare_ingress_state {
	struct list *ifs; /* struct fare_ingress_if, (group, name) order */
	struct fare_ingress_prefixes_head prefixes;
	struct fare_ingress_pending_head pending;
	bool rules_installed;
	struct event *t_sync;
	void (*sync)(struct event *event); /* fare_ingress_mark() schedules it */
	/* the main table's view (rtnetlink) and the throw routes */
	int rtnl_events; /* subscribed to the route groups, -1 when closed */
	int rtnl_cmd;	 /* throw routes go out here, errors come back */
	struct event *t_rtnl_events;
	struct event *t_rtnl_cmd;
	struct event *t_rtnl_resync;
	uint32_t throws;       /* prefixes with a throw in every ingress table */
	uint32_t main_routes;  /* routes of the main table in the view */
	uint32_t rtnl_errors;  /* throw routes the kernel refused */
	uint32_t rtnl_resyncs; /* full dumps (events overrun, link down) */
};

static inline int fare_ingress_prefix_cmp(const struct fare_ingress_prefix *a,
					  const struct fare_ingress_prefix *b)
{
	return prefix_cmp(&a->p, &b->p);
}

static inline uint32_t fare_ingress_prefix_hash(const struct fare_ingress_prefix *e)
{
	return prefix_hash_key(&e->p);
}

DECLARE_HASH(fare_ingress_prefixes, struct fare_ingress_prefix, item, fare_ingress_prefix_cmp,
	     fare_ingress_prefix_hash);
DECLARE_DLIST(fare_ingress_pending, struct fare_ingress_prefix, pending_item);

extern const struct fare_feature fare_ingress_feature;

/* bgp_fare_ingress.c */
extern bool fare_ingress_enabled(const struct fare_instance *fi);
extern uint32_t fare_ingress_table(uint32_t group, uint32_t index);
extern void fare_ingress_flush(struct fare_instance *fi);
extern void fare_ingress_resync(struct fare_instance *fi);
extern void fare_ingress_if_set(struct fare_instance *fi, const char *ifname, uint32_t group);
extern void fare_ingress_show(struct vty *vty, struct fare_instance *fi, json_object *json);

/* bgp_fare_ingress_rtnl.c */
#define FARE_INGRESS_RTPROT 238 /* rtm_protocol of the module's throw routes */
extern struct fare_ingress_prefix *fare_ingress_prefix_get(struct fare_instance *fi,
							   const struct prefix *p);
extern void fare_ingress_mark(struct fare_instance *fi, struct fare_ingress_prefix *e);
extern void fare_ingress_main_forget(struct fare_instance *fi, bool mark);
extern bool fare_rtnl_open(struct fare_instance *fi);
extern void fare_rtnl_close(struct fare_instance *fi);
extern void fare_rtnl_throw(struct fare_instance *fi, bool add, const struct prefix *p,
			    const uint32_t *tables, size_t n_tables);
extern void fare_rtnl_flush(struct fare_instance *fi);
extern bool fare_rtnl_main_is_bgp(const struct fare_ingress_prefix *e);
extern void fare_rtnl_main_clear(struct fare_instance *fi, struct fare_ingress_prefix *e);

#endif /* _BGP_FARE_INGRESS_H */
