#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_holddown.py: what the WP-7 hold-down holds and what it does not.

      r2 (AS 65002) --- r1-eth0: BGP unnumbered ---+
      originates 172.16.9.0/24                       r1 (AS 65001)
      r3 (AS 65003) --- r1-eth1: 10.0.13.0/24 -----+  `bgp fare hold-down 8`
      originates 172.16.9.0/24 (anycast)             r3 is a dynamic neighbor
                                                     of r1 (`bgp listen range`)

r2 and r3 originate the same prefix with the largest value (FARE-2); r1
weighs each path min(link, max) = its link bandwidth (FARE-4), both veth
links report 10000 Mb/s: 1:1.

1. The operator's `bandwidth 40000` on r1-eth0, where r1 had only the
   kernel's 10000 Mb/s, is a bandwidth learned, not a link coming back:
   it applies at once (4:1), nothing is held and `heldDown` does not count
   it. This is what happens at start-up when zebra applies its interface
   configuration after it reported the interface (seen with BGP
   unnumbered: 1:40 installed for the hold-down where 1:4 was due).
   FARE 0.2 held the kernel speed for the hold-down.
2. A configured bandwidth raised again (40000 -> 80000) is an increase of
   the same kind: held for the hold-down, then applied (8:1).
3. A dynamic neighbor's session that goes and comes back is held down like
   a configured neighbor's: bgpd deletes a dynamic neighbor when its
   session goes, and FARE 0.2 took the new one for a first session, so a
   flapping server session was never held down. Here r3's path carries
   nothing until the hold-down ends (only r1-eth0 in the kernel), then
   8:1 again.
"""

import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

HOLD_DOWN = 8
PREFIX = "172.16.9.0/24"
R3 = "10.0.13.3"  # r3's address: the dynamic neighbor's name on r1


TOPOLOGY = (Topology().router("r1", "r2", "r3")
            .link("r1", "r2", "r1-eth0", "r2-eth0")
            .link("r1", "r3", "r1-eth1", "r3-eth0"))


CONFIGS = {
    "r1": """
interface r1-eth1
 ip address 10.0.13.1/24
!
router bgp 65001
 bgp router-id 10.255.0.1
 no bgp ebgp-requires-policy
 bgp bestpath as-path multipath-relax
 timers bgp 3 9
 neighbor r1-eth0 interface remote-as external
 neighbor SERVERS peer-group
 neighbor SERVERS remote-as external
 neighbor SERVERS timers 3 9
 bgp listen range 10.0.13.0/24 peer-group SERVERS
 bgp fare
 bgp fare hold-down {hold}
!
""",
    "r2": """
router bgp 65002
 bgp router-id 10.255.0.2
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor r2-eth0 interface remote-as external
 address-family ipv4 unicast
  network {prefix}
 exit-address-family
 bgp fare
 bgp fare originate
!
""",
    "r3": """
interface r3-eth0
 ip address 10.0.13.3/24
!
router bgp 65003
 bgp router-id 10.255.0.3
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor 10.0.13.1 remote-as 65001
 neighbor 10.0.13.1 timers connect 2
 address-family ipv4 unicast
  network {prefix}
 exit-address-family
 bgp fare
 bgp fare originate
