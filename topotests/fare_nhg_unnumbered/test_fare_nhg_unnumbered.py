#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_nhg_unnumbered.py: shared nexthop groups ("bgp fare
nexthop-groups") with 4-octet AS numbers and unnumbered sessions, the
other side of fare_nhg (2-octet AS numbers, numbered sessions).

            +--10G-- r2 (AS 4200000002) --10G--+
            |                                  |
  r1 (AS 4200000001)                           r4 (AS 4200000004),
            |                                  |  originates PREFIXES
            +--10G-- r3 (AS 4200000003) --10G--+  (IPv4 and IPv6, 10G)

One session per link, on its interface (`neighbor to-rX interface`, no
address on any link): IPv4 and IPv6 unicast over IPv6 link-local next
hops (RFC 5549). Link bandwidths are zebra's interface `bandwidth`
(FARE-3), but r1's, set on its neighbors by their interface names (the
same 10G: `neighbor to-r2 fare link-bandwidth 10G`). r1 has `bgp fare
nexthop-groups`.

1. The sessions are up with their 4-octet AS numbers. The N prefixes of
   each family have the same next hops, link-local IPv6 gateways (RFC
   5549 for IPv4): all 2N share ONE kernel nexthop group of the module,
   weights 1:1 (numbered sessions give one group per family: fare_nhg).
   r1's 4 FARE lines, read at start as a whole, made one pass over its
   table (tableWalks 1; one pass per line was 4).
2. A remote event: r3's link to r4 halved. r3 advertises a new Path
   Bandwidth (5G, FARE-5), written with its 4-octet AS (FARE-1): r1
   weighs 2:1 (FARE-4). The group is replaced in place: the same id,
   `ip -ts monitor` (nexthop_compat_mode 0) sees one nexthop event for
   it and no route event. Restored: 1:1 the same way.
3. A new Path Bandwidth from r3 for half the prefixes of each family
   (`bgp fare multihoming prefix-list FAREHALF factor 2`: 5G for them),
   which r3 sends with a large community of its own (route-maps FARETAG
   and FARETAG6 out, `4200000003:0:50`), as prefixes of another origin
   come with attributes of their own: r1 weighs the halves 2:1 and they
   move to a group of their own (one for both families); the shared
   group is never replaced (no monitor event, `replacedInPlace`
   unchanged), one route event per prefix of the halves. The factor
   removed: the halves back on the shared group, their interim group
   deleted.
