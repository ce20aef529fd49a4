#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_sessions_reset.py: in averaged mode, a session reset between
routers with parallel links gets the originating router's own prefixes
again (WP-1, WP-2).

    r1 (AS 65001) ==== 4 links, 100G each ==== r2 (AS 65002)
    originates 2,000 prefixes                   receives them on each session

One numbered IPv4 eBGP session per link (link k: 10.0.k.0/24, r1 .1, r2
.2), `neighbor X fare link-bandwidth 100G` on both ends, `bgp fare mode
averaged` and `bgp fare hold-down 0` on both; r1 has `bgp fare
originate`, 2,000 `network` prefixes and `neighbor X
sender-as-path-loop-detection` towards r2 (as the leaves of
scripts/bench.sh spine with FARE_BENCH_SPINE_LOOP_DETECTION=1).

A session that comes up changes N on both routers (WP-2), and r1
re-announces its routes to its peers. Its own prefixes carry the line
rate of each link (WP-1), which N does not change, so the re-announcement
leaves them where a session's update sub-group announces them already;
a session that has just come up again must still get every one of them.
A version of the module that left them in every sub-group sent the
spine of scripts/bench.sh spine an End-of-RIB and no prefix on a session
reset. Here each reset is checked to end with the 2,000 prefixes on the
session, from either side and several times over, and on the other
sessions all along. With the module's two checks removed (own routes
built in a sub-group bgpd marked for a refresh, and where a sub-group
does not announce them) the first reset fails; with either one alone it
passes. With 20 prefixes, the same change did not fail.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

LINKS = 4
PREFIXES = ["172.{}.{}.0/24".format(16 + i // 250, i % 250) for i in range(2000)]
# r2's own, configured after its `bgp fare` lines (test_start_one_pass)
R2_PREFIXES = ["192.168.{}.0/24".format(i) for i in range(20)]
R2_PREFIXES6 = ["2001:db8:{}::/48".format(i) for i in range(1, 21)]
ASN = {"r1": 65001, "r2": 65002}

TOPOLOGY = Topology().router("r1", "r2")
for _k in range(1, LINKS + 1):
    TOPOLOGY.link("r1", "r2", "eth{}".format(_k), "eth{}".format(_k))


def _addr(name, k):
    return "10.0.{}.{}".format(k, 1 if name == "r1" else 2)


def config(name):
    other = "r2" if name == "r1" else "r1"
    lines = ["frr defaults datacenter", "hostname " + name, "!"]
    for k in range(1, LINKS + 1):
        lines += ["interface eth{}".format(k), " ip address {}/24".format(_addr(name, k)), "!"]
    lines += ["router bgp {}".format(ASN[name]),
              " bgp router-id 10.255.0.{}".format(1 if name == "r1" else 2),
              " no bgp ebgp-requires-policy", " no bgp network import-check",
              " timers bgp 3 9"]
    lines += [" neighbor {} remote-as {}".format(_addr(other, k), ASN[other])
              for k in range(1, LINKS + 1)]
    if name == "r1":
        lines += [" neighbor {} sender-as-path-loop-detection".format(_addr(other, k))
                  for k in range(1, LINKS + 1)]
    lines += [" address-family ipv4 unicast"]
    if name == "r1":
        lines += ["  network " + p for p in PREFIXES]
    lines += [" exit-address-family", " bgp fare", " bgp fare mode averaged",
              " bgp fare hold-down 0"]
    if name == "r1":
        lines.append(" bgp fare originate")
    lines += [" neighbor {} fare link-bandwidth 100G".format(_addr(other, k))
              for k in range(1, LINKS + 1)]
    if name == "r2":
        lines += [" address-family ipv4 unicast"] + ["  network " + p for p in R2_PREFIXES]
        lines.append(" exit-address-family")
        lines += [" address-family ipv6 unicast"] + ["  network " + p for p in R2_PREFIXES6]
        lines.append(" exit-address-family")
    return "\n".join(lines + ["!"]) + "\n"


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _sessions(tgen):
    """r2's sessions to r1: (state, prefixes received) per link."""
    j = vtysh_json(tgen.gears["r2"], "show bgp ipv4 unicast summary json")
    peers = j.get("peers", {})
    return [(peers.get(_addr("r1", k), {}).get("state"),
             peers.get(_addr("r1", k), {}).get("pfxRcd")) for k in range(1, LINKS + 1)]


ALL_UP = [("Established", len(PREFIXES))] * LINKS


def test_sessions_up():
    "Every session up, each with r1's 2,000 prefixes."
    tgen = tgen_or_skip()
    got = wait_for(lambda: _sessions(tgen), ALL_UP, count=90)
    assert got == ALL_UP, got


def test_start_one_pass():
    """bgpd reads each router's configuration at start (vtysh -f) with
    its `bgp fare` lines, each of which asks for the routes to be
    re-evaluated: one pass once bgpd has read the whole configuration,
    over the routes it had selected by the last of them. r1's 2,000 own
    prefixes (`network` lines before the `bgp fare` lines) are
    re-evaluated at most once: those bgpd selected after the last line
    (how many depends on how fast it processes them meanwhile) are not.
    r2's own prefixes, 20 IPv4 and 20 IPv6 (`network` lines after its
    `bgp fare` lines), were selected with the configuration as it is,
    and r1's come later: r2 re-evaluates none (the pass keeps a limit per
    address family; all 20 of a family if it took every route of it).
    Before, each line made a pass: 7 on r1, over about 2,000 prefixes
    each."""
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    # r2's IPv6 prefixes are in its table, selected
    got6 = wait_for(lambda: len(vtysh_json(r2, "show bgp ipv6 unicast json").get("routes", {})),
                    len(R2_PREFIXES6), count=30)
    assert got6 == len(R2_PREFIXES6), r2.vtysh_cmd("show bgp ipv6 unicast")
    got = {}
    for name in ("r1", "r2"):
        c = vtysh_json(tgen.gears[name], "show bgp fare json")["counters"]
        got[name] = (c["tableWalks"], c["reevaluatedRoutes"])
    assert (got["r1"][0], got["r2"]) == (1, (1, 0)), got
    assert got["r1"][1] <= len(PREFIXES), got


@pytest.mark.parametrize("side,k", [("r2", 1), ("r1", 2), ("r2", 3), ("r1", 4), ("r2", 1),
                                    ("r1", 1)])
def test_session_reset(side, k):
    """A hard reset of session k, from r2's side (the receiver's) or from
    r1's (the originator's): the session comes back with r1's 2,000
    prefixes, and every other session keeps them."""
    tgen = tgen_or_skip()
    other = "r1" if side == "r2" else "r2"
    before = vtysh_json(tgen.gears["r2"], "show bgp ipv4 unicast summary json")["peers"][
        _addr("r1", k)]["connectionsEstablished"]
    tgen.gears[side].vtysh_cmd("clear bgp ipv4 unicast {}".format(_addr(other, k)))
    again = wait_for(
        lambda: vtysh_json(tgen.gears["r2"], "show bgp ipv4 unicast summary json")["peers"]
        [_addr("r1", k)].get("connectionsEstablished"), before + 1, count=60, wait=0.5)
    assert again == before + 1, "session {} not re-established: {}".format(k, _sessions(tgen))
    got = wait_for(lambda: _sessions(tgen), ALL_UP, count=30)
    assert got == ALL_UP, "after the reset of session {} from {}: {}".format(k, side, got)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
