// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: the host role of a multi-plane scale-up network (SUN-1, SUN-2,
 * SUN-6). A GPU server peers with the switch of every plane, one session
 * per sub-port of its Y-cables, originates its GPUs' loopbacks and weights
 * each remote GPU across planes by the planes' path bandwidth.
 *
 * What this file adds to a node's behaviour: the server never becomes
 * transit between planes (only routes it originates are announced), and
 * "show bgp fare planes" tells, per destination GPU, each plane's weight
 * and share, and why a plane carries nothing (its sessions are down, with
 * bgpd's reason such as "BFD down received", or it has no route).
 */
#include <zebra.h>
#include <math.h>

#include "bfd.h"
#include "json.h"
#include "linklist.h"
#include "prefix.h"
#include "vty.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_bfd.h"
#include "bgpd/bgp_debug.h"
#include "bgpd/bgp_fsm.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_eval.h"
#include "bgpd/fare/bgp_fare_host.h"

/* SUN-1: a host withholds every route it did not originate, so that it
 * never re-advertises one plane's routes into another.
 */
int fare_host_announce_withhold(struct bgp_dest *dest, struct bgp_path_info *pi,
				struct update_subgroup *subgrp, struct peer *peer, afi_t afi,
				safi_t safi)
{
	struct fare_instance *fi = fare_instance_find(peer->bgp);

	if (!fi || fi->role != FARE_ROLE_HOST || safi != SAFI_UNICAST)
		return 0;
	if (fare_role_announces(fi->role, fare_route_is_local(peer->bgp, pi)))
		return 0;
	fi->counters.transit_withheld++;
	if (FARE_DEBUG)
		zlog_debug("FARE: %pBD to %pBP: host role, not originated here: withheld", dest,
			   peer);
	return 1;
}

/* Remember which router a session reached (a plane's switch): bgpd clears
 * the remote router-id when the session goes down, and the planes table
 * still has to name the plane that is down.
 */
static void fare_host_peer_up(struct fare_instance *fi, struct peer *peer)
{
	struct fare_peer *view;

	if (fare_peer_is_accept(peer) || !peer->remote_id.s_addr)
		return;
	view = fare_peer_of(fi, peer);
	view->plane_id = peer->remote_id;
	strlcpy(view->plane_name, peer->hostname ? peer->hostname : "", sizeof(view->plane_name));
}

#define FARE_PLANES_MAX 64

struct fare_plane {
	struct in_addr id;
	char name[64];
	unsigned int sessions, up;
	struct peer *down; /* a session that is down: its reason */
	/* per destination */
	uint64_t weight;
	double bw;
	unsigned int paths;
};

static struct fare_plane fare_planes[FARE_PLANES_MAX];
static size_t fare_nplanes;

static bool fare_host_peer_counts(const struct peer *peer)
{
	return !fare_peer_is_accept(peer) &&
	       (peer->afc[AFI_IP][SAFI_UNICAST] || peer->afc[AFI_IP6][SAFI_UNICAST]);
}

/* The plane of a session: the router it reaches now, else the one it last
 * reached; 0.0.0.0 for a session never established.
 */
static struct fare_plane *fare_plane_of(struct fare_instance *fi, struct peer *peer, bool add)
{
	struct fare_peer *view = fare_peer_of(fi, peer);
	struct in_addr id = peer->remote_id.s_addr ? peer->remote_id : view->plane_id;
	struct fare_plane *pl;
	size_t i;

	for (i = 0; i < fare_nplanes; i++)
		if (fare_planes[i].id.s_addr == id.s_addr)
			return &fare_planes[i];
	if (!add || fare_nplanes == FARE_PLANES_MAX)
		return NULL;
	pl = &fare_planes[fare_nplanes++];
	memset(pl, 0, sizeof(*pl));
	pl->id = id;
	if (view->plane_name[0] && view->plane_id.s_addr == id.s_addr)
		strlcpy(pl->name, view->plane_name, sizeof(pl->name));
	else if (id.s_addr)
		inet_ntop(AF_INET, &id, pl->name, sizeof(pl->name));
	else
		strlcpy(pl->name, "unknown", sizeof(pl->name));
	return pl;
}

static const char *fare_bfd_state_str(const struct peer *peer)
{
	if (!peer->bfd_config || !peer->bfd_config->session)
		return "off";
	switch (bfd_sess_status(peer->bfd_config->session)) {
	case BSS_UP:
		return "up";
	case BSS_DOWN:
		return "down";
	case BSS_ADMIN_DOWN:
		return "admin-down";
	case BSS_UNKNOWN:
		break;
	}
	return "unknown";
}

/* Why a session went down: bgpd's reason and, for a notification, its
 * code and subcode ("BGP Notification send (Cease/BFD Down)": BFD takes
 * an established session down with a Cease, SUN-6; FRR 10.7 keeps BFD's
 * own reason, "BFD down initiated").
 */
static const char *fare_peer_reset_str(const struct peer *peer)
{
	static char buf[160];
	const char *why = peer->last_reset <= FARE_PEER_DOWN_LAST ? peer_down_str[peer->last_reset]
								  : "unknown";

	if (peer->last_reset != PEER_DOWN_NOTIFY_SEND &&
	    peer->last_reset != PEER_DOWN_NOTIFY_RECEIVED)
		return why;
	snprintf(buf, sizeof(buf), "%s (%s%s)", why, bgp_notify_code_str(peer->notify.code),
		 bgp_notify_subcode_str(peer->notify.code, peer->notify.subcode));
	return buf;
}

/* Why a plane carries nothing towards a destination. */
static void fare_plane_reason(const struct fare_plane *pl, char *buf, size_t len)
{
	if (!pl->up)
		snprintf(buf, len, "sessions down (%s)",
			 pl->down ? fare_peer_reset_str(pl->down) : "never established");
	else if (!pl->paths)
		snprintf(buf, len, "no route from this plane");
	else
		snprintf(buf, len, "weight 0 (held down or left out by the member budget)");
}

static void fare_host_planes_collect(struct fare_instance *fi, struct bgp *bgp)
{
	struct listnode *node;
	struct peer *peer;

	fare_nplanes = 0;
	for (ALL_LIST_ELEMENTS_RO(bgp->peer, node, peer)) {
		struct fare_plane *pl;

		if (!fare_host_peer_counts(peer))
			continue;
		pl = fare_plane_of(fi, peer, true);
		if (!pl)
			continue;
		pl->sessions++;
		if (peer_established(peer->connection))
			pl->up++;
		else if (!pl->down)
			pl->down = peer;
	}
}

static void fare_host_planes_show(struct vty *vty, struct fare_instance *fi, struct bgp *bgp,
				  json_object *json)
{
	json_object *jplanes = json ? json_object_new_array() : NULL;
	struct listnode *node;
	struct peer *peer;
	size_t i;

	if (!json)
		vty_out(vty, "Planes (neighbor routers), %s, role %s:\n", bgp->name_pretty,
			fi->role == FARE_ROLE_HOST ? "host" : "not host");
	for (i = 0; i < fare_nplanes; i++) {
		struct fare_plane *pl = &fare_planes[i];
		json_object *jpl = NULL, *jsess = NULL;
		char id[INET_ADDRSTRLEN];

		inet_ntop(AF_INET, &pl->id, id, sizeof(id));
		if (json) {
			jpl = json_object_new_object();
			jsess = json_object_new_array();
			json_object_string_add(jpl, "plane", pl->name);
			json_object_string_add(jpl, "routerId", id);
			json_object_int_add(jpl, "sessions", pl->sessions);
			json_object_int_add(jpl, "sessionsUp", pl->up);
			json_object_string_add(jpl, "state", pl->up ? "up" : "down");
		} else {
			vty_out(vty, "  %-16s %-15s %u/%u session(s) up\n", pl->name, id, pl->up,
				pl->sessions);
		}
		for (ALL_LIST_ELEMENTS_RO(bgp->peer, node, peer)) {
			bool up;

			if (!fare_host_peer_counts(peer) || fare_plane_of(fi, peer, false) != pl)
				continue;
			up = peer_established(peer->connection);
			if (json) {
				json_object *js = json_object_new_object();

				json_object_string_add(js, "neighbor", fare_peer_cfg_name(peer));
				json_object_string_add(js, "state",
						       lookup_msg(bgp_status_msg,
								  peer->connection->status, NULL));
				json_object_string_add(js, "bfd", fare_bfd_state_str(peer));
				if (!up)
					json_object_string_add(js, "lastReset",
							       fare_peer_reset_str(peer));
				json_object_array_add(jsess, js);
			} else {
				vty_out(vty, "    %-14s %-12s bfd %s", fare_peer_cfg_name(peer),
					lookup_msg(bgp_status_msg, peer->connection->status, NULL),
					fare_bfd_state_str(peer));
				if (!up)
					vty_out(vty, ", last reset: %s", fare_peer_reset_str(peer));
				vty_out(vty, "\n");
			}
		}
		if (json) {
			json_object_object_add(jpl, "sessionList", jsess);
			json_object_array_add(jplanes, jpl);
		}
	}
	if (json)
		json_object_object_add(json, "planes", jplanes);
}

/* Per destination (a route not originated here), each plane's bandwidth,
 * weight and share of the installed group, and why a plane has none.
 */
static void fare_host_dest_show(struct vty *vty, struct fare_instance *fi, struct bgp *bgp,
				struct bgp_dest *dest, struct bgp_path_info *best,
				json_object *jdests)
{
	static struct fare_prefix fp;
	json_object *jd = NULL, *jpls = NULL;
	uint64_t total = 0;
	size_t i, k;
	char pfx[PREFIX2STR_BUFFER], bwbuf[64], reason[96];

	fare_prefix_compute_dest(fi, dest, best, &fp);
	for (i = 0; i < fare_nplanes; i++) {
		fare_planes[i].weight = 0;
		fare_planes[i].bw = 0;
		fare_planes[i].paths = 0;
	}
	for (k = 0; k < fp.n; k++) {
		struct fare_plane *pl = fare_plane_of(fi, fp.paths[k]->peer, false);
		uint32_t w = fp.out.wcmp ? fp.weights[k] : 1;

		if (!pl)
			continue;
		pl->paths++;
		pl->weight += w;
		pl->bw += fp.path_bw[k];
		total += w;
	}

	prefix2str(bgp_dest_get_prefix(dest), pfx, sizeof(pfx));
	if (jdests) {
		jd = json_object_new_object();
		jpls = json_object_new_object();
		json_object_boolean_add(jd, "wcmp", fp.out.wcmp);
		if (!fp.out.wcmp)
			json_object_string_add(jd, "reason", fare_reason_str(fp.out.reason));
	} else {
		vty_out(vty, "%s: %s\n", pfx,
			fp.out.wcmp ? "weighted" : fare_reason_str(fp.out.reason));
	}
	for (i = 0; i < fare_nplanes; i++) {
		struct fare_plane *pl = &fare_planes[i];
		double share = total ? 100.0 * pl->weight / total : 0;

		if (!pl->id.s_addr && !pl->paths)
			continue; /* sessions never up, and nothing from them */
		reason[0] = '\0';
		if (!pl->weight)
			fare_plane_reason(pl, reason, sizeof(reason));
		fare_bw_format(bwbuf, sizeof(bwbuf), pl->bw);
		if (jpls) {
			json_object *jp = json_object_new_object();
			json_object *jlinks = json_object_new_object();

			json_object_int_add(jp, "weight", pl->weight);
			json_object_double_add(jp, "sharePercent", round(share * 100) / 100);
			json_object_double_add(jp, "bandwidthBytesPerSec", pl->bw);
			json_object_string_add(jp, "bandwidthBytesPerSecText", bwbuf);
			for (k = 0; k < fp.n; k++)
				if (fare_plane_of(fi, fp.paths[k]->peer, false) == pl)
					json_object_int_add(jlinks,
							    fare_peer_cfg_name(fp.paths[k]->peer),
							    fp.out.wcmp ? fp.weights[k] : 1);
			json_object_object_add(jp, "links", jlinks);
			if (reason[0])
				json_object_string_add(jp, "reason", reason);
			json_object_object_add(jpls, pl->name, jp);
		} else {
			vty_out(vty, "    %-16s weight %-5" PRIu64 " %5.1f%%  %-10s", pl->name,
				pl->weight, share, pl->weight ? bwbuf : "-");
			for (k = 0; k < fp.n; k++)
				if (fare_plane_of(fi, fp.paths[k]->peer, false) == pl)
					vty_out(vty, " %s:%u", fare_peer_cfg_name(fp.paths[k]->peer),
						fp.out.wcmp ? fp.weights[k] : 1);
			vty_out(vty, "%s\n", reason);
		}
	}
	if (jd) {
		json_object_object_add(jd, "planes", jpls);
		json_object_object_add(jdests, pfx, jd);
	}
}

struct fare_host_walk {
	struct vty *vty;
	struct fare_instance *fi;
	json_object *jdests;
};

static void fare_host_walk_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	struct fare_host_walk *w = arg;

	if (!fare_route_is_local(w->fi->bgp, best))
		fare_host_dest_show(w->vty, w->fi, w->fi->bgp, dest, best, w->jdests);
}

void fare_host_show(struct vty *vty, struct bgp *bgp, struct fare_instance *fi, json_object *json)
{
	json_object *jdests = json ? json_object_new_object() : NULL;
	struct fare_host_walk w = { .vty = vty, .fi = fi, .jdests = jdests };

	if (json) {
		json_object_string_add(json, "vrf", bgp->name_pretty);
		json_object_string_add(json, "role",
				       fi->role == FARE_ROLE_HOST	   ? "host"
				       : fi->role == FARE_ROLE_SUPER_SPINE ? "super-spine"
									   : "node");
		json_object_int_add(json, "transitWithheld", fi->counters.transit_withheld);
	}
	fare_host_planes_collect(fi, bgp);
	fare_host_planes_show(vty, fi, bgp, json);
	if (!json)
		vty_out(vty, "Destinations (weight and share per plane):\n");
	fare_unicast_walk_show(bgp, AFI_UNSPEC, fare_host_walk_dest, &w);
	if (json)
		json_object_object_add(json, "destinations", jdests);
}

const struct fare_feature fare_host_feature = {
	.name = "host role",
	.peer_up = fare_host_peer_up,
};
