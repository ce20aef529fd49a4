#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_neighbor_delete.py: deleting a neighbor (`no neighbor X`) or a
peer-group (`no neighbor PG peer-group`) deletes its FARE state: its
`neighbor X fare link-bandwidth|boundary|super-spine` settings (FARE-3,
FARE-11), its hold-down (WP-7); `show running-config` no longer mentions
it, so a saved configuration still loads, and a later neighbor of the
same name starts clean.

        r1-eth0 10.0.0.1/24 ------ 10.0.0.2/24 r2-eth0   numbered, 400G override
   r1   r1-eth1 10.0.1.1/24 ------ 10.0.1.2/24 r2-eth1   member of PG (boundary, 100G)   r2
        r1-eth2 (unnumbered) ----- (unnumbered) r2-eth2  `neighbor r1-eth2 interface`, 200G
   (AS 65001)                                            (AS 65002, originates 172.16.2.0/24)

   r3: no links, an empty bgpd -M fare: the "freshly booted router" that
   r1's saved running-config is loaded into with frr-reload.py.

r2 originates 172.16.2.0/24 with `bgp fare originate` (FARE-2). r1 sees
three paths: via r1-eth0 link bandwidth 400G = 5e10 bytes/s and via
r1-eth2 200G = 2.5e10 ("configured", FARE-3); via r1-eth1 100G = 1.25e10,
ignored (PG is a boundary, FARE-11). r1 has `bgp fare hold-down 300`: a
session that re-establishes is held down (WP-7) for 300 s.

Steps, for the numbered neighbor 10.0.0.2 and the unnumbered r1-eth2:
`clear bgp X` (now held down), `no neighbor X`: no line of running-config
names X; the saved running-config loads into r3 without an error and
reads back the same; `neighbor X remote-as 65002` again: the new session's
path has the veth's speed (10000 Mb/s = 1.25e9 bytes/s, "interface speed")
and no hold-down. Then the same for PG: `no neighbor PG peer-group` (which
deletes its member too), no line names PG, the saved config loads; PG and
its member re-created without FARE settings: the member's path is not
ignored and has the interface speed.
"""

import json
import os
import re
import sys
import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import GBPS, frr_reload, reload_errors, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

PREFIX = "172.16.2.0/24"
VETH = 10 * GBPS  # veth interfaces report 10000 Mb/s
HOLD_DOWN = 300

# the neighbors deleted and re-added: name, interface, override (Gb/s), re-add command
NEIGHBORS = {
    "numbered": ("10.0.0.2", "r1-eth0", 400, "neighbor 10.0.0.2 remote-as 65002"),
    "unnumbered": ("r1-eth2", "r1-eth2", 200, "neighbor r1-eth2 interface remote-as 65002"),
}
PG_MEMBER = ("10.0.1.2", "r1-eth1")

R1_CONF = """frr defaults datacenter
hostname r1
!
interface r1-eth0
 ip address 10.0.0.1/24
!
interface r1-eth1
 ip address 10.0.1.1/24
!
router bgp 65001
 bgp router-id 10.255.0.1
 no bgp ebgp-requires-policy
 timers bgp 3 9
 neighbor PG peer-group
 neighbor PG remote-as 65002
 neighbor 10.0.0.2 remote-as 65002
 neighbor 10.0.1.2 peer-group PG
 neighbor r1-eth2 interface remote-as 65002
 bgp fare
 bgp fare hold-down {hold}
 neighbor 10.0.0.2 fare link-bandwidth 400G
 neighbor r1-eth2 fare link-bandwidth 200G
 neighbor PG fare boundary
 neighbor PG fare link-bandwidth 100G
!
""".format(hold=HOLD_DOWN)

R2_CONF = """frr defaults datacenter
hostname r2
!
interface r2-eth0
 ip address 10.0.0.2/24
!
interface r2-eth1
 ip address 10.0.1.2/24
!
router bgp 65002
 bgp router-id 10.255.0.2
 no bgp ebgp-requires-policy
 no bgp network import-check
 timers bgp 3 9
 neighbor 10.0.0.1 remote-as 65001
 neighbor 10.0.1.1 remote-as 65001
 neighbor r2-eth2 interface remote-as 65001
 address-family ipv4 unicast
  network {prefix}
 exit-address-family
 bgp fare
 bgp fare originate
