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
printed side by side. The fabric and the steps are fare.scenarios', which
the demo (scripts/demo.sh clos) runs too.

Then the kernel's per-member counters of leaf2's group towards h1 and
FARE's traffic alarm (issue 25): leaf2's link bandwidths overridden to
100:100:200:200G (`neighbor to-sN fare link-bandwidth`) make its weights
1:1:2:2 (FARE-4: min(link, path)); `bgp fare traffic-alarm threshold 5
min-packets 2000 interval 3`, leaf2's hash seed fixed
(net.ipv4.fib_multipath_hash_seed), each case sent within one window of
the alarm (the command again restarts it: a read at once, the next one
interval seconds later):
- 10,000 small flows (one packet each): no alarm; `show bgp fare traffic`
  counts all 10,000 in the group of 172.16.1.0/24, each member what its
  uplink's tx_packets counted (the sessions' own packets aside), measured
  shares within 2.5 points of 1/6, 1/6, 1/3, 1/3 (binomial sd < 0.5);
- four elephant flows (1000 packets each): each flow on one member, one
  alarm exactly, over the 4000 packets, with the deviation the counters
  give, and one line in bgpd.log. Its cause is "a member carried no
  packet: too few flows ..." where the hash left a member without a
  flow, else "every member carried traffic ...: hash polarization ...":
  which members the four flows take depends on the members' order in
  the kernel group, which follows the spines' link-local addresses, new
  in each run (both have been seen).
