// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * bgpd_fare: Enhanced ECMP's commands (EE-1 .. EE-4): egress GroupIDs,
 * sub-groups, the remote group map, ingress-interface groups, and their
 * shows.
 */
#include <zebra.h>

#include "command.h"
#include "json.h"
#include "linklist.h"
#include "vty.h"

#include "bgpd/bgpd.h"
#include "bgpd/bgp_vty.h"

#include "bgpd/fare/bgp_fare.h"
#include "bgpd/fare/bgp_fare_ecmp.h"
#include "bgpd/fare/bgp_fare_ingress.h"
#include "bgpd/fare/bgp_fare_vty.h"

#include "bgpd/fare/bgp_fare_ecmp_vty_clippy.c"

/* Enhanced ECMP (EE-2, EE-3, EE-4) */

DEFPY(bgp_fare_ecmp_group_id, bgp_fare_ecmp_group_id_cmd,
      "[no] bgp fare ecmp-group-id (1-65535)$group [prefix-list WORD$plist]",
      NO_STR BGP_STR FARE_STR
      "Tag originated routes with an ECMP GroupID (EE-3)\n"
      "Group ID\n"
      "Only the prefixes a prefix-list permits (else those no other line takes)\n"
      "Prefix-list name (IPv4 or IPv6)\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_ecmp_egress_set(fi, group, plist, !no);
	fare_instance_refresh_later(fi, "ECMP GroupID changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subtype, bgp_fare_ecmp_subtype_cmd,
      "[no] bgp fare ecmp-group-id sub-type [(0-255)$subtype]",
      NO_STR BGP_STR FARE_STR
      "ECMP GroupID extended community (EE-3)\n"
      "Sub-type (not assigned by IANA)\n"
      "Sub-type value\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !subtype_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fare_ecmp_subtype_set(fi, no ? FARE_GROUPID_SUBTYPE_DEFAULT : subtype);
	fare_display_refresh();
	fare_instance_refresh_later(fi, "ECMP GroupID sub-type changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subgroups, bgp_fare_ecmp_subgroups_cmd,
      "[no] bgp fare ecmp-subgroups size [(1-256)$size]",
      NO_STR BGP_STR FARE_STR
      "Split the uplinks into ECMP sub-groups (EE-2)\n"
      "Uplinks per sub-group, in natural interface name order\n"
      "Size\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (!no && !size_str) {
		vty_out(vty, "%% Value required\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fare_ecmp_subgroup_size_set(fi, no ? 0 : size);
	fare_ecmp_subgroups_changed(fi);
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_subgroup_member, bgp_fare_ecmp_subgroup_member_cmd,
      "[no] bgp fare ecmp-subgroup (1-256)$sg interface IFNAME$ifname",
      NO_STR BGP_STR FARE_STR
      "An uplink's ECMP sub-group, instead of by size (EE-2)\n"
      "Sub-group\n"
      "Uplink\n"
      "Interface name\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	fare_ecmp_member_set(fi, ifname, no ? 0 : sg);
	fare_ecmp_subgroups_changed(fi);
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_group_map, bgp_fare_ecmp_group_map_cmd,
      "[no] bgp fare ecmp-group-map A.B.C.D$rid (1-65535)$group subgroup (1-256)$sg",
      NO_STR BGP_STR FARE_STR
      "Map a remote ECMP group to a local sub-group (EE-4)\n"
      "Remote router ID\n"
      "Remote group ID\n"
      "Local sub-group\n"
      "Sub-group\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);
	struct fare_ecmp_key key = { .router_id = ntohl(rid.s_addr), .group_id = group };

	fare_ecmp_pin_set(fi, key, no ? 0 : sg);
	fare_instance_refresh_later(fi, "ECMP group map changed");
	return CMD_SUCCESS;
}

DEFPY(bgp_fare_ecmp_ingress_group, bgp_fare_ecmp_ingress_group_cmd,
      "[no] bgp fare ecmp-ingress-group (1-64)$grp interface IFNAME$ifname",
      NO_STR BGP_STR FARE_STR
      "Ingress-interface grouping: the k-th interface of a group leaves by the k-th member (EE-1)\n"
      "Group\n"
      "Ingress interface (its index in the group: name order)\n"
      "Interface name\n")
{
	VTY_DECLVAR_CONTEXT(bgp, bgp);
	struct fare_instance *fi = fare_instance_get(bgp);

	if (bgp->inst_type != BGP_INSTANCE_TYPE_DEFAULT) {
		vty_out(vty, "%% Ingress-interface grouping is for the default instance only\n");
		return CMD_WARNING_CONFIG_FAILED;
	}
	fare_ingress_if_set(fi, ifname, no ? 0 : grp);
	return CMD_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* Show                                                                 */
/* ------------------------------------------------------------------ */

void fare_ecmp_show(struct vty *vty, struct fare_instance *fi, json_object *json)
{
	json_object *jsgs = NULL, *jgroups = NULL;
	struct fare_ecmp_map_entry *entries = NULL;
	size_t n = 0, i;
	uint32_t sg;

	fare_ecmp_layout_update(fi);
	if (json) {
		jsgs = json_object_new_array();
		jgroups = json_object_new_array();
		json_object_boolean_add(json, "ingressGrouping", fare_ecmp_ingress_enabled(fi));
		json_object_int_add(json, "subgroupSize", fi->ecmp->subgroup_size);
		json_object_int_add(json, "groupIdSubType", fi->ecmp->subtype);
	} else {
		vty_out(vty, "Enhanced ECMP, %s: ingress sub-groups %s, GroupID sub-type 0x%02x\n",
			fi->bgp->name_pretty,
			!fare_ecmp_ingress_enabled(fi) ? "off"
			: listcount(fi->ecmp->members) ? "explicit"
						       : "by size",
			fi->ecmp->subtype);
	}
	for (sg = 0; sg < fi->ecmp->n_subgroups; sg++) {
		json_object *jsg = NULL, *jifs = NULL;

		if (json) {
			jsg = json_object_new_object();
			jifs = json_object_new_array();
			json_object_int_add(jsg, "subgroup", sg + 1);
		} else {
			vty_out(vty, "  sub-group %u:", sg + 1);
		}
		for (i = 0; i < fi->ecmp->n_uplinks; i++) {
			if (fi->ecmp->uplink_subgroup[i] != sg)
				continue;
			if (json)
				json_object_array_add(jifs,
						      json_object_new_string(fi->ecmp->uplinks[i]));
			else
				vty_out(vty, " %s", fi->ecmp->uplinks[i]);
		}
		if (json) {
			json_object_object_add(jsg, "interfaces", jifs);
			json_object_array_add(jsgs, jsg);
		} else {
			vty_out(vty, "\n");
		}
	}
	if (fi->ecmp->map) {
		n = fare_ecmp_map_count(fi->ecmp->map);
		entries = XCALLOC(MTYPE_TMP, (n ? n : 1) * sizeof(*entries));
		fare_ecmp_map_dump(fi->ecmp->map, entries, n);
	}
	if (!json && n)
		vty_out(vty, "  %-16s %-7s %-9s %-9s %s\n", "Remote router", "Group", "Sub-group",
			"Explicit", "Prefixes");
	for (i = 0; i < n; i++) {
		const struct fare_ecmp_map_entry *e = &entries[i];
		struct in_addr rid = { .s_addr = htonl(e->key.router_id) };
		uint32_t prefixes = fare_ecmp_count_prefixes(fi, e->key);

		if (json) {
			json_object *jg = json_object_new_object();

			json_object_string_addf(jg, "routerId", "%pI4", &rid);
			json_object_int_add(jg, "groupId", e->key.group_id);
			if (e->subgroup != FARE_ECMP_SUBGROUP_NONE)
				json_object_int_add(jg, "subgroup", e->subgroup + 1);
			json_object_boolean_add(jg, "explicit", e->pinned);
			json_object_boolean_add(jg, "present", e->present);
			json_object_int_add(jg, "prefixes", prefixes);
			json_object_array_add(jgroups, jg);
		} else {
			char sgbuf[16] = "-";

			if (e->subgroup != FARE_ECMP_SUBGROUP_NONE)
				snprintf(sgbuf, sizeof(sgbuf), "%u", e->subgroup + 1);
			vty_out(vty, "  %-16pI4 %-7u %-9s %-9s %u\n", &rid, e->key.group_id, sgbuf,
				e->pinned ? "yes" : "no", prefixes);
		}
	}
	XFREE(MTYPE_TMP, entries);
	if (json) {
		json_object_object_add(json, "subgroups", jsgs);
		json_object_object_add(json, "remoteGroups", jgroups);
	}
}

DEFPY(show_bgp_fare_ecmp_groups, show_bgp_fare_ecmp_groups_cmd,
      "show bgp [vrf NAME$vrf_name] fare ecmp-groups [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Enhanced ECMP: sub-groups and remote group map (EE-2, EE-4)\n" JSON_STR)
{
	return fare_vty_show_feature(vty, vrf_name, !!uj, fare_ecmp_show);
}

DEFPY(show_bgp_fare_ecmp_ingress, show_bgp_fare_ecmp_ingress_cmd,
      "show bgp [vrf NAME$vrf_name] fare ecmp-ingress [json$uj]",
      SHOW_STR BGP_STR VRF_CMD_HELP_STR FARE_STR
      "Enhanced ECMP: ingress-interface groups and their tables (EE-1)\n" JSON_STR)
{
	return fare_vty_show_feature(vty, vrf_name, !!uj, fare_ingress_show);
}

void fare_ecmp_vty_init(void)
{
	install_element(BGP_NODE, &bgp_fare_ecmp_group_id_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subtype_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subgroups_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_subgroup_member_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_group_map_cmd);
	install_element(BGP_NODE, &bgp_fare_ecmp_ingress_group_cmd);

	install_element(VIEW_NODE, &show_bgp_fare_ecmp_groups_cmd);
	install_element(VIEW_NODE, &show_bgp_fare_ecmp_ingress_cmd);
}
