#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_bench_rss.py: how much bgpd's resident memory moves with session
resets alone, bgpd with FARE next to bgpd without the module.

    r1 (AS 65001) === 3 links === r2 (AS 65002)
    one of them (r1 unless FARE_BENCH_RSS_FARE_ON=r2) bgpd -M fare with
    `bgp fare`, the other bgpd without the module

Three sessions between r1 and r2, nothing else changes. Six times
(FARE_BENCH_RSS_STEPS): each bgpd's main heap is trimmed (glibc
malloc_trim(0), called through gdb) and its resident size read (Rss of
[heap] in /proc/PID/smaps), with what FRR counts as allocated (every
memory type of `show memory bgpd`, bytes) and its input ring buffers; then
`clear bgp *` on r1 and then on r2 (FARE_BENCH_RSS_CLEAR=r1 or r2: on that
one only), each time until the three sessions are Established again. Both
daemons see the same resets. FARE_BENCH_RSS_FARE_ON=r2 swaps which
router runs the module.

Asserted: the sessions come back every time; FRR's counted bytes and the
number of ring buffers of each bgpd at the end equal those at the start
(within 1% for the bytes). Printed: the trimmed heap RSS per step, per
router, and its spread. The flap storm's RSS comparison
(topotests/fare_storm) reads the same figures; this benchmark shows what
FRR's bgpd does with resets alone, with and without the module.
Not part of the test suite (scripts/bench.sh rss), about 90 s.
"""

import os
import time

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import DAEMONS_FARE, DAEMONS_PLAIN, malloc_trim, memory_types, report, \
    rss_kb, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import Topology

STEPS = int(os.environ.get("FARE_BENCH_RSS_STEPS", "6"))
# which router runs `clear bgp *` at each step: r1, r2 or both (r1, then r2)
CLEAR = os.environ.get("FARE_BENCH_RSS_CLEAR", "both")
# which router runs bgpd with FARE (the other runs bgpd without the module)
FARE_ON = os.environ.get("FARE_BENCH_RSS_FARE_ON", "r1")
LINKS = 3


TOPOLOGY = Topology().router("r1", "r2")
for _i in range(LINKS):
    TOPOLOGY.link("r1", "r2", "r1-eth{}".format(_i), "r2-eth{}".format(_i))


def config_of(name):
    me, other = (1, 2) if name == "r1" else (2, 1)
    lines = ["hostname " + name]
    for i in range(LINKS):
        lines += ["interface {}-eth{}".format(name, i),
                  " ip address 10.0.1{}.{}/24".format(i, me), "exit"]
    lines += ["router bgp 6500{}".format(me), " no bgp ebgp-requires-policy",
              " timers bgp 3 9"]
    for i in range(LINKS):
        peer = "10.0.1{}.{}".format(i, other)
        lines += [" neighbor {} remote-as 6500{}".format(peer, other),
                  " neighbor {} timers connect 1".format(peer)]
    if name == FARE_ON:
        lines += [" bgp fare"]
    lines += ["exit", ""]
    return "\n".join(lines)


def setup_module(mod):
    start_fabric(mod, TOPOLOGY, config_of,
                 daemons_of=lambda name: DAEMONS_FARE if name == FARE_ON else DAEMONS_PLAIN)


def teardown_module(_mod):
    get_topogen().stop_topology()


def all_up(router):
    peers = vtysh_json(router, "show bgp ipv4 unicast summary json").get("peers", {})
    return len(peers) == LINKS and all(p.get("state") == "Established" for p in peers.values())


def trimmed_heap_kb(router):
    "bgpd's [heap] resident kB after malloc_trim(0)."
    malloc_trim(router, "bgpd")
    return rss_kb(router, "bgpd")["Heap"]


def counted(router):
    """(bytes FRR counts as allocated in bgpd, input ring buffers)."""
    groups, _ = memory_types(router)
    types = [v for ts in groups.values() for v in ts.values()]
    ring = sum(ts["Ring buffer"][0] for ts in groups.values() if "Ring buffer" in ts)
    return sum(v[1] for v in types), ring


def test_rss_over_session_resets():
    tgen = tgen_or_skip()
    routers = {"{} ({})".format(n, "FARE" if n == FARE_ON else "plain"): tgen.gears[n]
               for n in ("r1", "r2")}
    r1 = tgen.gears["r1"]
    assert wait_for(lambda: all_up(r1), True), r1.vtysh_cmd("show bgp summary")
    time.sleep(3)
    rows, first, last = [], None, None
    for step in range(STEPS):
        point = {name: (trimmed_heap_kb(r),) + counted(r) for name, r in routers.items()}
        rows.append((step, point))
        first = first or point
        last = point
        if step == STEPS - 1:
            break
        for name in (("r1", "r2") if CLEAR == "both" else (CLEAR,)):
            tgen.gears[name].vtysh_cmd("clear bgp *")
            time.sleep(2)
            assert wait_for(lambda: all_up(r1), True), r1.vtysh_cmd("show bgp summary")
            time.sleep(3)
    report("bgpd's trimmed heap RSS (kB), counted bytes and input ring buffers after each "
           "step: `clear bgp *` of {} sessions on {} (nothing else changes):".format(
               LINKS, "r1, then r2" if CLEAR == "both" else CLEAR))
    for step, point in rows:
        report("  after {} steps: {}".format(step, "; ".join(
            "{} heap {} kB, counted {} B, {} ring buffers".format(n, v[0], v[1], v[2])
            for n, v in sorted(point.items()))))
    for name in sorted(routers):
        heap = [p[name][0] for _, p in rows]
        report("  {}: heap {} .. {} kB, spread {:.1f}% of the first".format(
            name, min(heap), max(heap), 100.0 * (max(heap) - min(heap)) / heap[0]))
    for name in routers:
        b, a = first[name], last[name]
        assert a[2] == b[2], "{}: ring buffers {} -> {}".format(name, b[2], a[2])
        assert abs(a[1] - b[1]) <= b[1] / 100, "{}: counted {} -> {} B".format(name, b[1], a[1])
