#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_wideweights.py: 16-bit kernel nexthop weights (WP-3, patch
0009), where the kernel takes them (Linux 6.12 and later).

    r2 (AS 65002) --1000G-- r1 (AS 65001) --999G-- r3 (AS 65003)

r2 and r3 both originate 172.16.9.0/24 with the largest Path Bandwidth
(FARE-2); r1 weighs them min(link, max) = 1000G : 999G (FARE-4).

- Default (bgp fare wcmp max-weight 254): 1000:999 does not fit 8-bit
  weights; the reduction installs the best vector within 254 per member,
  and the kernel holds exactly what FARE computed.
- bgp fare wcmp max-weight 65535 and max-members 65535: the exact ratio
  1000:999 reaches the kernel's nexthop group unscaled, the weights above
  255 in the high byte (weight_high), read back over netlink.

The width in force (issue 20 item 7, patches 0009 and 0015):
- zebra asks the kernel at start: it installs a group with weight 1000
  and reads it back (Linux 6.18 here: held as is, 16 bits). `show zebra`
  and `show bgp fare` say "16-bit", and FARE may use weights up to 65535.
- r1's zebra also feeds FPM (dplane_fpm_nl, fpm_listener as the peer)
  without nexthop groups: rtnh_hops has 8 bits, so a route with weights
  1000:999 goes to FPM scaled so the largest is 255; zebra counts and logs it
  ("Nexthop weights reduced" in `show zebra`), while the kernel keeps
  1000:999.
- `no zebra nexthop kernel enable` (routes without nexthop groups: 8
  bits): zebra tells bgpd the new width, `show zebra` and `show bgp fare`
  say "8-bit", FARE reduces its weights to 255 itself (WP-3) and the
  kernel holds exactly those.
