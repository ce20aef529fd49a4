#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Benchmark (scripts/bench.sh convergence, not part of the test suite):
time from a link failure to the remote leaf's kernel weights being updated,
for 1, 1,000 and 10,000 prefixes, for FARE in draft and in averaged mode,
and for FRR's own link-bandwidth weighted ECMP (`set extcommunity bandwidth
cumulative`), in the same run on the same fabric. It prints figures and
asserts only that every run converged.

            spine1                 spine2
     L1 50G /  \\ L3 100G    L2 100G /  \\ L4 100G      (L4 fails)
           leaf1 (originates N prefixes, sharpd)
     L5, L6: spine1-leaf2 400G     L7, L8: spine2-leaf2 400G
           leaf2 (measured)

Before the failure leaf2 weighs spine2's paths above spine1's (200 vs 150
behind them); after L4 fails, below (100 vs 150). A prefix has converged
when its kernel nexthop group weighs both spine2 members below spine1's.
FRR's link bandwidth is set in Mb/s divided by 10 (5000, 10000): FRR 10.3
squeezes bytes per second through 32 bits and gets weights wrong above
about 34 Gb/s; the ratios, and so the work done, are the same.
"""

import os
import re
import time
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import report, start_fabric, wait_for
from fare.fabric import Fabric

SIZES = [int(x) for x in os.environ.get("FARE_BENCH_SIZES", "1,1000,10000").split(",")]
RUNS = int(os.environ.get("FARE_BENCH_RUNS", "3"))
MODES = ["fare-draft", "fare-averaged", "frr-link-bandwidth"]
ROUTERS = {"leaf1": 65101, "spine1": 65000, "spine2": 65000, "leaf2": 65102}
LINKS = [
    ("leaf1", "spine1", 50), ("leaf1", "spine1", 100),
    ("leaf1", "spine2", 100), ("leaf1", "spine2", 100),
    ("spine1", "leaf2", 400), ("spine1", "leaf2", 400),
    ("spine2", "leaf2", 400), ("spine2", "leaf2", 400),
]
BASE = "10.200.0.0"
RESULTS = {}
POLL = {}


def _fabric():
    f = Fabric(ROUTERS, LINKS, link_config="interface",
               fare_lines={n: [" bgp fare", " bgp fare hold-down 0"] for n in ROUTERS})
    f.fare_lines["leaf1"] = [" bgp fare", " bgp fare hold-down 0", " bgp fare originate"]
    # FRR's own link-bandwidth WCMP, in place in every run; the module's
    # weights replace it while `bgp fare` is on.
    extra = {n: [] for n in ROUTERS}
    extra["leaf1"] = [" address-family ipv4 unicast", "  redistribute sharp"]
    for k, (a, b, gbps) in enumerate(LINKS, 1):
        if a == "leaf1":
            extra["leaf1"].append("  neighbor {} route-map LB{} out".format(f.addr(k, 2), gbps))
        if b == "leaf2":
            if not extra[a]:
                extra[a].append(" address-family ipv4 unicast")
            extra[a].append("  neighbor {} route-map CUMULATIVE out".format(f.addr(k, 2)))
    for n in ROUTERS:
        if extra[n]:
            extra[n].append(" exit-address-family")
    f.extra = extra
    return f


FABRIC = _fabric()
PREAMBLE = {
    "leaf1": ["interface to-h", " ip address 192.0.2.1/24", "exit",
              "route-map LB50 permit 10", " set extcommunity bandwidth 5000", "exit",
              "route-map LB100 permit 10", " set extcommunity bandwidth 10000", "exit"],
    "spine1": ["route-map CUMULATIVE permit 10", " set extcommunity bandwidth cumulative", "exit"],
    "spine2": ["route-map CUMULATIVE permit 10", " set extcommunity bandwidth cumulative", "exit"],
}


# the prefixes' nexthop on leaf1: a host, not a BGP peer
FABRIC.host("h1", "192.0.2.2/24", "via 192.0.2.1").link("leaf1", "h1", "to-h", "eth0")


def _config(name):
    return "\n".join(PREAMBLE.get(name, [])) + "\n" + FABRIC.config(name)


def _daemons(name):
    daemons = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, "-M fare")]
    if name == "leaf1":
        daemons.append((TopoRouter.RD_SHARP, None))
    return daemons


def setup_module(mod):
    start_fabric(mod, FABRIC, _config, _daemons)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _state(leaf2, n):
    """(prefixes with spine2 weighted above spine1, below spine1)."""
    groups = {}
    counts = {}
    for line in leaf2.run("ip -4 route show proto bgp").splitlines():
        m = re.match(r"^10\.2\d\d\.\S+ nhid (\d+)", line)
        if m:
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    above = below = 0
    for nhid, c in counts.items():
        if nhid not in groups:
            w = {}
            out = leaf2.run("ip nexthop show id {}".format(nhid))
            members = re.findall(r"(\d+)(?:,(\d+))?", out.split("group", 1)[1].split("proto")[0]) if "group" in out else []
            for mid, weight in members:
                dev = re.search(r"dev (\S+)", leaf2.run("ip nexthop show id {}".format(mid)))
                w[dev.group(1)] = int(weight or 1)
            groups[nhid] = w
        w = groups[nhid]
        s1 = [v for k, v in w.items() if k.startswith("to-spine1")]
        s2 = [v for k, v in w.items() if k.startswith("to-spine2")]
        if len(s1) == 2 and len(s2) == 2:
            if min(s2) > max(s1):
                above += c
            elif max(s2) < min(s1):
                below += c
    return above, below


def _set_mode(tgen, mode):
    for name, router in tgen.routers().items():
        lines = ["router bgp {}".format(ROUTERS[name])]
        if mode == "frr-link-bandwidth":
            lines.append("no bgp fare")
        else:
            lines.append("bgp fare")
            lines.append("bgp fare mode averaged" if mode == "fare-averaged" else "no bgp fare mode")
        router.vtysh_cmd("configure terminal\n" + "\n".join(lines) + "\n")


@pytest.mark.parametrize("n", SIZES)
def test_convergence(n):
    tgen = get_topogen()
    leaf1, spine2, leaf2 = tgen.gears["leaf1"], tgen.gears["spine2"], tgen.gears["leaf2"]
    leaf1.vtysh_cmd("sharp remove routes {} 20000".format(BASE))
    leaf1.vtysh_cmd("sharp install routes {} nexthop 192.0.2.2 {}".format(BASE, n))
    for _ in range(RUNS):
        for mode in MODES:
            _set_mode(tgen, mode)
            assert wait_for(lambda: _state(leaf2, n), (n, 0), count=120) == (n, 0), (mode, n)
            t = time.monotonic()
            _state(leaf2, n)
            POLL[n] = time.monotonic() - t
            t0 = time.monotonic()
            spine2.run("ip link set to-leaf1-2 down")
            state = None
            while time.monotonic() - t0 < 120:
                state = _state(leaf2, n)
                if state == (0, n):
                    break
            t1 = time.monotonic()
            spine2.run("ip link set to-leaf1-2 up")
            assert state == (0, n), (mode, n, state)
            RESULTS.setdefault((mode, n), []).append(t1 - t0)
            assert wait_for(lambda: _state(leaf2, n), (n, 0), count=120) == (n, 0), (mode, n)


def _cell(times):
    if not times:
        return "-"
    times = sorted(times)
    return "{:.2f} ({:.2f}-{:.2f})".format(times[len(times) // 2], times[0], times[-1])


def test_report():
    lines = ["", "Link failure to the remote leaf's kernel weights updated, seconds:",
             "median (min-max) of {} runs; one poll of the kernel takes the last column".format(RUNS),
             "{:>9}  {:>18}  {:>18}  {:>30}  {:>8}".format(
                 "prefixes", "FARE draft", "FARE averaged", "FRR link-bandwidth cumulative", "poll")]
    for n in SIZES:
        lines.append("{:>9}  {:>18}  {:>18}  {:>30}  {:>7.2f}s".format(
            n, *[_cell(RESULTS.get((m, n))) for m in MODES], POLL.get(n, float("nan"))))
    report("\n".join(lines))
