// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the FARE communities of an outgoing attribute (the
 * bgp_route_announce_attr hook): FARE-2 origination, FARE-5 rewrite of
 * the sum, FARE-7 strip, FARE-8/9 pass-on, FARE-11 boundary strip, and
 * the ECMP GroupID of originated routes (EE-3). Calls down into the
 * evaluation's results and Enhanced ECMP's egress tag.
 */
#include <zebra.h>

#include "jhash.h"
#include "memory.h"
#include "prefix.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_ecommunity.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"
#include "bgpd/bgp_updgrp.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_announce.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_eval.h"

/* FARE-1/5: the AS a value written for this neighbor carries: the AS the
 * neighbor knows this router by, which is what its freshness check
 * (FARE-7) compares: `neighbor X local-as`, the confederation identifier
 * across a confederation border, else the instance's AS.
 */
static as_t fare_writer_as(const struct peer *peer)
{
	if (peer->change_local_as)
		return peer->change_local_as;
	return peer->local_as ? peer->local_as : peer->bgp->as;
}

/* A value for the wire: sums of "max" values exceed the largest float, and
 * converting those to float is undefined; they stay "max" (FARE-2).
 */
static float fare_wire_float(double bytes_per_sec)
{
	if (bytes_per_sec >= FARE_PATHBW_MAX_BYTES_PER_SEC)
		return FARE_PATHBW_MAX_BYTES_PER_SEC;
	return (float)bytes_per_sec;
}

/* What to change in the FARE communities of an outgoing attribute */
struct fare_attr_edit {
	uint8_t subtype; /* Path Bandwidth */
	bool strip_t, strip_nt;
	const uint8_t *add_t, *add_nt;
	uint8_t gid_subtype; /* ECMP GroupID (EE-3) */
	bool strip_gid;
	const uint8_t *add_gid;
};

/* The extended communities an edit makes of the ones an attribute came
 * with, computed once per distinct (communities, edit) and then taken
 * from here: bgpd asks per route and per update-group, and most routes
 * share a few sets of communities and values. The key is the content,
 * not the address (a set freed and another made at its address is not
 * the same); each result is held interned (a reference of its own) and
 * set on the attribute as bgpd's route-maps set theirs, interned.
 */
#define FARE_EDIT_SLOTS	   1024 /* a power of 2 */
#define FARE_EDIT_KEY_VALS 8	/* larger sets: computed each time */

struct fare_edit_key {
	uint8_t subtype, gid_subtype;
	uint8_t strip_t, strip_nt, strip_gid;
	uint8_t has_t, has_nt, has_gid;
	uint8_t add_t[FARE_ECOMM_SIZE], add_nt[FARE_ECOMM_SIZE], add_gid[FARE_ECOMM_SIZE];
	uint32_t n_in;
	uint8_t in[FARE_EDIT_KEY_VALS * FARE_ECOMM_SIZE];
};

struct fare_edit_slot {
	bool used;
	struct fare_edit_key key;
	struct ecommunity *out; /* interned; NULL: none left */
};

DEFINE_MTYPE_STATIC(FARE, FARE_EDIT_CACHE, "FARE outgoing communities");

static struct fare_edit_slot *fare_edit_slots;

/* The slot of the edit of `old`, key filled; NULL: not kept. */
static struct fare_edit_slot *fare_edit_slot(const struct ecommunity *old,
					     const struct fare_attr_edit *e,
					     struct fare_edit_key *key)
{
	uint32_t n = old ? old->size : 0;

	if (n > FARE_EDIT_KEY_VALS)
		return NULL;
	memset(key, 0, sizeof(*key));
	key->subtype = e->subtype;
	key->gid_subtype = e->gid_subtype;
	key->strip_t = e->strip_t;
	key->strip_nt = e->strip_nt;
	key->strip_gid = e->strip_gid;
	key->has_t = !!e->add_t;
	key->has_nt = !!e->add_nt;
	key->has_gid = !!e->add_gid;
	if (e->add_t)
		memcpy(key->add_t, e->add_t, FARE_ECOMM_SIZE);
	if (e->add_nt)
		memcpy(key->add_nt, e->add_nt, FARE_ECOMM_SIZE);
	if (e->add_gid)
		memcpy(key->add_gid, e->add_gid, FARE_ECOMM_SIZE);
	key->n_in = n;
	if (n)
		memcpy(key->in, old->val, n * FARE_ECOMM_SIZE);
	if (!fare_edit_slots)
		fare_edit_slots = XCALLOC(MTYPE_FARE_EDIT_CACHE,
					  FARE_EDIT_SLOTS * sizeof(*fare_edit_slots));
	return &fare_edit_slots[jhash(key, sizeof(*key), 0x46415245) & (FARE_EDIT_SLOTS - 1)];
}

