// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the record of each neighbor and peer-group of an instance
 * (struct fare_peer): its settings, its hold-down (WP-7), its plane
 * (SUN-1), and what it resolves to (the peer-group's settings, the
 * interface of its session, FARE-3). The lowest layer of the module:
 * it calls nothing of the module's other files.
 */
#include <zebra.h>

#include "if.h"
#include "jhash.h"
#include "memory.h"
#include "vrf.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_fsm.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"

DEFINE_MTYPE_STATIC(FARE, FARE_PEER, "FARE neighbor");

static uint64_t fare_generation = 1;

/* The record of a neighbor, found by its name once and then by the
 * neighbor's address for as long as no record came or went and no
 * state changed (fare_generation): bgpd asks per route and per
 * update-group, and a name's hash costs more than the rest of the lookup.
 */
#define FARE_PEER_CACHE_SLOTS 256 /* a power of 2 */

struct fare_peer_cache_slot {
	const struct peer *peer;
	const struct fare_instance *fi;
	uint64_t generation;
	struct fare_peer *fp;
};

static struct fare_peer_cache_slot fare_peer_cache[FARE_PEER_CACHE_SLOTS];

static struct fare_peer_cache_slot *fare_peer_cache_slot(const struct peer *peer)
{
	uintptr_t key = (uintptr_t)peer;

	return &fare_peer_cache[(key >> 6 ^ key >> 14) & (FARE_PEER_CACHE_SLOTS - 1)];
}

void fare_state_changed(void)
{
	fare_generation++;
}

uint64_t fare_generation_now(void)
{
	return fare_generation;
}

static int fare_peer_cmp(const struct fare_peer *a, const struct fare_peer *b)
{
	return strcmp(a->name, b->name);
}

static uint32_t fare_peer_hash(const struct fare_peer *fp)
{
	return jhash(fp->name, strlen(fp->name), 0x46415245);
}

DECLARE_HASH(fare_peers, struct fare_peer, item, fare_peer_cmp, fare_peer_hash);

void fare_peer_records_init(struct fare_instance *fi)
{
	fare_peers_init(&fi->peers);
	fare_peer_cfgs_init(&fi->cfgs);
}

static void fare_peer_free(struct fare_instance *fi, struct fare_peer *fp)
{
	fare_generation++; /* no cached lookup finds it again */
	event_cancel(&fp->t_hold);
	if (fp->in_cfgs)
		fare_peer_cfgs_del(&fi->cfgs, fp);
	fare_peers_del(&fi->peers, fp);
	XFREE(MTYPE_FARE_PEER, fp->name);
	XFREE(MTYPE_FARE_PEER, fp);
}

void fare_peer_records_fini(struct fare_instance *fi)
{
	struct fare_peer *fp;

	while ((fp = fare_peers_first(&fi->peers)))
		fare_peer_free(fi, fp);
	fare_peer_cfgs_fini(&fi->cfgs);
	fare_peers_fini(&fi->peers);
}

struct fare_peer *fare_peer_find(struct fare_instance *fi, const char *name)
{
	struct fare_peer key = { .name = (char *)name };

	if (!fi || !name)
		return NULL;
	return fare_peers_find(&fi->peers, &key);
}

struct fare_peer *fare_peer_get(struct fare_instance *fi, const char *name)
{
	struct fare_peer *fp = fare_peer_find(fi, name);

	if (fp)
		return fp;
	fp = XCALLOC(MTYPE_FARE_PEER, sizeof(*fp));
	fp->fi = fi;
	fp->name = XSTRDUP(MTYPE_FARE_PEER, name);
	fare_peers_add(&fi->peers, fp);
	return fp;
}

/* The neighbor or peer-group is deleted: its settings and state go, so
 * that the configuration written back stays loadable and a later
 * neighbor of the same name starts clean.
 */
void fare_peer_forget(struct fare_instance *fi, struct fare_peer *fp)
{
	fare_peer_free(fi, fp);
}

/* A dynamic neighbor is deleted: what its session had goes; its settings
 * and its hold-down stay for its return (WP-7), the record too while
 * they are there.
 */
void fare_peer_detach(struct fare_instance *fi, struct fare_peer *fp)
{
	fp->generation = 0;
	fp->group = NULL;
	fp->refresh = false;
	fp->refreshing = false;
	fp->plane_id.s_addr = INADDR_ANY;
	fp->plane_name[0] = '\0';
	memset(fp->out_policy, 0, sizeof(fp->out_policy));
	if (!fp->set && !fp->link_state && !fp->t_hold)
		fare_peer_free(fi, fp);
}

/* Settings set or cleared: the configuration keeps the order in which
 * neighbors got their first setting.
 */
void fare_peer_settings_changed(struct fare_instance *fi, struct fare_peer *fp)
{
	if (fp->set && !fp->in_cfgs) {
		fare_peer_cfgs_add_tail(&fi->cfgs, fp);
		fp->in_cfgs = true;
	} else if (!fp->set && fp->in_cfgs) {
		fare_peer_cfgs_del(&fi->cfgs, fp);
		fp->in_cfgs = false;
	}
}

