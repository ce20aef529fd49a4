#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_dissector.py: tools/wireshark/fare.lua on a live BGP session.

r1 (AS 65101, router ID 10.255.0.1) --- r2 (AS 65102, router ID 10.255.0.2)

r1 originates 172.16.1.0/24 with `bgp fare originate 400G` (FARE-2) and
`bgp fare ecmp-group-id 2` (EE-3). dumpcap captures r2-eth0 from before
the daemons start, so the capture holds the session's first UPDATEs; tshark
decodes it with the Lua script.

Checks:
  1. r2's own display (FRR) shows PB:65101:400.000 Gbps and EG:10.255.0.1:2.
  2. In the capture, every UPDATE r1 sends for 172.16.1.0/24 is decoded
     exactly: Path Bandwidth transitive, sub-type 0x30, AS 65101, 5e10
     bytes/s (400 Gb/s), class valid, text "PB:65101:400.000 Gbps"; GroupID
     sub-type 0x47, router ID 10.255.0.1, group 2, text "EG:10.255.0.1:2";
     the texts are those FRR shows.
  3. Both routers move to sub-types 49 (Path Bandwidth) and 72 (GroupID):
     r1's new UPDATE is decoded with -o fare.pb_subtype:49 -o
     fare.gid_subtype:0x48, to the same values with those sub-types, and
     not at all with the default preferences.
"""

import os
import signal
import subprocess
import sys
import time

import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

pytestmark = [pytest.mark.bgpd]

LUA = os.path.join(CWD, "..", "..", "tools", "wireshark", "fare.lua")
PREFIX = "172.16.1.0/24"
PB_TEXT = "PB:65101:400.000 Gbps"
EG_TEXT = "EG:10.255.0.1:2"

CONFIGS = {
    "r1": """
frr defaults datacenter
hostname r1
!
interface r1-eth0
 ip address 10.0.0.1/24
!
router bgp 65101
 bgp router-id 10.255.0.1
 no bgp ebgp-requires-policy
 no bgp network import-check
 neighbor 10.0.0.2 remote-as 65102
 address-family ipv4 unicast
  network 172.16.1.0/24
 exit-address-family
 bgp fare
 bgp fare originate 400G
 bgp fare ecmp-group-id 2
!
""",
    "r2": """
frr defaults datacenter
hostname r2
!
interface r2-eth0
 ip address 10.0.0.2/24
!
router bgp 65102
 bgp router-id 10.255.0.2
 no bgp ebgp-requires-policy
 neighbor 10.0.0.1 remote-as 65101
 bgp fare
!
""",
}

# r2-eth0's capture: {"proc", "path", "log"}
CAPTURE = {}


TOPOLOGY = Topology().router("r1", "r2").link("r1", "r2", "r1-eth0", "r2-eth0")


def start_capture(tgen, name):
    """dumpcap on r2-eth0 (BGP only), in r2's namespace; returns once it
    captures."""
    os.makedirs(tgen.logdir, exist_ok=True)
    path = os.path.join(tgen.logdir, name + ".pcapng")
    log_path = os.path.join(tgen.logdir, name + ".dumpcap.log")
    log = open(log_path, "w")
    proc = tgen.gears["r2"].popen(
        ["/usr/bin/dumpcap", "-i", "r2-eth0", "-f", "tcp port 179", "-w", path],
        stdout=log, stderr=log,
    )
    CAPTURE.update(proc=proc, path=path, log=log, log_path=log_path)

    def capturing():
        with open(log_path) as f:
            return "Capturing on" in f.read() and os.path.exists(path)

    if not wait_for(capturing, True, count=40, wait=0.25):
        stop_capture()
        with open(log_path) as f:
            pytest.fail("dumpcap did not start: " + f.read())


def stop_capture():
    """Stop dumpcap cleanly (SIGINT: it writes out what it has); the path."""
    proc = CAPTURE.get("proc")
    if proc is None:
        return None
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    CAPTURE["log"].close()
    CAPTURE["proc"] = None
    return CAPTURE["path"]


def setup_module(mod):
    start_fabric(
        mod,
        TOPOLOGY,
        lambda name: CONFIGS[name],
        prepare=lambda tgen: start_capture(tgen, "session"),
    )


def teardown_module(_mod):
    stop_capture()
    get_topogen().stop_topology()


FIELDS = [
    "frame.number",
    "fare.pb.text",
    "fare.pb.transitive",
    "fare.pb.subtype",
    "fare.pb.as",
    "fare.pb.raw",
    "fare.pb.bytes_per_sec",
    "fare.pb.bits_per_sec",
    "fare.pb.class",
    "fare.pb.usable",
    "fare.gid.text",
    "fare.gid.subtype",
    "fare.gid.router_id",
    "fare.gid.group",
    "fare.gid.class",
    "bgp.ext_com.stype_tr_as2",
]


def decode(pcap, *prefs):
    """r1's UPDATEs announcing PREFIX, in capture order, as [{field:
    [values]}], decoded by tshark with the script (and -o prefs)."""
    cmd = ["/usr/bin/tshark", "-n", "-X", "lua_script:" + LUA, "-r", pcap]
    for p in prefs:
        cmd += ["-o", p]
    cmd += ["-Y", "ip.src == 10.0.0.1 && bgp.type == 2 && bgp.nlri_prefix == 172.16.1.0",
            "-T", "fields", "-E", "separator=/t", "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    assert res.returncode == 0, "{}: {}".format(" ".join(cmd), res.stderr)
    assert "Lua" not in res.stderr, res.stderr
    rows = []
    for line in res.stdout.splitlines():
        cols = line.split("\t")
        rows.append({f: (cols[i].split("|") if i < len(cols) and cols[i] else [])
                     for i, f in enumerate(FIELDS)})
    return rows


def frr_shown(router):
    """The extended communities FRR shows for PREFIX's best path"""
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(PREFIX))
    paths = j.get("paths", [])
    return paths[0].get("extendedCommunity", {}).get("string", "") if paths else ""


