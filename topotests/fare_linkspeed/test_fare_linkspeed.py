#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_linkspeed.py: the link bandwidth of a session is the line rate
the kernel reports for its interface, and follows it at runtime (SPEC
FARE-3: "for a bond, the sum of its active members, so a member failure
shows up as a lower speed"; WP-7: a decrease applies at once, an increase
only after the hold-down).

                  10.0.12.0/24            10.0.24.0/24
      +-- r1-lag ==(r1-eth0)=== r2 (AS 65002) ------------+
      |  (tap, speed set                                  |
      |   with ethtool)                                   r4 (AS 65004)
  r1 (AS 65001)                                           |  originates
      |                   10.0.13.0/24            10.0.34.0/24  172.16.4.0/24
      +-- r1-eth1 ------------- r3 (AS 65003) ------------+  (bgp fare originate)

All links are veth pairs, which report 10000 Mb/s. No `fare
link-bandwidth` and no zebra `bandwidth` anywhere: every link bandwidth
is zebra's interface speed, read from the kernel (ethtool ioctl).

How the kernel speed of r1's session to r2 is made to change
------------------------------------------------------------
Speed is a property of the device, so the session must run over a device
whose speed can be changed at runtime, as a LAG's does when a member
fails:
- a veth reports a fixed 10000 Mb/s and refuses `ethtool -s`;
- this kernel has no bonding, team or netdevsim;
- a Linux bridge reports the HIGHEST speed of its running, carrier-up
  ports (br_get_link_ksettings(), since Linux 5.5: "we return the maximum
  speed of all active ports"), checked here: br0 = {veth, tap at 5000}
  reports 10000, with the tap at 20000 it reports 20000. A bridge that
  has the veth to r2 as a port can never report less than 10000;
- a tap device's speed is settable (`ethtool -s TAP speed N duplex full`).
So r1's interface towards r2 is a tap, r1-lag, standing in for the LAG;
it carries the address 10.0.12.1 and the session. The veth r1-eth0 is
only its wire: tc mirred redirects every frame received on r1-eth0 to
r1-lag's ingress, and every frame sent out of r1-lag to r1-eth0's egress
(kernel only, no user-space copy). r1-eth0 has r1-lag's MAC address (so
the redirected frames are PACKET_HOST), no IPv6 and arp_ignore 8 (so it
never answers for r1 itself). A tap has no carrier until a process
attaches to it: tap_holder.py holds it open and sleeps.

