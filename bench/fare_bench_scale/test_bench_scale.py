#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Benchmark (scripts/bench.sh scale, not part of the test suite): the cost of
FARE at scale. N prefixes (FARE_BENCH_PREFIXES, 100000) cross a 3-stage
fabric with 8 equal-cost paths each; four variants take turns on the same
fabric, each from a cold start of every router's bgpd:

  ecmp       plain ECMP: the module loaded (-M fare), `bgp fare` off;
  frr-lb     FRR's link-bandwidth WCMP (`set extcommunity bandwidth`,
             `... cumulative` on the spines);
  fare-draft FARE draft mode (FARE-4/5);
  fare-avg   FARE averaged mode (WP-2).

            leaf1 (originates N prefixes, sharpd)
   L1, L2 100G /  | L3..L9 100G, one to each of spine2..spine8
          spine1 ... spine8
              \\  | L10..L17 400G
            leaf2 (measured)

spine1 has two links to leaf1, every other spine one: leaf2 weighs spine1
twice the others (200G against 100G behind it). The failure takes L2 down:
every WCMP variant must then reweigh all N prefixes to 8 equal members;
plain ECMP has nothing to change (spine1 still has a path).

Figures per variant: bgpd CPU seconds (utime+stime) from bgpd's start to
leaf2's kernel holding all N prefixes with their final weights, on leaf2
and summed over every router; bgpd peak RSS (VmHWM) on leaf2 and spine2;
the time from the failure to the last kernel route/nexthop change in
leaf2's namespace (event timestamps of `ip -ts monitor`), and the number of
those kernel events.
"""

import datetime
import os
import re
import time
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import report, start_fabric, wait_for
from fare.fabric import Fabric

N = int(os.environ.get("FARE_BENCH_PREFIXES", "100000"))
SPINES = ["spine{}".format(i) for i in range(1, 9)]
ROUTERS = dict([("leaf1", 65101)] + [(s, 65000) for s in SPINES] + [("leaf2", 65102)])
LINKS = ([("leaf1", "spine1", 100)] + [("leaf1", s, 100) for s in SPINES]
         + [(s, "leaf2", 400) for s in SPINES])
VARIANTS = ["ecmp", "frr-lb", "fare-draft", "fare-avg"]
NAMES = {"ecmp": "plain ECMP", "frr-lb": "FRR link-bandwidth",
         "fare-draft": "FARE draft", "fare-avg": "FARE averaged"}
BASE = "10.200.0.0"
HZ = os.sysconf("SC_CLK_TCK")
RESULTS = {}


def _fabric(variant):
    """The fabric's config for one variant (same links, same sessions)."""
    fare = {"ecmp": [], "frr-lb": [],
            "fare-draft": [" bgp fare", " bgp fare hold-down 0"],
            "fare-avg": [" bgp fare", " bgp fare hold-down 0", " bgp fare mode averaged"]}[variant]
    f = Fabric(ROUTERS, LINKS, link_config="interface", fare_lines={n: list(fare) for n in ROUTERS})
    if fare:
        f.fare_lines["leaf1"].append(" bgp fare originate")
    extra = {n: [] for n in ROUTERS}
    extra["leaf1"] = [" address-family ipv4 unicast", "  redistribute sharp"]
    if variant == "frr-lb":
        # as in fare_bench_convergence: Mb/s divided by 10 (FRR 10.3's
        # 32-bit link bandwidth is wrong above about 34 Gb/s)
        for k, (a, b, _) in enumerate(LINKS, 1):
            if a == "leaf1":
                extra["leaf1"].append("  neighbor {} route-map LB100 out".format(f.addr(k, 2)))
            if b == "leaf2":
                extra[a] += [" address-family ipv4 unicast",
                             "  neighbor {} route-map CUMULATIVE out".format(f.addr(k, 2))]
    for n in ROUTERS:
        if extra[n]:
            extra[n].append(" exit-address-family")
    f.extra = extra
    return f


FABRICS = {v: _fabric(v) for v in VARIANTS}
PREAMBLE = dict(
    [("leaf1", ["interface to-h", " ip address 192.0.2.1/24", "exit",
                "route-map LB100 permit 10", " set extcommunity bandwidth 10000", "exit"])]
    + [(s, ["route-map CUMULATIVE permit 10", " set extcommunity bandwidth cumulative", "exit"])
       for s in SPINES])


