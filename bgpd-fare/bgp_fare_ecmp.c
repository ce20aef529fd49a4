// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP egress grouping (EE-2, EE-3, EE-4).
 *
 * An egress leaf tags the routes it originates with an ECMP GroupID
 * extended community (EE-3); an ingress leaf splits its uplinks into
 * sub-groups (EE-2) and installs each prefix over the sub-group its
 * remote (router ID, group ID) is mapped to (EE-4), with FARE's weights
 * inside the sub-group. The algorithms (codec, layout, map) are in core/;
 * this file is the glue.
 */
#include <zebra.h>

#include "if.h"
#include "linklist.h"
#include "memory.h"
#include "plist.h"
#include "prefix.h"
#include "vrf.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_eval.h"

DEFINE_MTYPE_STATIC(FARE, FARE_ECMP, "FARE Enhanced ECMP");

struct fare_ecmp_egress {
	uint16_t group;
	char *plist; /* NULL: every originated route no other line takes */
	/* the prefix-list, IPv4 and IPv6, looked up by name once per
	 * generation of prefix-lists (fare_ecmp_plists_changed()): an
	 * originated route is tagged at every announcement, for every
	 * update sub-group, and a lookup by name costs a string compare per
	 * level of the prefix-lists' tree
	 */
	struct prefix_list *resolved[2];
	uint32_t resolved_gen;
};

/* bumped by every prefix-list change; 0 is never current */
static uint32_t fare_plists_gen = 1;

/* EE-3: an originated prefix's group, kept by prefix (an address of a
 * route node may be another prefix's later)
 */
struct fare_ecmp_egress_cached {
	struct fare_ecmp_egress_cache_item item;
	struct prefix p;
	uint16_t group;
};

/* kept prefixes at most; then the cache starts again (prefixes no longer
 * originated stay until the next change of the lines or prefix-lists)
 */
#define FARE_ECMP_EGRESS_CACHE_MAX 1048576

static int fare_ecmp_egress_cached_cmp(const struct fare_ecmp_egress_cached *a,
				       const struct fare_ecmp_egress_cached *b)
{
	return prefix_cmp(&a->p, &b->p);
}

static uint32_t fare_ecmp_egress_cached_hash(const struct fare_ecmp_egress_cached *c)
{
	return prefix_hash_key(&c->p);
}

DECLARE_HASH(fare_ecmp_egress_cache, struct fare_ecmp_egress_cached, item,
	     fare_ecmp_egress_cached_cmp, fare_ecmp_egress_cached_hash);

static void fare_ecmp_egress_cache_flush(struct fare_instance *fi)
{
	struct fare_ecmp_egress_cached *c;

	while ((c = fare_ecmp_egress_cache_pop(&fi->ecmp->egress_cache)))
		XFREE(MTYPE_FARE_ECMP, c);
}

struct fare_ecmp_member {
	char *ifname;
	uint32_t subgroup; /* 1-based, as configured */
};

struct fare_ecmp_pin {
	struct fare_ecmp_key key;
	uint32_t subgroup; /* 1-based */
};

/* EE-2: the sub-group of each session's uplink, by peer address, built
 * with the layout (the pointers are compared, never followed: a peer that
 * goes bumps the generation and the table is built anew).
 */
struct fare_ecmp_peer_sg {
	const struct peer *peer;
	uint32_t subgroup; /* 0-based, FARE_ECMP_SUBGROUP_NONE */
};

/* ------------------------------------------------------------------ */
/* Configuration                                                        */
/* ------------------------------------------------------------------ */

static void fare_ecmp_egress_free(void *arg)
{
	struct fare_ecmp_egress *eg = arg;

	XFREE(MTYPE_FARE_ECMP, eg->plist);
	XFREE(MTYPE_FARE_ECMP, eg);
}

