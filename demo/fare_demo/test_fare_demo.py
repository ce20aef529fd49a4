#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
The FARE demo (scripts/demo.sh): a 3-stage fabric, 4 spines and 3 leaves,
800G links except one degraded to 400G (leaf1-spine4), hosts h1 and h2.
It shows, for the remote leaf2: the Path Bandwidth per path, the kernel
weights, and the traffic split measured with 4000 UDP flows next to what
plain ECMP gives: the traffic topotest's fabric and steps, from
fare.scenarios.
"""

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, report, wait_for
from fare.scenarios import (check_plain_ecmp_shows_the_imbalance, check_traffic_split_follows_weights,
                            check_weights_in_kernel, start_traffic_fabric, stop_fabric)

RESULTS = {}

setup_module = start_traffic_fabric
teardown_module = stop_fabric


def test_show_leaf2():
    "What an operator sees on leaf2, the remote leaf."
    tgen = get_topogen()
    leaf2 = tgen.gears["leaf2"]
    exp = {"to-s1": 2, "to-s2": 2, "to-s3": 2, "to-s4": 1}
    assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp, count=90) == exp
    nhid = leaf2.run(
        "ip -j route show 172.16.1.0/24 | /usr/bin/python3 -c "
        "'import json,sys; print(json.load(sys.stdin)[0][\"nhid\"])'"
    ).strip()
    report(
        "\n".join(
            [
                "FARE demo: 3-stage fabric, 4 spines, 3 leaves, 800G links,",
                "leaf1-spine4 degraded to 400G. The view from leaf2 towards h1 behind leaf1.",
                "",
                "leaf2# show bgp ipv4 fare 172.16.1.0/24",
                leaf2.vtysh_cmd("show bgp ipv4 fare 172.16.1.0/24").rstrip(),
                "",
                "leaf2# show bgp ipv4 unicast 172.16.1.0/24   (FRR's display, community decoded)",
                leaf2.vtysh_cmd("show bgp ipv4 unicast 172.16.1.0/24").rstrip(),
                "",
                "leaf2$ ip route show 172.16.1.0/24; ip nexthop show id {}".format(nhid),
                leaf2.run("ip route show 172.16.1.0/24").rstrip(),
                leaf2.run("ip nexthop show id {}".format(nhid)).rstrip(),
            ]
        )
    )


def test_weights_in_kernel():
    check_weights_in_kernel(get_topogen(), RESULTS)


def test_traffic_split_follows_weights():
    check_traffic_split_follows_weights(get_topogen(), RESULTS)


def test_plain_ecmp_shows_the_imbalance():
    check_plain_ecmp_shows_the_imbalance(get_topogen(), RESULTS)