# the prefixes' nexthop on leaf1: a host, not a BGP peer
TOPOLOGY = FABRICS["ecmp"].host("h1", "192.0.2.2/24", "via 192.0.2.1").link("leaf1", "h1", "to-h",
                                                                          "eth0")


def _config(name, variant="ecmp"):
    return "\n".join(PREAMBLE.get(name, [])) + "\n" + FABRICS[variant].config(name)


def _daemons(name):
    daemons = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, "-M fare")]
    if name == "leaf1":
        daemons.append((TopoRouter.RD_SHARP, None))
    return daemons


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, _config, _daemons)


def teardown_module(_mod):
    get_topogen().stop_topology()


def _bgpd(router, what):
    """bgpd's /proc/PID/`what` text, read in the router's namespace."""
    return router.run("cat /proc/$(cat /var/run/frr/bgpd.pid)/" + what)


def _cpu(router):
    """bgpd's user+system CPU seconds since it started."""
    fields = _bgpd(router, "stat").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def _hwm_mb(router):
    m = re.search(r"VmHWM:\s+(\d+) kB", _bgpd(router, "status"))
    return int(m.group(1)) / 1024 if m else float("nan")


def _state(leaf2):
    """(prefixes whose kernel group has 8 members with spine1 heavier than
    the 7 others, which are equal; prefixes with 8 equal members)."""
    members = {}
    devs = {}
    for line in leaf2.run("ip nexthop show").splitlines():
        m = re.match(r"id (\d+) group (\S+)", line)
        if m:
            members[m.group(1)] = [(x.split(",") + ["1"])[:2] for x in m.group(2).split("/")]
            continue
        m = re.match(r"id (\d+) via \S+ dev (\S+)", line)
        if m:
            devs[m.group(1)] = m.group(2)
    counts = {}
    for m in re.finditer(r"^10\.2\d\d\.\S+ nhid (\d+)", leaf2.run("ip -4 route show proto bgp"),
                         re.M):
        counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    heavy = equal = 0
    for nhid, c in counts.items():
        w = {devs.get(i, "?"): int(x) for i, x in members.get(nhid, [])}
        if len(w) != 8 or set(w) != {"to-" + s for s in SPINES}:
            continue
        others = {v for k, v in w.items() if k != "to-spine1"}
        if len(others) == 1 and w["to-spine1"] > min(others):
            heavy += c
        elif len(others) == 1 and w["to-spine1"] == min(others):
            equal += c
    return heavy, equal


def _restart_bgpd(tgen, variant):
    """Kill every bgpd (zebra and sharpd keep the N routes on leaf1), wait
    for leaf2's kernel to be empty of BGP routes, start bgpd with the
    variant's config; return the wall time of the start."""
    for router in tgen.routers().values():
        router.run("kill -9 $(cat /var/run/frr/bgpd.pid) 2>/dev/null")
    leaf2 = tgen.gears["leaf2"]
    assert wait_for(lambda: leaf2.run("ip -4 route show proto bgp | wc -l").strip(), "0",
                    count=120) == "0"
    t = time.monotonic()
    for name, router in tgen.routers().items():
        path = os.path.join(tgen.logdir, "configs", "{}-{}.conf".format(name, variant))
        with open(path, "w") as f:
            f.write(_config(name, variant))
        router.net.startRouterDaemons(["bgpd"])
        router.cmd("vtysh -f " + path)
    return t


def _events(path, t0):
    """(kernel route/nexthop events after wall time t0, time of the last
    one in seconds after t0, whether the monitor lost messages) from an
    `ip -ts monitor` file. zebra deletes the old nexthop group seconds
    after the routes have left it: counted, but not the last change."""
    count, last, lost = 0, None, False
    with open(path) as f:
        for line in f:
            m = re.match(r"\[(\S+)\]", line)
            if not m:
                lost = lost or "No buffer space" in line
                continue
            t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
            if t >= t0:
                count += 1
                if "Deleted id" not in line:
                    last = t - t0
    return count, last, lost


