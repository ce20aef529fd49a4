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
  fare-avg   FARE averaged mode (WP-2);
  fare-draft-nhg, fare-avg-nhg  the same with `bgp fare nexthop-groups`
             (shared nexthop groups replaced in place; FRR 10.7.1 only).
FARE_BENCH_VARIANTS (comma-separated) picks some of them.

            leaf1 (originates N prefixes, sharpd)
   L1, L2 100G /  | L3..L9 100G, one to each of spine2..spine8
          spine1 ... spine8
              \\  | L10..L17 400G
            leaf2 (measured)

spine1 has two links to leaf1, every other spine one: leaf2 weighs spine1
twice the others (200G against 100G behind it). The remote event takes L2
down (spine1's side): every WCMP variant must then reweigh all N prefixes to
8 equal members, from spine1's new Path Bandwidth; plain ECMP has nothing to
change (spine1 still has a path). The local event, after L2 is back, cuts
leaf2's own link to spine2 (L11) from 400G to 50G with zebra's interface
`bandwidth`: each FARE variant must weigh spine2 below the six others.

Figures per variant: bgpd CPU seconds (utime+stime) from bgpd's start to
leaf2's kernel holding all N prefixes with their final weights, on leaf2
and summed over every router; bgpd peak RSS (VmHWM) on leaf2 and spine2;
for each event, the time from the event to the last kernel route/nexthop
change in leaf2's namespace (event timestamps of `ip -ts monitor`), and the
number of those kernel events (nexthop objects and routes apart); the
longest single task of bgpd's main thread from its cold start to the end of
both events (`show event cpu`, wall time), on leaf2 and over all routers,
and the longest of the module's own tasks (fare_*) over all routers. leaf2's
namespace has net.ipv4.nexthop_compat_mode=0, so that a nexthop group
replaced in place is one kernel event, not one per route that uses it.
"""

import os
import time
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.benchlib import (bgp_route_count, bgpd_cpu, bgpd_hwm_mb, bgpd_stalls_ms,
                           kernel_events, kernel_weights_by_group, kill_every_bgpd,
                           restart_every_bgpd, start_monitor, SHARP_ROUTES)
from fare.common import report, start_fabric, wait_for
from fare.fabric import Fabric

N = int(os.environ.get("FARE_BENCH_PREFIXES", "100000"))
SPINES = ["spine{}".format(i) for i in range(1, 9)]
ROUTERS = dict([("leaf1", 65101)] + [(s, 65000) for s in SPINES] + [("leaf2", 65102)])
LINKS = ([("leaf1", "spine1", 100)] + [("leaf1", s, 100) for s in SPINES]
         + [(s, "leaf2", 400) for s in SPINES])
ALL_VARIANTS = ["ecmp", "frr-lb", "fare-draft", "fare-avg", "fare-draft-nhg", "fare-avg-nhg"]
VARIANTS = [v for v in os.environ.get("FARE_BENCH_VARIANTS", ",".join(ALL_VARIANTS)).split(",")
            if v in ALL_VARIANTS]
NAMES = {"ecmp": "plain ECMP", "frr-lb": "FRR link-bandwidth",
         "fare-draft": "FARE draft", "fare-avg": "FARE averaged",
         "fare-draft-nhg": "FARE draft, groups", "fare-avg-nhg": "FARE averaged, groups"}
BASE = "10.200.0.0"
RESULTS = {}


def _fabric(variant):
    """The fabric's config for one variant (same links, same sessions)."""
    fare = {"ecmp": [], "frr-lb": []}.get(variant, [" bgp fare", " bgp fare hold-down 0"])
    if variant.startswith("fare-avg"):
        fare.append(" bgp fare mode averaged")
    if variant.endswith("-nhg"):
        fare.append(" bgp fare nexthop-groups")
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


FABRICS = {v: _fabric(v) for v in ALL_VARIANTS}
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
    # every bgpd first, and leaf2's kernel left to drop the N routes:
    # zebra stopping with 100,000 routes to remove can outlast the
    # library's patience (it then sends SIGBUS for a core)
    tgen = get_topogen()
    kill_every_bgpd(tgen)
    tgen.gears["leaf1"].vtysh_cmd("sharp remove routes {} {}".format(BASE, N))
    for router in tgen.routers().values():
        wait_for(lambda: bgp_route_count(router), 0, count=120)
    tgen.stop_topology()


def _state(leaf2):
    """(prefixes whose kernel group has 8 members with spine1 heavier than
    the 7 others, which are equal; prefixes with 8 equal members; prefixes
    whose spine2 member is lighter than those of spine3..spine8, which are
    equal)."""
    heavy = equal = light = 0
    for c, w in kernel_weights_by_group(leaf2):
        if len(w) != 8 or set(w) != {"to-" + s for s in SPINES}:
            continue
        rest = {v for k, v in w.items() if k not in ("to-spine1", "to-spine2")}
        if len(rest) != 1:
            continue
        rest = rest.pop()
        if w["to-spine2"] < rest:
            light += c
        elif w["to-spine2"] == rest and w["to-spine1"] > rest:
            heavy += c
        elif w["to-spine2"] == rest and w["to-spine1"] == rest:
            equal += c
    return heavy, equal, light


def _event(tgen, variant, name, change, final, idle):
    """Time one event: `change()` at t0, then wait until leaf2's kernel
    shows `final` (or `idle` seconds when it is None: nothing to wait for),
    and 3 s more. Returns the kernel events and the bgpd CPU of all
    routers over the interval."""
    leaf2 = tgen.gears["leaf2"]
    mon, pid = start_monitor(tgen.logdir, leaf2, "{}-{}".format(name, variant))
    cpu0 = {n: bgpd_cpu(r) for n, r in tgen.routers().items()}
    t0 = time.time()
    change()
    if final is None:
        time.sleep(idle)
    else:
        assert wait_for(lambda: _state(leaf2), final, count=600, wait=0.5) == final, \
            (variant, name)
        time.sleep(3)
    leaf2.run("kill {}".format(pid))
    ev = kernel_events(mon, t0)
    ev["cpu"] = sum(bgpd_cpu(r) - cpu0[n] for n, r in tgen.routers().items())
    return ev


@pytest.mark.parametrize("variant", VARIANTS)
def test_scale(variant):
    tgen = get_topogen()
    leaf1, spine1, leaf2 = tgen.gears["leaf1"], tgen.gears["spine1"], tgen.gears["leaf2"]
    if variant == VARIANTS[0]:
        leaf2.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
        leaf1.vtysh_cmd("sharp install routes {} nexthop 192.0.2.2 {}".format(BASE, N))
        assert wait_for(lambda: int(leaf1.run(SHARP_ROUTES)), N,
                        count=300) == N
    weighted = variant not in ("ecmp",)
    fare = variant.startswith("fare")
    heavy, equal, light = (N, 0, 0), (0, N, 0), (0, 0, N)
    t_start = restart_every_bgpd(tgen, variant, _config, ("leaf2",))
    before = heavy if weighted else equal
    assert wait_for(lambda: _state(leaf2), before, count=600, wait=0.5) == before, variant
    cold = time.monotonic() - t_start
    cpu = {name: bgpd_cpu(r) for name, r in tgen.routers().items()}
    res = {"cold": cold, "cpu_leaf": cpu["leaf2"], "cpu_all": sum(cpu.values()),
           "rss_leaf": bgpd_hwm_mb(leaf2), "rss_spine": bgpd_hwm_mb(tgen.gears["spine2"])}
    time.sleep(5)  # let the fabric settle (UPDATEs back towards the spines)

    # remote: spine1 loses one of its two links to leaf1
    res["remote"] = _event(tgen, variant, "remote",
                           lambda: spine1.run("ip link set to-leaf1-2 down"),
                           equal if weighted else None, 10)
    spine1.run("ip link set to-leaf1-2 up")
    assert wait_for(lambda: _state(leaf2), before, count=600, wait=0.5) == before, variant
    time.sleep(3)

    # local: leaf2's own link to spine2 drops to 50G
    if os.environ.get("FARE_BENCH_TRACE"):
        # leaf2's bgpd and zebra log the event with microsecond timestamps
        # (the per-prefix lines slow bgpd's pass down: not for figures)
        leaf2.vtysh_cmd("configure terminal\nlog timestamp precision 6\ndebug bgp fare\n"
                        "debug zebra nexthop\ndebug zebra events")
    res["local"] = _event(tgen, variant, "local",
                          lambda: leaf2.vtysh_cmd("configure terminal\ninterface to-spine2\n"
                                                  "bandwidth 50000"),
                          light if fare else None, 10)
    leaf2.vtysh_cmd("configure terminal\ninterface to-spine2\nbandwidth 400000")
    stalls = {n: bgpd_stalls_ms(r) for n, r in tgen.routers().items()}
    res["stall_leaf"] = stalls["leaf2"][0]
    res["stall_all"] = max(x[0] for x in stalls.values())
    res["stall_own"] = max(x[1] for x in stalls.values())
    if fare:
        nhg = leaf2.vtysh_cmd("show bgp fare nexthop-groups json", isjson=True)
        res["groups"] = nhg.get("count", 0) if nhg.get("enabled") else None
    RESULTS[variant] = res


def _event_cells(ev):
    if ev is None:
        return ["-", "-", "-"]
    last = "-" if ev["last"] is None else "{:.0f}".format(ev["last"] * 1000)
    lost = ">=" if ev["lost"] else ""
    return [last, "{}{} / {}".format(lost, ev["nexthop"], ev["route"]), "{:.2f}".format(ev["cpu"])]


def test_report():
    head = ["variant", "cold CPU s", "cold s", "peak RSS MB", "remote ms", "remote events",
            "remote CPU", "local ms", "local events", "local CPU", "longest task"]
    head2 = ["", "leaf2 / all", "wall", "leaf2 / spine2", "to kernel", "nexthop / route",
             "s, all", "to kernel", "nexthop / route", "s, all", "ms, leaf2/all/FARE's"]
    fmt = "{:<22} {:>14} {:>7} {:>15} {:>10} {:>16} {:>10} {:>9} {:>16} {:>9} {:>20}"
    lines = ["", "{} prefixes, 8 equal-cost paths: bgpd from a cold start, a remote and a local "
             "event".format(N), fmt.format(*head), fmt.format(*head2)]
    for v in VARIANTS:
        r = RESULTS.get(v)
        if not r:
            continue
        lines.append(fmt.format(
            NAMES[v], "{:.2f} / {:.2f}".format(r["cpu_leaf"], r["cpu_all"]),
            "{:.1f}".format(r["cold"]), "{:.1f} / {:.1f}".format(r["rss_leaf"], r["rss_spine"]),
            *(_event_cells(r["remote"]) + _event_cells(r["local"])
              + ["{:.0f} / {:.0f} / {:.0f}".format(r["stall_leaf"], r["stall_all"],
                                                  r["stall_own"])])))
    if any(r[e]["lost"] for r in RESULTS.values() for e in ("remote", "local")):
        lines.append(">=: the monitor's socket overflowed and lost some events")
    groups = ["{} {}".format(NAMES[v], RESULTS[v]["groups"]) for v in VARIANTS
              if RESULTS.get(v, {}).get("groups") is not None]
    if groups:
        lines.append("leaf2's FARE nexthop groups at the end: " + ", ".join(groups))
    base = RESULTS.get("ecmp")
    if base:
        lines.append("")
        lines.append("ratio to plain ECMP (cold CPU leaf2 / all, peak RSS leaf2 / spine2):")
        for v in VARIANTS[1:]:
            r = RESULTS.get(v)
            if r:
                lines.append("{:<22} {:.2f} / {:.2f}   {:.2f} / {:.2f}".format(
                    NAMES[v], r["cpu_leaf"] / base["cpu_leaf"], r["cpu_all"] / base["cpu_all"],
                    r["rss_leaf"] / base["rss_leaf"], r["rss_spine"] / base["rss_spine"]))
    report("\n".join(lines))
