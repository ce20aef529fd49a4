# SPDX-License-Identifier: GPL-2.0-or-later
"""
What the benchmarks (bench/fare_bench_*) measure on a router: bgpd's CPU
and peak memory from /proc, its event loop's longest tasks, and the kernel's
route and nexthop events from `ip -ts monitor` timestamps.
"""

import datetime
import os
import re
import time

from fare.common import wait_for

HZ = os.sysconf("SC_CLK_TCK")


def bgpd_proc(router, what):
    """bgpd's /proc/PID/`what` text, read in the router's namespace."""
    return router.run("cat /proc/$(cat /var/run/frr/bgpd.pid)/" + what)


def bgpd_cpu(router):
    """bgpd's user+system CPU seconds since it started."""
    fields = bgpd_proc(router, "stat").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / HZ


def bgpd_hwm_mb(router):
    """bgpd's peak resident memory (VmHWM), MB."""
    m = re.search(r"VmHWM:\s+(\d+) kB", bgpd_proc(router, "status"))
    return int(m.group(1)) / 1024 if m else float("nan")


def bgp_updates(router, kind="updates"):
    """(UPDATE messages received, sent) by bgpd over all its sessions
    since they came up (`show bgp neighbors json`'s message counters);
    kind="routeRefresh": the ROUTE-REFRESH messages."""
    peers = router.vtysh_cmd("show bgp neighbors json", isjson=True)
    stats = [p.get("messageStats", {}) for p in peers.values() if isinstance(p, dict)]
    return (sum(s.get(kind + "Recv", 0) for s in stats),
            sum(s.get(kind + "Sent", 0) for s in stats))


def bgpd_stalls_ms(router):
    """(the longest run of one task of bgpd's main thread since its start,
    the longest of the FARE module's own tasks, those named fare_*), in ms
    of wall time: the largest "Max uSecs" of wall time in the main
    pthread's part of `show event cpu` (FRR's event loop statistics).
    FARE's work inside bgpd's own tasks (best-path selection, updates)
    counts under bgpd's names."""
    return tuple(ms for ms, _ in bgpd_longest_tasks(router))


def bgpd_longest_tasks(router, cpu=False):
    """((ms, name) of the longest task of bgpd's main thread, (ms, name)
    of the longest of the module's own), as bgpd_stalls_ms(); cpu: by the
    CPU time of one run ("Max uSecs" of CPU), not its wall time, which
    counts the time other processes had the core (on this 2-core machine,
    the other routers' daemons)."""
    longest = own = (0, "-")
    main = False
    for line in router.vtysh_cmd("show event cpu").splitlines():
        if line.startswith("Showing statistics for pthread"):
            main = line.split()[-1] in ("default", "main", "bgpd")
            continue
        f = line.split()
        if main and len(f) >= 11 and f[0].isdigit() and f[2].isdigit():
            col = 4 if cpu else 6
            longest = max(longest, (int(f[col]), f[-1]))
            if f[-1].startswith("fare_"):
                own = max(own, (int(f[col]), f[-1]))
    return (longest[0] / 1000, longest[1]), (own[0] / 1000, own[1])


def _start_recorder(router, cmd):
    "cmd in the background in router's namespace, a second to get going: its pid"
    pid = router.run("{} & echo $!".format(cmd)).strip()
    time.sleep(1)
    return pid


def start_monitor(logdir, router, name):
    """Start `ip -ts monitor nexthop route` in router's namespace; returns
    (file, pid). A large socket buffer: a reweighting may be a burst of
    one message per route."""
    mon = os.path.join(logdir, "{}-monitor-{}.txt".format(router.name, name))
    return mon, _start_recorder(router, "ip -rcvbuf 16777216 -ts monitor nexthop route >{} 2>&1"
                                .format(mon))


def start_bgp_capture(logdir, router, name):
    """Start dumpcap on every interface of router's namespace, BGP (TCP
    port 179) only; returns (file, pid). The kernel's receive timestamps
    of the UPDATEs tell when BGP delivered a change, beside the kernel
    events of `ip -ts monitor` (start_monitor())."""
    cap = os.path.join(logdir, "{}-bgp-{}.pcapng".format(router.name, name))
    return cap, _start_recorder(router, "dumpcap -q -i any -f 'tcp port 179' -B 64 -w {} "
                                ">/dev/null 2>&1".format(cap))


def bgp_updates_received(router, cap, t0):
    """UPDATE messages the router received after wall time t0 in a
    capture of start_bgp_capture(): {"updates": their number, "last":
    seconds from t0 to the packet of the last one}."""
    ev = {"updates": 0, "last": None}
    out = router.run("tshark -n -r {} -Y 'sll.pkttype == 0 && bgp.type == 2' -T fields "
                     "-e frame.time_epoch -e bgp.type 2>/dev/null".format(cap))
    for line in out.splitlines():
        f = line.split("\t")
        if len(f) < 2:
            continue
        t = float(f[0])
        if t < t0:
            continue
        ev["updates"] += f[1].split(",").count("2")
        ev["last"] = t - t0
    return ev


