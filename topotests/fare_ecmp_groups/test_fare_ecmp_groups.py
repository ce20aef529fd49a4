#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_ecmp_groups.py: Enhanced ECMP egress grouping with FARE weights.
The egress leaves advertise their routes with an ECMP GroupID extended
community (EE-3); the ingress leaf splits its uplinks into sub-groups
(EE-2), maps each remote (router ID, group ID) to one of them (EE-4) and
installs the route over that sub-group's interfaces only, weighted inside
the sub-group by min(link bandwidth, Path Bandwidth) (FARE-4).

        spine1      spine2      spine3      spine4            (AS 65000)
          |  \\   ...  |  \\   ...  |  \\   ...  |
        leaf1 (ingress)    leaf2 (egress)    leaf3 (egress)    (AS 65101..65103)
        10.255.0.1         10.255.0.2        10.255.0.3        (BGP router IDs)
                                                 fresh         (no links: an empty
                                                                bgpd -M fare, for the
                                                                saved-config round trip)

Unnumbered eBGP, one session per leaf-spine link, every leaf to every
spine. Link bandwidths, Gb/s, on both ends (`neighbor IF fare
link-bandwidth`, FARE-3):

              spine1 spine2 spine3 spine4
      leaf1     100    200    400    400
      leaf2     800    800    800    800
      leaf3     800    800    800    800

leaf2 and leaf3 originate with the maximum Path Bandwidth (FARE-2); spine j
re-advertises min(800, max) = 800G, "PB:65000:800.000 Gbps" (FARE-4/5); the
spines themselves receive "PB:6510x:max".

EE-3, egress leaves (the GroupID is EG:<BGP router ID>:<group>):
  leaf2: `bgp fare ecmp-group-id 1 prefix-list L2G1` (172.16.20.0/24,
         172.16.21.0/24) and `... 2 prefix-list L2G2` (172.16.22.0/24,
         172.16.23.0/24); its own 172.16.2.0/24 and 2001:db8:2::/64 match
         neither and carry no GroupID.
  leaf3: `bgp fare ecmp-group-id 1 prefix-list L3G1` (172.16.30.0/24,
         172.16.31.0/24) and `bgp fare ecmp-group-id 2` without a
         prefix-list: every other route it originates, 172.16.3.0/24,
         172.16.32.0/24, 172.16.33.0/24 and 2001:db8:3::/64 (there is no
         IPv6 prefix-list L3G1, so the IPv6 route matches no line with a
         prefix-list).
So leaf1 sees 4 remote groups: EG:10.255.0.2:1 (2 prefixes),
EG:10.255.0.2:2 (2), EG:10.255.0.3:1 (2), EG:10.255.0.3:2 (4).

EE-2/EE-4, ingress leaf1: `bgp fare ecmp-subgroups size 2`, `bgp fare
hold-down 0` (a session that comes back counts at once, WP-7). Its uplinks
sorted by name, in sub-groups of 2:
  sub-group 1 = to-s1, to-s2: weights min(100, 800) : min(200, 800)
                = {to-s1: 1, to-s2: 2}
  sub-group 2 = to-s3, to-s4: min(400, 800) : min(400, 800)
                = {to-s3: 1, to-s4: 1}
The 4 remote groups are spread 2 and 2 over the sub-groups (which one goes
where follows the order leaf1 learns them, so the test reads the map and
checks it against itself: every prefix of one remote group on that group's
sub-group). A route without GroupID keeps all 4 uplinks:
{to-s1: 1, to-s2: 2, to-s3: 4, to-s4: 4} (FARE-4 alone).

Checks:
  1. EE-3: leaf1's best path of each prefix carries exactly
     "PB:65000:800.000 Gbps" and "EG:<rid>:<group>" (no EG for the
     no-group prefixes); the spines pass leaf2's EG on unchanged.
  2. EE-2/EE-4/FARE-4: `show bgp fare ecmp-groups json`: the layout above,
     the 4 remote groups with their prefix counts, 2 per sub-group, none
     explicit; each prefix's ecmpGroup (remote, routerId, groupId,
     subgroup, members, reason "sub-group"; "no GroupID" without
     subgroup/members for the others); kernel weights per prefix exactly
     its sub-group's {to-s1: 1, to-s2: 2} or {to-s3: 1, to-s4: 1}. leaf2
     (no sub-groups configured) keeps all 4 uplinks, 1:1:1:1.
  3. EE-2/EE-4 with a member down: leaf1's to-s2 down: the layout stays
     (it follows the configured uplinks), sub-group 1's prefixes go to
     {to-s1: 1}, sub-group 2's stay {to-s3: 1, to-s4: 1}, no-group
     {to-s1: 1, to-s3: 4, to-s4: 4}. to-s1 down too: sub-group 1 has no
     usable member: its prefixes fall back to every usable path, {to-s3: 1,
     to-s4: 1}, reason "fallback: no usable member in the sub-group". Links
     up: the first state again, with the same map.
  4. EE-4 explicit: `bgp fare ecmp-group-map 10.255.0.2 1 subgroup S`, S
     the sub-group that group is not on: exactly its prefixes move to S
     (explicit true), nothing else moves; the `no` form puts it back.
  5. EE-3 sub-type: leaf2 moves to sub-type 72: leaf1 (71) reads its
     values as "UNK:131, 72", no GroupID, leaf2's routes on all 4 uplinks,
     leaf2's remote groups gone and leaf3's 2 on different sub-groups.
     leaf1 moves to 72 too: leaf2's are groups again, leaf3's (71) are
     "UNK:131, 71". Both back to the default: the first state.
  6. Configuration: running-config has every line; each leaf's saved
     running-config is a fixed point of frr-reload.py --test and loads
     into `fresh` (frr-reload.py --reload) reading back the same `router
     bgp` block and prefix-lists; on leaf1, a reload without the pin line
     removes it (`no` form) and one with it adds it back.
  7. FARE-11: leaf2 with `neighbor to-s4 fare boundary`: spine4 receives
     leaf2's routes with no extended community at all (no PB, no EG) while
     leaf3's still carry EG; removed: EG back at spine4.
  8. EE-4 without table walks: 3 shows of the map and 12 idle seconds
     leave leaf1's tableWalks counter unchanged (the prefixes per remote
     group are counted as routes change; a group no route uses leaves the
     map at once, no periodic sweep).
  9. EE-4 balance: both remote groups of sub-group 1 lose their GroupID
     (the egress leaves drop those `ecmp-group-id` lines): they leave the
     map, one group of sub-group 2 moves over, and exactly its prefixes
     take sub-group 1's weights in the kernel; the lines back: 2 + 2.
     Also: leaf2's prefix-lists edited, deleted and made again, the
     GroupIDs leaf1 sees follow.
 10. EE-4, routes withdrawn: leaf2 no longer originates G22's IPv4
     prefixes, leaf3 G32's IPv6 one; leaf1 has none of them, G22 leaves
     its map and G32 counts one prefix less (bgpd still marks a withdrawn
     path selected when the module counts: such routes were counted on
     for ever before), the others keep their counts; the routes back:
     2 + 2 again.
