#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_addpath.py: FARE with BGP add-path (SPEC FARE-4/5). A router that
sends all its paths of a prefix to a neighbor (`addpath-tx-all-paths`)
puts the value of the whole multipath set on each of them; the receiver
counts the link to that neighbor once, whatever the number of paths it
receives over it with the same next hop.

       leafA (AS 65101)        leafB (AS 65102)     both originate
        |       \\                /                  172.16.9.0/24 (max)
   L3 200G   L1 400G      L2 800G
        |          \\        /
      S2 (AS 65010)   S (AS 65000)     S: addpath-tx-all-paths towards L
          L5 200G \\    / L4 1000G
                     L (AS 65200)

Link k is 10.100.k.0/24, the first router named in LINKS .1, the other .2;
every link bandwidth is set on both ends with `neighbor ADDR fare
link-bandwidth` (FARE-3). Every router has `bgp fare` (draft mode); the
leaves originate the anycast prefix with the maximum value (FARE-2).

- S: w(leafA) = min(400, max) = 400, w(leafB) = min(800, max) = 800:
  weights 1:2, FARE-5 value 400 + 800 = 1200G.
- S2: one path, min(200, max) = 200G.
- S sends L both of its paths (add-path), next hop S (10.100.4.1) on
  both. S is in the forwarding path of both, and what it offers behind
  itself is the whole set: each path carries PB:65000:1200G (1.200 Tbps),
  not a share of it (400G or 800G).
- L has three equal-cost paths (as-path length 2, multipath-relax): S via
  leafA, S via leafB, S2 via leafA. The two from S have the same next hop
  over the same session: one forwarding entry, counted once:
  w(S) = min(L4 1000, 1200) = 1000 on the first, the duplicate weight 0;
  w(S2) = min(L5 200, 200) = 200. Weights S:S2 = 1000:200 = 5:1, one
  kernel nexthop via S; L's FARE-5 value is 1000 + 200 = 1200G, not
  1000 + 1000 + 200 = 2200G.