static void fare_ecmp_member_free(void *arg)
{
	struct fare_ecmp_member *m = arg;

	XFREE(MTYPE_FARE_ECMP, m->ifname);
	XFREE(MTYPE_FARE_ECMP, m);
}

static void fare_ecmp_pin_free(void *arg)
{
	XFREE(MTYPE_FARE_ECMP, arg);
}

static void fare_ecmp_init(struct fare_instance *fi)
{
	fi->ecmp = XCALLOC(MTYPE_FARE_ECMP, sizeof(*fi->ecmp));
	fi->ecmp->subtype = FARE_GROUPID_SUBTYPE_DEFAULT;
	fi->ecmp->egress = list_new();
	fi->ecmp->egress->del = fare_ecmp_egress_free;
	fare_ecmp_egress_cache_init(&fi->ecmp->egress_cache);
	fi->ecmp->members = list_new();
	fi->ecmp->members->del = fare_ecmp_member_free;
	fi->ecmp->pins = list_new();
	fi->ecmp->pins->del = fare_ecmp_pin_free;
	fare_ecmp_count_state_init(fi);
}

static void fare_ecmp_layout_clear(struct fare_instance *fi)
{
	size_t i;

	for (i = 0; i < fi->ecmp->n_uplinks; i++)
		XFREE(MTYPE_FARE_ECMP, fi->ecmp->uplinks[i]);
	XFREE(MTYPE_FARE_ECMP, fi->ecmp->uplinks);
	XFREE(MTYPE_FARE_ECMP, fi->ecmp->uplink_subgroup);
	XFREE(MTYPE_FARE_ECMP, fi->ecmp->peer_sg);
	fi->ecmp->n_uplinks = 0;
	fi->ecmp->n_peer_sg = 0;
	fi->ecmp->n_subgroups = 0;
}

/* The uplinks' layout and the remote group map, with the routes per
 * remote group: built while sub-groups are configured (EE-2), dropped
 * when they no longer are; built anew, with the operator's pins, when
 * they are again.
 */
static void fare_ecmp_ingress_clear(struct fare_instance *fi)
{
	fare_ecmp_counts_clear(fi);
	fare_ecmp_layout_clear(fi);
	fi->ecmp->layout_generation = 0;
	if (fi->ecmp->map)
		fare_ecmp_map_free(fi->ecmp->map);
	fi->ecmp->map = NULL;
}

static void fare_ecmp_fini(struct fare_instance *fi)
{
	list_delete(&fi->ecmp->egress);
	fare_ecmp_egress_cache_flush(fi);
	fare_ecmp_egress_cache_fini(&fi->ecmp->egress_cache);
	list_delete(&fi->ecmp->members);
	list_delete(&fi->ecmp->pins);
	fare_ecmp_ingress_clear(fi);
	fare_ecmp_count_state_fini(fi);
	event_cancel(&fi->ecmp->t_layout);
	XFREE(MTYPE_FARE_ECMP, fi->ecmp);
}

uint8_t fare_ecmp_groupid_subtype(const struct fare_instance *fi)
{
	return fi->ecmp->subtype;
}

void fare_ecmp_subtype_set(struct fare_instance *fi, uint8_t subtype)
{
	if (fi->ecmp->subtype == subtype)
		return;
	fi->ecmp->subtype = subtype;
	/* which routes carry a GroupID (EE-3): every route's, counted anew */
	if (fi->ecmp->counted)
		fare_ecmp_counts_build(fi);
}

void fare_ecmp_subgroup_size_set(struct fare_instance *fi, uint32_t size)
{
	fi->ecmp->subgroup_size = size;
}

/* FRR's displays name a value as an ECMP GroupID (EE-3) when its
 * sub-type is the one an instance uses, the default when FARE is not
 * configured (as fare_display_subtype()).
 */
bool fare_ecmp_display_groupid_subtype(uint8_t subtype)
{
	struct fare_instance *fi;
	bool any = false;

	frr_each (fare_instances, fare_instances_head(), fi) {
		if (fi->ecmp->subtype == subtype)
			return true;
		any = true;
	}
	return !any && subtype == FARE_GROUPID_SUBTYPE_DEFAULT;
}