`ethtool -s` on the tap changes its speed but sends no netlink message.
zebra reads an interface's speed again on every RTM_NEWLINK for it
(patch 0017, issue 20 item 10): if_zebra_speed_reread() reads
kernel_get_speed() (ETHTOOL_GSET), logs "if_zebra_speed_reread: r1-lag
old speed: X new speed: Y" and, when it changed, sends
ZEBRA_INTERFACE_ADD with the new speed (bgpd: lib's if_real hook). The
RTM_NEWLINK used here is the one the kernel's netdev_state_change() sends
for an up device whose flags did not change, as for any change of its
attributes: it is caused with `ip link set dev r1-lag alias ...`, the
alias describing the LAG's state. Flapping the tap's carrier instead
would be a link failure (session down, zebra if_down/if_up), not a speed
change.

What this proves, and what it does not: zebra re-reads the speed on a
link message that is neither an up nor a down, at once, also while its
speed timer is pending (the second change below comes within 5 s of the
first) and for an interface that is not operative (r1-spare, a tap
without carrier: before patch 0017 zebra read its speed only at creation
and when it came up). It does not prove that a bond sends a link message
when it loses a member: this kernel has no bonding. Linux's bonding
driver notifies a member's state change (RTM_NEWLINK for the member, whose
link message also makes zebra re-read its bond's speed) and the bond's
own changes; which messages a given mode sends is not tested here.

Before patch 0017, zebra re-read the speed only through
if_up() -> a 0 s if_zebra_speed_update() timer, which event_add_timer()
drops while an earlier read is pending (15 s after zebra learns an
interface, 5 s after each change), and never for an interface that is
not operative.

Expected values on r1 for 172.16.4.0/24 (draft mode, bytes per second):
r4 originates the largest float (FARE-2); r2 and r3 each weigh it by
min(10 Gb/s link, max) and re-advertise 1.25e9 (FARE-4/5); r1 weighs the
path via r2 min(r1-lag speed, 1.25e9) and the path via r3 1.25e9:

  r1-lag speed     via r2 (r1-lag)   via r3 (r1-eth1)   kernel r1-lag:r1-eth1
  10000 Mb/s       1.25e9            1.25e9             1:1
   5000 Mb/s       6.25e8            1.25e9             1:2   at once
   2500 Mb/s       3.125e8           1.25e9             1:4   at once
  10000 Mb/s       3.125e8 (held)    1.25e9             1:4   for the hold-down (6 s)
                   1.25e9            1.25e9             1:1   after it

Each change re-evaluates only the routes with a path over r1-lag, in one
deferred pass: PREFIX, not r3's own 172.16.3.0/24 (best via r3 alone);
r1's debug log says "1 of 2 route(s) re-evaluated".
"""

import os
import re
import sys
import time
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import GBPS, kernel_weights, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

HOLD_DOWN = 6
PREFIX = "172.16.4.0/24"
# r3's own prefix: r1's best path is via r3 alone (the path via r2 is
# longer), so a change of r1-lag leaves it alone
R3_PREFIX = "172.16.3.0/24"
LAG = "r1-lag"  # r1's tap towards r2
WIRE = "r1-eth0"  # the veth under it
SPARE = "r1-spare"  # a tap with no carrier (no BGP session)
VIA_R2, VIA_R3 = "10.0.12.2", "10.0.13.3"
ASN = {"r1": 65001, "r2": 65002, "r3": 65003, "r4": 65004}
# {router: [(interface, address/len, (neighbor, remote as) or None)]}
IFACES = {
    "r1": [(LAG, "10.0.12.1/24", (VIA_R2, 65002)),
           ("r1-eth1", "10.0.13.1/24", (VIA_R3, 65003))],
    "r2": [("r2-eth0", "10.0.12.2/24", ("10.0.12.1", 65001)),
           ("r2-eth1", "10.0.24.2/24", ("10.0.24.4", 65004))],
    "r3": [("r3-eth0", "10.0.13.3/24", ("10.0.13.1", 65001)),
           ("r3-eth1", "10.0.34.3/24", ("10.0.34.4", 65004))],
    "r4": [("r4-eth0", "10.0.24.4/24", ("10.0.24.2", 65002)),
           ("r4-eth1", "10.0.34.4/24", ("10.0.34.3", 65003))],
}
HOLDER = os.path.join(CWD, "tap_holder.py")
STATE = {}
holder_proc = None


TOPOLOGY = (Topology().router(*ASN)
            .link("r1", "r2", WIRE, "r2-eth0")
            .link("r1", "r3", "r1-eth1", "r3-eth0")
            .link("r2", "r4", "r2-eth1", "r4-eth0")
            .link("r3", "r4", "r3-eth1", "r4-eth1"))


def config_of(name):
    asn = ASN[name]
    lines = ["frr defaults datacenter", "hostname " + name]
    if name == "r1":
        lines += ["debug zebra kernel", "debug zebra events", "debug bgp zebra", "debug bgp fare"]
    lines += ["!"]
    for ifname, addr, _ in IFACES[name]:
        lines += ["interface " + ifname, " ip address " + addr, "!"]
    lines += [
        "router bgp {}".format(asn),
        " bgp router-id 10.255.0.{}".format(asn % 100),
        " no bgp ebgp-requires-policy",
        " no bgp network import-check",
        " bgp bestpath as-path multipath-relax",
        " timers bgp 3 9",
    ]
    lines += [" neighbor {} remote-as {}".format(n, r) for _, _, (n, r) in IFACES[name]]
    if name == "r4":
        lines += [" address-family ipv4 unicast", "  network " + PREFIX, " exit-address-family"]
    if name == "r3":
        lines += [" address-family ipv4 unicast", "  network " + R3_PREFIX,
                  " exit-address-family"]
    lines += [" bgp fare"]
    if name == "r4":
        lines += [" bgp fare originate"]
    if name == "r1":
        lines += [" bgp fare hold-down {}".format(HOLD_DOWN)]
    lines += ["!"]
    return "\n".join(lines) + "\n"


def _setup_lag(r1):
    "r1-lag: a tap held open, speed 10000, wired to the veth r1-eth0 by tc mirred."
    global holder_proc
    # r1-spare: up, no carrier (nobody attached): never operative
    r1.cmd_raises("ip tuntap add dev {} mode tap".format(SPARE))
    r1.cmd_raises("ethtool -s {} speed 10000 duplex full".format(SPARE))
    r1.cmd_raises("ip link set dev {} up".format(SPARE))
    r1.cmd_raises("ip tuntap add dev {} mode tap".format(LAG))
    r1.cmd_raises("ethtool -s {} speed 10000 duplex full".format(LAG))
    r1.cmd_raises("ip link set dev {} address $(cat /sys/class/net/{}/address)".format(WIRE, LAG))
    r1.cmd_raises(
        "sysctl -qw net.ipv6.conf.{0}.disable_ipv6=1 net.ipv4.conf.{0}.arp_ignore=8".format(WIRE)
    )
    for dev in (WIRE, LAG):
        r1.cmd_raises("tc qdisc add dev {} clsact".format(dev))
    r1.cmd_raises(
        "tc filter add dev {} ingress protocol all u32 match u32 0 0 "
        "action mirred ingress redirect dev {}".format(WIRE, LAG)
    )
    r1.cmd_raises(
        "tc filter add dev {} egress protocol all u32 match u32 0 0 "
        "action mirred egress redirect dev {}".format(LAG, WIRE)
    )
    r1.cmd_raises("ip link set dev {} up".format(WIRE))
    r1.cmd_raises("ip link set dev {} up".format(LAG))
    holder_proc = r1.popen(["/usr/bin/python3", HOLDER, LAG])
    carrier = wait_for(
        lambda: r1.run("cat /sys/class/net/{}/carrier".format(LAG)).strip(), "1", count=20, wait=0.5
    )
    assert carrier == "1", "tap {} has no carrier".format(LAG)


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config_of, prepare=lambda tgen: _setup_lag(tgen.gears["r1"]))


def teardown_module(_mod):
    if holder_proc is not None:
        holder_proc.kill()
        holder_proc.wait()
    get_topogen().stop_topology()


# --- helpers --------------------------------------------------------------


def _zebra_speed_timer_idle(r1):
    return "if_zebra_speed_update" not in r1.vtysh_cmd("show event timers", daemon="zebra")


def _set_lag_speed(r1, mbps, dev=LAG):
    """The LAG's line rate becomes `mbps` (a member lost or back): the
    kernel speed changes, then the kernel sends RTM_NEWLINK for the device
    with its flags unchanged (netdev_state_change() via the alias).
    Returns the time of the change."""
    r1.cmd_raises("ethtool -s {} speed {} duplex full".format(dev, mbps))
    r1.cmd_raises("ip link set dev {} alias 'LAG: {} Mb/s'".format(dev, mbps))
    return time.time()


def _zebra_speed(r1, dev=LAG):
    return vtysh_json(r1, "show interface {} json".format(dev)).get(dev, {}).get("speed")


def _zebra_reads_at_once(r1, mbps, t0, dev=LAG):
    "zebra has the new speed within 1.5 s of the link message (patch 0017)."
    got = wait_for(lambda: _zebra_speed(r1, dev), mbps, count=6, wait=0.25)
    elapsed = time.time() - t0
    assert got == mbps, "zebra speed of {} {} after {:.1f} s, kernel {}".format(
        dev, got, elapsed, mbps)
    assert elapsed < 1.5, "zebra read {} Mb/s after {:.1f} s".format(mbps, elapsed)


def _kernel_speed(r1):
    return int(r1.run("cat /sys/class/net/{}/speed".format(LAG)).strip())


def _paths(r1):
    """{interface: (linkBandwidthBytesPerSec, linkBandwidthSource,
    linkBandwidthHeld, weight)} of the paths of PREFIX in r1's FARE view."""
    v = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIX))
    p = v.get("prefixes", {}).get(PREFIX, {})
    return {
        q["interface"]: (
            q.get("linkBandwidthBytesPerSec"),
            q.get("linkBandwidthSource"),
            q.get("linkBandwidthHeld"),
            q.get("weight"),
        )
        for q in p.get("paths", [])
    }


