#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_ecmp_ingress.py: Enhanced ECMP ingress-interface grouping (EE-1)
with FARE weights. The ingress leaf puts host-facing interfaces in groups;
the k-th interface of a group (interface-name order) sends its traffic
towards a multipath prefix out of the k-th member of that prefix's
weighted next-hop list instead of by the flow hash, so the n ingress ports
of a group map onto n distinct egress ports.

        spine1     spine2     spine3     spine4        (AS 65000)
          | \\       | \\       | \\       | \\
          |  +-------|--+------|---+-----|---+------+
          |          |         |         |          |
        leaf1 (to-s1..to-s4, 800G each)          leaf2 (to-s1..to-s4, 800G)
        (AS 65101)                               (AS 65102)
    to-h11 to-h12 to-h13 to-h14                    to-h
       |      |      |      |                        |
      h11    h12    h13    h14                       h2
 172.16.11.10 .12.10 .13.10 .14.10              172.16.2.10
 (each host on its own /24, default route via 172.16.1x.1 on leaf1;
  leaf1 does not advertise these subnets, it only forwards)

Unnumbered eBGP, one session per leaf-spine link (fare.fabric.Clos3,
leaves=2, spines=4, hosts=(2,)); h11..h14, their links, leaf1's
configuration and the traffic helpers are the library's fare.ingress,
which the demo demo/fare_demo_ecmp (`scripts/demo.sh ecmp`) runs too.
Spine j has router ID 10.255.1.(5-j), reversed against its name, so that
bgpd's member order is not the uplinks' name order (observed: to-s1,
to-s4, to-s3, to-s2; the test reads it from the fare JSON, not assumes it).
leaf1's multipath BGP prefixes are leaf2's 172.16.2.0/24 and
2001:db8:2::/64, over to-s1..to-s4 with FARE weights 1:1:1:1 (800G
everywhere). leaf1 hashes by L4 (net.ipv4.fib_multipath_hash_policy=1).

leaf1 starts with (in this order, to check the name ordering)
  bgp fare ecmp-ingress-group 1 interface to-h13
  bgp fare ecmp-ingress-group 1 interface to-h11
  bgp fare ecmp-ingress-group 1 interface to-h14
  bgp fare ecmp-ingress-group 1 interface to-h12

