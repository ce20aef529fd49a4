#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_sessions.py: in averaged mode, a spine's N (the number of
eligible outgoing sessions, SPEC WP-2) follows the set of established
sessions: a session that comes up for the first time, goes down
(administratively or with its link) or re-establishes changes N, and the
spine re-advertises the prefix with sum / N at once.

                 leaf0 (AS 65100, originates 172.16.0.0/24)
                   | L1 100G
                 spine (AS 65000)
        L2 100G /    | L3 100G  \\ L4 100G
          leaf1      leaf2      leaf3
        (AS 65101) (AS 65102) (AS 65103)

One numbered IPv4 eBGP session per link, `neighbor X fare link-bandwidth
100G` on both ends of every link. All routers: `bgp fare`, `bgp fare mode
averaged`, `bgp fare hold-down 0`: code that recomputes N only when a
hold-down ends (as the module did before N followed sessions) would, with
a hold-down, fix a stale N a few seconds later and pass; with 0 it never
does.

leaf0 originates at its line rate, 100G = 1.25e10 bytes/s (WP-1). The
spine receives one path: sum = 1.25e10. Its eligible outgoing sessions are
those to the leaves that are established (leaf0 is the source, WP-2):

    N = 3: each leaf receives 1.25e10 / 3 = 4.1666...e9 bytes/s (33.3G)
    N = 2: each leaf receives 1.25e10 / 2 = 6.25e9 bytes/s (50G)

(the line rate 100G never caps: sum / N <= 100G). A leaf reads the
value sent as a float back to 6 significant digits: 4.16667e9 for N = 3
(see received()). The spine's `show` counts N when asked, so its view is
right even when what it sent is stale: the leaves' values are the check.

Sessions that cannot carry the route do not count in N (WP-2): leaf4's
session is established, but the spine's outbound `prefix-list DENYALL`
keeps the prefix from it; the collector (AS 65200) peers with the
spine's loopback over eBGP multihop, a session with no link of its own.
Counting either, as FARE 0.2 did, made every value too low (sum / 4 for
sum / 2). The collector runs FARE too: its view of the path shows the
received value uncapped, because the session's link bandwidth is unknown
(FARE-3/4).

                 spine --(to-leaf4, prefix-list DENYALL out)-- leaf4
                   | to-collector (10.100.6.0/24); BGP between loopbacks
                 collector  10.255.0.2 (spine lo) <-> 10.255.0.20 (collector lo),
                            ebgp-multihop 2, static routes over the link

