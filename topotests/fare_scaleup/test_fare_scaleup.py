#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_scaleup.py: FARE on a multi-plane scale-up GPU network (SPEC
SUN-1, SUN-2), the topology and configuration of fare.fabric.ScaleUp.

GPU servers s1..s4 (AS 65001..65004, `bgp fare role host`) and plane
switches p1..p4 (AS 65101..65104): every server has one port per plane, a
Y-cable of two 400G sub-ports (server interfaces p1a, p1b, ..., p4b; plane
interfaces s1a, s1b, ...), one unnumbered eBGP session per sub-port, and
two GPUs, 10.0.i.1/32 and 10.0.i.2/32 on `lo`. Hold-down 3 s.

Expected values (draft mode, parallel links to one neighbor router counted
together, FARE-4/5): a plane advertises for server i's GPUs the sum of
i's healthy sub-ports (800G, 400G with one); a sender weighs plane j by
min(sum of its own live sub-ports to j, plane j's value), split equally
over its sub-ports. Healthy: 8 equal members for every remote GPU. One
of s4's sub-ports to p1 down: p1 at 400G, 2:2:2:2:2:2:1:1 at the senders,
p1's share of the traffic 1/7. Both down: p1 out (SUN-2), and no other
server carries s4's traffic through p1 (the host role: no transit).

Traffic: GPU 10.0.1.1 (s1) sends UDP flows (one socket and source port per
flow, bound to the GPU address) to GPU 10.0.4.1 (s4); the kernel hashes
them by L4 (fib_multipath_hash_policy = 1). Packets are counted per
sub-port at s1 with a packet tap (only this test's packets: BGP keepalives
and router advertisements are left out), checked against the interfaces'
tx counters.
"""

import json
import os
import re
import sys
import time
from datetime import datetime, timezone

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import (
    GBPS,
    frr_reload,
    fare_prefix,
    kernel_weights,
    reduced,
    report,
    start_fabric,
    tgen_or_skip,
    tx_packets,
    vtysh_json,
    wait_for,
)
from fare.fabric import PLANE_AS_BASE, SERVER_AS_BASE, ScaleUp, gpu_addr, gpu_prefix

pytestmark = [pytest.mark.bgpd]

HOLD_DOWN = 3
FABRIC = ScaleUp(servers=4, planes=4, gpus=2, subports=2, gbps=400, hold_down=HOLD_DOWN)
SERVERS = range(1, FABRIC.servers + 1)
PLANES = range(1, FABRIC.planes + 1)
IFS = FABRIC.server_ifs()  # p1a, p1b, ..., p4b
P1 = ["p1a", "p1b"]

SRC_GPU = gpu_addr(1, 1)  # s1's GPU 1
DST = 4  # the destination server of the traffic and of the failures
DST_GPU = gpu_addr(DST, 1)
FLOWS = 2000
# 2000 flows: one sub-port of 8 (12.5%) has a standard deviation of
# sqrt(0.125 * 0.875 / 2000) = 0.74 points, a plane of 4 (25%) 0.97 points,
# 1/7 (14.3%) 0.78 points: tolerances of about 4 standard deviations.
TOL_SUBPORT = 3.0
TOL_PLANE = 4.0
TOL_HALF_PLANE = 3.0
# BGP keepalives (every 3 s), router advertisements: what the tx counters
# of one sub-port may count beyond the test's packets during a measurement.
CONTROL_PACKETS = 20

# One UDP socket per flow, bound to the GPU address and its own source port
# (a raw socket would leave the ports out of the kernel's hash of a local
# packet), and an AF_PACKET tap on each named interface that counts only
# the outgoing packets of these flows.
SENDER_PY = r'''
import json, socket, struct, sys, time

src, dst, flows, sport_base, dport = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
ifnames = sys.argv[6].split(",")
ETH_P_ALL, ETH_P_IP = 0x0003, 0x0800  # only ETH_P_ALL taps see outgoing packets
SO_RCVBUFFORCE = 33
taps = {}
for ifn in ifnames:
    t = socket.socket(socket.AF_PACKET, socket.SOCK_DGRAM, socket.htons(ETH_P_ALL))
    t.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
    t.bind((ifn, ETH_P_ALL))
    t.setblocking(False)
    taps[ifn] = t
payload = b"FARE" * 16
sent = 0
for i in range(flows):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind((src, sport_base + i))
    u.sendto(payload, (dst, dport))
    u.close()
    sent += 1
time.sleep(0.3)
s_src, s_dst = socket.inet_aton(src), socket.inet_aton(dst)
counts = {}
for ifn, t in taps.items():
    n = 0
    while True:
        try:
            data, addr = t.recvfrom(4096)
        except BlockingIOError:
            break
        except OSError:  # ENETDOWN reported once for an interface that is down
            continue
        if addr[1] != ETH_P_IP or addr[2] != socket.PACKET_OUTGOING or len(data) < 28:
            continue
        ihl = (data[0] & 0xF) * 4
        if data[9] != 17 or data[12:16] != s_src or data[16:20] != s_dst:
            continue
        sport, dp = struct.unpack("!HH", data[ihl:ihl + 4])
        if dp == dport and sport_base <= sport < sport_base + flows:
            n += 1
    counts[ifn] = n
print(json.dumps({"sent": sent, "counts": counts}))
'''


def sender_path(tgen):
    return os.path.join(tgen.logdir, "gpu_flows.py")



def setup_module(mod):
    tgen = start_fabric(mod, FABRIC, FABRIC.config)
    for router in tgen.routers().values():
        router.run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")
    with open(sender_path(tgen), "w") as f:
        f.write(SENDER_PY)


def teardown_module(_mod):
    get_topogen().stop_topology()


# -- helpers -----------------------------------------------------------------


def server(tgen, i):
    return tgen.gears["s{}".format(i)]


def plane(tgen, j):
    return tgen.gears["p{}".format(j)]


def gpu_prefixes(i):
    return [gpu_prefix(i, g) for g in range(1, FABRIC.gpus + 1)]


def remote_prefixes(i):
    return [p for k in SERVERS if k != i for p in gpu_prefixes(k)]


def equal(ifnames):
    return {i: 1 for i in ifnames}


HEALTHY = equal(IFS)
WITHOUT_P1 = equal([i for i in IFS if i not in P1])
P1_HALF = {i: (1 if i in P1 else 2) for i in IFS}


def groups(router, prefixes):
    """{prefix: reduced kernel weights {device: weight}}: what
    fare.common.kernel_weights() reads, for many prefixes in two commands
    (the wait loops poll 24 groups)."""
    routes = {r["dst"]: r for r in json.loads(router.run("ip -j -4 route show") or "[]")}
    nhs = {n["id"]: n for n in json.loads(router.run("ip -j nexthop show") or "[]")}
    out = {}
    for p in prefixes:
        r = routes.get(p.split("/")[0]) or routes.get(p)
        w = {}
        if r and "nhid" in r:
            nhg = nhs.get(r["nhid"], {})
            for m in nhg.get("group") or [{"id": r["nhid"], "weight": 1}]:
                w[nhs.get(m["id"], {}).get("dev", "?{}".format(m["id"]))] = m.get("weight", 1)
        elif r and "nexthops" in r:
            w = {nh["dev"]: nh.get("weight", 1) for nh in r["nexthops"]}
        elif r:
            w = {r.get("dev", "?"): 1}
        out[p] = reduced(w)
    return out


def expected_state(down=()):
    """{server: {prefix: reduced weights}} with s4's sub-ports `down`
    (server-side names) failed."""
    state = {}
    for i in SERVERS:
        exp = {}
        for p in remote_prefixes(i):
            if i == DST:
                # s4's own view: its failed sub-ports are gone; with one of
                # two, p1 carries min(400, 800) on one sub-port, as much as
                # one sub-port of any other plane
                exp[p] = equal([x for x in IFS if x not in down])
            elif p in gpu_prefixes(DST):
                if set(P1) <= set(down):
                    exp[p] = WITHOUT_P1
                elif down:
                    exp[p] = P1_HALF
                else:
                    exp[p] = HEALTHY
            else:
                exp[p] = HEALTHY
        state[i] = exp
    return state


def fabric_state(tgen):
    return {i: groups(server(tgen, i), remote_prefixes(i)) for i in SERVERS}


def wait_state(tgen, expected, count=60, wait=1):
    """Poll every server's kernel groups until they are `expected`; the
    servers that differ and how, {} when all match."""
    got = wait_for(lambda: fabric_state(tgen), expected, count=count, wait=wait)
    return {i: (got[i], expected[i]) for i in SERVERS if got[i] != expected[i]}


def wait_healthy(tgen):
    """Every server at 8 equal members for every remote GPU (each test
    starts and ends there)."""
    diff = wait_state(tgen, expected_state(), count=90)
    assert not diff, "not healthy (got, expected): {}".format(diff)


def fare_weights(router, prefix):
    """The module's own weights of `prefix`, reduced, {interface: weight}."""
    return reduced({x["interface"]: x["weight"] for x in fare_prefix(router, prefix).get("paths", [])})


def send_flows(tgen, src_router, src, dst, flows=FLOWS, ifnames=IFS):
    """`src_router` sends `flows` UDP flows from `src` to `dst`; per
    interface, the packets of these flows seen leaving it (tap), checked
    against the interface's tx counter."""
    before = tx_packets(src_router, ifnames)
    out = src_router.run(
        "/usr/bin/python3 {} {} {} {} 20000 9 {}".format(
            sender_path(tgen), src, dst, flows, ",".join(ifnames)
        )
    )
    after = tx_packets(src_router, ifnames)
    try:
        j = json.loads(out.strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise AssertionError("sender failed: {}".format(out))
    assert j["sent"] == flows, out
    counts = j["counts"]
    tx = {i: after[i] - before[i] for i in ifnames}
    # the tap counts what the tx counters count, plus nothing of its own:
    # every packet tapped was transmitted, and little else was.
    for i in ifnames:
        assert 0 <= tx[i] - counts[i] <= CONTROL_PACKETS, (
            "{}: tx counter +{}, tapped {} packets of the flows".format(i, tx[i], counts[i]))
    assert sum(counts.values()) == flows, "counted {} of {} flows: {}".format(
        sum(counts.values()), flows, counts)
    return counts


def shares(counts):
    total = float(sum(counts.values()))
    return {i: 100.0 * n / total for i, n in counts.items()}


def plane_shares(counts):
    total = float(sum(counts.values()))
    return {
        "p{}".format(j): 100.0 * sum(n for i, n in counts.items() if i.startswith("p{}".format(j)))
        / total
        for j in PLANES
    }


def split_table(title, counts, expected):
    sh, psh = shares(counts), plane_shares(counts)
    lines = ["", title, "sub-port  packets  measured  expected"]
    for i in IFS:
        lines.append("{:<8} {:>8} {:>8.1f}% {:>8.1f}%".format(i, counts.get(i, 0), sh.get(i, 0.0), expected[i]))
    lines.append("plane    " + "  ".join("{} {:.1f}%".format(p, v) for p, v in psh.items()))
    report("\n".join(lines))


def expected_shares(weights):
    total = float(sum(weights.values()))
    return {i: 100.0 * weights.get(i, 0) / total for i in IFS}


def link(router, ifnames, state):
    """Set `ifnames` of `router` `state` (up/down) in one command; the wall
    clock (s) just before the first and just after the last."""
    cmd = "date +%s.%N; " + "; ".join("ip link set {} {}".format(i, state) for i in ifnames)
    out = router.run(cmd + "; date +%s.%N")
    t = [float(x) for x in out.split()]
    return t[0], t[-1]


TS = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\]\s+(.*)$")


def monitor_start(tgen, router):
    """`ip -ts -o monitor route nexthop` in `router`'s namespace, to a file."""
    path = os.path.join(tgen.logdir, "monitor-{}.txt".format(router.name))
    pid = router.run(
        "TZ=UTC ip -ts -o monitor route nexthop > {} 2>&1 & echo $!".format(path)
    ).strip()
    return router, path, pid


def monitor_stop(mon):
    """Stop a monitor; its events as [(time s, text)]."""
    router, path, pid = mon
    router.run("kill {}".format(pid))
    events = []
    with open(path) as f:
        for line in f:
            m = TS.match(line.strip())
            if m:
                t = datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
                events.append((t.replace(tzinfo=timezone.utc).timestamp(), m.group(2)))
    return events


def updates(events, router, prefixes, since):
    """Times, at or after `since`, of the kernel's updates of the routes of
    `prefixes` in `router`: route events for one of them, and changes in
    place of the nexthop groups they now use."""
    nhids = set()
    for p in prefixes:
        r = json.loads(router.run("ip -j -4 route show {}".format(p)) or "[]")
        if r and "nhid" in r[0]:
            nhids.add(r[0]["nhid"])
    addrs = [p.split("/")[0] for p in prefixes]
    route = re.compile(r"^(Deleted )?({})(/32)? ".format("|".join(re.escape(a) for a in addrs)))
    group = re.compile(r"^(Deleted )?id ({}) ".format("|".join(str(n) for n in nhids) or "x"))
    return sorted(t for t, text in events if t >= since and (route.match(text) or group.match(text)))


def plane_paths(router, prefix):
    """[AS path string] of every path `router` has for `prefix`."""
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(prefix))
    return sorted(p.get("aspath", {}).get("string", "?") for p in j.get("paths", []))