Expected (interface):
  - group g, interface k (1..n, interface-name order): table
    T = 1000000 + (g-1)*256 + (k-1); a policy rule `iif IF lookup T`,
    priority 250, IPv4 and IPv6; group 1 = to-h11 1 1000000, to-h12 2
    1000001, to-h13 3 1000002, to-h14 4 1000003.
  - table T has one route per multipath BGP prefix, exactly one next hop:
    the member chosen for port k. Members = the prefix's paths in the
    order of `show bgp ipv4|ipv6 fare PREFIX json` (those installed);
    ports apportioned to members in proportion to the installed kernel
    weights, largest remainder, ties to the lowest member index, ports
    handed out in member order (1:1:1:1, 4 ports -> member k;
    1:1:2:2, 6 ports -> 1,2,3,3,4,4; 1:1:1:3, 4 ports -> 1,2,4,4).
    So tables 1000000..1000003 hold 172.16.2.0/24 (and 2001:db8:2::/64)
    via member 1..4 (to-s* in bgpd's order, read from the fare JSON).
  - `show bgp fare ecmp-ingress json` = {"tableBase": 1000000, "groups":
    [{"group": 1, "interfaces": [{"interface": "to-h11", "index": 1,
    "table": 1000000}, ...]}], "prefixes": 5} (5 = the two prefixes
    above, the two default routes and the aggregate; 0 without groups).

The main table (EE-1: an ingress table never takes traffic the main
table sends elsewhere): every spine sends leaf1 a default route (IPv4
and IPv6, default-originate) and the aggregate 10.99.0.0/16 (component
suppressed), and 10.98.0.0/24; leaf1 has static routes 192.0.2.0/24 via
h13 and 10.98.0.0/24 via h14 (zebra prefers the static over BGP), a
kernel route 10.99.5.0/24 (inside the aggregate) via h12, and IPv6 on
to-h11/to-h12 (2001:db8:11::/64, 2001:db8:12::/64). h12, h13, h14 own
10.99.5.1, 192.0.2.1, 10.98.0.1 on lo.

Checks:
  0. Main table (test_main_table_answers): tables 1000000..3 hold exactly
     the copies of default, 10.99.0.0/16 and 172.16.2.0/24 (IPv6: default
     and 2001:db8:2::/64), each via the member of port k, and a throw route
     for every destination of leaf1's main table whose route is not
     protocol bgp: IPv4 the 4 host subnets, 192.0.2.0/24, 10.98.0.0/24,
     10.99.5.0/24; IPv6 2001:db8:11::/64, 2001:db8:12::/64, fe80::/64;
     JSON "throws" 10 and "prefixes" 5. h11 (port to-h11) pings h12
     (IPv4 and IPv6), 192.0.2.1, 10.98.0.1 and 10.99.5.1, 50 each: 50
     replies, leaf1's tx on the host port the main table names in [50,
     50+STRAY], every uplink <= STRAY; 50 pings to 10.99.7.1 (only the
     aggregate) leave by the uplink of the aggregate's copy in table
     1000000. Static 10.98.0.0/24 removed: it is BGP's in the main table,
     copied, no throw (prefixes 6, throws 9); re-added: the state above.
     to-h14 down: 172.16.14.0/24 leaves the main table and its throw the
     ingress tables, which mirror the main table as it then is (the
     static via h14 stays in the kernel, so does its throw); up: the
     state above.
  1. Kernel programming: the JSON above exactly; leaf1's IPv4 and IPv6
     rules at priority 250 / towards tables >= 1000000 are exactly the 4
     `iif to-h1k lookup 100000(k-1)`; the routes of 172.16.2.0/24 and
     2001:db8:2::/64 in every table >= 1000000 are via member k, weight 1;
     running-config has the 4 lines once each.
  2. Elephant flows (EE-1): each host sends ONE UDP flow of 2000 packets
     (dport 4791, RoCEv2) to h2: host k's flow leaves leaf1 by member k's
     uplink only (tx counter delta in [2000, 2000+STRAY], every other
     uplink in [0, STRAY]; STRAY = packets of leaf1's own in the window:
     keepalives, RAs); then the 4 flows at once: each uplink carries
     exactly one flow, delta in [2000, 2000+STRAY].
  3. Hash contrast: group removed (rules and tables gone), R = 40 runs of
     4 flows with fresh random source ports, host k sending 20*2^(k-1)
     packets (so an uplink's delta // 20 is the bit mask of the hosts it
     carried, its remainder <= STRAY): the share of runs where two flows
     share an uplink must be 1 - 4!/4^4 = 0.906 within 3 binomial standard
     errors (3 * 0.046), and each uplink's number of flows over the R runs
     R within 3 standard deviations of Bin(4R, 1/4) (a hash that is not
     spreading at all fails); group re-added: the state of 1, and R' = 10
     runs with random ports have 0 collisions and every flow on its
     member's uplink.
  4. Unequal weights: leaf1's to-s1..to-s3 at 200G, to-s4 at 600G: kernel
     weights {to-s1: 1, to-s2: 1, to-s3: 1, to-s4: 3}; the 4 ports by
     largest remainder: to-s4's member gets 2 ports, the weight-1 member
     last in bgpd's order none; tables and elephant flows follow exactly;
     back to 800G: the state of 1.
  5. Group changes and removal: without to-h12, the group re-indexes
     (to-h11 1 1000000, to-h13 2 1000001, to-h14 3 1000002; 3 ports over
     1:1:1:1 -> members 1, 2, 3) and table 1000003 is gone; to-h13 and
     to-h14 moved to group 2: tables 1000256 (member 1) and 1000257
     (member 2), group 1 = to-h11 alone (member 1), and h13's flow leaves
     by the same uplink as h11's; every line removed: no rule, no route
     in any table >= 1000000, JSON groups [] and prefixes 0, no line in
     running-config; the 4 lines again: the state of 1.
