#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_traffic.py: real traffic over FARE weights, against plain ECMP.

           spine1   spine2   spine3   spine4
             |   \\  / |  \\  / |  \\  /  |
           leaf1      leaf2      leaf3
             |          |
            h1          h2

All links 800G except leaf1-spine4, degraded to 400G (a LAG that lost half
its members). leaf2 weighs its uplinks for h1's subnet by min(its link,
what spine j advertises) = 800:800:800:400 = 2:2:2:1 (SPEC FARE-4/5).

h2 sends 4000 UDP flows (one source port each) to h1; leaf2 hashes them by
L4 (net.ipv4.fib_multipath_hash_policy = 1). The share of packets on each
uplink, read from leaf2's interface counters, must match the weights within
3 percentage points. The same fabric with FARE off at leaf2 (plain ECMP)
sends a quarter of the flows towards the degraded 400G path: both are
printed side by side.
"""

import os
import sys
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))
sys.path.append(os.path.join(CWD, ".."))

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare_common import GBPS, kernel_weights, measure_split, report, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare_fabric import Clos3

pytestmark = [pytest.mark.bgpd]

FLOWS = 4000
UPLINKS = ["to-s1", "to-s2", "to-s3", "to-s4"]
DEGRADED = {(1, 4): 400}
FABRIC = Clos3(leaves=3, spines=4, link_gbps=DEGRADED, default_gbps=800, hosts=(1, 2))

RESULTS = {}


def build_topo(tgen):
    FABRIC.build_topo(tgen)


def setup_module(mod):
    tgen = start_fabric(mod, build_topo, FABRIC.config)
    leaf2 = tgen.gears["leaf2"]
    leaf2.run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")
    leaf2.run("sysctl -w net.ipv6.fib_multipath_hash_policy=1")


def teardown_module(_mod):
    get_topogen().stop_topology()


def measure(tgen):
    return measure_split(tgen.gears["leaf2"], tgen.gears["h2"], UPLINKS, "172.16.1.10", FLOWS)


def test_weights_in_kernel():
    "leaf2 installs 2:2:2:1 for h1's subnet (800,800,800,400 Gb/s)."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    exp = {"to-s1": 2, "to-s2": 2, "to-s3": 2, "to-s4": 1}
    got = wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp, count=90)
    assert got == exp
    j = vtysh_json(leaf2, "show bgp ipv4 fare 172.16.1.0/24 json")
    paths = {p["interface"]: p for p in j["prefixes"]["172.16.1.0/24"]["paths"]}
    RESULTS["pathbw"] = {i: paths[i]["transitive"]["bytesPerSec"] / GBPS for i in UPLINKS}
    RESULTS["weights"] = got
    assert RESULTS["pathbw"] == {"to-s1": 800, "to-s2": 800, "to-s3": 800, "to-s4": 400}


def test_traffic_split_follows_weights():
    "Measured per-uplink shares are within 3 points of 2:2:2:1 (28.6/28.6/28.6/14.3%)."
    tgen = tgen_or_skip()
    shares = measure(tgen)
    RESULTS["fare"] = shares
    weights = RESULTS["weights"]
    wsum = float(sum(weights.values()))
    for i in UPLINKS:
        expected = 100.0 * weights[i] / wsum
        assert abs(shares[i] - expected) <= 3.0, "{}: {:.1f}% vs {:.1f}%".format(
            i, shares[i], expected
        )


def test_plain_ecmp_shows_the_imbalance():
    "FARE off at leaf2: ECMP 1:1:1:1, a quarter of the flows on the 400G path."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nno bgp fare\n")
    try:
        exp = {"to-s1": 1, "to-s2": 1, "to-s3": 1, "to-s4": 1}
        assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp) == exp
        shares = measure(tgen)
        RESULTS["ecmp"] = shares
        for i in UPLINKS:
            assert abs(shares[i] - 25.0) <= 3.0, "{}: {:.1f}%".format(i, shares[i])
    finally:
        leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nbgp fare\n")
    exp = {"to-s1": 2, "to-s2": 2, "to-s3": 2, "to-s4": 1}
    assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp) == exp
    print_report()


def print_report():
    pb, w = RESULTS["pathbw"], RESULTS["weights"]
    cap = sum(pb.values())
    lines = [
        "",
        "FARE traffic split at leaf2 towards h1 (172.16.1.0/24), {} UDP flows".format(FLOWS),
        "uplink  path bandwidth  weight  capacity share  FARE measured  ECMP measured",
    ]
    for i in UPLINKS:
        lines.append(
            "{:<7} {:>11.0f}G  {:>6}  {:>13.1f}%  {:>12.1f}%  {:>12.1f}%".format(
                i, pb[i], w[i], 100.0 * pb[i] / cap, RESULTS["fare"][i], RESULTS["ecmp"][i]
            )
        )
    worst_fare = max(abs(RESULTS["fare"][i] - 100.0 * pb[i] / cap) for i in UPLINKS)
    worst_ecmp = max(abs(RESULTS["ecmp"][i] - 100.0 * pb[i] / cap) for i in UPLINKS)
    overload = RESULTS["ecmp"]["to-s4"] / (100.0 * pb["to-s4"] / cap)
    lines.append(
        "worst deviation from capacity share: FARE {:.1f} points, ECMP {:.1f} points; "
        "ECMP loads the 400G path at {:.0f}% of its fair share".format(
            worst_fare, worst_ecmp, 100 * overload
        )
    )
    report("\n".join(lines))


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
