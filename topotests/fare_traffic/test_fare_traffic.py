#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_traffic.py: real traffic over FARE weights, against plain ECMP.

           spine1   spine2   spine3   spine4
             |   \\  / |  \\  / |  \\  /  |
           leaf1      leaf2      leaf3
             |          |
            h1          h2

All links 800G except leaf1-spine4, degraded to 400G (a LAG that lost half
its members). leaf2 weighs its uplinks for h1's subnet by min(its link,
what spine j advertises) = 800:800:800:400 = 2:2:2:1 (SPEC FARE-4/5).

h2 sends 4000 UDP flows (one source port each) to h1; leaf2 hashes them by
L4 (net.ipv4.fib_multipath_hash_policy = 1). The share of packets on each
uplink, read from leaf2's interface counters, must match the weights within
3 percentage points. The same fabric with FARE off at leaf2 (plain ECMP)
sends a quarter of the flows towards the degraded 400G path: both are
printed side by side. The fabric and the steps are fare.scenarios', which
the demo (scripts/demo.sh clos) runs too.
"""

import sys
import pytest

# pylint: disable=C0413
from fare.common import tgen_or_skip
from fare.scenarios import (check_plain_ecmp_shows_the_imbalance, check_traffic_split_follows_weights,
                            check_weights_in_kernel, start_traffic_fabric, stop_fabric)

pytestmark = [pytest.mark.bgpd]

RESULTS = {}

setup_module = start_traffic_fabric
teardown_module = stop_fabric


def test_weights_in_kernel():
    "leaf2 installs 2:2:2:1 for h1's subnet (800,800,800,400 Gb/s)."
    check_weights_in_kernel(tgen_or_skip(), RESULTS)


def test_traffic_split_follows_weights():
    "Measured per-uplink shares are within 3 points of 2:2:2:1 (28.6/28.6/28.6/14.3%)."
    check_traffic_split_follows_weights(tgen_or_skip(), RESULTS)


def test_plain_ecmp_shows_the_imbalance():
    "FARE off at leaf2: ECMP 1:1:1:1, a quarter of the flows on the 400G path."
    check_plain_ecmp_shows_the_imbalance(tgen_or_skip(), RESULTS)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