Steps: leaf3's session starts administratively shut (in leaf3's startup
config), so N = 2; it comes up for the first time (N = 3); leaf3 shuts it
(N = 2); it re-establishes (N = 3); leaf3's link goes down (N = 2); back
up (N = 3). When leaf3 shuts its session and re-establishes it, the spine
sends no route to zebra and its kernel route stays as it was (the weights
installed do not depend on N): it re-announces to its peers only
(counter peerOnlyRefreshes). The spine also originates a prefix of its
own, OWN_PREFIX: what it advertises does not depend on N (WP-1), so the
re-announcements build the received prefix again and leave OWN_PREFIX
where a sub-group announces it already (counters reannouncedSubgroups and
reannouncedRoutes: one route per sub-group built, two in leaf4's, where
the outbound policy denies both); a session that comes up again gets
OWN_PREFIX all the same.
"""

import math
import os
import struct
import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import DAEMONS_FARE, GBPS, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.0.0/24"
OWN_PREFIX = "172.16.9.0/24"  # the spine's own (network)
ROUTERS = {"leaf0": 65100, "spine": 65000, "leaf1": 65101, "leaf2": 65102, "leaf3": 65103,
           "leaf4": 65104, "collector": 65200}
# link k: 10.100.k.0/24, the first router .1, the second .2
LINKS = [("leaf0", "spine"), ("spine", "leaf1"), ("spine", "leaf2"), ("spine", "leaf3"),
         ("spine", "leaf4"), ("spine", "collector")]
# the multihop session between loopbacks (WP-2: no link of its own)
LOOPBACK = {"spine": "10.255.0.2", "collector": "10.255.0.20"}
LEAVES = ["leaf1", "leaf2", "leaf3"]
SUM = 100 * GBPS  # what leaf0 originates on its 100G link (WP-1)


def _addr(name, peer):
    "Address of `name` on its link to `peer`."
    for k, (a, b) in enumerate(LINKS, 1):
        if {a, b} == {name, peer}:
            return "10.100.{}.{}".format(k, 1 if name == a else 2)
    raise KeyError((name, peer))


def _ifname(peer):
    return "to-" + peer


LEAF3_SESSION = _addr("spine", "leaf3")  # leaf3's neighbor address for the spine


TOPOLOGY = Topology().router(*ROUTERS)
for _a, _b in LINKS:
    TOPOLOGY.link(_a, _b, _ifname(_b), _ifname(_a))


def config(name):
    lines = ["frr defaults datacenter", "hostname " + name, "!"]
    peers = [b if a == name else a for a, b in LINKS if name in (a, b)]
    for peer in peers:
        lines += ["interface " + _ifname(peer), " ip address {}/24".format(_addr(name, peer)), "!"]
    if name in LOOPBACK:
        other = "collector" if name == "spine" else "spine"
        lines += ["interface lo", " ip address {}/32".format(LOOPBACK[name]), "!",
                  "ip route {}/32 {}".format(LOOPBACK[other], _addr(other, name)), "!"]
    if name == "spine":
        lines += ["ip prefix-list DENYALL seq 5 deny any", "!"]
    lines += [
        "router bgp {}".format(ROUTERS[name]),
        " bgp router-id 10.255.0.{}".format(list(ROUTERS).index(name) + 1),
        " no bgp ebgp-requires-policy",
        " no bgp network import-check",
        " timers bgp 3 9",
    ]
    for peer in peers:
        if {name, peer} == set(LOOPBACK):
            lines += [" neighbor {} remote-as {}".format(LOOPBACK[peer], ROUTERS[peer]),
                      " neighbor {} ebgp-multihop 2".format(LOOPBACK[peer]),
                      " neighbor {} update-source lo".format(LOOPBACK[peer])]
        else:
            lines.append(" neighbor {} remote-as {}".format(_addr(peer, name), ROUTERS[peer]))
    if name == "leaf3":
        # the session to the spine starts shut: it comes up for the first
        # time in test_session_up_first_time
        lines.append(" neighbor {} shutdown".format(LEAF3_SESSION))
    lines += [" address-family ipv4 unicast"]
    if name == "leaf0":
        lines.append("  network " + PREFIX)
    if name == "spine":
        lines.append("  network " + OWN_PREFIX)
        lines.append("  neighbor {} prefix-list DENYALL out".format(_addr("leaf4", "spine")))
    lines += [" exit-address-family"]
    lines += [" bgp fare", " bgp fare mode averaged", " bgp fare hold-down 0"]
    if name == "leaf0":
        lines.append(" bgp fare originate")
    for peer in peers:
        if {name, peer} != set(LOOPBACK):
            lines.append(" neighbor {} fare link-bandwidth 100G".format(_addr(peer, name)))
    lines += ["!"]
    return "\n".join(lines) + "\n"


def daemons(name):
    "staticd where the multihop session needs its static routes"
    return DAEMONS_FARE + ([(TopoRouter.RD_STATIC, None)] if name in LOOPBACK else [])


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config, daemons)


def teardown_module(_mod):
    get_topogen().stop_topology()


def received(value):
    """What a receiver's `show bgp ipv4 fare` reports for a Path Bandwidth
    sent as `value`: the community carries an IEEE single float (FARE-1),
    and the module reads it back rounded to FLT_DIG = 6 significant digits
    (fare_bw_wire_value(), so 400G reads 5e10, not 49999998976). We compare
    exactly against that: float32 rounding alone, or a relative tolerance
    of 1e-7, would not match 1.25e10 / 3 (read as 4.16667e9, 8e-7 off), and
    N = 2 and N = 3 differ by 50%, so exact equality is both achievable and
    unambiguous."""
    d = struct.unpack("f", struct.pack("f", value))[0]
    exp10 = math.floor(math.log10(d)) - 5
    if exp10 >= 0:
        scale = 10.0 ** exp10
        return math.floor(d / scale + 0.5) * scale
    scale = 10.0 ** -exp10
    return math.floor(d * scale + 0.5) / scale


def _leaf_value(router):
    "The Path Bandwidth a leaf receives for PREFIX from the spine, or None."
    j = vtysh_json(router, "show bgp ipv4 fare {} json".format(PREFIX))
    p = j.get("prefixes", {}).get(PREFIX)
    if not p or len(p["paths"]) != 1:
        return None
    t = p["paths"][0]["transitive"]
    return t.get("bytesPerSec") if t["state"] == "present" else t["state"]


def _values(tgen, leaves):
    return {name: _leaf_value(tgen.gears[name]) for name in leaves}


def _own_prefix(tgen, leaves):
    "Whether each leaf has the spine's own prefix."
    return {name: OWN_PREFIX in vtysh_json(tgen.gears[name], "show bgp ipv4 unicast json")
            .get("routes", {}) for name in leaves}


def _spine_view(tgen):
    j = vtysh_json(tgen.gears["spine"], "show bgp ipv4 fare {} json".format(PREFIX))
    p = j["prefixes"][PREFIX]
    return {
        "outgoingInterfaces": p["advertised"]["outgoingInterfaces"],
        "sumBytesPerSec": p["advertised"]["sumBytesPerSec"],
        "transitiveBytesPerSec": p["advertised"]["transitiveBytesPerSec"],
        "received": [q["transitive"].get("bytesPerSec") for q in p["paths"]],
    }


def _leaf3_state(tgen):
    j = vtysh_json(tgen.gears["spine"], "show bgp neighbors {} json".format(_addr("leaf3", "spine")))
    return j.get(_addr("leaf3", "spine"), {}).get("bgpState")


def _wait_leaf3(tgen, established):
    "Wait until the spine's session to leaf3 is (or is no longer) Established."
    state = wait_for(lambda: _leaf3_state(tgen) == "Established", established, count=60)
    assert state == established, "spine-leaf3 session: {}".format(_leaf3_state(tgen))


def _collector_view(tgen):
    """The collector's path for PREFIX (from the spine's loopback): its
    value and what it says of its link (FARE-3/4), or None."""
    j = vtysh_json(tgen.gears["collector"], "show bgp ipv4 fare {} json".format(PREFIX))
    p = j.get("prefixes", {}).get(PREFIX)
    if not p or len(p["paths"]) != 1:
        return None
    q = p["paths"][0]
    return {k: q.get(k) for k in ("peer", "linkBandwidthSource", "cappedByLink", "uncappedReason",
                                  "pathBandwidthBytesPerSec")}


def _expect_n(tgen, n, own=True):
    """Every leaf with an established session receives sum / N and the
    spine's own prefix (unless `own` is False: the spine runs without
    it), the others nothing (leaf4: denied by the spine's outbound
    policy); the collector receives the same sum / N and takes it
    uncapped; the spine shows N and the sum (WP-2)."""
    up = LEAVES[:n]
    exp = {name: (received(SUM / n) if name in up else None) for name in LEAVES}
    exp["leaf4"] = None
    got = wait_for(lambda: _values(tgen, LEAVES + ["leaf4"]), exp, count=45)
    # a session that came up again has the spine's own prefix too
    exp_own = {name: own and name in up for name in LEAVES}
    assert wait_for(lambda: _own_prefix(tgen, LEAVES), exp_own, count=20) == exp_own, (
        "N = {}: the spine's own prefix {}: {}".format(n, OWN_PREFIX, _own_prefix(tgen, LEAVES)))
    spine = _spine_view(tgen)
    assert got == exp, (
        "N = {}: leaves received {} (bytes/s), expected {}; in Gb/s: {}\n"
        "spine: {}\n{}".format(
            n, got, exp,
            {k: (v / GBPS if isinstance(v, float) else v) for k, v in got.items()},
            spine, tgen.gears["spine"].vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX)))
    )
    assert spine == {
        "outgoingInterfaces": n,
        "sumBytesPerSec": SUM,
        "transitiveBytesPerSec": SUM / n,
        "received": [SUM],
    }, spine
    cexp = {"peer": LOOPBACK["spine"], "linkBandwidthSource": "unknown: no interface",
            "cappedByLink": False,
            "uncappedReason": "the session has no interface of its own (multihop or loopback): "
                              "link bandwidth unknown",
            "pathBandwidthBytesPerSec": received(SUM / n)}
    got = wait_for(lambda: _collector_view(tgen), cexp, count=20)
    assert got == cexp, got


def _spine_counters(tgen):
    """The spine's routes sent to zebra (WP-3: weighted, plain ECMP or
    FRR's weights: every route bgpd sends), its re-announcements to the
    peers alone, asked for and passes made, and the update sub-groups and
    routes the passes built."""
    c = vtysh_json(tgen.gears["spine"], "show bgp fare json")["counters"]
    return (c["wcmpRoutes"] + c["ecmpRoutes"] + c["frrWeightedRoutes"], c["peerOnlyRefreshes"],
            c["reannouncePasses"], c["reannouncedSubgroups"], c["reannouncedRoutes"])


def _expect_n_peers_only(tgen, n, before):
    """WP-2: N changed with a session: the values sent follow (_expect_n),
    and, the weights installed not depending on N, the spine sends no
    route to zebra and its kernel route stays; it re-announced to the
    peers instead (peerOnlyRefreshes)."""
    route = tgen.gears["spine"].run("ip -d route show {}".format(PREFIX))
    _expect_n(tgen, n)
    sends, refreshes, passes, subgrps, routes = _spine_counters(tgen)
    assert sends == before[0], "N = {}: the spine sent {} route(s) to zebra".format(
        n, sends - before[0])
    assert refreshes > before[1], "N = {}: no re-announcement to the peers alone".format(n)
    # one pass for each, or fewer (those asked for together share one)
    assert 1 <= passes - before[2] <= refreshes - before[1], (n, before, refreshes, passes)
    # each sub-group built again got PREFIX, not OWN_PREFIX (WP-1: its
    # value does not depend on N, and the sub-group announces it
    # already), but for leaf4's: the spine's outbound policy denies it
    # both, so OWN_PREFIX is not announced there and is built at each
    # pass (leaf4's session stays up, its sub-group is in every pass)
    assert subgrps > before[3], "N = {}: no sub-group built by the pass".format(n)
    exp = (subgrps - before[3]) + (passes - before[2])
    assert routes - before[4] == exp, (
        "N = {}: {} route(s) built for {} sub-group(s) in {} pass(es), expected {}".format(
            n, routes - before[4], subgrps - before[3], passes - before[2], exp))
    assert tgen.gears["spine"].run("ip -d route show {}".format(PREFIX)) == route


def test_initial_two_sessions():
    """WP-1/WP-2: leaf3's session is shut: N = 2, leaf1 and leaf2 receive
    100G / 2 = 50G; leaf4 (denied outbound) and the collector (multihop)
    are established and do not count."""
    tgen = tgen_or_skip()
    for addr in [_addr(leaf, "spine") for leaf in ("leaf1", "leaf2", "leaf4")] + [LOOPBACK["collector"]]:
        state = wait_for(
            lambda: vtysh_json(tgen.gears["spine"], "show bgp neighbors {} json".format(addr))
            .get(addr, {}).get("bgpState"), "Established", count=90)
        assert state == "Established", "spine-{}: {}".format(addr, state)
    assert _leaf3_state(tgen) != "Established"
    # the collector has the prefix: the spine sends it there, but it is
    # not an outgoing interface (WP-2)
    j = wait_for(lambda: PREFIX in vtysh_json(tgen.gears["collector"], "show bgp ipv4 unicast json")
                 .get("routes", {}), True, count=30)
    assert j is True
    _expect_n(tgen, 2)


def test_session_up_first_time():
    "WP-2: leaf3's session comes up for the first time: N = 3, all three leaves receive 100G / 3."
    tgen = tgen_or_skip()
    tgen.gears["leaf3"].vtysh_cmd(
        "configure terminal\nrouter bgp 65103\nno neighbor {} shutdown\n".format(LEAF3_SESSION))
    _wait_leaf3(tgen, True)
    _expect_n(tgen, 3)


def test_session_shut_down():
    "WP-2: leaf3 shuts its session: N = 2, leaf1 and leaf2 receive 100G / 2."
    tgen = tgen_or_skip()
    before = _spine_counters(tgen)
    tgen.gears["leaf3"].vtysh_cmd(
        "configure terminal\nrouter bgp 65103\nneighbor {} shutdown\n".format(LEAF3_SESSION))
    _wait_leaf3(tgen, False)
    _expect_n_peers_only(tgen, 2, before)


def test_session_reestablished():
    "WP-2: leaf3's session re-establishes: N = 3 again, all three leaves receive 100G / 3."
    tgen = tgen_or_skip()
    before = _spine_counters(tgen)
    tgen.gears["leaf3"].vtysh_cmd(
        "configure terminal\nrouter bgp 65103\nno neighbor {} shutdown\n".format(LEAF3_SESSION))
    _wait_leaf3(tgen, True)
    _expect_n_peers_only(tgen, 3, before)


def test_sessions_down_together():
    """WP-2: the spine shuts its sessions to leaf2 and leaf3 in one
    command: N = 1, and the two changes cost one re-announcement to the
    peers (they settle together), none to zebra; both back: N = 3."""
    tgen = tgen_or_skip()
    peers = [_addr(leaf, "spine") for leaf in ("leaf2", "leaf3")]
    before = _spine_counters(tgen)
    _spine_cmd(tgen, "router bgp 65000", *["neighbor {} shutdown".format(p) for p in peers])
    _expect_n_peers_only(tgen, 1, before)
    assert _spine_counters(tgen)[1] == before[1] + 1, (
        "two sessions down together: {} re-announcements".format(
            _spine_counters(tgen)[1] - before[1]))
    before = _spine_counters(tgen)
    _spine_cmd(tgen, "router bgp 65000", *["no neighbor {} shutdown".format(p) for p in peers])
    _wait_leaf3(tgen, True)
    _expect_n_peers_only(tgen, 3, before)


def test_link_down():
    "WP-2/WP-7: leaf3's link goes down, the spine drops the session: N = 2."
    tgen = tgen_or_skip()
    tgen.gears["leaf3"].run("ip link set {} down".format(_ifname("spine")))
    _wait_leaf3(tgen, False)
    _expect_n(tgen, 2)


def test_link_up():
    "WP-2: leaf3's link comes back, the session re-establishes: N = 3."
    tgen = tgen_or_skip()
    tgen.gears["leaf3"].run("ip link set {} up".format(_ifname("spine")))
    _wait_leaf3(tgen, True)
    _expect_n(tgen, 3)


def _expect_all_four(tgen, n):
    """leaf1..leaf4 each receive sum / n (leaf4 now sent the prefix), and
    the spine counts n outgoing interfaces (WP-2)."""
    leaves = LEAVES + ["leaf4"]
    exp = {name: received(SUM / n) for name in leaves}
    got = wait_for(lambda: _values(tgen, leaves), exp, count=45)
    assert got == exp, (got, _spine_view(tgen))
    assert _spine_view(tgen)["outgoingInterfaces"] == n


def _spine_cmd(tgen, *lines):
    tgen.gears["spine"].vtysh_cmd("configure terminal\n" + "\n".join(lines) + "\n")


def test_outbound_policy_edits():
    """WP-2: N follows the spine's outbound policy as it is edited, with
    no session change: the prefix permitted in DENYALL (a prefix-list's
    contents) makes leaf4 count, N = 4; the entry removed, N = 3; the
    prefix-list removed from leaf4's session (a filter unnamed), N = 4."""
    tgen = tgen_or_skip()
    _spine_cmd(tgen, "ip prefix-list DENYALL seq 1 permit " + PREFIX)
    _expect_all_four(tgen, 4)
    _spine_cmd(tgen, "no ip prefix-list DENYALL seq 1 permit " + PREFIX)
    _expect_n(tgen, 3)
    _spine_cmd(tgen, "router bgp 65000", "address-family ipv4 unicast",
               "no neighbor {} prefix-list DENYALL out".format(_addr("leaf4", "spine")))
    _expect_all_four(tgen, 4)