# -- tests -------------------------------------------------------------------


def test_healthy_groups():
    "SUN-1: every server, every remote GPU: 8 sub-ports of equal weight; own GPUs not learned."
    tgen = tgen_or_skip()
    diff = wait_state(tgen, expected_state(), count=120)
    assert not diff, "kernel groups differ (got, expected): {}".format(diff)
    for i in SERVERS:
        s = server(tgen, i)
        for p in remote_prefixes(i):
            w = kernel_weights(s, p)
            assert sorted(w) == sorted(IFS) and len(set(w.values())) == 1, "s{} {}: {}".format(i, p, w)
            # per plane, the path bandwidth learned: 800G (both of the
            # destination's sub-ports), on both of the sender's sub-ports
            fp = fare_prefix(s, p)
            got = sorted((x["interface"], x["transitive"]["bytesPerSec"] / GBPS) for x in fp["paths"])
            assert got == [(x, 800.0) for x in sorted(IFS)], "s{} {}: {}".format(i, p, fp)
        for p in gpu_prefixes(i):
            # the own GPU: on lo only, never via a plane
            assert kernel_weights(s, p) == {}, "s{} {}: {}".format(i, p, kernel_weights(s, p))
            j = vtysh_json(s, "show bgp ipv4 unicast {} json".format(p))
            paths = j.get("paths", [])
            assert len(paths) == 1, "s{} {}: {}".format(i, p, j)
            assert paths[0].get("local") is True and paths[0]["aspath"]["length"] == 0, paths[0]
    for j_ in PLANES:
        pl = plane(tgen, j_)
        for i in SERVERS:
            for p in gpu_prefixes(i):
                fp = fare_prefix(pl, p)
                adv = fp.get("advertised", {}).get("transitiveBytesPerSec")
                assert adv == 800 * GBPS, "p{} {}: {}".format(j_, p, fp)
                # and forwards to the server over both sub-ports alike
                w = reduced(kernel_weights(pl, p))
                assert w == {"s{}a".format(i): 1, "s{}b".format(i): 1}, "p{} {}: {}".format(j_, p, w)