/* Egress grouping configured: lines kept in group order. */
void fare_ecmp_egress_set(struct fare_instance *fi, uint16_t group, const char *plist, bool set)
{
	struct fare_ecmp_egress *eg;
	struct listnode *node;

	fare_ecmp_egress_cache_flush(fi); /* the lines change */
	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->egress, node, eg))
		if (eg->group == group)
			break;
	if (!set) {
		if (eg) {
			listnode_delete(fi->ecmp->egress, eg);
			fare_ecmp_egress_free(eg);
		}
		return;
	}
	if (!eg) {
		struct fare_ecmp_egress *next;

		eg = XCALLOC(MTYPE_FARE_ECMP, sizeof(*eg));
		eg->group = group;
		for (ALL_LIST_ELEMENTS_RO(fi->ecmp->egress, node, next))
			if (next->group > group)
				break;
		if (node)
			listnode_add_before(fi->ecmp->egress, node, eg);
		else
			listnode_add(fi->ecmp->egress, eg);
	}
	XFREE(MTYPE_FARE_ECMP, eg->plist);
	if (plist)
		eg->plist = XSTRDUP(MTYPE_FARE_ECMP, plist);
	eg->resolved_gen = 0;
}

/* A prefix-list was added, edited or deleted (before it is freed): the
 * pointers looked up before are not followed again.
 */
void fare_ecmp_plists_changed(void)
{
	if (++fare_plists_gen == 0)
		fare_plists_gen = 1;
}

/* Explicit sub-group membership of an uplink (0: remove). */
void fare_ecmp_member_set(struct fare_instance *fi, const char *ifname, uint32_t subgroup)
{
	struct fare_ecmp_member *m;
	struct listnode *node;

	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->members, node, m))
		if (strmatch(m->ifname, ifname))
			break;
	if (!subgroup) {
		if (m) {
			listnode_delete(fi->ecmp->members, m);
			fare_ecmp_member_free(m);
		}
		return;
	}
	if (!m) {
		m = XCALLOC(MTYPE_FARE_ECMP, sizeof(*m));
		m->ifname = XSTRDUP(MTYPE_FARE_ECMP, ifname);
		listnode_add(fi->ecmp->members, m);
	}
	m->subgroup = subgroup;
}

static void fare_ecmp_layout_settled(struct event *t)
{
	struct fare_instance *fi = EVENT_ARG(t);

	fi->ecmp->layout_deferred = false;
	fare_instance_refresh_later(fi, "ECMP sub-groups changed");
}

/* Sub-groups configured or removed (size or explicit members). A change
 * of an existing layout takes effect FARE_ECMP_LAYOUT_SETTLE_MS after the
 * last such line, or when bgpd has read a whole configuration
 * (fare_ecmp_config_end()), whichever is later: the lines of one change
 * (an explicit layout is one line per uplink) then make one step, and
 * their intermediate layouts move no remote group (EE-4 moves as few
 * groups as it can from where they are now, so steps through other
 * layouts could leave groups elsewhere than the final layout alone).
 */
void fare_ecmp_subgroups_changed(struct fare_instance *fi)
{
	if (!fare_ecmp_ingress_enabled(fi)) {
		fare_ecmp_ingress_clear(fi);
		event_cancel(&fi->ecmp->t_layout);
		fi->ecmp->layout_deferred = false;
		fare_instance_refresh_later(fi, "ECMP sub-groups changed");
		return;
	}
	fi->ecmp->layout_deferred = true;
	event_cancel(&fi->ecmp->t_layout);
	event_add_timer_msec(bm->master, fare_ecmp_layout_settled, fi, FARE_ECMP_LAYOUT_SETTLE_MS,
			     &fi->ecmp->t_layout);
}

