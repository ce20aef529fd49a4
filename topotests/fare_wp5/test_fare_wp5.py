#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_wp5.py: the white paper's heterogeneous spines (SPEC WP-5), with
real traffic, in averaged mode.

    spine1..spine4: 100G ports      spine5..spine8: 200G ports
              \\  \\  |  /  /             \\  \\  |  /  /
                leaf1 (h1)              leaf2 (h2)

Every leaf-spine link runs at its spine's port speed. leaf1 originates at
each link's line rate (WP-1); each spine has one eligible outgoing link
(to leaf2) and sends min(value, line rate) = 100 or 200 (WP-2); leaf2
weighs the spines 1:1:1:1:2:2:2:2 (WP-3). 4000 UDP flows from h2 to h1
split about 33% / 67% between the two halves (within 3 points), where
plain ECMP splits them 50 / 50.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import kernel_weights, measure_split, report, start_fabric, tgen_or_skip, wait_for
from fare.fabric import Clos3
# the expected kernel weights, shared with the simulator's unit test
# (topotests/fare/expected_weights.txt, tests/unit/test_sim.c)
from fare import expected

pytestmark = [pytest.mark.bgpd]

FLOWS = 4000
SPINES = 8
LINKS = {(leaf, j): (100 if j <= 4 else 200) for leaf in (1, 2) for j in range(1, SPINES + 1)}
UPLINKS = ["to-s{}".format(j) for j in range(1, SPINES + 1)]
AVERAGED = [" bgp fare mode averaged"]
FABRIC = Clos3(
    leaves=2, spines=SPINES, link_gbps=LINKS, hosts=(1, 2),
    extra_leaf_config={1: AVERAGED, 2: AVERAGED},
    extra_spine_config={j: AVERAGED for j in range(1, SPINES + 1)},
)
WEIGHTS = expected.kernel("wp5", UPLINKS)
RESULTS = {}



def setup_module(mod):
    tgen = start_fabric(mod, FABRIC, FABRIC.config)
    tgen.gears["leaf2"].run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")


def teardown_module(_mod):
    get_topogen().stop_topology()


def _halves(shares):
    return (sum(shares[i] for i in UPLINKS[:4]), sum(shares[i] for i in UPLINKS[4:]))


def test_weights_1_1_1_1_2_2_2_2():
    "leaf2 weighs the 100G spines 1 and the 200G spines 2, in the kernel."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    got = wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), WEIGHTS, count=90)
    assert got == WEIGHTS


def test_traffic_33_67():
    "Measured: the 100G half carries 33.3%, the 200G half 66.7%, within 3 points."
    tgen = tgen_or_skip()
    shares = measure_split(tgen.gears["leaf2"], tgen.gears["h2"], UPLINKS, "172.16.1.10", FLOWS)
    RESULTS["fare"] = shares
    low, high = _halves(shares)
    assert abs(low - 100.0 / 3) <= 3.0, "100G half: {:.1f}%".format(low)
    assert abs(high - 200.0 / 3) <= 3.0, "200G half: {:.1f}%".format(high)


def test_plain_ecmp_splits_50_50():
    "FARE off at leaf2: 50 / 50, twice the fair share on the 100G half."
    tgen = tgen_or_skip()
    leaf2 = tgen.gears["leaf2"]
    leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nno bgp fare\n")
    try:
        ecmp = {i: 1 for i in UPLINKS}
        assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), ecmp) == ecmp
        shares = measure_split(leaf2, tgen.gears["h2"], UPLINKS, "172.16.1.10", FLOWS)
        RESULTS["ecmp"] = shares
        low, high = _halves(shares)
        assert abs(low - 50.0) <= 3.0 and abs(high - 50.0) <= 3.0, (low, high)
    finally:
        leaf2.vtysh_cmd("configure terminal\nrouter bgp 65102\nbgp fare\n")
    assert wait_for(lambda: kernel_weights(leaf2, "172.16.1.0/24"), WEIGHTS) == WEIGHTS
    fare, ecmp = _halves(RESULTS["fare"]), _halves(RESULTS["ecmp"])
    report(
        "\n".join(
            [
                "",
                "WP-5 heterogeneous spines, leaf2 towards h1, {} UDP flows (averaged mode)".format(FLOWS),
                "spines        capacity share  FARE measured  ECMP measured",
                "1-4 (100G)    {:>13.1f}%  {:>12.1f}%  {:>12.1f}%".format(100 / 3, fare[0], ecmp[0]),
                "5-8 (200G)    {:>13.1f}%  {:>12.1f}%  {:>12.1f}%".format(200 / 3, fare[1], ecmp[1]),
            ]
        )
    )


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
