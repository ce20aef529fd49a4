#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_nexthop.py: only a router that puts itself in the forwarding path
rewrites the Path Bandwidth (SPEC FARE-4/5, FARE-7): a route reflector, a
neighbor with `attribute-unchanged next-hop` and a route-map `set ip
next-hop unchanged` pass the received transitive value on as received;
several add-path paths from one neighbor with different next hops share
that session's link bandwidth.

                  ext  (AS 65101, originates 172.16.1.0/24 with 800G)
       L1 400G  /     \  L2 300G
              c1       c1b                       AS 65000
    L3 1000G /  \ L4 1000G
           x3    x4                              AS 65003, AS 65004

    LAN sw1 (interface "lan", 10.100.0.0/24):
      c1 .1, c1b .2, rr .3 (route reflector), c2 .4      all AS 65000
      iBGP sessions rr-c1 100G, rr-c1b 150G, rr-c2 500G

Link k is 10.100.k.0/24, the first router named in LINKS .1, the other .2.
Every session's link bandwidth is set on both ends with `neighbor ADDR fare
link-bandwidth` (FARE-3; on the LAN per neighbor). Every router has `bgp
fare` (draft mode).

- ext originates 172.16.1.0/24 with `bgp fare originate 800G`:
  PB:65101:800G (FARE-2).
- c1: w = min(L1 400, 800) = 400G. It sends rr `next-hop-self`
  (10.100.0.1): it puts itself in the path and rewrites, rr receives
  PB:65000:400G (FARE-5). c1b likewise: min(L2 300, 800) = 300G, next hop
  10.100.0.2, PB:65000:300G.
- rr: w(c1) = min(100, 400) = 100, w(c1b) = min(150, 300) = 150: weights
  2:3, its FARE-5 value 250G. It reflects to c2 with the next hops
  unchanged (c1's .1 and c1b's .2, both on the LAN): c2 forwards to c1 and
  c1b directly, rr is not in the path, so each reflected path keeps the
  value it was received with: c2 receives PB:65000:400G (next hop .1) and
  PB:65000:300G (next hop .2), never rr's 100G, 150G or 250G. rr has
  `addpath-tx-all-paths` towards c2, so c2 gets both paths.
- c2: both paths come from rr over one session (500G) with different next
  hops: they share its 500G. Unscaled, min(500, 400) + min(500, 300) =
  700G > 500G; scaled to fit, 400 * 5/7 + 300 * 5/7 = 500G: weights 4:3
  (kernel: gateway .1 weight 4, .2 weight 3), and c2's FARE-5 value is
  500G, not 700G.
- c1 has `attribute-unchanged next-hop` towards x3 and a route-map `set ip
  next-hop unchanged` towards x4: both receive next hop 10.100.1.1 (ext)
  and ext's value as originated, PB:65101:800G, not c1's PB:65000:400G.
  The value is fresh (FARE-7): the next hop is not the neighbor's, and the
  AS that wrote it, 65101, is on the AS_PATH. x3 and x4 reach
  10.100.1.0/24 by a static route via c1 (`disable-connected-check` on
  their session to c1), so the path is valid and weighed: w = min(1000,
  800) = 800G.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import fare_prefix, DAEMONS_FARE, GBPS, kernel_weights, reduced, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.1.0/24"
ROUTERS = {
    "ext": 65101,
    "c1": 65000,
    "c1b": 65000,
    "rr": 65000,
    "c2": 65000,
    "x3": 65003,
    "x4": 65004,
}
LINKS = [
    ("ext", "c1", 400),  # L1
    ("ext", "c1b", 300),  # L2
    ("c1", "x3", 1000),  # L3
    ("c1", "x4", 1000),  # L4
]
# the LAN (switch sw1, interface "lan" everywhere): address, sessions
LAN = {"c1": "10.100.0.1", "c1b": "10.100.0.2", "rr": "10.100.0.3", "c2": "10.100.0.4"}
LAN_SESSIONS = [("c1", "rr", 100), ("c1b", "rr", 150), ("c2", "rr", 500)]


def addr(name, peer):
    "Address of `name` on its link (or LAN) to `peer`."
    for k, (a, b, _) in enumerate(LINKS, 1):
        if (a, b) == (name, peer):
            return "10.100.{}.1".format(k)
        if (a, b) == (peer, name):
            return "10.100.{}.2".format(k)
    if name in LAN and peer in LAN:
        return LAN[name]
    raise KeyError((name, peer))


def subnet(a, b):
    return addr(a, b).rsplit(".", 1)[0] + ".0/24"


EXT_NH = addr("ext", "c1")  # 10.100.1.1
C1_NH = LAN["c1"]  # 10.100.0.1
C1B_NH = LAN["c1b"]  # 10.100.0.2

# router-level and address-family lines, and lines before `router bgp`
BGP_LINES = {
    "ext": [" bgp fare originate 800G"],
    "x3": [" neighbor {} disable-connected-check".format(addr("c1", "x3"))],
    "x4": [" neighbor {} disable-connected-check".format(addr("c1", "x4"))],
}
AF_LINES = {
    "ext": ["  network " + PREFIX],
    "c1": [
        "  neighbor {} next-hop-self".format(LAN["rr"]),
        "  neighbor {} attribute-unchanged next-hop".format(addr("x3", "c1")),
        "  neighbor {} route-map NH-UNCHANGED out".format(addr("x4", "c1")),
    ],
    "c1b": ["  neighbor {} next-hop-self".format(LAN["rr"])],
    "rr": [
        "  neighbor {} route-reflector-client".format(LAN["c1"]),
        "  neighbor {} route-reflector-client".format(LAN["c1b"]),
        "  neighbor {} route-reflector-client".format(LAN["c2"]),
        "  neighbor {} addpath-tx-all-paths".format(LAN["c2"]),
    ],
}
TOP_LINES = {
    "c1": ["route-map NH-UNCHANGED permit 10", " set ip next-hop unchanged", "!"],
    "x3": ["ip route {} {}".format(subnet("ext", "c1"), addr("c1", "x3")), "!"],
    "x4": ["ip route {} {}".format(subnet("ext", "c1"), addr("c1", "x4")), "!"],
}


TOPOLOGY = Topology().router(*ROUTERS)
for _a, _b, _ in LINKS:
    TOPOLOGY.link(_a, _b, "to-" + _b, "to-" + _a)
TOPOLOGY.switch("sw1")
for _name in LAN:
    TOPOLOGY.link("sw1", _name, None, "lan")


def config(name):
    lines = ["frr defaults datacenter", "hostname " + name, "!"]
    sessions = []  # (address, remote AS, gbps)
    for a, b, gbps in LINKS:
        if name not in (a, b):
            continue
        peer = b if name == a else a
        lines += ["interface to-" + peer, " ip address {}/24".format(addr(name, peer)), "!"]
        sessions.append((addr(peer, name), ROUTERS[peer], gbps))
    if name in LAN:
        lines += ["interface lan", " ip address {}/24".format(LAN[name]), "!"]
        for a, b, gbps in LAN_SESSIONS:
            if name in (a, b):
                peer = b if name == a else a
                sessions.append((LAN[peer], ROUTERS[peer], gbps))
    lines += TOP_LINES.get(name, [])
    lines += [
        "router bgp {}".format(ROUTERS[name]),
        " bgp router-id 10.255.0.{}".format(list(ROUTERS).index(name) + 1),
        " no bgp ebgp-requires-policy",
        " no bgp network import-check",
        " bgp bestpath as-path multipath-relax",
        " timers bgp 3 9",
    ]
    lines += [" neighbor {} remote-as {}".format(a, asn) for a, asn, _ in sessions]
    lines += BGP_LINES.get(name, [])
    lines += [" address-family ipv4 unicast"] + AF_LINES.get(name, []) + [" exit-address-family"]
    lines += [" bgp fare"]
    lines += [" neighbor {} fare link-bandwidth {}G".format(a, g) for a, _, g in sessions]
    lines += ["!"]
    return "\n".join(lines) + "\n"


def daemons_of(name):
    if any(line.startswith("ip route") for line in TOP_LINES.get(name, [])):
        return DAEMONS_FARE + [(TopoRouter.RD_STATIC, None)]
    return DAEMONS_FARE


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config, daemons_of)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _paths(router):
    "{next hop: path} of PREFIX in `router`'s BGP table."
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(PREFIX))
    return {p["nexthops"][0]["ip"]: p for p in j.get("paths", [])}


def _communities(router):
    "{next hop: extended community string} of the valid paths of PREFIX."
    return {
        nh: p.get("extendedCommunity", {}).get("string")
        for nh, p in _paths(router).items()
        if p.get("valid")
    }


def _fare(router):
    return fare_prefix(router, PREFIX)


def _dump(tgen, *names):
    return "\n".join(
        tgen.gears[n].vtysh_cmd("show bgp ipv4 unicast {}".format(PREFIX))
        + tgen.gears[n].vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX))
        for n in names
    )


def _wait_paths(router, next_hops, count=90):
    "Wait until PREFIX has valid paths with exactly these next hops; return their communities."
    want = sorted(next_hops)
    got = wait_for(lambda: sorted(_communities(router)), want, count=count)
    assert got == want, "{}: valid next hops {} != {}".format(router.name, got, want)
    return _communities(router)


def test_sessions_and_paths():
    "Every router has the prefix, with the next hops the BGP configuration gives (no FARE rule yet)."
    tgen = tgen_or_skip()
    # their own eBGP path; rr reflects its best, c1's (lower router ID), to c1b
    _wait_paths(tgen.gears["c1"], [EXT_NH])
    _wait_paths(tgen.gears["c1b"], [addr("ext", "c1b"), C1_NH])
    # next-hop-self on c1 and c1b towards rr
    _wait_paths(tgen.gears["rr"], [C1_NH, C1B_NH])
    # reflected with the next hops unchanged, both paths (add-path)
    _wait_paths(tgen.gears["c2"], [C1_NH, C1B_NH])
    # attribute-unchanged next-hop / route-map set ip next-hop unchanged
    _wait_paths(tgen.gears["x3"], [EXT_NH])
    _wait_paths(tgen.gears["x4"], [EXT_NH])
    # equal-cost paths (best + multipaths)
    for name, n in (("c1", 1), ("c1b", 1), ("rr", 2), ("c2", 2), ("x3", 1), ("x4", 1)):
        paths = _paths(tgen.gears[name]).values()
        ecmp = sum(1 for p in paths if p.get("multipath") or p.get("bestpath", {}).get("overall"))
        assert ecmp == n, _dump(tgen, name)


def test_next_hop_self_rewrites():
    "FARE-4/5: c1 and c1b set themselves as next hop towards rr: they rewrite the value with their own AS."
    tgen = tgen_or_skip()
    rr = tgen.gears["rr"]
    want = {C1_NH: "PB:65000:400.000 Gbps", C1B_NH: "PB:65000:300.000 Gbps"}
    got = wait_for(lambda: _communities(rr), want)
    assert got == want, _dump(tgen, "c1", "c1b", "rr")

    for name, value in (("c1", 400), ("c1b", 300)):
        f = _fare(tgen.gears[name])
        assert f["wcmp"] is True, _dump(tgen, name)
        assert f["paths"][0]["transitive"]["bytesPerSec"] == 800 * GBPS
        assert f["advertised"]["transitive"] == "replace"
        assert f["advertised"]["transitiveBytesPerSec"] == value * GBPS

    # rr's own FARE-4/5 computation: 100G via c1, 150G via c1b, sum 250G
    f = _fare(rr)
    got = sorted((p["linkBandwidthBytesPerSec"] / GBPS, p["transitive"]["bytesPerSec"] / GBPS,
                  p["pathBandwidthBytesPerSec"] / GBPS, p["weight"]) for p in f["paths"])
    assert got == [(100, 400, 100, 2), (150, 300, 150, 3)], _dump(tgen, "rr")
    assert f["advertised"]["transitive"] == "replace"
    assert f["advertised"]["transitiveBytesPerSec"] == 250 * GBPS
    want = {C1_NH: 2, C1B_NH: 3}
    got = wait_for(lambda: reduced(kernel_weights(rr, PREFIX, key="gateway")), want, count=10)
    assert got == want, "rr kernel {}".format(got)


def test_route_reflector_passes_value_unchanged():
    "FARE-5: rr reflects with the next hops unchanged: c2 receives c1's 400G and c1b's 300G, not rr's values."
    tgen = tgen_or_skip()
    c2 = tgen.gears["c2"]
    want = {C1_NH: "PB:65000:400.000 Gbps", C1B_NH: "PB:65000:300.000 Gbps"}
    got = wait_for(lambda: _communities(c2), want, count=30)
    assert got == want, "c2 received {} (expected {})\n{}".format(got, want, _dump(tgen, "rr", "c2"))
    # both paths come from rr: compare the values as a multiset; both fresh
    # (FARE-7: an iBGP neighbor's value carries our AS)
    got = sorted((p["transitive"]["state"], p["transitive"].get("bytesPerSec", 0) / GBPS)
                 for p in _fare(c2)["paths"])
    assert got == [("present", 300), ("present", 400)], _dump(tgen, "c2")


def test_addpath_distinct_next_hops_share_link():
    "FARE-4/5: c2's two paths from rr (one session, 500G) have different next hops: weights 4:3, value 500G."
    tgen = tgen_or_skip()
    c2 = tgen.gears["c2"]

    def view():
        return sorted((p["transitive"].get("bytesPerSec", 0) / GBPS, p["weight"])
                      for p in _fare(c2).get("paths", []))

    want = [(300, 3), (400, 4)]
    got = wait_for(view, want, count=30)
    assert got == want, "c2 (value Gb/s, weight): {} != {}\n{}".format(got, want, _dump(tgen, "c2"))
    f = _fare(c2)
    assert f["wcmp"] is True
    shares = [p["pathBandwidthBytesPerSec"] for p in f["paths"]]
    assert sum(shares) == pytest.approx(500 * GBPS, rel=1e-6), "w {} exceed the 500G session".format(shares)
    assert f["advertised"]["transitive"] == "replace"
    assert f["advertised"]["transitiveBytesPerSec"] == pytest.approx(500 * GBPS, rel=1e-6), (
        "c2 advertises {} Gb/s".format(f["advertised"]["transitiveBytesPerSec"] / GBPS))
    want = {C1_NH: 4, C1B_NH: 3}
    got = wait_for(lambda: reduced(kernel_weights(c2, PREFIX, key="gateway")), want, count=10)
    assert got == want, "c2 kernel {}: {}".format(got, c2.run("ip route show " + PREFIX))


@pytest.mark.parametrize("name,how", [("x3", "attribute-unchanged next-hop"),
                                      ("x4", "route-map set ip next-hop unchanged")])
def test_next_hop_unchanged_passes_value(name, how):
    "FARE-5: c1 does not put itself in the path towards x3/x4: they receive ext's PB:65101:800G."
    tgen = tgen_or_skip()
    x = tgen.gears[name]
    want = {EXT_NH: "PB:65101:800.000 Gbps"}
    got = wait_for(lambda: _communities(x), want, count=30)
    assert got == want, "{} ({}) received {}\n{}".format(name, how, got, _dump(tgen, "c1", name))
    # fresh (FARE-7): written by ext, whose address is the next hop
    want = [("present", 800, 800, 1)]
    got = wait_for(lambda: [(p["transitive"]["state"], p["transitive"].get("bytesPerSec", 0) / GBPS,
                             p["pathBandwidthBytesPerSec"] / GBPS, p["weight"])
                            for p in _fare(x).get("paths", [])], want, count=10)
    assert got == want, _dump(tgen, name)
    # c1's own value is still computed per prefix (and sent to rr)
    assert _fare(tgen.gears["c1"])["advertised"]["transitiveBytesPerSec"] == 400 * GBPS


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