!
""",
}


def config(name):
    return "frr defaults datacenter\nhostname {}\ndebug bgp fare\n!".format(name) + CONFIGS[name].format(
        hold=HOLD_DOWN, prefix=PREFIX)


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _weights(r1):
    return kernel_weights(r1, PREFIX)


def _held_down(r1):
    return vtysh_json(r1, "show bgp fare json")["counters"]["heldDown"]


def _paths(r1):
    "{interface: (link bandwidth Gb/s, link held, session in hold-down, weight)} of r1's view."
    j = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIX))
    p = j.get("prefixes", {}).get(PREFIX)
    if not p:
        return {}
    return {q["interface"]: (q["linkBandwidthBytesPerSec"] * 8 / 1e9, q["linkBandwidthHeld"],
                             q["holdDown"], q["weight"]) for q in p["paths"]}


def _bandwidth(r1, mbps):
    r1.vtysh_cmd("configure terminal\ninterface r1-eth0\nbandwidth {}\n".format(mbps))


def _r3_state(r1):
    j = vtysh_json(r1, "show bgp neighbors {} json".format(R3))
    return j.get(R3, {}).get("bgpState")


def test_start():
    "Both links at the kernel's 10000 Mb/s: 1:1; nothing held."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exp = {"r1-eth0": 1, "r1-eth1": 1}
    assert wait_for(lambda: _weights(r1), exp, count=90) == exp, _paths(r1)
    exp = {"r1-eth0": (10.0, False, False, 1), "r1-eth1": (10.0, False, False, 1)}
    assert wait_for(lambda: _paths(r1), exp) == exp
    assert _held_down(r1) == 0


def test_configured_bandwidth_learned_at_once():
    """WP-7: the first `bandwidth` on r1-eth0 (40000, where the kernel
    says 10000) applies at once: 4:1, not held, not counted."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    held = _held_down(r1)
    t0 = time.time()
    _bandwidth(r1, 40000)
    exp = {"r1-eth0": 4, "r1-eth1": 1}
    got = wait_for(lambda: _weights(r1), exp, count=2 * (HOLD_DOWN - 2), wait=0.5)
    elapsed = time.time() - t0
    assert got == exp, "{} after {:.1f} s: {}".format(got, elapsed, _paths(r1))
    assert elapsed < HOLD_DOWN - 2
    assert _paths(r1)["r1-eth0"] == (40.0, False, False, 4)
    assert _held_down(r1) == held


def test_configured_increase_is_held():
    """WP-7: raising the configured bandwidth (40000 -> 80000) is an
    increase: held (4:1) until the hold-down ends, then 8:1."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    held = _held_down(r1)
    _bandwidth(r1, 80000)
    # the hold-down is counted when bgpd sees the increase: the check waits
    # for that, then for the end of the hold-down
    assert wait_for(lambda: _held_down(r1), held + 1, count=10, wait=0.5) == held + 1
    t0 = time.time()
    # the view is rebuilt on the link's change: wait for it to show the hold
    held_view = (40.0, True, False, 4)
    assert wait_for(lambda: _paths(r1).get("r1-eth0"), held_view, count=6, wait=0.25) == held_view
    assert _weights(r1) == {"r1-eth0": 4, "r1-eth1": 1}
    exp = {"r1-eth0": 8, "r1-eth1": 1}
    got = wait_for(lambda: _weights(r1), exp, count=2 * (HOLD_DOWN + 5), wait=0.5)
    assert got == exp
    assert time.time() - t0 >= HOLD_DOWN - 2


def test_dynamic_neighbor_held_down():
    """WP-7: r3, a dynamic neighbor, goes and comes back: its new session
    is held down (counted, holdDown on its path, weight 0: only r1-eth0
    in the kernel), then 8:1 after the hold-down."""
    tgen = tgen_or_skip()
    r1, r3 = tgen.gears["r1"], tgen.gears["r3"]
    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\nneighbor 10.0.13.1 shutdown\n")
    assert wait_for(lambda: _r3_state(r1), None, count=30) is None, "r1 still has r3"
    assert wait_for(lambda: _weights(r1), {"r1-eth0": 1}, count=20) == {"r1-eth0": 1}
    held = _held_down(r1)
    r3.vtysh_cmd("configure terminal\nrouter bgp 65003\nno neighbor 10.0.13.1 shutdown\n")
    assert wait_for(lambda: _r3_state(r1), "Established", count=60) == "Established"
    t0 = time.time()
    assert wait_for(lambda: _held_down(r1), held + 1, count=6, wait=0.5) == held + 1
    exp = {"r1-eth0": (80.0, False, False, 1), "r1-eth1": (10.0, False, True, 0)}
    got = wait_for(lambda: _paths(r1), exp, count=6, wait=0.5)
    assert got == exp
    assert _weights(r1) == {"r1-eth0": 1}
    exp = {"r1-eth0": 8, "r1-eth1": 1}
    got = wait_for(lambda: _weights(r1), exp, count=2 * (HOLD_DOWN + 5), wait=0.5)
    assert got == exp
    assert time.time() - t0 >= HOLD_DOWN - 2


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