4. r3 withholds one prefix of each family (prefix-lists NOSINGLE and
   NOSINGLE6 out): each has a single path, via r2's link-local gateway,
   off the module's groups. r2 adds a community to it (route-maps
   SINGLECOMM and SINGLECOMM6 out): zebra does not get communities, so
   nothing is sent to zebra (its counts of the family's adds and updates
   from bgpd unchanged, the module's notSentUnchanged one more); r2 sends
   a MED instead (SINGLEMED, SINGLEMED6), zebra's metric of the route:
   sent. Back on the shared group after. fare_nhg does the same with
   numbered sessions and 2-octet AS numbers.

VRFs: this machine's kernel has no VRF devices; FRR's VRFs are network
namespaces there, where zebra installs routes without kernel nexthop
objects. fare_vrf_netns covers the module's groups in such a VRF.
"""

import ipaddress
import re
import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Fabric
from fare.nhg import (group_members, kernel_route, module_groups, monitor_lines, monitor_start,
                      monitor_stop, neighbor_out, nhids, route_events, shared,
                      single_path_sent_on_change_only, start_nhg_fabric)

pytestmark = [pytest.mark.bgpd]

N = 6
PREFIXES = ["172.16.{}.0/24".format(i) for i in range(N)]
PREFIXES6 = ["2001:db8:16:{:x}::/64".format(i) for i in range(N)]
HALF = PREFIXES[N // 2:]
HALF6 = PREFIXES6[N // 2:]
ALL = PREFIXES + PREFIXES6
HALVES = HALF + HALF6
# step 4's prefixes, one of each family, as FRR writes them (the keys of
# its JSON shows)
SINGLES = [str(ipaddress.ip_network(p)) for p in (PREFIXES[0], PREFIXES6[0])]
ASN = {"r1": 4200000001, "r2": 4200000002, "r3": 4200000003, "r4": 4200000004}
TAG = "4200000003:0:50"
FABRIC = Fabric(
    ASN,
    [("r1", "r2", 10), ("r1", "r3", 10), ("r2", "r4", 10), ("r3", "r4", 10)],
    originate={"r4": PREFIXES + PREFIXES6},
    # the neighbors' lines name their interfaces (the link's 10G again):
    # the configuration read at start makes one pass (test 1)
    fare_lines={"r1": [" bgp fare", " bgp fare nexthop-groups",
                       " neighbor to-r2 fare link-bandwidth 10G",
                       " neighbor to-r3 fare link-bandwidth 10G"]},
    extra={"r3": ["!"] +
                 ["ip prefix-list FAREHALF seq {} permit {}".format(5 * i, p)
                  for i, p in enumerate(HALF, 1)] +
                 ["ipv6 prefix-list FAREHALF seq {} permit {}".format(5 * i, p)
                  for i, p in enumerate(HALF6, 1)] +
                 ["route-map FARETAG permit 10", " match ip address prefix-list FAREHALF",
                  " set large-community " + TAG, "exit", "route-map FARETAG permit 20", "exit",
                  "route-map FARETAG6 permit 10", " match ipv6 address prefix-list FAREHALF",
                  " set large-community " + TAG, "exit", "route-map FARETAG6 permit 20", "exit",
                  "ip prefix-list NOSINGLE seq 5 deny {}".format(SINGLES[0]),
                  "ip prefix-list NOSINGLE seq 10 permit any",
                  "ipv6 prefix-list NOSINGLE6 seq 5 deny {}".format(SINGLES[1]),
                  "ipv6 prefix-list NOSINGLE6 seq 10 permit any"],
           # step 4: a community (zebra does not get it) or a MED (zebra's
           # metric) of r2's own on the single paths
           "r2": ["!", "ip prefix-list SINGLE seq 5 permit {}".format(SINGLES[0]),
                  "ipv6 prefix-list SINGLE6 seq 5 permit {}".format(SINGLES[1])] +
                 [line for sfx, ip in (("", "ip"), ("6", "ipv6"))
                  for name, action in (("COMM", "community 65002:7"), ("MED", "metric 55"))
                  for line in ("route-map SINGLE{}{} permit 10".format(name, sfx),
                               " match {} address prefix-list SINGLE{}".format(ip, sfx),
                               " set " + action, "exit",
                               "route-map SINGLE{}{} permit 20".format(name, sfx), "exit")],
           # zebra deletes a group no route uses after this (180 s by default)
           "r1": ["!", "zebra nexthop-group keep 1", "debug bgp fare"],
           # a finite value from the origin, which r3's factor divides
           "r4": [" bgp fare originate 10G"]},
    link_config="interface",
    unnumbered=True,
)
MONITOR = "/tmp/fare_nhg_unnumbered_monitor.txt"
STATE = {}


def setup_module(mod):
    start_nhg_fabric(mod, FABRIC)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _sessions(router):
    "{neighbor: (state, remote AS)} of `show bgp summary json`, both families."
    out = {}
    summary = vtysh_json(router, "show bgp summary json")
    for fam in ("ipv4Unicast", "ipv6Unicast"):
        for name, p in summary.get(fam, {}).get("peers", {}).items():
            out[(fam, name)] = (p.get("state"), p.get("remoteAs"))
    return out


def _v6(prefix):
    return ":" in prefix


def test_sessions_and_shared_group():
    """Unnumbered sessions with 4-octet AS numbers; the prefixes of both
    families share one group of the module, 1:1, over link-local
    gateways."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exp = {(fam, ifname): ("Established", ASN[peer]) for fam in ("ipv4Unicast", "ipv6Unicast")
           for ifname, peer in (("to-r2", "r2"), ("to-r3", "r3"))}
    assert wait_for(lambda: _sessions(r1), exp, count=90) == exp
    weights = {"to-r2": 1, "to-r3": 1}
    for p in ALL:
        assert wait_for(lambda: kernel_weights(r1, p, ipv6=_v6(p)), weights) == weights, p
    assert wait_for(lambda: shared(r1, ALL) in module_groups(r1), True) is True, nhids(r1, ALL)
    gid = shared(r1, ALL)
    assert wait_for(lambda: module_groups(r1)[gid]["prefixes"], 2 * N) == 2 * N, module_groups(r1)
    assert group_members(r1, gid) == weights
    for p in (PREFIXES[0], PREFIXES6[0]):
        gateways = kernel_weights(r1, p, ipv6=_v6(p), key="gateway")
        assert len(gateways) == 2 and all(g.startswith("fe80:") for g in gateways), (p, gateways)
    STATE["gid"] = gid
    # r1's 4 FARE lines, 2 of them on neighbors named by their
    # interfaces, read at start: one pass over the table
    j = vtysh_json(r1, "show bgp fare json")
    links = {n: j["config"]["neighbors"][n]["linkBandwidthBytesPerSec"] for n in ("to-r2", "to-r3")}
    assert links == {"to-r2": 1.25e9, "to-r3": 1.25e9}, j["config"]["neighbors"]
    assert j["counters"]["tableWalks"] == 1, j["counters"]


