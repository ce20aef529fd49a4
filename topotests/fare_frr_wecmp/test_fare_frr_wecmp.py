#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_frr_wecmp.py: FARE next to FRR's own weighted ECMP
(doc/user/fare.rst, "FARE next to FRR's own weighted ECMP"). Where FARE
weighs a route (FARE on, every path with a fresh Path Bandwidth, FARE-7),
its weights are installed and FRR's link-bandwidth and next-next-hop node
(NNHN) weights are not; where FARE does not (FARE off, or a path without
Path Bandwidth), FRR's own weighted ECMP applies as without the module.
`show bgp ipv4 fare PREFIX [json]` says which ("weightSource"), `show bgp
fare [json]` the FRR knobs in force ("frrWeightedEcmp") and the routes FRR
weighted ("frrWeightedRoutes").

                 400G            100G x2
    r1 (65001) -------- r2 (65002) ====== r4 (65004) originates P with
        |                                 ||| a Path Bandwidth (FARE-2)
        +----- r3 (65003) ================+
          100G             100G x3

P = 172.16.9.0/24. Each router's link bandwidths are set with `neighbor
fare link-bandwidth` (FARE-3).
- FARE: r2 has 2 paths to r4 and advertises 2 x 100G = 200G, r3 3 x 100G
  = 300G (FARE-5); r1 weighs min(400, 200) : min(100, 300) = 2:1 (FARE-4).
- FRR link bandwidth: r2's and r3's outbound route-maps to r1 set the
  link-bandwidth extended community (`set extcommunity bandwidth`) to
  1000 Mb/s on r2's path and 4000 Mb/s on r3's: FRR weighs 1:4, zebra
  scales it to 255 for the largest (rounding down): 63:255 (FRR 10.3's
  zebra scales to 254: 63:254). (Set by the
  senders, not by r1's inbound policy: FRR 10.3 reads a path's link
  bandwidth when it parses the UPDATE, so a value set by inbound policy
  does not weigh there; FRR 10.7 reads it when it weighs.)
- FRR NNHN: r2 and r3 send r1 the Next Hop Characteristics attribute
  (`neighbor send-nexthop-characteristics`), with 2 and 3 next-next hops;
  with `bgp bestpath bandwidth ignore` FRR weighs 2:3, zebra 170:255.
- Without FRR's link bandwidth on r3's path: FARE's 2:1 still; FRR's
  skip-missing leaves r3's path out, default-weight-for-missing gives it 1
  (255:1), FRR's default weighs nothing (equal).
- use-underlays-nexthop-weight: written and cleared as configured (patch
  0019), the source named where nobody else weighs.
The kernel's nexthop group of P on r1 is read for every case. FRR 10.3 has
neither NNHN nor use-underlays-nexthop-weight: those two cases skip there,
the others run on both releases.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import (
    fare_prefix, frr_release, kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for
)
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

P = "172.16.9.0/24"
FABRIC = Fabric({"r1": 65001, "r2": 65002, "r3": 65003, "r4": 65004},
                [("r1", "r2", 400), ("r1", "r3", 100),
                 ("r2", "r4", 100), ("r2", "r4", 100),
                 ("r3", "r4", 100), ("r3", "r4", 100), ("r3", "r4", 100)],
                originate={"r4": [P]})
# FRR's link bandwidth, Mb/s, that r2 and r3 set on what they send r1
LB_MBPS = {"r2": 1000, "r3": 4000}
for _name in ("r2", "r3"):
    _to_r1 = FABRIC.neighbor(_name, "r1")
    FABRIC.extra[_name] = [" neighbor {} send-nexthop-characteristics".format(_to_r1),
                           " address-family ipv4 unicast",
                           "  neighbor {} route-map LB out".format(_to_r1),
                           " exit-address-family"]

FARE_W = {"to-r2": 2, "to-r3": 1}
NNHN_W = {"to-r2": 170, "to-r3": 255}  # 2:3
EQUAL_W = {"to-r2": 1, "to-r3": 1}


def config(name):
    text = FABRIC.config(name)
    if name in LB_MBPS:
        text += "route-map LB permit 10\n set extcommunity bandwidth {}\n!\n".format(
            LB_MBPS[name])
    return text



def setup_module(mod):
    start_fabric(mod, FABRIC, config)


def zebra_scale(tgen):
    "The weight zebra scales FRR's largest weight to (8-bit kernel groups)."
    return 255 if frr_release(tgen) >= (10, 7) else 254


def link_bw_weights(tgen):
    "FRR's 1:4 (1000 and 4000 Mb/s) as zebra installs it: 63:255 (10.3: 63:254)."
    top = zebra_scale(tgen)
    return {"to-r2": LB_MBPS["r2"] * top // LB_MBPS["r3"], "to-r3": top}


def skip_before_10_7(tgen, what):
    if frr_release(tgen) < (10, 7):
        pytest.skip("FRR {} has no {}".format(".".join(map(str, frr_release(tgen))), what))


def teardown_module(_mod):
    get_topogen().stop_topology()


def r1_bgp(router, *lines):
    router.vtysh_cmd("configure terminal\nrouter bgp 65001\n" + "\n".join(lines) + "\n")


def r4_originates(router, on):
    router.vtysh_cmd("configure terminal\nrouter bgp 65004\n{}bgp fare originate\n".format(
        "" if on else "no "))


def state(router):
    """(kernel weights of P, weightSource, FARE's reason) on router."""
    p = fare_prefix(router, P)
    return kernel_weights(router, P), p.get("weightSource"), p.get("reason")


def check(router, expected, what):
    got = wait_for(lambda: state(router), expected, count=60, wait=0.5)
    assert got == expected, "{}: {}: {} != {}".format(router.name, what, got, expected)


def frr_weights(router):
    return {p["interface"]: p.get("frrWeight") for p in fare_prefix(router, P).get("paths", [])}


WCMP = "weighted by Path Bandwidth"
NO_PB = "a path has no Path Bandwidth (FARE-7)"


def test_fare_wins_over_link_bandwidth():
    "FARE on, Path Bandwidth on both paths: FARE's 2:1, not FRR's 1:4."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    check(r1, (FARE_W, "fare", WCMP), "FARE weighs P")
    # both paths carry FRR's link bandwidth too (FRR would weigh them)
    j = vtysh_json(r1, "show bgp ipv4 unicast {} json".format(P))
    texts = sorted(p.get("extendedCommunity", {}).get("string", "") for p in j["paths"])
    assert len(texts) == 2 and all("LB:" in t and "PB:" in t for t in texts), texts
    assert frr_weights(r1) == {"to-r2": None, "to-r3": None}
    j = vtysh_json(r1, "show bgp fare json")
    assert j["frrWeightedEcmp"] == {"linkBandwidth": "ecmp", "nextNextHopNodes": False,
                                    "useUnderlaysNexthopWeight": False}
    out = r1.vtysh_cmd("show bgp ipv4 fare {}".format(P))
    assert "weights set by: fare\n" in out, out


def test_fare_off_link_bandwidth():
    "no bgp fare: FRR's link-bandwidth weights 1:4; FARE on again: 2:1."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1_bgp(r1, "no bgp fare")
    check(r1, (link_bw_weights(tgen), "frr-link-bandwidth", WCMP), "FARE off")
    # bgpd's weights before zebra scales them: the link bandwidth, bytes/s
    assert frr_weights(r1) == {"to-" + n: mbps * 1000000 // 8 for n, mbps in LB_MBPS.items()}
    out = r1.vtysh_cmd("show bgp ipv4 fare {}".format(P))
    assert "weights set by: frr-link-bandwidth (Weight: FRR's" in out, out
    r1_bgp(r1, "bgp fare")
    check(r1, (FARE_W, "fare", WCMP), "FARE on again")


def test_no_path_bandwidth_link_bandwidth():
    "r4 stops originating the Path Bandwidth: FARE falls back (FARE-7), FRR's 1:4."
    tgen = tgen_or_skip()
    r1, r4 = tgen.gears["r1"], tgen.gears["r4"]
    before = vtysh_json(r1, "show bgp fare json")["counters"]["frrWeightedRoutes"]
    r4_originates(r4, False)
    check(r1, (link_bw_weights(tgen), "frr-link-bandwidth", NO_PB), "no Path Bandwidth")
    j = vtysh_json(r1, "show bgp fare json")
    assert j["counters"]["frrWeightedRoutes"] > before
    out = r1.vtysh_cmd("show bgp fare")
    assert ("FRR weighted ECMP (where FARE does not weigh): link bandwidth ecmp, "
            "next-next-hop nodes no, underlays nexthop weight no") in out, out


def test_nnhn():
    "bgp bestpath bandwidth ignore: FRR's NNHN 2:3 where FARE falls back; FARE's 2:1 with PB."
    tgen = tgen_or_skip()
    skip_before_10_7(tgen, "next-next-hop node weighted ECMP")
    r1, r4 = tgen.gears["r1"], tgen.gears["r4"]
    r1_bgp(r1, "bgp bestpath bandwidth ignore")
    check(r1, (NNHN_W, "frr-nnhn", NO_PB), "NNHN, no Path Bandwidth")
    assert frr_weights(r1) == {"to-r2": 2, "to-r3": 3}
    j = vtysh_json(r1, "show bgp fare json")
    assert j["frrWeightedEcmp"]["linkBandwidth"] == "ignore"
    assert j["frrWeightedEcmp"]["nextNextHopNodes"] is True
    r4_originates(r4, True)
    check(r1, (FARE_W, "fare", WCMP), "NNHN, Path Bandwidth back")
    r1_bgp(r1, "no bgp bestpath bandwidth ignore")


def lb_handling(router):
    return vtysh_json(router, "show bgp fare json")["frrWeightedEcmp"]["linkBandwidth"]


def test_missing_link_bandwidth():
    """r3's path without FRR's link bandwidth: FARE still weighs it 2:1 where
    FRR's skip-missing would leave it out; without Path Bandwidth FRR's
    skip-missing, default-weight-for-missing, and its default (no weights
    unless every path has one: equal)."""
    tgen = tgen_or_skip()
    r1, r3, r4 = tgen.gears["r1"], tgen.gears["r3"], tgen.gears["r4"]
    r4_originates(r4, True)
    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\naddress-family ipv4 unicast\n"
                 "no neighbor {} route-map LB out\n".format(FABRIC.neighbor("r3", "r1")))
    r1_bgp(r1, "bgp bestpath bandwidth skip-missing")
    assert wait_for(lambda: lb_handling(r1), "skip-missing", count=10) == "skip-missing"
    check(r1, (FARE_W, "fare", WCMP), "skip-missing, FARE")
    r4_originates(r4, False)
    check(r1, ({"to-r2": 1}, "frr-link-bandwidth", NO_PB), "skip-missing, FRR")
    assert frr_weights(r1) == {"to-r2": LB_MBPS["r2"] * 1000000 // 8, "to-r3": 0}
    r1_bgp(r1, "bgp bestpath bandwidth default-weight-for-missing")
    # 125000000 : 1 scaled to 255: 255 : 1 (at least 1; 10.3: 254 : 1)
    check(r1, ({"to-r2": zebra_scale(tgen), "to-r3": 1}, "frr-link-bandwidth", NO_PB),
          "default-weight-for-missing")
    assert frr_weights(r1) == {"to-r2": LB_MBPS["r2"] * 1000000 // 8, "to-r3": 1}
    r1_bgp(r1, "no bgp bestpath bandwidth default-weight-for-missing")
    check(r1, (EQUAL_W, "equal", NO_PB), "nobody weighs")
    assert frr_weights(r1) == {"to-r2": None, "to-r3": None}
    assert lb_handling(r1) == "ecmp"


def underlay_weight(router):
    return vtysh_json(router, "show bgp fare json")["frrWeightedEcmp"]["useUnderlaysNexthopWeight"]


def test_use_underlays_nexthop_weight():
    """use-underlays-nexthop-weight (FRR's fix after 10.7.1, patch 0019): not
    written unless set (the datacenter defaults set deterministic-med, whose
    bit 10.7.1 tested), named as the source where nobody else weighs, and
    `no` clears it, not deterministic-med."""
    tgen = tgen_or_skip()
    skip_before_10_7(tgen, "use-underlays-nexthop-weight")
    r1 = tgen.gears["r1"]
    assert "use-underlays-nexthop-weight" not in r1.vtysh_cmd("show running-config")
    r1_bgp(r1, "use-underlays-nexthop-weight")
    assert wait_for(lambda: underlay_weight(r1), True, count=10) is True
    # P's next hops are connected: each weighs 1 with the underlay's weight
    check(r1, (EQUAL_W, "frr-underlay-weight", NO_PB), "underlay weight")
    assert " use-underlays-nexthop-weight\n" in r1.vtysh_cmd("show running-config")
    r1_bgp(r1, "no use-underlays-nexthop-weight")
    assert wait_for(lambda: underlay_weight(r1), False, count=10) is False
    check(r1, (EQUAL_W, "equal", NO_PB), "no underlay weight")
    out = r1.vtysh_cmd("show running-config")
    assert "use-underlays-nexthop-weight" not in out and "deterministic-med" not in out, out


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
