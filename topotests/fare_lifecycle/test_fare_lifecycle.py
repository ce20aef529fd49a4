#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_lifecycle.py: configuring and unconfiguring FARE leaves nothing
of the module allocated in bgpd.

    r1 (AS 65001) --- r2 (AS 65002)
     r1-eth0             r2-eth0

r1 also has a BGP instance for VRF blue with FARE configured; this kernel
has no VRF devices, so that instance stays inactive (no sessions), which
is enough for its configuration state.

r1 uses every kind of state the module keeps: per-instance settings, a
multihoming prefix-list, neighbor and peer-group settings, Enhanced ECMP
(GroupID, sub-groups, a pinned remote group), per-peer views, per-prefix
results, and a hold-down (sessions cleared and re-established, WP-7).
FRR counts every allocation per memory type (`show memory bgpd`), and the
module's types are in the group "bgpd FARE". After `no router bgp` of
both instances, the per-instance types must
be back to 0 allocations; after the same configuration is loaded again,
FARE works as before (the route in the kernel) and the counts are what
they were. What stays by design: the per-interface bandwidth records (freed
with their interface) and the one bounded per-prefix result cache.
"""

import os
import re
import sys
import time

import pytest

CWD = os.path.dirname(os.path.realpath(__file__))
sys.path.append(os.path.join(CWD, ".."))

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare_common import kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.2.0/24"
# types that belong to an instance: none may stay after `no router bgp`
PER_INSTANCE = ["FARE instance", "FARE neighbor configuration", "FARE link hold-down",
                "FARE neighbor state", "FARE Enhanced ECMP"]

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


def build_topo(tgen):
    for name in ("r1", "r2"):
        tgen.add_router(name)
    tgen.add_link(tgen.gears["r1"], tgen.gears["r2"], "r1-eth0", "r2-eth0")


def config_of(name):
    if name == "r1":
        return "\n".join([
            "hostname r1", "interface r1-eth0", " ip address 10.0.12.1/24",
            "ip prefix-list DUAL seq 5 permit 172.16.9.0/24", "!", R1_BGP])
    return "\n".join([
        "hostname r2", "interface r2-eth0", " ip address 10.0.12.2/24", "!",
        "router bgp 65002", " bgp router-id 10.255.0.2", " no bgp ebgp-requires-policy",
        " no bgp network import-check", " timers bgp 3 9", " neighbor 10.0.12.1 remote-as 65001",
        " address-family ipv4 unicast", "  network " + PREFIX, " exit-address-family",
        " bgp fare", " bgp fare originate", " bgp fare ecmp-group-id 7", "exit", ""])


def setup_module(mod):
    start_fabric(mod, build_topo, config_of)


def teardown_module(_mod):
    get_topogen().stop_topology()


def fare_memory(router):
    """{memory type: allocations now} of the module's group in bgpd."""
    out = router.vtysh_cmd("show memory bgpd")
    m = re.search(r"--- qmem bgpd FARE ---\n(.*?)(?=\n--- qmem |\Z)", out, re.S)
    assert m, "no 'bgpd FARE' memory group in:\n{}".format(out[:2000])
    counts = {}
    for line in m.group(1).splitlines()[1:]:
        lm = re.match(r"^(.+?)\s*:\s+(\d+)\s", line)
        if lm:
            counts[lm.group(1)] = int(lm.group(2))
    return counts


def established(router, peer):
    j = vtysh_json(router, "show bgp neighbors {} json".format(peer))
    return j.get(peer, {}).get("bgpState") == "Established"


def fare_working(r1):
    "The session up and r2's route on its ECMP sub-group (EE-4)."
    return (established(r1, "10.0.12.2")
            and "ECMP group EG:10.255.0.2:7: local sub-group 1" in
            r1.vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX)))


def exercise(r1):
    """Sessions up, routes through, then a clear so that each neighbor
    comes back into its hold-down (WP-7): every kind of state exists."""
    assert wait_for(lambda: fare_working(r1), True, count=60), r1.vtysh_cmd(
        "show bgp ipv4 fare {}".format(PREFIX))
    r1.vtysh_cmd("clear bgp *")
    assert wait_for(lambda: established(r1, "10.0.12.2"), True, count=60)
    assert wait_for(lambda: fare_working(r1), True, count=60)
    held = vtysh_json(r1, "show bgp fare json")["counters"]["heldDown"]
    assert held >= 1, held


STATE = {}


def test_configured_state_is_counted():
    "With everything configured and used, the per-instance types hold allocations."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exercise(r1)
    mem = fare_memory(r1)
    STATE["configured"] = mem
    assert mem.get("FARE instance") == 2, mem
    for t in PER_INSTANCE:
        assert mem.get(t, 0) > 0, (t, mem)


def test_unconfigure_frees_everything():
    "`no router bgp` of both instances: 0 allocations of every per-instance type."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\nno router bgp 65001 vrf blue\nno router bgp 65001\n")
    exp = {t: 0 for t in PER_INSTANCE}
    got = wait_for(lambda: {t: fare_memory(r1).get(t, 0) for t in PER_INSTANCE}, exp, count=20)
    assert got == exp, fare_memory(r1)
    assert "bgp fare" not in r1.vtysh_cmd("show running-config")


def test_reconfigure_works_and_counts_match():
    "The same configuration again: FARE works, kernel weights back, the same allocations per type."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\n" + R1_BGP)
    exercise(r1)
    assert wait_for(lambda: kernel_weights(r1, PREFIX), {"r1-eth0": 1}, count=30) == {"r1-eth0": 1}
    time.sleep(1)
    mem = fare_memory(r1)
    before = STATE.get("configured")
    assert before, "first test did not run"
    got = {t: mem.get(t, 0) for t in PER_INSTANCE}
    exp = {t: before.get(t, 0) for t in PER_INSTANCE}
    assert got == exp, (got, exp)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