def _set_bandwidth(router, ifname, mbps):
    router.vtysh_cmd("configure terminal\ninterface {}\nbandwidth {}\n".format(ifname, mbps))


def _replaced(r1, gid):
    return module_groups(r1)[gid]["replacedInPlace"]


def _gid():
    tgen = tgen_or_skip()
    if "gid" not in STATE:
        pytest.skip("no shared group")
    return tgen, STATE["gid"]


@pytest.mark.parametrize("mbps,exp", [(5000, {"to-r2": 2, "to-r3": 1}),
                                      (10000, {"to-r2": 1, "to-r3": 1})])
def test_remote_change_in_place(mbps, exp):
    """r3's link to r4 at mbps: a new Path Bandwidth from r3 for every
    prefix, the group replaced in place, no route sent again."""
    tgen, gid = _gid()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    replaced = _replaced(r1, gid)
    r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
    monitor_start(r1, MONITOR)
    try:
        _set_bandwidth(r3, "to-r4", mbps)
        assert wait_for(lambda: group_members(r1, gid), exp, count=100, wait=0.1) == exp
    finally:
        monitor = monitor_stop(r1, MONITOR)
        r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=1")
    sys.stderr.write("fare_nhg_unnumbered: r3's link to r4 at {} Mb/s:\n{}\n".format(mbps, monitor))
    lines = monitor_lines(monitor)
    assert nhids(r1, ALL) == {p: gid for p in ALL}
    for p in ALL:
        assert kernel_weights(r1, p, ipv6=_v6(p)) == exp, p
    assert _replaced(r1, gid) == replaced + 1
    assert route_events(lines, ALL) == [], monitor
    assert len([l for l in lines if re.search(r"\bid {} group".format(gid), l)]) == 1, monitor


def _tag_halves(r3, on):
    "r3's large community on the halves of both families (FARETAG, FARETAG6)."
    no = "" if on else "no "
    r3.vtysh_cmd("configure terminal\nrouter bgp {1}\naddress-family ipv4 unicast\n"
                 "{0}neighbor to-r1 route-map FARETAG out\nexit-address-family\n"
                 "address-family ipv6 unicast\n{0}neighbor to-r1 route-map FARETAG6 out\n"
                 .format(no, ASN["r3"]))


def _tagged(r1, prefix):
    j = vtysh_json(r1, "show bgp {} unicast {} json".format("ipv6" if _v6(prefix) else "ipv4", prefix))
    return any(TAG in p.get("largeCommunity", {}).get("string", "") for p in j.get("paths", []))


