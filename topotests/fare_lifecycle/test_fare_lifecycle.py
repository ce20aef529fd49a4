#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_lifecycle.py: configuring and unconfiguring FARE leaves nothing
of the module allocated in bgpd.

    r1 (AS 65001) --- r2 (AS 65002)
     r1-eth0             r2-eth0

r1 uses every kind of state the module keeps: per-instance settings, a
multihoming prefix-list, neighbor and peer-group settings, Enhanced ECMP
(GroupID, sub-groups, a pinned remote group), ingress-interface grouping
(EE-1: r1-eth0 in group 1, kernel table 1000000 with r2's route and the
throw route of the connected subnet 10.0.12.0/24, proto 238, from the
module's view of the main table), per-peer views, per-prefix results,
and a hold-down (sessions cleared and re-established, WP-7).
FRR counts every allocation per memory type (`show memory bgpd`), and the
module's types are in the group "bgpd FARE".

r1 also has VRF blue (`vrf blue` in its configuration) and a BGP instance
in it, `router bgp 65001 vrf blue`, with FARE configured. The kernel
these tests run on may have no VRF devices (`ip link add type vrf` fails
with "Unknown device type"), and the test makes none: zebra keeps blue as
a configured, inactive VRF, bgpd creates the instance without a VRF ID
(no sessions, no routes), and the module keeps its configuration state,
which is what is checked for it here. A VRF coming up or going down with
sessions in it is not covered.

1. Everything configured and used: every per-instance type holds
   allocations; the VRF instance's FARE configuration is shown.
2. Reload: FRR's frr-reload.py loads r1's running configuration without
   any FARE line (both instances), then with them, then without again.
   Without, nothing of FARE is left in the running configuration, in
   what the module shows or in the kernel (no rule towards a table
   >= 1000000, no route in one, no route of proto 238); the second time without, every memory type of
   the module counts exactly what it counted the first time. With, FARE
   works again.
3. Unconfigure: `no router bgp 65001 vrf blue` frees that instance's state;
   `no vrf blue` then deletes the VRF (nothing of the module changes);
   `no router bgp 65001`: every per-instance type back to 0 allocations.
4. The same configuration again (the VRF too): FARE works as before (the
   route in the kernel) and the counts are what they were in 1.
5. The VRF deleted first (`no vrf blue` while its BGP instance is
   configured): bgpd keeps the instance, and the module its FARE state,
   until `no router bgp 65001 vrf blue`, which frees the module's state.
   (bgpd itself never frees that instance: deleting a VRF that was never
   active leaves bgpd's own reference to it behind, with or without the
   module; Valgrind reports it at exit, see doc/testing.rst.)
6. Show commands create nothing: on a BGP instance without any FARE
   line (`router bgp 65001 vrf green`), every `show bgp vrf green fare
   ...` command, text and JSON, says that FARE is not configured there
   (JSON: "{}", and `enabled` false with no prefixes for `show bgp vrf
   green ipv4 fare json`) and no memory type of the module changes.
7. At exit (teardown), FRR's report of what is still allocated (bgpd's
   stderr) names nothing of the module's group.

What stays by design: the per-interface bandwidth records (freed with
their interface) and the one bounded per-prefix result cache; after all
FARE configuration of an instance is removed but the instance is not, its
(disabled) FARE instance record, the hold-down record of each neighbor
name and the per-peer views, freed with the instance or the neighbor.
"""

import os
import re
import sys
import time

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from lib.topolog import logger
from fare.common import (
    assert_no_fare_memory_at_exit, fare_memory, frr_reload, kernel_weights, settled_memory,
    start_fabric, tgen_or_skip, vtysh_json, wait_for
)
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.2.0/24"
# types that belong to an instance: none may stay after `no router bgp`
# (the records of a destination: r2's route, counted in its Enhanced ECMP
# group, EE-4, kept on bgpd's destination, patch 0029)
PER_INSTANCE = ["FARE instance", "FARE neighbor", "FARE Enhanced ECMP",
                "FARE Enhanced ECMP routes per group", "FARE records of a destination"]

R1_BGP = """router bgp 65001
 bgp router-id 10.255.0.1
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor FAB peer-group
 neighbor FAB remote-as external
 neighbor 10.0.12.2 peer-group FAB
 bgp fare
 bgp fare hold-down 5
 bgp fare originate
 bgp fare multihoming prefix-list DUAL factor 2
 bgp fare ecmp-group-id 1
 bgp fare ecmp-subgroups size 2
 bgp fare ecmp-group-map 10.255.0.2 7 subgroup 1
 neighbor FAB fare link-bandwidth 100G
 neighbor 10.0.12.2 fare super-spine
 bgp fare ecmp-ingress-group 1 interface r1-eth0
