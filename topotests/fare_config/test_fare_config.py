#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_config.py: configuration that must take effect on a running
fabric: update-group classes per outgoing line rate (WP-1/2), the
multihoming prefix-list (FARE-6), and the Path Bandwidth sub-type (FARE-1).

    leaf0 (AS 65100) --100T-- spine (AS 65000) --+-- leafa (65101): spine side "max"
     originates P1, P2                            +-- leafb (65102): 800G
                                                  +-- leafc (65103): boundary (FARE-11)

Every router runs averaged mode (WP-1..3). leaf0 originates P1 and P2 at
its line rate, 100T (1.25e13 bytes/s). The spine's sum is 100T and it has
N = 2 eligible outgoing sessions (leafc is a boundary peer), so the average
is 50T: leafa gets min(50T, max) = 50T (6.25e12 bytes/s), leafb min(50T,
800G) = 800G (1e11 bytes/s), leafc no Path Bandwidth at all. Three
different attributes: three update-groups, told apart by their class
(fareLinkBitsPerSec, fareBoundary) in "show bgp update-groups".

leafa originates P3 with leafb's AS prepended: the spine's N for it is 1
(leaf0; leafa is the source, leafb's AS is in the path, WP-2).

The spine divides prefixes of prefix-list MH by 1000 (FARE-6): once P2 is
added to MH, its sum is 100G, the average 50G, and both leafa and leafb get
50G (6.25e9 bytes/s) for P2 while P1 stays as it was.
"""

import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import (GBPS, start_fabric, tgen_or_skip, update_group_classes, vtysh_json,
                         wait_for, wait_json)
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

P1, P2 = "172.16.1.0/24", "172.16.2.0/24"
P3 = "172.16.3.0/24"  # leafa's, with leafb's AS prepended (WP-2: N without leafb)
ROUTERS = {"leaf0": 65100, "spine": 65000, "leafa": 65101, "leafb": 65102, "leafc": 65103}
LINKS = [("leaf0", "spine", 100000), ("spine", "leafa", 800), ("spine", "leafb", 800),
         ("spine", "leafc", 800)]
AVERAGED = [" bgp fare", " bgp fare mode averaged", " bgp fare hold-down 0"]


def _fabric():
    f = Fabric(ROUTERS, LINKS, originate={"leaf0": [P1, P2], "leafa": [P3]},
               fare_lines={name: AVERAGED for name in ROUTERS})
    a, c = f.neighbor("spine", "leafa"), f.neighbor("spine", "leafc")
    f.extra["leafa"] = [
        " address-family ipv4 unicast",
        "  neighbor {} route-map PREPEND out".format(f.neighbor("leafa", "spine")),
        " exit-address-family",
        "!",
        "route-map PREPEND permit 10",
        " set as-path prepend {}".format(ROUTERS["leafb"]),
    ]
    f.extra["spine"] = [
        " neighbor {} fare link-bandwidth max".format(a),
        " neighbor {} fare boundary".format(c),
        " bgp fare multihoming prefix-list MH factor 1000",
        "!",
        "ip prefix-list MH seq 5 permit 10.99.0.0/16",
    ]
    return f


FABRIC = _fabric()



def setup_module(mod):
    start_fabric(mod, FABRIC, FABRIC.config)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _received(router, prefix):
    """What `router` received for `prefix` from the spine: bytes/s or the state."""
    j = vtysh_json(router, "show bgp ipv4 fare {} json".format(prefix))
    paths = j.get("prefixes", {}).get(prefix, {}).get("paths", [])
    if len(paths) != 1:
        return None
    t = paths[0]["transitive"]
    return t.get("bytesPerSec", t["state"])


def test_values_per_outgoing_rate():
    "WP-2: 50T to leafa, 800G to leafb, nothing to the boundary leafc (FARE-11)."
    tgen = tgen_or_skip()
    for name, exp in (("leafa", 6.25e12), ("leafb", 800 * GBPS), ("leafc", "absent")):
        for prefix in (P1, P2):
            got = wait_for(lambda: _received(tgen.gears[name], prefix), exp, count=90)
            assert got == exp, "{} {}: {} != {}".format(name, prefix, got, exp)
    exp = {"prefixes": {P1: {"advertised": {"sumBytesPerSec": 100000 * GBPS,
                                            "outgoingInterfaces": 2}}}}
    assert wait_json(tgen.gears["spine"], "show bgp ipv4 fare {} json".format(P1), exp) is None
    # the whole table, streamed prefix by prefix, is one JSON document
    j = vtysh_json(tgen.gears["spine"], "show bgp ipv4 fare json")
    assert j["mode"] == "averaged" and j["enabled"] is True
    assert {p: v["wcmp"] for p, v in j["prefixes"].items() if p in (P1, P2)} == {P1: True, P2: True}


def test_n_without_peers_in_the_path():
    """WP-2: N leaves out the source of a route's paths and, without their
    being sources, the neighbors whose AS is in its path and boundary
    neighbors: for leafa's P3 (AS_PATH 65101 65102) the spine counts leaf0
    only (leafa the source, leafb in the path, leafc a boundary): N = 1;
    for leaf0's P1, leafa and leafb: N = 2. The sessions without an
    outbound filter are counted once per change of the session set, the
    path's ASes and sources taken off per prefix."""
    tgen = tgen_or_skip()
    spine = tgen.gears["spine"]
    exp = {"prefixes": {P3: {"advertised": {"outgoingInterfaces": 1}}}}
    assert wait_json(spine, "show bgp ipv4 fare {} json".format(P3), exp, count=60) is None
    exp = {"prefixes": {P1: {"advertised": {"outgoingInterfaces": 2}}}}
    assert wait_json(spine, "show bgp ipv4 fare {} json".format(P1), exp) is None
    path = vtysh_json(spine, "show bgp ipv4 unicast {} json".format(P3))["paths"][0]["aspath"]
    assert path["string"] == "65101 65102", path


def test_update_group_classes():
    """The spine's three outgoing sessions are in three update-groups whose
    classes carry the exact line rate in bit/s ('max' saturates at 2^63-1,
    never wraps to a small number) and the boundary flag."""
    tgen = tgen_or_skip()
    spine = tgen.gears["spine"]
    addr = {n: FABRIC.neighbor("spine", n) for n in ("leafa", "leafb", "leafc")}
    exp = {
        "leafa": {"fareLinkBitsPerSec": 2 ** 63 - 1},
        "leafb": {"fareLinkBitsPerSec": 800 * 10 ** 9},
        "leafc": {"fareBoundary": 1, "fareLinkBitsPerSec": 800 * 10 ** 9},
    }

    got = wait_for(lambda: update_group_classes(spine, addr), exp, count=30)
    assert got == exp
    j = vtysh_json(spine, "show bgp ipv4 unicast update-groups json")
    ids = set()
    for groups in j.values():
        for gid, grp in (groups.items() if isinstance(groups, dict) else []):
            for sub in grp.get("subGroup", []):
                if set(sub.get("peers", [])) & set(addr.values()):
                    ids.add(gid)
    assert len(ids) == 3, ids


def test_multihoming_prefix_list_edit():
    """FARE-6: adding P2 to the spine's multihoming prefix-list (factor 1000)
    re-evaluates P2 at once: leafa and leafb both get 50G for P2; P1 unchanged."""
    tgen = tgen_or_skip()
    spine = tgen.gears["spine"]
    spine.vtysh_cmd("configure terminal\nip prefix-list MH seq 10 permit {}\n".format(P2))
    for name in ("leafa", "leafb"):
        got = wait_for(lambda: _received(tgen.gears[name], P2), 50 * GBPS, count=20)
        assert got == 50 * GBPS, "{}: {}".format(name, got)
    assert _received(tgen.gears["leafa"], P1) == 6.25e12
    assert _received(tgen.gears["leafb"], P1) == 800 * GBPS
    # and removed again: back to the per-rate values
    spine.vtysh_cmd("configure terminal\nno ip prefix-list MH seq 10 permit {}\n".format(P2))
    got = wait_for(lambda: _received(tgen.gears["leafb"], P2), 800 * GBPS, count=20)
    assert got == 800 * GBPS


def test_assigned_subtype_refused():
    """FARE-1: sub-types IANA assigned (route target 2, route origin 3, link
    bandwidth 4) are refused with a clear error; the configuration keeps 48."""
    tgen = tgen_or_skip()
    spine = tgen.gears["spine"]
    for st, name in ((2, "route target"), (3, "route origin"), (4, "link bandwidth")):
        out = spine.vtysh_cmd(
            "configure terminal\nrouter bgp 65000\nbgp fare path-bandwidth sub-type {}\n".format(st))
        assert "is assigned by IANA ({})".format(name) in out, out
    j = vtysh_json(spine, "show bgp fare json")
    assert j["config"]["pathBandwidthSubType"] == 0x30
    assert "sub-type" not in spine.vtysh_cmd("show running-config")


def test_subtype_change_changes_displays():
    """FARE-1: a sub-type change is seen in FRR's own displays at once: leaf0
    moves to sub-type 0x31, the spine shows the value as unknown ("UNK:0,
    49"); once the spine moves too, the same received community is decoded
    ("PB:65100:...") without waiting for a new UPDATE."""
    tgen = tgen_or_skip()
    leaf0, spine = tgen.gears["leaf0"], tgen.gears["spine"]

    def shown():
        j = vtysh_json(spine, "show bgp ipv4 unicast {} json".format(P1))
        paths = j.get("paths", [])
        return paths[0].get("extendedCommunity", {}).get("string") if paths else None

    leaf0.vtysh_cmd("configure terminal\nrouter bgp 65100\nbgp fare path-bandwidth sub-type 49\n")
    assert wait_for(shown, "UNK:0, 49", count=20) == "UNK:0, 49"
    spine.vtysh_cmd("configure terminal\nrouter bgp 65000\nbgp fare path-bandwidth sub-type 49\n")
    got = wait_for(lambda: (shown() or "")[:9], "PB:65100:", count=10)
    assert got == "PB:65100:", shown()


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
