#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_clos5.py: FARE in a 5-stage Clos with super-spines in planes
(SPEC FARE-8, FARE-9, FARE-10), numbered eBGP, IPv4 and IPv6.

        plane 1: ss1a   ss1b             plane 2: ss2a        (AS 65000)
                 |  \\  / |                        |  \\
      PoD A:   spa1    spb1  :PoD B       spa2      spb2
      (65010)   |        |   (65020)      (65010)   (65020)
              leafa1   leafb1   (leafa1 also on spa2, leafb1 on spb2)

Links (Gb/s): leafa1-spa1 800, leafa1-spa2 400, spa1-ss1a 800,
spa1-ss1b 400, spb1-ss1a 800, spb1-ss1b 800, spa2-ss2a 800, spb2-ss2a 800,
leafb1-spb1 800, leafb1-spb2 800.

leafa1's prefix: spa1 re-advertises 800, spa2 400 (FARE-5). Super-spines
keep that transitive value and attach a non-transitive one with their link
towards the advertising spine: ss1a 800, ss1b 400, ss2a 800 (FARE-8).
spb1 weighs ss1a:ss1b by min(link, non-transitive) = 800:400 = 2:1 and
passes the transitive value on unchanged (FARE-9); leafb1 weighs spb1:spb2
by min(link, transitive) = 800:400 = 2:1 (FARE-10).
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import GBPS, kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for, wait_json
from fare.fabric import Fabric
# the expected kernel weights, shared with the simulator's unit test
# (topotests/fare/expected_weights.txt, tests/unit/test_sim.c)
from fare import expected

pytestmark = [pytest.mark.bgpd]

ROUTERS = {
    "leafa1": 65111, "spa1": 65010, "spa2": 65010,
    "ss1a": 65000, "ss1b": 65000, "ss2a": 65000,
    "spb1": 65020, "spb2": 65020, "leafb1": 65121,
}
LINKS = [
    ("leafa1", "spa1", 800), ("leafa1", "spa2", 400),
    ("spa1", "ss1a", 800), ("spa1", "ss1b", 400),
    ("spb1", "ss1a", 800), ("spb1", "ss1b", 800),
    ("spa2", "ss2a", 800), ("spb2", "ss2a", 800),
    ("leafb1", "spb1", 800), ("leafb1", "spb2", 800),
]
PREFIX_A = {"ipv4": "172.16.11.0/24", "ipv6": "2001:db8:11::/64"}
PREFIX_B = {"ipv4": "172.16.21.0/24", "ipv6": "2001:db8:21::/64"}
SUPER_SPINES = ("ss1a", "ss1b", "ss2a")
SPINES = ("spa1", "spa2", "spb1", "spb2")


def _fabric():
    f = Fabric(ROUTERS, LINKS,
               originate={"leafa1": list(PREFIX_A.values()), "leafb1": list(PREFIX_B.values())})
    for ss in SUPER_SPINES:
        f.fare_lines[ss] = [" bgp fare", " bgp fare role super-spine"]
    for sp in SPINES:
        f.extra[sp] = [
            " neighbor {} fare super-spine".format(f.neighbor(sp, ss, v6))
            for a, b, _ in LINKS
            for ss in SUPER_SPINES
            if sp in (a, b) and ss in (a, b)
            for v6 in (False, True)
        ]
    return f


FABRIC = _fabric()



