#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_metrics.py: fare-metrics, FARE's state in the Prometheus text
format, on a GPU server (role host) with two planes.

    r1 (AS 65001) ==== r2 (AS 65002, role host) ---- r3 (AS 65003)
       r1-eth0: IPv4 and IPv6, 100G                  r3-eth0 <-> r2-eth2, 200G
       r1-eth1: IPv4, 300G

r1 and r3 both originate 172.16.1.0/24 with a Path Bandwidth of 400G; r1
also originates 2001:db8:1::/64. r2 has configured link bandwidths, so every
value is exact: r1's two IPv4 sessions count together, min(100G + 300G,
400G) = 400G split 100G:300G, r3 min(200G, 400G) = 200G: weights 1:3:2; the
IPv6 prefix has one path of 100G. r2 also has `router bgp 65002 vrf blue`
(FARE in averaged mode, a boundary neighbor, a multihoming entry; no VRF
device is made, so the instance has no sessions).

The installed tool (scripts/build.sh puts tools/fare-metrics in
build/install/bin) runs in r2's namespace against r2's bgpd. Its output must
hold exactly the expected lines (weights, bandwidths, plane shares, the
configuration), the counters of `show bgp fare json` read at the same
moment, and pass `promtool check metrics` (Debian package prometheus) and a
strict parser of the text format. Then r2 clears r3's session: exactly one
hold-down more, r3's path at weight 0. node_exporter's textfile collector
(Debian package prometheus-node-exporter) serves the written file without
a parse error.
"""

import os
import shutil
import sys

import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import Topogen, get_topogen
from fare.common import DAEMONS_FARE, tgen_or_skip, wait_for, wait_json
from fare.fabric import Topology
from fare.metrics_check import (
    SOURCE,
    TOOL,
    VALUE_CLASSES,
    check_format,
    counter_lines,
    families,
    quiet_counters,
    parse_strict,
    scrape,
    scrape_settled,
)

pytestmark = [pytest.mark.bgpd]

P4 = 'afi="ipv4",{},prefix="172.16.1.0/24",vrf="default"'
P6 = 'afi="ipv6",{},prefix="2001:db8:1::/64",vrf="default"'
R1A = P4.format('interface="r2-eth0",neighbor="10.0.1.1"')
R1B = P4.format('interface="r2-eth1",neighbor="10.0.2.1"')
R3 = P4.format('interface="r2-eth2",neighbor="10.0.3.3"')
R1V6 = P6.format('interface="r2-eth0",neighbor="2001:db8:10::1"')


# Configuration of both instances.
CONFIG = """\
frr_fare_info{mode="draft",parallel_links="per-neighbor",role="host",version="0.1.0",vrf="default"} 1
frr_fare_info{mode="averaged",parallel_links="per-neighbor",role="node",version="0.1.0",vrf="blue"} 1
frr_fare_enabled{vrf="default"} 1
frr_fare_enabled{vrf="blue"} 1
frr_fare_hold_down_seconds{vrf="default"} 300
frr_fare_hold_down_seconds{vrf="blue"} 10
frr_fare_community_sub_type{community="path_bandwidth",vrf="default"} 48
frr_fare_wcmp_max_members{vrf="default"} 512
frr_fare_wcmp_max_weight{vrf="default"} 254
frr_fare_neighbor_link_bandwidth_bytes_per_second{neighbor="10.0.1.1",vrf="default"} 12500000000
frr_fare_neighbor_link_bandwidth_bytes_per_second{neighbor="10.0.2.1",vrf="default"} 37500000000
frr_fare_neighbor_link_bandwidth_bytes_per_second{neighbor="10.0.3.3",vrf="default"} 25000000000
frr_fare_neighbor_link_bandwidth_bytes_per_second{neighbor="2001:db8:10::1",vrf="default"} 12500000000
frr_fare_neighbor_link_bandwidth_bytes_per_second{neighbor="10.0.4.3",vrf="blue"} 6250000000
frr_fare_neighbor_boundary{neighbor="10.0.3.3",vrf="default"} 0
frr_fare_neighbor_boundary{neighbor="10.0.4.3",vrf="blue"} 1
frr_fare_neighbor_super_spine{neighbor="10.0.4.3",vrf="blue"} 0
frr_fare_multihoming_factor{prefix_list="DUAL-HOMED",vrf="blue"} 2
frr_fare_prefixes{afi="ipv4",reason="weighted by Path Bandwidth",vrf="default"} 1
frr_fare_prefixes{afi="ipv6",reason="weighted by Path Bandwidth",vrf="default"} 1
frr_fare_scrape_success 1
"""

# Per prefix and per path, all sessions established once (no hold-down).
PATHS = {
    "frr_fare_prefix_wcmp": [
        'frr_fare_prefix_wcmp{afi="ipv4",prefix="172.16.1.0/24",vrf="default"} 1',
        'frr_fare_prefix_wcmp{afi="ipv6",prefix="2001:db8:1::/64",vrf="default"} 1',
    ],
    "frr_fare_prefix_advertised_bandwidth_bytes_per_second": [
        'frr_fare_prefix_advertised_bandwidth_bytes_per_second{afi="ipv4",community="transitive",'
        'prefix="172.16.1.0/24",vrf="default"} 75000000000',
        'frr_fare_prefix_advertised_bandwidth_bytes_per_second{afi="ipv6",community="transitive",'
        'prefix="2001:db8:1::/64",vrf="default"} 12500000000',
    ],
    "frr_fare_path_weight": [
        "frr_fare_path_weight{%s} 1" % R1A,
        "frr_fare_path_weight{%s} 3" % R1B,
        "frr_fare_path_weight{%s} 2" % R3,
        "frr_fare_path_weight{%s} 1" % R1V6,
    ],
    "frr_fare_path_bandwidth_bytes_per_second": [
        "frr_fare_path_bandwidth_bytes_per_second{%s} 12500000000" % R1A,
        "frr_fare_path_bandwidth_bytes_per_second{%s} 37500000000" % R1B,
        "frr_fare_path_bandwidth_bytes_per_second{%s} 25000000000" % R3,
        "frr_fare_path_bandwidth_bytes_per_second{%s} 12500000000" % R1V6,
    ],
    "frr_fare_path_link_bandwidth_bytes_per_second": [
        "frr_fare_path_link_bandwidth_bytes_per_second{%s} 12500000000" % R1A,
        "frr_fare_path_link_bandwidth_bytes_per_second{%s} 37500000000" % R1B,
        "frr_fare_path_link_bandwidth_bytes_per_second{%s} 25000000000" % R3,
        "frr_fare_path_link_bandwidth_bytes_per_second{%s} 12500000000" % R1V6,
    ],
    "frr_fare_path_received_bandwidth_bytes_per_second": [
        'frr_fare_path_received_bandwidth_bytes_per_second{afi="ipv4",community="transitive",'
        'interface="r2-eth0",neighbor="10.0.1.1",prefix="172.16.1.0/24",vrf="default"} 50000000000',
        'frr_fare_path_received_bandwidth_bytes_per_second{afi="ipv4",community="transitive",'
        'interface="r2-eth1",neighbor="10.0.2.1",prefix="172.16.1.0/24",vrf="default"} 50000000000',
        'frr_fare_path_received_bandwidth_bytes_per_second{afi="ipv4",community="transitive",'
        'interface="r2-eth2",neighbor="10.0.3.3",prefix="172.16.1.0/24",vrf="default"} 50000000000',
        'frr_fare_path_received_bandwidth_bytes_per_second{afi="ipv6",community="transitive",'
        'interface="r2-eth0",neighbor="2001:db8:10::1",prefix="2001:db8:1::/64",vrf="default"} 50000000000',
    ],
    "frr_fare_path_hold_down": [
        "frr_fare_path_hold_down{%s} 0" % R1A,
        "frr_fare_path_hold_down{%s} 0" % R1B,
        "frr_fare_path_hold_down{%s} 0" % R3,
        "frr_fare_path_hold_down{%s} 0" % R1V6,
    ],
    "frr_fare_plane_sessions": [
        'frr_fare_plane_sessions{plane="r1",router_id="10.255.0.1",vrf="default"} 3',
        'frr_fare_plane_sessions{plane="r3",router_id="10.255.0.3",vrf="default"} 1',
    ],
    "frr_fare_plane_sessions_up": [
        'frr_fare_plane_sessions_up{plane="r1",router_id="10.255.0.1",vrf="default"} 3',
        'frr_fare_plane_sessions_up{plane="r3",router_id="10.255.0.3",vrf="default"} 1',
    ],
    "frr_fare_plane_weight": [
        'frr_fare_plane_weight{plane="r1",prefix="172.16.1.0/24",vrf="default"} 4',
        'frr_fare_plane_weight{plane="r3",prefix="172.16.1.0/24",vrf="default"} 2',
        'frr_fare_plane_weight{plane="r1",prefix="2001:db8:1::/64",vrf="default"} 1',
        'frr_fare_plane_weight{plane="r3",prefix="2001:db8:1::/64",vrf="default"} 0',
    ],
    "frr_fare_plane_share_ratio": [
        'frr_fare_plane_share_ratio{plane="r1",prefix="172.16.1.0/24",vrf="default"} 0.6666666666666666',
        'frr_fare_plane_share_ratio{plane="r3",prefix="172.16.1.0/24",vrf="default"} 0.3333333333333333',
        'frr_fare_plane_share_ratio{plane="r1",prefix="2001:db8:1::/64",vrf="default"} 1',
        'frr_fare_plane_share_ratio{plane="r3",prefix="2001:db8:1::/64",vrf="default"} 0',
    ],
    "frr_fare_plane_bandwidth_bytes_per_second": [
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r1",prefix="172.16.1.0/24",vrf="default"} 50000000000',
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r3",prefix="172.16.1.0/24",vrf="default"} 25000000000',
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r1",prefix="2001:db8:1::/64",vrf="default"} 12500000000',
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r3",prefix="2001:db8:1::/64",vrf="default"} 0',
    ],
}


TOPOLOGY = (Topology().router("r1", "r2", "r3")
            .link("r1", "r2", "r1-eth0", "r2-eth0")
            .link("r1", "r2", "r1-eth1", "r2-eth1")
            .link("r3", "r2", "r3-eth0", "r2-eth2"))


def setup_module(mod):
    tgen = Topogen(TOPOLOGY.build_topo, mod.__name__)
    tgen.start_topology()
    for name, router in tgen.routers().items():
        router.load_frr_config(os.path.join(CWD, name + ".conf"), DAEMONS_FARE)
    tgen.start_router()


def teardown_module(_mod):
    get_topogen().stop_topology()


def check_exact(text, counters, paths):
    check_format(text)
    lines = set(text.splitlines())
    for line in CONFIG.splitlines() + counter_lines(counters):
        assert line in lines, "missing or different: {}".format(line)
    fams = families(text)
    for fam, want in paths.items():
        assert sorted(fams.get(fam, [])) == sorted(want), "{}:\n{}".format(fam, "\n".join(fams.get(fam, [])))


def test_installed_tool():
    "scripts/build.sh installed tools/fare-metrics as it is in the repository."
    assert os.access(TOOL, os.X_OK), "{} missing: run scripts/build.sh".format(TOOL)
    with open(TOOL, "rb") as a, open(SOURCE, "rb") as b:
        assert a.read() == b.read(), "{} is not tools/fare-metrics: run scripts/build.sh".format(TOOL)


def test_routes_and_weights_in_place():
    "r2 has the three IPv4 paths (1:3:2) and the IPv6 path, all sessions up once."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    exp = {"prefixes": {"172.16.1.0/24": {"wcmp": True, "paths": [{}, {}, {}]}}}
    assert wait_json(r2, "show bgp ipv4 fare 172.16.1.0/24 json", exp, count=90) is None
    exp = {"prefixes": {"2001:db8:1::/64": {"wcmp": True, "paths": [{"weight": 1}]}}}
    assert wait_json(r2, "show bgp ipv6 fare 2001:db8:1::/64 json", exp, count=90) is None


def test_metrics_exact():
    "Every expected line, exactly; the counters as `show bgp fare json` has them."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    blue = quiet_counters(r2, "blue")
    text, counters = scrape_settled(r2)
    assert counters["heldDown"] == 0
    assert counters["receivedValues"]["valid"] > 0
    check_exact(text, counters, PATHS)
    # bad input: none in this fabric, and said so
    for klass in VALUE_CLASSES[2:]:
        assert 'frr_fare_received_values_total{class="%s",vrf="default"} 0' % klass in text
    # the VRF's instance has counters of its own, labelled with it: no
    # session of blue is up, so it received no value, while the default
    # instance's count above is not 0
    assert blue == quiet_counters(r2, "blue")
    assert blue["receivedValues"]["valid"] == 0 and blue["originated"] == 0, blue
    lines = set(text.splitlines())
    for line in counter_lines(blue, "blue"):
        assert line in lines, "missing or different: {}".format(line)


def test_cardinality_options():
    "--prefixes summary and none, --prefix and --vrf limit the series."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    rc, text = scrape(r2, "--prefixes", "summary")
    assert rc == 0, text
    fams = families(text)
    assert not [f for f in fams if f.startswith(("frr_fare_path_", "frr_fare_prefix_"))], sorted(fams)
    assert "frr_fare_plane_weight" not in fams
    assert sorted(fams["frr_fare_plane_sessions"]) == sorted(PATHS["frr_fare_plane_sessions"])
    assert sorted(fams["frr_fare_prefixes"]) == sorted(l for l in CONFIG.splitlines()
                                                      if l.startswith("frr_fare_prefixes"))
    rc, text = scrape(r2, "--prefixes", "none")
    assert rc == 0, text
    fams = families(text)
    assert "frr_fare_prefixes" not in fams and "frr_fare_path_weight" not in fams
    assert "frr_fare_hold_downs_total" in fams and "frr_fare_info" in fams
    rc, text = scrape(r2, "--prefix", "2001:db8:1::/64", "--vrf", "default")
    assert rc == 0, text
    fams = families(text)
    assert fams["frr_fare_path_weight"] == ["frr_fare_path_weight{%s} 1" % R1V6]
    assert len(fams["frr_fare_plane_weight"]) == 2
    assert not [l for l in text.splitlines() if 'vrf="blue"' in l]
    check_format(text)


def test_scrape_failure():
    "vtysh missing: exit 1, the reason on stderr, frr_fare_scrape_success 0."
    tgen = tgen_or_skip()
    rc, text = scrape(tgen.gears["r2"], "--vtysh", "/nonexistent/vtysh")
    assert rc == 1
    assert "fare-metrics: vtysh:" in text
    lines = [l for l in text.splitlines() if l.startswith("frr_fare_")]
    assert lines[0] == "frr_fare_scrape_success 0" and len(lines) == 2, text


def test_hold_down_counted():
    "r2 clears r3's session: one hold-down more, r3's path and plane at weight 0."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    r2.vtysh_cmd("clear bgp 10.0.3.3")
    exp = {"prefixes": {"172.16.1.0/24": {"paths": [{}, {}, {"peer": "10.0.3.3", "holdDown": True}]}}}
    assert wait_json(r2, "show bgp ipv4 fare 172.16.1.0/24 json", exp, count=60) is None
    text, counters = scrape_settled(r2)
    assert counters["heldDown"] == 1
    paths = dict(PATHS)
    paths["frr_fare_path_weight"] = [PATHS["frr_fare_path_weight"][i] for i in (0, 1, 3)] + [
        "frr_fare_path_weight{%s} 0" % R3]
    paths["frr_fare_path_bandwidth_bytes_per_second"] = [
        PATHS["frr_fare_path_bandwidth_bytes_per_second"][i] for i in (0, 1, 3)] + [
        "frr_fare_path_bandwidth_bytes_per_second{%s} 0" % R3]
    paths["frr_fare_path_hold_down"] = [PATHS["frr_fare_path_hold_down"][i] for i in (0, 1, 3)] + [
        "frr_fare_path_hold_down{%s} 1" % R3]
    paths["frr_fare_prefix_advertised_bandwidth_bytes_per_second"] = [
        'frr_fare_prefix_advertised_bandwidth_bytes_per_second{afi="ipv4",community="transitive",'
        'prefix="172.16.1.0/24",vrf="default"} 50000000000',
        PATHS["frr_fare_prefix_advertised_bandwidth_bytes_per_second"][1]]
    paths["frr_fare_plane_weight"] = [
        'frr_fare_plane_weight{plane="r1",prefix="172.16.1.0/24",vrf="default"} 4',
        'frr_fare_plane_weight{plane="r3",prefix="172.16.1.0/24",vrf="default"} 0',
    ] + PATHS["frr_fare_plane_weight"][2:]
    paths["frr_fare_plane_share_ratio"] = [
        'frr_fare_plane_share_ratio{plane="r1",prefix="172.16.1.0/24",vrf="default"} 1',
        'frr_fare_plane_share_ratio{plane="r3",prefix="172.16.1.0/24",vrf="default"} 0',
    ] + PATHS["frr_fare_plane_share_ratio"][2:]
    paths["frr_fare_plane_bandwidth_bytes_per_second"] = [
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r1",prefix="172.16.1.0/24",vrf="default"} 50000000000',
        'frr_fare_plane_bandwidth_bytes_per_second{plane="r3",prefix="172.16.1.0/24",vrf="default"} 0',
    ] + PATHS["frr_fare_plane_bandwidth_bytes_per_second"][2:]
    check_exact(text, counters, paths)
    assert 'frr_fare_hold_downs_total{vrf="default"} 1' in text.splitlines()


def test_node_exporter_textfile():
    """--textfile-dir writes frr_fare.prom atomically (0644, no temporary
    file left); node_exporter's textfile collector reads it without error
    and serves its series."""
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    exporter = shutil.which("prometheus-node-exporter")
    textdir = os.path.join(tgen.logdir, "r2", "textfile")
    os.makedirs(textdir, exist_ok=True)
    rc, out = scrape(r2, "--textfile-dir", textdir)
    assert rc == 0 and out == "", out
    assert os.listdir(textdir) == ["frr_fare.prom"]
    path = os.path.join(textdir, "frr_fare.prom")
    assert os.stat(path).st_mode & 0o777 == 0o644
    with open(path) as f:
        written = parse_strict(f.read())
    assert written['frr_fare_path_weight{%s}' % R1B] == "3"
    if not exporter:
        pytest.skip("prometheus-node-exporter not installed (Debian package): file checked only")
    log = os.path.join(tgen.logdir, "r2", "node-exporter.log")
    pid = r2.run("{} --collector.disable-defaults --collector.textfile "
                 "--collector.textfile.directory={} --web.listen-address=127.0.0.1:19100 "
                 "> {} 2>&1 & echo $!".format(exporter, textdir, log)).strip()
    get = ("/usr/bin/python3 -c 'import urllib.request; print(urllib.request.urlopen("
           "\"http://127.0.0.1:19100/metrics\", timeout=5).read().decode())' 2>/dev/null")
    try:
        served = wait_for(lambda: "node_textfile_scrape_error" in r2.run(get), True, count=20, wait=0.5)
        assert served, open(log).read()
        metrics = r2.run(get)
    finally:
        r2.run("kill {} 2>/dev/null".format(pid))
    lines = set(metrics.splitlines())
    assert "node_textfile_scrape_error 0" in lines, metrics
    assert "frr_fare_path_weight{%s} 3" % R1B in lines
    assert 'frr_fare_hold_downs_total{vrf="default"} 1' in lines
    assert 'frr_fare_plane_share_ratio{plane="r1",prefix="172.16.1.0/24",vrf="default"} 1' in lines


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