/* The operator's map entry for a remote group (subgroup 0: remove). */
void fare_ecmp_pin_set(struct fare_instance *fi, struct fare_ecmp_key key, uint32_t subgroup)
{
	struct fare_ecmp_pin *pin;
	struct listnode *node;

	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->pins, node, pin))
		if (!fare_ecmp_key_cmp(pin->key, key))
			break;
	if (!subgroup) {
		if (pin) {
			listnode_delete(fi->ecmp->pins, pin);
			fare_ecmp_pin_free(pin);
		}
		if (fi->ecmp->map)
			fare_ecmp_map_clear_explicit(fi->ecmp->map, key);
		return;
	}
	if (!pin) {
		pin = XCALLOC(MTYPE_FARE_ECMP, sizeof(*pin));
		pin->key = key;
		listnode_add(fi->ecmp->pins, pin);
	}
	pin->subgroup = subgroup;
	if (fi->ecmp->map)
		fare_ecmp_map_set_explicit(fi->ecmp->map, key, subgroup - 1);
}

bool fare_ecmp_ingress_enabled(const struct fare_instance *fi)
{
	return fi->ecmp->subgroup_size || listcount(fi->ecmp->members);
}

/* ------------------------------------------------------------------ */
/* Egress: the GroupID of an originated route (EE-3)                    */
/* ------------------------------------------------------------------ */

/* EE-3: whether a prefix-list (NULL: any) tags originated routes */
bool fare_ecmp_egress_uses_plist(const struct fare_instance *fi, const char *name)
{
	const struct fare_ecmp_egress *eg;
	struct listnode *node;

	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->egress, node, eg))
		if (eg->plist && (!name || strmatch(eg->plist, name)))
			return true;
	return false;
}

/* The group an originated prefix is tagged with, 0 for none: the lowest
 * group whose prefix-list permits it, else the line without one.
 */
static uint16_t fare_ecmp_egress_match(struct fare_instance *fi, const struct prefix *p)
{
	struct fare_ecmp_egress *eg;
	struct listnode *node;
	uint16_t fallback = 0;
	afi_t afi = family2afi(p->family);

	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->egress, node, eg)) {
		struct prefix_list *plist;

		if (!eg->plist) {
			if (!fallback)
				fallback = eg->group;
			continue;
		}
		if (eg->resolved_gen != fare_plists_gen) {
			eg->resolved[0] = prefix_list_lookup(AFI_IP, eg->plist);
			eg->resolved[1] = prefix_list_lookup(AFI_IP6, eg->plist);
			eg->resolved_gen = fare_plists_gen;
		}
		plist = eg->resolved[afi == AFI_IP6];
		if (plist && prefix_list_apply(plist, p) == PREFIX_PERMIT)
			return eg->group;
	}
	return fallback;
}

/* bgpd asks at every announcement of an originated route, per update
 * sub-group, and a prefix-list's match per line costs a walk of its
 * tree: each prefix is matched once per change of the lines or of the
 * prefix-lists.
 */
uint16_t fare_ecmp_egress_group(struct fare_instance *fi, const struct prefix *p)
{
	struct fare_ecmp_state *ecmp = fi->ecmp;
	struct fare_ecmp_egress_cached key = {}, *c;

	if (!listcount(ecmp->egress))
		return 0;
	if (ecmp->egress_cache_plists != fare_plists_gen ||
	    fare_ecmp_egress_cache_count(&ecmp->egress_cache) >= FARE_ECMP_EGRESS_CACHE_MAX) {
		fare_ecmp_egress_cache_flush(fi);
		ecmp->egress_cache_plists = fare_plists_gen;
	}
	prefix_copy(&key.p, p);
	c = fare_ecmp_egress_cache_find(&ecmp->egress_cache, &key);
	if (c)
		return c->group;
	c = XCALLOC(MTYPE_FARE_ECMP, sizeof(*c));
	prefix_copy(&c->p, p);
	c->group = fare_ecmp_egress_match(fi, p);
	fare_ecmp_egress_cache_add(&ecmp->egress_cache, c);
	return c->group;
}