@pytest.mark.parametrize("variant", VARIANTS)
def test_scale(variant):
    tgen = get_topogen()
    leaf1, spine1, leaf2 = tgen.gears["leaf1"], tgen.gears["spine1"], tgen.gears["leaf2"]
    if variant == VARIANTS[0]:
        leaf1.vtysh_cmd("sharp install routes {} nexthop 192.0.2.2 {}".format(BASE, N))
        assert wait_for(lambda: int(leaf1.run(r"ip -4 route show | grep -c '^10\.2'")), N,
                        count=300) == N
    before = (0, N) if variant == "ecmp" else (N, 0)
    t_start = _restart_bgpd(tgen, variant)
    assert wait_for(lambda: _state(leaf2), before, count=600, wait=0.5) == before, variant
    cold = time.monotonic() - t_start
    cpu = {name: _cpu(r) for name, r in tgen.routers().items()}
    res = {"cold": cold, "cpu_leaf": cpu["leaf2"], "cpu_all": sum(cpu.values()),
           "rss_leaf": _hwm_mb(leaf2), "rss_spine": _hwm_mb(tgen.gears["spine2"])}
    time.sleep(5)  # let the fabric settle (UPDATEs back towards the spines)

    mon = os.path.join(tgen.logdir, "leaf2-monitor-{}.txt".format(variant))
    # a large socket buffer: the reweighting is a burst of N messages
    pid = leaf2.run("ip -rcvbuf 16777216 -ts monitor nexthop route >{} 2>&1 & echo $!"
                    .format(mon)).strip()
    time.sleep(1)
    cpu0 = {name: _cpu(r) for name, r in tgen.routers().items()}
    t0 = time.time()
    spine1.run("ip link set to-leaf1-2 down")
    if variant == "ecmp":
        time.sleep(10)  # nothing to wait for: count what happens anyway
    else:
        assert wait_for(lambda: _state(leaf2), (0, N), count=600, wait=0.5) == (0, N), variant
        time.sleep(3)
    leaf2.run("kill {}".format(pid))
    spine1.run("ip link set to-leaf1-2 up")
    res["events"], res["fail"], res["lost"] = _events(mon, t0)
    res["cpu_fail"] = sum(_cpu(r) - cpu0[name] for name, r in tgen.routers().items())
    RESULTS[variant] = res


def test_report():
    lines = ["", "{} prefixes, 8 equal-cost paths, bgpd from a cold start and a link failure".format(N),
             "{:<20} {:>15} {:>9} {:>17} {:>11} {:>8} {:>12}".format(
                 "variant", "cold CPU s", "cold s", "peak RSS MB", "failure ms", "kernel",
                 "failure CPU")]
    lines.append("{:<20} {:>15} {:>9} {:>17} {:>11} {:>8} {:>12}".format(
        "", "leaf2 / all", "wall", "leaf2 / spine2", "to kernel", "events", "s, all"))
    for v in VARIANTS:
        r = RESULTS.get(v)
        if not r:
            continue
        fail = "-" if r["fail"] is None else "{:.0f}".format(r["fail"] * 1000)
        lines.append("{:<20} {:>15} {:>9.1f} {:>17} {:>11} {:>8} {:>12.2f}".format(
            NAMES[v], "{:.2f} / {:.2f}".format(r["cpu_leaf"], r["cpu_all"]), r["cold"],
            "{:.1f} / {:.1f}".format(r["rss_leaf"], r["rss_spine"]), fail,
            (">=" if r["lost"] else "") + str(r["events"]),
            r["cpu_fail"]))
    if any(r["lost"] for r in RESULTS.values()):
        lines.append(">=: the monitor's socket overflowed and lost some events")
    base = RESULTS.get("ecmp")
    if base:
        lines.append("")
        lines.append("ratio to plain ECMP (cold CPU leaf2 / all, peak RSS leaf2 / spine2):")
        for v in ("fare-draft", "fare-avg"):
            r = RESULTS.get(v)
            if r:
                lines.append("{:<20} {:.2f} / {:.2f}   {:.2f} / {:.2f}".format(
                    NAMES[v], r["cpu_leaf"] / base["cpu_leaf"], r["cpu_all"] / base["cpu_all"],
                    r["rss_leaf"] / base["rss_leaf"], r["rss_spine"] / base["rss_spine"]))
    report("\n".join(lines))