"""

import os
import platform
import re
import sys
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import (kernel_weights, kernel_weights_wide, start_fabric, tgen_or_skip,
                         vtysh_json, wait_for)
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.9.0/24"
FABRIC = Fabric({"r1": 65001, "r2": 65002, "r3": 65003},
                [("r1", "r2", 1000), ("r1", "r3", 999)],
                originate={"r2": [PREFIX], "r3": [PREFIX]})


def _kernel_16bit():
    major, minor = (int(x) for x in platform.release().split(".")[:2])
    return (major, minor) >= (6, 12)


FPM_LISTENER = os.path.join(os.environ.get("BUILD", ""), "install/lib/frr/fpm_listener")
fpm_proc = None



def config_of(name):
    "r1's zebra also feeds FPM, without nexthop groups (8-bit rtnh_hops)."
    lines = FABRIC.config(name).split("\n")
    if name == "r1":
        lines[2:2] = ["fpm address 127.0.0.1", "no fpm use-next-hop-groups", "!"]
    return "\n".join(lines)


def daemons_of(name):
    return [(TopoRouter.RD_ZEBRA, "-M dplane_fpm_nl" if name == "r1" else None),
            (TopoRouter.RD_BGP, "-M fare")]


def _start_fpm_listener(tgen):
    global fpm_proc
    fpm_proc = tgen.gears["r1"].popen([FPM_LISTENER])


def setup_module(mod):
    start_fabric(mod, FABRIC, config_of, daemons_of=daemons_of, prepare=_start_fpm_listener)


def teardown_module(_mod):
    # zebra before its FPM peer: FRR 10.7.1's zebra can hang at exit when
    # the peer goes away just before (see fare_fpm)
    get_topogen().stop_topology()
    if fpm_proc is not None:
        fpm_proc.kill()
        fpm_proc.wait()


def _show_zebra(r1, row):
    "A row of `show zebra` (text only in FRR 10.3), e.g. 'Nexthop weights'."
    m = re.search(r"^\s*{}\s{{2,}}(\S.*?)\s*$".format(re.escape(row)),
                  r1.vtysh_cmd("show zebra"), re.M)
    return m.group(1) if m else None


def _r1_16bit_or_skip():
    tgen = tgen_or_skip()
    if not _kernel_16bit():
        pytest.skip("kernel {} takes 8-bit nexthop weights only".format(platform.release()))
    return tgen.gears["r1"]


def _raise_max_weight(r1):
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare wcmp max-weight 65535\n"
                 "bgp fare wcmp max-members 65535\n")


def _width(r1):
    return vtysh_json(r1, "show bgp fare json").get("nexthopWeights")


def _zebra_log(r1):
    return open(os.path.join(get_topogen().logdir, "r1", "zebra.log")).read()


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


def test_width_16bit_from_the_kernel():
    "zebra's probe: the kernel held weight 1000; zebra and bgpd say 16-bit."
    r1 = _r1_16bit_or_skip()
    assert ("Kernel nexthop groups take 16-bit weights (a group with weight 1000 held as is)"
            in _zebra_log(r1))
    # the probe's blackhole nexthop and group were deleted without error
    assert "RTM_NEWNEXTHOP" not in _zebra_log(r1) and "RTM_DELNEXTHOP" not in _zebra_log(r1)
    assert "blackhole" not in r1.run("ip nexthop show")
    assert _show_zebra(r1, "Nexthop weights") == "16-bit (up to 65535)"
    assert _show_zebra(r1, "Nexthop weights reduced") == "0"
    exp = {"width": "16-bit", "zebraMaxWeight": 65535, "maxWeightInForce": 254}
    assert wait_for(lambda: _width(r1), exp, count=10) == exp
    out = r1.vtysh_cmd("show bgp fare")
    assert ("Nexthop weights: 16-bit (zebra installs up to 65535 as they are), "
            "largest weight in force 254") in out


def test_16bit_weights_exact():
    "max-weight 65535: 1000:999 in the kernel's nexthop group, exactly."
    r1 = _r1_16bit_or_skip()
    _raise_max_weight(r1)
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
    # FPM has no nexthop groups here: the route went to it scaled to
    # at most 255 (8 bits), counted and logged, never silently
    line = "{}: nexthop weights up to 1000 reduced to at most 255 (FPM, no nexthop group)".format(
        PREFIX)
    assert wait_for(lambda: line in _zebra_log(r1), True, count=10) is True
    assert int(_show_zebra(r1, "Nexthop weights reduced")) > 0
    assert _width(r1)["maxWeightInForce"] == 65535


def test_8bit_without_kernel_nexthop_groups():
    """no zebra nexthop kernel enable: 8-bit weights in force; bgpd is
    told, FARE keeps its weights within 255 and the kernel holds them."""
    r1 = _r1_16bit_or_skip()
    # as left by test_16bit_weights_exact (set again to run on its own)
    _raise_max_weight(r1)
    exp = {"to-r2": 1000, "to-r3": 999}
    assert wait_for(lambda: _fare_weights(r1), exp, count=60) == exp
    r1.vtysh_cmd("configure terminal\nno zebra nexthop kernel enable\n")
    # FARE keeps its weights within 8 bits and the route is re-installed
    # without a nexthop group, as FARE computed it
    got = wait_for(lambda: max(_fare_weights(r1).values() or [0]) <= 255, True, count=15)
    fare = _fare_weights(r1)
    assert got is True, "FARE weights {}, kernel {}".format(fare, kernel_weights(r1, PREFIX))
    assert wait_for(lambda: kernel_weights(r1, PREFIX), fare, count=30) == fare
    assert "nhid" not in r1.run("ip -j -4 route show {}".format(PREFIX))
    assert _show_zebra(r1, "Nexthop weights") == "8-bit (up to 255)"
    assert "Nexthop weights installed as they are: up to 255 (was 65535)" in _zebra_log(r1)
    exp = {"width": "8-bit", "zebraMaxWeight": 255, "maxWeightInForce": 255}
    assert wait_for(lambda: _width(r1), exp, count=10) == exp
    out = r1.vtysh_cmd("show bgp fare")
    assert ("Nexthop weights: 8-bit (zebra installs up to 255 as they are), "
            "largest weight in force 255") in out


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