"""

import json
import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import fare_prefix, GBPS, kernel_weights, reduced, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.9.0/24"
ROUTERS = {"leafA": 65101, "leafB": 65102, "S": 65000, "S2": 65010, "L": 65200}
LINKS = [
    ("leafA", "S", 400),  # L1
    ("leafB", "S", 800),  # L2
    ("leafA", "S2", 200),  # L3
    ("S", "L", 1000),  # L4
    ("S2", "L", 200),  # L5
]


def addr(name, peer):
    "Address of `name` on its link to `peer`."
    for k, (a, b, _) in enumerate(LINKS, 1):
        if (a, b) == (name, peer):
            return "10.100.{}.1".format(k)
        if (a, b) == (peer, name):
            return "10.100.{}.2".format(k)
    raise KeyError((name, peer))


S_NH = addr("S", "L")  # 10.100.4.1
S2_NH = addr("S2", "L")  # 10.100.5.1

BGP_LINES = {
    "leafA": [" bgp fare originate"],
    "leafB": [" bgp fare originate"],
}
AF_LINES = {
    "leafA": ["  network " + PREFIX],
    "leafB": ["  network " + PREFIX],
    "S": ["  neighbor {} addpath-tx-all-paths".format(addr("L", "S"))],
}


TOPOLOGY = Topology().router(*ROUTERS)
for _a, _b, _ in LINKS:
    TOPOLOGY.link(_a, _b, "to-" + _b, "to-" + _a)


def config(name):
    lines = ["frr defaults datacenter", "hostname " + name, "!"]
    sessions = []  # (address, remote AS, gbps)
    for a, b, gbps in LINKS:
        if name not in (a, b):
            continue
        peer = b if name == a else a
        lines += ["interface to-" + peer, " ip address {}/24".format(addr(name, peer)), "!"]
        sessions.append((addr(peer, name), ROUTERS[peer], gbps))
    lines += [
        "router bgp {}".format(ROUTERS[name]),
        " bgp router-id 10.255.0.{}".format(list(ROUTERS).index(name) + 1),
        " no bgp ebgp-requires-policy",
        " no bgp network import-check",
        " bgp bestpath as-path multipath-relax",
        " timers bgp 3 9",
    ]
    lines += [" neighbor {} remote-as {}".format(a, asn) for a, asn, _ in sessions]
    lines += [" address-family ipv4 unicast"] + AF_LINES.get(name, []) + [" exit-address-family"]
    lines += [" bgp fare"] + BGP_LINES.get(name, [])
    lines += [" neighbor {} fare link-bandwidth {}G".format(a, g) for a, _, g in sessions]
    lines += ["!"]
    return "\n".join(lines) + "\n"


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _paths(router):
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(PREFIX))
    return [p for p in j.get("paths", []) if p.get("valid")]


def _received(router):
    "Sorted (next hop, as-path, extended community, multipath or best) of the valid paths of PREFIX."
    return sorted(
        (p["nexthops"][0]["ip"], p["aspath"]["string"], p.get("extendedCommunity", {}).get("string"),
         bool(p.get("multipath") or p.get("bestpath", {}).get("overall")))
        for p in _paths(router)
    )


def _fare(router):
    return fare_prefix(router, PREFIX)


def _dump(tgen, *names):
    return "\n".join(
        tgen.gears[n].vtysh_cmd("show bgp ipv4 unicast {}".format(PREFIX))
        + tgen.gears[n].vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX))
        for n in names
    )


def _l_paths(tgen, count=90):
    "Wait for L's three equal-cost paths; return them as _received() does, communities left out."
    L = tgen.gears["L"]
    want = [(S_NH, "65000 65101", True), (S_NH, "65000 65102", True), (S2_NH, "65010 65101", True)]
    got = wait_for(lambda: [(nh, asp, mp) for nh, asp, _, mp in _received(L)], want, count=count)
    assert got == want, "L's paths: {}\n{}".format(got, _dump(tgen, "S", "L"))


def test_sessions_and_paths():
    "S has both leaves' paths, L two add-path paths from S and one from S2, all equal-cost (no FARE rule yet)."
    tgen = tgen_or_skip()
    _l_paths(tgen)
    S = tgen.gears["S"]
    # (S also has L's re-advertisement, with a longer AS_PATH: not equal-cost)
    got = [(nh, asp) for nh, asp, _, mp in _received(S) if mp]
    assert got == [(addr("leafA", "S"), "65101"), (addr("leafB", "S"), "65102")], _dump(tgen, "S")


def test_spines_compute_full_sum():
    "FARE-4/5: S weighs 400:800 = 1:2 and computes 1200G; S2 computes 200G."
    tgen = tgen_or_skip()
    f = _fare(tgen.gears["S"])
    got = sorted((p["pathBandwidthBytesPerSec"] / GBPS, p["weight"]) for p in f["paths"])
    assert got == [(400, 1), (800, 2)], _dump(tgen, "S")
    assert f["advertised"]["transitive"] == "replace"
    assert f["advertised"]["transitiveBytesPerSec"] == 1200 * GBPS
    f = _fare(tgen.gears["S2"])
    assert f["advertised"]["transitiveBytesPerSec"] == 200 * GBPS, _dump(tgen, "S2")


def test_addpath_send_carries_full_sum():
    "FARE-5: both add-path paths S sends L carry S's whole value, PB:65000:1.200 Tbps."
    tgen = tgen_or_skip()
    _l_paths(tgen)
    L = tgen.gears["L"]
    want = [
        (S_NH, "65000 65101", "PB:65000:1.200 Tbps", True),
        (S_NH, "65000 65102", "PB:65000:1.200 Tbps", True),
        (S2_NH, "65010 65101", "PB:65010:200.000 Gbps", True),
    ]
    got = wait_for(lambda: _received(L), want, count=30)
    assert got == want, "L received {}\n{}".format(got, _dump(tgen, "S", "L"))


def _l_view(tgen):
    "L's FARE view: sorted (peer, value Gb/s, weight) and the advertised value (Gb/s)."
    f = _fare(tgen.gears["L"])
    paths = sorted((p["peer"], p["transitive"].get("bytesPerSec", 0) / GBPS, p["weight"])
                   for p in f.get("paths", []))
    adv = f.get("advertised", {}).get("transitiveBytesPerSec", 0) / GBPS
    return paths, adv


def test_addpath_receive_counts_link_once():
    "FARE-4/5: L weighs S:S2 = 1000:200 = 5:1, the duplicate S path 0, and advertises 1000 + 200 = 1200G."
    tgen = tgen_or_skip()
    _l_paths(tgen)
    want_paths = [(S_NH, 1200, 0), (S_NH, 1200, 5), (S2_NH, 200, 1)]
    want = (want_paths, 1200)
    got = wait_for(lambda: _l_view(tgen), want, count=30)
    assert got[0] == want_paths, "L (peer, value Gb/s, weight): {}\n{}".format(got[0], _dump(tgen, "L"))
    assert got[1] == 1200, "L advertises {} Gb/s\n{}".format(got[1], _dump(tgen, "L"))
    f = _fare(tgen.gears["L"])
    assert f["wcmp"] is True
    assert f["advertised"]["transitive"] == "replace"


def _kernel_members(router):
    "Every member of the kernel route of PREFIX, as (device, weight), duplicates kept."
    routes = json.loads(router.run("ip -j route show {}".format(PREFIX)) or "[]")
    if not routes:
        return []
    route = routes[0]
    if "nhid" in route:
        nhg = json.loads(router.run("ip -j nexthop show id {}".format(route["nhid"])))[0]
        members = []
        for m in nhg.get("group") or [{"id": route["nhid"]}]:
            nh = json.loads(router.run("ip -j nexthop show id {}".format(m["id"])))[0]
            members.append((nh["dev"], m.get("weight", 1)))
        return sorted(members)
    if "nexthops" in route:
        return sorted((nh["dev"], nh.get("weight", 1)) for nh in route["nexthops"])
    return [(route["dev"], 1)]


def test_addpath_receive_kernel():
    "FARE-4: the kernel has one nexthop via S and one via S2, weighted 5:1."
    tgen = tgen_or_skip()
    _l_paths(tgen)
    L = tgen.gears["L"]
    want = {"to-S": 5, "to-S2": 1}
    got = wait_for(lambda: reduced(kernel_weights(L, PREFIX)), want, count=30)
    members = _kernel_members(L)
    assert got == want, "L kernel {} (members {})\n{}".format(got, members, _dump(tgen, "L"))
    # exactly one member via S (zebra installs a next hop once)
    assert [dev for dev, _ in members] == ["to-S", "to-S2"], "L kernel members {}".format(members)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