def test_traffic_split_healthy():
    "SUN-1: 2000 flows GPU 10.0.1.1 -> 10.0.4.1: each sub-port 12.5% +- 3, each plane 25% +- 4."
    tgen = tgen_or_skip()
    wait_healthy(tgen)
    s1 = server(tgen, 1)
    assert reduced(kernel_weights(s1, gpu_prefix(DST, 1))) == HEALTHY
    counts = send_flows(tgen, s1, SRC_GPU, DST_GPU)
    exp = expected_shares(HEALTHY)
    split_table("SUN-1: s1 10.0.1.1 -> 10.0.4.1, {} UDP flows, all healthy".format(FLOWS), counts, exp)
    sh, psh = shares(counts), plane_shares(counts)
    for i in IFS:
        assert abs(sh[i] - 12.5) <= TOL_SUBPORT, "{}: {:.1f}%".format(i, sh[i])
    for p, v in psh.items():
        assert abs(v - 25.0) <= TOL_PLANE, "{}: {:.1f}%".format(p, v)


def test_port_failure():
    "SUN-2: s4's port to p1 fails (p1a, p1b down): p1 out of every group for s4's GPUs at once."
    tgen = tgen_or_skip()
    wait_healthy(tgen)
    s4, s1 = server(tgen, DST), server(tgen, 1)
    senders = [i for i in SERVERS if i != DST]
    exp = expected_state(down=P1)
    monitors = {i: monitor_start(tgen, server(tgen, i)) for i in senders}
    time.sleep(0.3)  # the monitors subscribe
    try:
        try:
            t_down, t_done = link(s4, P1, "down")
            # s4 itself: the kernel drops the members on the failed port
            # when it goes down, before anything else runs (no event)
            at_once = groups(s4, remote_prefixes(DST))
            diff = wait_state(tgen, exp, count=40, wait=0.5)
        finally:
            events = {i: monitor_stop(m) for i, m in monitors.items()}
        assert at_once == exp[DST], "s4 right after its port went down: {}".format(at_once)
        assert not diff, "kernel groups differ (got, expected): {}".format(diff)
        # ... and what the module computes for it (zebra's next install)
        for p in remote_prefixes(DST):
            got = wait_for(lambda: fare_weights(s4, p), exp[DST][p], count=10, wait=0.5)
            assert got == exp[DST][p], "s4 {} (show bgp ipv4 fare): {}".format(p, got)
        assert groups(s4, remote_prefixes(DST)) == exp[DST]
        times = {}
        for i in senders:
            t = updates(events[i], server(tgen, i), gpu_prefixes(DST), t_down)
            assert t, "s{}: no kernel update seen: {}".format(i, events[i])
            times[i] = t[-1] - t_down
        lines = [
            "",
            "SUN-2: s4's port to p1 down (p1a, p1b: {:.1f} ms for both) -> kernel group for s4's "
            "GPUs updated (ip monitor):".format(1000 * (t_done - t_down)),
        ]
        for i in senders:
            lines.append("  s{}: {:.1f} ms".format(i, 1000 * times[i]))
        lines.append("  s4 (its groups to the other GPUs): at once, by the kernel with the link down")
        report("\n".join(lines))

        # traffic: nothing of s1's flows to s4 goes through p1
        counts = send_flows(tgen, s1, SRC_GPU, DST_GPU)
        exp = expected_shares(WITHOUT_P1)
        split_table("SUN-2: s1 10.0.1.1 -> 10.0.4.1, s4's port to p1 down", counts, exp)
        assert counts["p1a"] == 0 and counts["p1b"] == 0, counts
        sh = shares(counts)
        for i in WITHOUT_P1:
            assert abs(sh[i] - exp[i]) <= TOL_SUBPORT, "{}: {:.1f}%".format(i, sh[i])
    finally:
        link(s4, P1, "up")
    # every session back; the senders' weights equal after the hold-down
    wait_healthy(tgen)