def _expected_paths(lag_bw, held=False, lag_w=1, eth1_w=1):
    src = "interface speed"
    return {LAG: (lag_bw, src, held, lag_w), "r1-eth1": (10 * GBPS, src, False, eth1_w)}


def _kernel(r1):
    return kernel_weights(r1, PREFIX)


def _refreshes(r1, why):
    """The (re-evaluated, walked) route counts of r1's deferred refreshes
    for `why`, in order, from its debug log."""
    log = open(os.path.join(get_topogen().logdir, "r1", "bgpd.log")).read()
    pat = r"FARE: VRF default: {}, (\d+) of (\d+) route\(s\) re-evaluated".format(re.escape(why))
    return [(int(a), int(b)) for a, b in re.findall(pat, log)]


def _held_down(r1):
    return vtysh_json(r1, "show bgp fare json")["counters"]["heldDown"]


def _state(r1):
    "Everything the assertions look at, for failure messages."
    return "kernel speed {}, zebra speed {}, kernel weights {}, FARE paths {}\n{}".format(
        _kernel_speed(r1), _zebra_speed(r1), _kernel(r1), _paths(r1),
        r1.vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX)),
    )


def _decrease(r1, mbps, lag_bw, kernel_exp):
    """Set the LAG's speed lower; the new weight must reach the kernel at
    once. Returns the refreshes (re-evaluated, walked) it caused."""
    before = len(_refreshes(r1, "link bandwidth changed"))
    t0 = _set_lag_speed(r1, mbps)
    # zebra read the new speed from the kernel (not config), on the link
    # message itself
    _zebra_reads_at_once(r1, mbps, t0)
    got = wait_for(lambda: _kernel(r1), kernel_exp, count=2 * HOLD_DOWN, wait=0.5)
    elapsed = time.time() - t0
    assert got == kernel_exp, "kernel weights after {} Mb/s: {}".format(mbps, _state(r1))
    assert elapsed < HOLD_DOWN, "a decrease must not wait for the hold-down ({:.1f} s)".format(elapsed)
    exp = _expected_paths(lag_bw, lag_w=kernel_exp[LAG], eth1_w=kernel_exp["r1-eth1"])
    assert wait_for(lambda: _paths(r1), exp, count=4, wait=0.5) == exp, _state(r1)
    return _refreshes(r1, "link bandwidth changed")[before:]