/* The route's usable GroupID (EE-3), if it carries one. */
bool fare_ecmp_route_groupid(const struct fare_instance *fi, const struct attr *attr,
			     struct fare_groupid *gid)
{
	struct ecommunity *ecom = bgp_attr_get_ecommunity(attr);
	uint32_t i;

	if (!ecom || ecom->unit_size != FARE_GROUPID_SIZE)
		return false;
	for (i = 0; i < ecom->size; i++) {
		const uint8_t *val = ecom->val + i * ecom->unit_size;

		if (fare_groupid_decode(val, FARE_GROUPID_SIZE, fi->ecmp->subtype, gid) ==
		    FARE_GROUPID_VALID)
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------ */
/* Ingress: sub-groups of the uplinks (EE-2)                            */
/* ------------------------------------------------------------------ */

/* EE-2: uplinks in natural name order (swp2 before swp10) */
static int fare_ecmp_name_cmp(const void *a, const void *b)
{
	return fare_ecmp_ifname_qcmp(a, b);
}

static int fare_ecmp_peer_sg_cmp(const void *a, const void *b)
{
	const struct fare_ecmp_peer_sg *x = a, *y = b;

	return numcmp((uintptr_t)x->peer, (uintptr_t)y->peer);
}

/* 0-based sub-group of an interface, FARE_ECMP_SUBGROUP_NONE if none */
static uint32_t fare_ecmp_uplink_subgroup(struct fare_instance *fi, const char *ifname)
{
	char **found;

	if (!ifname || !fi->ecmp->n_uplinks)
		return FARE_ECMP_SUBGROUP_NONE;
	found = bsearch(&ifname, fi->ecmp->uplinks, fi->ecmp->n_uplinks, sizeof(char *),
			fare_ecmp_name_cmp);
	return found ? fi->ecmp->uplink_subgroup[found - fi->ecmp->uplinks]
		     : FARE_ECMP_SUBGROUP_NONE;
}

/* 0-based sub-group of a session's uplink, in a peer table */
static uint32_t fare_ecmp_peer_lookup(const struct fare_ecmp_peer_sg *table, size_t n,
				      const struct peer *peer)
{
	struct fare_ecmp_peer_sg key = { .peer = peer }, *found;

	if (!n)
		return FARE_ECMP_SUBGROUP_NONE;
	found = bsearch(&key, table, n, sizeof(*table), fare_ecmp_peer_sg_cmp);
	return found ? found->subgroup : FARE_ECMP_SUBGROUP_NONE;
}

/* EE-2: a session on a fabric uplink: not a boundary, not a dynamic
 * neighbor ("bgp listen range": servers, SUN-1 hosts), not a connection
 * accepted for a neighbor.
 */
static bool fare_ecmp_peer_is_uplink(struct fare_instance *fi, struct peer *peer)
{
	return !peer_dynamic_neighbor(peer) && !fare_peer_is_accept(peer) &&
	       !fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY);
}

/* EE-2: the uplinks and their sub-groups, rebuilt after any change of
 * configuration or sessions. Uplinks are the interfaces the operator
 * names in "bgp fare ecmp-subgroup N interface IF" lines, else those of
 * the instance's configured neighbors (established or not, so that a
 * failed link keeps its place; dynamic and boundary neighbors aside), in
 * natural name order; split by size, or as the operator's lines say.
 * When the sub-group of a session's uplink changes, the prefixes through
 * that session are re-evaluated, so that each prefix is installed over
 * its remote group's sub-group as it is now.
 */
void fare_ecmp_layout_update(struct fare_instance *fi)
{
	struct listnode *node;
	struct peer *peer;
	struct fare_ecmp_member *m;
	size_t n = 0, cap, i, j, n_old_sg;
	char **names;
	uint32_t *given = NULL;
	struct fare_ecmp_peer_sg *old_sg;
	bool had_layout;
	int k;

	if (!fare_ecmp_ingress_enabled(fi)) {
		fare_ecmp_ingress_clear(fi);
		return;
	}
	if (fi->ecmp->layout_generation == fare_generation_now())
		return;
	had_layout = fi->ecmp->layout_generation != 0;
	/* a change being configured: the layout in force stays until it
	 * settles (fare_ecmp_subgroups_changed()) or the configuration read
	 * ends (fare_ecmp_config_end(), which then re-evaluates the routes)
	 */
	if (had_layout && (fi->ecmp->layout_deferred || bgp_config_inprocess())) {
		fi->ecmp->layout_deferred = true;
		return;
	}
	/* kept to find the sessions whose sub-group changes */
	old_sg = fi->ecmp->peer_sg;
	n_old_sg = fi->ecmp->n_peer_sg;
	fi->ecmp->peer_sg = NULL;
	fare_ecmp_layout_clear(fi);
	fi->ecmp->layout_generation = fare_generation_now();

	if (listcount(fi->ecmp->members)) {
		cap = listcount(fi->ecmp->members);
		names = XCALLOC(MTYPE_FARE_ECMP, cap * sizeof(*names));
		for (ALL_LIST_ELEMENTS_RO(fi->ecmp->members, node, m))
			names[n++] = XSTRDUP(MTYPE_FARE_ECMP, m->ifname);
	} else {
		cap = listcount(fi->bgp->peer);
		names = XCALLOC(MTYPE_FARE_ECMP, (cap ? cap : 1) * sizeof(*names));
		for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer)) {
			const char *name = fare_peer_ifname(peer);

			if (!name || n >= cap || !fare_ecmp_peer_is_uplink(fi, peer))
				continue;
			names[n++] = XSTRDUP(MTYPE_FARE_ECMP, name);
		}
	}
	qsort(names, n, sizeof(*names), fare_ecmp_name_cmp);
	/* one entry per interface */
	for (i = 0, j = 0; i < n; i++) {
		if (j && strmatch(names[j - 1], names[i])) {
			XFREE(MTYPE_FARE_ECMP, names[i]);
			continue;
		}
		names[j++] = names[i];
	}
	n = j;
	fi->ecmp->uplinks = names;
	fi->ecmp->n_uplinks = n;
	fi->ecmp->uplink_subgroup = XCALLOC(MTYPE_FARE_ECMP, (n ? n : 1) * sizeof(uint32_t));
	if (listcount(fi->ecmp->members)) {
		given = XCALLOC(MTYPE_FARE_ECMP, (n ? n : 1) * sizeof(*given));
		for (i = 0; i < n; i++)
			for (ALL_LIST_ELEMENTS_RO(fi->ecmp->members, node, m))
				if (strmatch(m->ifname, names[i]))
					given[i] = m->subgroup;
		k = fare_ecmp_layout_explicit(n, given, fi->ecmp->uplink_subgroup);
		XFREE(MTYPE_FARE_ECMP, given);
	} else {
		k = fare_ecmp_layout_uniform(n, fi->ecmp->subgroup_size, fi->ecmp->uplink_subgroup);
	}
	fi->ecmp->n_subgroups = k > 0 ? k : 0;

	/* each session's sub-group, through its uplink's name */
	cap = listcount(fi->bgp->peer);
	fi->ecmp->peer_sg = XCALLOC(MTYPE_FARE_ECMP, (cap ? cap : 1) * sizeof(*fi->ecmp->peer_sg));
	for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer)) {
		uint32_t sg;

		/* the operator's named uplinks count whatever the session */
		if (fi->ecmp->n_peer_sg >= cap ||
		    (!listcount(fi->ecmp->members) && !fare_ecmp_peer_is_uplink(fi, peer)))
			continue;
		sg = fare_ecmp_uplink_subgroup(fi, fare_peer_ifname(peer));
		if (sg == FARE_ECMP_SUBGROUP_NONE)
			continue;
		fi->ecmp->peer_sg[fi->ecmp->n_peer_sg++] =
			(struct fare_ecmp_peer_sg){ .peer = peer, .subgroup = sg };
	}
	qsort(fi->ecmp->peer_sg, fi->ecmp->n_peer_sg, sizeof(*fi->ecmp->peer_sg),
	      fare_ecmp_peer_sg_cmp);

	if (!fi->ecmp->map) {
		struct fare_ecmp_pin *pin;

		fi->ecmp->map = fare_ecmp_map_new(fi->ecmp->n_subgroups);
		for (ALL_LIST_ELEMENTS_RO(fi->ecmp->pins, node, pin))
			fare_ecmp_map_set_explicit(fi->ecmp->map, pin->key, pin->subgroup - 1);
		fare_ecmp_counts_build(fi);
	} else if (fare_ecmp_map_subgroups(fi->ecmp->map) != fi->ecmp->n_subgroups) {
		fare_ecmp_map_set_subgroups(fi->ecmp->map, fi->ecmp->n_subgroups);
		fare_instance_refresh_later(fi, "ECMP sub-groups changed");
	}

	/* EE-2/EE-4: the prefixes through a session whose sub-group changed
	 * (joined, left, or moved) are installed anew; the others keep
	 * theirs. Only live peers are looked at: those of the old table are
	 * compared, not followed.
	 */
	if (had_layout) {
		for (ALL_LIST_ELEMENTS_RO(fi->bgp->peer, node, peer)) {
			uint32_t before = fare_ecmp_peer_lookup(old_sg, n_old_sg, peer);
			uint32_t after = fare_ecmp_peer_lookup(fi->ecmp->peer_sg,
							       fi->ecmp->n_peer_sg, peer);

			if (before == after)
				continue;
			if (FARE_DEBUG)
				zlog_debug("FARE: %s: %pBP: ECMP sub-group %d -> %d (EE-2)",
					   fi->bgp->name_pretty, peer,
					   before == FARE_ECMP_SUBGROUP_NONE ? 0 : (int)before + 1,
					   after == FARE_ECMP_SUBGROUP_NONE ? 0 : (int)after + 1);
			fare_peer_refresh_later(fi, peer, "ECMP sub-group layout changed");
		}
	}
	XFREE(MTYPE_FARE_ECMP, old_sg);
}