static void fare_attr_edit(struct attr *attr, const struct fare_attr_edit *e)
{
	struct ecommunity *old = bgp_attr_get_ecommunity(attr);
	struct ecommunity *new;
	struct ecommunity_val eval;
	struct fare_pathbw pb;
	struct fare_groupid gid;
	struct fare_edit_key key;
	struct fare_edit_slot *slot;
	const uint8_t *adds[] = { e->add_t, e->add_nt, e->add_gid };
	uint32_t i;

	if (old && old->unit_size != FARE_ECOMM_SIZE)
		return;

	slot = fare_edit_slot(old, e, &key);
	if (slot && slot->used && !memcmp(&slot->key, &key, sizeof(key))) {
		if (slot->out == old)
			return;
		bgp_attr_set_ecommunity(attr, slot->out);
		if (old && !old->refcnt)
			ecommunity_free(&old);
		return;
	}

	new = ecommunity_new();
	for (i = 0; old && i < old->size; i++) {
		const uint8_t *val = old->val + i * old->unit_size;

		if (fare_pathbw_decode(val, e->subtype, &pb) &&
		    ((pb.transitive && e->strip_t) || (!pb.transitive && e->strip_nt)))
			continue;
		if (e->strip_gid && fare_groupid_decode(val, FARE_GROUPID_SIZE, e->gid_subtype,
							&gid) != FARE_GROUPID_NOT_OURS)
			continue;
		memcpy(eval.val, val, FARE_ECOMM_SIZE);
		ecommunity_add_val(new, &eval, false, false);
	}
	for (i = 0; i < array_size(adds); i++) {
		if (!adds[i])
			continue;
		memcpy(eval.val, adds[i], FARE_ECOMM_SIZE);
		ecommunity_add_val(new, &eval, false, false);
	}

	if (!new->size)
		ecommunity_free(&new);
	if (slot) {
		if (slot->used && slot->out)
			ecommunity_unintern(&slot->out);
		if (new)
			new = ecommunity_intern(new);
		slot->used = true;
		slot->key = key;
		slot->out = new;
	}
	bgp_attr_set_ecommunity(attr, new);
	if (old && !old->refcnt)
		ecommunity_free(&old);
}

void fare_announce_fini(void)
{
	size_t i;

	for (i = 0; fare_edit_slots && i < FARE_EDIT_SLOTS; i++)
		if (fare_edit_slots[i].out)
			ecommunity_unintern(&fare_edit_slots[i].out);
	XFREE(MTYPE_FARE_EDIT_CACHE, fare_edit_slots);
}

/* Rewrite the Path Bandwidth communities of an outgoing attribute: remove
 * those of the given types, then add the given values.
 */
static void fare_attr_rewrite(struct attr *attr, uint8_t subtype, bool strip_t, bool strip_nt,
			      const uint8_t *add_t, const uint8_t *add_nt)
{
	struct fare_attr_edit e = { .subtype = subtype,
				    .strip_t = strip_t,
				    .strip_nt = strip_nt,
				    .add_t = add_t,
				    .add_nt = add_nt };

	fare_attr_edit(attr, &e);
}

int fare_announce_attr(struct bgp_dest *dest, struct bgp_path_info *pi,
		       struct update_subgroup *subgrp, struct peer *conf, afi_t afi, safi_t safi,
		       struct attr *attr, bool nh_self)
{
	/* A neighbor the attribute goes to: the update-group's copy of the
	 * configuration keeps the interface of whichever peer created the
	 * group, and all members share our class (fare_updgrp_peer_class).
	 */
	struct peer_af *paf = subgrp ? LIST_FIRST(&subgrp->peers) : NULL;
	struct peer *peer = paf ? paf->peer : conf;
	struct bgp *bgp = peer->bgp;
	struct fare_instance *fi = fare_instance_find(bgp);
	uint8_t ec_t[FARE_ECOMM_SIZE], ec_nt[FARE_ECOMM_SIZE];
	struct fare_result *res;
	double t_value;
	bool strip_t = false, strip_nt = false;
	const uint8_t *add_t = NULL, *add_nt = NULL;
	const char *src;
	as_t writer_as = fare_writer_as(peer);

	if (!fi || !fare_afi_safi(afi, safi))
		return 0;

	/* FARE-11: never leaves the fabric across a boundary peer. */
	if (fare_peer_flag(fi, peer, FARE_PEER_BOUNDARY)) {
		struct ecommunity *ecom = bgp_attr_get_ecommunity(attr);

		if (ecom && ecom->size) {
			size_t before = ecom->size;

			struct fare_attr_edit e = { .subtype = fi->subtype,
						    .strip_t = true,
						    .strip_nt = true,
						    .gid_subtype = fare_ecmp_groupid_subtype(fi),
						    .strip_gid = true };

			fare_attr_edit(attr, &e);
			ecom = bgp_attr_get_ecommunity(attr);
			if ((ecom ? ecom->size : 0) != before)
				fi->counters.stripped_boundary++;
		}
		return 0;
	}

