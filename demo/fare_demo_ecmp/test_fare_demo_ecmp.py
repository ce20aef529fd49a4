#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Enhanced ECMP's ingress-interface grouping as a demo (`scripts/demo.sh
ecmp`), on the fabric of the topotest fare_ecmp_ingress (fare.ingress):
leaf1 has 4 equal 800G uplinks to-s1..to-s4 and 4 host ports to-h11..to-h14,
each host h11..h14 sends one UDP elephant flow to h2 behind leaf2.

(a) Hash ECMP (the ingress group removed): a few runs of the 4 flows with
    random source ports; in most runs two or more flows share an uplink
    (1 - 4!/4^4 = 91% of runs) while another uplink idles.
(b) Ingress grouping on (EE-1, `bgp fare ecmp-ingress-group 1 interface
    to-h1k`): the k-th port of the group sends by the k-th member of the
    weighted next-hop list, so each flow has an uplink of its own; the demo
    asserts exactly one flow per uplink.
"""

import random

import pytest

# pylint: disable=C0413
from fare.common import report, tgen_or_skip
from fare.ingress import (CONFIG_ORDER, ELEPHANT, HASH_SEED, HOSTS, PORTS, START_LAYOUT, UPLINKS,
                          coded_run, conf_bgp, elephants_at_once, group_line, not_one_elephant,
                          one_flow, port_uplinks, prime, start_ingress_fabric, wait_members,
                          wait_state)
from fare.scenarios import stop_fabric

pytestmark = [pytest.mark.bgpd]

RUNS = 5  # hash runs in (a)

setup_module = start_ingress_fabric
teardown_module = stop_fabric


def test_hash_ecmp():
    "(a) The group removed: the 4 flows by the L4 hash, RUNS runs with random source ports."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    mem = wait_members(leaf1)
    wait_state(leaf1, START_LAYOUT, mem, "startup config")
    conf_bgp(leaf1, *["no " + group_line(1, p) for p in PORTS])
    wait_state(leaf1, {}, mem, "group removed")
    prime(tgen)
    rng = random.Random(HASH_SEED)
    lines = [
        "FARE demo: Enhanced ECMP, 4 elephant flows from 4 host ports over 4 equal uplinks.",
        "leaf1: hosts h11..h14 on to-h11..to-h14, uplinks to-s1..to-s4 (800G each),",
        "one UDP flow per host to h2 (172.16.2.10, dport 4791), L4 multipath hash.",
        "",
        "== (a) hash ECMP (no ingress group): {} runs, random source ports ==".format(RUNS),
    ]
    shared = 0
    for run in range(1, RUNS + 1):
        where, sports = coded_run(tgen, rng)
        flows = {u: [h for h in HOSTS if where[h] == u] for u in UPLINKS}
        crowded = sum(len(f) >= 2 for f in flows.values())
        shared += crowded > 0
        lines.append("run {} (source ports {}): {}; uplinks with 2+ flows: {}, idle: {}".format(
            run, " ".join(str(p) for p in sports),
            ", ".join("{} {}".format(u, "+".join(f) or "-") for u, f in flows.items()),
            crowded, sum(not f for f in flows.values())))
    lines.append("{} of {} runs put two or more flows on one uplink.".format(shared, RUNS))
    report("\n".join(lines))


def test_ingress_grouping():
    "(b) Group 1 = to-h11..to-h14: each host's flow on its own uplink, one flow per uplink."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    conf_bgp(leaf1, *[group_line(1, p) for p in CONFIG_ORDER])
    mem = wait_members(leaf1)
    wait_state(leaf1, START_LAYOUT, mem, "group added")
    prime(tgen)
    where = {h: one_flow(tgen, h)[0] for h in HOSTS}
    delta = elephants_at_once(tgen)
    bad = not_one_elephant(delta)
    rules = {fam: [l for l in leaf1.run("ip -{} rule show".format(fam)).splitlines() if "lookup 100" in l]
             for fam in (4, 6)}
    report("\n".join([
        "",
        "== (b) ingress grouping on (EE-1) ==",
        "leaf1# show bgp fare ecmp-ingress",
        leaf1.vtysh_cmd("show bgp fare ecmp-ingress").rstrip(),
        "",
        "leaf1$ ip -4 rule show   (the ingress rules)",
        "\n".join(rules[4]),
        "leaf1$ ip -6 rule show   (the ingress rules)",
        "\n".join(rules[6]),
        "",
        "one flow of {} packets per host, alone: {}".format(
            ELEPHANT, ", ".join("{} -> {}".format(h, where[h]) for h in HOSTS)),
        "the 4 flows at once, leaf1's packets per uplink: {} ({})".format(
            ", ".join("{} {}".format(u, delta[u]) for u in UPLINKS),
            "one flow each" if not bad else "not one flow each: {}".format(sorted(bad))),
    ]))
    exp = dict(zip(HOSTS, port_uplinks(mem)))
    assert where == exp, "host -> uplink {} != {}".format(where, exp)
    assert sorted(where.values()) == UPLINKS, where
    assert not bad, "4 flows at once: uplink deltas {} (each must carry exactly one flow)".format(delta)
