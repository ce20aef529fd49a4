#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
The FARE demo (scripts/demo.sh): a 3-stage fabric, 4 spines and 3 leaves,
800G links except one degraded to 400G (leaf1-spine4), hosts h1 and h2.
It prints, for the remote leaf2: the Path Bandwidth per path, the kernel
weights, and the traffic split measured with 4000 UDP flows next to what
plain ECMP gives. It reuses the traffic topotest's fabric and measurement.
"""

import os
import sys

CWD = os.path.dirname(os.path.realpath(__file__))
TOPOTESTS = os.path.join(CWD, "..", "..", "topotests")
sys.path.append(TOPOTESTS)
sys.path.append(os.path.join(TOPOTESTS, "fare_traffic"))

# pylint: disable=C0413,W0401,W0614
from test_fare_traffic import *  # noqa: F401,F403  (fabric, setup, tests)
from test_fare_traffic import setup_module, teardown_module  # noqa: F401


def test_show_leaf2():
    "Print what an operator sees on leaf2."
    tgen = get_topogen()
    leaf2 = tgen.gears["leaf2"]
    print("\n=== leaf2# show bgp ipv4 fare 172.16.1.0/24")
    print(leaf2.vtysh_cmd("show bgp ipv4 fare 172.16.1.0/24"))
    print("=== leaf2# show bgp ipv4 unicast 172.16.1.0/24 (FRR's display, decoded)")
    print(leaf2.vtysh_cmd("show bgp ipv4 unicast 172.16.1.0/24"))
    print("=== leaf2$ ip route show 172.16.1.0/24; ip nexthop")
    print(leaf2.run("ip route show 172.16.1.0/24"))
    nhid = leaf2.run("ip -j route show 172.16.1.0/24 | python3 -c 'import json,sys; print(json.load(sys.stdin)[0][\"nhid\"])'").strip()
    print(leaf2.run("ip nexthop show id {}".format(nhid)))
    print(leaf2.run("ip nexthop show | grep -v group"))
