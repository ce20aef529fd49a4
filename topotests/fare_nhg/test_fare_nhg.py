#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_nhg.py: shared nexthop groups replaced in place
("bgp fare nexthop-groups", doc/user/fare.rst "Shared nexthop groups").

           +--10G-- r2 (AS 65002) --10G--+
           |                             |
  r1 (AS 65001)                          r4 (AS 65004), originates
           |                             |  PREFIXES (IPv4 and IPv6) and
           +--10G-- r3 (AS 65003) --10G--+  MOVER (bgp fare originate)

Link bandwidths are zebra's interface `bandwidth` (FARE-3). r1 has
`bgp fare nexthop-groups`: its FARE-weighted routes point to nexthop
groups bgpd keeps in zebra, one per distinct weighted next-hop set.

1. The N IPv4 prefixes (MOVER among them) share ONE kernel nexthop group
   (`ip -j route`'s nhid), the module's own (`show bgp fare
   nexthop-groups json` has it with N prefixes), weights 1:1
   (`ip -j nexthop`); the IPv6 prefixes share another.
2. r1's link to r2 halved (`bandwidth 5000`): r1 weighs 1:2 (FARE-4).
   Both groups keep their ids, the kernel holds the new weights, and
   `ip -ts monitor route nexthop`, running during the change, sees no
   route event at all and one nexthop event per group (the group replaced
   in place). Before, zebra sent every route again with a new group (one
   RTM_NEWROUTE per prefix). The monitor runs with the namespace's
   net.ipv4.nexthop_compat_mode at 0: in the kernel's default compat mode
   (1) a replaced group makes the kernel itself notify every route that
   uses it (one RTM_NEWROUTE notification per route, nothing installed);
   that count is printed too. The 2N prefixes share their paths, and so
   one computation of their weights (doc/developer.rst, "Results and
   their invalidation"), yet `show bgp fare json` counts the values read
   for each: reevaluatedRoutes 2N more, receivedValues.valid 2 x 2N
   more (both paths of each), plus 2 x 2 for the first prefix of each
   group, computed once more to replace its group ahead of the pass.
3. A remote event: r3's link to r4 halved, on r3. r3 advertises a new
   Path Bandwidth (5G) for every prefix; r1 weighs 1:1 again (5G each way).
   Again both groups are replaced in place, same ids, one nexthop event per
   group and no route event; and once more when r3's link is restored (1:2).
   Real traffic (test_traffic_shares): `clear bgp fare traffic`, then r1
   sends 4000 UDP flows of its own to hosts of PREFIXES (L4 hash). `show
   bgp fare traffic json` counts all 4000 in the shared group, each
   member exactly what its uplink's tx_packets counted (BGP's keepalives
   aside), weights 1:2 (the kernel's and FARE's), intended shares 33.3 %
   and 66.7 %, measured shares within sampling error (4 points); and
   tools/fare-metrics --traffic exports each member's packets as shown.
   The alarm (test_traffic_alarm, `bgp fare traffic-alarm interval 1`):
   10,000 small flows raise none; one flow of 3000 packets (all on one
   member) raises one, logged once, its likely cause "too few flows".
   zebra's restart (test_zebra_restart): r1's running configuration
   saved (`write memory`), r1's zebra killed with SIGKILL (a crash) and
   started again alone, bgpd still running, and given its configuration
   (`vtysh -b -d zebra`). The new zebra removes what the old one left in
   the kernel (its startup sweep); bgpd reconnects and sends every
   selected route again (patch 0024), and the module each group ahead of
   its first route: both groups are back in the kernel under the same
   ids with the same 1:2 weights, every IPv4 and IPv6 prefix on its
   group, zebra's `show ip route json` and the module's show agree.
   Then r1's link to r2 at a quarter (1:4) and back at half (1:2):
   each time both groups replaced in place, one nexthop event per group
   and no route event. (Before patch 0024 bgpd sent no route again: the
   kernel had none of the prefixes 30 s after the restart.)
   zebra's graceful restart (test_zebra_graceful_restart): the same with
   zebra started with `-K 6` (it keeps the kernel's routes of the previous
   zebra for 6 s, and sweeps those not sent again then). `ip -ts monitor`
   runs from before the kill to past the 6 s: no route of the prefixes
   and neither group is deleted from the kernel; afterwards every prefix
   is on its group under the same id and weights, the shows agree, and
   two bandwidth changes replace each group in place.
4. r3 stops advertising MOVER to r1: MOVER has a single path left, which
   has no weight to change: it leaves the module's groups for zebra's own
   next hop (nexthopGroupId 0), as without the command; the others keep
   theirs. On that single path, r2 adds a community (route-map MOVERCOMM
   out): bgpd processes MOVER again, but zebra does not get communities,
   so the module finds zebra has the route as it is and nothing is sent
   (zebra's IPv4 adds and updates from bgpd, `show zebra client`,
   unchanged; the counter notSentUnchanged one more); r2 then sends a MED
   instead (MOVERMED), zebra's metric of the route: sent, zebra's route
   has metric 55; the route-map removed, the metric is as before. The
   same for MOVER6, an IPv6 prefix (zebra's IPv6 counts).
   r3 advertises it again: MOVER is back in the shared group.
   Then r3 advertises MOVER with another next hop (a second address of
   its own, route-map `set ip next-hop`): MOVER's next-hop set changes,
   it moves to a group of its own, weights 1:2 still; without the
   route-map it is back in the shared group, and the group it had
   meanwhile has no route left and is deleted (gone from the show at
   once, and from the kernel once zebra's `zebra nexthop-group keep`
   time, 1 s here, is over).
5. A new Path Bandwidth from r3 for half the prefixes only, of each
   family (r3's `bgp fare multihoming prefix-list FAREHALF factor 2`,
   FAREHALF an IPv4 and an IPv6 prefix-list: 5G for them), which r3
   sends with a community of their own (route-maps FARETAG and FARETAG6
   out, as prefixes of another origin come with another AS path):
   r1 weighs them 1:1 and each half moves to a group of its own; the
   others keep their shared group, which the monitor (compat mode 0)
   never sees replaced: its weights stay 1:2 all along, so no prefix
   runs with weights not its own meanwhile; one route event per prefix
   of the halves and none for the others. (Without the community the
   two halves are alike to r1, the same paths with the same attributes:
   the first route of the half then replaces the shared group ahead of
   the others, the guess the module makes for routes a neighbor cannot
   tell apart, and the other half runs at 1:1 until bgpd is through.)
   The factor removed: the halves are back on the shared groups, and
   the groups they had are deleted.
6. `no bgp fare nexthop-groups`: the routes go back to zebra's own
   groups, the module's are deleted; the knob is written back by `show
   running-config` only when set. With the knob off, `show bgp fare
   traffic` finds zebra's group of the routes from the kernel's table
   (RTA_NH_ID of the BGP routes): the same check with 2000 flows.
"""

import ipaddress
import json
import os
import re
import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import (bgp_zebra_client, kernel_weights, tgen_or_skip,
                         tx_packets, vtysh_json, wait_for)
from fare.fabric import Fabric
from fare.nhg import (group_members, kernel_route, module_groups, monitor_lines, monitor_start, monitor_stop,
                      neighbor_out, nhids, route_events, shared, single_path_sent_on_change_only,
                      start_nhg_fabric)
from fare.metrics_check import check_format, scrape

pytestmark = [pytest.mark.bgpd]

# more to measure at scale (FARE_NHG_PREFIXES=1000: what the change
# costs the kernel, printed with pytest -s), not in the default suite
N = int(os.environ.get("FARE_NHG_PREFIXES", "6"))
PREFIXES = ["172.{}.{}.0/24".format(16 + i // 256, i % 256) for i in range(N)]
PREFIXES6 = ["2001:db8:16:{:x}::/64".format(i) for i in range(N)]
MOVER = PREFIXES[0]
# as FRR writes it (2001:db8:16::/64), the key of its JSON shows
MOVER6 = str(ipaddress.ip_network(PREFIXES6[0]))
# the prefixes r3 gives a multihoming factor in step 5, of each family
# (MOVER not among them)
HALF = PREFIXES[N // 2:]
HALF6 = PREFIXES6[N // 2:]
# a second address of r3 on its link to r1 (link 2), MOVER's next hop in
# step 4
MOVER_NH = "10.100.2.3"
FABRIC = Fabric(
    {"r1": 65001, "r2": 65002, "r3": 65003, "r4": 65004},
    [("r1", "r2", 10), ("r1", "r3", 10), ("r2", "r4", 10), ("r3", "r4", 10)],
    originate={"r4": PREFIXES + PREFIXES6},
    fare_lines={"r1": [" bgp fare", " bgp fare nexthop-groups"]},
    extra={"r3": ["!", "ip prefix-list NOMOVER seq 5 deny {}".format(MOVER),
                  "ip prefix-list NOMOVER seq 10 permit any",
                  "ip prefix-list ISMOVER seq 5 permit {}".format(MOVER),
                  "route-map MOVERNH permit 10", " match ip address prefix-list ISMOVER",
                  " set ip next-hop {}".format(MOVER_NH), "exit",
                  "route-map MOVERNH permit 20", "exit",
                  "ipv6 prefix-list NOMOVER6 seq 5 deny {}".format(MOVER6),
                  "ipv6 prefix-list NOMOVER6 seq 10 permit any"] +
                 ["ip prefix-list FAREHALF seq {} permit {}".format(5 * i, p)
                  for i, p in enumerate(HALF, 1)] +
                 ["ipv6 prefix-list FAREHALF seq {} permit {}".format(5 * i, p)
                  for i, p in enumerate(HALF6, 1)] +
                 # the half with attributes of its own (a community), as
                 # prefixes of another origin have (another AS path)
                 ["route-map FARETAG permit 10", " match ip address prefix-list FAREHALF",
                  " set community 65003:50", "exit", "route-map FARETAG permit 20", "exit",
                  "route-map FARETAG6 permit 10", " match ipv6 address prefix-list FAREHALF",
                  " set community 65003:50", "exit", "route-map FARETAG6 permit 20", "exit"],
           # step 4's single-path MOVER: a community (zebra does not get
           # it) or a MED (zebra's metric) of its own from r2
           "r2": ["!", "ip prefix-list ISMOVER seq 5 permit {}".format(MOVER),
                  "route-map MOVERCOMM permit 10", " match ip address prefix-list ISMOVER",
                  " set community 65002:7", "exit", "route-map MOVERCOMM permit 20", "exit",
                  "route-map MOVERMED permit 10", " match ip address prefix-list ISMOVER",
                  " set metric 55", "exit", "route-map MOVERMED permit 20", "exit",
                  "ipv6 prefix-list ISMOVER6 seq 5 permit {}".format(MOVER6),
                  "route-map MOVERCOMM6 permit 10", " match ipv6 address prefix-list ISMOVER6",
                  " set community 65002:7", "exit", "route-map MOVERCOMM6 permit 20", "exit",
                  "route-map MOVERMED6 permit 10", " match ipv6 address prefix-list ISMOVER6",
                  " set metric 55", "exit", "route-map MOVERMED6 permit 20", "exit"],
           # zebra deletes a group no route uses after this (180 s by default)
           "r1": ["!", "zebra nexthop-group keep 1", "debug bgp fare"],
           # a finite value from the origin (not max), so that r3's
           # multihoming factor divides something its link does not cap
           "r4": [" bgp fare originate 10G"]},
    link_config="interface",
)
MONITOR = "/tmp/fare_nhg_monitor.txt"


def setup_module(mod):
    start_nhg_fabric(mod, FABRIC)


def teardown_module(_mod):
    get_topogen().stop_topology()


STATE = {}


def test_one_group_per_weight_vector():
    "N prefixes with the same weighted next hops share one group of the module, 1:1."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exp = {"to-r2": 1, "to-r3": 1}
    for prefixes in (PREFIXES, PREFIXES6):
        ipv6 = prefixes is PREFIXES6
        for p in prefixes:
            assert wait_for(lambda: kernel_weights(r1, p, ipv6=ipv6), exp) == exp, p
        assert wait_for(lambda: shared(r1, prefixes) in module_groups(r1), True) is True
        gid = shared(r1, prefixes)
        assert gid, nhids(r1, prefixes)
        # the module's group: in its show, with all N prefixes
        groups = wait_for(lambda: module_groups(r1).get(gid, {}).get("prefixes"), N)
        assert groups == N, module_groups(r1)
        assert group_members(r1, gid) == exp
        g = module_groups(r1)[gid]
        assert sorted(m["weight"] for m in g["members"]) == [1, 1]
        # show bgp fare shows the prefix's group
        fam = "ipv6" if ipv6 else "ipv4"
        j = vtysh_json(r1, "show bgp {} fare {} json".format(fam, prefixes[1]))
        assert j["prefixes"][prefixes[1]]["nexthopGroupId"] == gid
        STATE[fam] = gid


def _monitor_start(router):
    monitor_start(router, MONITOR)


def _monitor_stop(router):
    return monitor_stop(router, MONITOR)


def _change_in_place(r1, change, exp, what, early):
    """Run change() with a monitor on r1: each group keeps its id and gets
    the weights exp, one nexthop event per group, no route event; early:
    each group replaced as soon as bgpd learned of the change, before its
    pass over the routes (a change of r1's own)."""
    # only what zebra sends, not the kernel's notifications of the routes
    # of a replaced group (compat mode 1)
    r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
    replaced = {fam: (module_groups(r1)[STATE[fam]]["replacedInPlace"],
                      module_groups(r1)[STATE[fam]]["replacedBeforePass"]) for fam in ("ipv4", "ipv6")}
    _monitor_start(r1)
    try:
        t0 = time.time()
        sys.stderr.write("fare_nhg: {} at {}\n".format(what, time.strftime(
            "%H:%M:%S", time.localtime(t0)) + ("%.6f" % (t0 % 1))[1:]))
        change()
        for prefixes, fam in ((PREFIXES, "ipv4"), (PREFIXES6, "ipv6")):
            got = wait_for(lambda: group_members(r1, STATE[fam]), exp, count=100, wait=0.1)
            assert got == exp, (what, fam, got)
        elapsed = time.time() - t0
    finally:
        monitor = _monitor_stop(r1)
        r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=1")
    sys.stderr.write("fare_nhg: weights in the kernel {:.2f} s after the change (polled), "
                     "{} monitor line(s)\n{}\n".format(elapsed, len(monitor.splitlines()),
                                                       "\n".join(monitor.splitlines()[:40])))
    # every prefix still on its group, with the new weights
    for prefixes, fam in ((PREFIXES, "ipv4"), (PREFIXES6, "ipv6")):
        assert nhids(r1, prefixes) == {p: STATE[fam] for p in prefixes}, what
        for p in prefixes:
            assert kernel_weights(r1, p, ipv6=fam == "ipv6") == exp, (what, p)
        g = module_groups(r1)[STATE[fam]]
        assert (g["replacedInPlace"], g["replacedBeforePass"]) == (
            replaced[fam][0] + 1, replaced[fam][1] + (1 if early else 0)), (what, fam)
    lines = monitor_lines(monitor)
    assert route_events(lines, PREFIXES + PREFIXES6) == [], (what, monitor)
    group_events = [l for l in lines if re.search(r"\bid ({}|{}) group".format(
        STATE["ipv4"], STATE["ipv6"]), l)]
    assert len(group_events) == 2, (what, monitor)


# r1 sends FLOWS UDP flows of its own (one destination port each, over
# the hosts of PREFIXES), paced: the kernel's per-member counters of the
# group see each packet, and so do the uplinks' tx counters
SEND_FLOWS = """
import socket, sys, time
n, prefixes = int(sys.argv[1]), sys.argv[2].split(",")
per = int(sys.argv[3]) if len(sys.argv) > 3 else 1
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sent = 0
for _ in range(per):
    for i in range(n):
        p = prefixes[i % len(prefixes)].split("/")[0].rsplit(".", 1)[0]
        s.sendto(b"FARE", ("{}.{}".format(p, 1 + (i // len(prefixes)) % 250), 20000 + i))
        sent += 1
        if sent % 250 == 0:
            time.sleep(0.02)
print(sent)
"""
UPLINKS = ("to-r2", "to-r3")


def _send(router, flows, per_flow=1):
    "router sends `flows` UDP flows of per_flow packets each to hosts of PREFIXES."
    sent = router.run("/usr/bin/python3 -c '{}' {} {} {}".format(SEND_FLOWS, flows, ",".join(PREFIXES),
                                                                per_flow))
    assert sent.strip() == str(flows * per_flow), sent


def _traffic(router):
    return vtysh_json(router, "show bgp fare traffic json")


def _traffic_group(router, gid):
    return next((g for g in _traffic(router).get("groups", []) if g["id"] == gid), {})


def _check_traffic(r1, gid, owner, weights, flows):
    """clear bgp fare traffic, r1 sends `flows` UDP flows through group gid
    (weights {uplink: weight}); the show counts every packet, per member
    what the uplink's tx counter counted (plus BGP's own few packets), and
    each member's measured share is its weight's within sampling error."""
    r1.run("sysctl -qw net.ipv4.fib_multipath_hash_policy=1")
    r1.vtysh_cmd("clear bgp fare traffic")
    g = _traffic_group(r1, gid)
    assert g.get("owner") == owner and g.get("counted") is True, g
    assert g["packets"] == 0 and not g["countersRestarted"], g
    assert {m["interface"]: m["weight"] for m in g["members"]} == weights, g
    if owner == "fare":
        assert all(m["fareWeight"] == m["weight"] for m in g["members"]), g
    before = tx_packets(r1, UPLINKS)
    _send(r1, flows)
    time.sleep(0.5)
    after = tx_packets(r1, UPLINKS)
    j = _traffic(r1)
    g = next(g for g in j["groups"] if g["id"] == gid)
    sys.stderr.write("fare_nhg: traffic of group {} ({}): {}; tx {}\n".format(
        gid, owner, json.dumps(g), {i: after[i] - before[i] for i in UPLINKS}))
    assert g["packets"] == flows, g
    total_w = sum(weights.values())
    for m in g["members"]:
        tx = after[m["interface"]] - before[m["interface"]]
        # the member's packets left by its interface; BGP adds a keepalive
        # or two (every 3 s) and nothing else leaves r1
        assert m["packets"] <= tx <= m["packets"] + 20, (m, tx)
        assert abs(m["intendedPercent"] - 100.0 * weights[m["interface"]] / total_w) < 0.01, m
        # binomial sampling error of one flow per packet: sd < 0.8 point
        # at 4000 flows, 1.1 at 2000
        assert abs(m["deviationPoints"]) < 4, m
        assert abs(m["measuredPercent"] - 100.0 * m["packets"] / flows) < 0.01, m
    assert j["summary"]["groupsAboveThreshold"] == [], j["summary"]
    assert j["summary"]["worstDeviationPoints"] < 4, j["summary"]
    return g


def _set_bandwidth(router, ifname, mbps):
    return lambda: router.vtysh_cmd("configure terminal\ninterface {}\nbandwidth {}\n"
                                    .format(ifname, mbps))


def test_weights_change_in_place():
    "A link halved: each group replaced in place, same id, new weights, no route sent again."
    tgen = tgen_or_skip()
    if "ipv4" not in STATE:
        pytest.skip("no shared groups")
    r1 = tgen.gears["r1"]
    before = vtysh_json(r1, "show bgp fare json")["counters"]
    _change_in_place(r1, _set_bandwidth(r1, "to-r2", 5000), {"to-r2": 1, "to-r3": 2},
                     "r1's link to r2 halved", early=True)
    # The 2N prefixes share their paths, so one computation of their
    # weights serves them all (doc/developer.rst, "Results and their
    # invalidation"); the values are still counted as read for each: both
    # paths' of each prefix re-evaluated, and of the first prefix of each
    # group once more (computed to replace the group ahead of the pass).
    def counted():
        c = vtysh_json(r1, "show bgp fare json")["counters"]
        return (c["reevaluatedRoutes"] - before["reevaluatedRoutes"],
                c["receivedValues"]["valid"] - before["receivedValues"]["valid"])

    exp = (2 * N, 2 * (2 * N) + 2 * 2)
    assert wait_for(counted, exp, count=30, wait=0.1) == exp


def test_remote_change_in_place():
    "A new Path Bandwidth from r3 for every prefix: the groups replaced in place, no route sent."
    tgen = tgen_or_skip()
    if "ipv4" not in STATE:
        pytest.skip("no shared groups")
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    for mbps, exp, what in ((5000, {"to-r2": 1, "to-r3": 1}, "r3's link to r4 halved"),
                            (10000, {"to-r2": 1, "to-r3": 2}, "r3's link to r4 restored")):
        _change_in_place(r1, _set_bandwidth(r3, "to-r4", mbps), exp, what, early=False)


def _r1_shared_group():
    "The topology, r1 and its shared IPv4 group (skip when there is none)."
    tgen = tgen_or_skip()
    if "ipv4" not in STATE:
        pytest.skip("no shared groups")
    return tgen, tgen.gears["r1"], STATE["ipv4"]


def test_traffic_shares():
    "Real traffic through the 1:2 group: the kernel's per-member counters against the weights and tx."
    _, r1, gid = _r1_shared_group()
    _check_traffic(r1, gid, "fare", {"to-r2": 1, "to-r3": 2}, 4000)
    # the text show: the group, its members, the summary
    out = r1.vtysh_cmd("show bgp fare traffic")
    sys.stderr.write("fare_nhg: show bgp fare traffic:\n{}\n".format(out))
    assert re.search(r"Group {} \(FARE's, {} prefix\(es\)\): 4000 packet".format(gid, N), out), out
    assert "Summary: 2 group(s), 4000 packet(s)" in out, out
    # every member's line whole, its deviation signed (a negative one too)
    g = _traffic_group(r1, gid)
    for m in g["members"]:
        assert re.search(r"\n    {} +\S+ +{} +{} +\S+% +\S+% +[-+]\d+\.\d +{}\n".format(
            m["id"], m["interface"], m["weight"], m["packets"]), out), (m, out)
    # tools/fare-metrics --traffic: each member's packets as the show has them
    rc, text = scrape(r1, "--prefixes", "none", "--traffic")
    assert rc == 0, text
    check_format(text)
    g = _traffic_group(r1, gid)
    for m in g["members"]:
        line = 'frr_fare_traffic_member_packets{{group="{}",interface="{}",member="{}",nexthop="{}",vrf="default"}} {}'.format(
            gid, m["interface"], m["id"], m["nexthop"], m["packets"])
        assert line in text.splitlines(), (line, text)


def test_traffic_alarm():
    "bgp fare traffic-alarm: 10,000 small flows raise none; one elephant flow does, naming few flows."
    tgen, r1, gid = _r1_shared_group()
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare traffic-alarm interval 1\n")
    assert "\n bgp fare traffic-alarm interval 1\n" in r1.vtysh_cmd("show running-config")

    def alarm():
        return _traffic(r1)["alarm"]

    # the first read makes the window the next one measures
    assert wait_for(lambda: alarm()["checks"] >= 1, True) is True
    assert alarm()["enabled"] is True and alarm()["alarms"] == 0
    _send(r1, 10000)
    checks = alarm()["checks"]
    # two reads more: every packet sent counted in a window
    assert wait_for(lambda: alarm()["checks"] >= checks + 2, True) is True
    a = alarm()
    assert a["alarms"] == 0 and a["readErrors"] == 0, a

    # one flow of 3000 packets: all on one member of the 1:2 group
    _send(r1, 1, 3000)
    assert wait_for(lambda: alarm()["alarms"] >= 1, True) is True
    a = alarm()
    sys.stderr.write("fare_nhg: alarm {}\n".format(json.dumps(a)))
    assert a["last"]["group"] == gid, a
    assert a["last"]["packets"] >= 1000 and a["last"]["deviationPoints"] > 33, a
    assert "too few flows" in a["last"]["cause"], a
    log = open(os.path.join(tgen.logdir, "r1", "bgpd.log")).read()
    lines = [l for l in log.splitlines() if "traffic of nexthop group {} deviates".format(gid) in l]
    assert len(lines) == 1 and "likely cause: a member carried no packet" in lines[0], lines
    sys.stderr.write("fare_nhg: alarm logged: {}\n".format(lines[0]))

    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nno bgp fare traffic-alarm\n")
    assert "traffic-alarm" not in r1.vtysh_cmd("show running-config")
    assert alarm()["enabled"] is False


def _group_view(router):
    "{id: (prefixes, installed, sorted (interface, weight))} of the module's groups."
    return {gid: (g["prefixes"], g["installed"], sorted((m["interface"], m["weight"]) for m in g["members"]))
            for gid, g in module_groups(router).items()}


def _groups_before_restart(r1):
    """(weights, _group_view) of r1 before zebra's restart, both groups
    installed with all N prefixes at 1:2."""
    exp = {"to-r2": 1, "to-r3": 2}
    before = _group_view(r1)
    for fam in ("ipv4", "ipv6"):
        assert before[STATE[fam]] == (N, True, sorted(exp.items())), before
        assert group_members(r1, STATE[fam]) == exp
    return exp, before


def _assert_groups_back(r1, exp, before):
    """After zebra's restart: every route back on its group, the same ids
    and weights exp, and bgpd's show (before) and zebra's agree."""
    for prefixes, fam in ((PREFIXES, "ipv4"), (PREFIXES6, "ipv6")):
        got = wait_for(lambda: nhids(r1, prefixes), {p: STATE[fam] for p in prefixes}, count=60, wait=0.5)
        assert got == {p: STATE[fam] for p in prefixes}, (fam, got, r1.run("ip nexthop; ip route; ip -6 route"))
        assert wait_for(lambda: group_members(r1, STATE[fam]), exp, count=20, wait=0.5) == exp, fam
        for p in prefixes:
            assert kernel_weights(r1, p, ipv6=fam == "ipv6") == exp, (fam, p)
    # bgpd's show agrees: the same groups, installed, all prefixes on them
    assert wait_for(lambda: _group_view(r1), before) == before
    for fam in ("ipv4", "ipv6"):
        prefix = (PREFIXES if fam == "ipv4" else PREFIXES6)[1]
        j = vtysh_json(r1, "show bgp {} fare {} json".format(fam, prefix))
        assert j["prefixes"][prefix]["nexthopGroupId"] == STATE[fam]
    # zebra's own view: each group's prefixes use the group's id
    for fam, cmd in (("ipv4", "show ip route {} json"), ("ipv6", "show ipv6 route {} json")):
        prefix = (PREFIXES if fam == "ipv4" else PREFIXES6)[1]
        route = vtysh_json(r1, cmd.format(prefix))[prefix][0]
        assert route["nexthopGroupId"] == STATE[fam] and route.get("installed") is True, route


def test_zebra_restart():
    """zebra killed (SIGKILL, a crash) and started again with the saved
    configuration: bgpd reconnects, the module's groups are back in the
    kernel under the same ids with the same 1:2 weights, every route on
    them, the show agrees; a change of weights afterwards still replaces
    each group in place."""
    _, r1, _ = _r1_shared_group()
    exp, before = _groups_before_restart(r1)
    # the running configuration (to-r2's bandwidth 5000) is what zebra
    # gets back, as from a saved configuration after a crash
    r1.vtysh_cmd("write memory")
    zebra_pid = r1.run("cat /var/run/frr/zebra.pid").strip()
    t0 = time.time()
    assert r1.killDaemons(["zebra"]) == ""
    assert r1.run("kill -0 {} 2>&1 && echo alive".format(zebra_pid)).strip() != "alive"
    # the kernel keeps what the dead zebra installed
    assert group_members(r1, STATE["ipv4"]) == exp
    r1.startDaemons(["zebra"])
    out = r1.run("vtysh -b -d zebra 2>&1")
    sys.stderr.write("fare_nhg: zebra started again {:.1f} s after the kill: {}\n".format(
        time.time() - t0, out.strip()))
    assert "zebra nexthop-group keep 1" in r1.vtysh_cmd("show running-config"), out
    # bgpd reconnects (zclient's reconnect timer)
    assert wait_for(lambda: bgp_zebra_client(r1) is not None, True, count=40, wait=0.5) is True
    _assert_groups_back(r1, exp, before)
    sys.stderr.write("fare_nhg: routes on their groups again {:.1f} s after the kill\n".format(
        time.time() - t0))
    # weights changed after the restart: replaced in place again, and back
    _change_in_place(r1, _set_bandwidth(r1, "to-r2", 2500), {"to-r2": 1, "to-r3": 4},
                     "r1's link to r2 at a quarter after zebra's restart", early=True)
    _change_in_place(r1, _set_bandwidth(r1, "to-r2", 5000), exp,
                     "r1's link to r2 at half after zebra's restart", early=True)


ZEBRA_KEEP = 6  # zebra -K: seconds the routes of the previous zebra are kept


def test_zebra_graceful_restart():
    """zebra killed and started again with -K (the kernel's routes kept
    while bgpd sends its own again): no route or group of the module is
    deleted from the kernel at any time, during or after the keep time;
    afterwards every route is on its group under the same id and weights,
    zebra and the module agree, and a change of weights still replaces
    each group in place."""
    _, r1, _ = _r1_shared_group()
    exp, before = _groups_before_restart(r1)
    r1.vtysh_cmd("write memory")
    r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
    _monitor_start(r1)
    try:
        t0 = time.time()
        assert r1.killDaemons(["zebra"]) == ""
        r1.net.daemons_options["zebra"] = "-K {}".format(ZEBRA_KEEP)
        try:
            r1.startDaemons(["zebra"])
        finally:
            r1.net.daemons_options["zebra"] = ""
        out = r1.run("vtysh -b -d zebra 2>&1")
        cmdline = r1.run("cat /proc/$(cat /var/run/frr/zebra.pid)/cmdline | tr '\\0' ' '").split()
        assert cmdline[cmdline.index("-K") + 1] == str(ZEBRA_KEEP), (cmdline, out)
        assert wait_for(lambda: bgp_zebra_client(r1) is not None, True, count=40, wait=0.5) is True
        # past the keep time: what zebra did not get again is swept then
        time.sleep(max(0.0, ZEBRA_KEEP + 3 - (time.time() - t0)))
        _assert_groups_back(r1, exp, before)
    finally:
        monitor = _monitor_stop(r1)
        r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=1")
        sys.stderr.write("fare_nhg: zebra -K {}: {} monitor line(s)\n{}\n".format(
            ZEBRA_KEEP, len(monitor.splitlines()), "\n".join(monitor.splitlines()[:60])))
    lines = monitor_lines(monitor)
    ours = set(PREFIXES + PREFIXES6)
    deleted = [l for l in lines if "Deleted" in l.split()[1:2] and (
        ours & set(l.split()[2:3]) or re.search(r"\bid ({}|{}) ".format(STATE["ipv4"], STATE["ipv6"]), l))]
    assert deleted == [], monitor
    _change_in_place(r1, _set_bandwidth(r1, "to-r2", 2500), {"to-r2": 1, "to-r3": 4},
                     "r1's link to r2 at a quarter after zebra's graceful restart", early=True)
    _change_in_place(r1, _set_bandwidth(r1, "to-r2", 5000), exp,
                     "r1's link to r2 at half after zebra's graceful restart", early=True)


def _r3_withholds(r3, prefix, on):
    "r3 advertises prefix to r1 (on: not; prefix-list NOMOVER or NOMOVER6 out)."
    v6 = ":" in prefix
    neighbor_out(r3, 65003, "2001:db8:100:2::1" if v6 else "10.100.2.1", prefix,
                 "prefix-list NOMOVER" + ("6" if v6 else ""), on)


def _single_path(r1, r3, prefix, gid):
    """r3 withholds prefix: its one path via r2, which has no weight to
    change: zebra's own next hop, as without the command, off the module's
    group gid (nexthopGroupId 0). The kernel's nexthop id."""
    fam = "ipv6" if ":" in prefix else "ipv4"
    _r3_withholds(r3, prefix, True)
    one = {"to-r2": 1}
    assert wait_for(lambda: kernel_weights(r1, prefix, ipv6=fam == "ipv6"), one) == one
    single = kernel_route(r1, prefix).get("nhid")
    assert single != gid
    j = vtysh_json(r1, "show bgp {} fare {} json".format(fam, prefix))
    assert j["prefixes"][prefix]["nexthopGroupId"] == 0, j
    return single


def _back_on_group(r1, r3, prefix, gid):
    "r3 advertises prefix again: it is back on the module's group gid, with all N."
    _r3_withholds(r3, prefix, False)
    assert wait_for(lambda: kernel_route(r1, prefix).get("nhid"), gid) == gid
    assert wait_for(lambda: module_groups(r1)[gid]["prefixes"], N) == N


def test_prefix_moves_when_its_vector_changes():
    """MOVER loses its path via r3: a single path, off the module's groups;
    back: the shared one. Then its path via r3 gets another next hop: a
    group of its own; back: the shared one, its own deleted."""
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    if "ipv4" not in STATE:
        pytest.skip("no shared groups")
    gid = STATE["ipv4"]
    single = _single_path(r1, r3, MOVER, gid)
    # the others stay where they were, weights unchanged
    assert nhids(r1, PREFIXES[1:]) == {p: gid for p in PREFIXES[1:]}
    assert group_members(r1, gid) == {"to-r2": 1, "to-r3": 2}
    groups = module_groups(r1)
    assert groups[gid]["prefixes"] == N - 1
    assert single not in groups
    _single_path_sent_on_change_only(tgen.gears["r2"], r1, MOVER)
    _back_on_group(r1, r3, MOVER, gid)

    # MOVER's path via r3 with another next hop (r3's second address):
    # the same weights, another next-hop set, a group of its own
    r3.run("ip address add {}/24 dev to-r1".format(MOVER_NH))
    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\naddress-family ipv4 unicast\n"
                 "neighbor 10.100.2.1 route-map MOVERNH out\n")
    assert wait_for(lambda: kernel_route(r1, MOVER).get("nhid") != gid, True) is True
    moved = kernel_route(r1, MOVER).get("nhid")
    assert group_members(r1, moved) == {"to-r2": 1, "to-r3": 2}
    members = json.loads(r1.run("ip -j nexthop show id {}".format(moved)))[0]["group"]
    gws = {json.loads(r1.run("ip -j nexthop show id {}".format(m["id"])))[0].get("gateway")
           for m in members}
    assert gws == {"10.100.1.2", MOVER_NH}, gws
    assert nhids(r1, PREFIXES[1:]) == {p: gid for p in PREFIXES[1:]}
    groups = module_groups(r1)
    assert groups[gid]["prefixes"] == N - 1
    assert moved in groups and groups[moved]["prefixes"] == 1, groups
    STATE["moved"] = moved

    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\naddress-family ipv4 unicast\n"
                 "no neighbor 10.100.2.1 route-map MOVERNH out\n")
    assert wait_for(lambda: kernel_route(r1, MOVER).get("nhid"), gid) == gid
    assert wait_for(lambda: moved in module_groups(r1), False) is False
    assert module_groups(r1)[gid]["prefixes"] == N
    # deleted from the kernel too
    assert wait_for(lambda: r1.run("ip -j nexthop show id {} 2>/dev/null".format(moved)).strip(),
                    "") == ""
    r3.run("ip address del {}/24 dev to-r1".format(MOVER_NH))


def _single_path_sent_on_change_only(r2, r1, prefix):
    "single_path_sent_on_change_only() from r2: route-maps MOVERCOMM(6), MOVERMED(6)."
    v6 = ":" in prefix
    sfx = "6" if v6 else ""
    single_path_sent_on_change_only(r1, r2, 65002, "2001:db8:100:1::1" if v6 else "10.100.1.1",
                                    prefix, ("MOVERCOMM" + sfx, "MOVERMED" + sfx), "65002:7",
                                    "to-r2")


def test_single_ipv6_path_sent_on_change_only():
    """The same for an IPv6 prefix: MOVER6 loses its path via r3, a
    single path off the groups; a community from r2 is not sent to zebra,
    a MED is; back on the shared IPv6 group."""
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    if "ipv6" not in STATE:
        pytest.skip("no shared groups")
    gid = STATE["ipv6"]
    _single_path(r1, r3, MOVER6, gid)
    _single_path_sent_on_change_only(tgen.gears["r2"], r1, MOVER6)
    _back_on_group(r1, r3, MOVER6, gid)


def _tag_halves(r3, on):
    "r3's community on the halves of both families (route-maps FARETAG and FARETAG6)."
    no = "" if on else "no "
    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\naddress-family ipv4 unicast\n"
                 "{0}neighbor 10.100.2.1 route-map FARETAG out\nexit-address-family\n"
                 "address-family ipv6 unicast\n{0}neighbor 2001:db8:100:2::1 route-map FARETAG6 out\n"
                 .format(no))


def _tagged(r1, prefix):
    j = vtysh_json(r1, "show bgp {} unicast {} json".format("ipv6" if ":" in prefix else "ipv4", prefix))
    return any("65003:50" in p.get("community", {}).get("string", "") for p in j.get("paths", []))


def test_remote_change_of_some_prefixes():
    """A new Path Bandwidth from r3 for half the prefixes of each family:
    they move to a group of their set, the shared groups are never
    replaced; back: the halves on the shared groups again, their interim
    groups deleted."""
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    if "ipv4" not in STATE:
        pytest.skip("no shared groups")
    fams = ((PREFIXES, HALF, "ipv4"), (PREFIXES6, HALF6, "ipv6"))
    gids = [STATE[fam] for _, _, fam in fams]
    _tag_halves(r3, True)
    for _, half, _ in fams:
        assert wait_for(lambda: _tagged(r1, half[0]), True) is True, half[0]
    for prefixes, _, fam in fams:
        assert shared(r1, prefixes) == STATE[fam], fam
    # r3's value for the half halved: 1:2 (r1's link to r2 at 5G, after the
    # tests before) becomes 1:1; 1:1 (this test alone) becomes 2:1
    before = {g: group_members(r1, g) for g in gids}
    half_exp = {g: {"to-r2": 1, "to-r3": 1} if b == {"to-r2": 1, "to-r3": 2} else {
        "to-r2": 2, "to-r3": 1} for g, b in before.items()}
    replaced = {g: module_groups(r1)[g]["replacedInPlace"] for g in gids}
    r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
    _monitor_start(r1)
    moved = {}
    try:
        r3.vtysh_cmd("configure terminal\nrouter bgp 65003\n"
                     "bgp fare multihoming prefix-list FAREHALF factor 2\n")
        for (_, half, fam), gid in zip(fams, gids):
            assert wait_for(lambda: shared(r1, half) not in (None, gid), True, count=100,
                            wait=0.1) is True, (fam, nhids(r1, half))
            moved[gid] = shared(r1, half)
            assert wait_for(lambda: group_members(r1, moved[gid]), half_exp[gid]) == half_exp[gid]
    finally:
        monitor = _monitor_stop(r1)
        r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=1")
    sys.stderr.write("fare_nhg: half the prefixes changed by r3:\n{}\n".format(
        "\n".join(monitor.splitlines()[:40])))
    # the others kept their group and weights, and the groups were never
    # replaced: not in the monitor, not counted
    lines = monitor_lines(monitor)
    groups = module_groups(r1)
    for (prefixes, half, fam), gid in zip(fams, gids):
        rest = [p for p in prefixes if p not in half]
        assert nhids(r1, rest) == {p: gid for p in rest}, fam
        assert group_members(r1, gid) == before[gid], fam
        assert not [l for l in lines if re.search(r"\bid {} ".format(gid), l)], (fam, monitor)
        assert groups[gid]["replacedInPlace"] == replaced[gid], (fam, groups)
        assert (groups[gid]["prefixes"], groups[moved[gid]]["prefixes"]) == (
            N - len(half), len(half)), (fam, groups)
    # one route event per prefix of the halves, none for the others
    assert route_events(lines, PREFIXES + PREFIXES6) == sorted(HALF + HALF6), monitor

    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\n"
                 "no bgp fare multihoming prefix-list FAREHALF factor 2\n")
    _tag_halves(r3, False)
    for (prefixes, _, fam), gid in zip(fams, gids):
        assert wait_for(lambda: shared(r1, prefixes), gid) == gid, fam
        assert wait_for(lambda: moved[gid] in module_groups(r1), False) is False, fam
        assert module_groups(r1)[gid]["prefixes"] == N
        assert group_members(r1, gid) == before[gid]
        assert wait_for(lambda: r1.run("ip -j nexthop show id {} 2>/dev/null".format(
            moved[gid])).strip(), "") == "", fam


def test_knob_off_and_config():
    "no bgp fare nexthop-groups: zebra's own groups again, the module's deleted."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    assert "\n bgp fare nexthop-groups\n" in r1.vtysh_cmd("show running-config")
    assert vtysh_json(r1, "show bgp fare json")["config"]["nexthopGroups"] is True
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nno bgp fare nexthop-groups\n")
    assert wait_for(lambda: module_groups(r1), {}) == {}
    assert "bgp fare nexthop-groups" not in r1.vtysh_cmd("show running-config")
    for p in PREFIXES:
        assert kernel_weights(r1, p) == {"to-r2": 1, "to-r3": 2}, p
    j = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIXES[1]))
    assert j["prefixes"][PREFIXES[1]]["nexthopGroupId"] == 0
    # the traffic of the group of the routes as the kernel's table has it
    # (RTA_NH_ID; the routes may stay on the id the module's group had):
    # one group for the N IPv4 prefixes
    zgid = shared(r1, PREFIXES)
    assert zgid, nhids(r1, PREFIXES)
    assert _traffic(r1)["groupsOf"] == "zebra"
    g = _check_traffic(r1, zgid, "zebra", {"to-r2": 1, "to-r3": 2}, 2000)
    assert g["prefixes"] == N, g
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare nexthop-groups\n")
    assert wait_for(lambda: shared(r1, PREFIXES) in module_groups(r1), True) is True


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