`show bgp ipv4|ipv6 fare PREFIX traffic json` gives the kernel group of
h1's subnet (IPv4 and IPv6) with its members' weights 1:1:2:2, and after
each case the same group, packets and shares as `show bgp fare traffic`;
a prefix with no BGP route on a group says so, and one on a single next
hop (spine1's towards h1) names its nexthop object.
"""

import json
import os
import sys
import time
import pytest

# pylint: disable=C0413
from fare.common import SENDER, kernel_nexthop, kernel_weights, report, tgen_or_skip, tx_packets, vtysh_json, wait_for
from fare.scenarios import (check_plain_ecmp_shows_the_imbalance, check_traffic_split_follows_weights,
                            check_weights_in_kernel, start_traffic_fabric, stop_fabric, UPLINKS)

pytestmark = [pytest.mark.bgpd]

RESULTS = {}

setup_module = start_traffic_fabric
teardown_module = stop_fabric


def test_weights_in_kernel():
    "leaf2 installs 2:2:2:1 for h1's subnet (800,800,800,400 Gb/s)."
    check_weights_in_kernel(tgen_or_skip(), RESULTS)


def test_traffic_split_follows_weights():
    "Measured per-uplink shares are within 3 points of 2:2:2:1 (28.6/28.6/28.6/14.3%)."
    check_traffic_split_follows_weights(tgen_or_skip(), RESULTS)


def test_plain_ecmp_shows_the_imbalance():
    "FARE off at leaf2: ECMP 1:1:1:1, a quarter of the flows on the 400G path."
    check_plain_ecmp_shows_the_imbalance(tgen_or_skip(), RESULTS)


# -- the kernel's counters and the alarm: elephants against mice ----------

H1 = "172.16.1.10"
H1_NET = "172.16.1.0/24"
H1_NET6 = "2001:db8:1::/64"
# leaf2's link bandwidths (FARE-3 overrides) and the weights they give
# (FARE-4: min(link, what spine j advertises: 800, 800, 800, 400))
LINK_BW = {"to-s1": "100G", "to-s2": "100G", "to-s3": "200G", "to-s4": "200G"}
W1122 = {"to-s1": 1, "to-s2": 1, "to-s3": 2, "to-s4": 2}
# deterministic and quick: a deviation over 5 points counts over 2000
# packets or more; four elephant flows over 1:1:2:2 deviate 8.3 points at
# the least (each member a multiple of 25 %), 10,000 small flows by far
# less (sd < 0.5 point)
ALARM = "bgp fare traffic-alarm threshold 5 min-packets 2000 interval 3"
# the seed of leaf2's multipath hash (Linux 6.11+): the same hash of the
# same flows in every run (the member each takes also depends on the
# members' order in the group: test_elephant_flows_alarm)
HASH_SEED = 25
FEW_FLOWS = ("a member carried no packet: too few flows, or flows too large, "
             "for the hash to follow the weights")
POLARIZATION = ("every member carried traffic, not in the weights' proportions: hash "
                "polarization with a tier that hashes alike (per-device hash seeds, "
                "net.ipv4.fib_multipath_hash_seed)")


def _leaf2_bgp(leaf2, lines):
    leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\n" + "\n".join(lines) + "\n")


def _traffic(leaf2):
    return vtysh_json(leaf2, "show bgp fare traffic json")


def _h1_group(leaf2, family=4):
    "The kernel nexthop group of h1's subnet at leaf2."
    nhid, group = kernel_nexthop(leaf2, H1_NET if family == 4 else H1_NET6)
    assert group, nhid
    return nhid


def _group(j, gid):
    return next((g for g in j.get("groups", []) if g["id"] == gid), {})


def _prefix_traffic(leaf2, prefix):
    return vtysh_json(leaf2, "show bgp {} fare {} traffic json".format(
        "ipv6" if ":" in prefix else "ipv4", prefix))


def test_alarm_setup_weights_1_1_2_2():
    "leaf2 overrides its link bandwidths: 1:1:2:2 towards h1; the alarm on."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    _leaf2_bgp(leaf2, ["neighbor {} fare link-bandwidth {}".format(i, bw) for i, bw in LINK_BW.items()])
    assert wait_for(lambda: kernel_weights(leaf2, H1_NET), W1122) == W1122
    leaf2.run("sysctl -w net.ipv4.fib_multipath_hash_seed={}".format(HASH_SEED))
    assert leaf2.run("sysctl -n net.ipv4.fib_multipath_hash_seed").strip() == str(HASH_SEED)
    _leaf2_bgp(leaf2, [ALARM])
    assert "\n " + ALARM + "\n" in leaf2.vtysh_cmd("show running-config")
    j = _traffic(leaf2)
    # zebra's groups, or the module's where the suite runs with them on
    # (FARE_TEST_NEXTHOP_GROUPS=1, FRR 10.7)
    groups_of = "bgp fare nexthop-groups" if "\n bgp fare nexthop-groups\n" in leaf2.vtysh_cmd(
        "show running-config") else "zebra"
    assert j["countersSupported"] is True and j["groupsOf"] == groups_of, j
    g = _group(j, _h1_group(leaf2))
    assert {m["interface"]: m["weight"] for m in g["members"]} == W1122, g
    # the prefix's view: its kernel group, the members' weights and shares
    for prefix, nhid in ((H1_NET, _h1_group(leaf2)), (H1_NET6, _h1_group(leaf2, 6))):
        p = _prefix_traffic(leaf2, prefix)
        assert p["prefix"] == prefix and p["nexthopGroupId"] == nhid, p
        assert p["countersSupported"] is True and p["group"]["id"] == nhid, p
        members = p["group"]["members"]
        assert {m["interface"]: m["weight"] for m in members} == W1122, p
        assert {m["interface"]: round(m["intendedPercent"], 2) for m in members} == {
            "to-s1": 16.67, "to-s2": 16.67, "to-s3": 33.33, "to-s4": 33.33}, p
    # leaf2's own subnet: connected in the kernel, on no group
    p = _prefix_traffic(leaf2, "172.16.2.0/24")
    assert p["nexthopGroupId"] == 0 and "group" not in p and "no BGP route" in p["reason"], p
    # spine1's route towards h1: one next hop, a nexthop object of its own
    # (with the module's groups too: a single next hop is on none of them)
    spine1 = tgen.gears["spine1"]
    nhid, group = kernel_nexthop(spine1, H1_NET)
    assert nhid and group is False, (nhid, group)
    p = _prefix_traffic(spine1, H1_NET)
    assert p["nexthopGroupId"] == 0 and p["nexthopId"] == nhid and "group" not in p, p
    assert "one next hop (kernel nexthop {}), no group".format(nhid) in spine1.vtysh_cmd(
        "show bgp ipv4 fare {} traffic".format(H1_NET))
    out = leaf2.vtysh_cmd("show bgp ipv4 fare 2001:db8:1::/64 traffic")
    assert "% Prefix 2001:db8:1::/64 is not IPv4" in out, out
    # resolve h1's and h2's neighbours before any count
    tgen.gears["h2"].run("ping -c 2 -i 0.2 -W 1 {}".format(H1))


def _in_one_window(leaf2, send):
    """Restart the alarm's window (the command again: the alarm off, then
    on: a read at once), send() within it, wait for the read that ends it.
    Returns the alarm's JSON as the window started and as it ended."""
    _leaf2_bgp(leaf2, ["no bgp fare traffic-alarm"])
    checks = _traffic(leaf2)["alarm"]["checks"]
    _leaf2_bgp(leaf2, [ALARM])
    assert wait_for(lambda: _traffic(leaf2)["alarm"]["checks"], checks + 1, count=50, wait=0.1) == checks + 1
    t0 = time.time()
    start = _traffic(leaf2)["alarm"]
    send()
    assert _traffic(leaf2)["alarm"]["checks"] == checks + 1, "sending outlasted the alarm's interval"
    sys.stderr.write("fare_traffic: sent in {:.2f} s\n".format(time.time() - t0))
    assert wait_for(lambda: _traffic(leaf2)["alarm"]["checks"], checks + 2, count=60, wait=0.2) == checks + 2
    return start, _traffic(leaf2)["alarm"]