UPDATE_DELAY = 20  # s


def _spine_update_delay(tgen):
    "Whether the spine's bgpd is in its update-delay (read-only mode)."
    j = vtysh_json(tgen.gears["spine"], "show bgp ipv4 unicast summary json")
    return bool(j.get("updateDelayInProgress"))


def test_update_delay():
    """bgpd's update-delay: the spine's bgpd restarts with `update-delay
    20`, leaf3 keeping its session shut (a configured session that does
    not come up: the delay runs its full 20 s). The sessions that come up
    meanwhile change N, but bgpd has selected no route and sent none: the
    module asks for the re-announcements (peerOnlyRefreshes) and makes no
    pass over the table (reannouncePasses stays 0). When the delay ends,
    bgpd announces its table with the N of then: 2, leaf1 and leaf2
    receive 100G / 2 (leaf4 is denied again by the configuration read
    anew)."""
    tgen = tgen_or_skip()
    spine = tgen.gears["spine"]
    tgen.gears["leaf3"].vtysh_cmd(
        "configure terminal\nrouter bgp 65103\nneighbor {} shutdown\n".format(LEAF3_SESSION))
    spine.killDaemons(["bgpd"])
    path = os.path.join(tgen.logdir, "configs", "spine-update-delay.conf")
    with open(path, "w") as f:
        # without its own prefix: a route held by a sub-group during
        # the delay would make the pass (FRR 10.3 does not announce it
        # again at the delay's end)
        f.write(config("spine").replace(
            "router bgp 65000\n", "router bgp 65000\n update-delay {}\n".format(UPDATE_DELAY))
            .replace("  network {}\n".format(OWN_PREFIX), ""))
    t0 = time.monotonic()
    spine.startDaemons(["bgpd"])
    spine.run("vtysh -f " + path)
    # the sessions to leaf0 (the source), leaf1 and leaf2 come up: N
    # changes while the delay runs
    for addr in [_addr(leaf, "spine") for leaf in ("leaf0", "leaf1", "leaf2")]:
        state = wait_for(
            lambda: vtysh_json(spine, "show bgp neighbors {} json".format(addr))
            .get(addr, {}).get("bgpState"), "Established", count=60, wait=0.5)
        assert state == "Established", "spine-{}: {}".format(addr, state)
    # past the re-announcement's settling (at most 1 s), still in the delay
    time.sleep(2)
    assert _spine_update_delay(tgen), "update-delay over {:.1f} s after the start".format(
        time.monotonic() - t0)
    _, asked, passes, _, _ = _spine_counters(tgen)
    assert asked >= 1 and passes == 0, (
        "during bgpd's update-delay: {} re-announcement(s) asked for, {} pass(es)".format(
            asked, passes))
    assert _values(tgen, ["leaf1", "leaf2"]) == {"leaf1": None, "leaf2": None}
    assert wait_for(lambda: _spine_update_delay(tgen), False, count=UPDATE_DELAY + 20) is False
    _expect_n(tgen, 2, own=False)
    _, _, passes, _, _ = _spine_counters(tgen)
    assert passes == 0, "{} pass(es) over the table for sessions up during the delay".format(
        passes)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