def zebra_groups(router):
    """{id: entry} of zebra's nexthop groups (`show nexthop-group rib
    json`, flat or by VRF)."""
    j = vtysh_json(router, "show nexthop-group rib json")
    if all(isinstance(v, dict) and "type" not in v for v in j.values()):
        j = {k: v for vrf in j.values() for k, v in vrf.items()}
    return {int(k): v for k, v in j.items()}


def groups_out_of_step(router):
    """Zebra's installed groups whose kernel copy has other members than
    the ones zebra holds valid and installed: {id: (kernel's, zebra's)}."""
    zebra = zebra_groups(router)
    kernel = {n["id"]: n for n in json.loads(router.run("ip -j nexthop show") or "[]")}
    out = {}
    for nhid, e in zebra.items():
        if not e.get("depends") or not e.get("installed") or e.get("queued"):
            continue
        want = sorted(d for d in e["depends"]
                      if zebra.get(d, {}).get("valid") and zebra.get(d, {}).get("installed"))
        have = sorted(m["id"] for m in kernel.get(nhid, {}).get("group", []))
        if have != want:
            out[nhid] = (have, want)
    return out


PORT_FLAPS = 30


def test_port_flaps_leave_no_member_out():
    """s4's port to p1 flaps (p1a, p1b down and up together) 30 times: each
    time, every nexthop group zebra holds installed has in the kernel every
    member zebra holds valid. Both sub-ports come back within a few ms: the
    first one's groups are queued without the second, whose reinstall comes
    while they are queued (FRR patch 0026), and a group of p1a's may install
    p1b's next hop before p1b's own up event (FRR patch 0027). Then healthy
    again."""
    tgen = tgen_or_skip()
    wait_healthy(tgen)
    s4 = server(tgen, DST)
    # the check reads zebra's groups: healthy, it holds the 8-member group
    # of the remote GPUs installed (else the check would compare nothing)
    whole = [i for i, e in zebra_groups(s4).items()
             if e.get("installed") and len(e.get("depends") or []) == len(IFS)]
    assert whole, "s4: no installed group of {} members in zebra".format(len(IFS))
    s4.vtysh_cmd("configure terminal\ndebug zebra nexthop detail")
    log = os.path.join(tgen.logdir, s4.name, "zebra.log")
    start = os.path.getsize(log)
    bad = {}
    try:
        for k in range(PORT_FLAPS):
            link(s4, P1, "down")
            time.sleep(0.2)
            link(s4, P1, "up")
            got = wait_for(lambda: groups_out_of_step(s4), {}, count=10, wait=0.3)
            if got:
                bad = {"flap": k + 1, "groups (kernel's, zebra's)": got,
                       "kernel": s4.run("ip -d nexthop show")}
                break
    finally:
        s4.vtysh_cmd("configure terminal\nno debug zebra nexthop detail")
        link(s4, P1, "up")
    with open(log, errors="replace") as f:
        f.seek(start)
        again = sum(1 for line in f if "asked to reinstall while queued" in line)
    assert not bad, "a group without a member zebra holds valid: {}".format(bad)
    # each flap brings two interfaces up, each asking again for the few
    # groups of p1's sub-ports; a group that failed to install must not be
    # installed again and again
    assert again <= 10 * PORT_FLAPS, "groups installed again {} times in {} flaps".format(
        again, PORT_FLAPS)
    report("\nFRR patches 0026, 0027: s4's port to p1 flapped {} times: every installed group whole in "
           "the kernel after each; groups asked to reinstall while their install was queued, "
           "installed again: {}".format(PORT_FLAPS, again))
    wait_healthy(tgen)