	if (!fi->enabled)
		return 0;

	if (fare_route_is_local(bgp, pi)) {
		double value = fi->originate_bw;
		uint8_t ec_gid[FARE_GROUPID_SIZE];
		uint16_t group = fare_ecmp_egress_group(fi, bgp_dest_get_prefix(dest));
		struct fare_attr_edit e = { .subtype = fi->subtype,
					    .gid_subtype = fare_ecmp_groupid_subtype(fi) };

		/* FARE-2: the originating leaf fills in the maximum; WP-1:
		 * in averaged mode, the line rate of the outgoing interface.
		 */
		if (fi->originate) {
			if (fi->mode == FARE_MODE_AVERAGED)
				value = fare_averaged_advertised(value, 1,
								 fare_peer_link_bw(fi, peer, &src,
										   NULL));
			fare_pathbw_encode(ec_t, true, fi->subtype, writer_as,
					   fare_wire_float(value));
			e.strip_t = e.strip_nt = true;
			e.add_t = ec_t;
			fi->counters.originated++;
		}
		/* EE-3: the egress leaf's ECMP GroupID, next to it */
		if (group) {
			fare_groupid_encode(ec_gid, fare_ecmp_groupid_subtype(fi),
					    ntohl(bgp->router_id.s_addr), group);
			e.strip_gid = true;
			e.add_gid = ec_gid;
		}
		if (e.add_t || e.add_gid)
			fare_attr_edit(attr, &e);
		return 0;
	}

	/* FARE-5 sums the bandwidth behind this router: only a router that
	 * puts itself in the forwarding path rewrites the value. A route
	 * reflected, or sent with its next hop unchanged, keeps the value
	 * it came with (the one-hop non-transitive one aside).
	 */
	if (!nh_self) {
		fare_attr_rewrite(attr, fi->subtype, false, true, NULL, NULL);
		fi->counters.passed_unchanged++;
		if (FARE_DEBUG)
			zlog_debug("FARE: %pBD to %pBP: next hop not self, transitive passed unchanged",
				   dest, peer);
		return 0;
	}

	/* Add-path sends other paths than the best one: each carries what
	 * the whole multipath set gives, which is what this router forwards
	 * over (FARE-5).
	 */
	if (!CHECK_FLAG(pi->flags, BGP_PATH_SELECTED)) {
		struct bgp_path_info *best = fare_dest_selected(dest);

		if (best)
			pi = best;
	}

	res = fare_result_get(fi, dest, pi);
	t_value = res->t_value;

	switch ((enum fare_adv_action)res->t_action) {
	case FARE_ADV_REPLACE: /* FARE-5; WP-2 in averaged mode */
		if (fi->mode == FARE_MODE_AVERAGED) {
			if (res->n_out < 0)
				res->n_out = fare_eligible_outgoing_best(fi, dest, pi, afi);
			t_value = fare_averaged_advertised(t_value, res->n_out,
							   fare_peer_link_bw(fi, peer, &src, NULL));
		}
		fare_pathbw_encode(ec_t, true, fi->subtype, writer_as, fare_wire_float(t_value));
		strip_t = true;
		add_t = ec_t;
		fi->counters.replaced++;
		break;
	case FARE_ADV_STRIP: /* FARE-7 */
		strip_t = true;
		fi->counters.stripped_fallback++;
		break;
	case FARE_ADV_KEEP: /* FARE-8/9 */
		/* A super-spine passes it on as it is (FARE-8). A spine
		 * that passes on what came through super-spines (FARE-9)
		 * vouches for it with its own AS, so that its leaves see a
		 * fresh value (FARE-7); one that came stale is removed.
		 */
		if (fi->role == FARE_ROLE_SUPER_SPINE || !res->n)
			break;
		strip_t = true;
		if (res->kept_present) {
			fare_pathbw_encode(ec_t, true, fi->subtype, writer_as,
					   fare_wire_float(res->kept_bw));
			add_t = ec_t;
		}
		break;
	}
	/* A non-transitive value is for one hop only: never pass one on
	 * (FRR strips them on eBGP; this also covers iBGP).
	 */
	strip_nt = true;
	if (res->nt_attach) { /* FARE-8 */
		fare_pathbw_encode(ec_nt, false, fi->subtype, writer_as,
				   fare_wire_float(res->nt_value));
		add_nt = ec_nt;
		fi->counters.nt_attached++;
	}
	fare_attr_rewrite(attr, fi->subtype, strip_t, strip_nt, add_t, add_nt);

	if (FARE_DEBUG)
		zlog_debug("FARE: %pBD to %pBP: transitive %s %.6g, non-transitive %s %.6g", dest,
			   peer, fare_adv_action_str(res->t_action), t_value,
			   res->nt_attach ? "attach" : "none", res->nt_value);
	return 0;
}