/* Name under which a neighbor's (or peer-group's) record is kept. */
const char *fare_peer_cfg_name(struct peer *peer)
{
	if (CHECK_FLAG(peer->sflags, PEER_STATUS_GROUP) && peer->group)
		return peer->group->name;
	return peer->conf_if ? peer->conf_if : peer->host;
}

/* The neighbor's own setting, else its peer-group's. */
static struct fare_peer *fare_peer_setting(struct fare_instance *fi, struct peer *peer,
					   uint32_t flag)
{
	struct fare_peer *fp;

	fp = fare_peer_find(fi, fare_peer_cfg_name(peer));
	if (fp && CHECK_FLAG(fp->set, flag))
		return fp;
	if (peer->group) {
		fp = fare_peer_find(fi, peer->group->name);
		if (fp && CHECK_FLAG(fp->set, flag))
			return fp;
	}
	return NULL;
}

/* What the neighbor resolves to, anew after any change of state. */
static void fare_peer_resolve(struct fare_instance *fi, struct peer *peer, struct fare_peer *fp)
{
	static const uint32_t flags[] = { FARE_PEER_LINK_BW, FARE_PEER_BOUNDARY,
					  FARE_PEER_SUPER_SPINE };
	struct fare_peer *pc;
	struct interface *ifp;
	size_t i;

	fp->flags = 0;
	fp->eff_link_bw = 0;
	for (i = 0; i < array_size(flags); i++) {
		pc = fare_peer_setting(fi, peer, flags[i]);
		if (!pc)
			continue;
		SET_FLAG(fp->flags, flags[i]);
		if (flags[i] == FARE_PEER_LINK_BW)
			fp->eff_link_bw = pc->link_bw;
	}
	ifp = fare_peer_interface(peer);
	fp->ifindex = ifp ? ifp->ifindex : IFINDEX_INTERNAL;
	fp->group = peer->group;
	fp->generation = fare_generation;
}

struct fare_peer *fare_peer_of(struct fare_instance *fi, struct peer *peer)
{
	static struct fare_peer transient;
	struct fare_peer_cache_slot *slot;
	struct fare_peer *fp;

	/* a connection accepted for a neighbor is not kept: a copy, with
	 * the hold-down of the neighbor's name
	 */
	if (fare_peer_is_accept(peer)) {
		fp = fare_peer_find(fi, fare_peer_cfg_name(peer));
		memset(&transient, 0, sizeof(transient));
		transient.fi = fi;
		if (fp) {
			transient.held_bw = fp->held_bw;
			transient.recovering = fp->recovering;
			transient.t_hold = fp->t_hold;
		}
		fare_peer_resolve(fi, peer, &transient);
		return &transient;
	}
	slot = fare_peer_cache_slot(peer);
	if (slot->peer == peer && slot->fi == fi && slot->generation == fare_generation &&
	    slot->fp->generation == fare_generation && slot->fp->group == peer->group)
		return slot->fp;
	fp = fare_peer_get(fi, fare_peer_cfg_name(peer));
	if (fp->generation != fare_generation || fp->group != peer->group)
		fare_peer_resolve(fi, peer, fp);
	slot->peer = peer;
	slot->fi = fi;
	slot->generation = fare_generation;
	slot->fp = fp;
	return fp;
}

bool fare_peer_flag(struct fare_instance *fi, struct peer *peer, uint32_t flag)
{
	return CHECK_FLAG(fare_peer_of(fi, peer)->flags, flag);
}

/* Whether the neighbor's prefixes are due a refresh (by name: a path of
 * a connection accepted for it counts as its own).
 */
bool fare_peer_due_refresh(struct fare_instance *fi, struct peer *peer)
{
	struct fare_peer *fp = fare_peer_find(fi, fare_peer_cfg_name(peer));

	return fp && fp->refresh;
}

/* whether the prefixes through any peer are due a refresh */
bool fare_peers_due_refresh(struct fare_instance *fi)
{
	struct fare_peer *fp;

	frr_each (fare_peers, &fi->peers, fp)
		if (fp->refresh)
			return true;
	return false;
}

/* A pass over the table starts with the peers due now; those marked
 * during it are due the next pass.
 */
void fare_peers_refresh_begin(struct fare_instance *fi)
{
	struct fare_peer *fp;

	frr_each (fare_peers, &fi->peers, fp) {
		fp->refreshing = fp->refresh;
		fp->refresh = false;
	}
}

/* whether the neighbor's prefixes are due in the pass under way */
bool fare_peer_in_refresh(struct fare_instance *fi, struct peer *peer)
{
	struct fare_peer *fp = fare_peer_find(fi, fare_peer_cfg_name(peer));

	return fp && fp->refreshing;
}

void fare_peers_refresh_end(struct fare_instance *fi)
{
	struct fare_peer *fp;

	frr_each (fare_peers, &fi->peers, fp)
		fp->refreshing = false;
}