def wait_shown(router, count=60):
    ok = lambda: PB_TEXT in frr_shown(router) and EG_TEXT in frr_shown(router)
    return wait_for(ok, True, count=count)


def expected(pb_subtype, gid_subtype):
    return {
        "fare.pb.text": [PB_TEXT],
        "fare.pb.transitive": ["1"],
        "fare.pb.subtype": [pb_subtype],
        "fare.pb.as": ["65101"],
        "fare.pb.raw": ["0x513a43b7"],
        "fare.pb.bytes_per_sec": ["5e+10"],
        "fare.pb.bits_per_sec": ["400000000000"],
        "fare.pb.class": ["valid"],
        "fare.pb.usable": ["1"],
        "fare.gid.text": [EG_TEXT],
        "fare.gid.subtype": [gid_subtype],
        "fare.gid.router_id": ["10.255.0.1"],
        "fare.gid.group": ["2"],
        "fare.gid.class": ["valid"],
    }


def fare_part(row):
    return {k: v for k, v in row.items() if k.startswith("fare.")}


def test_frr_shows_communities():
    "r2's route display decodes r1's Path Bandwidth and GroupID (FARE-1, EE-3)."
    tgen = tgen_or_skip()
    r2 = tgen.gears["r2"]
    assert wait_shown(r2), "r2 shows {!r}".format(frr_shown(r2))


def test_capture_decoded():
    "The session's UPDATEs from r1, decoded by the script: exactly FARE-1/EE-3's values."
    tgen = tgen_or_skip()
    assert wait_shown(tgen.gears["r2"])
    time.sleep(1)  # what r2 has received, dumpcap has too: let it write
    pcap = stop_capture()
    assert pcap and os.path.getsize(pcap) > 0

    rows = decode(pcap)
    assert rows, "no UPDATE of {} from r1 in {}".format(PREFIX, pcap)
    for row in rows:
        assert fare_part(row) == expected("0x30", "0x47"), row

    # the texts are FRR's
    shown = frr_shown(tgen.gears["r2"])
    assert rows[-1]["fare.pb.text"][0] in shown and rows[-1]["fare.gid.text"][0] in shown


def test_subtypes_as_preferences():
    """Sub-types 49 and 72 on both routers: r1's new UPDATE is decoded with
    the preferences set to them, and not with the defaults."""
    tgen = tgen_or_skip()
    r1, r2 = tgen.gears["r1"], tgen.gears["r2"]
    start_capture(tgen, "subtypes")
    # r2 first: it shows the values again only from r1's new UPDATE
    r2.vtysh_cmd("configure terminal\nrouter bgp 65102\n"
                 "bgp fare path-bandwidth sub-type 49\nbgp fare ecmp-group-id sub-type 72\n")
    r1.vtysh_cmd("configure terminal\nrouter bgp 65101\n"
                 "bgp fare path-bandwidth sub-type 49\nbgp fare ecmp-group-id sub-type 72\n")
    assert wait_shown(r2), "r2 shows {!r}".format(frr_shown(r2))
    time.sleep(1)
    pcap = stop_capture()

    rows = decode(pcap, "fare.pb_subtype:49", "fare.gid_subtype:0x48")
    assert rows, "no new UPDATE of {} from r1 in {}".format(PREFIX, pcap)
    assert fare_part(rows[-1]) == expected("0x31", "0x48"), rows[-1]

    rows = decode(pcap)
    last = rows[-1]
    assert "0x31" in last["bgp.ext_com.stype_tr_as2"], last
    assert fare_part(last) == {k: [] for k in expected("", "")}, last


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