/* bgpd has read a whole configuration: a layout change it held back
 * takes effect now, in one step.
 */
void fare_ecmp_config_end(struct fare_instance *fi)
{
	if (!fi->ecmp->layout_deferred || event_is_scheduled(fi->ecmp->t_layout))
		return;
	fi->ecmp->layout_deferred = false;
	fare_instance_refresh_later(fi, "ECMP sub-groups changed");
}

/* EE-4: the restriction of a prefix's next hops to its remote group's
 * sub-group, for the core's evaluation (fare_prefix_params.subgroup):
 * fp->ee.member[i] says whether path i's session is on an uplink of it;
 * NULL when there is none (no Enhanced ECMP, no GroupID, no sub-groups:
 * fp->ee.reason says which). fp->paths and fp->n are the prefix's paths.
 */
static const bool *fare_ecmp_restrict(struct fare_instance *fi, struct bgp_path_info *best,
				      struct fare_prefix *fp)
{
	struct fare_ecmp_selection *sel = &fp->ee;
	struct fare_ecmp_key key;
	size_t i;
	int sg;

	sel->has_gid = false;
	sel->applied = false;
	sel->fallback = false;
	sel->subgroup = FARE_ECMP_SUBGROUP_NONE;
	sel->reason = NULL;
	if (!fare_ecmp_ingress_enabled(fi) || !best || !fp->n)
		return NULL;
	memset(sel->member, 0, fp->n * sizeof(sel->member[0]));
	if (!fare_ecmp_route_groupid(fi, best->attr, &sel->gid)) {
		sel->reason = "no GroupID";
		return NULL;
	}
	sel->has_gid = true;
	fare_ecmp_layout_update(fi);
	key = (struct fare_ecmp_key){ .router_id = sel->gid.router_id,
				      .group_id = sel->gid.group_id };
	sg = fare_ecmp_map_lookup_or_add(fi->ecmp->map, key);
	/* a group no counted route carries (a route originated here, seen
	 * by a show) does not stay
	 */
	fare_ecmp_gone_check(fi, key);
	if (sg < 0) {
		sel->reason = "no sub-groups";
		return NULL;
	}
	sel->subgroup = sg;
	for (i = 0; i < fp->n; i++)
		sel->member[i] = fare_ecmp_peer_lookup(fi->ecmp->peer_sg, fi->ecmp->n_peer_sg,
						       fp->paths[i]->peer) == (uint32_t)sg;
	return sel->member;
}