def test_remote_change_of_some_prefixes():
    """A new Path Bandwidth from r3 for half the prefixes of each family:
    the halves move to a group of their own at 2:1, the shared group is
    never replaced; back: the halves on the shared group again, their
    interim group deleted."""
    tgen, gid = _gid()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    _tag_halves(r3, True)
    for p in (HALF[0], HALF6[0]):
        assert wait_for(lambda: _tagged(r1, p), True) is True, p
    assert shared(r1, ALL) == gid
    same = {"to-r2": 1, "to-r3": 1}
    half_exp = {"to-r2": 2, "to-r3": 1}
    replaced = _replaced(r1, gid)
    r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
    monitor_start(r1, MONITOR)
    try:
        r3.vtysh_cmd("configure terminal\nrouter bgp {}\n"
                     "bgp fare multihoming prefix-list FAREHALF factor 2\n".format(ASN["r3"]))
        assert wait_for(lambda: shared(r1, HALVES) not in (None, gid), True, count=100,
                        wait=0.1) is True, nhids(r1, HALVES)
        moved = shared(r1, HALVES)
        assert wait_for(lambda: group_members(r1, moved), half_exp) == half_exp
    finally:
        monitor = monitor_stop(r1, MONITOR)
        r1.run("sysctl -qw net.ipv4.nexthop_compat_mode=1")
    sys.stderr.write("fare_nhg_unnumbered: half the prefixes changed by r3:\n{}\n".format(monitor))
    lines = monitor_lines(monitor)
    groups = module_groups(r1)
    rest = [p for p in ALL if p not in HALVES]
    assert nhids(r1, rest) == {p: gid for p in rest}
    assert group_members(r1, gid) == same
    assert not [l for l in lines if re.search(r"\bid {} ".format(gid), l)], monitor
    assert (groups[gid]["prefixes"], groups[moved]["prefixes"]) == (len(rest), len(HALVES)), groups
    assert _replaced(r1, gid) == replaced, groups
    assert route_events(lines, ALL) == sorted(HALVES), monitor

    r3.vtysh_cmd("configure terminal\nrouter bgp {}\n"
                 "no bgp fare multihoming prefix-list FAREHALF factor 2\n".format(ASN["r3"]))
    _tag_halves(r3, False)
    assert wait_for(lambda: shared(r1, ALL), gid) == gid
    assert wait_for(lambda: moved in module_groups(r1), False) is False
    assert module_groups(r1)[gid]["prefixes"] == 2 * N
    assert group_members(r1, gid) == same
    assert wait_for(lambda: r1.run("ip -j nexthop show id {} 2>/dev/null".format(moved)).strip(),
                    "") == ""


@pytest.mark.parametrize("prefix", SINGLES)
def test_single_path_sent_on_change_only(prefix):
    """prefix on its one path via r2 (r3 withholds it), over r2's
    link-local gateway (RFC 5549 for IPv4), off the module's groups: a
    community from r2 is not sent to zebra, a MED is; back on the shared
    group."""
    tgen, gid = _gid()
    r1, r2, r3 = tgen.gears["r1"], tgen.gears["r2"], tgen.gears["r3"]
    fam = "ipv6" if _v6(prefix) else "ipv4"
    nosingle = "prefix-list NOSINGLE" + ("6" if _v6(prefix) else "")
    neighbor_out(r3, ASN["r3"], "to-r1", prefix, nosingle, True)
    one = {"to-r2": 1}
    assert wait_for(lambda: kernel_weights(r1, prefix, ipv6=_v6(prefix)), one) == one
    assert kernel_route(r1, prefix).get("nhid") != gid
    gateway = list(kernel_weights(r1, prefix, ipv6=_v6(prefix), key="gateway"))
    assert len(gateway) == 1 and gateway[0].startswith("fe80:"), gateway
    j = vtysh_json(r1, "show bgp {} fare {} json".format(fam, prefix))
    assert j["prefixes"][prefix]["nexthopGroupId"] == 0, j
    sfx = "6" if _v6(prefix) else ""
    single_path_sent_on_change_only(r1, r2, ASN["r2"], "to-r1", prefix,
                                    ("SINGLECOMM" + sfx, "SINGLEMED" + sfx), "65002:7", "to-r2")
    neighbor_out(r3, ASN["r3"], "to-r1", prefix, nosingle, False)
    assert wait_for(lambda: shared(r1, ALL), gid) == gid
    assert wait_for(lambda: module_groups(r1)[gid]["prefixes"], 2 * N) == 2 * N


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