# --- tests ----------------------------------------------------------------


def test_setup_kernel_speed_path():
    "FARE-3 set-up: r1-lag speed from the kernel (tap 10000, veth 10000), sessions up, no override."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    assert _kernel_speed(r1) == 10000
    assert int(r1.run("cat /sys/class/net/r1-eth1/speed").strip()) == 10000
    assert "NO-CARRIER" not in r1.run("ip link show {}".format(LAG))
    assert wait_for(lambda: _zebra_speed(r1), 10000, count=30) == 10000
    # zebra's initial speed read (15 s after it learns an interface) is done
    assert wait_for(lambda: _zebra_speed_timer_idle(r1), True, count=40) is True
    for peer in (VIA_R2, VIA_R3):
        cmd = "show bgp neighbors {} json".format(peer)
        state = wait_for(
            lambda: vtysh_json(r1, cmd).get(peer, {}).get("bgpState"), "Established", count=60
        )
        assert state == "Established", "{} {}".format(peer, state)
    # no override anywhere (FARE-3 default): no fare link-bandwidth, no zebra bandwidth
    cfg = r1.vtysh_cmd("show running-config")
    assert "link-bandwidth" not in cfg and "\n bandwidth" not in cfg


def test_start_both_paths_from_interface_speed():
    "FARE-3/4: both paths 10 Gb/s (1.25e9 B/s) from the interface speed; kernel 1:1."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    exp = _expected_paths(10 * GBPS)
    assert wait_for(lambda: _paths(r1), exp, count=60) == exp, _state(r1)
    v = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIX))["prefixes"][PREFIX]
    assert v["wcmp"] is True
    assert {p["interface"]: p["transitive"]["bytesPerSec"] for p in v["paths"]} == {
        LAG: 10 * GBPS, "r1-eth1": 10 * GBPS}
    assert wait_for(lambda: _kernel(r1), {LAG: 1, "r1-eth1": 1}) == {LAG: 1, "r1-eth1": 1}, _state(r1)


