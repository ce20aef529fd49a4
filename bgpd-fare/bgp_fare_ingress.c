// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP ingress-interface grouping (EE-1) in the Linux
 * kernel's forwarding, through zebra.
 *
 * The operator puts host-facing interfaces in groups; in a group of n
 * interfaces (name order), interface k gets a kernel table of its own and
 * a policy rule "iif IFNAME lookup TABLE", both sent to zebra as pbrd and
 * BGP flowspec send theirs (ZAPI rules and routes with a table ID). In
 * that table each BGP prefix has one route: via the member of the
 * prefix's next-hop list that port k is given, the n ports apportioned to
 * the members by their installed weights (core: fare_ecmp_port_members()).
 * So the n ingress ports of a group leave by n distinct members when the
 * weights are equal, and by the weights otherwise. Kept current from the
 * routes bgpd sends to zebra and from every selection of a destination.
 *
 * An ingress table never captures traffic it does not own: a BGP prefix
 * is copied only while the main table's route for it is zebra's BGP route,
 * and every other prefix of the main table gets a throw route in each
 * ingress table, so the lookup from a grouped port gives the main table's
 * answer wherever its best match is not the copied BGP route
 * (bgp_fare_ingress_rtnl.c keeps the view of the main table).
 */
#include <zebra.h>

#include "if.h"
#include "jhash.h"
#include "linklist.h"
#include "memory.h"
#include "pbr.h"
#include "prefix.h"
#include "stream.h"
#include "vty.h"
#include "zclient.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_attr.h"
#include "bgpd/bgp_mpath.h"
#include "bgpd/bgp_route.h"
#include "bgpd/bgp_table.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_compat.h"
#include "bgpd/fare/bgp_fare_eval.h"
#include "bgpd/fare/bgp_fare_ingress.h"

DEFINE_MTYPE(FARE, FARE_INGRESS, "FARE ingress grouping");

#define FARE_INGRESS_RULE_PRIORITY 250	      /* free: FRR uses 20, 300+, 1000 */
#define FARE_INGRESS_UNIQUE_BASE   0xEE000000 /* clear of flowspec's counters */

struct fare_ingress_if {
	char *ifname;
	uint32_t group;
};

static void fare_ingress_sync(struct event *event);

static void fare_ingress_if_free(void *arg)
{
	struct fare_ingress_if *ing = arg;

	XFREE(MTYPE_FARE_INGRESS, ing->ifname);
	XFREE(MTYPE_FARE_INGRESS, ing);
}

static void fare_ingress_init(struct fare_instance *fi)
{
	fi->ingress = XCALLOC(MTYPE_FARE_INGRESS, sizeof(*fi->ingress));
	fi->ingress->sync = fare_ingress_sync;
	fi->ingress->ifs = list_new();
	fi->ingress->ifs->del = fare_ingress_if_free;
	fare_ingress_prefixes_init(&fi->ingress->prefixes);
	fare_ingress_pending_init(&fi->ingress->pending);
	fi->ingress->rtnl_events = fi->ingress->rtnl_cmd = -1;
}

bool fare_ingress_enabled(const struct fare_instance *fi)
{
	return fi->enabled && fi->bgp->inst_type == BGP_INSTANCE_TYPE_DEFAULT &&
	       listcount(fi->ingress->ifs);
}

/* Interfaces of group g in name order (the list is kept sorted). */
static uint32_t fare_ingress_group_size(const struct fare_instance *fi, uint32_t g)
{
	struct fare_ingress_if *ing;
	struct listnode *node;
	uint32_t n = 0;

	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing))
		n += ing->group == g;
	return n;
}

uint32_t fare_ingress_table(uint32_t group, uint32_t index)
{
	return FARE_INGRESS_TABLE_BASE + (group - 1) * 256 + (index - 1);
}

/* Walking the interfaces in order: the index of ing in its group. */
static uint32_t fare_ingress_index(const struct fare_ingress_if *ing, uint32_t *last_group,
				   uint32_t *index)
{
	*index = ing->group == *last_group ? *index + 1 : 1;
	*last_group = ing->group;
	return *index;
}

