#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Benchmark (scripts/bench.sh sun, not part of the test suite): the
control-plane cost per GPU server in a multi-plane scale-up network
(SUN-1), plain ECMP against FARE's host role, for pods of N GPUs
(FARE_BENCH_SUN_SIZES, "64,1024,4096").

A pod of N GPUs: 8 GPUs per server, 4 planes, each server port a Y-cable
of two 400G sub-ports. Every server has 8 unnumbered eBGP sessions (4
planes x 2 sub-ports) and learns N - 8 remote GPU /32s, each over 8 paths.

        p1      p2      p3      p4          plane switches (one AS each)
        |a|b    |a|b    |a|b    |a|b        a Y-cable: two sub-ports
   s1 --+-------+-------+-------+           measured: 8 GPUs, 8 sessions
   s2 --+-------+-------+-------+           the rest of the pod: N - 8 GPUs

s1 is the measured server (ScaleUp of topotests/fare/fabric.py, GPUs
10.0.1.1-8). s2 stands for the other N/8 - 1 servers: besides its own 8
GPUs (10.0.2.1-8) it holds on `lo` the addresses of the GPUs of servers
3 .. N/8 (server k's GPU g: 10.<k/256>.<k%256>.g, fare.fabric.gpu_addr's scheme
continued above 255) and originates all of them with `network`
statements, each server's 8 behind a route-map that prepends a private AS
of that server's (4200000000 + k): s1 gets, as in a real pod, one AS path
per remote server, so one UPDATE per server and session and one attribute
set per server and path (FARE_BENCH_SUN_ASPATH=shared: all with s2's AS
path, packed UPDATEs). With FARE, `bgp fare originate` gives them the
maximum Path Bandwidth, as a real server's own GPUs; the plane switches
sum s2's two sub-ports (800G) and s1 receives every remote GPU from its 8
sessions with a real pod's Path Bandwidth.

One topology per variant: plain ECMP (bgpd without the module,
ScaleUp(fare=False)) and FARE (`bgpd -M fare`, host role, `bgp fare
hold-down 0`). For each N, in increasing order (s2 grows in place), with
the rest of the pod running and converged, s1's daemons are started
FARE_BENCH_SUN_RUNS times (3) from nothing (a server joining a running
pod); measured on s1 when its kernel holds every remote GPU with 8 equal
members: sessions, paths received, routes in zebra and in the kernel,
kernel nexthop objects, bgpd's and zebra's CPU seconds (utime+stime of
/proc/PID/stat, from their start) and memory (VmHWM, VmRSS); the times
from the first and from the eighth session Established (bgpd's log,
microsecond timestamps) to the last kernel route/nexthop event that made
that state (`ip -ts monitor` in s1's namespace, started before the
daemons). `neighbor ... timers connect 1` on the server-plane sessions
only shortens the sessions' set-up after a restart.