"""

import random
import sys
import time
from math import sqrt

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, report, tgen_or_skip, tx_packets, wait_for
from fare.ingress import (AGG, ASN1, BGP_STATIC, COPIED4, COPIED6, CONFIG_ORDER, ELEPHANT,
                          EQUAL, HASH_SEED, HOSTS, LOOPBACKS, MORE_SPECIFIC, P4, PORTS,
                          START_LAYOUT, START_LINES, STATIC_ONLY, STRAY, TABLE_BASE, UPLINKS,
                          apportion, coded_run, conf_bgp, elephants_at_once, group_line,
                          ingress_json, ingress_lines, ingress_tables, json_run, members,
                          not_one_elephant, one_flow, port_uplinks, prime, start_ingress_fabric,
                          wait_members, wait_state)

pytestmark = [pytest.mark.bgpd]

R_HASH = 40
R_EE1 = 10
P_COLLIDE = 1 - 24.0 / 256  # 1 - 4!/4^4
IN_AGG_ONLY = "10.99.7.1"  # only AGG (a copy) matches it

RESULTS = {}


def setup_module(mod):
    start_ingress_fabric(mod)


def teardown_module(_mod):
    get_topogen().stop_topology()



# -- tests --------------------------------------------------------------------


def test_apportion_rule():
    "The test's own largest-remainder function gives the interface's examples."
    assert apportion([1, 1, 1, 1], 4) == [0, 1, 2, 3]
    assert apportion([1, 1, 2, 2], 6) == [0, 1, 2, 2, 3, 3]
    assert apportion([1, 1, 1, 3], 4) == [0, 1, 3, 3]
    assert apportion([1, 1, 1, 1], 3) == [0, 1, 2]
    assert apportion([1, 1, 1, 1], 2) == [0, 1]
    assert apportion([1, 1, 1, 1], 1) == [0]


def test_kernel_programming():
    "EE-1: JSON, ip rules (priority 250, v4+v6) and tables 1000000..3 with the prefixes via member k."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    mem = wait_members(leaf1)
    RESULTS["mem"] = mem
    exp = wait_state(leaf1, START_LAYOUT, mem, "startup config")
    j = ingress_json(leaf1)
    extra = sorted(set(j) - {"tableBase", "groups", "prefixes"})
    lines = [l for l in leaf1.run("ip -4 rule show; ip -6 rule show").splitlines() if "lookup 100" in l]
    report("fare_ecmp_ingress: IPv4 members (bgpd order) {}, IPv6 {}; port k -> {}\n  {}{}".format(
        mem["4"][0], mem["6"][0],
        {p: u for p, u in zip(PORTS, port_uplinks(mem))}, "\n  ".join(lines),
        "\n  JSON keys beyond the interface: {}".format(extra) if extra else ""))
    # literal form of the brief: "iif to-h11 lookup 1000000" ...
    for k, p in enumerate(PORTS):
        for fam in (4, 6):
            text = leaf1.run("ip -{} rule show".format(fam))
            assert "iif {} lookup {}".format(p, TABLE_BASE + k) in text, (fam, text)
        text = leaf1.run("ip route show table {}".format(TABLE_BASE + k))
        assert len([l for l in text.splitlines() if l.startswith(P4 + " ")]) == 1, text
    assert exp["tables4"][TABLE_BASE + 3] == {P4: {mem["4"][0][3]: 1}}
    got = ingress_lines(leaf1)
    assert sorted(got) == sorted(START_LINES), "running-config: {}".format(got)


# -- EE-1 and the main table --------------------------------------------------


def main_non_bgp(leaf, fam):
    "Destinations of leaf1's main table whose routes are not BGP's (zebra's protocol bgp)."
    return sorted({r.get("dst") for r in json_run(leaf, "ip -j -{} route show table main".format(fam))
                   if r.get("protocol") != "bgp"})


def copy_devs(leaf, prefix, ipv6=False, ports=len(PORTS)):
    "{table: {dev: 1}} the copy of `prefix` must have in each of the startup tables."
    ifs, w, _ = members(leaf, prefix, ipv6)
    if not ifs:
        return None
    return {TABLE_BASE + k: {ifs[m]: 1} for k, m in enumerate(apportion(w, ports))}


def main_state(leaf):
    """What the startup ingress tables hold beyond the members: per family
    {table: {dst: devs or {"throw": 1}}}, and the throws in the JSON."""
    got = {}
    for fam in (4, 6):
        got[fam] = ingress_tables(leaf, fam, only=None)
    j = ingress_json(leaf)
    return got, j.get("throws"), j.get("prefixes")


def expected_main_state(leaf):
    exp = {}
    for fam, copied in ((4, COPIED4), (6, COPIED6)):
        throws = main_non_bgp(leaf, fam)
        tables = {TABLE_BASE + k: {t: {"throw": 1} for t in throws} for k in range(len(PORTS))}
        for prefix in copied:
            devs = copy_devs(leaf, prefix, fam == 6)
            dst = "default" if prefix in ("0.0.0.0/0", "::/0") else prefix
            for t in tables:
                tables[t][dst] = (devs or {}).get(t)
        exp[fam] = tables
    n_throws = len(main_non_bgp(leaf, 4)) + len(main_non_bgp(leaf, 6))
    return exp, n_throws, len(COPIED4) + len(COPIED6)


def ping(host, dst, count=50):
    "Replies `host` received of `count` pings to dst."
    out = host.run("ping -q -c {} -i 0.01 -W 1 {} 2>&1".format(count, dst))
    for part in out.replace(",", "\n").splitlines():
        if part.strip().endswith("received"):
            return int(part.split()[0])
    return 0


HOST_PORTS = dict(zip(HOSTS, PORTS))


def pings_arrive(tgen, src, dst, port, count=50):
    """`src` pings dst `count` times: (replies, leaf1's tx delta on `port`
    and on each uplink)."""
    leaf1 = tgen.gears["leaf1"]
    ifs = UPLINKS + [port] if port not in UPLINKS else list(UPLINKS)
    tgen.gears[src].run("ping -c 1 -W 1 {}".format(dst))  # neighbours resolved first
    before = tx_packets(leaf1, ifs)
    replies = ping(tgen.gears[src], dst, count)
    time.sleep(0.2)
    after = tx_packets(leaf1, ifs)
    return replies, {i: after[i] - before[i] for i in ifs}


def test_main_table_answers():
    """EE-1: a grouped port's lookup gives the main table's answer wherever
    its best match is not the copied BGP route: connected host subnets, a
    static route, a static preferred over a BGP prefix, a kernel route
    inside a BGP aggregate, IPv6 connected; with a BGP default route and
    the aggregate copied into the ingress tables."""
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    # the default routes, the aggregate and zebra's static over BGP_STATIC
    for prefix, v6 in (("0.0.0.0/0", False), ("::/0", True), (AGG, False)):
        got = wait_for(lambda: sorted(kernel_weights(leaf1, prefix, v6)), sorted(UPLINKS), count=60)
        assert got == sorted(UPLINKS), "{} on leaf1: next hops {}".format(prefix, got)
    # zebra's static: protocol 196 (named "static" where iproute2 knows it)
    got = wait_for(lambda: [{"196": "static"}.get(r.get("protocol"), r.get("protocol")) for r in
                            json_run(leaf1, "ip -j route show {}".format(BGP_STATIC))],
                   ["static"], count=30)
    assert got == ["static"], "{}: main table protocol {}".format(BGP_STATIC, got)
    assert main_non_bgp(leaf1, 4) == sorted(["172.16.11.0/24", "172.16.12.0/24", "172.16.13.0/24",
                                             "172.16.14.0/24", STATIC_ONLY, BGP_STATIC,
                                             MORE_SPECIFIC]), main_non_bgp(leaf1, 4)
    assert main_non_bgp(leaf1, 6) == sorted(["2001:db8:11::/64", "2001:db8:12::/64", "fe80::/64"]), (
        main_non_bgp(leaf1, 6))

    exp = expected_main_state(leaf1)
    got_tables = wait_for(lambda: main_state(leaf1), exp, count=30)
    text = leaf1.run("ip route show table {}".format(TABLE_BASE))
    report("fare_ecmp_ingress: table {} with the main table's throws:\n  {}".format(
        TABLE_BASE, "\n  ".join(text.strip().splitlines())))

    # real packets from h11 (port to-h11, group 1) to where the main table sends them
    prime(tgen)
    agg_dev = next(iter(exp[0][4][TABLE_BASE][AGG]))
    cases = [
        ("h12 (connected)", "172.16.12.10", "to-h12", 50),
        ("h13 (static {})".format(STATIC_ONLY), LOOPBACKS["h13"], "to-h13", 50),
        ("h14 (static over BGP {})".format(BGP_STATIC), LOOPBACKS["h14"], "to-h14", 50),
        ("h12 (kernel {} in aggregate {})".format(MORE_SPECIFIC, AGG), LOOPBACKS["h12"], "to-h12", 50),
        ("h12 (IPv6 connected)", "2001:db8:12::10", "to-h12", 50),
        ("aggregate only (copy, EE-1)", IN_AGG_ONLY, agg_dev, 0),
    ]
    lines, bad = [], []
    for what, dst, port, want_replies in cases:
        replies, delta = pings_arrive(tgen, "h11", dst, port)
        lines.append("  h11 -> {} {}: {} of 50 replies, leaf1 tx {}".format(dst, what, replies, delta))
        others = {u: d for u, d in delta.items() if u != port}
        if replies != want_replies or not 50 <= delta[port] <= 50 + STRAY or \
                any(d > STRAY for d in others.values()):
            bad.append(lines[-1])
    report("fare_ecmp_ingress: packets from grouped port to-h11:\n" + "\n".join(lines))
    assert not bad, "packets not where the main table sends them:\n" + "\n".join(bad)
    assert got_tables == exp, "ingress tables and the main table: got {}, expected {}".format(
        got_tables, exp)

    # zebra's choice changes: without the static, BGP_STATIC is BGP's in the
    # main table and copied (no throw); with it again, the throw
    def expected_bgp_static():
        tables, n_throws, n_copied = expected_main_state(leaf1)
        devs = copy_devs(leaf1, BGP_STATIC) or {}
        for t in tables[4]:
            tables[4][t][BGP_STATIC] = devs.get(t)
        return tables, n_throws, n_copied + 1

    def wait_mirror(what, expected, done):
        got = want = None
        for _ in range(30):
            want = expected()
            got = main_state(leaf1)
            if got == want and done():
                break
            time.sleep(1)
        assert got == want and done(), "{}: got {}, expected {}; main table {}".format(
            what, got, want, leaf1.run("ip route show table main"))
        return want

    try:
        leaf1.vtysh_cmd("configure terminal\nno ip route {} 172.16.14.10".format(BGP_STATIC))
        exp_bgp = wait_mirror("static removed", expected_bgp_static,
                              lambda: BGP_STATIC not in main_non_bgp(leaf1, 4))
        assert all(exp_bgp[0][4][t][BGP_STATIC] for t in exp_bgp[0][4]), exp_bgp
    finally:
        leaf1.vtysh_cmd("configure terminal\nip route {} 172.16.14.10".format(BGP_STATIC))
    got = wait_for(lambda: main_state(leaf1), exp, count=30)
    assert got == exp, "static again: got {}, expected {}".format(got, exp)

    # an interface down: its connected subnet leaves the main table (and its
    # throw the ingress tables), whatever else zebra and the kernel keep
    try:
        leaf1.run("ip link set to-h14 down")
        wait_mirror("to-h14 down", lambda: expected_main_state(leaf1),
                    lambda: "172.16.14.0/24" not in main_non_bgp(leaf1, 4))
    finally:
        leaf1.run("ip link set to-h14 up")
    got = wait_for(lambda: main_state(leaf1), exp, count=30)
    assert got == exp, "to-h14 up: got {}, expected {}".format(got, exp)

def test_elephant_flows():
    "EE-1: one 2000-packet flow per host: host k's flow on member k's uplink; all 4 at once: one flow per uplink."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    mem = RESULTS["mem"]
    wait_state(leaf1, START_LAYOUT, mem, "before the elephant flows", count=10)
    prime(tgen)
    exp = dict(zip(HOSTS, port_uplinks(mem)))
    got, deltas = {}, {}
    for h in HOSTS:
        got[h], deltas[h] = one_flow(tgen, h)
    assert got == exp, "host -> uplink {} != {} (deltas {})".format(got, exp, deltas)
    assert sorted(got.values()) == UPLINKS

    # the 4 elephants at the same time
    delta = elephants_at_once(tgen)
    bad = not_one_elephant(delta)
    assert not bad, "4 flows at once: uplink deltas {} (each must be in [{}, {}])".format(
        delta, ELEPHANT, ELEPHANT + STRAY)
    report("fare_ecmp_ingress: elephant flows, leaf1 uplink tx deltas per host {}; all 4 at once {}"
           .format({h: deltas[h][got[h]] for h in HOSTS}, delta))


def test_hash_contrast():
    "Without the group: collision share 1-4!/4^4 = 0.906 within 3 SE; group back: 0 collisions in R' runs."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    mem = RESULTS["mem"]
    seed = HASH_SEED
    rng = random.Random(seed)
    conf_bgp(leaf1, *["no " + group_line(1, p) for p in PORTS])
    wait_state(leaf1, {}, mem, "group removed")
    assert kernel_weights(leaf1, P4) == EQUAL
    prime(tgen)
    t0 = time.time()
    collisions, per_uplink, distinct = 0, {u: 0 for u in UPLINKS}, {1: 0, 2: 0, 3: 0, 4: 0}
    for _ in range(R_HASH):
        where, _ = coded_run(tgen, rng)
        used = set(where.values())
        distinct[len(used)] += 1
        collisions += len(used) < len(HOSTS)
        for u in where.values():
            per_uplink[u] += 1
    t_hash = time.time() - t0

    conf_bgp(leaf1, *[group_line(1, p) for p in CONFIG_ORDER])
    wait_state(leaf1, START_LAYOUT, mem, "group re-added")
    exp = dict(zip(HOSTS, port_uplinks(mem)))
    ee1_collisions, wrong = 0, []
    for _ in range(R_EE1):
        where, sports = coded_run(tgen, rng)
        ee1_collisions += len(set(where.values())) < len(HOSTS)
        if where != exp:
            wrong.append((sports, where))

    share = float(collisions) / R_HASH
    se = sqrt(P_COLLIDE * (1 - P_COLLIDE) / R_HASH)
    n = 4 * R_HASH
    sd_u = sqrt(n * 0.25 * 0.75)
    report("\n".join([
        "",
        "fare_ecmp_ingress: 4 flows (4 ingress ports) over 4 equal uplinks, random source ports "
        "(seed {}), {:.1f} s for {} hash runs".format(seed, t_hash, R_HASH),
        "  hash (no group):  {} of {} runs with two flows on one uplink: share {:.3f}, "
        "expected 1 - 4!/4^4 = {:.3f} +- {:.3f} (3 SE)".format(
            collisions, R_HASH, share, P_COLLIDE, 3 * se),
        "                    runs by uplinks used (1/2/3/4): {} (expected {:.1f}/{:.1f}/{:.1f}/{:.1f});"
        " flows per uplink {}".format(
            [distinct[i] for i in (1, 2, 3, 4)],
            *[R_HASH * x / 256.0 for x in (4, 84, 144, 24)] + [per_uplink]),
        "  EE-1 (group 1):   {} of {} runs with a collision, {} runs off the port->member map".format(
            ee1_collisions, R_EE1, len(wrong)),
    ]))
    assert abs(share - P_COLLIDE) <= 3 * se, "hash collision share {:.3f} not within {:.3f} of {:.3f}".format(
        share, 3 * se, P_COLLIDE)
    bad = {u: c for u, c in per_uplink.items() if abs(c - R_HASH) > 3 * sd_u}
    assert not bad, "flows per uplink over {} runs {}: not within {:.1f} of {}".format(
        R_HASH, per_uplink, 3 * sd_u, R_HASH)
    assert ee1_collisions == 0 and not wrong, (
        "EE-1: {} collisions; runs off the map {} (expected {})".format(ee1_collisions, wrong, exp))


def test_unequal_weights():
    "EE-1 + FARE-4: 200:200:200:600G -> 1:1:1:3, the 4 ports by largest remainder (to-s4 twice)."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    bw = {"to-s1": 200, "to-s2": 200, "to-s3": 200, "to-s4": 600}
    weights = {"to-s1": 1, "to-s2": 1, "to-s3": 1, "to-s4": 3}
    try:
        conf_bgp(leaf1, *["neighbor {} fare link-bandwidth {}G".format(u, g) for u, g in bw.items()])
        mem = wait_members(leaf1, weights, count=60)
        exp_state = wait_state(leaf1, START_LAYOUT, mem, "1:1:1:3")
        ups = port_uplinks(mem)
        ifs, w = mem["4"]
        # literal: to-s4 carries 2 ports, the weight-1 member last in bgpd's order none
        last_light = [i for i in ifs if i != "to-s4"][-1]
        assert sorted(ups) == sorted([u for u in UPLINKS if u != last_light] + ["to-s4"]), (ups, ifs)
        assert [exp_state["tables4"][TABLE_BASE + k][P4] for k in range(4)] == [{u: 1} for u in ups]
        prime(tgen)
        got = {}
        for h in HOSTS:
            got[h], _ = one_flow(tgen, h)
        exp = dict(zip(HOSTS, ups))
        report("fare_ecmp_ingress: weights 1:1:1:3, members {} weights {}: host -> uplink {}".format(
            ifs, w, got))
        assert got == exp, "1:1:1:3: host -> uplink {} != {}".format(got, exp)
    finally:
        conf_bgp(leaf1, *["neighbor {} fare link-bandwidth 800G".format(u) for u in UPLINKS])
    mem = wait_members(leaf1, EQUAL, count=60)
    RESULTS["mem"] = mem
    wait_state(leaf1, START_LAYOUT, mem, "back to 800G")


def test_group_changes_and_removal():
    "EE-1: re-indexing without to-h12, a second group (tables 1000256..), removal of every line, re-adding."
    tgen = tgen_or_skip()
    leaf1 = tgen.gears["leaf1"]
    mem = RESULTS["mem"]
    ifs4 = mem["4"][0]
    try:
        # (a) to-h12 out: to-h11 1, to-h13 2, to-h14 3; 3 ports over 1:1:1:1 -> members 1, 2, 3
        conf_bgp(leaf1, "no " + group_line(1, "to-h12"))
        exp = wait_state(leaf1, {1: ["to-h11", "to-h13", "to-h14"]}, mem, "without to-h12")
        assert [exp["tables4"][TABLE_BASE + k][P4] for k in range(3)] == [{i: 1} for i in ifs4[:3]]
        assert sorted(ingress_lines(leaf1)) == sorted(
            " " + group_line(1, p) for p in ("to-h11", "to-h13", "to-h14")), ingress_lines(leaf1)

        # (b) to-h13, to-h14 in group 2: tables 1000256 (member 1), 1000257 (member 2)
        conf_bgp(leaf1, "no " + group_line(1, "to-h14"), "no " + group_line(1, "to-h13"),
                 group_line(2, "to-h14"), group_line(2, "to-h13"))
        layout = {1: ["to-h11"], 2: ["to-h13", "to-h14"]}
        exp = wait_state(leaf1, layout, mem, "groups 1 and 2")
        assert sorted(exp["tables4"]) == [1000000, 1000256, 1000257]
        assert exp["tables4"][1000256][P4] == {ifs4[0]: 1} and exp["tables4"][1000257][P4] == {ifs4[1]: 1}
        prime(tgen)
        where = {h: one_flow(tgen, h, packets=200)[0] for h in HOSTS}
        exp_where = {"h11": ifs4[0], "h13": ifs4[0], "h14": ifs4[1]}
        assert {h: where[h] for h in exp_where} == exp_where, (
            "groups 1 and 2: host -> uplink {} (h12 ungrouped, hashed), expected {}".format(where, exp_where))

        # (c) every line removed
        conf_bgp(leaf1, "no " + group_line(1, "to-h11"), "no " + group_line(2, "to-h13"),
                 "no " + group_line(2, "to-h14"))
        wait_state(leaf1, {}, mem, "every line removed")
        for fam in (4, 6):
            text = leaf1.run("ip -{} rule show".format(fam))
            assert "lookup 100" not in text, text
        for t in (1000000, 1000001, 1000002, 1000003, 1000256, 1000257):
            for fam in (4, 6):
                text = leaf1.run("ip -{} route show table {} 2>/dev/null".format(fam, t)).strip()
                assert text == "", "table {} (IPv{}) not empty: {}".format(t, fam, text)
        assert ingress_lines(leaf1) == [], ingress_lines(leaf1)
    finally:
        # (d) the startup lines again (also after a failure above)
        for g in (1, 2):
            leaf1.vtysh_cmd("configure terminal\nrouter bgp {}\n{}\n".format(
                ASN1, "\n".join("no " + group_line(g, p) for p in PORTS)))
        conf_bgp(leaf1, *[group_line(1, p) for p in CONFIG_ORDER])
    wait_state(leaf1, START_LAYOUT, mem, "the 4 lines again")
    assert sorted(ingress_lines(leaf1)) == sorted(START_LINES), ingress_lines(leaf1)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
