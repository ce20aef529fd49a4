# SPDX-License-Identifier: GPL-2.0-or-later
"""
Fabrics and steps that a topotest and a demo (scripts/demo.sh) share, so
that the demos run this library and not a test module.

- The traffic split (topotests/fare_traffic, `scripts/demo.sh clos`): a
  3-stage fabric, all links 800G but leaf1-spine4 at 400G; leaf2 weighs
  its uplinks towards h1 2:2:2:1 (FARE-4/5), h2's UDP flows follow the
  weights, and plain ECMP (FARE off at leaf2) loads the 400G path with a
  quarter of them.
- The white paper's worked example (topotests/fare_whitepaper,
  `scripts/demo.sh whitepaper`): averaged mode, one session per link
  (WP-4).
"""

from lib.topogen import get_topogen

from fare.common import GBPS, kernel_weights, measure_split, report, start_fabric, vtysh_json, \
    wait_for
from fare.fabric import Clos3, Fabric
# the expected kernel weights, shared with the simulator's unit test
# (topotests/fare/expected_weights.txt, tests/unit/test_sim.c)
from fare import expected

# -- the traffic split ----------------------------------------------------

FLOWS = 4000
UPLINKS = ["to-s1", "to-s2", "to-s3", "to-s4"]
DEGRADED = {(1, 4): 400}
TRAFFIC_FABRIC = Clos3(leaves=3, spines=4, link_gbps=DEGRADED, default_gbps=800, hosts=(1, 2))


def start_traffic_fabric(mod):
    "Start the traffic fabric; leaf2 hashes by L4."
    tgen = start_fabric(mod, TRAFFIC_FABRIC, TRAFFIC_FABRIC.config)
    leaf2 = tgen.gears["leaf2"]
    leaf2.run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")
    leaf2.run("sysctl -w net.ipv6.fib_multipath_hash_policy=1")


def stop_fabric(_mod=None):
    get_topogen().stop_topology()


def measure(tgen):
    return measure_split(tgen.gears["leaf2"], tgen.gears["h2"], UPLINKS, "172.16.1.10", FLOWS)


def check_weights_in_kernel(tgen, results):
    "leaf2 installs 2:2:2:1 for h1's subnet (800,800,800,400 Gb/s)."
    leaf2 = tgen.gears["leaf2"]
    exp = expected.kernel("traffic", UPLINKS)
    got = wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp, count=90)
    assert got == exp
    j = vtysh_json(leaf2, "show bgp ipv4 fare 172.16.1.0/24 json")
    paths = {p["interface"]: p for p in j["prefixes"]["172.16.1.0/24"]["paths"]}
    results["pathbw"] = {i: paths[i]["transitive"]["bytesPerSec"] / GBPS for i in UPLINKS}
    results["weights"] = got
    assert results["pathbw"] == {"to-s1": 800, "to-s2": 800, "to-s3": 800, "to-s4": 400}


def check_traffic_split_follows_weights(tgen, results):
    "Measured per-uplink shares are within 3 points of 2:2:2:1 (28.6/28.6/28.6/14.3%)."
    shares = measure(tgen)
    results["fare"] = shares
    weights = results["weights"]
    wsum = float(sum(weights.values()))
    for i in UPLINKS:
        expected = 100.0 * weights[i] / wsum
        assert abs(shares[i] - expected) <= 3.0, "{}: {:.1f}% vs {:.1f}%".format(
            i, shares[i], expected
        )


def check_plain_ecmp_shows_the_imbalance(tgen, results):
    "FARE off at leaf2: ECMP 1:1:1:1, a quarter of the flows on the 400G path."
    leaf2 = tgen.gears["leaf2"]
    leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nno bgp fare\n")
    try:
        exp = {"to-s1": 1, "to-s2": 1, "to-s3": 1, "to-s4": 1}
        assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp) == exp
        shares = measure(tgen)
        results["ecmp"] = shares
        for i in UPLINKS:
            assert abs(shares[i] - 25.0) <= 3.0, "{}: {:.1f}%".format(i, shares[i])
    finally:
        leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nbgp fare\n")
    exp = expected.kernel("traffic", UPLINKS)
    assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp) == exp
    report_traffic_split(results)


def report_traffic_split(results):
    pb, w = results["pathbw"], results["weights"]
    cap = sum(pb.values())
    lines = [
        "",
        "FARE traffic split at leaf2 towards h1 (172.16.1.0/24), {} UDP flows".format(FLOWS),
        "uplink  path bandwidth  weight  capacity share  FARE measured  ECMP measured",
    ]
    for i in UPLINKS:
        lines.append(
            "{:<7} {:>11.0f}G  {:>6}  {:>13.1f}%  {:>12.1f}%  {:>12.1f}%".format(
                i, pb[i], w[i], 100.0 * pb[i] / cap, results["fare"][i], results["ecmp"][i]
            )
        )
    worst_fare = max(abs(results["fare"][i] - 100.0 * pb[i] / cap) for i in UPLINKS)
    worst_ecmp = max(abs(results["ecmp"][i] - 100.0 * pb[i] / cap) for i in UPLINKS)
    overload = results["ecmp"]["to-s4"] / (100.0 * pb["to-s4"] / cap)
    lines.append(
        "worst deviation from capacity share: FARE {:.1f} points, ECMP {:.1f} points; "
        "ECMP loads the 400G path at {:.0f}% of its fair share".format(
            worst_fare, worst_ecmp, 100 * overload
        )
    )
    report("\n".join(lines))


# -- the white paper's worked example --------------------------------------

WP_HOLD_DOWN = 5
WP_ROUTERS = {"leaf1": 65101, "spine1": 65000, "spine2": 65000, "leaf2": 65102}
WP_LINKS = [
    ("leaf1", "spine1", 50),   # L1
    ("leaf1", "spine1", 100),  # L3
    ("leaf1", "spine2", 100),  # L2
    ("leaf1", "spine2", 100),  # L4
    ("spine1", "leaf2", 100),  # L5
    ("spine1", "leaf2", 100),  # L6
    ("spine2", "leaf2", 100),  # L7
    ("spine2", "leaf2", 100),  # L8
]
WP_PREFIX = {"ipv4": "172.16.1.0/24", "ipv6": "2001:db8:1::/64"}
WP_LEAF2_UPLINKS = ["to-spine1-1", "to-spine1-2", "to-spine2-1", "to-spine2-2"]

WP_FABRIC = Fabric(
    WP_ROUTERS,
    WP_LINKS,
    originate={"leaf1": list(WP_PREFIX.values())},
    fare_lines={
        name: [" bgp fare", " bgp fare mode averaged", " bgp fare hold-down {}".format(WP_HOLD_DOWN)]
        for name in WP_ROUTERS
    },
    link_config="interface",
)


def start_whitepaper_fabric(mod):
    start_fabric(mod, WP_FABRIC, WP_FABRIC.config)
