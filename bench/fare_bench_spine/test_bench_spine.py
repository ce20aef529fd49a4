#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Benchmark (scripts/bench.sh spine, not part of the test suite): a spine
with 64 BGP sessions and 200,000 prefixes carrying 1,000 distinct ECMP
GroupIDs (EE-3). Eight leaves, each with eight parallel 400G links to the
spine and one IPv4 session per link (64 sessions at the spine), each
originating N/8 prefixes (FARE_BENCH_SPINE_PREFIXES, 200000) from sharpd,
tagged by prefix-lists with G/8 GroupIDs of its own
(FARE_BENCH_SPINE_GROUPS, 1000; every FARE variant). leaf8 is an ingress
leaf with Enhanced ECMP sub-groups of 2 uplinks (EE-2/EE-4: 4 sub-groups,
the other leaves' 7G/8 remote groups mapped to them) and installs what the
spine sends; leaf1..leaf7 refuse the spine's routes inbound (a deny-all
route-map), so that the machine's two cores go to the spine. The variants
take turns on the same fabric, each from a cold start of every bgpd:

  ecmp       plain ECMP: the module loaded (-M fare), `bgp fare` off;
  ecmp-tagged  the same, each leaf tagging its prefixes by the same
             prefix-lists with one of its G/8 route targets (`set
             extcommunity rt AS:j` on `redistribute sharp`): as many
             distinct attributes as FARE's GroupIDs, so the spine packs
             its UPDATEs as it does with FARE (one per GroupID), and
             leaf8 receives a prefix's eight paths in as many UPDATEs;
  frr-lb     FRR's link-bandwidth WCMP (`set extcommunity bandwidth` on
             the leaves, `... cumulative` on the spine's 64 sessions);
  fare-draft FARE draft mode (FARE-4/5), hold-down 0;
  fare-avg   FARE averaged mode (WP-2);
  fare-draft-nhg, fare-avg-nhg  the same with `bgp fare nexthop-groups`.
FARE_BENCH_VARIANTS (comma-separated) picks some of them.

         leaf1 ... leaf8   (N/8 prefixes and G/8 GroupIDs each)
           8x \\  | //  8x 400G, one IPv4 session per link
                spine      (measured: 64 sessions, N prefixes x 8 paths)

Figures per variant:
- cold start: bgpd CPU seconds (utime+stime) from bgpd's start until the
  spine's kernel holds all N prefixes over 8 equal members, leaf8 has
  the 7N/8 others on each of its 8 sessions, and every bgpd is done (all
  of them together under 0.1 s of CPU per second, twice in a row; the
  wall time runs to the start of that quiet); on the spine, on leaf8 and
  summed over all routers;
  bgpd peak RSS (VmHWM) on the spine and leaf8;
