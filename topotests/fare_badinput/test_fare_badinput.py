#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_badinput.py: bad Path Bandwidth input from real BGP peers.

    peer1 (exabgp, AS 65101) --+
                               +-- r1 (AS 65001, bgpd -M fare)
    peer2 (exabgp, AS 65102) --+

Both peers announce 10.10.1.0/24 .. 10.10.11.0/24, so r1 has two equal-cost
paths for each. peer2 always sends a valid 50 Gb/s Path Bandwidth; peer1
sends, per prefix: 1 valid 100G, 2 NaN, 3 +inf, 4 -inf, 5 -100G,
6 subnormal, 7 zero, 8 the same value twice (from two ASes: FRR itself
drops byte-identical duplicates), 9 two different values,
10 none, 11 a truncated extended-communities attribute.

Each case has a defined outcome (SPEC FARE-1, FARE-7; doc/user/fare.rst):
unusable values are ignored as if absent, so the prefix falls back to ECMP
and says why; a zero path gets weight 0; agreeing duplicates count once;
conflicting ones are ignored; the truncated attribute is FRR's
treat-as-withdraw. Every case is counted and logged; no session resets, no
route is lost, bgpd does not crash.
"""

import os
import sys
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import Topogen, get_topogen
from fare.common import DAEMONS_FARE, GBPS, kernel_weights, vtysh_json, wait_for, wait_json, tgen_or_skip
from fare.fabric import Topology
from fare.metrics_check import check_format, counter_lines, scrape_settled

pytestmark = [pytest.mark.bgpd]

P1, P2 = "10.0.0.101", "10.0.0.102"
UNUSABLE = "a path has an unusable Path Bandwidth"


TOPOLOGY = Topology().router("r1").switch("s1").link("s1", "r1")
for _i, _ip in ((1, P1), (2, P2)):
    TOPOLOGY.exabgp_peer("peer{}".format(_i), _ip + "/24", "via 10.0.0.1")
    TOPOLOGY.link("s1", "peer{}".format(_i))


def setup_module(mod):
    tgen = Topogen(TOPOLOGY.build_topo, mod.__name__)
    tgen.start_topology()
    tgen.gears["r1"].load_frr_config(os.path.join(CWD, "r1/frr.conf"), DAEMONS_FARE)
    tgen.start_router()
    for i in (1, 2):
        tgen.gears["peer{}".format(i)].start(
            os.path.join(CWD, "peer{}".format(i)), os.path.join(CWD, "exabgp.env")
        )


def teardown_module(_mod):
    get_topogen().stop_topology()


def _prefix(i):
    return "10.10.{}.0/24".format(i)


def _view(r1, i):
    return vtysh_json(r1, "show bgp ipv4 fare {} json".format(_prefix(i)))["prefixes"][_prefix(i)]


def _by_peer(view):
    return {p["peer"]: p for p in view["paths"]}


def test_all_routes_arrive():
    "Both sessions up; every prefix present, with 2 paths (11: 1, treat-as-withdraw)."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    for i in list(range(1, 11)) + [12]:
        exp = {"prefixes": {_prefix(i): {"paths": [{}, {}]}}}
        res = wait_json(r1, "show bgp ipv4 fare {} json".format(_prefix(i)), exp, count=90)
        assert res is None, "{}: {}".format(_prefix(i), res)
    exp = {"prefixes": {_prefix(11): {"paths": [{"peer": P2}]}}}
    assert wait_json(r1, "show bgp ipv4 fare {} json".format(_prefix(11)), exp) is None
    assert len(_view(r1, 11)["paths"]) == 1


def test_valid_pair_is_weighted():
    "Case 1: 100G and 50G -> 2:1 in show and in the kernel."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = _view(r1, 1)
    assert v["wcmp"] is True
    assert {k: p["weight"] for k, p in _by_peer(v).items()} == {P1: 2, P2: 1}
    exp = {P1: 2, P2: 1}
    assert wait_for(lambda: kernel_weights(r1, _prefix(1), key="gateway"), exp) == exp


@pytest.mark.parametrize("case,klass", [(2, "nan"), (3, "infinite"), (4, "negative-infinite"),
                                        (5, "negative"), (6, "subnormal")])
def test_unusable_value_falls_back_to_ecmp(case, klass):
    "NaN, infinities, negative, subnormal: ignored as absent -> ECMP, reason shown, counted."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = _view(r1, case)
    assert v["wcmp"] is False
    assert v["reason"] == UNUSABLE
    assert v["advertised"]["transitive"] == "strip"
    assert _by_peer(v)[P1]["transitive"]["state"] == "invalid"
    assert _by_peer(v)[P2]["transitive"] == {"state": "present", "bytesPerSec": 50 * GBPS,
                                             "bytesPerSecText": "50.000 Gbps"}
    exp = {P1: 1, P2: 1}
    assert wait_for(lambda: kernel_weights(r1, _prefix(case), key="gateway"), exp) == exp
    counters = vtysh_json(r1, "show bgp fare json")["counters"]["receivedValues"]
    assert counters[klass] > 0


def test_zero_bandwidth_path_gets_no_traffic():
    "Case 7: zero is a value: that path weight 0, left out of the group; the route stays."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = _view(r1, 7)
    assert v["wcmp"] is True
    assert {k: p["weight"] for k, p in _by_peer(v).items()} == {P1: 0, P2: 1}
    exp = {P2: 1}
    assert wait_for(lambda: kernel_weights(r1, _prefix(7), key="gateway"), exp) == exp
    assert vtysh_json(r1, "show bgp fare json")["counters"]["receivedValues"]["zero"] > 0


def test_duplicate_and_conflicting():
    "Case 8: the same value twice counts once (2:1); case 9: two values -> ignored, ECMP."
    # case 8's two communities differ only in their Global Administrator
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = _view(r1, 8)
    assert v["wcmp"] is True
    assert {k: p["weight"] for k, p in _by_peer(v).items()} == {P1: 2, P2: 1}
    v = _view(r1, 9)
    assert v["wcmp"] is False
    assert v["reason"] == "a path has conflicting Path Bandwidths"
    assert _by_peer(v)[P1]["transitive"]["state"] == "conflicting"
    c = vtysh_json(r1, "show bgp fare json")["counters"]
    assert c["duplicate"] > 0 and c["conflicting"] > 0


def test_missing_on_one_path():
    "Case 10: FARE-7, one path without the community -> ECMP for the prefix."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    v = _view(r1, 10)
    assert v["wcmp"] is False
    assert v["reason"] == "a path has no Path Bandwidth (FARE-7)"
    exp = {P1: 1, P2: 1}
    assert wait_for(lambda: kernel_weights(r1, _prefix(10), key="gateway"), exp) == exp


def test_no_session_reset_no_crash_and_logged():
    "Sessions never reset, bgpd alive, each bad class logged."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    for peer in (P1, P2):
        j = vtysh_json(r1, "show bgp neighbors {} json".format(peer))[peer]
        assert j["bgpState"] == "Established"
        assert j["connectionsEstablished"] == 1
        assert j["connectionsDropped"] == 0
    assert r1.check_router_running() == ""
    log = open(os.path.join(tgen.logdir, "r1", "bgpd.log")).read()
    for case, klass in ((2, "nan"), (3, "infinite"), (4, "negative-infinite"), (5, "negative"),
                        (6, "subnormal")):
        line = "{}: transitive Path Bandwidth ignored ({})".format(_prefix(case), klass)
        assert line in log, line
    assert "conflicting Path Bandwidth values ignored" in log
    # the truncated attribute: FRR's treat-as-withdraw, session kept
    assert _view(r1, 11)["paths"][0]["peer"] == P2


def test_metrics_count_bad_input():
    """tools/fare-metrics on r1: every counter as `show bgp fare json` has
    it at the same moment, each bad class above 0; the prefixes per reason
    and cases 1 and 7 per path, exactly (doc/user/fare-metrics.rst)."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    text, counters = scrape_settled(r1)
    check_format(text)
    lines = set(text.splitlines())
    for line in counter_lines(counters):
        assert line in lines, "missing or different: " + line
    for klass in ("zero", "subnormal", "negative", "nan", "infinite", "negative-infinite"):
        assert counters["receivedValues"][klass] > 0, klass
    assert counters["duplicate"] > 0 and counters["conflicting"] > 0
    reasons = sorted(l for l in lines if l.startswith("frr_fare_prefixes{"))
    assert reasons == sorted('frr_fare_prefixes{afi="ipv4",reason="%s",vrf="default"} %d' % rn for rn in (
        ("weighted by Path Bandwidth", 5), (UNUSABLE, 5),
        ("a path has conflicting Path Bandwidths", 1),
        ("a path has no Path Bandwidth (FARE-7)", 1))), "\n".join(reasons)
    for case, peer, weight, bw in ((1, P1, 2, 12500000000), (1, P2, 1, 6250000000),
                                   (7, P1, 0, 0), (7, P2, 1, 6250000000)):
        lbl = 'afi="ipv4",interface="r1-eth0",neighbor="{}",prefix="{}",vrf="default"'.format(
            peer, _prefix(case))
        assert "frr_fare_path_weight{%s} %d" % (lbl, weight) in lines, lbl
        assert "frr_fare_path_bandwidth_bytes_per_second{%s} %d" % (lbl, bw) in lines, lbl
    for case in (2, 3, 4, 5, 6, 9, 10):
        assert 'frr_fare_prefix_wcmp{afi="ipv4",prefix="%s",vrf="default"} 0' % _prefix(case) in lines


