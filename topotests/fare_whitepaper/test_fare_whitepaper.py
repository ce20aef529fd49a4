#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_whitepaper.py: the white paper's worked example (SPEC WP-4) in
averaged mode, integer WCMP within a member limit (WP-3), link failure and
degradation with the hold-down (WP-7) in both modes, and a quiet fabric
once converged.

            spine1                 spine2              (AS 65000)
     L1 50G /  \\ L3 100G    L2 100G /  \\ L4 100G
           leaf1 ---------------------               (AS 65101)
     L5, L6: spine1-leaf2 100G     L7, L8: spine2-leaf2 100G
           leaf2                                     (AS 65102)

One numbered eBGP session per link (IPv4 and IPv6). Link bandwidths are
zebra's interface `bandwidth` on both ends, what a LAG reports and what
changes at runtime when a member fails.

Averaged mode: leaf1 originates each session's line rate (WP-1); spine1
sums 50 + 100 and averages over its 2 links to leaf2: 75 each; spine2:
200 / 2 = 100 (WP-2); leaf2 installs 75:75:100:100 = 3:3:4:4 (WP-3/4).
"""

import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import GBPS, kernel_weights, tgen_or_skip, vtysh_json, wait_for
# the expected weights, shared with the simulator's unit test
# (topotests/fare/expected_weights.txt, tests/unit/test_sim.c)
from fare import expected
from fare.scenarios import (WP_FABRIC, WP_HOLD_DOWN, WP_LEAF2_UPLINKS, WP_PREFIX, WP_ROUTERS,
                            start_whitepaper_fabric)

pytestmark = [pytest.mark.bgpd]

# the fabric is fare.scenarios', which the demo (scripts/demo.sh whitepaper) runs too
HOLD_DOWN = WP_HOLD_DOWN
ROUTERS = WP_ROUTERS
PREFIX = WP_PREFIX
LEAF2_UPLINKS = WP_LEAF2_UPLINKS
FABRIC = WP_FABRIC

setup_module = start_whitepaper_fabric


def teardown_module(_mod):
    get_topogen().stop_topology()


def _leaf2_weights(tgen, afi="ipv4"):
    return kernel_weights(tgen.gears["leaf2"], PREFIX[afi], afi == "ipv6")


def _expect(tgen, weights, afi="ipv4", count=60):
    exp = dict(zip(LEAF2_UPLINKS, weights))
    got = wait_for(lambda: _leaf2_weights(tgen, afi), exp, count=count)
    assert got == exp, "leaf2 {}: {} != {}\n{}\n{}".format(
        afi, got, exp,
        tgen.gears["leaf2"].vtysh_cmd("show bgp {} fare {}".format(afi, PREFIX[afi])),
        tgen.gears["spine1"].vtysh_cmd("show bgp {} fare {}".format(afi, PREFIX[afi])))


def _all(tgen, *lines):
    for name, router in tgen.routers().items():
        router.vtysh_cmd(
            "configure terminal\nrouter bgp {}\n{}\n".format(ROUTERS[name], "\n".join(lines))
        )


def _bandwidth(router, ifname, gbps):
    router.vtysh_cmd("configure terminal\ninterface {}\nbandwidth {}\n".format(ifname, gbps * 1000))


@pytest.mark.parametrize("afi", ["ipv4", "ipv6"])
def test_wp4_worked_example(afi):
    "WP-4: leaf2 ends with 3:3:4:4 in show and in the kernel."
    tgen = tgen_or_skip()
    _expect(tgen, expected.weights("wp4"), afi, count=90)
    v = vtysh_json(tgen.gears["leaf2"], "show bgp {} fare {} json".format(afi, PREFIX[afi]))
    paths = {p["interface"]: p for p in v["prefixes"][PREFIX[afi]]["paths"]}
    got = {i: (paths[i]["transitive"]["bytesPerSec"] / GBPS, paths[i]["weight"]) for i in LEAF2_UPLINKS}
    assert got == {"to-spine1-1": (75, 3), "to-spine1-2": (75, 3),
                   "to-spine2-1": (100, 4), "to-spine2-2": (100, 4)}
    # spine1: sum 150 over 2 outgoing interfaces (WP-2), weights 50:100
    v = vtysh_json(tgen.gears["spine1"], "show bgp {} fare {} json".format(afi, PREFIX[afi]))
    p = v["prefixes"][PREFIX[afi]]
    assert v["mode"] == "averaged"
    assert p["advertised"]["sumBytesPerSec"] == 150 * GBPS
    assert p["advertised"]["outgoingInterfaces"] == 2
    assert p["advertised"]["transitiveBytesPerSec"] == 75 * GBPS
    assert {q["interface"]: q["weight"] for q in p["paths"]} == {"to-leaf1-1": 1, "to-leaf1-2": 2}
    # leaf1 originates each session's line rate (WP-1): 50G on L1, 100G on L3
    j = vtysh_json(tgen.gears["spine1"], "show bgp {} unicast {} json".format(afi, PREFIX[afi]))
    got = sorted(x["extendedCommunity"]["string"] for x in j["paths"])
    assert got == ["PB:65101:100.000 Gbps", "PB:65101:50.000 Gbps"]


def test_wcmp_member_limit():
    "WP-3: with at most 12 members, 3:3:4:4 (14) becomes the best fit 2:2:3:3, exactly in the kernel."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nbgp fare wcmp max-members 12\n")
    try:
        _expect(tgen, expected.weights("wp-members-12"))
        # 2 members: the two 100G paths alone carry 2 x 100 of 350 (0.57 of
        # the ideal); any member on a 75G path would do worse. spine1's
        # paths get weight 0, shown and counted (WP-3).
        leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nbgp fare wcmp max-members 2\n")
        exp = {i: w for i, w in zip(LEAF2_UPLINKS, expected.weights("wp-members-2")) if w}
        assert wait_for(lambda: _leaf2_weights(tgen), exp) == exp
        v = vtysh_json(leaf2, "show bgp ipv4 fare {} json".format(PREFIX["ipv4"]))
        p = v["prefixes"][PREFIX["ipv4"]]
        assert p["wcmp"] is True and p["droppedPaths"] == 2
        assert {q["interface"]: (q["weight"], q["shareBelowMemberBudget"]) for q in p["paths"]} == {
            "to-spine1-1": (0, True), "to-spine1-2": (0, True),
            "to-spine2-1": (1, False), "to-spine2-2": (1, False)}
        assert vtysh_json(leaf2, "show bgp fare json")["counters"]["droppedPaths"] > 0
    finally:
        leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nno bgp fare wcmp max-members\n")
    _expect(tgen, expected.weights("wp4"))


def _updates(tgen):
    counts = {}
    for name, router in tgen.routers().items():
        j = vtysh_json(router, "show bgp neighbors json")
        counts[name] = sum(
            n["messageStats"]["updatesSent"] + n["messageStats"]["updatesRecv"]
            for n in j.values() if isinstance(n, dict) and "messageStats" in n
        )
    return counts


def test_converged_fabric_is_quiet():
    "WP-7: weights depend on line rates only: no UPDATE for 30 seconds once converged."
    tgen = tgen_or_skip()
    _expect(tgen, expected.weights("wp4"))
    time.sleep(HOLD_DOWN + 1)
    before = _updates(tgen)
    time.sleep(30)
    after = _updates(tgen)
    assert after == before, "UPDATEs while converged: {} -> {}".format(before, after)


def _failure_and_recovery(tgen, before, during):
    "spine2 loses L4 (its 2nd link to leaf1); weights drop at once; back after the hold-down."
    spine2 = tgen.gears["spine2"]
    _expect(tgen, before)
    spine2.run("ip link set to-leaf1-2 down")
    _expect(tgen, during, count=30)
    spine2.run("ip link set to-leaf1-2 up")
    # the session comes back, but its capacity counts only after the hold-down
    established = wait_for(
        lambda: vtysh_json(spine2, "show bgp neighbors {} json".format(FABRIC.neighbor("spine2", "leaf1")))
        .get(FABRIC.neighbor("spine2", "leaf1"), {}).get("bgpState"), "Established", count=60)
    assert established == "Established"
    _expect(tgen, before, count=60)


def _degradation_and_restore(tgen, before, during):
    "L3 (leaf1-spine1, 100G) halves to 50G at runtime: at once; back only after the hold-down."
    leaf1, spine1 = tgen.gears["leaf1"], tgen.gears["spine1"]
    _expect(tgen, before)
    _bandwidth(leaf1, "to-spine1-2", 50)
    _bandwidth(spine1, "to-leaf1-2", 50)
    t0 = time.time()
    _expect(tgen, during, count=10)
    assert time.time() - t0 < HOLD_DOWN, "a decrease must not wait for the hold-down"
    _bandwidth(leaf1, "to-spine1-2", 100)
    _bandwidth(spine1, "to-leaf1-2", 100)
    t0 = time.time()
    time.sleep(HOLD_DOWN - 2)
    assert _leaf2_weights(tgen) == dict(zip(LEAF2_UPLINKS, during)), "increase applied before the hold-down"
    _expect(tgen, before, count=30)
    assert time.time() - t0 >= HOLD_DOWN
    held = vtysh_json(spine1, "show bgp fare json")["counters"]["heldDown"]
    assert held > 0


def test_failure_averaged():
    "Averaged: spine2 100 -> 50 per link (100 / 2): leaf2 3:3:4:4 -> 3:3:2:2 -> 3:3:4:4."
    _failure_and_recovery(tgen_or_skip(), expected.weights("wp4"), expected.weights("wp-l4-failed"))


def test_degradation_averaged():
    "Averaged: spine1 (50 + 50) / 2 = 50: leaf2 3:3:4:4 -> 1:1:2:2 -> back after the hold-down."
    _degradation_and_restore(tgen_or_skip(), expected.weights("wp4"),
                             expected.weights("wp-l3-halved"))


def _leaf2_paths(tgen, *fields):
    """leaf2's FARE view of the IPv4 prefix: {uplink: (field values)}, with
    a field "a.b" read as p["a"]["b"]; {} while the prefix is not there."""
    v = vtysh_json(tgen.gears["leaf2"], "show bgp ipv4 fare {} json".format(PREFIX["ipv4"]))
    p = v.get("prefixes", {}).get(PREFIX["ipv4"])
    if not p:
        return {}

    def get(path, field):
        for key in field.split("."):
            path = path.get(key, {}) if isinstance(path, dict) else None
        return path / GBPS if isinstance(path, float) else path

    return {q["interface"]: tuple(get(q, f) for f in fields) for q in p["paths"]}


def test_draft_mode_on_the_same_fabric():
    """Draft mode, parallel links counted per neighbor router (the default):
    leaf2 weighs spine1 min(100 + 100, 150) = 150 split 75:75 and spine2
    min(200, 200) split 100:100: 3:3:4:4, as averaged mode. Counted per
    session, min(100, 150) and min(100, 200) on every link: 1:1:1:1.

    Averaged and draft mode give leaf2 the same weights, so each step
    first waits for what the change itself produces: draft mode's values
    from the spines (the sums 150 and 200, where averaged mode sends
    75 and 100) and its neighbor groups; then the new link bandwidths."""
    tgen = tgen_or_skip()
    _all(tgen, "no bgp fare mode averaged")
    for name in ROUTERS:
        mode = wait_for(lambda: vtysh_json(tgen.gears[name], "show bgp fare json").get("config", {}).get("mode"),
                        "draft")
        assert mode == "draft", name
    exp = {"to-spine1-1": (150, 75), "to-spine1-2": (150, 75),
           "to-spine2-1": (200, 100), "to-spine2-2": (200, 100)}
    got = wait_for(lambda: _leaf2_paths(tgen, "transitive.bytesPerSec", "pathBandwidthBytesPerSec"), exp)
    assert got == exp
    _expect(tgen, expected.weights("wp-draft"))
    groups = {i: g for i, (g,) in _leaf2_paths(tgen, "neighborGroup").items()}
    assert groups["to-spine1-1"] == groups["to-spine1-2"] != groups["to-spine2-1"] == groups["to-spine2-2"]
    assert 0 not in groups.values(), groups
    v = vtysh_json(tgen.gears["spine1"], "show bgp ipv4 fare {} json".format(PREFIX["ipv4"]))
    assert v["mode"] == "draft"
    assert v["prefixes"][PREFIX["ipv4"]]["advertised"]["transitiveBytesPerSec"] == 150 * GBPS
    _all(tgen, "bgp fare parallel-links per-session")
    _expect(tgen, expected.weights("wp-per-session"))
    assert "\n bgp fare parallel-links per-session\n" in tgen.gears["leaf2"].vtysh_cmd(
        "show running-config")
    _all(tgen, "no bgp fare parallel-links")
    _expect(tgen, expected.weights("wp-draft"))
    # with 400G links between leaf2 and the spines, the spines' sums are
    # the bottleneck: leaf2 weighs min(800, 150) and min(800, 200), again
    # 3:3:4:4; wait for leaf2 to see the new links first
    for name, ifs in (("spine1", ["to-leaf2-1", "to-leaf2-2"]), ("spine2", ["to-leaf2-1", "to-leaf2-2"]),
                      ("leaf2", LEAF2_UPLINKS)):
        for ifname in ifs:
            _bandwidth(tgen.gears[name], ifname, 400)
    exp = {i: (400,) for i in LEAF2_UPLINKS}
    got = wait_for(lambda: _leaf2_paths(tgen, "linkBandwidthBytesPerSec"), exp, count=30)
    assert got == exp
    _expect(tgen, expected.weights("wp-draft-400g"), count=30)


def test_failure_draft():
    "Draft: spine2's sum 200 -> 100: leaf2 3:3:4:4 -> 3:3:2:2 -> back after the hold-down."
    _failure_and_recovery(tgen_or_skip(), expected.weights("wp-draft-400g"),
                          expected.weights("wp-draft-l4-failed"))


def test_degradation_draft():
    "Draft: spine1's sum 150 -> 100: leaf2 3:3:4:4 -> 1:1:2:2 -> back after the hold-down."
    _degradation_and_restore(tgen_or_skip(), expected.weights("wp-draft-400g"),
                             expected.weights("wp-draft-l3-halved"))


def test_running_config():
    "The mode and hold-down are written back."
    tgen = tgen_or_skip()
    _all(tgen, "bgp fare mode averaged")
    cfg = tgen.gears["leaf2"].vtysh_cmd("show running-config")
    assert "\n bgp fare mode averaged\n" in cfg
    assert "\n bgp fare hold-down {}\n".format(HOLD_DOWN) in cfg


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
