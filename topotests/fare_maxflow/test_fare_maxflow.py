#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_maxflow.py: parallel links counted per neighbor router (FARE-4,
draft mode) deliver the fabric's max-flow, measured with real traffic
through shaped links; counted per session they do not.

              spine1                     spine2          (AS 65000)
    L1 25G  /  \\ L3 100G       L2, L4 100G //
           leaf1 ----------------------------            (AS 65101) -- h1
    L5, L6 100G: spine1-leaf2    L7, L8 100G: spine2-leaf2
           leaf2                                         (AS 65102) -- h2

The white paper's fabric (WP-4) with L1 = 25G. Draft mode. h2 sends to h1.
Max-flow leaf2 -> leaf1: through spine1 min(100 + 100, 25 + 100) = 125,
through spine2 min(200, 200) = 200: 325.

- per neighbor (the default): spine1 advertises min(25 + 100, max) = 125,
  spine2 200; leaf2 gives spine1 min(200, 125) = 125 split 62.5:62.5 and
  spine2 100:100: 5:5:8:8, every link loaded in proportion to its capacity.
- per session: leaf2 gives min(100, 125) and min(100, 200) per link: 1:1:1:1,
  half of the traffic towards spine1's 125: at most 250 without loss, 0.77
  of max-flow.

Links are shaped to 1 Mb/s per nominal 10 Gb/s (tbf on the egress towards
h1: L1 2.5 Mb/s, the others 10 Mb/s; max-flow 32.5 Mb/s). h2 sends 29 Mb/s
(90% of max-flow) in 8192 UDP flows: per neighbor every link stays below
its rate and nothing is lost; per session spine1 gets 14.5 Mb/s for 12.5 and
about 7% is lost. Both are printed side by side.
"""

import os
import sys
import time
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import PACED_SENDER, kernel_weights, report, start_fabric, tgen_or_skip, wait_for
from fare.fabric import Fabric
# the expected kernel weights, shared with the simulator's unit test
# (topotests/fare/expected_weights.txt, tests/unit/test_sim.c)
from fare import expected
from fare.scenarios import WP_LEAF2_UPLINKS, WP_LINKS, WP_ROUTERS

pytestmark = [pytest.mark.bgpd]

# the white paper's fabric (fare.scenarios) with L1 at 25G instead of 50G
ROUTERS = WP_ROUTERS
LINKS = [("leaf1", "spine1", 25)] + WP_LINKS[1:]  # L1, then L3, L2, L4..L8 as there
H1, H2 = "172.16.1.0/24", "172.16.2.0/24"
LEAF2_UPLINKS = WP_LEAF2_UPLINKS
# egress shaping towards h1, Mb/s (1 Mb/s per nominal 10 Gb/s)
SHAPE = {
    "leaf2": {i: 10 for i in LEAF2_UPLINKS},
    "spine1": {"to-leaf1-1": 2.5, "to-leaf1-2": 10},
    "spine2": {"to-leaf1-1": 10, "to-leaf1-2": 10},
}
MAXFLOW = 32.5
OFFERED = 29.0
SECONDS = 6
RESULTS = {}

FABRIC = Fabric(ROUTERS, LINKS, originate={"leaf1": [H1], "leaf2": [H2]},
                fare_lines={n: [" bgp fare", " bgp fare hold-down 0"] for n in ROUTERS})


for _i, _leaf in ((1, "leaf1"), (2, "leaf2")):
    FABRIC.host("h{}".format(_i), "172.16.{}.10/24".format(_i), "via 172.16.{}.1".format(_i))
    FABRIC.link(_leaf, "h{}".format(_i), "to-h", "eth0")


def config(name):
    text = FABRIC.config(name)
    if name in ("leaf1", "leaf2"):
        i = name[-1]
        text = text.replace("!\nrouter bgp", "interface to-h\n ip address 172.16.{}.1/24\n!\nrouter bgp".format(i), 1)
    return text


def setup_module(mod):
    tgen = start_fabric(mod, FABRIC, config)
    # L4 hash, and a seed of its own per router: with one seed everywhere
    # spine1 would see only the hashes leaf2 sent its way and split them
    # by the same function (hash polarisation), whatever its weights.
    for seed, name in enumerate(("leaf2", "spine1", "spine2"), 1):
        tgen.gears[name].run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")
        tgen.gears[name].run("sysctl -w net.ipv4.fib_multipath_hash_seed={}".format(seed * 7919))
    for name, ifs in SHAPE.items():
        for ifname, mbit in ifs.items():
            tgen.gears[name].run(
                "tc qdisc replace dev {} root tbf rate {}mbit burst 16kb latency 100ms".format(ifname, mbit))


def teardown_module(_mod):
    get_topogen().stop_topology()


def _rx_packets(host):
    return int(host.run("cat /sys/class/net/eth0/statistics/rx_packets").strip())


def _measure(tgen):
    """h2 sends OFFERED Mb/s to h1 for SECONDS: (sent, received, Mb/s sent)."""
    h1, h2 = tgen.gears["h1"], tgen.gears["h2"]
    h2.run("ping -c 2 -i 0.2 -W 1 172.16.1.10")
    before = _rx_packets(h1)
    out = h2.run("/usr/bin/python3 {} 172.16.1.10 {} {}".format(
        PACED_SENDER, OFFERED, SECONDS)).split()
    time.sleep(1)  # the queues drain
    received = _rx_packets(h1) - before
    if os.environ.get("FARE_DEBUG_MAXFLOW"):
        for name in ("leaf2", "spine1", "spine2", "leaf1"):
            print(name, tgen.gears[name].run("tc -s qdisc show; ip -s link show"))
    return int(out[0]), received, float(out[1])


def _set_all(tgen, line):
    for name, router in tgen.routers().items():
        if name in ROUTERS:
            router.vtysh_cmd("configure terminal\nrouter bgp {}\n{}\n".format(ROUTERS[name], line))


def _run(tgen, label, weights):
    exp = dict(zip(LEAF2_UPLINKS, weights))
    got = wait_for(lambda: kernel_weights(tgen.gears["leaf2"], H1), exp, count=60)
    assert got == exp, "{}: leaf2 weights {} != {}".format(label, got, exp)
    exp = expected.kernel("maxflow-spine1", ["to-leaf1-1", "to-leaf1-2"])
    assert wait_for(lambda: kernel_weights(tgen.gears["spine1"], H1), exp) == exp
    sent, received, mbit = _measure(tgen)
    assert mbit >= 0.9 * OFFERED, "sender reached {:.1f} Mb/s only".format(mbit)
    RESULTS[label] = (sent, received, mbit)
    return received / sent


def test_per_neighbor_reaches_max_flow():
    "Per neighbor (default): 5:5:8:8 at leaf2; 90% of max-flow offered, nothing lost."
    tgen = tgen_or_skip()
    delivered = _run(tgen, "per neighbor", expected.weights("maxflow"))
    assert delivered >= 0.98, "per neighbor delivered {:.3f} of what was sent".format(delivered)


def test_per_session_loses_traffic():
    "Per session: 1:1:1:1 at leaf2; spine1 overloaded, about 7% lost at the same load."
    tgen = tgen_or_skip()
    _set_all(tgen, "bgp fare parallel-links per-session")
    delivered = _run(tgen, "per session", expected.weights("maxflow-per-session"))
    assert delivered <= 0.96, "per session delivered {:.3f} of what was sent".format(delivered)


def test_report():
    "Side by side: delivered share of the offered load and of max-flow."
    tgen_or_skip()
    lines = ["fare_maxflow: h2 -> h1, offered {:.1f} Mb/s, max-flow {:.1f} Mb/s".format(OFFERED, MAXFLOW),
             "  {:<14} {:>10} {:>10} {:>12} {:>14}".format(
                 "leaf2 counts", "sent Mb/s", "delivered", "of offered", "of max-flow")]
    for label in ("per neighbor", "per session"):
        if label not in RESULTS:
            continue
        sent, received, mbit = RESULTS[label]
        got = mbit * received / sent
        lines.append("  {:<14} {:>10.2f} {:>10.2f} {:>11.1f}% {:>13.1f}%".format(
            label, mbit, got, 100.0 * received / sent, 100.0 * got / MAXFLOW))
    report("\n".join(lines))
    assert len(RESULTS) == 2


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