!
""".format(prefix=PREFIX)

R3_CONF = """frr defaults datacenter
hostname r3
!
"""


TOPOLOGY = Topology().router("r1", "r2", "r3")
for _i in range(3):
    TOPOLOGY.link("r1", "r2", "r1-eth{}".format(_i), "r2-eth{}".format(_i))


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, {"r1": R1_CONF, "r2": R2_CONF, "r3": R3_CONF}.get)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _r1(tgen, *lines):
    return tgen.gears["r1"].vtysh_cmd("configure terminal\nrouter bgp 65001\n{}\n".format("\n".join(lines)))


def _paths(tgen):
    "r1's FARE view of PREFIX: {interface: path}."
    j = vtysh_json(tgen.gears["r1"], "show bgp ipv4 fare {} json".format(PREFIX))
    p = j.get("prefixes", {}).get(PREFIX, {})
    return {q["interface"]: q for q in p.get("paths", [])}


def _path_view(tgen, ifname):
    q = _paths(tgen).get(ifname)
    if not q:
        return None
    return {k: q[k] for k in ("linkBandwidthSource", "linkBandwidthBytesPerSec", "holdDown",
                              "linkBandwidthHeld", "ignored")}


def _expect_path(tgen, ifname, exp, count=60):
    got = wait_for(lambda: _path_view(tgen, ifname), exp, count=count)
    assert got == exp, "r1 path via {}: {} != {}\n{}".format(
        ifname, got, exp, tgen.gears["r1"].vtysh_cmd("show bgp ipv4 fare {}".format(PREFIX)))


def _clean(bytes_per_sec, source, ignored=False):
    return {"linkBandwidthSource": source, "linkBandwidthBytesPerSec": bytes_per_sec,
            "holdDown": False, "linkBandwidthHeld": False, "ignored": ignored}


def _lines_naming(config, name):
    "The lines of a configuration that name neighbor (or peer-group) `name`."
    pat = re.compile(r"\bneighbor {}( |$)".format(re.escape(name)))
    return [line for line in config.splitlines() if pat.search(line)]


def _running(router):
    return router.vtysh_cmd("show running-config no-header")


def _fare_neighbors(router):
    return vtysh_json(router, "show bgp fare json")["config"]["neighbors"]


def _bgp_block(config):
    "The `router bgp` block of a configuration, as a list of lines."
    lines = config.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith("router bgp "))
    end = next(i for i in range(start, len(lines)) if lines[i] == "exit")
    return lines[start:end + 1]



def _load_into_r3(tgen, config, step):
    """Load `config` into r3's bgpd (its `router bgp` removed first) with
    frr-reload.py --reload: (exit code, error lines, r3's running-config).
    The harness's own `log` lines are left out (r3 keeps its own log
    files) and r3 keeps its name."""
    r3 = tgen.gears["r3"]
    text = "\n".join("hostname r3" if l.startswith("hostname ") else l
                     for l in config.splitlines() if not l.startswith("log "))
    path = os.path.join(tgen.logdir, "r3-load-{}.conf".format(step))
    with open(path, "w") as f:
        f.write(text + "\n")
    if "router bgp 65001" in _running(r3):
        r3.vtysh_cmd("configure terminal\nno router bgp 65001\n")
    rc, out = frr_reload(r3, "reload", path)
    with open(path + ".out", "w") as f:
        f.write("rc={}\n{}".format(rc, out))
    errors = reload_errors(out)
    return rc, errors, _running(r3)


def _saved_config_loads(tgen, step):
    """r1's running-config, saved to a file, (a) is a fixed point of
    frr-reload.py --test on r1 (it parses, no diff), and (b) loads into
    r3's empty bgpd with frr-reload.py --reload without an error and reads
    back the same `router bgp` block: what a reboot with the saved config
    does. (a) cannot see an orphan line (it is in both); (b) does: bgpd
    refuses `neighbor X fare ...` for an X that does not exist."""
    r1 = tgen.gears["r1"]
    saved = _running(r1)
    path = os.path.join(tgen.logdir, "r1-saved-{}.conf".format(step))
    with open(path, "w") as f:
        f.write(saved)

    rc, out = frr_reload(r1, "test", path)
    assert rc == 0, "frr-reload.py --test on r1 failed ({}):\n{}".format(rc, out)
    assert "Lines To Add" not in out and "Lines To Delete" not in out, out

    rc, errors, loaded = _load_into_r3(tgen, saved, step)
    assert rc == 0 and not errors, (
        "r1's saved config does not load into a fresh bgpd (frr-reload.py exit {}):\n{}\n"
        "saved config:\n{}".format(rc, "\n".join(errors), saved))
    assert _bgp_block(loaded) == _bgp_block(saved), "loaded:\n{}\nsaved:\n{}".format(loaded, saved)


def test_converged():
    "FARE-3/FARE-11: the overrides apply (400G = 5e10, 200G, PG: 100G, ignored); the saved config loads."
    tgen = tgen_or_skip()
    _expect_path(tgen, "r1-eth0", _clean(400 * GBPS, "configured"), count=90)
    _expect_path(tgen, "r1-eth2", _clean(200 * GBPS, "configured"), count=90)
    _expect_path(tgen, "r1-eth1", _clean(100 * GBPS, "configured", ignored=True), count=90)
    cfg = _running(tgen.gears["r1"])
    for line in (" neighbor 10.0.0.2 fare link-bandwidth 400G", " neighbor r1-eth2 fare link-bandwidth 200G",
                 " neighbor PG fare boundary", " neighbor PG fare link-bandwidth 100G"):
        assert line in cfg.splitlines(), cfg
    # controls: the check below accepts this configuration, and refuses
    # it with an orphan line for a neighbor that does not exist
    _saved_config_loads(tgen, "converged")
    orphan = cfg.replace("\n neighbor PG fare boundary\n",
                         "\n neighbor PG fare boundary\n neighbor 10.0.0.9 fare link-bandwidth 400G\n")
    assert orphan != cfg
    rc, errors, _ = _load_into_r3(tgen, orphan, "orphan")
    assert rc != 0 and errors, "an orphan neighbor line loads without an error: {} {}".format(rc, errors)


@pytest.mark.parametrize("which", list(NEIGHBORS))
def test_no_neighbor_removes_its_lines(which):
    "FARE-3/WP-7: `no neighbor X` while X is held down: no line of running-config names X any more."
    tgen = tgen_or_skip()
    name, ifname, gbps, _ = NEIGHBORS[which]
    r1 = tgen.gears["r1"]
    # X re-establishes: held down for HOLD_DOWN seconds (WP-7)
    r1.vtysh_cmd("clear bgp {}".format(name))
    got = wait_for(lambda: (_path_view(tgen, ifname) or {}).get("holdDown"), True, count=60)
    assert got is True, "precondition: {} not held down after clear: {}".format(name, _path_view(tgen, ifname))

    out = _r1(tgen, "no neighbor {}".format(name))
    assert "%" not in out, out
    assert wait_for(lambda: _path_view(tgen, ifname), None, count=30) is None
    cfg = _running(r1)
    assert _lines_naming(cfg, name) == [], "running-config still names {}:\n{}".format(name, cfg)
    assert name not in _fare_neighbors(r1)


def test_saved_config_loads_after_no_neighbor():
    "FARE-3: r1's running-config without the neighbors still loads into a fresh bgpd."
    _saved_config_loads(tgen_or_skip(), "no-neighbor")


@pytest.mark.parametrize("which", list(NEIGHBORS))
def test_readded_neighbor_starts_clean(which):
    "FARE-3/WP-7: X re-added without FARE settings: interface speed, not configured; not held down."
    tgen = tgen_or_skip()
    name, ifname, _, readd = NEIGHBORS[which]
    out = _r1(tgen, readd)
    assert "%" not in out, out
    _expect_path(tgen, ifname, _clean(VETH, "interface speed"), count=90)
    assert name not in _fare_neighbors(tgen.gears["r1"])


def test_no_peer_group_removes_its_lines():
    "FARE-3/FARE-11: `no neighbor PG peer-group` (and its member with it): no line names PG."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    out = _r1(tgen, "no neighbor PG peer-group")
    assert "%" not in out, out
    assert wait_for(lambda: _path_view(tgen, PG_MEMBER[1]), None, count=30) is None
    cfg = _running(r1)
    assert _lines_naming(cfg, "PG") == [], "running-config still names PG:\n{}".format(cfg)
    assert _lines_naming(cfg, PG_MEMBER[0]) == [], cfg
    assert "PG" not in _fare_neighbors(r1)


def test_saved_config_loads_after_no_peer_group():
    "FARE-3/FARE-11: r1's running-config without PG still loads into a fresh bgpd."
    _saved_config_loads(tgen_or_skip(), "no-peer-group")


def test_recreated_peer_group_starts_clean():
    "FARE-11: PG re-created without FARE settings: its member is no boundary, interface speed; r1 weighs all paths."
    tgen = tgen_or_skip()
    out = _r1(tgen, "neighbor PG peer-group", "neighbor PG remote-as 65002",
              "neighbor {} peer-group PG".format(PG_MEMBER[0]))
    assert "%" not in out, out
    _expect_path(tgen, PG_MEMBER[1], _clean(VETH, "interface speed"), count=90)
    assert "PG" not in _fare_neighbors(tgen.gears["r1"])
    j = vtysh_json(tgen.gears["r1"], "show bgp ipv4 fare {} json".format(PREFIX))["prefixes"][PREFIX]
    assert (j["wcmp"], j["reason"], sorted(q["weight"] for q in j["paths"])) == (
        True, "weighted by Path Bandwidth", [1, 1, 1]), json.dumps(j, indent=1)


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