/* ------------------------------------------------------------------ */
/* ZAPI: rules and table routes                                         */
/* ------------------------------------------------------------------ */

static void fare_ingress_rule(bool add, int family, const char *ifname, uint32_t group,
			      uint32_t index)
{
	struct zclient *zclient = fare_bgp_zclient();
	struct pbr_rule r = {};
	struct stream *s;

	if (!zclient || zclient->sock < 0)
		return;
	r.family = family;
	r.priority = FARE_INGRESS_RULE_PRIORITY;
	r.unique = FARE_INGRESS_UNIQUE_BASE | (group << 12) | (index << 1) | (family == AF_INET6);
	r.filter.src_ip.family = family;
	r.filter.dst_ip.family = family;
	r.action.flags = PBR_ACTION_TABLE;
	r.action.table = fare_ingress_table(group, index);
	strlcpy(r.ifname, ifname, sizeof(r.ifname));
	s = zclient->obuf;
	stream_reset(s);
	zclient_create_header(s, add ? ZEBRA_RULE_ADD : ZEBRA_RULE_DELETE, VRF_DEFAULT);
	zapi_pbr_rule_encode(s, &r);
	zclient_send_message(zclient);
}

static void fare_ingress_rules(struct fare_instance *fi, bool add)
{
	struct fare_ingress_if *ing;
	struct listnode *node;
	uint32_t last_group = 0, index = 0;

	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing)) {
		fare_ingress_index(ing, &last_group, &index);
		fare_ingress_rule(add, AF_INET, ing->ifname, ing->group, index);
		fare_ingress_rule(add, AF_INET6, ing->ifname, ing->group, index);
	}
	fi->ingress->rules_installed = add;
}

/* The next hop of a path as bgpd gives it to zebra: the neighbor's
 * address on the session's interface (IPv6 link-local for unnumbered
 * sessions and IPv4 routes over them, RFC 5549).
 */
static bool fare_ingress_nexthop(const struct bgp_path_info *pi, afi_t afi, struct zapi_nexthop *nh)
{
	const struct attr *attr = pi->attr;
	const struct interface *ifp = fare_peer_interface(pi->peer);

	if (!ifp)
		return false;
	memset(nh, 0, sizeof(*nh));
	nh->vrf_id = VRF_DEFAULT;
	nh->ifindex = ifp->ifindex;
	if (afi == AFI_IP6 || attr->mp_nexthop_len >= BGP_ATTR_NHLEN_IPV6_GLOBAL) {
		nh->type = NEXTHOP_TYPE_IPV6_IFINDEX;
		nh->gate.ipv6 = attr->mp_nexthop_len == BGP_ATTR_NHLEN_IPV6_GLOBAL_AND_LL
					? attr->mp_nexthop_local
					: attr->mp_nexthop_global;
	} else {
		nh->type = NEXTHOP_TYPE_IPV4_IFINDEX;
		nh->gate.ipv4 = attr->nexthop;
	}
	return true;
}

static void fare_ingress_route(bool add, uint32_t table, const struct prefix *p,
			       const struct zapi_nexthop *nh)
{
	struct zclient *zclient = fare_bgp_zclient();
	struct zapi_route api = {};

	if (!zclient || zclient->sock < 0)
		return;
	api.vrf_id = VRF_DEFAULT;
	api.type = ZEBRA_ROUTE_BGP;
	api.safi = SAFI_UNICAST;
	prefix_copy(&api.prefix, p);
	SET_FLAG(api.message, ZAPI_MESSAGE_TABLEID);
	api.tableid = table;
	if (add) {
		SET_FLAG(api.message, ZAPI_MESSAGE_NEXTHOP);
		api.nexthop_num = 1;
		api.nexthops[0] = *nh;
	}
	zclient_route_send(add ? ZEBRA_ROUTE_ADD : ZEBRA_ROUTE_DELETE, zclient, &api);
}