def test_speed_decrease_5000_applies_at_once():
    "FARE-3, WP-7: r1-lag 10000 -> 5000 Mb/s: via r2 6.25e8 B/s, kernel 1:2, at once."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    STATE["refreshes_5000"] = _decrease(r1, 5000, 5 * GBPS, {LAG: 1, "r1-eth1": 2})
    log = open(os.path.join(tgen.logdir, "r1", "zebra.log")).read()
    # if_zebra_speed_reread() (patch 0017; if_zebra_speed_update() before)
    assert "{} old speed: 10000 new speed: 5000".format(LAG) in log


def test_speed_change_refreshes_only_routes_through_it():
    """A link bandwidth change re-evaluates only the routes with a path
    over that link: of r1's two routes, PREFIX (via r2 and r3), not
    R3_PREFIX (via r3 alone), in one deferred pass per change."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = vtysh_json(r1, "show bgp ipv4 fare {} json".format(R3_PREFIX))["prefixes"][R3_PREFIX]
    assert [p["interface"] for p in v["paths"]] == ["r1-eth1"], v
    assert STATE.get("refreshes_5000") == [(1, 2)], STATE


def test_speed_decrease_2500_applies_at_once():
    """FARE-3, WP-7: r1-lag 5000 -> 2500 Mb/s: via r2 3.125e8 B/s, kernel
    1:4, at once. It comes within 5 s of the previous change: before
    patch 0017 zebra read it only when its 5 s speed timer fired."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    assert _decrease(r1, 2500, 2.5 * GBPS, {LAG: 1, "r1-eth1": 4}) == [(1, 2)]


def test_speed_read_on_link_message_when_not_operative():
    """r1-spare (no carrier, not operative) 10000 -> 1000 Mb/s: zebra reads
    it on the link message; before patch 0017 only when it came up."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    assert "NO-CARRIER" in r1.run("ip link show {}".format(SPARE))
    assert _zebra_speed(r1, SPARE) == 10000
    assert wait_for(lambda: _zebra_speed_timer_idle(r1), True, count=40, wait=0.5)
    t0 = _set_lag_speed(r1, 1000, dev=SPARE)
    _zebra_reads_at_once(r1, 1000, t0, dev=SPARE)


def test_speed_increase_waits_for_hold_down():
    "WP-7: r1-lag 2500 -> 10000 Mb/s: held at 3.125e8 B/s (1:4) for the hold-down, then 1:1."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    before_kernel = {LAG: 1, "r1-eth1": 4}
    after_kernel = {LAG: 1, "r1-eth1": 1}
    assert _kernel(r1) == before_kernel, _state(r1)
    held_before = _held_down(r1)

    t0 = _set_lag_speed(r1, 10000)
    _zebra_reads_at_once(r1, 10000, t0)
    # bgpd has seen the increase and holds the old value
    exp = _expected_paths(2.5 * GBPS, held=True, lag_w=1, eth1_w=4)
    got = wait_for(lambda: _paths(r1), exp, count=6, wait=0.5)
    assert got == exp, "increase not held: {}".format(_state(r1))
    assert time.time() - t0 < HOLD_DOWN - 1
    assert _kernel(r1) == before_kernel, "increase applied before the hold-down: {}".format(_state(r1))
    assert _held_down(r1) == held_before + 1

    got = wait_for(lambda: _kernel(r1), after_kernel, count=4 * (HOLD_DOWN + 6), wait=0.25)
    elapsed = time.time() - t0
    assert got == after_kernel, "increase never applied: {}".format(_state(r1))
    assert elapsed >= HOLD_DOWN - 1, "increase applied after {:.1f} s, hold-down {} s".format(
        elapsed, HOLD_DOWN
    )
    exp = _expected_paths(10 * GBPS)
    assert wait_for(lambda: _paths(r1), exp, count=4, wait=0.5) == exp, _state(r1)
    # the hold-down's end re-evaluates the routes through r1-lag only
    assert wait_for(lambda: _refreshes(r1, "hold-down ended"), [(1, 2)], count=4) == [(1, 2)]


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