"""

import os
import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import (fare_prefix, frr_reload, kernel_weights, reload_errors, report, start_fabric,
                         tgen_or_skip, vtysh_json, wait_for)
from fare.fabric import Clos3

pytestmark = [pytest.mark.bgpd]


RID = {1: "10.255.0.1", 2: "10.255.0.2", 3: "10.255.0.3"}  # Clos3: bgp router-id 10.255.0.<i>
ASN = {1: 65101, 2: 65102, 3: 65103}
UPLINKS = ["to-s1", "to-s2", "to-s3", "to-s4"]

G21, G22, G31, G32 = (RID[2], 1), (RID[2], 2), (RID[3], 1), (RID[3], 2)
GROUPS = {
    G21: ["172.16.20.0/24", "172.16.21.0/24"],
    G22: ["172.16.22.0/24", "172.16.23.0/24"],
    G31: ["172.16.30.0/24", "172.16.31.0/24"],
    G32: ["172.16.3.0/24", "172.16.32.0/24", "172.16.33.0/24", "2001:db8:3::/64"],
}
NO_GROUP = ["172.16.2.0/24", "2001:db8:2::/64"]
PREFIXES = [p for ps in GROUPS.values() for p in ps] + NO_GROUP

LAYOUT = {1: ["to-s1", "to-s2"], 2: ["to-s3", "to-s4"]}
SG_WEIGHTS = {1: {"to-s1": 1, "to-s2": 2}, 2: {"to-s3": 1, "to-s4": 1}}
ALL_UPLINKS = {"to-s1": 1, "to-s2": 2, "to-s3": 4, "to-s4": 4}
PB = "PB:65000:800.000 Gbps"
FALLBACK = "fallback: no usable member in the sub-group"

LINKS = {(1, 1): 100, (1, 2): 200, (1, 3): 400, (1, 4): 400}

PLISTS = {
    2: [
        "ip prefix-list L2G1 seq 5 permit 172.16.20.0/24",
        "ip prefix-list L2G1 seq 10 permit 172.16.21.0/24",
        "ip prefix-list L2G2 seq 5 permit 172.16.22.0/24",
        "ip prefix-list L2G2 seq 10 permit 172.16.23.0/24",
    ],
    3: [
        "ip prefix-list L3G1 seq 5 permit 172.16.30.0/24",
        "ip prefix-list L3G1 seq 10 permit 172.16.31.0/24",
    ],
}
EE_LINES = {
    1: [" bgp fare hold-down 0", " bgp fare ecmp-subgroups size 2"],
    2: [" bgp fare ecmp-group-id 1 prefix-list L2G1", " bgp fare ecmp-group-id 2 prefix-list L2G2"],
    3: [" bgp fare ecmp-group-id 1 prefix-list L3G1", " bgp fare ecmp-group-id 2"],
}


def _networks(prefixes):
    return [" address-family ipv4 unicast"] + ["  network {}".format(p) for p in prefixes] + [
        " exit-address-family"]


FABRIC = Clos3(
    leaves=3,
    spines=4,
    link_gbps=LINKS,
    default_gbps=800,
    extra_leaf_config={
        1: EE_LINES[1],
        2: _networks(["172.16.2{}.0/24".format(k) for k in range(4)]) + EE_LINES[2],
        3: _networks(["172.16.3{}.0/24".format(k) for k in range(4)]) + EE_LINES[3],
    },
)

FRESH_CONF = "frr defaults datacenter\nhostname fresh\n!\n"


def config_of(name):
    if name == "fresh":
        return FRESH_CONF
    conf = FABRIC.config(name)
    if name.startswith("leaf"):
        # outside `router bgp`, after it (where show running-config puts them)
        conf += "\n".join(PLISTS.get(int(name[4:]), [])) + "\n"
    return conf


FABRIC.router("fresh")


def setup_module(mod):
    start_fabric(mod, FABRIC, config_of)


def teardown_module(_mod):
    get_topogen().stop_topology()


# -- helpers ----------------------------------------------------------------


def afi_of(prefix):
    return "ipv6" if ":" in prefix else "ipv4"


def ecmp_groups(router):
    return vtysh_json(router, "show bgp fare ecmp-groups json")


def remote_map(router):
    """{(routerId, groupId): (subgroup, explicit, prefixes)} of `show bgp
    fare ecmp-groups json`."""
    out = {}
    for g in ecmp_groups(router).get("remoteGroups", []) or []:
        out[(g.get("routerId"), g.get("groupId"))] = (g.get("subgroup"), g.get("explicit"),
                                                      g.get("prefixes"))
    return out


def layout(router):
    "{subgroup: [interfaces]} of `show bgp fare ecmp-groups json`."
    return {s.get("subgroup"): s.get("interfaces")
            for s in ecmp_groups(router).get("subgroups", []) or []}


def assignment(rmap):
    return {k: v[0] for k, v in rmap.items()}


def per_subgroup(assign):
    counts = {}
    for sg in assign.values():
        counts[sg] = counts.get(sg, 0) + 1
    return counts


def automatic_map(assign):
    "The map expected from an assignment of the 4 groups, none explicit."
    return {k: (assign[k], False, len(GROUPS[k])) for k in GROUPS}


def converged_map(router):
    """The map once it holds the 4 remote groups with their prefix counts,
    2 per sub-group, none explicit; None until then."""
    m = remote_map(router)
    if set(m) != set(GROUPS):
        return None
    a = assignment(m)
    if m != automatic_map(a) or per_subgroup(a) != {1: 2, 2: 2}:
        return None
    return m


def wait_map(router, count=90):
    m = wait_for(lambda: converged_map(router) is not None, True, count=count)
    assert m, "leaf1's map never held the 4 remote groups 2 + 2, none explicit: {}".format(
        ecmp_groups(router))
    return converged_map(router)


def kernel_all(router, prefixes=PREFIXES):
    return {p: kernel_weights(router, p, ":" in p) for p in prefixes}


def expected_kernel(assign, sg_weights=SG_WEIGHTS, no_group=ALL_UPLINKS):
    """{prefix: weights}: a grouped prefix has its sub-group's weights
    (the group's prefixes are all on its sub-group), the others
    `no_group`. Groups not in `assign` are treated as no-group."""
    out = {}
    for key, prefixes in GROUPS.items():
        for p in prefixes:
            out[p] = sg_weights[assign[key]] if key in assign else no_group
    for p in NO_GROUP:
        out[p] = no_group
    return out


def wait_kernel(router, exp, what, count=60):
    got = wait_for(lambda: kernel_all(router, list(exp)), exp, count=count)
    bad = {p: (got[p], exp[p]) for p in exp if got[p] != exp[p]}
    assert not bad, "{}: kernel weights (got, expected) differ for {} of {} prefixes: {}".format(
        what, len(bad), len(exp), bad)


ECMP_KEYS = ("remote", "routerId", "groupId", "subgroup", "members", "reason")


def ecmp_view(router, prefix, keys=ECMP_KEYS):
    "The ecmpGroup object of `show bgp AFI fare PREFIX json`, those keys."
    eg = fare_prefix(router, prefix, afi_of(prefix)).get("ecmpGroup")
    if eg is None:
        return None
    return {k: eg.get(k) for k in keys}


def grouped_view(key, sg, reason="sub-group", members=True):
    v = {"remote": "EG:{}:{}".format(*key), "routerId": key[0], "groupId": key[1],
         "subgroup": sg, "reason": reason}
    if members:
        v["members"] = LAYOUT[sg]
    return v


def check_ecmp_views(router, assign, reasons=None, what=""):
    """Every prefix's ecmpGroup, as expected for `assign`; `reasons`:
    {subgroup: reason} (default "sub-group"; members checked only then)."""
    reasons = reasons or {}
    bad = {}
    for key, prefixes in GROUPS.items():
        for p in prefixes:
            if key not in assign:
                got = ecmp_view(router, p, ("reason", "subgroup", "members"))
                exp = {"reason": "no GroupID", "subgroup": None, "members": None}
            else:
                sg = assign[key]
                reason = reasons.get(sg, "sub-group")
                with_members = reason == "sub-group"
                keys = ECMP_KEYS if with_members else tuple(k for k in ECMP_KEYS if k != "members")
                got = ecmp_view(router, p, keys)
                exp = grouped_view(key, sg, reason, with_members)
            if got != exp:
                bad[p] = {"got": got, "expected": exp}
    for p in NO_GROUP:
        got = ecmp_view(router, p, ("reason", "subgroup", "members"))
        exp = {"reason": "no GroupID", "subgroup": None, "members": None}
        if got != exp:
            bad[p] = {"got": got, "expected": exp}
    assert not bad, "{}: ecmpGroup of `show bgp AFI fare PREFIX json`: {}".format(what, bad)


def ext_string(router, prefix, peer_if=None):
    """The extendedCommunity string of the best path of `prefix` (of the
    path received over peer_if if given); None when it has none, "" when
    there is no such path."""
    j = vtysh_json(router, "show bgp {} unicast {} json".format(afi_of(prefix), prefix))
    paths = j.get("paths", [])
    if peer_if:
        paths = [p for p in paths if p.get("peer", {}).get("interface") == peer_if]
    else:
        paths = [p for p in paths if p.get("bestpath", {}).get("overall")] or paths[:1]
    if not paths:
        return ""
    return paths[0].get("extendedCommunity", {}).get("string")


def pb_and(token):
    "Both orders of FRR's display of PB and one more community."
    return {"{} {}".format(PB, token), "{} {}".format(token, PB)}


def in_pb_and(router, prefix, token):
    return ext_string(router, prefix) in pb_and(token)


def established(router, ifname):
    j = vtysh_json(router, "show bgp neighbors {} json".format(ifname))
    return j.get(ifname, {}).get("bgpState") == "Established"


def conf_bgp(router, asn, *lines):
    out = router.vtysh_cmd("configure terminal\nrouter bgp {}\n{}\n".format(asn, "\n".join(lines)))
    assert "%" not in out, "{}: {}: {}".format(router.name, lines, out)
    return out


def running(router):
    return router.vtysh_cmd("show running-config no-header")


def steady(tgen, what):
    """leaf1 in the converged state: map 2 + 2, layout, kernel and
    ecmpGroup of every prefix. Returns the map."""
    leaf1 = tgen.gears["leaf1"]
    m = wait_map(leaf1)
    assert layout(leaf1) == LAYOUT, "{}: layout {}".format(what, ecmp_groups(leaf1))
    assign = assignment(m)
    wait_kernel(leaf1, expected_kernel(assign), what)
    check_ecmp_views(leaf1, assign, what=what)
    return m


# -- tests ------------------------------------------------------------------


def test_groupid_advertised():
    "EE-3: leaf1 sees EG:<egress rid>:<group> next to PB:65000:800.000 Gbps on exactly the grouped prefixes."
    tgen = tgen_or_skip()
    leaf1, spine1 = tgen.gears["leaf1"], tgen.gears["spine1"]
    exp = {}
    for key, prefixes in GROUPS.items():
        for p in prefixes:
            exp[p] = "EG:{}:{}".format(*key)
    for p in NO_GROUP:
        exp[p] = None

    def view():
        out = {}
        for p in PREFIXES:
            s = ext_string(leaf1, p)
            if exp[p] is None:
                out[p] = s == PB
            else:
                out[p] = s in pb_and(exp[p])
        return out

    ok = {p: True for p in PREFIXES}
    got = wait_for(view, ok, count=90)
    bad = {p: (ext_string(leaf1, p), exp[p]) for p in PREFIXES if not got[p]}
    assert not bad, "leaf1: extended communities (got, EG expected next to '{}'): {}".format(PB, bad)
    # the spines pass the GroupID on unchanged (transitive type 0x83)
    s = ext_string(spine1, "172.16.20.0/24", "to-l2")
    assert s in {"PB:65102:max EG:10.255.0.2:1", "EG:10.255.0.2:1 PB:65102:max"}, (
        "spine1 172.16.20.0/24 from leaf2: {}".format(s))
    s = ext_string(spine1, "2001:db8:3::/64", "to-l3")
    assert s in {"PB:65103:max EG:10.255.0.3:2", "EG:10.255.0.3:2 PB:65103:max"}, (
        "spine1 2001:db8:3::/64 from leaf3: {}".format(s))


def test_groupid_follows_prefix_list_edits():
    """EE-3: leaf2's prefix-lists edited, then L2G2 deleted and made
    again: leaf1 sees each originated prefix's GroupID follow (none, the
    other group, back), and the state of the start once restored."""
    tgen = tgen_or_skip()
    leaf1, leaf2 = tgen.gears["leaf1"], tgen.gears["leaf2"]

    def groupids():
        return {p: ext_string(leaf1, p) for p in GROUPS[G21] + GROUPS[G22]}

    def expect(of):
        "{prefix: set of accepted strings} for {prefix: group id or None}."
        return {p: {PB} if g is None else pb_and("EG:10.255.0.2:{}".format(g)) for p, g in of.items()}

    def wait_groups(of):
        exp = expect(of)
        got = wait_for(lambda: {p: s in exp[p] for p, s in groupids().items()},
                       {p: True for p in exp}, count=60)
        assert got == {p: True for p in exp}, "leaf1: {} where {} was due".format(groupids(), of)

    start = {"172.16.20.0/24": 1, "172.16.21.0/24": 1, "172.16.22.0/24": 2, "172.16.23.0/24": 2}
    wait_groups(start)
    # 172.16.21.0/24 out of L2G1: no line takes it
    leaf2.vtysh_cmd("configure terminal\nno ip prefix-list L2G1 seq 10 permit 172.16.21.0/24\n")
    wait_groups(dict(start, **{"172.16.21.0/24": None}))
    # into L2G2: group 2
    leaf2.vtysh_cmd("configure terminal\nip prefix-list L2G2 seq 15 permit 172.16.21.0/24\n")
    wait_groups(dict(start, **{"172.16.21.0/24": 2}))
    # L2G2 deleted: its prefixes carry no GroupID; made again as at the start
    leaf2.vtysh_cmd("configure terminal\nno ip prefix-list L2G2\n")
    wait_groups(dict(start, **{"172.16.21.0/24": None, "172.16.22.0/24": None,
                                "172.16.23.0/24": None}))
    leaf2.vtysh_cmd("configure terminal\nip prefix-list L2G2 seq 5 permit 172.16.22.0/24\n"
                    "ip prefix-list L2G2 seq 10 permit 172.16.23.0/24\n"
                    "ip prefix-list L2G1 seq 10 permit 172.16.21.0/24\n")
    wait_groups(start)
    assert "\n bgp fare ecmp-group-id 2 prefix-list L2G2\n" in leaf2.vtysh_cmd("show running-config")


def test_map_and_kernel():
    "EE-2/EE-4/FARE-4: 4 remote groups 2 + 2, each prefix on its group's sub-group with FARE weights."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m = steady(tgen, "converged")
    j = ecmp_groups(leaf1)
    got = [(s.get("subgroup"), s.get("interfaces")) for s in j["subgroups"]]
    assert got == [(1, ["to-s1", "to-s2"]), (2, ["to-s3", "to-s4"])], j
    report("fare_ecmp_groups: leaf1 map {}".format(
        {"EG:{}:{}".format(*k): v[0] for k, v in sorted(m.items())}))
    # the literal weights of one prefix of each sub-group and a no-group one
    by_sg = {}
    for key, sg in assignment(m).items():
        by_sg.setdefault(sg, []).append(key)
    assert kernel_weights(leaf1, GROUPS[by_sg[1][0]][0]) == {"to-s1": 1, "to-s2": 2}
    assert kernel_weights(leaf1, GROUPS[by_sg[2][0]][0]) == {"to-s3": 1, "to-s4": 1}
    assert kernel_weights(leaf1, "172.16.2.0/24") == {"to-s1": 1, "to-s2": 2, "to-s3": 4, "to-s4": 4}
    assert kernel_weights(leaf1, "2001:db8:3::/64", True) == SG_WEIGHTS[m[G32][0]]
    # control: leaf2 has no sub-groups: leaf3's grouped prefixes on all 4 uplinks, 800G each
    leaf2 = tgen.gears["leaf2"]
    exp = {p: {"to-s1": 1, "to-s2": 1, "to-s3": 1, "to-s4": 1} for p in GROUPS[G31] + GROUPS[G32]}
    wait_kernel(leaf2, exp, "leaf2 (no sub-groups)", count=30)


def table_walks(router):
    return vtysh_json(router, "show bgp fare json")["counters"]["tableWalks"]


def test_no_table_walk_for_groups():
    """EE-4: the prefixes of each remote group are counted as routes
    change, not by walking the table: `show bgp fare ecmp-groups` (4 remote
    groups) and 12 quiet seconds (once a sweep every 10 s looked for
    groups no route uses) leave leaf1's tableWalks as they were, and the
    show's counts are the groups' prefixes."""
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m = steady(tgen, "before counting table walks")
    before = table_walks(leaf1)
    for _ in range(3):
        assert remote_map(leaf1) == m
    time.sleep(12)
    after = table_walks(leaf1)
    assert after == before, "leaf1 walked its table {} time(s) for 3 shows and 12 s idle".format(
        after - before)


def test_four_remote_groups_on_four_subgroups():
    """EE-2/EE-4: with sub-groups of one uplink (size 1), the 4 remote groups
    land on 4 distinct local sub-groups, each prefix over its sub-group's
    single uplink; back to size 2, the map is 2 + 2 again."""
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    steady(tgen, "before size 1")
    try:
        conf_bgp(leaf1, ASN[1], "bgp fare ecmp-subgroups size 1")
        exp_layout = {k: [u] for k, u in enumerate(UPLINKS, 1)}
        got = wait_for(lambda: layout(leaf1), exp_layout, count=30)
        assert got == exp_layout, ecmp_groups(leaf1)

        def four():
            m = remote_map(leaf1)
            a = assignment(m)
            if set(m) != set(GROUPS) or sorted(a.values()) != [1, 2, 3, 4]:
                return None
            return a
        assert wait_for(lambda: four() is not None, True, count=30), ecmp_groups(leaf1)
        assign = four()
        report("fare_ecmp_groups: size 1, leaf1 map {}".format(
            {"EG:{}:{}".format(*k): v for k, v in sorted(assign.items())}))
        one = {sg: {u: 1} for sg, u in enumerate(UPLINKS, 1)}
        wait_kernel(leaf1, expected_kernel(assign, sg_weights=one), "size 1")
    finally:
        conf_bgp(leaf1, ASN[1], "bgp fare ecmp-subgroups size 2")
    steady(tgen, "size 2 again")


def test_member_failure():
    "EE-2/EE-4: to-s2 down moves only sub-group 1's prefixes (to-s1 only); to-s1 too: fallback to all paths."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m0 = steady(tgen, "before the failure")
    assign = assignment(m0)
    try:
        leaf1.run("ip link set dev to-s2 down")
        assert wait_for(lambda: established(leaf1, "to-s2"), False, count=30) is False
        exp = expected_kernel(assign, {1: {"to-s1": 1}, 2: SG_WEIGHTS[2]},
                              {"to-s1": 1, "to-s3": 4, "to-s4": 4})
        wait_kernel(leaf1, exp, "to-s2 down")
        assert layout(leaf1) == LAYOUT, "to-s2 down: layout changed: {}".format(ecmp_groups(leaf1))
        assert remote_map(leaf1) == m0, "to-s2 down: map changed: {}".format(ecmp_groups(leaf1))
        # sub-group 1 still has a usable member: reason "sub-group"; its
        # members list with to-s2 down is not fixed by the interface:
        # reported, not checked
        sg1 = [p for k, ps in GROUPS.items() if assign[k] == 1 for p in ps]
        report("fare_ecmp_groups: to-s2 down, ecmpGroup of {}: {}".format(
            sg1[0], ecmp_view(leaf1, sg1[0])))
        no_members = tuple(k for k in ECMP_KEYS if k != "members")
        bad = {}
        for key, prefixes in GROUPS.items():
            exp_view = grouped_view(key, assign[key], members=False)
            for p in prefixes:
                got = ecmp_view(leaf1, p, no_members)
                if got != exp_view:
                    bad[p] = {"got": got, "expected": exp_view}
        assert not bad, "to-s2 down: ecmpGroup: {}".format(bad)

        leaf1.run("ip link set dev to-s1 down")
        assert wait_for(lambda: established(leaf1, "to-s1"), False, count=30) is False
        exp = expected_kernel(assign, {1: {"to-s3": 1, "to-s4": 1}, 2: SG_WEIGHTS[2]},
                              {"to-s3": 1, "to-s4": 1})
        wait_kernel(leaf1, exp, "to-s1 and to-s2 down")
        assert layout(leaf1) == LAYOUT, "to-s1/2 down: layout changed: {}".format(ecmp_groups(leaf1))
        assert remote_map(leaf1) == m0, "to-s1/2 down: map changed: {}".format(ecmp_groups(leaf1))
        got = wait_for(lambda: _views_ok(leaf1, assign, {1: FALLBACK}), True, count=10)
        report("fare_ecmp_groups: to-s1/2 down, ecmpGroup of {}: {}".format(
            sg1[0], ecmp_view(leaf1, sg1[0])))
        if not got:
            check_ecmp_views(leaf1, assign, {1: FALLBACK}, "to-s1 and to-s2 down")
    finally:
        leaf1.run("ip link set dev to-s1 up")
        leaf1.run("ip link set dev to-s2 up")
    for ifname in ("to-s1", "to-s2"):
        assert wait_for(lambda: established(leaf1, ifname), True, count=90), \
            "{} not re-established".format(ifname)
    m1 = steady(tgen, "links back up")
    assert m1 == m0, "the map changed over the failure: {} -> {}".format(m0, m1)


def _key_of(prefix):
    return next(k for k, ps in GROUPS.items() if prefix in ps)


def _views_ok(router, assign, reasons):
    try:
        check_ecmp_views(router, assign, reasons)
        return True
    except AssertionError:
        return False


def test_group_map_pin():
    "EE-4: `bgp fare ecmp-group-map 10.255.0.2 1 subgroup S` moves exactly that group's prefixes; `no` restores."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m0 = steady(tgen, "before the pin")
    a0 = assignment(m0)
    home = a0[G21]
    other = 3 - home
    line = "bgp fare ecmp-group-map {} {} subgroup {}".format(G21[0], G21[1], other)
    conf_bgp(leaf1, ASN[1], line)
    exp_map = dict(m0)
    exp_map[G21] = (other, True, len(GROUPS[G21]))
    got = wait_for(lambda: remote_map(leaf1), exp_map, count=30)
    assert got == exp_map, "pinned {}: map {} != {}".format(line, got, exp_map)
    a1 = assignment(exp_map)
    wait_kernel(leaf1, expected_kernel(a1), "pinned to sub-group {}".format(other))
    check_ecmp_views(leaf1, a1, what="pinned")
    assert "\n " + line + "\n" in running(leaf1)

    conf_bgp(leaf1, ASN[1], "no " + line)
    got = wait_for(lambda: remote_map(leaf1), m0, count=30)
    assert got == m0, "after `no {}`: map {} != {}".format(line, got, m0)
    wait_kernel(leaf1, expected_kernel(a0), "pin removed")
    check_ecmp_views(leaf1, a0, what="pin removed")
    assert "ecmp-group-map" not in running(leaf1)


def test_subtype():
    "EE-3: the GroupID sub-type (default 0x47 = 71): only values of the configured sub-type are GroupIDs."
    tgen = tgen_or_skip()
    leaf1, leaf2, leaf3 = (tgen.gears[n] for n in ("leaf1", "leaf2", "leaf3"))
    steady(tgen, "before the sub-type change")
    try:
        conf_bgp(leaf2, ASN[2], "bgp fare ecmp-group-id sub-type 72")
        assert "\n bgp fare ecmp-group-id sub-type 72\n" in running(leaf2)
        # leaf1 (71): leaf2's values are unknown communities, not GroupIDs
        ok = wait_for(lambda: all(in_pb_and(leaf1, p, "UNK:131, 72")
                                  for k in (G21, G22) for p in GROUPS[k]), True, count=30)
        assert ok, {p: ext_string(leaf1, p) for k in (G21, G22) for p in GROUPS[k]}
        got = wait_for(lambda: set(remote_map(leaf1)), {G31, G32}, count=30)
        assert got == {G31, G32}, "leaf2's groups still mapped: {}".format(ecmp_groups(leaf1))
        m = remote_map(leaf1)
        assert sorted(v[0] for v in m.values()) == [1, 2], (
            "EE-4: leaf3's 2 groups not on different sub-groups: {}".format(m))
        assert m == {G31: (m[G31][0], False, 2), G32: (m[G32][0], False, 4)}, m
        a = assignment(m)
        wait_kernel(leaf1, expected_kernel(a), "leaf2 at sub-type 72, leaf1 at 71")
        check_ecmp_views(leaf1, a, what="leaf2 at sub-type 72, leaf1 at 71")

        # leaf1 at 72 too: leaf2's are GroupIDs again, leaf3's (71) are not
        conf_bgp(leaf1, ASN[1], "bgp fare ecmp-group-id sub-type 72")
        assert "\n bgp fare ecmp-group-id sub-type 72\n" in running(leaf1)
        ok = wait_for(lambda: all(in_pb_and(leaf1, p, "UNK:131, 71")
                                  for k in (G31, G32) for p in GROUPS[k]), True, count=30)
        assert ok, {p: ext_string(leaf1, p) for k in (G31, G32) for p in GROUPS[k]}
        for key in (G21, G22):
            for p in GROUPS[key]:
                assert in_pb_and(leaf1, p, "EG:{}:{}".format(*key)), (p, ext_string(leaf1, p))
        got = wait_for(lambda: set(remote_map(leaf1)), {G21, G22}, count=30)
        assert got == {G21, G22}, "leaf3's groups still mapped: {}".format(ecmp_groups(leaf1))
        m = remote_map(leaf1)
        assert sorted(v[0] for v in m.values()) == [1, 2], m
        assert m == {G21: (m[G21][0], False, 2), G22: (m[G22][0], False, 2)}, m
        a = assignment(m)
        wait_kernel(leaf1, expected_kernel(a), "both at sub-type 72")
        check_ecmp_views(leaf1, a, what="both at sub-type 72")
    finally:
        leaf1.vtysh_cmd("configure terminal\nrouter bgp {}\nno bgp fare ecmp-group-id sub-type 72\n"
                        .format(ASN[1]))
        leaf2.vtysh_cmd("configure terminal\nrouter bgp {}\nbgp fare ecmp-group-id sub-type 71\n"
                        .format(ASN[2]))
    for r in (leaf1, leaf2):
        assert "ecmp-group-id sub-type" not in running(r), running(r)
    steady(tgen, "sub-types back to the default")
    assert leaf3  # leaf3 kept the default throughout



def _bgp_block(config):
    lines = config.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("router bgp "))
    end = next(i for i in range(start, len(lines)) if lines[i] == "exit")
    return lines[start:end + 1]


def _plists(config):
    return [l for l in config.splitlines() if l.startswith("ip prefix-list ")]


def _save(tgen, router, step, text=None):
    path = os.path.join(tgen.logdir, "{}-{}.conf".format(router.name, step))
    with open(path, "w") as f:
        f.write(text if text is not None else running(router))
    return path


def _load_into_fresh(tgen, config, step):
    """Load `config` into fresh's bgpd with frr-reload.py --reload, its
    `router bgp` (and the prefix-lists) removed first: (exit code, error
    lines, fresh's running-config)."""
    fresh = tgen.gears["fresh"]
    cur = running(fresh)
    for line in cur.splitlines():
        if line.startswith("router bgp "):
            fresh.vtysh_cmd("configure terminal\nno {}\n".format(line))
    for line in _plists(cur):
        fresh.vtysh_cmd("configure terminal\nno {}\n".format(line))
    text = "\n".join("hostname fresh" if l.startswith("hostname ") else l
                     for l in config.splitlines() if not l.startswith("log "))
    path = _save(tgen, fresh, step, text + "\n")
    rc, out = frr_reload(fresh, "reload", path)
    with open(path + ".out", "w") as f:
        f.write("rc={}\n{}".format(rc, out))
    errors = reload_errors(out)
    return rc, errors, running(fresh)


def test_running_config_round_trip():
    "Every EE line in running-config; saved configs are frr-reload.py fixed points and load into a fresh bgpd."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m0 = steady(tgen, "before the configuration test")
    a0 = assignment(m0)
    # leaf1: an explicit layout equal to the size-2 one, and G32 pinned
    # where it is: nothing moves
    explicit = [" bgp fare ecmp-subgroup {} interface {}".format(sg, i)
                for sg, ifs in sorted(LAYOUT.items()) for i in ifs]
    pin = " bgp fare ecmp-group-map {} {} subgroup {}".format(G32[0], G32[1], a0[G32])
    # a show between the lines, as an operator typing them would run:
    # the layout in force stays until the change settles (EE-2), so its
    # intermediate layouts (here one sub-group of to-s1) move no group
    conf_bgp(leaf1, ASN[1], explicit[0].strip(), "do show bgp fare ecmp-groups json",
             *[l.strip() for l in explicit[1:] + [pin]])
    exp_map = dict(m0)
    exp_map[G32] = (a0[G32], True, len(GROUPS[G32]))
    got = wait_for(lambda: remote_map(leaf1), exp_map, count=20)
    assert got == exp_map, "explicit layout and pin: map {} != {}".format(got, exp_map)
    # the pin shows at once, the layout once it settled (200 ms): the map
    # again after that, so that a move at the settling is seen too
    time.sleep(1)
    got = remote_map(leaf1)
    assert got == exp_map, "explicit layout settled: map {} != {}".format(got, exp_map)
    assert layout(leaf1) == LAYOUT, ecmp_groups(leaf1)
    wait_kernel(leaf1, expected_kernel(a0), "explicit layout, pinned in place", count=10)

    expected_lines = {
        "leaf1": EE_LINES[1] + explicit + [pin],
        "leaf2": EE_LINES[2] + PLISTS[2],
        "leaf3": EE_LINES[3] + PLISTS[3],
    }
    saved = {}
    for name, lines in expected_lines.items():
        router = tgen.gears[name]
        cfg = running(router)
        missing = [l for l in lines if l not in cfg.splitlines()]
        assert not missing, "{}: not in running-config: {}\n{}".format(name, missing, cfg)
        saved[name] = cfg
        # (a) a fixed point of frr-reload.py --test
        path = _save(tgen, router, "saved")
        rc, out = frr_reload(router, "test", path)
        assert rc == 0, "{}: frr-reload.py --test failed ({}):\n{}".format(name, rc, out)
        assert "Lines To Add" not in out and "Lines To Delete" not in out, "{}: {}".format(name, out)
        # (b) loads into an empty bgpd and reads back the same
        rc, errors, loaded = _load_into_fresh(tgen, cfg, name)
        assert rc == 0 and not errors, (
            "{}'s saved config does not load into a fresh bgpd (rc {}):\n{}\n{}".format(
                name, rc, "\n".join(errors), cfg))
        assert _bgp_block(loaded) == _bgp_block(cfg), "{}: loaded:\n{}\nsaved:\n{}".format(
            name, "\n".join(_bgp_block(loaded)), "\n".join(_bgp_block(cfg)))
        assert _plists(loaded) == _plists(cfg), (_plists(loaded), _plists(cfg))

    # (c) on leaf1: a reload without the pin removes it (the `no` form), one with it adds it back
    without = _save(tgen, leaf1, "without-pin",
                    "\n".join(l for l in saved["leaf1"].splitlines() if l != pin) + "\n")
    rc, out = frr_reload(leaf1, "reload", without)
    assert rc == 0, out
    assert pin not in running(leaf1).splitlines(), running(leaf1)
    exp_map[G32] = (a0[G32], False, len(GROUPS[G32]))
    got = wait_for(lambda: remote_map(leaf1), exp_map, count=20)
    assert got == exp_map, "pin reloaded away: map {} != {}".format(got, exp_map)
    rc, out = frr_reload(leaf1, "reload", _save(tgen, leaf1, "with-pin", saved["leaf1"]))
    assert rc == 0, out
    assert pin in running(leaf1).splitlines(), running(leaf1)
    exp_map[G32] = (a0[G32], True, len(GROUPS[G32]))
    got = wait_for(lambda: remote_map(leaf1), exp_map, count=20)
    assert got == exp_map, "pin reloaded back: map {} != {}".format(got, exp_map)

    # back to the size-based layout, no pin: nothing moved
    conf_bgp(leaf1, ASN[1], *["no " + l.strip() for l in explicit + [pin]])
    cfg = running(leaf1)
    assert "ecmp-subgroup " not in cfg and "ecmp-group-map" not in cfg, cfg
    m1 = steady(tgen, "explicit layout and pin removed")
    assert m1 == m0, (m0, m1)


def test_boundary_no_groupid():
    "FARE-11: a boundary neighbor (leaf2's to-s4) gets neither PB nor EG; leaf3's routes at spine4 keep EG."
    tgen = tgen_or_skip()
    leaf2, spine4 = tgen.gears["leaf2"], tgen.gears["spine4"]
    steady(tgen, "before the boundary")
    mine = GROUPS[G21] + GROUPS[G22]
    theirs = {p: "EG:{}:{}".format(*k) for k in (G31, G32) for p in GROUPS[k]}
    for p in mine:
        s = ext_string(spine4, p, "to-l2")
        assert s and "EG:{}:{}".format(*_key_of(p)) in s, (p, s)
    try:
        conf_bgp(leaf2, ASN[2], "neighbor to-s4 fare boundary")
        got = wait_for(lambda: {p: ext_string(spine4, p, "to-l2") for p in mine},
                       {p: None for p in mine}, count=30)
        assert got == {p: None for p in mine}, "spine4 still gets FARE communities from leaf2: {}".format(got)
        for p, eg in theirs.items():
            s = ext_string(spine4, p, "to-l3")
            assert s and eg in s.split(" "), (p, s)
    finally:
        leaf2.vtysh_cmd("configure terminal\nrouter bgp {}\nno neighbor to-s4 fare boundary\n".format(ASN[2]))
    exp = {p: "EG:{}:{}".format(*_key_of(p)) for p in mine}
    got = wait_for(lambda: {p: next((t for t in (ext_string(spine4, p, "to-l2") or "").split(" ")
                                     if t.startswith("EG:")), None) for p in mine}, exp, count=30)
    assert got == exp, got
    steady(tgen, "boundary removed")



def test_groups_gone_balance_moves_one():
    """EE-4: both remote groups of sub-group 1 lose their last route (their
    egress leaves drop the `ecmp-group-id` lines): they leave the map, and
    the balance moves one group of sub-group 2 over. Exactly that group's
    routes move in the kernel (to sub-group 1's weights); the other keeps
    its sub-group. The lines back: 4 groups, 2 + 2, again."""
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    m = steady(tgen, "before two groups go")
    before = assignment(m)
    gone = sorted(k for k, sg in before.items() if sg == 1)
    stay = sorted(k for k, sg in before.items() if sg == 2)
    assert len(gone) == 2 and len(stay) == 2, before
    line = {G21: " bgp fare ecmp-group-id 1 prefix-list L2G1",
            G22: " bgp fare ecmp-group-id 2 prefix-list L2G2",
            G31: " bgp fare ecmp-group-id 1 prefix-list L3G1",
            G32: " bgp fare ecmp-group-id 2"}
    leaf_of = {RID[2]: 2, RID[3]: 3}

    def now_key(key):
        "The group a prefix of `key` carries once `gone` are dropped."
        if key not in gone:
            return key
        # leaf3's L3G1 prefixes fall to its line without a prefix-list
        if key == G31 and G32 not in gone:
            return G32
        return None

    try:
        for key in gone:
            i = leaf_of[key[0]]
            conf_bgp(tgen.gears["leaf{}".format(i)], ASN[i], "no" + line[key])
        got = wait_for(lambda: sorted(remote_map(leaf1)), stay, count=60)
        assert got == stay, ecmp_groups(leaf1)
        after = assignment(remote_map(leaf1))
        assert per_subgroup(after) == {1: 1, 2: 1}, after
        moved = [k for k in stay if after[k] != before[k]]
        assert len(moved) == 1 and after[moved[0]] == 1, (before, after)
        exp = {}
        for key, prefixes in GROUPS.items():
            for p in prefixes:
                k = now_key(key)
                exp[p] = SG_WEIGHTS[after[k]] if k else ALL_UPLINKS
        for p in NO_GROUP:
            exp[p] = ALL_UPLINKS
        wait_kernel(leaf1, exp, "groups {} gone, {} moved to sub-group 1".format(gone, moved[0]))
        report("fare_ecmp_groups: groups {} gone from sub-group 1: {} moved from 2 to 1, "
               "its {} prefixes on {}".format(gone, moved[0], len(GROUPS[moved[0]]), SG_WEIGHTS[1]))
    finally:
        for key in gone:
            i = leaf_of[key[0]]
            conf_bgp(tgen.gears["leaf{}".format(i)], ASN[i], line[key].strip())
    steady(tgen, "the groups back")


# G22's IPv4 prefixes (leaf2) and G32's IPv6 one (leaf3)
WITHDRAWN = {2: GROUPS[G22], 3: [p for p in GROUPS[G32] if ":" in p]}


def test_group_withdrawn_leaves_map():
    """EE-4: every route of a remote group withdrawn (leaf2 no longer
    originates G22's IPv4 prefixes): leaf1 has none of them, the group
    leaves its map; leaf3 withdraws G32's IPv6 prefix: G32 counts one
    prefix less; the others keep their counts. The routes back: 4
    groups, 2 + 2, again."""
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    steady(tgen, "before routes are withdrawn")

    def networks(no):
        for i, prefixes in WITHDRAWN.items():
            tgen.gears["leaf{}".format(i)].vtysh_cmd(
                "configure terminal\nrouter bgp {}\n".format(ASN[i]) +
                "".join("address-family {} unicast\n{}network {}\nexit-address-family\n".format(
                    afi_of(p), no, p) for p in prefixes))

    try:
        networks("no ")
        for p in WITHDRAWN[2] + WITHDRAWN[3]:
            assert wait_for(lambda: fare_prefix(leaf1, p, afi_of(p)), {}) == {}, p
        exp = {k: len(v) for k, v in GROUPS.items() if k != G22}
        exp[G32] -= len(WITHDRAWN[3])
        got = wait_for(lambda: {k: v[2] for k, v in remote_map(leaf1).items()}, exp, count=20)
        assert got == exp, ecmp_groups(leaf1)
    finally:
        networks("")
    steady(tgen, "the routes back")


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