/* Remove a prefix from every ingress table of the configuration. */
static void fare_ingress_withdraw(struct fare_instance *fi, const struct prefix *p)
{
	struct fare_ingress_if *ing;
	struct listnode *node;
	uint32_t last_group = 0, index = 0;

	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing))
		fare_ingress_route(false,
				   fare_ingress_table(ing->group,
						      fare_ingress_index(ing, &last_group, &index)),
				   p, NULL);
}

/* EE-1: the route of one prefix in every ingress table; false when it has
 * none (withdrawn, local, or a port without a next hop to give: then the
 * whole prefix is left to the main table, by a throw route).
 */
static bool fare_ingress_install(struct fare_instance *fi, struct bgp_dest *dest)
{
	static struct bgp_path_info *paths[MULTIPATH_NUM];
	static uint32_t weights[MULTIPATH_NUM];
	static int32_t member_of_port[256];
	const struct prefix *p = bgp_dest_get_prefix(dest);
	struct bgp_path_info *best = fare_dest_selected(dest);
	struct fare_ingress_if *ing;
	struct listnode *node;
	uint32_t last_group, index, n_ports;
	struct zapi_nexthop nh;
	size_t n = 0;
	int pass;

	if (!best || fare_route_is_local(fi->bgp, best))
		return false;
	n = fare_dest_mpaths(dest, best, paths, MULTIPATH_NUM);
	fare_installed_weights(fi, dest, best, weights, n);

	/* pass 0: every port has a next hop; pass 1: the routes */
	for (pass = 0; pass < 2; pass++) {
		last_group = index = 0;
		for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing)) {
			if (ing->group != last_group) {
				n_ports = fare_ingress_group_size(fi, ing->group);
				if (n_ports > array_size(member_of_port))
					n_ports = array_size(member_of_port);
				fare_ecmp_port_members(weights, n, n_ports, member_of_port);
				index = 0;
			}
			index++;
			last_group = ing->group;
			if (index > array_size(member_of_port) || member_of_port[index - 1] < 0 ||
			    !fare_ingress_nexthop(paths[member_of_port[index - 1]],
						  family2afi(p->family), &nh))
				return false;
			if (pass)
				fare_ingress_route(true, fare_ingress_table(ing->group, index), p,
						   &nh);
		}
	}
	return true;
}

/* The tables of the layout, in interface order (n = listcount(ifs)). */
static uint32_t *fare_ingress_tables(const struct fare_instance *fi, size_t *n)
{
	uint32_t *tables = XCALLOC(MTYPE_FARE_INGRESS,
				   sizeof(*tables) * (listcount(fi->ingress->ifs) + 1));
	struct fare_ingress_if *ing;
	struct listnode *node;
	uint32_t last_group = 0, index = 0;

	*n = 0;
	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing))
		tables[(*n)++] = fare_ingress_table(ing->group,
						    fare_ingress_index(ing, &last_group, &index));
	return tables;
}

static void fare_ingress_throw(struct fare_instance *fi, struct fare_ingress_prefix *e, bool add,
			       const uint32_t *tables, size_t n)
{
	if (e->throw_installed == add)
		return;
	fare_rtnl_throw(fi, add, &e->p, tables, n);
	e->throw_installed = add;
	if (add)
		fi->ingress->throws++;
	else
		fi->ingress->throws--;
}

static void fare_ingress_prefix_free(struct fare_instance *fi, struct fare_ingress_prefix *e)
{
	if (e->pending)
		fare_ingress_pending_del(&fi->ingress->pending, e);
	fare_ingress_prefixes_del(&fi->ingress->prefixes, e);
	fare_rtnl_main_clear(fi, e);
	XFREE(MTYPE_FARE_INGRESS, e);
}

/* The pending prefixes, each to one of two states in every ingress
 * table (EE-1): the copy of the main table's own BGP route for it (the
 * route zebra installed there is BGP's: fare_rtnl_main_is_bgp()), or a
 * throw route when the main table has a route for it that is not copied
 * (connected, kernel, static, IGP, another protocol preferred by zebra,
 * a local BGP route); nothing when the main table has none. So the
 * longest match in an ingress table is the main table's longest match,
 * and where that is not the copied BGP route, the throw hands the lookup
 * to the main table.
 */
