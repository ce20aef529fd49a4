#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_recursive.py: next hops that zebra resolves recursively.

    r2 (AS 65002, lo 10.255.0.2) ==== two links ==== r1 (AS 65001) ---- r3 (AS 65003)
         to-r1-1 10.100.1.0/24, to-r1-2 10.100.2.0/24       10.100.3.0/24

r2 and r3 both originate 172.16.9.0/24 with the largest Path Bandwidth
(FARE-2). r1 peers with r2 between loopbacks (eBGP multihop, next hop
10.255.0.2), reached by static routes over both links, and with r3 directly.
Configured link bandwidths: 400G towards r2, 800G towards r3.

Zebra gives each hop a recursive next hop resolves to the weight of the BGP
next hop, and installs a hop once: with 10.255.0.2 over two links, r2 would
get twice its weight. FARE does not install weights it cannot make exact:
plain ECMP, with the reason shown (FARE-4 needs the link a path leaves on).
With one static route left, the next hop resolves onto one hop of its own:
weights are exact again, r2:r3 = 400:800 = 1:2 in the kernel.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for, wait_json
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd, pytest.mark.staticd]

PREFIX = "172.16.9.0/24"
INEXACT = "a path's next hop resolves recursively: weights would not be exact"

CONFIGS = {
    "r1": """frr defaults datacenter
hostname r1
interface to-r2-1
 ip address 10.100.1.1/24
interface to-r2-2
 ip address 10.100.2.1/24
interface to-r3
 ip address 10.100.3.1/24
interface lo
 ip address 10.255.0.1/32
ip route 10.255.0.2/32 10.100.1.2
ip route 10.255.0.2/32 10.100.2.2
router bgp 65001
 bgp router-id 10.255.0.1
 no bgp ebgp-requires-policy
 bgp bestpath as-path multipath-relax
 timers bgp 3 9
 neighbor 10.255.0.2 remote-as 65002
 neighbor 10.255.0.2 ebgp-multihop 2
 neighbor 10.255.0.2 update-source lo
 neighbor 10.100.3.3 remote-as 65003
 bgp fare
 bgp fare hold-down 0
 neighbor 10.255.0.2 fare link-bandwidth 400G
 neighbor 10.100.3.3 fare link-bandwidth 800G
""",
    "r2": """frr defaults datacenter
hostname r2
interface to-r1-1
 ip address 10.100.1.2/24
interface to-r1-2
 ip address 10.100.2.2/24
interface lo
 ip address 10.255.0.2/32
ip route 10.255.0.1/32 10.100.1.1
router bgp 65002
 bgp router-id 10.255.0.2
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor 10.255.0.1 remote-as 65001
 neighbor 10.255.0.1 ebgp-multihop 2
 neighbor 10.255.0.1 update-source lo
 address-family ipv4 unicast
  network 172.16.9.0/24
 exit-address-family
 bgp fare
 bgp fare originate
""",
    "r3": """frr defaults datacenter
hostname r3
interface to-r1
 ip address 10.100.3.3/24
router bgp 65003
 bgp router-id 10.255.0.3
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor 10.100.3.1 remote-as 65001
 address-family ipv4 unicast
  network 172.16.9.0/24
 exit-address-family
 bgp fare
 bgp fare originate
""",
}


TOPOLOGY = (Topology().router("r1", "r2", "r3")
            .link("r1", "r2", "to-r2-1", "to-r1-1")
            .link("r1", "r2", "to-r2-2", "to-r1-2")
            .link("r1", "r3", "to-r3", "to-r1"))


def setup_module(mod):
    from lib.topogen import TopoRouter

    daemons = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_STATIC, None),
               (TopoRouter.RD_BGP, "-M fare")]
    start_fabric(mod, TOPOLOGY, CONFIGS.__getitem__, lambda _name: daemons)


def teardown_module(_mod):
    get_topogen().stop_topology()


def test_recursive_over_two_links_is_ecmp():
    "r2's next hop resolves over two links: plain ECMP, reason shown, 1:1:1 in the kernel."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exp = {"prefixes": {PREFIX: {"wcmp": False, "reason": INEXACT, "paths": [{}, {}]}}}
    res = wait_json(r1, "show bgp ipv4 fare {} json".format(PREFIX), exp, count=90)
    assert res is None, res
    paths = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIX))["prefixes"][PREFIX]["paths"]
    inexact = {p["peer"]: p["nexthopInexact"] for p in paths}
    assert inexact == {"10.255.0.2": True, "10.100.3.3": False}
    exp = {"to-r2-1": 1, "to-r2-2": 1, "to-r3": 1}
    assert wait_for(lambda: kernel_weights(r1, PREFIX), exp) == exp


def test_recursive_over_one_link_is_exact():
    "One static route left: r2's next hop ends on one hop of its own, 400:800 = 1:2."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\nno ip route 10.255.0.2/32 10.100.2.2\n")
    exp = {"prefixes": {PREFIX: {"wcmp": True, "paths": [{}, {}]}}}
    res = wait_json(r1, "show bgp ipv4 fare {} json".format(PREFIX), exp, count=30)
    assert res is None, res
    exp = {"to-r2-1": 1, "to-r3": 2}
    assert wait_for(lambda: kernel_weights(r1, PREFIX), exp) == exp


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
