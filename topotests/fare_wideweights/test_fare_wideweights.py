#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_wideweights.py: 16-bit kernel nexthop weights (WP-3, patch
0010), where the kernel takes them (Linux 6.12 and later).

    r2 (AS 65002) --1000G-- r1 (AS 65001) --999G-- r3 (AS 65003)

r2 and r3 both originate 172.16.9.0/24 with the largest Path Bandwidth
(FARE-2); r1 weighs them min(link, max) = 1000G : 999G (FARE-4).

- Default (bgp fare wcmp max-weight 254): 1000:999 does not fit 8-bit
  weights; the reduction installs the best vector within 254 per member,
  and the kernel holds exactly what FARE computed.
- bgp fare wcmp max-weight 65535 and max-members 65535: the exact ratio
  1000:999 reaches the kernel's nexthop group unscaled, the weights above
  255 in the high byte (weight_high), read back over netlink.
"""

import os
import platform
import sys
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))
sys.path.append(os.path.join(CWD, ".."))

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare_common import (kernel_weights, kernel_weights_wide, start_fabric, tgen_or_skip,
                         vtysh_json, wait_for)
from fare_graph import Fabric

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.9.0/24"
FABRIC = Fabric({"r1": 65001, "r2": 65002, "r3": 65003},
                [("r1", "r2", 1000), ("r1", "r3", 999)],
                originate={"r2": [PREFIX], "r3": [PREFIX]})


def _kernel_16bit():
    major, minor = (int(x) for x in platform.release().split(".")[:2])
    return (major, minor) >= (6, 12)


def build_topo(tgen):
    FABRIC.build_topo(tgen)


def setup_module(mod):
    start_fabric(mod, build_topo, FABRIC.config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _fare_weights(r1):
    j = vtysh_json(r1, "show bgp ipv4 fare {} json".format(PREFIX))
    paths = j.get("prefixes", {}).get(PREFIX, {}).get("paths", [])
    return {p["interface"]: p["weight"] for p in paths}


def test_default_8bit_weights():
    "max-weight 254: the kernel holds FARE's weights exactly, none above 254."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    got = wait_for(lambda: len(_fare_weights(r1)), 2, count=90)
    assert got == 2
    fare = _fare_weights(r1)
    assert max(fare.values()) <= 254 and min(fare.values()) >= 1
    assert fare != {"to-r2": 1000, "to-r3": 999}
    assert wait_for(lambda: kernel_weights_wide(r1, PREFIX), fare) == fare


def test_16bit_weights_exact():
    "max-weight 65535: 1000:999 in the kernel's nexthop group, exactly."
    tgen = tgen_or_skip()
    if not _kernel_16bit():
        pytest.skip("kernel {} takes 8-bit nexthop weights only".format(platform.release()))
    r1 = tgen.gears["r1"]
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare wcmp max-weight 65535\n"
                 "bgp fare wcmp max-members 65535\n")
    exp = {"to-r2": 1000, "to-r3": 999}
    assert wait_for(lambda: _fare_weights(r1), exp, count=30) == exp
    assert wait_for(lambda: kernel_weights_wide(r1, PREFIX), exp, count=30) == exp
    # iproute2 before 6.12 prints the low byte only: the high byte is there
    low = kernel_weights(r1, PREFIX)
    assert low == {k: ((v - 1) & 0xff) + 1 for k, v in exp.items()} or low == exp
    # zebra's own view
    j = vtysh_json(r1, "show ip route {} json".format(PREFIX))
    nhs = j[PREFIX][0]["nexthops"]
    assert sorted(nh.get("weight") for nh in nhs) == [999, 1000]
    cfg = r1.vtysh_cmd("show running-config")
    assert "\n bgp fare wcmp max-weight 65535\n" in cfg


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
