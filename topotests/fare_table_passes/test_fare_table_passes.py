#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_table_passes.py: the module's passes over the whole table at
100,000 IPv4 and 100,000 IPv6 prefixes, in tasks of at most 20 ms
(doc/user/fare.rst "Sessions that come and go").

                        +--300G-- to-r2-1 --+
  r3 (4200000003) --1000G-- r1 (4200000001)  r2 (4200000002): 100,000
  r4 (4200000004) --1000G--/  averaged       |  IPv4 /32s and 100,000
                        +--100G-- to-r2-2 --+   IPv6 /128s (sharpd,
                                                redistributed),
                                                bgp fare originate

4-octet ASNs; one IPv4 and one IPv6 session (global addresses) per link.
Link bandwidths are zebra's interface `bandwidth` (FARE-3). r1 runs in
averaged mode with `bgp fare hold-down 0` and `debug bgp fare`.

1. r1 installs the prefixes of both families in its kernel with weights
   3:1 (FARE-4); r3 receives each with the averaged value (WP-2): the sum
   of the received Path Bandwidths, 400G, over N = 2 outgoing sessions of
   the family (r3's and r4's; r2's are those the route came over): 200G.
2. r1's second link to r2 at 200G: the re-evaluation walks every route in
   averaged mode, once, the IPv4 table and then the IPv6 one: its debug
   line says "200000 of 200000 route(s) re-evaluated in K task(s)" (K is
   printed: here the walk itself, which only queues each route for bgpd,
   takes one or two tasks of 20 ms at this size); the kernel holds 3:2 for
   every prefix, and r3 gets 500G / 2 = 250G for each of them (`show bgp
   ipv4 fare json`, `show bgp ipv6 fare json`).
2b. Two FARE lines read as a whole (`vtysh -f`: `bgp fare mode draft`
   and `bgp fare mode averaged`), with the 200,000 routes selected: one
   pass over both tables (tableWalks one more), each route re-evaluated
   once (reevaluatedRoutes 200,000 more, one debug line "200000 of
   200000"); the kernel keeps 3:2 and r3 250G.
3. r1 shuts both its sessions to r4: N = 1 in each family, and the
   re-announcement builds every route again for each update sub-group of
   both families, in tasks: its debug line "routes re-announced to S
   update sub-group(s) in T task(s)" has T larger than S (a sub-group's
   table spans tasks, each resuming after the last prefix done, the walk
   the re-evaluation uses too); r3 gets 500G for every prefix, and r1's
   kernel keeps 3:2 (nothing is sent to zebra for N). The sessions back:
   250G again for every prefix. r4's new update sub-groups share r3's
   update groups (the same link speed): the pass keeps every sub-group
   from merging until it is through it (once, before, r3 kept 500G for
   the prefixes a pass had not reached when the sub-groups merged).
"""

import json
import os
import re
import sys
import time

import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.benchlib import (SHARP_ROUTES, SHARP_ROUTES6, add_prefix_host, bgp_route_count,
                           kernel_weights_by_group, kill_every_bgpd)
from fare.common import GBPS, VALUE_COUNTS, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

N = 100000
BASE = {False: "10.201.0.0", True: "2001:db8:2::"}
NEXTHOP = {False: "192.0.2.2", True: "2001:db8:ffff::2"}
# the first, a middle and the last of each family's prefixes
SAMPLES = {False: ["10.201.0.0/32", "10.201.195.80/32", "10.202.134.159/32"],
           True: ["2001:db8:2::/128", "2001:db8:2::c350/128", "2001:db8:2::1:869f/128"]}
FAMILIES = (False, True)  # ipv6
FABRIC = Fabric(
    {"r1": 4200000001, "r2": 4200000002, "r3": 4200000003, "r4": 4200000004},
    [("r1", "r2", 300), ("r1", "r2", 100), ("r1", "r3", 1000), ("r1", "r4", 1000)],
    fare_lines={"r1": [" bgp fare", " bgp fare mode averaged", " bgp fare hold-down 0"],
                "r2": [" bgp fare", " bgp fare originate"]},
    extra={"r2": [" address-family ipv4 unicast", "  redistribute sharp", " exit-address-family",
                  " address-family ipv6 unicast", "  redistribute sharp", " exit-address-family"]},
    link_config="interface",
)
R4 = [FABRIC.neighbor("r1", "r4", ipv6) for ipv6 in FAMILIES]


def config_of(name):
    return ("debug bgp fare\n" if name == "r1" else "") + FABRIC.config(name)


def daemons_of(name):
    daemons = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, "-M fare")]
    if name == "r2":
        daemons.append((TopoRouter.RD_SHARP, None))
    return daemons


def prepare(tgen):
    add_prefix_host(tgen.gears["r2"])


def setup_module(mod):
    tgen = start_fabric(mod, FABRIC, config_of, daemons_of, prepare=prepare)
    r2 = tgen.gears["r2"]
    # sharpd installs one batch at a time: each family's after the other
    for ipv6 in FAMILIES:
        r2.vtysh_cmd("sharp install routes {} nexthop {} {}".format(BASE[ipv6], NEXTHOP[ipv6], N))
        count = SHARP_ROUTES6 if ipv6 else SHARP_ROUTES
        assert wait_for(lambda: int(r2.run(count)), N, count=120) == N


def teardown_module(_mod):
    # every bgpd first, and the kernel left to drop the routes (zebra
    # stopping with 100,000 routes to remove can outlast the library)
    tgen = get_topogen()
    kill_every_bgpd(tgen)
    for ipv6 in FAMILIES:
        tgen.gears["r2"].vtysh_cmd("sharp remove routes {} {}".format(BASE[ipv6], N))
        wait_for(lambda: bgp_route_count(tgen.gears["r1"], ipv6), 0, count=120)
    tgen.stop_topology()


def _afi(ipv6):
    return "ipv6" if ipv6 else "ipv4"


def _value_gbps(router, prefix):
    "The Path Bandwidth (Gb/s) of router's path to prefix, None without one."
    j = vtysh_json(router, "show bgp {} fare {} json".format(_afi(":" in prefix), prefix))
    paths = j.get("prefixes", {}).get(prefix, {}).get("paths", [])
    return round(paths[0]["pathBandwidthBytesPerSec"] / GBPS) if len(paths) == 1 else None


def _values(router):
    return {p: _value_gbps(router, p) for ipv6 in FAMILIES for p in SAMPLES[ipv6]}


def _value_counts(router, ipv6):
    """{Path Bandwidth in Gb/s: prefixes with it} over router's whole
    table of the family (`show bgp ipv4|ipv6 fare json`, streamed by
    bgpd), counted in the router's namespace (fare/value_counts.py)."""
    out = router.run("vtysh -c 'show bgp {} fare json' | /usr/bin/python3 {} {}".format(
        _afi(ipv6), VALUE_COUNTS, "2001:db8:2::" if ipv6 else "10.20"))
    return {None if k == "None" else int(k): n for k, n in json.loads(out).items()}


def _log_matches(router, pattern):
    "Every match of pattern in r1's bgpd log, as tuples of ints."
    with open(os.path.join(router.logdir, router.name, "bgpd.log")) as f:
        return [tuple(int(x) for x in m.groups()) for m in re.finditer(pattern, f.read())]


REEVAL = r"FARE: VRF default: [^\n]*?, (\d+) of (\d+) route\(s\) re-evaluated in (\d+) task\(s\)"
REANNOUNCE = r"FARE: VRF default: routes re-announced to (\d+) update sub-group\(s\) in (\d+) task\(s\)"


def _kernel_weights(router):
    "{ipv6: the kernel's nexthop groups of the family's prefixes}"
    return {ipv6: kernel_weights_by_group(router, ipv6) for ipv6 in FAMILIES}


def _all_values(router):
    "{ipv6: {Gb/s: prefixes}} over router's whole tables"
    return {ipv6: _value_counts(router, ipv6) for ipv6 in FAMILIES}


def test_table_installed():
    "100,000 prefixes of each family at 3:1 in r1's kernel; r3 gets 400G / 2 = 200G."
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    t0 = time.time()
    for ipv6 in FAMILIES:
        got = wait_for(lambda: bgp_route_count(r1, ipv6), N, count=240)
        assert got == N, (ipv6, got)
    exp = {ipv6: [(N, {"to-r2-1": 3, "to-r2-2": 1})] for ipv6 in FAMILIES}
    assert wait_for(lambda: _kernel_weights(r1), exp, count=60) == exp
    exp = {p: 200 for ipv6 in FAMILIES for p in SAMPLES[ipv6]}
    assert wait_for(lambda: _values(r3), exp, count=120) == exp
    sys.stderr.write("fare_table_passes: 2 x {} prefixes installed and propagated in {:.0f} s\n"
                     .format(N, time.time() - t0))


def test_reevaluation_in_tasks():
    "r1's second link to r2 at 200G: every route of both families re-evaluated once; 3:2 in the kernel, 250G to r3."
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    before = len(_log_matches(r1, REEVAL))
    r1.vtysh_cmd("configure terminal\ninterface to-r2-2\nbandwidth 200000\n")
    exp = {ipv6: [(N, {"to-r2-1": 3, "to-r2-2": 2})] for ipv6 in FAMILIES}
    assert wait_for(lambda: _kernel_weights(r1), exp, count=120) == exp
    # logged at the pass's end, before the last route reached the kernel
    passes = _log_matches(r1, REEVAL)[before:]
    # the one pass over both whole tables (every route: averaged mode)
    full = [p for p in passes if p[0] == 2 * N]
    assert len(full) == 1 and full[0][1] == 2 * N and full[0][2] >= 1, passes
    sys.stderr.write("fare_table_passes: re-evaluation of {} routes in {} tasks\n".format(
        2 * N, full[0][2]))
    exp = {p: 250 for ipv6 in FAMILIES for p in SAMPLES[ipv6]}
    assert wait_for(lambda: _values(r3), exp, count=120) == exp
    exp = {ipv6: {250: N} for ipv6 in FAMILIES}
    assert wait_for(lambda: _all_values(r3), exp, count=30) == exp


def test_configuration_read_whole_one_pass():
    """Two FARE lines read as a whole (`vtysh -f`: the mode to draft and
    back to averaged), 100,000 routes of each family selected: one pass
    over both tables, each route re-evaluated once; the kernel keeps 3:2
    and r3 250G."""
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    path = os.path.join(tgen.logdir, "r1-fare-mode.conf")
    with open(path, "w") as f:
        f.write("router bgp 4200000001\n bgp fare mode draft\n bgp fare mode averaged\nexit\n")
    c0 = vtysh_json(r1, "show bgp fare json")["counters"]
    before = len(_log_matches(r1, REEVAL))
    out = r1.run("vtysh -f {} 2>&1; echo rc=$?".format(path))
    assert out.strip().endswith("rc=0"), out
    # the pass's line, logged at its end (bgpd ends the read 1 s after vtysh's end mark)
    got = wait_for(lambda: len(_log_matches(r1, REEVAL)) - before, 1, count=60, wait=0.5)
    passes = _log_matches(r1, REEVAL)[before:]
    assert got == 1 and passes[0][:2] == (2 * N, 2 * N), passes
    c1 = vtysh_json(r1, "show bgp fare json")["counters"]
    walks = c1["tableWalks"] - c0["tableWalks"]
    reevaluated = c1["reevaluatedRoutes"] - c0["reevaluatedRoutes"]
    sys.stderr.write("fare_table_passes: 2 lines read as a whole: {} pass(es), {} route(s) "
                     "re-evaluated in {} task(s)\n".format(walks, reevaluated, passes[0][2]))
    assert (walks, reevaluated) == (1, 2 * N), (c0, c1)
    assert "bgp fare mode averaged" in r1.vtysh_cmd("show running-config bgpd")
    exp = {ipv6: [(N, {"to-r2-1": 3, "to-r2-2": 2})] for ipv6 in FAMILIES}
    assert wait_for(lambda: _kernel_weights(r1), exp, count=60) == exp
    exp = {ipv6: {250: N} for ipv6 in FAMILIES}
    assert wait_for(lambda: _all_values(r3), exp, count=60) == exp


def _r4_sessions(r1, shut):
    r1.vtysh_cmd("configure terminal\nrouter bgp 4200000001\n" + "".join(
        "{}neighbor {} shutdown\n".format("" if shut else "no ", addr) for addr in R4))


def test_reannouncement_in_tasks():
    "r1's sessions to r4 shut: N = 1, every route built again in tasks, 500G to r3; back: 250G."
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    before = len(_log_matches(r1, REANNOUNCE))
    _r4_sessions(r1, shut=True)
    exp = {p: 500 for ipv6 in FAMILIES for p in SAMPLES[ipv6]}
    assert wait_for(lambda: _values(r3), exp, count=120) == exp
    # every prefix, not only the samples
    t0 = time.time()
    exp = {ipv6: {500: N} for ipv6 in FAMILIES}
    assert wait_for(lambda: _all_values(r3), exp, count=30) == exp
    sys.stderr.write("fare_table_passes: r3's whole tables read in {:.1f} s\n".format(
        time.time() - t0))
    assert wait_for(lambda: len(_log_matches(r1, REANNOUNCE)) > before, True, count=30) is True
    passes = _log_matches(r1, REANNOUNCE)[before:]
    # a sub-group's table spans tasks
    assert any(tasks > subgrps for subgrps, tasks in passes), passes
    sys.stderr.write("fare_table_passes: re-announcements (sub-groups, tasks): {}\n".format(passes))
    # the weights do not depend on N
    exp = {ipv6: [(N, {"to-r2-1": 3, "to-r2-2": 2})] for ipv6 in FAMILIES}
    assert _kernel_weights(r1) == exp
    _r4_sessions(r1, shut=False)
    exp = {p: 250 for ipv6 in FAMILIES for p in SAMPLES[ipv6]}
    assert wait_for(lambda: _values(r3), exp, count=120) == exp
    # r4's new sub-groups are in r3's update groups (the same link
    # speed): none of them may merge before the pass is through it, else
    # r3 keeps 500G for the prefixes the pass had not reached
    exp = {ipv6: {250: N} for ipv6 in FAMILIES}
    assert wait_for(lambda: _all_values(r3), exp, count=30) == exp


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