Then one sub-port of s2's plane-4 Y-cable (p4b) goes down: with FARE every
s1 group towards s2's N - 8 GPUs becomes 2:2:2:2:2:2:1:1 (plane 4 halved);
plain ECMP cannot halve a plane: s1 keeps 8 equal members and only plane
switch p4 drops the member (its group towards s2's GPUs goes from 2
sub-ports to 1). Times from `ip -ts monitor` events on s1 and p4. Every
remote GPU here is behind s2, so the failure reweighs all N - 8 at once:
the worst case (a real sub-port failure touches one server's 8 GPUs).
"""

import datetime
import os
import re
import time
from collections import Counter

import pytest

# pylint: disable=C0413
from lib.topogen import Topogen
from fare.common import DAEMONS_FARE, DAEMONS_PLAIN, report, wait_for, vtysh_json
from fare.fabric import SERVER_AS_BASE, ScaleUp, plane_if

SIZES = sorted(int(x) for x in os.environ.get("FARE_BENCH_SUN_SIZES", "64,1024,4096").split(",")
               if x)
VARIANTS = ["ecmp", "fare"]
NAMES = {"ecmp": "plain ECMP", "fare": "FARE host"}
GPUS = 8
HZ = os.sysconf("SC_CLK_TCK")
# "server": every emulated server's GPUs leave s2 with an AS path of their
# own (s1 gets one UPDATE per server and session, one attribute set per
# server and path, as in a real pod); "shared": all with s2's (packed
# UPDATEs, 8 attribute sets in all)
ASPATH = os.environ.get("FARE_BENCH_SUN_ASPATH", "server")
EMU_AS_BASE = 4200000000
# cold starts of s1 in the running pod, per N and variant (median, min-max)
RUNS = int(os.environ.get("FARE_BENCH_SUN_RUNS", "3"))
POLL = 0.25  # s between kernel polls: only to know when to stop, not a figure
RESULTS = {}
SERVER_IFS = ScaleUp(planes=4, subports=2).server_ifs()  # p1a .. p4b
HEALTHY = tuple((i, 1) for i in SERVER_IFS)
HALF = tuple((i, 1 if i.startswith("p4") else 2) for i in SERVER_IFS)
P4_HEALTHY = (("s2a", 1), ("s2b", 1))
P4_HALF = (("s2a", 1),)


def emulated_servers(n):
    """{server number: [its GPUs' addresses]} of servers 3 .. n/8, which s2
    stands for (server k's GPU g: 10.<k/256>.<k%256>.g)."""
    return {k: ["10.{}.{}.{}".format(k // 256, k % 256, g) for g in range(1, GPUS + 1)]
            for k in range(3, n // GPUS + 1)}


def emulated(n):
    return [a for addrs in emulated_servers(n).values() for a in addrs]


def _s2_lines(servers):
    """(top-level lines, `router bgp` lines) of s2 for emulated `servers`
    ({k: addresses}): each server's route-map and `network` statements."""
    top, bgp = [], [" address-family ipv4 unicast"]
    for k, addrs in servers.items():
        rmap = ""
        if ASPATH == "server":
            top += ["route-map SRV{} permit 10".format(k),
                    " set as-path prepend {}".format(EMU_AS_BASE + k), "exit"]
            rmap = " route-map SRV{}".format(k)
        bgp += ["  network {}/32{}".format(a, rmap) for a in addrs]
    return top, bgp + [" exit-address-family"]


def _connect(ifs):
    return [" neighbor {} timers connect 1".format(i) for i in ifs]


def _net(n, variant):
    net = ScaleUp(servers=2, planes=4, gpus=GPUS, subports=2, gbps=400,
                  fare=(variant == "fare"), hold_down=0 if variant == "fare" else None)
    net.extra_server_config = {i: _connect(net.server_ifs()) for i in (1, 2)}
    net.extra_server_config[2] += _s2_lines(emulated_servers(n))[1]
    net.extra_plane_config = {
        j: _connect(plane_if(i, k) for i in (1, 2) for k in (1, 2)) for j in range(1, 5)}
    return net


def _config_of(net, n):
    def config(name):
        lines = net.config(name).split("\n")
        # after `frr defaults` and `hostname`: microsecond log timestamps
        extra = ["log timestamp precision 6"]
        if name == "s2":
            extra += _s2_lines(emulated_servers(n))[0]
        return "\n".join(lines[:2] + extra + lines[2:])
    return config


def _grow(tgen, old, n):
    """Make s2 stand for a pod of n GPUs instead of old: the new servers'
    addresses on lo, their route-maps and `network` statements."""
    new = {k: a for k, a in emulated_servers(n).items() if k not in emulated_servers(old)}
    s2 = tgen.gears["s2"]
    batch = os.path.join(tgen.logdir, "s2-lo-{}.batch".format(n))
    with open(batch, "w") as f:
        f.writelines("address add {}/32 dev lo\n".format(a) for v in new.values() for a in v)
    s2.run("ip link set lo up; ip -batch {}".format(batch))
    if old:
        top, bgp = _s2_lines(new)
        path = os.path.join(tgen.logdir, "s2-grow-{}.conf".format(n))
        with open(path, "w") as f:
            f.write("\n".join(top + ["router bgp {}".format(SERVER_AS_BASE + 2)] + bgp
                              + ["exit", ""]))
        s2.cmd("vtysh -f " + path)
    # (s2's own 8 come from zebra's configuration, once zebra runs)
    assert int(s2.run("ip -4 addr show dev lo | grep -c 'inet 10\\.'")) in (n - 2 * GPUS, n - GPUS)


# -- /proc figures of s1's daemons ---------------------------------------------


def _proc(router, daemon, what):
    return router.run("cat /proc/$(cat /var/run/frr/{}.pid)/{}".format(daemon, what))


def _cpu(router, daemon):
    """user+system CPU seconds of `daemon` since it started."""
    fields = _proc(router, daemon, "stat").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def _start_time(router, daemon):
    """Wall clock (s) at which `daemon` started, to 1/HZ."""
    fields = _proc(router, daemon, "stat").rsplit(")", 1)[1].split()
    with open("/proc/stat") as f:
        btime = int(re.search(r"^btime (\d+)", f.read(), re.M).group(1))
    return btime + int(fields[19]) / HZ


def _mem_mb(router, daemon):
    """(VmHWM, VmRSS) of `daemon` in MB."""
    st = _proc(router, daemon, "status")
    return tuple(int(re.search(r"{}:\s+(\d+) kB".format(k), st).group(1)) / 1024
                 for k in ("VmHWM", "VmRSS"))


# -- kernel state ---------------------------------------------------------------


def kernel(router):
    """(Counter of the member signatures of `router`'s BGP /32 routes,
    number of BGP routes, number of nexthop objects, number of those the
    BGP routes use directly: groups, or single nexthops). A signature is
    ((device, weight), ...) in lowest terms, sorted by device."""
    nh_lines = router.run("ip nexthop show").splitlines()
    groups, devs = {}, {}
    for line in nh_lines:
        m = re.match(r"id (\d+) group (\S+)", line)
        if m:
            groups[m.group(1)] = [(x.split(",") + ["1"])[:2] for x in m.group(2).split("/")]
            continue
        m = re.match(r"id (\d+) via \S+ dev (\S+)", line)
        if m:
            devs[m.group(1)] = m.group(2)
    per_nhid = Counter(re.findall(r"^\S+ nhid (\d+)",
                                  router.run("ip -4 route show proto bgp"), re.M))
    sigs = Counter()
    for nhid, c in per_nhid.items():
        members = groups.get(nhid, [(nhid, "1")])
        w = {}
        for i, x in members:
            w[devs.get(i, "?")] = w.get(devs.get(i, "?"), 0) + int(x)
        g = 0
        for v in w.values():
            g = v if g == 0 else _gcd(g, v)
        sigs[tuple(sorted((d, v // max(g, 1)) for d, v in w.items()))] += c
    return sigs, sum(per_nhid.values()), len(nh_lines), len(per_nhid)


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def _wait_sig(router, sig, n, count):
    """Poll until `n` BGP routes of `router` have signature `sig`; the wall
    clock at the end of the confirming poll (None if it never came)."""
    for _ in range(count):
        if kernel(router)[0].get(sig, 0) == n:
            return time.time()
        time.sleep(POLL)
    return None


# -- event timestamps -----------------------------------------------------------

TS = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\]\s+(.*)$")
LOG_UP = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+) .*ADJCHANGE: neighbor (\S+) .* Up")


def monitor_start(router, path):
    """`ip -ts -o monitor route nexthop` (UTC, a large socket buffer: a
    reweighting is a burst) in `router`'s namespace, to `path`."""
    return router.run("TZ=UTC ip -rcvbuf 16777216 -ts -o monitor route nexthop >{} 2>&1 & echo $!"
                      .format(path)).strip()


def monitor_events(path):
    """[(wall clock s, text)] of a monitor file; whether it lost messages."""
    events, lost = [], False
    with open(path) as f:
        for line in f:
            m = TS.match(line.strip())
            if not m:
                lost = lost or "No buffer space" in line
                continue
            t = datetime.datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S.%f")
            events.append((t.replace(tzinfo=datetime.timezone.utc).timestamp(), m.group(2)))
    return events, lost


def _relevant(text):
    """A kernel event that builds a BGP route's forwarding state: an added
    or replaced BGP route or nexthop object (zebra deletes unused groups
    seconds later: not a change of forwarding)."""
    if text.startswith("Deleted"):
        return False
    return " proto bgp" in text or (text.startswith("id ") and " proto zebra" in text)


def last_event(events, since, until):
    ts = [t for t, text in events if since <= t <= until and _relevant(text)]
    return (max(ts) if ts else None), len(ts)


def sessions_up(logfile, since):
    """Wall clock (s) of every `%ADJCHANGE ... Up` in bgpd's log after
    `since` (bgpd logs local time; this machine's is UTC)."""
    ups = []
    with open(logfile, errors="replace") as f:
        for line in f:
            m = LOG_UP.match(line)
            if m:
                t = datetime.datetime.strptime(m.group(1), "%Y/%m/%d %H:%M:%S.%f")
                t = t.replace(tzinfo=datetime.timezone.utc).timestamp()
                if t >= since:
                    ups.append(t)
    return sorted(ups)


# -- the runs -------------------------------------------------------------------


def _start_pod(variant, net, n):
    """The topology with the daemons of every router but s1 running: the
    rest of the pod, up when s1 starts."""
    tgen = Topogen(net.build_topo, "fare_bench_sun")
    tgen.start_topology()
    _grow(tgen, 0, n)
    confdir = os.path.join(tgen.logdir, "configs")
    os.makedirs(confdir, exist_ok=True)
    config = _config_of(net, n)
    daemons = DAEMONS_FARE if variant == "fare" else DAEMONS_PLAIN
    for name, router in tgen.routers().items():
        path = os.path.join(confdir, "{}-{}.conf".format(name, variant))
        with open(path, "w") as f:
            f.write(config(name))
        router.load_frr_config(path, daemons)
    for name in tgen.routers():
        if name != "s1":
            tgen.start_router(name)
    return tgen


def _pod_ready(tgen, n):
    """Every plane switch holds s2's N - 8 GPUs over both of s2's sub-ports."""
    for p in ("p1", "p2", "p3", "p4"):
        assert _wait_sig(tgen.gears[p], P4_HEALTHY, n - GPUS, count=int(300 / POLL)), p


def _cold_start(tgen, n, variant, rep):
    """Start s1's daemons in the running pod; its figures once its kernel
    holds every remote GPU with 8 equal members."""
    s1 = tgen.gears["s1"]
    remote = n - GPUS
    mon = os.path.join(tgen.logdir, "s1-monitor-{}-{}-{}.txt".format(n, variant, rep))
    pid = monitor_start(s1, mon)
    time.sleep(0.5)
    t_begin = time.time()
    tgen.start_router("s1")
    tp = _wait_sig(s1, HEALTHY, remote, count=int(300 / POLL))
    assert tp is not None, "s1: {}".format(kernel(s1)[0].most_common(3))
    res = {"cpu_bgpd": _cpu(s1, "bgpd"), "cpu_zebra": _cpu(s1, "zebra")}
    res["mem_bgpd"], res["mem_zebra"] = _mem_mb(s1, "bgpd"), _mem_mb(s1, "zebra")
    t_bgpd = _start_time(s1, "bgpd")
    summ = vtysh_json(s1, "show bgp ipv4 unicast summary json")
    peers = summ.get("peers", {})
    res["sessions"] = sum(1 for p in peers.values() if p.get("state") == "Established")
    res["pfx_rcd"] = sum(p.get("pfxRcd", 0) for p in peers.values())
    res["rib"] = 0
    for r in vtysh_json(s1, "show ip route summary json").get("routes", []):
        if r.get("type") in ("bgp", "ebgp"):
            res["rib"] += r.get("rib", 0)
    sigs, res["k_routes"], res["k_nh"], res["k_used"] = kernel(s1)
    res["k_full"] = sigs.get(HEALTHY, 0)
    s1.run("kill {}".format(pid))
    events, res["lost"] = monitor_events(mon)
    ups = sessions_up(os.path.join(tgen.logdir, "s1", "bgpd.log"), t_begin)
    assert len(ups) >= 8, ups
    t_conv, _ = last_event(events, t_begin, tp)
    res["start_up"] = ups[0] - t_bgpd
    res["up_up"] = ups[7] - ups[0]
    res["up_conv"] = t_conv - ups[0]
    res["last_conv"] = t_conv - ups[7]
    return res


def _stop_s1(tgen):
    """Stop s1's daemons (zebra takes its routes out of the kernel) and
    clear what is left, for the next cold start."""
    s1 = tgen.gears["s1"]
    s1.stop()
    assert wait_for(lambda: s1.run("ip -4 route show proto bgp | wc -l").strip(), "0",
                    count=60, wait=0.5) == "0"
    s1.run("ip nexthop flush >/dev/null 2>&1")


def _half_failure(tgen, n, variant):
    """s2's p4b down, one sub-port of its plane-4 Y-cable."""
    s1, s2, p4 = tgen.gears["s1"], tgen.gears["s2"], tgen.gears["p4"]
    remote = n - GPUS
    time.sleep(3)  # quiet: the last UPDATEs and zebra's deferred deletes
    mons = {}
    for r in (s1, p4):
        path = os.path.join(tgen.logdir, "{}-monitor-{}-{}-fail.txt".format(r.name, n, variant))
        mons[r.name] = (path, monitor_start(r, path))
    time.sleep(1)
    cpu0 = _cpu(s1, "bgpd"), _cpu(s1, "zebra")
    t0 = float(s2.run("date +%s.%N; ip link set p4b down").split()[0])
    tp4 = _wait_sig(p4, P4_HALF, remote, count=int(60 / POLL))
    assert tp4 is not None, "p4: {}".format(kernel(p4)[0].most_common(3))
    if variant == "fare":
        ts1 = _wait_sig(s1, HALF, remote, count=int(60 / POLL))
        assert ts1 is not None, "s1: {}".format(kernel(s1)[0].most_common(3))
    else:
        time.sleep(5)  # nothing to wait for on s1: count what happens anyway
        ts1 = time.time()
        assert kernel(s1)[0].get(HEALTHY, 0) == remote
    time.sleep(1)
    res = {"cpu_fail": (_cpu(s1, "bgpd") - cpu0[0], _cpu(s1, "zebra") - cpu0[1]),
           "fail_half": kernel(s1)[0].get(HALF, 0)}
    ev = {}
    for r in (s1, p4):
        r.run("kill {}".format(mons[r.name][1]))
        ev[r.name], lost = monitor_events(mons[r.name][0])
        res["lost"] = res.get("lost") or lost
    last, res["fail_events"] = last_event(ev["s1"], t0, ts1)
    res["fail_s1"] = None if (variant == "ecmp" or last is None) else last - t0
    last, _ = last_event(ev["p4"], t0, tp4)
    # The kernel itself drops a nexthop whose device loses its carrier,
    # from every group, without a netlink message; zebra then finds its
    # groups already right. No event: the first poll's end is the bound.
    res["fail_p4"] = (last - t0, "") if last is not None else (tp4 - t0, "<=")
    return res


def _run(variant):
    tgen = _start_pod(variant, _net(SIZES[0], variant), SIZES[0])
    try:
        old = SIZES[0]
        for n in SIZES:
            t_begin = time.time()
            if n != old:
                _stop_s1(tgen)
                tgen.gears["s2"].run("ip link set p4b up")
                _grow(tgen, old, n)
                old = n
            _pod_ready(tgen, n)
            runs = []
            for rep in range(RUNS):
                if rep:
                    _stop_s1(tgen)
                runs.append(_cold_start(tgen, n, variant, rep))
            res = dict(runs[-1])
            res["runs"] = runs
            fail = _half_failure(tgen, n, variant)
            res["lost"] = any(r["lost"] for r in runs) or fail.pop("lost")
            res.update(fail)
            res["wall"] = time.time() - t_begin
            RESULTS[(n, variant)] = res
    finally:
        tgen.stop_topology()


@pytest.mark.parametrize("variant", VARIANTS)
def test_sun(variant):
    _run(variant)


# -- the table ------------------------------------------------------------------


def _f(x, fmt="{:.2f}"):
    return "-" if x is None else fmt.format(x)


def _med(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def _val(r, key):
    """Every cold start's value of `key` ("mem_bgpd.0": VmHWM)."""
    k, _, i = key.partition(".")
    return [x[k][int(i)] if i else x[k] for x in r["runs"]]


def _stat(key, fmt="{:.2f}"):
    """median (min-max) over the cold starts"""
    def get(r):
        v = _val(r, key)
        if len(v) == 1:
            return fmt.format(v[0])
        return (fmt + " ({}-{})").format(_med(v), fmt.format(min(v)), fmt.format(max(v)))
    return get


def _last(key):
    return lambda r: str(r[key])


ROWS = [
    ("BGP sessions Established", _last("sessions"), None),
    ("paths received (sum pfxRcd)", _last("pfx_rcd"), None),
    ("zebra RIB BGP routes", _last("rib"), None),
    ("kernel BGP /32s (ip route)", _last("k_routes"), None),
    ("  of which 8 equal members", _last("k_full"), None),
    ("kernel nexthop objects (ip nexthop)", _last("k_nh"), None),
    ("  groups used by the /32s", _last("k_used"), None),
    ("bgpd CPU s, start->converged", _stat("cpu_bgpd"), "cpu_bgpd"),
    ("zebra CPU s, start->converged", _stat("cpu_zebra"), "cpu_zebra"),
    ("bgpd peak RSS MB (VmHWM)", _stat("mem_bgpd.0", "{:.1f}"), "mem_bgpd.0"),
    ("bgpd RSS MB now (VmRSS)", _stat("mem_bgpd.1", "{:.1f}"), "mem_bgpd.1"),
    ("zebra peak RSS MB (VmHWM)", _stat("mem_zebra.0", "{:.1f}"), "mem_zebra.0"),
    ("zebra RSS MB now (VmRSS)", _stat("mem_zebra.1", "{:.1f}"), "mem_zebra.1"),
    ("bgpd start -> 1st Up s", _stat("start_up"), None),
    ("1st Up -> 8th Up s", _stat("up_up"), None),
    ("1st Up -> all GPUs x8 in kernel s", _stat("up_conv"), None),
    ("  8th Up -> same s", _stat("last_conv"), None),
    ("half failure -> s1 kernel s", lambda r: _f(r["fail_s1"], "{:.3f}")
     if r["fail_s1"] is not None else "no change", None),
    ("  s1 groups halved 2:..:1:1", _last("fail_half"), None),
    ("  s1 kernel events", _last("fail_events"), None),
    ("half failure -> p4 kernel s", lambda r: r["fail_p4"][1] + _f(r["fail_p4"][0], "{:.3f}"),
     None),
    ("s1 CPU s for it, bgpd / zebra", lambda r: "{:.2f} / {:.2f}".format(*r["cpu_fail"]), None),
    ("wall s for this N (all of the above)", lambda r: _f(r["wall"], "{:.0f}"), None),
]


def test_report():
    lines = ["", "Scale-up pod (SUN-1), per GPU server: 8 GPUs, 4 planes, Y-cables of 2 sub-ports;"
             " measured on s1,",
             "cold-started {} time(s) in the running pod: median (min-max); s2 originates the"
             " other".format(RUNS),
             "servers' GPUs ({}); CPU in ticks of {} s".format(
                 "an AS path per server" if ASPATH == "server" else "all with s2's AS path",
                 1.0 / HZ), ""]
    fmt = "{:<36} {:>18} {:>18} {:>9}"
    for n in SIZES:
        e, f = RESULTS.get((n, "ecmp")), RESULTS.get((n, "fare"))
        if not e and not f:
            continue
        lines.append("N = {} GPUs ({} remote GPU /32s, {} paths)".format(n, n - GPUS, 8 * (n - GPUS)))
        lines.append(fmt.format("", NAMES["ecmp"], NAMES["fare"], "FARE/ECMP"))
        for title, get, key in ROWS:
            ratio = ""
            if key and e and f and _med(_val(e, key)):
                ratio = "{:.2f}".format(_med(_val(f, key)) / _med(_val(e, key)))
            lines.append(fmt.format(title, get(e) if e else "-", get(f) if f else "-", ratio))
        lines.append("")
    if len(SIZES) > 1:
        lo, hi = SIZES[0], SIZES[-1]
        lines.append("per additional remote GPU /32 (8 paths), N = {} to N = {}, medians:".format(lo, hi))
        for v in VARIANTS:
            a, b = RESULTS.get((lo, v)), RESULTS.get((hi, v))
            if a and b:
                d = hi - lo

                def per(key, scale):
                    return (_med(_val(b, key)) - _med(_val(a, key))) * scale / d

                lines.append(
                    "  {:<11} bgpd {:.2f} kB, zebra {:.2f} kB (VmRSS); bgpd {:.3f} ms CPU,"
                    " zebra {:.3f} ms CPU".format(
                        NAMES[v], per("mem_bgpd.1", 1024), per("mem_zebra.1", 1024),
                        per("cpu_bgpd", 1000), per("cpu_zebra", 1000)))
    if any(r["fail_p4"][1] for r in RESULTS.values()):
        lines.append("<=: no kernel event on p4: the kernel drops the nexthop of a device that loses"
                     " its carrier\n    from every group by itself, silently; the bound is the end"
                     " of the first poll after the failure")
    if any(r["lost"] for r in RESULTS.values()):
        lines.append("an ip monitor lost messages (socket overflow): times are lower bounds")
    report("\n".join(lines))
