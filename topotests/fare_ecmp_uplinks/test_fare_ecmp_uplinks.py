#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_ecmp_uplinks.py: Enhanced ECMP sub-groups (EE-2/EE-4) over 12
uplinks swp1..swp12: natural name order, a server session that comes and
goes, a layout change (an uplink's interface deleted while another session
flaps) with every installed prefix checked, and GroupID prefix-list edits
re-tagging originated routes at once (EE-3).

      swp1..4        swp5..8        swp9..12
   leaf1 ==== spine1   ==== spine2    ==== spine3     (AS 65101 / 65000)
     | swp13             \\    |     //
   server                  leaf2 (egress, AS 65102)
   (AS 65200, dynamic neighbor of leaf1, FARE host role, SUN-1)

leaf1 has 12 uplinks, four parallel links to each spine: swp1 is a
numbered session (10.1.1.1/30 <-> 10.1.1.2/30, addressed with `ip addr`
once the daemons run, no `interface swp1` stanza, so that bgpd frees the
interface when it is deleted), swp2..swp12 unnumbered (`neighbor swpN interface`). All links
are veth at 10G, no bandwidth configured; leaf2 has one link to each
spine: spine j re-advertises 10G, and leaf1 splits min(its links to spine
j, 10G) over those links (FARE-4): weight 1 each while every spine has 4
links; after swp1 is deleted spine1's 3 links weigh 4 and the others 3.
The server peers from 10.13.0.2 with leaf1's `bgp listen range
10.13.0.0/24` over swp13 and originates 10.99.0.0/24.

EE-3, leaf2: `bgp fare ecmp-group-id 1 prefix-list G1` (172.16.1.0/24,
172.16.2.0/24), `2 prefix-list G2` (172.16.3.0/24, 172.16.4.0/24), `3
prefix-list G3` (172.16.5.0/24, 172.16.6.0/24); 172.16.9.0/24 matches none
and carries no GroupID.

EE-2, leaf1: `bgp fare ecmp-subgroups size 4`. Uplinks in natural order
(swp2 before swp10), the server's session left out (a dynamic neighbor):
sub-group 1 = swp1..swp4, 2 = swp5..swp8, 3 = swp9..swp12; the 3 remote
groups one per sub-group (EE-4). Checks:
  1. the layout above; map 3 groups on 3 different sub-groups; each
     grouped prefix in the kernel exactly over its sub-group's 4
     interfaces at weight 1, and no two remote groups share an interface;
     172.16.9.0/24 over all 12, all at weight 1.
  2. server session down (the dynamic peer goes) and back (Established):
     layout, map and every prefix unchanged.
  3. EE-3 prefix-list edits on leaf2: 172.16.9.0/24 added to G1, then
     172.16.3.0/24 too: leaf1 receives them with EG:10.255.0.2:1 (G1 is
     the lowest group) and installs them on group 1's sub-group; the lines
     removed: no GroupID again, and EG:10.255.0.2:2.
  4. Layout change, memory safety: leaf1's swp1 is deleted (its numbered
     session goes down, bgpd frees the interface it still points to) and
     then swp12 flaps: the layout is swp2..5, swp6..9, swp10..12 (swp1
     gone, nothing read through the freed interface); every grouped
     prefix is installed exactly over its sub-group's members (swp2..4 at
     weight 4, swp5 at 3 in sub-group 1) and no two remote groups share
     one. Last test: the link is not re-created.
"""

import math
import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import fare_prefix, kernel_weights, report, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

UPLINKS = ["swp{}".format(k) for k in range(1, 13)]
SPINE_OF = {u: (k - 1) // 4 + 1 for k, u in enumerate(UPLINKS, 1)}
LEAF2 = "10.255.0.2"
GROUPS = {
    (LEAF2, 1): ["172.16.1.0/24", "172.16.2.0/24"],
    (LEAF2, 2): ["172.16.3.0/24", "172.16.4.0/24"],
    (LEAF2, 3): ["172.16.5.0/24", "172.16.6.0/24"],
}
NO_GROUP = "172.16.9.0/24"
SERVER_PREFIX = "10.99.0.0/24"
LAYOUT = {1: UPLINKS[0:4], 2: UPLINKS[4:8], 3: UPLINKS[8:12]}
PLISTS = [
    "ip prefix-list G1 seq 5 permit 172.16.1.0/24",
    "ip prefix-list G1 seq 10 permit 172.16.2.0/24",
    "ip prefix-list G2 seq 5 permit 172.16.3.0/24",
    "ip prefix-list G2 seq 10 permit 172.16.4.0/24",
    "ip prefix-list G3 seq 5 permit 172.16.5.0/24",
    "ip prefix-list G3 seq 10 permit 172.16.6.0/24",
]


def spine_port(k):
    "spine-side name of leaf1's swp<k>"
    return "l1p{}".format(k)


TOPOLOGY = Topology().router("leaf1", "leaf2", "spine1", "spine2", "spine3", "server")
for _k, _u in enumerate(UPLINKS, 1):
    TOPOLOGY.link("leaf1", "spine{}".format(SPINE_OF[_u]), _u, spine_port(_k))
for _j in (1, 2, 3):
    TOPOLOGY.link("leaf2", "spine{}".format(_j), "to-s{}".format(_j), "to-l2")
TOPOLOGY.link("leaf1", "server", "swp13", "eth0")


def address_swp1(tgen):
    """swp1's addresses outside FRR's configuration: bgpd keeps no
    configuration node for the interface and frees it when it goes. Once
    the daemons run (the library flushes addresses when it starts them)."""
    tgen.gears["leaf1"].cmd_raises("ip addr add 10.1.1.1/30 dev swp1")
    tgen.gears["spine1"].cmd_raises("ip addr add 10.1.1.2/30 dev {}".format(spine_port(1)))


HEAD = ["frr defaults datacenter", "hostname {}", "!"]


def config_of(name):
    lines = [l.format(name) for l in HEAD]
    if name == "leaf1":
        lines += ["interface swp13", " ip address 10.13.0.1/24", "!",
                  "router bgp 65101", " bgp router-id 10.255.0.1",
                  " no bgp ebgp-requires-policy", " no bgp network import-check",
                  " timers bgp 3 9",
                  " neighbor SERVERS peer-group", " neighbor SERVERS remote-as external",
                  " bgp listen range 10.13.0.0/24 peer-group SERVERS",
                  " neighbor 10.1.1.2 remote-as 65000"]
        lines += [" neighbor {} interface remote-as external".format(u) for u in UPLINKS[1:]]
        lines += [" bgp fare", " bgp fare hold-down 0", " bgp fare ecmp-subgroups size 4", "!"]
    elif name == "leaf2":
        lines += ["router bgp 65102", " bgp router-id {}".format(LEAF2),
                  " no bgp ebgp-requires-policy", " no bgp network import-check",
                  " timers bgp 3 9"]
        lines += [" neighbor to-s{} interface remote-as external".format(j) for j in (1, 2, 3)]
        lines += [" address-family ipv4 unicast"]
        lines += ["  network {}".format(p) for ps in GROUPS.values() for p in ps]
        lines += ["  network {}".format(NO_GROUP), " exit-address-family",
                  " bgp fare", " bgp fare originate",
                  " bgp fare ecmp-group-id 1 prefix-list G1",
                  " bgp fare ecmp-group-id 2 prefix-list G2",
                  " bgp fare ecmp-group-id 3 prefix-list G3", "!"]
        lines += PLISTS
    elif name == "server":
        lines += ["interface eth0", " ip address 10.13.0.2/24", "!",
                  "router bgp 65200", " bgp router-id 10.255.2.1",
                  " no bgp ebgp-requires-policy", " no bgp network import-check",
                  " timers bgp 3 9", " neighbor 10.13.0.1 remote-as 65101",
                  " address-family ipv4 unicast", "  network {}".format(SERVER_PREFIX),
                  " exit-address-family", " bgp fare", " bgp fare originate",
                  " bgp fare role host", "!"]
    else:
        j = int(name[5:])
        lines += ["router bgp 65000", " bgp router-id 10.255.1.{}".format(j),
                  " no bgp ebgp-requires-policy", " timers bgp 3 9", " neighbor to-l2 interface remote-as external"]
        for k, u in enumerate(UPLINKS, 1):
            if SPINE_OF[u] != j:
                continue
            if k == 1:
                lines.append(" neighbor 10.1.1.1 remote-as 65101")
            else:
                lines.append(" neighbor {} interface remote-as external".format(spine_port(k)))
        lines += [" bgp fare", "!"]
    return "\n".join(lines) + "\n"


def setup_module(mod):
    address_swp1(start_fabric(mod, TOPOLOGY, config_of))


def teardown_module(_mod):
    get_topogen().stop_topology()


# -- helpers ----------------------------------------------------------------


def ecmp_groups(router):
    return vtysh_json(router, "show bgp fare ecmp-groups json")


def layout(router):
    return {s.get("subgroup"): s.get("interfaces")
            for s in ecmp_groups(router).get("subgroups", []) or []}


def remote_map(router):
    return {(g.get("routerId"), g.get("groupId")): g.get("subgroup")
            for g in ecmp_groups(router).get("remoteGroups", []) or []}


def established_count(router):
    j = vtysh_json(router, "show bgp ipv4 unicast summary json")
    return sum(1 for p in j.get("peers", {}).values() if p.get("state") == "Established")


def peer_state(router, neighbor):
    j = vtysh_json(router, "show bgp neighbors {} json".format(neighbor))
    return j.get(neighbor, {}).get("bgpState")


def ext_string(router, prefix):
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(prefix))
    paths = [p for p in j.get("paths", []) if p.get("bestpath", {}).get("overall")]
    if not paths:
        return ""
    return paths[0].get("extendedCommunity", {}).get("string")


def eg_of(router, prefix):
    "the EG:<rid>:<group> token of leaf1's best path, None without"
    s = ext_string(router, prefix) or ""
    return next((t for t in s.split(" ") if t.startswith("EG:")), None)


def fare_weights(uplinks, lay):
    """FARE-4 weights over these uplinks: spine j's links share min(its
    links' sum, Path Bandwidth 10G) = 10G, so each weighs 1/(links to
    spine j); integers reduced by their gcd (WP-3)."""
    links = {}
    for ifs in lay.values():
        for u in ifs:
            links[SPINE_OF[u]] = links.get(SPINE_OF[u], 0) + 1
    raw = {u: 12 // links[SPINE_OF[u]] for u in uplinks}
    g = 0
    for w in raw.values():
        g = math.gcd(g, w)
    return {u: w // g for u, w in raw.items()}


def expected_kernel(lay, assign, groups=GROUPS):
    "{prefix: {dev: weight}}: each grouped prefix on its sub-group, the no-group on all uplinks"
    out = {}
    for key, prefixes in groups.items():
        for p in prefixes:
            out[p] = fare_weights(lay[assign[key]], lay)
    out[NO_GROUP] = fare_weights([u for ifs in lay.values() for u in ifs], lay)
    return out


def check_installed(router, lay, what, groups=GROUPS):
    """Every prefix: the map puts each remote group on its own sub-group,
    the kernel has each grouped prefix over exactly its sub-group's
    members at FARE's weights, and ecmpGroup names them; no two remote groups
    share an uplink."""
    def state():
        assign = remote_map(router)
        if set(assign) != set(groups) or sorted(assign.values()) != sorted(lay):
            return None
        exp = expected_kernel(lay, assign, groups)
        got = {p: kernel_weights(router, p) for p in exp}
        return (assign, got, exp)

    ok = wait_for(lambda: (lambda s: s is not None and s[1] == s[2])(state()), True, count=60)
    s = state()
    assert s is not None, "{}: map {} does not put {} groups on {} sub-groups: {}".format(
        what, remote_map(router), len(groups), len(lay), ecmp_groups(router))
    assign, got, exp = s
    bad = {p: {"got": got[p], "expected": exp[p]} for p in exp if got[p] != exp[p]}
    assert ok and not bad, "{}: kernel nexthops of {} of {} prefixes differ: {}".format(
        what, len(bad), len(exp), bad)
    used = {}
    for key, prefixes in groups.items():
        for p in prefixes:
            for dev in got[p]:
                assert used.setdefault(dev, key) == key, (
                    "{}: EE-4: remote groups {} and {} share uplink {}".format(
                        what, used[dev], key, dev))
            eg = fare_prefix(router, p).get("ecmpGroup", {})
            view = {k: eg.get(k) for k in ("subgroup", "members", "reason")}
            view["members"] = sorted(view["members"] or [], key=lambda u: int(u[3:]))  # path order
            exp_view = {"subgroup": assign[key], "members": lay[assign[key]], "reason": "sub-group"}
            assert view == exp_view, "{}: {} ecmpGroup {} != {}".format(what, p, view, exp_view)
    return assign


def conf(router, asn, *lines, node="router bgp {}"):
    head = "configure terminal\n" + (node.format(asn) + "\n" if node else "")
    out = router.vtysh_cmd(head + "\n".join(lines) + "\n")
    assert "%" not in out, "{}: {}: {}".format(router.name, lines, out)


# -- tests ------------------------------------------------------------------


def test_converged():
    "All sessions up: leaf1 has 12 uplinks and the server; leaf2's 7 prefixes over 12 paths."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    got = wait_for(lambda: established_count(leaf1), 13, count=120)
    assert got == 13, "leaf1: {} of 13 sessions established".format(got)

    def paths():
        j = vtysh_json(leaf1, "show bgp ipv4 unicast {} json".format(NO_GROUP))
        return len(j.get("paths", []))
    assert wait_for(paths, 12, count=60) == 12, "leaf1: {} paths to {}".format(paths(), NO_GROUP)
    assert wait_for(lambda: bool(kernel_weights(leaf1, SERVER_PREFIX)), True, count=30), \
        "leaf1 never installed the server's {}".format(SERVER_PREFIX)


def test_natural_order_layout():
    "EE-2: 12 uplinks in natural order swp1-4, swp5-8, swp9-12, the server's dynamic session left out."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    got = wait_for(lambda: layout(leaf1), LAYOUT, count=30)
    assert got == LAYOUT, "leaf1's layout {} != {}".format(got, LAYOUT)
    assign = check_installed(leaf1, LAYOUT, "converged")
    report("fare_ecmp_uplinks: layout {}, map {}".format(
        LAYOUT, {"EG:{}:{}".format(*k): v for k, v in sorted(assign.items())}))


def test_server_session_comes_and_goes():
    "EE-2: a dynamic server session going down and up changes no sub-group and no installed prefix."
    tgen = tgen_or_skip()
    leaf1, server = tgen.gears["leaf1"], tgen.gears["server"]
    a0 = check_installed(leaf1, LAYOUT, "before the server flap")
    conf(server, 65200, "neighbor 10.13.0.1 shutdown")
    # the dynamic peer is deleted when its session goes
    gone = wait_for(lambda: peer_state(leaf1, "10.13.0.2"), None, count=30)
    assert gone is None, "leaf1 still has the server's session: {}".format(gone)
    assert wait_for(lambda: kernel_weights(leaf1, SERVER_PREFIX), {}, count=30) == {}
    assert layout(leaf1) == LAYOUT, "server gone: layout {}".format(ecmp_groups(leaf1))
    a1 = check_installed(leaf1, LAYOUT, "server session gone")
    conf(server, 65200, "no neighbor 10.13.0.1 shutdown")
    up = wait_for(lambda: peer_state(leaf1, "10.13.0.2"), "Established", count=60)
    assert up == "Established", "the server's session did not come back: {}".format(up)
    assert wait_for(lambda: kernel_weights(leaf1, SERVER_PREFIX), {"swp13": 1}, count=30) == \
        {"swp13": 1}
    assert layout(leaf1) == LAYOUT, "server back: layout {}".format(ecmp_groups(leaf1))
    a2 = check_installed(leaf1, LAYOUT, "server session back")
    assert a0 == a1 == a2, "the map moved: {} {} {}".format(a0, a1, a2)


def test_groupid_prefix_list_edit():
    "EE-3: editing a GroupID prefix-list re-tags and re-announces the originated routes at once."
    tgen = tgen_or_skip()
    leaf1, leaf2 = tgen.gears["leaf1"], tgen.gears["leaf2"]
    g1, g2 = "EG:{}:1".format(LEAF2), "EG:{}:2".format(LEAF2)
    assert wait_for(lambda: eg_of(leaf1, NO_GROUP), None, count=10) is None
    assert wait_for(lambda: eg_of(leaf1, "172.16.3.0/24"), g2, count=10) == g2
    add = ["ip prefix-list G1 seq 15 permit {}".format(NO_GROUP),
           "ip prefix-list G1 seq 20 permit 172.16.3.0/24"]
    try:
        conf(leaf2, None, add[0], node=None)
        got = wait_for(lambda: eg_of(leaf1, NO_GROUP), g1, count=20)
        assert got == g1, "{} added to G1: leaf1 receives {} ({})".format(
            NO_GROUP, got, ext_string(leaf1, NO_GROUP))
        # G1 is the lowest group: it takes 172.16.3.0/24 from G2
        conf(leaf2, None, add[1], node=None)
        got = wait_for(lambda: eg_of(leaf1, "172.16.3.0/24"), g1, count=20)
        assert got == g1, "172.16.3.0/24 added to G1: leaf1 receives {}".format(got)
        groups = {k: list(v) for k, v in GROUPS.items()}
        groups[(LEAF2, 1)] += [NO_GROUP, "172.16.3.0/24"]
        groups[(LEAF2, 2)].remove("172.16.3.0/24")
        # the no-group prefix is now grouped: on group 1's sub-group
        assign = remote_map(leaf1)
        exp = {p: fare_weights(LAYOUT[assign[k]], LAYOUT) for k, ps in groups.items() for p in ps}
        got = wait_for(lambda: {p: kernel_weights(leaf1, p) for p in exp}, exp, count=30)
        assert got == exp, "re-tagged prefixes installed {} != {}".format(got, exp)
    finally:
        for line in add:
            leaf2.vtysh_cmd("configure terminal\nno {}\n".format(line))
    got = wait_for(lambda: (eg_of(leaf1, NO_GROUP), eg_of(leaf1, "172.16.3.0/24")), (None, g2),
                   count=20)
    assert got == (None, g2), "G1 lines removed: leaf1 receives {}".format(got)
    check_installed(leaf1, LAYOUT, "prefix-list edits undone")


def test_uplink_deleted_while_another_flaps():
    "EE-2 layout change: swp1 (numbered) deleted, swp12 flaps: swp2-5/6-9/10-12, every prefix re-installed."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    check_installed(leaf1, LAYOUT, "before the deletion")
    leaf1.run("ip link del swp1")
    assert wait_for(lambda: peer_state(leaf1, "10.1.1.2"), "Established", count=30) != "Established"
    # another session flaps while swp1's peer is down over a deleted interface
    leaf1.run("ip link set dev swp12 down")
    assert wait_for(lambda: peer_state(leaf1, "swp12"), "Established", count=30) != "Established"
    leaf1.run("ip link set dev swp12 up")
    assert wait_for(lambda: peer_state(leaf1, "swp12"), "Established", count=90) == "Established"
    new = {1: UPLINKS[1:5], 2: UPLINKS[5:9], 3: UPLINKS[9:12]}
    got = wait_for(lambda: layout(leaf1), new, count=30)
    assert got == new, "swp1 deleted: layout {} != {}".format(got, new)
    check_installed(leaf1, new, "swp1 deleted, swp12 flapped")
    # bgpd still answers and holds its 12 sessions (11 up, 10.1.1.2 down)
    assert established_count(leaf1) == 12, vtysh_json(leaf1, "show bgp summary json")


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