def test_averaged_mode_caps_by_own_link():
    """Averaged mode (WP-3) takes the received value as the weight, but a
    receiver never weights a path above its own link to that neighbor: case
    12, peer1 announces the largest finite float (3.4e38), peer2 100G, both
    behind 1T links: 1T:100G = 10:1, not the float's 254:0. Runs last: it
    switches r1 to averaged mode."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    # draft mode gives case 12 the same 10:1: wait until the mode change's
    # re-evaluation has sent r1's 12 routes to zebra again (counted)
    c0 = vtysh_json(r1, "show bgp fare json")["counters"]
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare mode averaged\n")

    def sent(c):
        return c["wcmpRoutes"] + c["ecmpRoutes"]

    got = wait_for(lambda: sent(vtysh_json(r1, "show bgp fare json")["counters"]) >= sent(c0) + 12,
                   True, count=30)
    assert got is True, (c0, vtysh_json(r1, "show bgp fare json")["counters"])
    exp = {"prefixes": {_prefix(12): {"wcmp": True, "paths": [
        {"peer": P1, "transitive": {"state": "present", "bytesPerSec": 3.4028234663852886e38},
         "pathBandwidthBytesPerSec": 1000 * GBPS},
        {"peer": P2, "pathBandwidthBytesPerSec": 100 * GBPS}]}}}
    res = wait_json(r1, "show bgp ipv4 fare {} json".format(_prefix(12)), exp, count=30)
    assert res is None, res
    assert {k: p["weight"] for k, p in _by_peer(_view(r1, 12)).items()} == {P1: 10, P2: 1}
    exp = {P1: 10, P2: 1}
    assert wait_for(lambda: kernel_weights(r1, _prefix(12), key="gateway"), exp) == exp


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
