#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
The white paper's worked example as a demo (`scripts/demo.sh whitepaper`):
averaged mode, Leaf1-Spine1 links of 50G and 100G, 100G elsewhere, one
session per link (SPEC WP-4). Prints what Spine1 averages and what Leaf2
installs: 75:75:100:100 = 3:3:4:4, in show and in the kernel.
"""

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, report, wait_for
from fare.scenarios import WP_LEAF2_UPLINKS, start_whitepaper_fabric, stop_fabric

setup_module = start_whitepaper_fabric
teardown_module = stop_fabric


def test_whitepaper_example():
    tgen = get_topogen()
    leaf2, spine1 = tgen.gears["leaf2"], tgen.gears["spine1"]
    exp = dict(zip(WP_LEAF2_UPLINKS, [3, 3, 4, 4]))
    assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), exp, count=90) == exp
    report(
        "\n".join(
            [
                "FARE demo: the white paper's worked example (averaged mode).",
                "Leaf1-Spine1: L1 50G, L3 100G; Leaf1-Spine2: L2, L4 100G; spines-Leaf2: 100G.",
                "",
                "spine1# show bgp ipv4 fare 172.16.1.0/24",
                spine1.vtysh_cmd("show bgp ipv4 fare 172.16.1.0/24").rstrip(),
                "",
                "leaf2# show bgp ipv4 fare 172.16.1.0/24",
                leaf2.vtysh_cmd("show bgp ipv4 fare 172.16.1.0/24").rstrip(),
                "",
                "leaf2$ ip route show 172.16.1.0/24",
                leaf2.run("ip route show 172.16.1.0/24").rstrip(),
            ]
        )
    )