/* EE-4: what the core did with the restriction: fp->weights are the
 * sub-group's (FARE's weights over its usable members, or equal weights
 * where FARE falls back to plain ECMP), or, without a usable member in
 * the sub-group, the full set's (never a blackhole).
 */
static void fare_ecmp_apply(struct fare_instance *fi, struct bgp_path_info *best,
			    struct fare_prefix *fp)
{
	struct fare_ecmp_selection *sel = &fp->ee;

	switch (fp->out.subgroup) {
	case FARE_SUBGROUP_NONE:
		break;
	case FARE_SUBGROUP_APPLIED:
		sel->applied = true;
		sel->reason = "sub-group";
		break;
	case FARE_SUBGROUP_FALLBACK:
		sel->reason = "fallback: no usable member in the sub-group";
		sel->fallback = true;
		break;
	}
}

/* ------------------------------------------------------------------ */
/* Remote groups that are gone                                          */
/* ------------------------------------------------------------------ */

void fare_ecmp_config_write(struct vty *vty, struct fare_instance *fi)
{
	struct fare_ecmp_egress *eg;
	struct fare_ecmp_member *m;
	struct fare_ecmp_pin *pin;
	struct listnode *node;

	if (fi->ecmp->subtype != FARE_GROUPID_SUBTYPE_DEFAULT)
		vty_out(vty, " bgp fare ecmp-group-id sub-type %u\n", fi->ecmp->subtype);
	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->egress, node, eg)) {
		if (eg->plist)
			vty_out(vty, " bgp fare ecmp-group-id %u prefix-list %s\n", eg->group,
				eg->plist);
		else
			vty_out(vty, " bgp fare ecmp-group-id %u\n", eg->group);
	}
	if (fi->ecmp->subgroup_size)
		vty_out(vty, " bgp fare ecmp-subgroups size %u\n", fi->ecmp->subgroup_size);
	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->members, node, m))
		vty_out(vty, " bgp fare ecmp-subgroup %u interface %s\n", m->subgroup, m->ifname);
	for (ALL_LIST_ELEMENTS_RO(fi->ecmp->pins, node, pin)) {
		struct in_addr rid = { .s_addr = htonl(pin->key.router_id) };

		vty_out(vty, " bgp fare ecmp-group-map %pI4 %u subgroup %u\n", &rid,
			pin->key.group_id, pin->subgroup);
	}
}

const struct fare_feature fare_ecmp_feature = {
	.name = "Enhanced ECMP",
	.instance_new = fare_ecmp_init,
	.instance_free = fare_ecmp_fini,
	.prefix_restrict = fare_ecmp_restrict,
	.prefix_evaluated = fare_ecmp_apply,
	.dest_selected = fare_ecmp_dest_selected,
	.dest_changed = fare_ecmp_dest_changed,
	.config_write = fare_ecmp_config_write,
};