- the route messages leaf8's bgpd sent its zebra in the cold start (`show
  zebra client`, IPv4 adds and updates): a prefix whose eight paths come
  in several UPDATEs may go to zebra once per step;
- a local event at the spine: its link to-leaf1-1 drops from 400G to 50G
  (zebra's interface `bandwidth`): the time to the last kernel change in
  the spine's namespace (`ip -ts monitor` event timestamps), the spine's
  kernel events (nexthop objects and routes apart,
  net.ipv4.nexthop_compat_mode=0), and the bgpd CPU of all routers until
  3 s after the spine's kernel holds the new weights (the spine also
  re-advertises leaf1's prefixes with a new Path Bandwidth on 56
  sessions); leaf8's kernel events over the same interval and the time of
  the last one (leaf1's prefixes come to leaf8 with a new value on each
  of its 8 sessions, one session's UPDATEs after another's: the weights
  end as they were, equal, and whatever changes meanwhile is transient),
  and over the 5 s before the event (leaf8 settled: none expected); and
  the UPDATEs leaf8 received after the event and when the last one came,
  from a capture of its BGP packets (dumpcap, the kernel's receive
  timestamps): the kernel's last change that far after it is BGP's
  time, the rest leaf8's own, or its wait for a CPU (on a machine with
  fewer cores than routers, every leaf's bgpd works on the same UPDATEs
  at once), hence leaf8's bgpd CPU over the event beside it;
- a session reset: `clear bgp` of the spine's first session to leaf1, and
  the spine's bgpd CPU and the wall time until it has the leaf's N/8
  prefixes again and has sent it the 7N/8 others;
- the longest task of bgpd's main thread since its start (`show event
  cpu`, wall time) on the spine, and the longest of the module's own tasks
  (events named fare_*); FARE's work inside bgpd's own tasks (best-path
  selection, updates) counts under bgpd's names; the same by CPU time of
  one run (the wall time also counts the time the other routers' daemons
  had the core, on this 2-core machine);
- FARE variants: the wall time of `show bgp fare ecmp-groups json` on
  leaf8 (vtysh included) and the number of remote groups it shows;
- FARE_BENCH_SPINE_LOOP_DETECTION=1: every leaf's sessions to the spine
  with `neighbor X sender-as-path-loop-detection`, so that no leaf sends
  the spine back the routes it has from it (the spine drops them: its AS
  is in their path); the spine itself stays in one update-group;
- FARE_BENCH_SPINE_COLD_ROUNDS=K (1): K cold starts of every variant in
  all, in turns, the cold-start figures of each round kept: their median
  (min-max), and the ratios of the medians to plain ECMP's;
- FARE_BENCH_SPINE_UPDATE_DELAY=S: the spine with bgpd's `update-delay S`
  (every variant): after its start it selects no best path and sends no
  UPDATE until every configured session is up and has sent its
  End-of-RIB, or S seconds have passed; it then selects each prefix's
  best path once, with all its paths in, and sends it once;
- FARE_BENCH_TRACE_ZEBRA=1: leaf8's bgpd logs each route it sends zebra
  (`debug bgp zebra`, every variant; not for figures);
- FARE_BENCH_SPINE_TASKS=1: after each cold start, the spine's and leaf8's
  `show event cpu` and `show zebra client`, and the spine's, leaf8's and
  leaf1's `show bgp fare json`, go to the log directory
  (tasks-<variant>-<n>.txt), to see which tasks the cold start's CPU went
  to, how many messages bgpd sent zebra and what the module's passes did.
"""

import ipaddress
import os
import statistics
import time
import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.benchlib import (add_prefix_host, bgp_route_count, bgp_updates, bgp_updates_received,
                           bgpd_cpu, bgpd_hwm_mb, bgpd_longest_tasks, kernel_events,
                           kernel_weights_by_group, kill_every_bgpd, restart_every_bgpd,
                           start_bgp_capture, start_monitor, SHARP_ROUTES)
from fare.common import report, start_fabric, vtysh_json, wait_for
from fare.fabric import Fabric

N = int(os.environ.get("FARE_BENCH_SPINE_PREFIXES", "200000"))
GROUPS = int(os.environ.get("FARE_BENCH_SPINE_GROUPS", "1000"))
LEAVES = ["leaf{}".format(i) for i in range(1, 9)]
LINKS_PER_LEAF = 8
PER_LEAF = N // len(LEAVES)
GROUPS_PER_LEAF = GROUPS // len(LEAVES)
INGRESS = "leaf8"
ROUTERS = dict([("spine", 65000)] + [(l, 65100 + i) for i, l in enumerate(LEAVES, 1)])
LINKS = [(l, "spine", 400) for l in LEAVES for _ in range(LINKS_PER_LEAF)]
ALL_VARIANTS = ["ecmp", "ecmp-tagged", "frr-lb", "fare-draft", "fare-avg", "fare-draft-nhg", "fare-avg-nhg"]
VARIANTS = [v for v in os.environ.get("FARE_BENCH_VARIANTS", ",".join(ALL_VARIANTS)).split(",")
            if v in ALL_VARIANTS]
NAMES = {"ecmp": "plain ECMP", "ecmp-tagged": "plain ECMP, tagged", "frr-lb": "FRR link-bandwidth",
         "fare-draft": "FARE draft", "fare-avg": "FARE averaged",
         "fare-draft-nhg": "FARE draft, groups", "fare-avg-nhg": "FARE averaged, groups"}
RESULTS = {}
BASELINES = ("ecmp", "ecmp-tagged")  # what the ratios are to
# FARE_BENCH_SPINE_COLD_ROUNDS (1): more cold starts of every variant, in
# turns (ecmp, fare, ecmp, fare, ...), cold-start figures only: the
# report adds their median (min-max). One cold start of bgpd varies
# between runs by up to 3x in CPU and memory whatever the variant.
COLD_ROUNDS = max(1, int(os.environ.get("FARE_BENCH_SPINE_COLD_ROUNDS", "1")))
COLD = {v: [] for v in ALL_VARIANTS}
QUIET_CPU = 0.1  # s of CPU per s, all bgpd together: the cold start is over


def _base(leaf):
    """The first of a leaf's N/8 consecutive /32s: leaf i has 10.(200+i).0.0."""
    return ipaddress.IPv4Address("10.{}.0.0".format(200 + LEAVES.index(leaf) + 1))


def _group_lists(leaf):
    """(group id, prefix-list name, [CIDR, ...]) of a leaf's GroupIDs: group
    j of the leaf covers its j-th run of N/G consecutive /32s (the last run
    takes the rest). Group ids are numbered 1..G/8 on every leaf: the
    GroupID carries the router ID, so the G pairs are distinct."""
    per = PER_LEAF // GROUPS_PER_LEAF
    base = int(_base(leaf))
    out = []
    for j in range(GROUPS_PER_LEAF):
        first = base + j * per
        last = base + (PER_LEAF if j == GROUPS_PER_LEAF - 1 else (j + 1) * per) - 1
        nets = ipaddress.summarize_address_range(ipaddress.IPv4Address(first),
                                                 ipaddress.IPv4Address(last))
        out.append((j + 1, "EG{}".format(j + 1), [str(n) for n in nets]))
    return out


def _fabric(variant):
    fare = {"ecmp": [], "ecmp-tagged": [], "frr-lb": []}.get(variant, [" bgp fare", " bgp fare hold-down 0"])
    if variant.startswith("fare-avg"):
        fare.append(" bgp fare mode averaged")
    if variant.endswith("-nhg"):
        fare.append(" bgp fare nexthop-groups")
    lines = {n: list(fare) for n in ROUTERS}
    f = Fabric(ROUTERS, LINKS, link_config="interface", fare_lines=lines, ipv6_sessions=False)
    extra = {n: [] for n in ROUTERS}
    for leaf in LEAVES:
        if fare:
            lines[leaf].append(" bgp fare originate")
            lines[leaf] += [" bgp fare ecmp-group-id {} prefix-list {}".format(g, name)
                            for g, name, _ in _group_lists(leaf)]
        extra[leaf] += [" address-family ipv4 unicast", "  redistribute sharp" +
                        (" route-map TAG" if variant == "ecmp-tagged" else "")]
        for k, (a, _, _) in enumerate(LINKS, 1):
            if a != leaf:
                continue
            if leaf != INGRESS:
                extra[leaf].append("  neighbor {} route-map NONE in".format(f.addr(k, 2)))
            if variant == "frr-lb":
                # Mb/s divided by 10, as in fare_bench_scale
                extra[leaf].append("  neighbor {} route-map LB out".format(f.addr(k, 2)))
        extra[leaf].append(" exit-address-family")
    if fare:
        lines[INGRESS].append(" bgp fare ecmp-subgroups size 2")
    if variant == "frr-lb":
        extra["spine"] = [" address-family ipv4 unicast"]
        extra["spine"] += ["  neighbor {} route-map CUMULATIVE out".format(f.addr(k, 1))
                           for k in range(1, len(LINKS) + 1)]
        extra["spine"].append(" exit-address-family")
    if os.environ.get("FARE_BENCH_SPINE_LOOP_DETECTION"):
        # the leaves send the spine no route whose AS path holds the
        # spine's AS (it would drop them): one update-group still
        for k, (leaf, _, _) in enumerate(LINKS, 1):
            lines[leaf].append(" neighbor {} sender-as-path-loop-detection".format(f.addr(k, 2)))
    if os.environ.get("FARE_BENCH_SPINE_UPDATE_DELAY"):
        lines["spine"].append(" update-delay {}".format(
            int(os.environ["FARE_BENCH_SPINE_UPDATE_DELAY"])))
    f.extra = extra
    return f


FABRICS = {v: _fabric(v) for v in ALL_VARIANTS}


def _preamble(name, variant):
    if name == "spine":
        return ["route-map CUMULATIVE permit 10", " set extcommunity bandwidth cumulative", "exit"]
    # route-map changes at once, not 5 s later when the sessions are up
    # (each leaf would then ask the spine for its routes again)
    lines = ["bgp route-map delay-timer 0", "route-map NONE deny 10", "exit",
             "route-map LB permit 10", " set extcommunity bandwidth 40000", "exit"]
    for _, plist, nets in _group_lists(name):
        lines += ["ip prefix-list {} seq {} permit {} le 32".format(plist, 5 * i, net)
                  for i, net in enumerate(nets, 1)]
    if variant == "ecmp-tagged":
        for g, plist, _ in _group_lists(name):
            lines += ["route-map TAG permit {}".format(g),
                      " match ip address prefix-list {}".format(plist),
                      " set extcommunity rt {}:{}".format(ROUTERS[name], g), "exit"]
        lines += ["route-map TAG permit 65000", "exit"]
    return lines


def _config(name, variant="ecmp"):
    # FARE_BENCH_TRACE=1: the spine and leaf8 log FARE's decisions (not for
    # figures: the log slows bgpd down)
    trace = ["debug bgp fare"] if os.environ.get("FARE_BENCH_TRACE") and name in (
        "spine", INGRESS) else []
    if os.environ.get("FARE_BENCH_TRACE_ZEBRA") and name == INGRESS:
        trace.append("debug bgp zebra")
    return "\n".join(trace + _preamble(name, variant)) + "\n" + FABRICS[variant].config(name)


def _daemons(name):
    daemons = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, "-M fare")]
    if name != "spine":
        daemons.append((TopoRouter.RD_SHARP, None))
    return daemons


def _prepare(tgen):
    # the prefixes' next hop on each leaf
    for leaf in LEAVES:
        add_prefix_host(tgen.gears[leaf])


def setup_module(mod):
    start_fabric(mod, FABRICS["ecmp"], _config, _daemons, prepare=_prepare)


def teardown_module(_mod):
    # every bgpd first, and the kernel left to drop the routes (zebra
    # stopping with 200,000 routes to remove can outlast the library)
    tgen = get_topogen()
    kill_every_bgpd(tgen)
    for leaf in LEAVES:
        tgen.gears[leaf].vtysh_cmd("sharp remove routes {} {}".format(_base(leaf), PER_LEAF))
    for name in ("spine", INGRESS):
        wait_for(lambda: bgp_route_count(tgen.gears[name]), 0, count=180)
    tgen.stop_topology()


def _spine_state(spine):
    """(prefixes over 8 members, all equal; prefixes of leaf1 whose
    member to-leaf1-1 is lighter than its 7 others, which are equal)."""
    equal = light = 0
    for c, w in kernel_weights_by_group(spine):
        if len(w) != LINKS_PER_LEAF:
            continue
        if len(set(w.values())) == 1:
            equal += c
        elif "to-leaf1-1" in w:
            rest = {v for k, v in w.items() if k != "to-leaf1-1"}
            if len(rest) == 1 and w["to-leaf1-1"] < rest.pop():
                light += c
    return equal, light


def _on_groups(router):
    """(weighted prefixes on a nexthop group of the module, weighted
    prefixes not: their own next hops), from `show bgp ipv4 fare json`."""
    on = off = 0
    j = vtysh_json(router, "show bgp ipv4 fare json")
    for entry in j.get("prefixes", {}).values():
        if entry.get("weightSource") in ("fare", "fare-ecmp-subgroup"):
            if entry.get("nexthopGroupId"):
                on += 1
            else:
                off += 1
    return on, off


def _peer(spine, addr):
    peers = spine.vtysh_cmd("show bgp ipv4 unicast summary json", isjson=True).get("peers", {})
    p = peers.get(addr, {})
    return p.get("state"), p.get("pfxRcd"), p.get("pfxSnt")


def _ingress_received(ingress):
    """The prefixes received on each of leaf8's sessions."""
    peers = ingress.vtysh_cmd("show bgp ipv4 unicast summary json", isjson=True).get("peers", {})
    return sorted(p.get("pfxRcd", 0) for p in peers.values())


def _quiet(tgen, t_start):
    """Until no bgpd works any more (all of them together under QUIET_CPU
    s of CPU per second, twice in a row): the wall time from t_start to
    the start of the quiet, and each router's bgpd CPU then. The cold
    start's work goes on past the first moment its routes are all there:
    paths and values still arrive on further sessions."""
    def sample():
        return time.monotonic(), {n: bgpd_cpu(r) for n, r in tgen.routers().items()}

    t_prev, cpu_prev = sample()
    quiet_since = None
    for _ in range(600):
        time.sleep(1)
        t, cpu = sample()
        busy = sum(cpu.values()) - sum(cpu_prev.values())
        if busy < QUIET_CPU * (t - t_prev):
            if quiet_since:
                return quiet_since[0] - t_start, quiet_since[1]
            quiet_since = (t_prev, cpu_prev)
        else:
            quiet_since = None
        t_prev, cpu_prev = t, cpu
    raise AssertionError("bgpd never went quiet")


def _zebra_routes(router):
    """The IPv4 route messages (adds and updates) bgpd sent the router's
    zebra since it connected (`show zebra client`)."""
    client = None
    for line in router.vtysh_cmd("show zebra client").splitlines():
        if line.startswith("Client:"):
            client = line.strip()
        elif client == "Client: bgp" and line.startswith("IPv4"):
            f = line.split()
            return int(f[1]) + int(f[2])
    return None


def _cold_start(tgen, variant):
    """Every bgpd started anew with the variant's configuration, until the
    spine's kernel holds every prefix over 8 equal members, leaf8 has the
    others on all 8 sessions and every bgpd is quiet: the wall time, bgpd
    CPU (spine, leaf8, all) and peak RSS (spine, leaf8)."""
    spine, ingress = tgen.gears["spine"], tgen.gears[INGRESS]
    # the spine last: leaf1..leaf7's inbound deny-all is in place before
    # their sessions come up (else each asks the spine for its 200,000
    # routes again)
    t_start = restart_every_bgpd(tgen, variant, _config, ("spine", INGRESS),
                                 order=LEAVES + ["spine"])
    cold = (N, 0)
    assert wait_for(lambda: _spine_state(spine), cold, count=900, wait=1) == cold, variant
    assert wait_for(lambda: bgp_route_count(ingress), N - PER_LEAF, count=300) == N - PER_LEAF
    # leaf8 has every prefix on each of its 8 sessions
    full = [N - PER_LEAF] * LINKS_PER_LEAF
    assert wait_for(lambda: _ingress_received(ingress), full, count=600, wait=1) == full, variant
    wall, cpu = _quiet(tgen, t_start)
    if os.environ.get("FARE_BENCH_SPINE_TASKS"):
        path = os.path.join(tgen.logdir, "tasks-{}-{}.txt".format(variant, len(COLD[variant])))
        with open(path, "w") as f:
            for router in (spine, ingress):
                f.write("== {}\n{}\n{}\n".format(router.name, router.vtysh_cmd("show event cpu"),
                                                router.vtysh_cmd("show zebra client")))
            for router in (spine, ingress, tgen.gears[LEAVES[0]]):
                f.write("== {} show bgp fare json\n{}\n".format(
                    router.name, router.vtysh_cmd("show bgp fare json")))
    res = {"cold": wall, "cpu_spine": cpu["spine"], "cpu_ingress": cpu[INGRESS],
           "cpu_all": sum(cpu.values()),
           "cpu_origin": sum(cpu[l] for l in LEAVES if l != INGRESS),
           "rss_spine": bgpd_hwm_mb(spine),
           "rss_ingress": bgpd_hwm_mb(ingress), "zebra_routes": _zebra_routes(ingress)}
    COLD[variant].append(res)
    return res


@pytest.mark.parametrize("variant", VARIANTS)
def test_spine(variant):
    tgen = get_topogen()
    spine, ingress = tgen.gears["spine"], tgen.gears[INGRESS]
    if variant == VARIANTS[0]:
        spine.run("sysctl -qw net.ipv4.nexthop_compat_mode=0")
        for leaf in LEAVES:
            tgen.gears[leaf].vtysh_cmd("sharp install routes {} nexthop 192.0.2.2 {}"
                                       .format(_base(leaf), PER_LEAF))
        for leaf in LEAVES:
            router = tgen.gears[leaf]
            assert wait_for(lambda: int(router.run(SHARP_ROUTES)),
                            PER_LEAF, count=300) == PER_LEAF
    fare = variant.startswith("fare")
    cold = (N, 0)
    res = dict(_cold_start(tgen, variant))
    res["updates"] = (bgp_updates(spine)[1], bgp_updates(ingress)[0])
    res["refreshes"] = bgp_updates(spine, "routeRefresh")[0]
    if fare:
        c = vtysh_json(spine, "show bgp fare json").get("counters", {})
        res["passes"] = (c.get("peerOnlyRefreshes"), c.get("reannouncePasses"))
        # what the passes built on the origin leaves (leaf1 to leaf7)
        built = [vtysh_json(tgen.gears[leaf], "show bgp fare json").get("counters", {})
                 for leaf in LEAVES if leaf != INGRESS]
        res["leaf_passes"] = (sum(b.get("reannouncePasses", 0) for b in built),
                              sum(b.get("reannouncedRoutes", 0) for b in built))
    # leaf8's kernel from here on: 5 s of quiet first, then the event
    mon_i, pid_i = start_monitor(tgen.logdir, ingress, variant)
    t_idle = time.time()
    time.sleep(5)

    # local event at the spine: its first link to leaf1 drops to 50G
    mon, pid = start_monitor(tgen.logdir, spine, variant)
    cap, pid_c = start_bgp_capture(tgen.logdir, ingress, variant)
    cpu0 = {n: bgpd_cpu(r) for n, r in tgen.routers().items()}
    t0 = time.time()
    spine.vtysh_cmd("configure terminal\ninterface to-leaf1-1\nbandwidth 50000")
    if fare:
        after = (N - PER_LEAF, PER_LEAF)
        assert wait_for(lambda: _spine_state(spine), after, count=600, wait=0.5) == after, variant
        time.sleep(3)
    else:
        time.sleep(10)
    spine.run("kill {}".format(pid))
    ingress.run("kill {} {}".format(pid_i, pid_c))
    time.sleep(0.5)  # dumpcap writes the rest of its file
    res["local"] = kernel_events(mon, t0)
    res["local"]["cpu"] = sum(bgpd_cpu(r) - cpu0[n] for n, r in tgen.routers().items())
    res["ingress_cpu"] = bgpd_cpu(ingress) - cpu0[INGRESS]
    res["ingress_events"] = kernel_events(mon_i, t0)
    res["ingress_idle"] = kernel_events(mon_i, t_idle, t0)
    res["ingress_updates"] = bgp_updates_received(ingress, cap, t0)
    spine.vtysh_cmd("configure terminal\ninterface to-leaf1-1\nbandwidth 400000")
    assert wait_for(lambda: _spine_state(spine), cold, count=600, wait=0.5) == cold, variant
    time.sleep(3)

    # a session reset: the spine's first session to leaf1 (link 1)
    addr = FABRICS[variant].addr(1, 1)
    c0, t1 = bgpd_cpu(spine), time.monotonic()
    spine.vtysh_cmd("clear bgp ipv4 unicast {}".format(addr))
    back = ("Established", PER_LEAF)
    assert wait_for(lambda: _peer(spine, addr)[:2], back, count=600, wait=0.2) == back
    assert wait_for(lambda: (_peer(spine, addr)[2] or 0) >= N - PER_LEAF, True, count=600,
                    wait=0.2)
    res["reset"] = (time.monotonic() - t1, bgpd_cpu(spine) - c0)

    res["stall"], res["stall_names"] = zip(*bgpd_longest_tasks(spine))
    res["stall_cpu"], res["stall_cpu_names"] = zip(*bgpd_longest_tasks(spine, cpu=True))
    if fare:
        t1 = time.monotonic()
        groups = ingress.vtysh_cmd("show bgp fare ecmp-groups json", isjson=True)
        res["show_ms"] = (time.monotonic() - t1) * 1000
        res["remote_groups"] = len(groups.get("remoteGroups", []))
        # leaf8's weighted routes on a shared group of the module, and not
        res["ingress_on_groups"] = _on_groups(ingress)
    RESULTS[variant] = res


@pytest.mark.parametrize("cold_round", range(2, COLD_ROUNDS + 1))
def test_spine_cold_rounds(cold_round):
    """The further cold starts, every variant in turn (after test_spine's
    first round)."""
    for variant in VARIANTS:
        _cold_start(get_topogen(), variant)


def _spread(values, fmt="{:.2f}"):
    """median (min-max)"""
    return (fmt + " ({}-{})").format(statistics.median(values), fmt.format(min(values)),
                                      fmt.format(max(values)))


def _cold_rounds_report():
    keys = ["cpu_spine", "cpu_ingress", "cpu_all", "rss_spine", "rss_ingress", "cpu_origin"]
    lines = ["", "cold starts: {} per variant, in turns; median (min-max)".format(COLD_ROUNDS),
             "{:<22} {:>22} {:>22} {:>22} {:>24} {:>24} {:>22}".format(
                 "variant", "CPU s, spine", "CPU s, leaf8", "CPU s, all", "peak RSS MB, spine",
                 "peak RSS MB, leaf8", "CPU s, leaf1-7")]
    med = {}
    for v in VARIANTS:
        runs = COLD.get(v)
        if not runs:
            continue
        med[v] = {k: statistics.median(r[k] for r in runs) for k in keys}
        lines.append("{:<22} {:>22} {:>22} {:>22} {:>24} {:>24} {:>22}".format(
            NAMES[v], *[_spread([r[k] for r in runs], "{:.1f}" if k.startswith("rss")
                                else "{:.2f}") for k in keys]))
    for b in BASELINES:
        base = med.get(b)
        if not base:
            continue
        lines.append("ratio of the medians to {}'s (CPU spine / leaf8 / all, peak RSS "
                     "spine / leaf8, CPU leaf1-7):".format(NAMES[b]))
        for v in VARIANTS:
            if v in med and v not in BASELINES:
                lines.append("{:<22} {}".format(NAMES[v], " / ".join(
                    "{:.2f}".format(med[v][k] / base[k]) for k in keys)))
    return lines


def _last(ev):
    return "-" if ev["last"] is None else "{:.0f}".format(ev["last"] * 1000)


def _count(ev):
    return "{}{} / {}".format(">=" if ev["lost"] else "", ev["nexthop"], ev["route"])


def test_report():
    head = ["variant", "cold CPU s", "cold s", "peak RSS MB", "local ms", "local events",
            "local CPU", "leaf8 events", "reset", "longest task", "leaf8 show"]
    head2 = ["", "spine / leaf8 / all", "wall", "spine / leaf8", "to kernel", "nexthop / route",
             "s, all", "nexthop / route", "s / CPU s", "ms, all / FARE's", "ms, groups"]
    fmt = "{:<22} {:>21} {:>6} {:>14} {:>9} {:>16} {:>9} {:>16} {:>12} {:>16} {:>11}"
    lines = ["", "spine with {} sessions, {} prefixes x {} paths, {} GroupIDs: cold start, a "
             "local event, a session reset".format(len(LINKS), N, LINKS_PER_LEAF,
                                                   GROUPS_PER_LEAF * len(LEAVES)),
             fmt.format(*head), fmt.format(*head2)]
    for v in VARIANTS:
        r = RESULTS.get(v)
        if not r:
            continue
        show = ("{:.0f}, {}".format(r["show_ms"], r["remote_groups"]) if "show_ms" in r
                else "-")
        lines.append(fmt.format(
            NAMES[v], "{:.2f} / {:.2f} / {:.2f}".format(r["cpu_spine"], r["cpu_ingress"],
                                                        r["cpu_all"]),
            "{:.1f}".format(r["cold"]), "{:.1f} / {:.1f}".format(r["rss_spine"], r["rss_ingress"]),
            _last(r["local"]), _count(r["local"]), "{:.2f}".format(r["local"]["cpu"]),
            _count(r["ingress_events"]), "{:.1f} / {:.2f}".format(*r["reset"]),
            "{:.0f} / {:.0f}".format(*r["stall"]), show))
    lines.append("the spine's longest tasks: " + "; ".join(
        "{} {} / {}".format(NAMES[v], *RESULTS[v]["stall_names"]) for v in VARIANTS
        if v in RESULTS))
    lines.append("the spine's longest tasks by CPU time, ms, all / FARE's: " + "; ".join(
        "{} {:.0f} {} / {:.0f} {}".format(NAMES[v], RESULTS[v]["stall_cpu"][0],
                                          RESULTS[v]["stall_cpu_names"][0],
                                          RESULTS[v]["stall_cpu"][1],
                                          RESULTS[v]["stall_cpu_names"][1])
        for v in VARIANTS if v in RESULTS))
    lines.append("UPDATE messages of the cold start, sent by the spine / received by leaf8: " +
                 "; ".join("{} {} / {}".format(NAMES[v], *RESULTS[v]["updates"])
                           for v in VARIANTS if v in RESULTS))
    lines.append("route messages leaf8's bgpd sent its zebra in the cold start: " + "; ".join(
        "{} {}".format(NAMES[v], RESULTS[v]["zebra_routes"]) for v in VARIANTS if v in RESULTS))
    lines.append("ROUTE-REFRESH messages the spine received in the cold start: " + "; ".join(
        "{} {}".format(NAMES[v], RESULTS[v]["refreshes"]) for v in VARIANTS if v in RESULTS))
    lines.append("the spine's re-announcements to the peers in the cold start (WP-2's N), "
                 "asked for / passes: " + "; ".join(
                     "{} {} / {}".format(NAMES[v], *RESULTS[v]["passes"])
                     for v in VARIANTS if "passes" in RESULTS.get(v, {})))
    lines.append("the origin leaves' passes for WP-2's N in the cold start, passes / routes "
                 "built: " + "; ".join(
                     "{} {} / {}".format(NAMES[v], *RESULTS[v]["leaf_passes"])
                     for v in VARIANTS if "leaf_passes" in RESULTS.get(v, {})))
    lines.append("leaf8's weighted prefixes on the module's groups / not: " + "; ".join(
        "{} {} / {}".format(NAMES[v], *RESULTS[v]["ingress_on_groups"])
        for v in VARIANTS if "ingress_on_groups" in RESULTS.get(v, {})))
    lines.append("leaf8's kernel after the local event (last change ms) / in the 5 s before "
                 "it (nexthop / route): " + "; ".join(
                     "{} {} / {}".format(NAMES[v], _last(RESULTS[v]["ingress_events"]),
                                         _count(RESULTS[v]["ingress_idle"]))
                     for v in VARIANTS if v in RESULTS))
    lines.append("leaf8 after the local event: the last UPDATE received, ms (UPDATEs) / the "
                 "last kernel change, ms / its bgpd's CPU, s: " + "; ".join(
                     "{} {} ({}) / {} / {:.2f}".format(
                         NAMES[v], _last(RESULTS[v]["ingress_updates"]),
                         RESULTS[v]["ingress_updates"]["updates"],
                         _last(RESULTS[v]["ingress_events"]), RESULTS[v]["ingress_cpu"])
                     for v in VARIANTS if "ingress_updates" in RESULTS.get(v, {})))
    if any(r[e]["lost"] for r in RESULTS.values()
           for e in ("local", "ingress_events", "ingress_idle")):
        lines.append(">=: the monitor's socket overflowed and lost some events")
    for b in BASELINES:
        base = RESULTS.get(b)
        if not base:
            continue
        lines.append("")
        lines.append("ratio to {} (cold CPU spine / leaf8 / all, peak RSS spine / leaf8, "
                     "reset CPU):".format(NAMES[b]))
        for v in VARIANTS:
            r = RESULTS.get(v)
            if r and v not in BASELINES:
                lines.append("{:<22} {:.2f} / {:.2f} / {:.2f}   {:.2f} / {:.2f}   {:.2f}".format(
                    NAMES[v], r["cpu_spine"] / base["cpu_spine"],
                    r["cpu_ingress"] / base["cpu_ingress"], r["cpu_all"] / base["cpu_all"],
                    r["rss_spine"] / base["rss_spine"], r["rss_ingress"] / base["rss_ingress"],
                    r["reset"][1] / base["reset"][1] if base["reset"][1] else float("nan")))
    if COLD_ROUNDS > 1:
        lines += _cold_rounds_report()
    report("\n".join(lines))