def setup_module(mod):
    start_fabric(mod, FABRIC, FABRIC.config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _view(router, afi, prefix):
    j = vtysh_json(router, "show bgp {} fare {} json".format(afi, prefix))
    return j.get("prefixes", {}).get(prefix)


def _cfg(router, asn, *lines):
    router.vtysh_cmd("configure terminal\nrouter bgp {}\n{}\n".format(asn, "\n".join(lines)))


AFIS = ["ipv4", "ipv6"]


@pytest.mark.parametrize("afi", AFIS)
def test_spines_in_source_pod(afi):
    "FARE-4/5 in PoD A: spa1 advertises 800G, spa2 400G."
    tgen = tgen_or_skip()
    for sp, gbps in (("spa1", 800), ("spa2", 400)):
        exp = {"prefixes": {PREFIX_A[afi]: {"wcmp": True, "advertised": {
            "transitive": "replace", "transitiveBytesPerSec": gbps * GBPS}}}}
        res = wait_json(tgen.gears[sp], "show bgp {} fare {} json".format(afi, PREFIX_A[afi]), exp, count=90)
        assert res is None, "{}: {}".format(sp, res)


@pytest.mark.parametrize("afi", AFIS)
def test_super_spines_keep_transitive_attach_non_transitive(afi):
    "FARE-8: transitive value untouched, non-transitive = link towards the advertising spine."
    tgen = tgen_or_skip()
    for ss, t_gbps, nt_gbps in (("ss1a", 800, 800), ("ss1b", 800, 400), ("ss2a", 400, 800)):
        exp = {"prefixes": {PREFIX_A[afi]: {
            "advertised": {"transitive": "keep", "nonTransitive": True,
                           "nonTransitiveBytesPerSec": nt_gbps * GBPS},
            "paths": [{"transitive": {"state": "present", "bytesPerSec": t_gbps * GBPS}}]}}}
        res = wait_json(tgen.gears[ss], "show bgp {} fare {} json".format(afi, PREFIX_A[afi]), exp, count=60)
        assert res is None, "{}: {}".format(ss, res)
    # what spb1 receives from ss1a and ss1b: T from spa1 (AS 65010), NT
    # from the super-spine (AS 65000)
    def received():
        j = vtysh_json(tgen.gears["spb1"], "show bgp {} unicast {} json".format(afi, PREFIX_A[afi]))
        return sorted(p.get("extendedCommunity", {}).get("string", "") for p in j.get("paths", []))

    exp = ["PB:65010:800.000 Gbps PB-NT:65000:400.000 Gbps",
           "PB:65010:800.000 Gbps PB-NT:65000:800.000 Gbps"]
    assert wait_for(received, exp) == exp


@pytest.mark.parametrize("afi", AFIS)
def test_remote_pod_spine_uses_non_transitive(afi):
    "FARE-9: spb1 weighs ss1a:ss1b = min(800,800):min(800,400) = 2:1, keeps the transitive."
    tgen = tgen_or_skip()
    spb1 = tgen.gears["spb1"]
    exp = expected.kernel("clos5-spb1", ["to-ss1a", "to-ss1b"])
    got = wait_for(lambda: kernel_weights(spb1, PREFIX_A[afi], afi == "ipv6"), exp, count=60)
    assert got == exp
    v = _view(spb1, afi, PREFIX_A[afi])
    assert v["wcmp"] is True and v["advertised"]["transitive"] == "keep"
    got = {p["interface"]: (p["fromSuperSpine"], p["nonTransitive"]["bytesPerSec"] / GBPS,
                            p["pathBandwidthBytesPerSec"] / GBPS, p["weight"]) for p in v["paths"]}
    assert got == {"to-ss1a": (True, 800, 800, 2), "to-ss1b": (True, 400, 400, 1)}


@pytest.mark.parametrize("afi", AFIS)
def test_remote_pod_leaf_uses_transitive(afi):
    "FARE-10: leafb1 weighs spb1:spb2 = 800:400 = 2:1; no non-transitive value reaches it."
    tgen = tgen_or_skip()
    leafb1 = tgen.gears["leafb1"]
    exp = expected.kernel("clos5-leafb1", ["to-spb1", "to-spb2"])
    got = wait_for(lambda: kernel_weights(leafb1, PREFIX_A[afi], afi == "ipv6"), exp, count=60)
    assert got == exp
    v = _view(leafb1, afi, PREFIX_A[afi])
    got = {p["interface"]: (p["transitive"]["bytesPerSec"] / GBPS, p["nonTransitive"]["state"],
                            p["weight"]) for p in v["paths"]}
    assert got == {"to-spb1": (800, "absent", 2), "to-spb2": (400, "absent", 1)}
    # and the other direction: leafa1 -> leafb1 over spa1 (800) and spa2 (400 link)
    leafa1 = tgen.gears["leafa1"]
    exp = expected.kernel("clos5-leafa1", ["to-spa1", "to-spa2"])
    assert wait_for(lambda: kernel_weights(leafa1, PREFIX_B[afi], afi == "ipv6"), exp) == exp


def test_lower_transitive_option():
    "FARE-9 option: spb1 lowers the transitive value to its sum when smaller (200+400 < 800)."
    tgen = tgen_or_skip()
    spb1, leafb1 = tgen.gears["spb1"], tgen.gears["leafb1"]
    ss1a = FABRIC.neighbor("spb1", "ss1a")
    _cfg(spb1, 65020, "bgp fare super-spine-paths lower-transitive",
         "neighbor {} fare link-bandwidth 200G".format(ss1a))
    try:
        exp = {"prefixes": {PREFIX_A["ipv4"]: {"advertised": {
            "transitive": "replace", "transitiveBytesPerSec": 600 * GBPS}}}}
        assert wait_json(spb1, "show bgp ipv4 fare {} json".format(PREFIX_A["ipv4"]), exp) is None
        # leafb1: min(800, 600) : min(800, 400) = 3:2
        exp = expected.kernel("clos5-lower", ["to-spb1", "to-spb2"])
        assert wait_for(lambda: kernel_weights(leafb1, PREFIX_A["ipv4"]), exp) == exp
    finally:
        _cfg(spb1, 65020, "no bgp fare super-spine-paths lower-transitive",
             "neighbor {} fare link-bandwidth 800G".format(ss1a))
    exp = expected.kernel("clos5-leafb1", ["to-spb1", "to-spb2"])
    assert wait_for(lambda: kernel_weights(leafb1, PREFIX_A["ipv4"]), exp) == exp


def test_without_super_spine_non_transitive_falls_back_to_ecmp():
    "FARE-9: one super-spine path without a non-transitive value -> ECMP at spb1."
    tgen = tgen_or_skip()
    spb1, ss1b = tgen.gears["spb1"], tgen.gears["ss1b"]
    _cfg(ss1b, 65000, "no bgp fare role super-spine")
    try:
        exp = {"prefixes": {PREFIX_A["ipv4"]: {
            "wcmp": False,
            "reason": "a super-spine path has no non-transitive Path Bandwidth (FARE-9)",
            "advertised": {"transitive": "keep"}}}}
        assert wait_json(spb1, "show bgp ipv4 fare {} json".format(PREFIX_A["ipv4"]), exp) is None
        exp = {"to-ss1a": 1, "to-ss1b": 1}
        assert wait_for(lambda: kernel_weights(spb1, PREFIX_A["ipv4"]), exp) == exp
    finally:
        _cfg(ss1b, 65000, "bgp fare role super-spine")
    exp = expected.kernel("clos5-spb1", ["to-ss1a", "to-ss1b"])
    assert wait_for(lambda: kernel_weights(spb1, PREFIX_A["ipv4"]), exp) == exp


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