static void fare_ingress_sync(struct event *event)
{
	struct fare_instance *fi = EVENT_ARG(event);
	struct fare_ingress_prefix *e;
	size_t n_tables;
	uint32_t *tables = fare_ingress_tables(fi, &n_tables);

	while ((e = fare_ingress_pending_pop(&fi->ingress->pending))) {
		struct bgp_table *table;
		struct bgp_dest *dest = NULL;
		bool copy = false;

		e->pending = false;
		table = fi->bgp->rib[family2afi(e->p.family)][SAFI_UNICAST];
		if (table && fi->ingress->rtnl_events >= 0 && fare_rtnl_main_is_bgp(e))
			dest = bgp_node_lookup(table, &e->p);
		if (dest) {
			copy = fare_ingress_install(fi, dest);
			bgp_dest_unlock_node(dest);
		}
		/* the throw first: it wins over a copy (metric 1 < 20) */
		fare_ingress_throw(fi, e, e->n_main && !copy, tables, n_tables);
		if (!copy && e->installed)
			fare_ingress_withdraw(fi, &e->p);
		e->installed = copy;
		if (!e->installed && !e->throw_installed && !e->n_main)
			fare_ingress_prefix_free(fi, e);
	}
	fare_rtnl_flush(fi);
	XFREE(MTYPE_FARE_INGRESS, tables);
}

/* A prefix's routes or weights may have changed: its ingress routes
 * follow in one deferred pass.
 */
static void fare_ingress_note(struct fare_instance *fi, const struct bgp_dest *dest)
{
	const struct prefix *p = bgp_dest_get_prefix(dest);
	struct bgp_table *table = bgp_dest_table((struct bgp_dest *)dest);

	if (!fare_ingress_enabled(fi) || table->safi != SAFI_UNICAST ||
	    (p->family != AF_INET && p->family != AF_INET6))
		return;
	fare_ingress_mark(fi, fare_ingress_prefix_get(fi, p));
}

/* Before a change of the groups: everything of the old layout goes
 * (copies, throws, rules and the main table's view).
 */
void fare_ingress_flush(struct fare_instance *fi)
{
	struct fare_ingress_prefix *e;
	size_t n_tables;
	uint32_t *tables = fare_ingress_tables(fi, &n_tables);

	event_cancel(&fi->ingress->t_sync);
	frr_each_safe (fare_ingress_prefixes, &fi->ingress->prefixes, e) {
		if (e->installed)
			fare_ingress_withdraw(fi, &e->p);
		fare_ingress_throw(fi, e, false, tables, n_tables);
		fare_ingress_prefix_free(fi, e);
	}
	XFREE(MTYPE_FARE_INGRESS, tables);
	fare_rtnl_close(fi);
	if (fi->ingress->rules_installed)
		fare_ingress_rules(fi, false);
}

/* After it: rules of the new layout, and every prefix again. */
static void fare_ingress_note_dest(struct bgp_dest *dest, struct bgp_path_info *best, void *arg)
{
	fare_ingress_note(arg, dest);
}

void fare_ingress_resync(struct fare_instance *fi)
{
	if (!fare_ingress_enabled(fi))
		return;
	fare_ingress_rules(fi, true);
	fare_rtnl_open(fi); /* the main table's view: every prefix of it pending */
	fare_unicast_walk(fi->bgp, AFI_UNSPEC, fare_ingress_note_dest, fi);
}

static void fare_ingress_fini(struct fare_instance *fi)
{
	fare_ingress_flush(fi);
	fare_ingress_prefixes_fini(&fi->ingress->prefixes);
	fare_ingress_pending_fini(&fi->ingress->pending);
	list_delete(&fi->ingress->ifs);
	XFREE(MTYPE_FARE_INGRESS, fi->ingress);
}

/* Add (group > 0) or remove an interface; the list stays in (group,
 * name) order, which gives each interface its index.
 */
