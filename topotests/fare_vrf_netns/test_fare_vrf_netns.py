#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_vrf_netns.py: FARE in an active VRF, and the VRF going away and
coming back with sessions in it.

              r1-eth0 --- r2-eth0     default VRF of r1
    r1  VRF { r1-eth1 --- r2-eth1 }   r2 (AS 65002, default VRF only)
   (AS      { r1-eth2 --- r2-eth2 }
   65001)   fare-blue: a network namespace on r1

A Linux kernel without VRF devices (`ip link add type vrf` says "Unknown
device type") still has network namespaces, and FRR can use them as its
VRFs: zebra and bgpd started with -w (--vrfwnetns) take every named
network namespace as a VRF of that name. r1 runs so; r1-eth1 and r1-eth2
are moved into the namespace fare-blue before the daemons start, so VRF
fare-blue is active from the start: its BGP instance has its own sessions,
routes and kernel routing table (the namespace's).

r2 originates 172.16.2.0/24 with FARE (`bgp fare originate`: the largest
Path Bandwidth) to all three sessions. In VRF fare-blue, r1 reaches it
over r1-eth1 (`fare link-bandwidth 300G`) and r1-eth2 (100G); in its
default VRF over r1-eth0 alone.

1. VRF fare-blue active; both sessions of the VRF instance and the one of
   the default instance Established. FARE-4: the VRF's route has weights
   3:1 in `show bgp vrf fare-blue ipv4 fare` and in the kernel nexthop
   group of the namespace fare-blue; the default VRF's has the single
   path r1-eth0 with the default instance's 100G. The configuration read
   at start made one re-evaluation pass in each instance
   (test_vrf_start_one_pass), and none of the VRF instance's 5 own
   prefixes, configured after its `bgp fare` lines, was re-evaluated.
2. A bandwidth change in the VRF (r1-eth2 to 200G): 3:2 in the
   namespace's kernel table; the default VRF unchanged. The VRF instance
   has `bgp fare nexthop-groups`: its route is on the module's nexthop
   group (`show bgp vrf fare-blue fare nexthop-groups json` and the
   prefix's nexthopGroupId), replaced in place by the change: the same id
   holds 3:2. With network namespace VRFs zebra puts no nexthop group in
   the kernel (routes go with their nexthops expanded, no nhid): zebra
   installs the routes of the replaced group again (patch 0022), so the
   namespace's table has 3:2 too. `show bgp [vrf fare-blue] ipv4 fare
   172.16.2.0/24 traffic json` reads each instance's own namespace and
   finds the route's kernel group there (none: zebra with -w installs
   routes without nexthop objects).
2b. The VRF's route on one path (r2 withholds it from r1-eth2's
   session: prefix-list NOSINGLE out), off the module's groups. r2 adds
   a community (route-map SINGLECOMM out): zebra does not get
   communities, so nothing is sent to zebra (its counts of IPv4 adds and
   updates from bgpd unchanged), and the VRF's instance counts one route
   not sent again (notSentUnchanged), the default instance none. r2 sends
   a MED of 55 instead (SINGLEMED), zebra's metric of the route in the
   VRF: sent. Back on the module's group at 3:1 after. fare_nhg and
   fare_nhg_unnumbered do the same in the default VRF.
3. zebra's restart in the VRF (test_vrf_zebra_restart): r1-eth2 at 200G
   (3:2), the configuration saved (`write memory`), zebra killed with
   SIGKILL and the VRF's route deleted from the namespace's table (and
   the default VRF's from r1's), zebra started again with -w and its
   configuration (`vtysh -b -d zebra`). The VRF is active again, bgpd
   reconnects with its sessions up, and the namespace's table has 3:2
   again, on the module's same group (zebra's `show ip route vrf` has the
   route installed on it); r1-eth2 back at 100G: 3:1 there. It runs
   before 5: zebra numbers the namespace VRFs from 1 at its start, and a
   VRF whose namespace was made again since has another id in bgpd
   (bgpd then keeps the old id: "VRF_GET: avoid fare-blue creation(1),
   same name exists (2)", and the VRF's routes reach no kernel table).
4. `no router bgp 65001 vrf fare-blue`: the route leaves the namespace's
   table, and the module's per-instance memory types go back to what the
   default instance alone holds; the same configuration again: weights
   back, the counts of 1 again.
5. The VRF goes away with its instance configured: the interfaces moved
   back and the namespace deleted. zebra deletes VRF fare-blue, bgpd
   keeps the instance without a VRF (inactive) and the module its FARE
   configuration, with no route state left. The namespace created again
   and the interfaces moved back into it: the VRF is active again, the
   sessions come back, the kernel weights are 3:1 again, and every memory
   type of the module counts what it counted in 1, plus the hold-down
   record each of the two neighbors now has (WP-7: their sessions went
   down with the VRF).
6. At exit, FRR's report of what is still allocated (bgpd's stderr) names
   nothing of the module's group.
"""

import re
import sys

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from lib.topolog import logger
from fare.common import (
    GBPS, assert_no_fare_memory_at_exit, bgp_zebra_client, fare_memory, frr_release, kernel_nexthop,
    kernel_weights, settled_memory, start_fabric, tgen_or_skip, vtysh_json, wait_for
)
from fare.fabric import Topology
from fare.nhg import neighbor_out, not_sent_unchanged, single_path_sent_on_change_only

pytestmark = [pytest.mark.bgpd]

VRF = "fare-blue"
PREFIX = "172.16.2.0/24"
VRF_IFS = ("r1-eth1", "r1-eth2")
# the module's memory types that belong to an instance
PER_INSTANCE = ["FARE instance", "FARE neighbor"]

# the VRF instance's own prefixes, after its `bgp fare` lines
# (test_vrf_start_one_pass)
VRF_OWN = ["192.168.{}.0/24".format(i) for i in range(5)]

R1_VRF_BGP = """router bgp 65001 vrf {vrf}
 bgp router-id 10.255.1.1
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor 10.0.11.2 remote-as 65002
 neighbor 10.0.11.2 timers connect 1
 neighbor 10.0.12.2 remote-as 65002
 neighbor 10.0.12.2 timers connect 1
 bgp fare
 bgp fare nexthop-groups
 neighbor 10.0.11.2 fare link-bandwidth 300G
 neighbor 10.0.12.2 fare link-bandwidth 100G
 no bgp network import-check
 address-family ipv4 unicast
{networks}
 exit-address-family
exit
""".format(vrf=VRF, networks="\n".join("  network " + p for p in VRF_OWN))


TOPOLOGY = Topology().router("r1", "r2")
for _i in range(3):
    TOPOLOGY.link("r1", "r2", "r1-eth{}".format(_i), "r2-eth{}".format(_i))


def nexthop_groups():
    "Whether this FRR has the module's shared nexthop groups (patch 0021: FRR 10.7's series)."
    return frr_release(get_topogen()) >= (10, 7)


def r1_vrf_bgp():
    "R1_VRF_BGP, without bgp fare nexthop-groups where this FRR has none."
    if nexthop_groups():
        return R1_VRF_BGP
    return R1_VRF_BGP.replace(" bgp fare nexthop-groups\n", "")


def config_of(name):
    if name == "r1":
        return "\n".join([
            "hostname r1",
            "interface r1-eth0", " ip address 10.0.10.1/24", "exit",
            "interface r1-eth1 vrf " + VRF, " ip address 10.0.11.1/24", "exit",
            "interface r1-eth2 vrf " + VRF, " ip address 10.0.12.1/24", "exit",
            "router bgp 65001", " bgp router-id 10.255.0.1", " no bgp ebgp-requires-policy",
            " timers bgp 3 9", " neighbor 10.0.10.2 remote-as 65002",
            " neighbor 10.0.10.2 timers connect 1", " bgp fare",
            " neighbor 10.0.10.2 fare link-bandwidth 100G", "exit", r1_vrf_bgp()])
    lines = ["hostname r2"]
    for i in range(3):
        lines += ["interface r2-eth{}".format(i), " ip address 10.0.1{}.2/24".format(i), "exit"]
    lines += ["router bgp 65002", " bgp router-id 10.255.0.2", " no bgp ebgp-requires-policy",
              " no bgp network import-check", " timers bgp 3 9"]
    for i in range(3):
        lines += [" neighbor 10.0.1{}.1 remote-as 65001".format(i),
                  " neighbor 10.0.1{}.1 timers connect 1".format(i)]
    lines += [" address-family ipv4 unicast", "  network " + PREFIX, " exit-address-family",
              " bgp fare", " bgp fare originate", "exit", ""]
    return "\n".join(lines)


def make_vrf(tgen):
    "The namespace fare-blue on r1 with r1-eth1 and r1-eth2 in it, up."
    r1 = tgen.net["r1"]
    r1.add_netns(VRF)
    for ifname in VRF_IFS:
        r1.set_intf_netns(ifname, VRF, up=True)


def remove_vrf(tgen):
    "r1-eth1 and r1-eth2 moved back to r1's namespace, fare-blue deleted."
    r1 = tgen.net["r1"]
    for ifname in VRF_IFS:
        if ifname in r1.ifnetns:
            r1.reset_intf_netns(ifname)
    r1.delete_netns(VRF)


def prepare(tgen):
    "Before the daemons start: the VRF's namespace, and r1's daemons with -w."
    make_vrf(tgen)
    tgen.gears["r1"].use_netns_vrf()


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config_of, prepare=prepare)


def teardown_module(_mod):
    tgen = get_topogen()
    try:
        remove_vrf(tgen)
    except Exception as ex:  # pylint: disable=broad-except
        logger.info("removing namespace %s: %s", VRF, ex)
    tgen.stop_topology()
    assert_no_fare_memory_at_exit(tgen)


class InNamespace:
    """A router's commands run in one of its named network namespaces (the
    VRF's kernel tables), for fare.common.kernel_weights()."""

    def __init__(self, router, netns):
        self.router, self.netns = router, netns

    def run(self, cmd):
        return self.router.run("ip netns exec {} {}".format(self.netns, cmd))




def established(router, vrf=None):
    "{peer: True when Established} of the IPv4 unicast sessions of the instance."
    j = vtysh_json(router, "show bgp {}ipv4 unicast summary json".format(
        "vrf {} ".format(vrf) if vrf else ""))
    return {p: v.get("state") == "Established" for p, v in j.get("peers", {}).items()}


def vrf_weights(r1):
    "{interface: weight} of the VRF's route in the namespace's kernel table."
    return kernel_weights(InNamespace(r1, VRF), PREFIX)


def fare_paths(router, vrf=None):
    "{interface: (weight, Gb/s)} of `show bgp [vrf] ipv4 fare PREFIX json`."
    j = vtysh_json(router, "show bgp {}ipv4 fare {} json".format(
        "vrf {} ".format(vrf) if vrf else "", PREFIX))
    paths = j.get("prefixes", {}).get(PREFIX, {}).get("paths", [])
    return {p["interface"]: (p["weight"], round(p["pathBandwidthBytesPerSec"] / GBPS))
            for p in paths}


def vrf_line(router):
    "VRF fare-blue as zebra lists it in `show vrf`: the line, or None."
    for line in router.vtysh_cmd("show vrf").splitlines():
        if line.startswith("vrf " + VRF + " "):
            return line.strip()
    return None


STATE = {}


def test_vrf_active_and_weighted():
    "VRF fare-blue active, its sessions up, FARE-4 weights 3:1 in the namespace's kernel table."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    line = vrf_line(r1)
    assert line == "vrf {0} id 1 netns /run/netns/{0}".format(VRF), r1.vtysh_cmd("show vrf")
    up = {"10.0.11.2": True, "10.0.12.2": True}
    assert wait_for(lambda: established(r1, VRF), up, count=60) == up, established(r1, VRF)
    assert wait_for(lambda: established(r1), {"10.0.10.2": True}) == {"10.0.10.2": True}

    exp = {"r1-eth1": (3, 300), "r1-eth2": (1, 100)}
    assert wait_for(lambda: fare_paths(r1, VRF), exp) == exp, fare_paths(r1, VRF)
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, r1.run(
        "ip netns exec {} ip route show {}".format(VRF, PREFIX))
    # the default VRF: its own table, its one path
    exp = {"r1-eth0": (1, 100)}
    assert wait_for(lambda: fare_paths(r1), exp) == exp, fare_paths(r1)
    exp = {"r1-eth0": 1}
    assert wait_for(lambda: kernel_weights(r1, PREFIX), exp) == exp, r1.run("ip route show " + PREFIX)
    STATE["configured"] = settled_memory(r1)
    logger.info("FARE memory, both instances: %s", STATE["configured"])


def test_vrf_start_one_pass():
    """bgpd read r1's configuration at start as a whole: each instance
    makes one pass for its `bgp fare` lines (4 in the VRF instance), once
    bgpd has read all of it, over the routes it had selected by the last
    of them. The VRF instance's 5 own prefixes (`network` lines after its
    `bgp fare` lines) were selected with the configuration as it is and
    are not re-evaluated; r2's route, at most, if it came in before the
    last line. The default instance's pass is asked for by its 2 lines."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    got = wait_for(lambda: sorted(vtysh_json(r1, "show bgp vrf {} ipv4 unicast json".format(VRF))
                                  .get("routes", {})), sorted(VRF_OWN + [PREFIX]), count=30)
    assert got == sorted(VRF_OWN + [PREFIX]), got
    cnt = {vrf: vtysh_json(r1, "show bgp {}fare json".format(
        "vrf {} ".format(vrf) if vrf else ""))["counters"] for vrf in (None, VRF)}
    walks = {vrf: c["tableWalks"] for vrf, c in cnt.items()}
    assert walks == {None: 1, VRF: 1}, cnt
    assert cnt[VRF]["reevaluatedRoutes"] <= 1, cnt


def vrf_group(r1):
    "The module's nexthop group of the VRF's route (0: none)."
    j = vtysh_json(r1, "show bgp vrf {} ipv4 fare {} json".format(VRF, PREFIX))
    return j.get("prefixes", {}).get(PREFIX, {}).get("nexthopGroupId", 0)


def module_groups(r1):
    "{id: prefixes} of the VRF instance's nexthop groups (bgp fare nexthop-groups)."
    j = vtysh_json(r1, "show bgp vrf {} fare nexthop-groups json".format(VRF))
    return {g["id"]: g["prefixes"] for g in j.get("groups", [])}


def _vrf_eth2_to_200g(r1, groups):
    """r1-eth2 of the VRF set to 200G, and 3:2 awaited in the namespace's
    table; returns the VRF route's group of the module beforehand, its
    only group (0 without groups)."""
    gid = vrf_group(r1)
    if groups:
        assert gid and module_groups(r1) == {gid: 1}, (gid, module_groups(r1))
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001 vrf {}\n"
                 "neighbor 10.0.12.2 fare link-bandwidth 200G\n".format(VRF))
    exp = {"r1-eth1": 3, "r1-eth2": 2}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)
    return gid


def test_vrf_bandwidth_change():
    "r1-eth2 of the VRF to 200G: 3:2 in the namespace, the same group; the default VRF unchanged."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    groups = nexthop_groups()
    gid = _vrf_eth2_to_200g(r1, groups)
    # replaced in place: the same group, the module's
    if groups:
        assert vrf_group(r1) == gid and module_groups(r1) == {gid: 1}
    assert fare_paths(r1, VRF) == {"r1-eth1": (3, 300), "r1-eth2": (2, 200)}
    assert kernel_weights(r1, PREFIX) == {"r1-eth0": 1}
    if groups:
        # show bgp vrf fare traffic reads the VRF's namespace: the module's
        # group is listed, not in that kernel (zebra puts no nexthop group
        # there), and nothing said unsupported
        j = vtysh_json(r1, "show bgp vrf {} fare traffic json".format(VRF))
        assert j["vrf"] == "VRF " + VRF and j["countersSupported"] is True and "reason" not in j, j
        assert [(g["id"], g["owner"], g["inKernel"]) for g in j["groups"]] == [(gid, "fare", False)], j
    # the show of one prefix reads the instance's own namespace: the
    # group of the route there, none when zebra put it on no group (as
    # here: zebra with -w uses no nexthop objects)
    for vrf, where in ((VRF, InNamespace(r1, VRF)), (None, r1)):
        j = vtysh_json(r1, "show bgp {}ipv4 fare {} traffic json".format(
            "vrf {} ".format(vrf) if vrf else "", PREFIX))
        nhid, group = kernel_nexthop(where, PREFIX)
        assert j["vrf"] == ("VRF " + vrf if vrf else "VRF default") and j["prefix"] == PREFIX, j
        assert j["countersSupported"] is True and j["nexthopGroupId"] == (nhid if group else 0), j
        if group:
            assert {m["interface"]: m["weight"] for m in j["group"]["members"]} == {
                "r1-eth1": 3, "r1-eth2": 2}, j
        else:
            assert "group" not in j and "no BGP route" in j["reason"], j
            assert j.get("nexthopId") == nhid, j
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001 vrf {}\n"
                 "neighbor 10.0.12.2 fare link-bandwidth 100G\n".format(VRF))
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)


SINGLE_COMMUNITY = "65002:7"
R2_SINGLE = """configure terminal
ip prefix-list NOSINGLE seq 5 deny {prefix}
ip prefix-list NOSINGLE seq 10 permit any
route-map SINGLECOMM permit 10
 set community {community}
exit
route-map SINGLEMED permit 10
 set metric 55
exit
""".format(prefix=PREFIX, community=SINGLE_COMMUNITY)


def test_vrf_single_path_sent_on_change_only():
    """The VRF's route on one path (r2 withholds it from r1-eth2's
    session), off the module's groups: a community from r2 is not sent to
    zebra (the VRF's instance counts one route not sent again, the
    default instance none), a MED of 55 is; on the module's group again
    at 3:1 after."""
    tgen = tgen_or_skip()
    if not nexthop_groups():
        pytest.skip("this FRR has no shared nexthop groups (patch 0021: FRR 10.7's series)")
    r1, r2 = tgen.gears["r1"], tgen.gears["r2"]
    gid = vrf_group(r1)
    assert gid and module_groups(r1) == {gid: 1}, (gid, module_groups(r1))
    r2.vtysh_cmd(R2_SINGLE)
    default_unchanged = not_sent_unchanged(r1)
    neighbor_out(r2, 65002, "10.0.12.1", PREFIX, "prefix-list NOSINGLE", True)
    try:
        one = {"r1-eth1": 1}
        assert wait_for(lambda: vrf_weights(r1), one) == one, vrf_weights(r1)
        assert wait_for(lambda: vrf_group(r1), 0) == 0 and module_groups(r1) == {}, module_groups(r1)
        single_path_sent_on_change_only(r1, r2, 65002, "10.0.11.1", PREFIX, ("SINGLECOMM", "SINGLEMED"),
                                        SINGLE_COMMUNITY, "r1-eth1", vrf=VRF,
                                        kernel=InNamespace(r1, VRF))
        assert not_sent_unchanged(r1) == default_unchanged
    finally:
        neighbor_out(r2, 65002, "10.0.12.1", PREFIX, "prefix-list NOSINGLE", False)
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)
    assert wait_for(lambda: vrf_group(r1) != 0, True) is True
    assert module_groups(r1) == {vrf_group(r1): 1}, module_groups(r1)


def test_vrf_zebra_restart():
    """zebra (started with -w) killed with SIGKILL and started again, bgpd
    running: the VRF comes back from its namespace, bgpd reconnects and
    sends the VRF's route again on the module's same group: the
    namespace's kernel table has the FARE weights again (the route was
    deleted there while zebra was down, so only the new zebra can have put
    it back); a change of weights afterwards reaches that table too."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    groups = nexthop_groups()
    gid = _vrf_eth2_to_200g(r1, groups)
    exp = {"r1-eth1": 3, "r1-eth2": 2}
    r1.vtysh_cmd("write memory")
    zebra_pid = r1.run("cat /var/run/frr/zebra.pid").strip()
    assert r1.killDaemons(["zebra"]) == ""
    assert r1.run("kill -0 {} 2>&1 && echo alive".format(zebra_pid)).strip() != "alive"
    # what the dead zebra installed, removed: only the new one can put it back
    r1.run("ip netns exec {} ip route del {}".format(VRF, PREFIX))
    r1.run("ip route del {}".format(PREFIX))
    assert vrf_weights(r1) == {} and kernel_weights(r1, PREFIX) == {}
    r1.startDaemons(["zebra"])
    out = r1.run("vtysh -b -d zebra 2>&1")
    cmdline = r1.run("cat /proc/$(cat /var/run/frr/zebra.pid)/cmdline | tr '\\0' ' '").split()
    assert "-w" in cmdline, (cmdline, out)
    active = re.compile(r"^vrf {0} id \d+ netns /run/netns/{0}$".format(VRF))
    assert wait_for(lambda: bool(active.match(vrf_line(r1) or "")), True, count=30), \
        r1.vtysh_cmd("show vrf")
    assert wait_for(lambda: bgp_zebra_client(r1) is not None, True, count=40, wait=0.5) is True
    # the sessions did not drop: bgpd kept running
    up = {"10.0.11.2": True, "10.0.12.2": True}
    assert established(r1, VRF) == up
    assert wait_for(lambda: vrf_weights(r1), exp, count=60, wait=0.5) == exp, (
        vrf_weights(r1), r1.vtysh_cmd("show ip route vrf {} {}".format(VRF, PREFIX)))
    assert wait_for(lambda: kernel_weights(r1, PREFIX), {"r1-eth0": 1}) == {"r1-eth0": 1}
    assert fare_paths(r1, VRF) == {"r1-eth1": (3, 300), "r1-eth2": (2, 200)}
    if groups:
        # the same group of the module, zebra's route on it
        assert vrf_group(r1) == gid and module_groups(r1) == {gid: 1}, (gid, module_groups(r1))
        route = vtysh_json(r1, "show ip route vrf {} {} json".format(VRF, PREFIX))[PREFIX][0]
        assert route["nexthopGroupId"] == gid and route.get("installed") is True, route
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001 vrf {}\n"
                 "neighbor 10.0.12.2 fare link-bandwidth 100G\n".format(VRF))
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)
    if groups:
        assert vrf_group(r1) == gid and module_groups(r1) == {gid: 1}


def test_vrf_instance_deleted_and_back():
    "`no router bgp 65001 vrf fare-blue`: route and instance state gone; configured again: as in 1."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    before = STATE.get("configured")
    assert before, "test 1 did not run"
    r1.vtysh_cmd("configure terminal\nno router bgp 65001 vrf {}\n".format(VRF))
    assert wait_for(lambda: vrf_weights(r1), {}) == {}, vrf_weights(r1)
    got = wait_for(lambda: fare_memory(r1).get("FARE instance"), 1, count=20)
    assert got == 1, fare_memory(r1)
    assert vtysh_json(r1, "show bgp vrf {} fare json".format(VRF)) == {}
    mem = settled_memory(r1)
    # the VRF instance's two neighbors' records (a record and its name
    # each: settings, hold-down and state) went with it
    assert mem["FARE neighbor"] == before["FARE neighbor"] - 4, mem
    assert kernel_weights(r1, PREFIX) == {"r1-eth0": 1}

    r1.vtysh_cmd("configure terminal\n" + r1_vrf_bgp())
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)
    got = {t: settled_memory(r1).get(t, 0) for t in PER_INSTANCE}
    assert got == {t: before.get(t, 0) for t in PER_INSTANCE}, (got, before)


def test_vrf_goes_away_and_comes_back():
    "The namespace deleted under the configured instance, then made again: sessions, weights and counts back."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    before = STATE["configured"]
    config = vtysh_json(r1, "show bgp vrf {} fare json".format(VRF)).get("config")
    assert config and config.get("enabled"), config

    remove_vrf(tgen)
    # configured (interfaces, the BGP instance), so zebra keeps it, inactive
    inactive = "vrf {} inactive".format(VRF)
    assert wait_for(lambda: vrf_line(r1), inactive, count=20) == inactive, r1.vtysh_cmd(
        "show vrf")
    assert "router bgp 65001 vrf " + VRF in r1.vtysh_cmd("show running-config")
    # the instance and its FARE configuration stay; no session, no route state
    assert vtysh_json(r1, "show bgp vrf {} fare json".format(VRF)).get("config") == config
    assert wait_for(lambda: fare_paths(r1, VRF), {}) == {}, fare_paths(r1, VRF)
    assert kernel_weights(r1, PREFIX) == {"r1-eth0": 1}
    logger.info("FARE memory, VRF gone: %s", settled_memory(r1))

    make_vrf(tgen)
    active = re.compile(r"^vrf {0} id \d+ netns /run/netns/{0}$".format(VRF))
    assert wait_for(lambda: bool(active.match(vrf_line(r1) or "")), True, count=30), \
        r1.vtysh_cmd("show vrf")
    up = {"10.0.11.2": True, "10.0.12.2": True}
    assert wait_for(lambda: established(r1, VRF), up, count=90) == up, (
        established(r1, VRF), r1.run("ip netns exec {} ip -br addr".format(VRF)))
    exp = {"r1-eth1": 3, "r1-eth2": 1}
    assert wait_for(lambda: vrf_weights(r1), exp) == exp, vrf_weights(r1)
    assert fare_paths(r1, VRF) == {"r1-eth1": (3, 300), "r1-eth2": (1, 100)}
    # the same counts: the hold-down of the two neighbors whose session
    # went down with the VRF (WP-7) is in their records
    exp = dict(before)
    got = wait_for(lambda: settled_memory(r1), exp, count=10)
    assert got == exp, (got, exp)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
