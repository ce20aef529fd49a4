#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
FARE on GPU servers as a demo (`scripts/demo.sh sun`): a scale-up network of
4 planes, 2 servers with 2 GPUs each, every server port a Y-cable of two
400G sub-ports, one unnumbered session per sub-port, servers in the host
role (SUN-1). Prints server s1's per-GPU plane table and its kernel
nexthop group towards s2's GPU, before and after one sub-port of s2's
plane-4 port fails (SUN-2: plane 4's share halves, 2:2:2:2:2:2:1:1).
"""


import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, reduced, report, start_fabric, wait_for
from fare.fabric import ScaleUp, gpu_prefix

pytestmark = [pytest.mark.bgpd]

NET = ScaleUp(servers=2, planes=4, gpus=2, subports=2, gbps=400)
DEST = gpu_prefix(2, 1)
HEALTHY = {i: 1 for i in NET.server_ifs()}
HALF = {i: (1 if i.startswith("p4") else 2) for i in NET.server_ifs()}


def setup_module(mod):
    start_fabric(mod, NET, NET.config)


def teardown_module(mod):
    get_topogen().stop_topology()


def snapshot(s1, title):
    return [
        title,
        "",
        "s1# show bgp fare planes",
        s1.vtysh_cmd("show bgp fare planes").rstrip(),
        "",
        "s1$ ip route show {}".format(DEST),
        s1.run("ip route show {}".format(DEST)).rstrip(),
        "",
    ]


def test_sun_half_failure():
    tgen = get_topogen()
    s1, s2 = tgen.gears["s1"], tgen.gears["s2"]
    got = wait_for(lambda: reduced(kernel_weights(s1, DEST)), HEALTHY, count=90)
    assert got == HEALTHY, "s1 towards {}: {}".format(DEST, got)
    lines = [
        "FARE demo: GPU servers in a 4-plane scale-up network (SUN-1, SUN-2).",
        "Each server port is a Y-cable of two 400G sub-ports (p1a, p1b, ... p4b).",
        "",
    ]
    lines += snapshot(s1, "== Healthy: every plane carries 1/4 towards {} ==".format(DEST))

    s2.run("ip link set p4b down")
    got = wait_for(lambda: reduced(kernel_weights(s1, DEST)), HALF, count=60)
    assert got == HALF, "s1 towards {} after s2's p4b failed: {}".format(DEST, got)
    lines += snapshot(
        s1, "== s2's sub-port p4b failed: plane p4 at 400G, its share halves (1/7) =="
    )
    s2.run("ip link set p4b up")
    report("\n".join(lines))