void fare_ingress_if_set(struct fare_instance *fi, const char *ifname, uint32_t group)
{
	struct fare_ingress_if *ing, *next;
	struct listnode *node;

	fare_ingress_flush(fi);
	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing))
		if (strmatch(ing->ifname, ifname))
			break;
	if (ing) {
		listnode_delete(fi->ingress->ifs, ing);
		fare_ingress_if_free(ing);
	}
	if (group) {
		ing = XCALLOC(MTYPE_FARE_INGRESS, sizeof(*ing));
		ing->ifname = XSTRDUP(MTYPE_FARE_INGRESS, ifname);
		ing->group = group;
		for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, next))
			if (next->group > group ||
			    (next->group == group && strcmp(next->ifname, ifname) > 0))
				break;
		if (node)
			listnode_add_before(fi->ingress->ifs, node, ing);
		else
			listnode_add(fi->ingress->ifs, ing);
	}
	fare_ingress_resync(fi);
}

static void fare_ingress_config_write(struct vty *vty, struct fare_instance *fi)
{
	struct fare_ingress_if *ing;
	struct listnode *node;

	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing))
		vty_out(vty, " bgp fare ecmp-ingress-group %u interface %s\n", ing->group,
			ing->ifname);
}

void fare_ingress_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	struct fare_ingress_if *ing;
	struct fare_ingress_prefix *e;
	struct listnode *node;
	json_object *jgroups = NULL, *jg = NULL, *jifs = NULL;
	uint32_t last_group = 0, index = 0, installed = 0;

	frr_each (fare_ingress_prefixes, &fi->ingress->prefixes, e)
		installed += e->installed;
	if (json) {
		jgroups = json_object_new_array();
		json_object_int_add(json, "tableBase", FARE_INGRESS_TABLE_BASE);
		json_object_boolean_add(json, "active", fare_ingress_enabled(fi));
	} else {
		vty_out(vty,
			"Ingress-interface grouping, %s: %s, %u prefixes in the ingress tables\n",
			fi->bgp->name_pretty, fare_ingress_enabled(fi) ? "active" : "inactive",
			installed);
		vty_out(vty,
			"  main table: %s, %u routes; %u throw routes per table (to the main table), %u refused\n",
			fi->ingress->rtnl_events >= 0 ? "followed" : "not followed",
			fi->ingress->main_routes, fi->ingress->throws, fi->ingress->rtnl_errors);
	}
	for (ALL_LIST_ELEMENTS_RO(fi->ingress->ifs, node, ing)) {
		if (ing->group != last_group) {
			index = 0;
			if (json) {
				jg = json_object_new_object();
				jifs = json_object_new_array();
				json_object_int_add(jg, "group", ing->group);
				json_object_object_add(jg, "interfaces", jifs);
				json_object_array_add(jgroups, jg);
			} else {
				vty_out(vty, "  group %u\n", ing->group);
			}
		}
		index++;
		last_group = ing->group;
		if (json) {
			json_object *ji = json_object_new_object();

			json_object_string_add(ji, "interface", ing->ifname);
			json_object_int_add(ji, "index", index);
			json_object_int_add(ji, "table", fare_ingress_table(ing->group, index));
			json_object_array_add(jifs, ji);
		} else {
			vty_out(vty, "    %u %-16s table %u\n", index, ing->ifname,
				fare_ingress_table(ing->group, index));
		}
	}
	if (json) {
		json_object_object_add(json, "groups", jgroups);
		json_object_int_add(json, "prefixes", installed);
		json_object_int_add(json, "throws", fi->ingress->throws);
		json_object_boolean_add(json, "mainTableFollowed", fi->ingress->rtnl_events >= 0);
		json_object_int_add(json, "mainTableRoutes", fi->ingress->main_routes);
		json_object_int_add(json, "throwErrors", fi->ingress->rtnl_errors);
		json_object_int_add(json, "mainTableResyncs", fi->ingress->rtnl_resyncs);
	}
}

const struct fare_feature fare_ingress_feature = {
	.name = "Enhanced ECMP ingress grouping",
	.instance_new = fare_ingress_init,
	.instance_free = fare_ingress_fini,
	.dest_selected = fare_ingress_note,
	.dest_changed = fare_ingress_note,
	.config_write = fare_ingress_config_write,
};