/* FARE-3, WP-2: a session runs over a link of this router: an interface
 * (unnumbered) session, or one whose neighbor address is on a connected
 * subnet. A multihop or loopback session (a route collector, iBGP to a
 * reflector) has no outgoing interface of its own.
 */
bool fare_peer_on_link(const struct peer *peer)
{
	return peer->conf_if || peer->shared_network;
}

/* FARE-3: bandwidth of the link the session runs over, in bytes/s: the
 * neighbor's override, else the interface bandwidth the operator gave
 * zebra, else the speed zebra reports (a LAG's drops when a member
 * fails). 0 when the session has no interface (multihop).
 */
static double fare_peer_link_bw_raw(struct fare_peer *fp, struct peer *peer, const char **source)
{
	struct interface *ifp;

	if (fp && CHECK_FLAG(fp->flags, FARE_PEER_LINK_BW)) {
		*source = "configured";
		return fp->eff_link_bw;
	}
	/* by index, resolved once per generation: never a deleted one */
	if (fp)
		ifp = fp->ifindex != IFINDEX_INTERNAL
			      ? if_lookup_by_index(fp->ifindex, peer->bgp->vrf_id)
			      : NULL;
	else
		ifp = fare_peer_interface(peer);
	if (ifp && ifp->bandwidth) {
		*source = "interface bandwidth";
		return (double)ifp->bandwidth * 1e6 / 8;
	}
	if (ifp && ifp->speed && ifp->speed != UINT32_MAX) {
		*source = "interface speed";
		return (double)ifp->speed * 1e6 / 8;
	}
	/* FARE-3 unknown: the received value is taken uncapped (FARE-4) */
	*source = fare_peer_on_link(peer) ? FARE_LINK_SOURCE_NO_SPEED
					  : FARE_LINK_SOURCE_NO_INTERFACE;
	return 0;
}

/* The link bandwidth paths from this neighbor are weighted with: the raw
 * one, or lower while an increase waits out its hold-down (WP-7).
 */
double fare_peer_link_bw(struct fare_instance *fi, struct peer *peer, const char **source,
			 bool *held)
{
	struct fare_peer *fp = fi ? fare_peer_of(fi, peer) : NULL;
	double bw = fare_peer_link_bw_raw(fp, peer, source);

	if (held)
		*held = false;
	if (fp && fp->t_hold && !fp->recovering && fp->held_bw < bw) {
		bw = fp->held_bw;
		if (held)
			*held = true;
	}
	return bw;
}

bool fare_peer_recovering(struct fare_instance *fi, struct peer *peer)
{
	struct fare_peer *fp = fare_peer_of(fi, peer);

	return fp->t_hold && fp->recovering;
}

/* The interface a session runs over, by name, or NULL; for FARE-3, EE-2
 * and the show commands. bgpd sets peer->nexthop.ifp when a connection
 * is made and keeps it after the session goes down and after the
 * interface is deleted (the interface is then freed): it is never
 * followed here unless it is still one of the VRF's interfaces and the
 * session is up. In order: the interface of an unnumbered neighbor or of
 * "neighbor X interface IF" (as configured, so that a link that is down
 * or gone keeps its name); the interface whose connected subnet holds a
 * numbered neighbor's address (up or down; none once the interface is
 * gone); the one of an established session's local address.
 */
const char *fare_peer_ifname(struct peer *peer)
{
	const union sockunion *su = &peer->connection->su;
	vrf_id_t vrf_id = peer->bgp->vrf_id;
	struct interface *ifp = NULL;
	struct connected *c = NULL;
	struct vrf *vrf;

	if (peer->conf_if)
		return peer->conf_if;
	if (peer->ifname)
		return peer->ifname;
	if (su->sa.sa_family == AF_INET) {
		c = if_lookup_address(&su->sin.sin_addr, AF_INET, vrf_id);
	} else if (su->sa.sa_family == AF_INET6) {
		if (IN6_IS_ADDR_LINKLOCAL(&su->sin6.sin6_addr))
			ifp = su->sin6.sin6_scope_id
				      ? if_lookup_by_index(su->sin6.sin6_scope_id, vrf_id)
				      : NULL;
		else
			c = if_lookup_address(&su->sin6.sin6_addr, AF_INET6, vrf_id);
	}
	if (c && c->ifp)
		return c->ifp->name;
	if (ifp)
		return ifp->name;
	if (!peer->nexthop.ifp || !peer_established(peer->connection))
		return NULL;
	vrf = vrf_lookup_by_id(vrf_id);
	if (!vrf)
		return NULL;
	FOR_ALL_INTERFACES (vrf, ifp)
		if (ifp == peer->nexthop.ifp)
			return ifp->name;
	return NULL;
}

/* The interface a neighbor's session runs over, looked up by name in its
 * VRF (fare_peer_ifname()): never a pointer to an interface deleted since.
 */
struct interface *fare_peer_interface(struct peer *peer)
{
	const char *name = fare_peer_ifname(peer);

	return name ? if_lookup_by_name(name, peer->bgp->vrf_id) : NULL;
}