def kernel_events(path, t0, t1=None):
    """Kernel events after wall time t0 (and before t1) in an `ip -ts
    monitor` file:
    {"nexthop": nexthop object events, "route": route events, "last": time
    of the last one in seconds after t0, "lost": whether the monitor lost
    messages}. zebra deletes an unused nexthop group seconds after the
    routes have left it: counted, but not the last change."""
    ev = {"nexthop": 0, "route": 0, "last": None, "lost": False}
    with open(path) as f:
        for line in f:
            m = re.match(r"\[(\S+)\] (.*)", line)
            if not m:
                ev["lost"] = ev["lost"] or "No buffer space" in line
                continue
            t = datetime.datetime.fromisoformat(m.group(1)).timestamp()
            if t < t0 or (t1 is not None and t >= t1):
                continue
            nexthop = re.match(r"(Deleted )?id \d+ ", m.group(2))
            ev["nexthop" if nexthop else "route"] += 1
            if not m.group(2).startswith("Deleted id"):
                ev["last"] = t - t0
    return ev


def kernel_weights_by_group(router, ipv6=False):
    """The weights the kernel gives the benchmark's BGP routes (10.2xx.*,
    or 2001:db8:2::* with ipv6), one entry per nexthop group: [(routes
    using it, {device: weight})]. One dump of the nexthop objects, and the
    routes counted per group in the router's namespace, whatever their
    number."""
    members, devs = {}, {}
    for line in router.run("ip nexthop show").splitlines():
        m = re.match(r"id (\d+) group (\S+)", line)
        if m:
            members[m.group(1)] = [(x.split(",") + ["1"])[:2] for x in m.group(2).split("/")]
            continue
        m = re.match(r"id (\d+) via \S+ dev (\S+)", line)
        if m:
            devs[m.group(1)] = m.group(2)
    # counted in the router's namespace: the library logs every command's
    # output, and 100,000 routes would be 30 MB of log per call
    match = ('index($1, "2001:db8:2::") == 1' if ipv6 else '$1 ~ /^10\\.2[0-9][0-9]\\./')
    counts = {}
    out = router.run("ip -{} route show proto bgp | awk '{} && $2 == \"nhid\" {{ n[$3]++ }} "
                     "END {{ for (i in n) print i, n[i] }}'".format(6 if ipv6 else 4, match))
    for line in out.splitlines():
        nhid, count = line.split()
        counts[nhid] = int(count)
    return [(c, {devs.get(i, "?"): int(x) for i, x in members.get(nhid, [])})
            for nhid, c in counts.items()]


def add_prefix_host(router):
    """A host behind a veth pair (this kernel has no dummy interfaces),
    192.0.2.2 on fare-h's 192.0.2.0/24 and 2001:db8:ffff::2 on its
    2001:db8:ffff::/64: the next hop of the prefixes the router installs
    with sharpd ("sharp install routes ... nexthop 192.0.2.2")."""
    router.run("ip link add fare-h type veth peer name fare-h-peer && "
               "ip link set fare-h-peer up && ip link set fare-h up && "
               "ip address add 192.0.2.1/24 dev fare-h && "
               "ip address add 2001:db8:ffff::1/64 dev fare-h nodad")


# the IPv4 (SHARP_ROUTES6: IPv6) routes sharpd installed in a router's
# kernel (zebra's protocol 194), whatever BGP brought beside them
SHARP_ROUTES = "ip -4 route show proto 194 | grep -c '^[0-9]'"
SHARP_ROUTES6 = "ip -6 route show proto 194 | grep -c '^[0-9a-f]'"


def kill_every_bgpd(tgen):
    """SIGKILL every router's bgpd (zebra and sharpd keep running)."""
    for router in tgen.routers().values():
        router.run("kill -9 $(cat /var/run/frr/bgpd.pid) 2>/dev/null")


def bgp_route_count(router, ipv6=False):
    """The IPv4 (or IPv6) BGP routes in the router's kernel (one per
    prefix, however many lines its next hops take)."""
    return int(router.run("ip -{} route show proto bgp | grep -c '^[0-9a-f]'".format(
        6 if ipv6 else 4)).strip() or 0)


def restart_every_bgpd(tgen, variant, config_of, emptied, order=None):
    """Kill every bgpd, wait until the kernels of the routers named in
    `emptied` hold no BGP route, then start every bgpd with
    config_of(name, variant) (written to the log directory, read with
    `vtysh -f`), in the order of the names in `order` (default: the
    topology's); return the monotonic time of the start. A session comes
    up as soon as both ends have their neighbor line, while `vtysh -f`
    may still be reading the rest: an inbound policy read after that asks
    the neighbor for its routes again (ROUTE-REFRESH), so a router whose
    neighbors have inbound policies goes after them."""
    kill_every_bgpd(tgen)
    for name in emptied:
        router = tgen.gears[name]
        assert wait_for(lambda: bgp_route_count(router), 0, count=180) == 0, name
    t = time.monotonic()
    routers = tgen.routers()
    for name in order or list(routers):
        router = routers[name]
        path = os.path.join(tgen.logdir, "configs", "{}-{}.conf".format(name, variant))
        with open(path, "w") as f:
            f.write(config_of(name, variant))
        router.net.startRouterDaemons(["bgpd"])
        router.cmd("vtysh -f " + path)
    return t