def _send(h2, flows, per_flow, sport_base):
    out = h2.run("/usr/bin/python3 {} {} {} {} 9 {}".format(SENDER, H1, flows, sport_base, per_flow))
    assert out.strip() == str(flows * per_flow), out


def _counted(tgen, flows, per_flow, sport_base):
    """clear bgp fare traffic; h2 sends flows x per_flow packets to h1
    within one window of the alarm. The group of h1's subnet counts every
    packet, each member what its uplink's tx_packets counted (BGP's own
    packets aside). Returns (group's JSON, alarm at start, at end)."""
    leaf2, h2 = tgen.gears["leaf2"], tgen.gears["h2"]
    gid = _h1_group(leaf2)
    leaf2.vtysh_cmd("clear bgp fare traffic")
    before = tx_packets(leaf2, UPLINKS)
    start, end = _in_one_window(leaf2, lambda: _send(h2, flows, per_flow, sport_base))
    after = tx_packets(leaf2, UPLINKS)
    g = _group(_traffic(leaf2), gid)
    # the prefix's view: the same group, the same counts
    p = _prefix_traffic(leaf2, H1_NET)
    assert p["nexthopGroupId"] == gid and p["group"] == g, (p, g)
    sys.stderr.write("fare_traffic: show bgp ipv4 fare {} traffic:\n{}\n".format(
        H1_NET, leaf2.vtysh_cmd("show bgp ipv4 fare {} traffic".format(H1_NET))))
    sys.stderr.write("fare_traffic: {} flow(s) x {}: group {} {}; tx {}; alarm {}\n".format(
        flows, per_flow, gid, json.dumps(g), {i: after[i] - before[i] for i in UPLINKS}, json.dumps(end)))
    assert g["packets"] == flows * per_flow, g
    assert {m["interface"]: m["weight"] for m in g["members"]} == W1122, g
    for m in g["members"]:
        tx = after[m["interface"]] - before[m["interface"]]
        # keepalives (every 3 s) and router advertisements
        assert m["packets"] <= tx <= m["packets"] + 20, (m, tx)
        assert abs(m["intendedPercent"] - 100.0 * W1122[m["interface"]] / 6) < 0.01, m
    return g, start, end


def test_small_flows_no_alarm():
    "10,000 small flows over 1:1:2:2: shares within sampling error, no alarm."
    tgen = tgen_or_skip()
    g, start, end = _counted(tgen, 10000, 1, 10000)
    for m in g["members"]:
        # binomial sd of a share of 1/3 over 10,000 flows: 0.47 point
        assert abs(m["deviationPoints"]) < 2.5, m
    assert end["alarms"] == start["alarms"] and end["readErrors"] == start["readErrors"], (start, end)
    report("fare_traffic: 10,000 small flows over 1:1:2:2: " + ", ".join(
        "{} {} ({:.1f}%)".format(m["interface"], m["packets"], m["measuredPercent"])
        for m in sorted(g["members"], key=lambda m: m["interface"])) + "; no alarm")


def test_elephant_flows_alarm():
    "Four elephant flows over 1:1:2:2: one alarm, logged once, its cause by whether a member carried nothing."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    g, start, end = _counted(tgen, 4, 1000, 30000)
    packets = {m["interface"]: m["packets"] for m in g["members"]}
    # each flow on one member: shares in quarters, never 1:1:2:2 (at
    # least 8.3 points off). Which member each flow takes also depends on
    # the members' order in the kernel group, which follows the spines'
    # link-local addresses, new in each run: the module names the cause
    # by whether a member carried nothing.
    assert all(p % 1000 == 0 for p in packets.values()), packets
    worst = max(abs(m["deviationPoints"]) for m in g["members"])
    assert worst > 100.0 / 12 - 0.01, g
    cause = FEW_FLOWS if 0 in packets.values() else POLARIZATION
    assert end["alarms"] == start["alarms"] + 1, (start, end)
    last = end["last"]
    assert last["group"] == g["id"] and last["packets"] == 4000, last
    assert abs(last["deviationPoints"] - worst) < 0.01, (last, g)
    assert last["cause"] == cause, last
    log = open(os.path.join(tgen.logdir, "leaf2", "bgpd.log")).read()
    lines = [l for l in log.splitlines() if "traffic of nexthop group {} deviates".format(g["id"]) in l]
    assert len(lines) == 1, lines
    assert "over 4000 packets" in lines[0] and "likely cause: " + cause in lines[0], lines
    report("fare_traffic: 4 elephant flows x 1000 packets over 1:1:2:2: {}; alarm: {}".format(
        packets, lines[0].split("FARE: ", 1)[-1]))
    _leaf2_bgp(leaf2, ["no bgp fare traffic-alarm"])
    assert "traffic-alarm" not in leaf2.vtysh_cmd("show running-config")


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