LOG_TS = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+) (.*)$")


def session_up_time(tgen, router, ifname, since):
    """Wall clock time `router`'s session on `ifname` came up at or after
    `since`, from bgpd's log (%ADJCHANGE, microseconds), or None. The
    JSON's bgpTimerUpMsec counts whole seconds only."""
    if vtysh_json(router, "show bgp neighbors {} json".format(ifname)).get(ifname, {}).get(
            "bgpState") != "Established":
        return None
    up = "%ADJCHANGE: neighbor {}(".format(ifname)
    with open(os.path.join(tgen.logdir, router.name, "bgpd.log"), errors="replace") as f:
        for line in f:
            m = LOG_TS.match(line)
            if not m or up not in line or not line.rstrip().endswith(" Up"):
                continue
            t = datetime.strptime(m.group(1), "%Y/%m/%d %H:%M:%S.%f")
            t = t.replace(tzinfo=timezone.utc).timestamp()  # bgpd logs in UTC here
            if t >= since:
                return t
    return None


def test_half_failure():
    "SUN-2: s4's p1b down: p1 at 400G, senders 2:2:2:2:2:2:1:1, p1's share 1/7; back after the hold-down."
    tgen = tgen_or_skip()
    wait_healthy(tgen)
    s4, p1, s1 = server(tgen, DST), plane(tgen, 1), server(tgen, 1)
    senders = [i for i in SERVERS if i != DST]
    restored = False
    try:
        link(s4, ["p1b"], "down")
        exp_down = expected_state(down=["p1b"])
        at_once = groups(s4, remote_prefixes(DST))
        assert at_once == exp_down[DST], "s4 right after p1b went down: {}".format(at_once)
        diff = wait_state(tgen, exp_down, count=40, wait=0.5)
        assert not diff, "kernel groups differ (got, expected): {}".format(diff)
        # s4: p1a alone carries p1's min(400, 800) = 400G, as one sub-port of
        # any other plane (the module's weights, then the kernel's)
        for p in remote_prefixes(DST):
            got = wait_for(lambda: fare_weights(s4, p), exp_down[DST][p], count=10, wait=0.5)
            assert got == exp_down[DST][p], "s4 {} (show bgp ipv4 fare): {}".format(p, got)
        assert groups(s4, remote_prefixes(DST)) == exp_down[DST]
        for p in gpu_prefixes(DST):
            adv = fare_prefix(p1, p).get("advertised", {}).get("transitiveBytesPerSec")
            assert adv == 400 * GBPS, "p1 {}: advertises {}".format(p, adv)

        counts = send_flows(tgen, s1, SRC_GPU, DST_GPU)
        exp = expected_shares(P1_HALF)
        split_table("SUN-2: s1 10.0.1.1 -> 10.0.4.1, s4's p1b down (p1 at half)", counts, exp)
        sh, psh = shares(counts), plane_shares(counts)
        assert abs(psh["p1"] - 100.0 / 7) <= TOL_HALF_PLANE, "p1: {:.1f}%".format(psh["p1"])
        for i in IFS:
            assert abs(sh[i] - exp[i]) <= TOL_SUBPORT, "{}: {:.1f}% vs {:.1f}%".format(i, sh[i], exp[i])

        # recovery: the session comes back; its paths count after the hold-down
        monitors = {i: monitor_start(tgen, server(tgen, i)) for i in senders}
        time.sleep(0.3)
        try:
            t_up, _ = link(s4, ["p1b"], "up")
            restored = True
            t_est = None
            for _ in range(150):
                t_est = session_up_time(tgen, p1, "s{}b".format(DST), t_up)
                if t_est:
                    break
                time.sleep(0.2)
            assert t_est, "p1's session to s4b is not established again"
            # within the hold-down: p1 still advertises 400G, the senders
            # still weigh p1 at half
            for p in gpu_prefixes(DST):
                fp = fare_prefix(p1, p)
                assert fp["advertised"]["transitiveBytesPerSec"] == 400 * GBPS, fp
            for i in senders:
                got = groups(server(tgen, i), gpu_prefixes(DST))
                assert got == {p: P1_HALF for p in gpu_prefixes(DST)}, "s{} {:.2f} s after: {}".format(
                    i, time.time() - t_est, got)
            t_check = time.time()
            diff = wait_state(tgen, expected_state(), count=60, wait=0.5)
        finally:
            events = {i: monitor_stop(m) for i, m in monitors.items()}
        assert not diff, "not healthy again (got, expected): {}".format(diff)
        times = {}
        for i in senders:
            t = updates(events[i], server(tgen, i), gpu_prefixes(DST), t_up)
            assert t, "s{}: no kernel update seen".format(i)
            times[i] = (t[0] - t_est, t[-1] - t_est)
        report(
            "\nSUN-2 recovery: s4's p1b up; p1's session established {:.2f} s later; the senders "
            "still at 2:2:2:2:2:2:1:1 {:.2f} s after it; their kernel groups for s4's GPUs "
            "updated (first, last) after the establishment: {} (hold-down {} s)".format(
                t_est - t_up, t_check - t_est,
                ", ".join("s{} {:.3f}/{:.3f} s".format(i, a, b) for i, (a, b) in times.items()),
                HOLD_DOWN))
        for i, (first, last) in times.items():
            assert first >= HOLD_DOWN - 0.05, "s{}: updated {:.3f} s after establishment".format(i, first)
            assert last <= HOLD_DOWN + 3, "s{}: equal only {:.2f} s after establishment".format(i, last)
    finally:
        if not restored:
            link(s4, ["p1b"], "up")
    wait_healthy(tgen)


