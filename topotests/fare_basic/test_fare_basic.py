#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_basic.py: the bgpd_fare module on two routers.

r1 (AS 65001) --- r2 (AS 65002)

r1 loads the module and originates 172.16.1.0/24 and 2001:db8:1::/64 with
a transitive Path Bandwidth of 400 Gb/s (FARE-2, `bgp fare originate 400G`).
r2 shows the community decoded in FRR's own route display, text and JSON
(FARE-1), and its FARE view of the path: link bandwidth from the neighbor
override (FARE-3), weight min(link, Path Bandwidth) (FARE-4).
"""

import os
import sys
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import Topogen, get_topogen
from fare.common import DAEMONS_FARE, GBPS, vtysh_json, wait_for, wait_json, tgen_or_skip
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]


TOPOLOGY = Topology().router("r1", "r2").link("r1", "r2", "r1-eth0", "r2-eth0")


def setup_module(mod):
    tgen = Topogen(TOPOLOGY.build_topo, mod.__name__)
    tgen.start_topology()
    for rname, router in tgen.routers().items():
        router.load_frr_config(os.path.join(CWD, "{}.conf".format(rname)), DAEMONS_FARE)
    tgen.start_router()


def teardown_module(_mod):
    get_topogen().stop_topology()


def test_module_loaded_and_show_bgp_fare():
    "bgpd -M fare loads; `show bgp fare json` reports version and config."
    tgen = tgen_or_skip()
    r1, r2 = tgen.gears["r1"], tgen.gears["r2"]

    assert "bgpd_fare" in r1.vtysh_cmd("show modules")

    j = vtysh_json(r1, "show bgp fare json")
    assert j["module"] == "bgpd_fare"
    assert j["version"] == "0.1.0"
    assert j["localAs"] == 65001
    assert j["config"]["enabled"] is True
    assert j["config"]["mode"] == "draft"
    assert j["config"]["pathBandwidthSubType"] == 0x30
    assert j["config"]["originate"] is True
    assert j["config"]["originateBytesPerSec"] == 400 * GBPS

    j = vtysh_json(r2, "show bgp fare json")
    assert j["config"]["originate"] is False
    assert j["config"]["neighbors"] == {
        "10.0.0.1": {
            "linkBandwidthBytesPerSec": 100 * GBPS,
            "linkBandwidthBytesPerSecText": "100.000 Gbps",
            "boundary": False,
            "superSpine": False,
        },
        "FAB": {
            "linkBandwidthBytesPerSec": 200 * GBPS,
            "linkBandwidthBytesPerSecText": "200.000 Gbps",
            "boundary": False,
            "superSpine": False,
        },
    }

    text = r2.vtysh_cmd("show bgp fare")
    assert "State: enabled, mode draft" in text
    assert "Neighbor 10.0.0.1: link-bandwidth 100.000 Gbps" in text


@pytest.mark.parametrize(
    "afi,prefix", [("ipv4", "172.16.1.0/24"), ("ipv6", "2001:db8:1::/64")]
)
def test_path_bandwidth_decoded_in_frr_display(afi, prefix):
    "FRR's `show bgp` prints the Path Bandwidth decoded, text and JSON (FARE-1)."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]

    expected = {
        "prefix": prefix,
        "paths": [{"extendedCommunity": {"string": "PB:65001:400.000 Gbps"}}],
    }
    result = wait_json(r2, "show bgp {} unicast {} json".format(afi, prefix), expected)
    assert result is None, "decoded Path Bandwidth missing: {}".format(result)

    text = r2.vtysh_cmd("show bgp {} unicast {}".format(afi, prefix))
    assert "Extended Community: PB:65001:400.000 Gbps" in text
    assert "UNK" not in text


@pytest.mark.parametrize(
    "afi,prefix", [("ipv4", "172.16.1.0/24"), ("ipv6", "2001:db8:1::/64")]
)
def test_fare_view_of_received_path(afi, prefix):
    "r2 weighs the path by min(link 100G, Path Bandwidth 400G) (FARE-3/4/5)."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    peer = "10.0.0.1" if afi == "ipv4" else "2001:db8::1"
    link_source = "configured"
    # IPv4: the neighbor's own override; IPv6: inherited from peer-group FAB
    link_bw = 100 * GBPS if afi == "ipv4" else 200 * GBPS

    expected = {
        "prefixes": {
            prefix: {
                "local": False,
                "wcmp": True,
                "reason": "weighted by Path Bandwidth",
                "advertised": {
                    "transitive": "replace",
                    "transitiveBytesPerSec": link_bw,
                },
                "paths": [
                    {
                        "peer": peer,
                        "interface": "r2-eth0",
                        "linkBandwidthBytesPerSec": link_bw,
                        "linkBandwidthSource": link_source,
                        "transitive": {
                            "state": "present",
                            "bytesPerSec": 400 * GBPS,
                        },
                        "nonTransitive": {"state": "absent"},
                        "pathBandwidthBytesPerSec": link_bw,
                        "weight": 1,
                    }
                ],
            }
        }
    }
    result = wait_json(r2, "show bgp {} fare {} json".format(afi, prefix), expected)
    assert result is None, "unexpected FARE view: {}".format(result)

    j = vtysh_json(tgen.gears["r1"], "show bgp {} fare {} json".format(afi, prefix))
    assert j["prefixes"][prefix]["local"] is True
    assert j["prefixes"][prefix]["advertised"] == {
        "transitive": "originate",
        "transitiveBytesPerSec": 400 * GBPS,
        "transitiveBytesPerSecText": "400.000 Gbps",
    }


def test_running_config_written_back():
    "Every knob set is written back by `show running-config`."
    tgen = tgen_or_skip()
    r1_cfg = tgen.gears["r1"].vtysh_cmd("show running-config")
    r2_cfg = tgen.gears["r2"].vtysh_cmd("show running-config")
    assert "\n bgp fare\n" in r1_cfg
    assert "\n bgp fare originate 400G\n" in r1_cfg
    assert "\n bgp fare\n" in r2_cfg
    assert "\n neighbor 10.0.0.1 fare link-bandwidth 100G\n" in r2_cfg
    assert "\n neighbor FAB fare link-bandwidth 200G\n" in r2_cfg


def _ipv6_link(r2):
    p = vtysh_json(r2, "show bgp ipv6 fare 2001:db8:1::/64 json")["prefixes"]["2001:db8:1::/64"]
    return p["paths"][0]["linkBandwidthBytesPerSec"] / GBPS, p["paths"][0]["linkBandwidthSource"]


def test_peer_group_inheritance_and_neighbor_override():
    "A member inherits the peer-group's link bandwidth; its own setting wins; without both, the interface speed."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    assert _ipv6_link(r2) == (200, "configured")
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nneighbor 2001:db8::1 fare link-bandwidth 50G\n")
    assert wait_for(lambda: _ipv6_link(r2), (50, "configured")) == (50, "configured")
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nno neighbor 2001:db8::1 fare link-bandwidth\n")
    assert wait_for(lambda: _ipv6_link(r2), (200, "configured")) == (200, "configured")
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nno neighbor FAB fare link-bandwidth\n")
    # veth reports 10000 Mb/s
    assert wait_for(lambda: _ipv6_link(r2), (10, "interface speed")) == (10, "interface speed")
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nneighbor FAB fare link-bandwidth 200G\n")
    assert wait_for(lambda: _ipv6_link(r2), (200, "configured")) == (200, "configured")


def test_debug_bgp_fare_logs():
    "`debug bgp fare` logs each weight decision and is written back."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    r2.vtysh_cmd("configure terminal\ndebug bgp fare\n")
    assert "debug bgp fare" in r2.vtysh_cmd("show running-config")
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nneighbor 10.0.0.1 fare link-bandwidth 25G\n")
    log = os.path.join(tgen.logdir, "r2", "bgpd.log")
    line = "FARE: 172.16.1.0/24: 1 path(s), weighted by Path Bandwidth, weights 1"
    assert wait_for(lambda: line in open(log).read(), True) is True
    r2.vtysh_cmd("configure terminal\nrouter bgp 65002\nneighbor 10.0.0.1 fare link-bandwidth 100G\n")
    r2.vtysh_cmd("configure terminal\nno debug bgp fare\n")
    assert "debug bgp fare" not in r2.vtysh_cmd("show running-config")


@pytest.mark.parametrize("value", ["-5", "nan", "inf", "0", "12Q", "1e999G"])
def test_bad_bandwidth_rejected(value):
    "A bad bandwidth is refused with a clear error and changes nothing."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    out = r2.vtysh_cmd(
        "configure terminal\nrouter bgp 65002\nneighbor 10.0.0.1 fare link-bandwidth {}\n".format(
            value
        )
    )
    assert "% Invalid bandwidth '{}'".format(value) in out
    j = vtysh_json(r2, "show bgp fare json")
    assert j["config"]["neighbors"]["10.0.0.1"]["linkBandwidthBytesPerSec"] == 100 * GBPS


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