exit
router bgp 65001 vrf blue
 bgp router-id 10.255.1.1
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor 10.0.22.2 remote-as 65002
 bgp fare
 bgp fare mode averaged
 neighbor 10.0.22.2 fare link-bandwidth 40G
 neighbor 10.0.22.2 fare boundary
exit
"""
# zebra's VRF of the second instance (inactive: no kernel VRF device)
R1_VRF = "vrf blue\nexit-vrf"
# what `show bgp vrf blue fare json` shows of its configuration
VRF_FARE = {
    "enabled": True,
    "mode": "averaged",
    "neighbors": {"10.0.22.2": {"linkBandwidthBytesPerSec": 5e9, "boundary": True,
                                "superSpine": False}},
    "multihoming": {},
}
# what `show bgp [vrf NAME] fare json` shows of an instance without FARE
# configuration
DEFAULT_FARE = {
    "enabled": False, "mode": "draft", "parallelLinks": "per-neighbor",
    "holdDownSeconds": 10, "role": "node", "pathBandwidthSubType": 48,
    "originate": False, "lowerTransitive": False, "wcmpMaxMembers": 512,
    "wcmpMaxWeight": 254, "nexthopGroups": False, "neighbors": {}, "multihoming": {},
}
FARE_LINE = re.compile(r"^\s*(bgp fare\b|neighbor \S+ fare\b)")


TOPOLOGY = Topology().router("r1", "r2").link("r1", "r2", "r1-eth0", "r2-eth0")


def config_of(name):
    if name == "r1":
        return "\n".join([
            "hostname r1", R1_VRF, "interface r1-eth0", " ip address 10.0.12.1/24",
            "ip prefix-list DUAL seq 5 permit 172.16.9.0/24", "!", R1_BGP])
    return "\n".join([
        "hostname r2", "interface r2-eth0", " ip address 10.0.12.2/24", "!",
        "router bgp 65002", " bgp router-id 10.255.0.2", " no bgp ebgp-requires-policy",
        " no bgp network import-check", " timers bgp 3 9", " neighbor 10.0.12.1 remote-as 65001",
        " address-family ipv4 unicast", "  network " + PREFIX, " exit-address-family",
        " bgp fare", " bgp fare originate", " bgp fare ecmp-group-id 7", "exit", ""])


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config_of)


def teardown_module(_mod):
    """Test 5 leaves bgpd's own instance of the deleted VRF blue allocated
    (bgpd keeps it with or without the module, see the module's
    docstring). FRR 10.7's library fails a module whose daemons list
    allocations at exit; 10.3's does not look. That one report is
    expected here, and only it: r1's bgpd, with its BGP instance among
    the allocations, and nothing of the module's group (checked below
    for every router on both releases)."""
    tgen = get_topogen()
    try:
        tgen.stop_topology()
    except AssertionError as e:
        reports = re.findall(r"(\S+): (\S+) has memory leaks", str(e))
        assert reports and set(reports) == {("r1", "bgpd")}, str(e)
        with open(os.path.join(tgen.logdir, "r1", "bgpd.err"), errors="replace") as f:
            err = f.read()
        assert re.search(r"memstats:\s+BGP instance\s+:\s+1 ", err), err
    assert_no_fare_memory_at_exit(tgen)



def established(router, peer):
    j = vtysh_json(router, "show bgp neighbors {} json".format(peer))
    return j.get(peer, {}).get("bgpState") == "Established"


def fare_working(r1):
    """The session up, r2's route on its ECMP sub-group (EE-4), and r1-eth0's
    ingress table (EE-1) with r2's route and the throw of the connected
    subnet."""
    table = r1.run("ip -4 route show table 1000000")
    return (established(r1, "10.0.12.2")
            and "ECMP group EG:10.255.0.2:7: local sub-group 1" in
            r1.vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX))
            and "throw 10.0.12.0/24 proto 238 metric 1" in table
            and re.search(r"^172\.16\.2\.0/24 .*via 10\.0\.12\.2 dev r1-eth0 proto bgp", table,
                          re.M) is not None)


def exercise(r1):
    """Sessions up, routes through, then a clear so that each neighbor
    comes back into its hold-down (WP-7): every kind of state exists."""
    assert wait_for(lambda: fare_working(r1), True, count=60), r1.vtysh_cmd(
        "show bgp ipv4 fare {}".format(PREFIX)) + r1.run(
        "ip rule; ip route show table 1000000") + r1.vtysh_cmd("show bgp fare ecmp-ingress")
    held0 = vtysh_json(r1, "show bgp fare json")["counters"]["heldDown"]
    r1.vtysh_cmd("clear bgp *")
    # heldDown is bgpd-wide and never reset: it grows when the cleared
    # session comes back into its hold-down (WP-7), a state the clear makes
    got = wait_for(lambda: vtysh_json(r1, "show bgp fare json")["counters"]["heldDown"] > held0,
                   True, count=60)
    assert got is True, vtysh_json(r1, "show bgp fare json")["counters"]
    assert wait_for(lambda: established(r1, "10.0.12.2"), True, count=60)
    assert wait_for(lambda: fare_working(r1), True, count=60)


def running(router):
    return router.vtysh_cmd("show running-config no-header")


def fare_lines(config):
    return [line for line in config.splitlines() if FARE_LINE.match(line)]


def show_fare(router, vrf, what, **fmt):
    "`show bgp [vrf VRF] WHAT json` (WHAT formatted with fmt)."
    return vtysh_json(router, "show bgp {}{} json".format(
        "vrf {} ".format(vrf) if vrf else "", what.format(**fmt)))


def left_of_fare(r1):
    """What r1 still shows of FARE configuration or its effects, in the
    running configuration and in the module's show commands of both
    instances: [] when nothing."""
    left = ["running-config: " + line for line in fare_lines(running(r1))]
    for vrf in (None, "blue"):
        where = vrf or "default"
        cfg = show_fare(r1, vrf, "fare").get("config")
        if cfg != DEFAULT_FARE:
            left.append("{}: show bgp fare: {}".format(where, cfg))
        eg = show_fare(r1, vrf, "fare ecmp-groups")
        if eg.get("ingressGrouping") or eg.get("subgroupSize") or eg.get("subgroups") or \
                eg.get("remoteGroups") or eg.get("groupIdSubType") not in (None, 71):
            left.append("{}: show bgp fare ecmp-groups: {}".format(where, eg))
        ing = show_fare(r1, vrf, "fare ecmp-ingress")
        if ing.get("active") or ing.get("groups") or ing.get("prefixes") or ing.get("throws") \
                or ing.get("mainTableFollowed") or ing.get("mainTableRoutes"):
            left.append("{}: show bgp fare ecmp-ingress: {}".format(where, ing))
        for afi in ("ipv4", "ipv6"):
            pfx = show_fare(r1, vrf, "{afi} fare", afi=afi)
            if pfx.get("enabled"):
                left.append("{}: show bgp {} fare: enabled".format(where, afi))
    left += ["kernel: " + line for line in ingress_kernel(r1)]
    return left


def ingress_kernel(r1):
    """EE-1 in r1's kernel: policy rules towards tables >= 1000000 and every
    route in those tables (the copies and the throw routes, proto 238)."""
    out = []
    for fam in (4, 6):
        out += [l for l in r1.run("ip -{} rule show".format(fam)).splitlines() if "lookup 100" in l]
        out += [l for l in r1.run("ip -{} route show table all".format(fam)).splitlines()
                if re.search(r"table 10\d{5}\b", l) or "proto 238" in l]
    return out



def reload(router, step, text):
    "frr-reload.py --reload of `text` into router (kept in the log directory)."
    path = os.path.join(get_topogen().logdir, "{}-{}.conf".format(router.name, step))
    with open(path, "w") as f:
        f.write(text)
    rc, out = frr_reload(router, "reload", path)
    with open(path + ".out", "w") as f:
        f.write("rc={}\n{}".format(rc, out))
    assert rc == 0, "frr-reload.py --reload {} failed ({}):\n{}".format(path, rc, out)


STATE = {}


def test_configured_state_is_counted():
    "With everything configured and used, the per-instance types hold allocations; the VRF instance has its FARE state."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exercise(r1)
    assert "vrf blue inactive" in r1.vtysh_cmd("show vrf"), r1.vtysh_cmd("show vrf")
    cfg = show_fare(r1, "blue", "fare").get("config", {})
    got = {k: cfg.get(k) for k in VRF_FARE}
    for n in got["neighbors"] or {}:
        got["neighbors"][n] = {k: got["neighbors"][n].get(k) for k in VRF_FARE["neighbors"]["10.0.22.2"]}
    assert got == VRF_FARE, cfg
    mem = fare_memory(r1)
    logger.info("FARE memory, configured and used: %s", mem)
    STATE["configured"] = mem
    assert mem.get("FARE instance") == 2, mem
    # one destination has records: r2's route
    assert mem.get("FARE records of a destination") == 1, mem
    for t in PER_INSTANCE:
        assert mem.get(t, 0) > 0, (t, mem)


def test_reload_without_fare_and_back():
    "frr-reload.py without FARE, with, without: nothing of FARE left, the second time the same memory counts."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    saved = running(r1)
    # as started (with FARE_TEST_NEXTHOP_GROUPS=1, a `bgp fare
    # nexthop-groups` line after each `bgp fare`)
    with open(os.path.join(tgen.logdir, "configs", "r1.conf")) as f:
        started = f.read()
    assert len(fare_lines(saved)) == started.count(" fare"), saved
    without = "\n".join(line for line in saved.splitlines() if not FARE_LINE.match(line)) + "\n"

    reload(r1, "without-1", without)
    left = wait_for(lambda: left_of_fare(r1), [], count=30)
    assert left == [], "\n".join(left)
    first = settled_memory(r1)
    # the route stays, through bgpd alone (read after the settled period,
    # when the "disabled" re-evaluation has run)
    assert wait_for(lambda: kernel_weights(r1, PREFIX), {"r1-eth0": 1}, count=30) == {"r1-eth0": 1}
    logger.info("FARE memory, reloaded without FARE: %s", first)

    reload(r1, "with-1", saved)
    assert fare_lines(running(r1)) == fare_lines(saved), running(r1)
    assert wait_for(lambda: fare_working(r1), True, count=60), r1.vtysh_cmd(
        "show bgp ipv4 fare {}".format(PREFIX)) + r1.run(
        "ip rule; ip route show table 1000000") + r1.vtysh_cmd("show bgp fare ecmp-ingress")
    logger.info("FARE memory, reloaded with FARE: %s", fare_memory(r1))

    reload(r1, "without-2", without)
    left = wait_for(lambda: left_of_fare(r1), [], count=30)
    assert left == [], "\n".join(left)
    again = wait_for(lambda: fare_memory(r1), first, count=30)
    assert again == first, "after the second reload without FARE: {}\nafter the first: {}".format(
        again, first)

    # back to the full configuration for the next tests
    reload(r1, "with-2", saved)
    assert fare_lines(running(r1)) == fare_lines(saved), running(r1)
    assert wait_for(lambda: fare_working(r1), True, count=60)


def test_unconfigure_frees_everything():
    "`no router bgp 65001 vrf blue`, `no vrf blue`, `no router bgp 65001`: 0 allocations of every per-instance type."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    before = fare_memory(r1)
    r1.vtysh_cmd("configure terminal\nno router bgp 65001 vrf blue\n")
    assert wait_for(lambda: fare_memory(r1).get("FARE instance"), 1, count=20) == 1, fare_memory(r1)
    assert show_fare(r1, "blue", "fare") == {}, show_fare(r1, "blue", "fare")
    # one neighbor's record (10.0.22.2) went with the instance
    assert fare_memory(r1)["FARE neighbor"] < before["FARE neighbor"]
    assert "vrf blue inactive" in r1.vtysh_cmd("show vrf")

    after_instance = settled_memory(r1)
    r1.vtysh_cmd("configure terminal\nno vrf blue\n")
    assert "blue" not in r1.vtysh_cmd("show vrf"), r1.vtysh_cmd("show vrf")
    assert "vrf blue" not in running(r1)
    assert fare_memory(r1) == after_instance

    r1.vtysh_cmd("configure terminal\nno router bgp 65001\n")
    exp = {t: 0 for t in PER_INSTANCE}
    got = wait_for(lambda: {t: fare_memory(r1).get(t, 0) for t in PER_INSTANCE}, exp, count=20)
    logger.info("FARE memory, both instances removed: %s", fare_memory(r1))
    assert got == exp, fare_memory(r1)
    assert fare_lines(running(r1)) == []


def test_reconfigure_works_and_counts_match():
    "The same configuration again (the VRF too): FARE works, kernel weights back, the same allocations per type."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\n" + R1_VRF + "\n" + R1_BGP)
    exercise(r1)
    assert wait_for(lambda: kernel_weights(r1, PREFIX), {"r1-eth0": 1}, count=30) == {"r1-eth0": 1}
    assert "vrf blue inactive" in r1.vtysh_cmd("show vrf")
    time.sleep(1)
    mem = fare_memory(r1)
    before = STATE.get("configured")
    assert before, "first test did not run"
    got = {t: mem.get(t, 0) for t in PER_INSTANCE}
    exp = {t: before.get(t, 0) for t in PER_INSTANCE}
    assert got == exp, (got, exp)


def test_vrf_deleted_before_its_instance():
    "`no vrf blue` with its BGP instance configured: the instance and its FARE state stay until `no router bgp 65001 vrf blue`."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    before = settled_memory(r1)
    cfg = show_fare(r1, "blue", "fare").get("config")
    r1.vtysh_cmd("configure terminal\nno vrf blue\n")
    assert "blue" not in r1.vtysh_cmd("show vrf"), r1.vtysh_cmd("show vrf")
    assert "router bgp 65001 vrf blue" in running(r1)
    assert show_fare(r1, "blue", "fare").get("config") == cfg
    assert fare_memory(r1) == before

    r1.vtysh_cmd("configure terminal\nno router bgp 65001 vrf blue\n")
    assert wait_for(lambda: fare_memory(r1).get("FARE instance"), 1, count=20) == 1, fare_memory(r1)
    assert show_fare(r1, "blue", "fare") == {}
    assert "vrf blue" not in running(r1)


NOT_CONFIGURED = "% FARE is not configured in VRF green"


def test_show_commands_create_nothing():
    "`show bgp vrf green fare ...` on an instance without FARE: not configured, no allocation."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001 vrf green\n")
    assert "router bgp 65001 vrf green" in running(r1)
    before = settled_memory(r1)
    for what in ("fare planes", "fare ecmp-groups", "fare ecmp-ingress"):
        text = r1.vtysh_cmd("show bgp vrf green {}".format(what)).strip()
        assert text == NOT_CONFIGURED, (what, text)
        assert show_fare(r1, "green", what) == {}, what
    for afi in ("ipv4", "ipv6"):
        got = show_fare(r1, "green", "{afi} fare", afi=afi)
        assert got == {"enabled": False, "prefixes": {}}, (afi, got)
        text = r1.vtysh_cmd("show bgp vrf green {} fare".format(afi)).strip()
        assert text == NOT_CONFIGURED, (afi, text)
    assert show_fare(r1, "green", "fare").get("config") == DEFAULT_FARE
    assert fare_memory(r1) == before, (fare_memory(r1), before)
    r1.vtysh_cmd("configure terminal\nno router bgp 65001 vrf green\n")
    assert fare_memory(r1) == before
    assert "vrf green" not in running(r1)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