def plane_has_no_path(pl, prefixes):
    return {p: plane_paths(pl, p) for p in prefixes if plane_paths(pl, p)}


def test_no_transit():
    "SUN-1 host role: planes learn each server's GPUs from it alone; s4's port down leaves p1 no path."
    tgen = tgen_or_skip()
    wait_healthy(tgen)
    only_own = {(j, p): [str(SERVER_AS_BASE + i)] * 2 for j in PLANES for i in SERVERS for p in gpu_prefixes(i)}

    def plane_view():
        return {(j, p): plane_paths(plane(tgen, j), p) for j, p in only_own}

    got = wait_for(plane_view, only_own, count=10)
    assert got == only_own, "AS paths at the planes: {}".format(
        {k: v for k, v in got.items() if v != only_own[k]})
    s4, p1, s1 = server(tgen, DST), plane(tgen, 1), server(tgen, 1)
    role = "configure terminal\nrouter bgp {}\n{}bgp fare role host\n"
    try:
        link(s4, P1, "down")
        got = wait_for(lambda: plane_has_no_path(p1, gpu_prefixes(DST)), {}, count=20, wait=0.5)
        assert got == {}, "p1 with s4's port down: {}".format(got)
        for p in gpu_prefixes(DST):
            assert kernel_weights(p1, p) == {}, kernel_weights(p1, p)
        # negative control: without the role s1 is a transit for p1
        s1.vtysh_cmd(role.format(SERVER_AS_BASE + 1, "no "))
        try:
            transit = ["{} {} {}".format(SERVER_AS_BASE + 1, PLANE_AS_BASE + j, SERVER_AS_BASE + DST)
                       for j in PLANES if j != 1]

            def via_s1():
                return all(set(plane_paths(p1, p)) & set(transit) for p in gpu_prefixes(DST))

            ok = wait_for(via_s1, True, count=20, wait=0.5)
            seen = {p: plane_paths(p1, p) for p in gpu_prefixes(DST)}
            assert ok, "p1 without s1's role: {}".format(seen)
            report("\nSUN-1 negative control: s1 without `bgp fare role host`, s4's port to p1 "
                   "down: p1's AS paths to s4's GPUs {}".format(seen))
        finally:
            s1.vtysh_cmd(role.format(SERVER_AS_BASE + 1, ""))
        got = wait_for(lambda: plane_has_no_path(p1, gpu_prefixes(DST)), {}, count=20, wait=0.5)
        assert got == {}, "p1 with s1's role back: {}".format(got)
    finally:
        link(s4, P1, "up")
    wait_healthy(tgen)
    got = wait_for(plane_view, only_own, count=10)
    assert got == only_own, "AS paths at the planes afterwards: {}".format(
        {k: v for k, v in got.items() if v != only_own[k]})


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))


def test_host_role_config_round_trip():
    "`bgp fare role host` is written back and shown; frr-reload.py takes it out and puts it back."
    tgen = tgen_or_skip()
    s1 = server(tgen, 1)
    cfg = s1.vtysh_cmd("show running-config")
    assert "\n bgp fare role host\n" in cfg
    j = vtysh_json(s1, "show bgp fare json")
    assert j["config"]["role"] == "host", j["config"]
    planes = vtysh_json(s1, "show bgp fare planes json")
    assert planes["role"] == "host"
    assert [p["plane"] for p in planes["planes"]] == ["p1", "p2", "p3", "p4"], planes["planes"]
    assert all(p["sessionsUp"] == 2 and p["state"] == "up" for p in planes["planes"])
    dest = planes["destinations"][gpu_prefix(4, 1)]["planes"]
    assert {name: (p["weight"], p["sharePercent"]) for name, p in dest.items()} == {
        "p{}".format(j): (2, 25.0) for j in range(1, 5)}, dest

    def save(name, text):
        path = os.path.join(tgen.logdir, "s1-{}.conf".format(name))
        with open(path, "w") as f:
            f.write(text)
        return path

    body = "\n".join(l for l in cfg.splitlines()
                     if not l.startswith(("Building configuration", "Current configuration")))
    # the running config against itself: nothing to change
    rc, out = frr_reload(s1, "test", save("running", body + "\n"))
    assert rc == 0 and not re.search(r"\bfare\b", out.split("Lines To Delete")[-1]), out
    # without the role: frr-reload.py removes it, s1 becomes a node again
    rc, out = frr_reload(s1, "reload", save("no-role", body.replace(" bgp fare role host\n", "") + "\n"))
    assert rc == 0, out
    assert "bgp fare role" not in s1.vtysh_cmd("show running-config")
    assert vtysh_json(s1, "show bgp fare json")["config"]["role"] == "node"
    # and back
    withheld = vtysh_json(s1, "show bgp fare json")["counters"]["transitWithheld"]
    rc, out = frr_reload(s1, "reload", save("role", body + "\n"))
    assert rc == 0, out
    assert "\n bgp fare role host\n" in s1.vtysh_cmd("show running-config")
    # the role's re-evaluation ran: s1 withholds the other servers' GPUs
    # again (SUN-1), which the senders' groups alone would not show
    got = wait_for(lambda: vtysh_json(s1, "show bgp fare json")["counters"]["transitWithheld"] > withheld,
                   True, count=30)
    assert got is True, vtysh_json(s1, "show bgp fare json")["counters"]
    wait_healthy(tgen)
