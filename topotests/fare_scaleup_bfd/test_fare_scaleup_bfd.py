#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_scaleup_bfd.py: SPEC SUN-6, data-plane health checks per plane
with FRR's own bfdd, in a small scale-up network (fare.fabric.ScaleUp).

      s1 (AS 65001, GPU 10.0.1.1)        s2 (AS 65002, GPU 10.0.2.1)
       |  \\  \\                            /  /  |
       |   \\  +------------ p3 ----------+  /   |     healthy
       |    +--------------- p2 -------------+   |     no BFD: BGP hold time (9 s)
       +-------------------- p1 -----------------+     BFD, profile "fast"

Two servers with `bgp fare role host`, three planes; every server port is a
Y-cable of two 400G sub-ports (a, b), one unnumbered eBGP session each,
BGP timers 3/9 (ScaleUp's default), FARE's default hold-down (10 s: a
plane coming back re-enters the groups after it, WP-7), and
`bgp bestpath as-path multipath-relax` on the servers (every plane is its
own AS). Only plane p1's sessions (both ends) run BFD, with a bfdd profile
of 100 ms transmit and receive intervals and a detect multiplier of 3
(300 ms detection); p2's sessions have none.

A plane that "silently stops forwarding" is made in the plane switch's
namespace: a tc classifier on the ingress and the egress of every one of
its interfaces (clsact) drops every packet, while the links, their carrier
and the BGP configuration stay as they are. The drop is a classic BPF
program `ret #2` run with direct-action, i.e. TC_ACT_SHOT, as this needs
nothing but iproute2's tc and the kernel's cls_bpf and clsact (kernels
built without cls_matchall and act_gact, as here, cannot run the usual
`matchall action drop`; nft is not among the test dependencies).

The time from the drop to the sender's (s1's) kernel nexthop group of the
remote GPU's /32 losing the plane's members is taken from event
timestamps: `ip -ts monitor route nexthop` runs in s1's namespace before
the drop, the drop's start time is `date +%s.%N` in the same shell command
that installs it, and the events are parsed afterwards.
"""

import datetime
import json
import os
import re
import time

import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import DAEMONS_FARE, kernel_weights, report, start_fabric, tgen_or_skip, vtysh_json, wait_for
from fare.fabric import ScaleUp, gpu_prefix, plane_if, server_if

pytestmark = [pytest.mark.bgpd, pytest.mark.bfdd]

SERVERS, PLANES, SUBPORTS = 2, 3, 2
BFD_PLANE, PLAIN_PLANE, HEALTHY_PLANE = 1, 2, 3
HOLD_TIME = 9  # ScaleUp's default timers (3 9)
PROFILE = "fast"
PROFILE_CONFIG = """bfd
 profile {}
  receive-interval 100
  transmit-interval 100
  detect-multiplier 3
 !
!
""".format(PROFILE)

SENDER, RECEIVER = 1, 2
DEST = gpu_prefix(RECEIVER, 1)  # 10.0.2.1/32

# classic BPF "ret #2": with direct-action, TC_ACT_SHOT for every packet
DROP_BYTECODE = "1,6 0 0 2,"


def _bfd_server_lines():
    # the planes are different ASes: multipath across them needs relax
    # (ScaleUp does not set it)
    return [" bgp bestpath as-path multipath-relax"] + [
        " neighbor {} bfd profile {}".format(server_if(BFD_PLANE, k), PROFILE)
        for k in range(1, SUBPORTS + 1)]


def _bfd_plane_lines():
    return [" neighbor {} bfd profile {}".format(plane_if(i, k), PROFILE)
            for i in range(1, SERVERS + 1) for k in range(1, SUBPORTS + 1)]


SCALEUP = ScaleUp(
    servers=SERVERS,
    planes=PLANES,
    gpus=1,
    subports=SUBPORTS,
    gbps=400,
    extra_server_config={i: _bfd_server_lines() for i in range(1, SERVERS + 1)},
    extra_plane_config={BFD_PLANE: _bfd_plane_lines()},
)
BFD_ROUTERS = set(SCALEUP.server_names()) | {"p{}".format(BFD_PLANE)}


def plane_ifs(plane):
    "A server's interfaces to `plane`."
    return [server_if(plane, k) for k in range(1, SUBPORTS + 1)]


def switch_ifs():
    "A plane switch's interfaces (to every server's sub-ports)."
    return [plane_if(i, k) for i in range(1, SERVERS + 1) for k in range(1, SUBPORTS + 1)]


ALL_MEMBERS = {ifname: 1 for ifname in SCALEUP.server_ifs()}


def members_without(plane):
    return {i: w for i, w in ALL_MEMBERS.items() if not i.startswith("p{}".format(plane))}


def config_of(name):
    conf = SCALEUP.config(name)
    if name in BFD_ROUTERS:
        conf += PROFILE_CONFIG
    return conf


def daemons_of(name):
    if name in BFD_ROUTERS:
        return DAEMONS_FARE + [(TopoRouter.RD_BFD, None)]
    return DAEMONS_FARE


def setup_module(mod):
    start_fabric(mod, SCALEUP, config_of, daemons_of=daemons_of)


def teardown_module(_mod):
    get_topogen().stop_topology()


# -- helpers -----------------------------------------------------------------


def bfd_peers(router):
    "{interface: status} of `show bfd peers json`."
    j = vtysh_json(router, "show bfd peers json")
    if not isinstance(j, list):
        return {}
    return {p.get("interface"): p.get("status") for p in j}


def bgp_states(router, ifnames):
    j = vtysh_json(router, "show bgp neighbors json")
    return {i: j.get(i, {}).get("bgpState") for i in ifnames}


def bgp_neighbor(router, ifname):
    return vtysh_json(router, "show bgp neighbors {} json".format(ifname)).get(ifname, {})


def link_states(router, ifnames):
    "{ifname: (operstate, carrier flag LOWER_UP present)}."
    links = json.loads(router.run("ip -j link show") or "[]")
    return {
        l["ifname"]: (l.get("operstate"), "LOWER_UP" in l.get("flags", []))
        for l in links if l["ifname"] in ifnames
    }


def tc_drops(router, ifnames):
    "Packets dropped by the clsact qdisc of each interface (tc -s)."
    drops = {}
    for i in ifnames:
        out = router.run("tc -s qdisc show dev {} clsact".format(i))
        m = re.search(r"dropped (\d+)", out)
        drops[i] = int(m.group(1)) if m else None
    return drops


def tc_drop_filters(router, ifnames):
    "{interface: [directions with the drop-all bpf filter installed]}."
    have = {}
    for i in ifnames:
        have[i] = [d for d in ("ingress", "egress")
                   if "direct-action" in router.run("tc filter show dev {} {}".format(i, d))]
    return have


def sessions_up(tgen):
    "BFD up on p1's sessions (and no other), every BGP session established."
    want_bfd = {i: "up" for i in plane_ifs(BFD_PLANE)}
    for i in range(1, SERVERS + 1):
        s = tgen.gears["s{}".format(i)]
        if bfd_peers(s) != want_bfd:
            return "s{} bfd {}".format(i, bfd_peers(s))
        states = bgp_states(s, SCALEUP.server_ifs())
        if set(states.values()) != {"Established"}:
            return "s{} bgp {}".format(i, states)
    return True


def healthy(tgen):
    "Everything up, and each server's group of the remote GPU has every sub-port."
    res = sessions_up(tgen)
    if res is not True:
        return res
    for i in range(1, SERVERS + 1):
        other = SERVERS + 1 - i
        k = kernel_weights(tgen.gears["s{}".format(i)], gpu_prefix(other, 1))
        if k != ALL_MEMBERS:
            return "s{} kernel {}".format(i, k)
    return True


def wait_recovery(tgen, tag, t_restore):
    """After a drop ends: sessions back (BFD, BGP), then full kernel groups,
    which FARE's hold-down delays (WP-7: a weight increase waits, 10 s by
    default)."""
    res = wait_for(lambda: sessions_up(tgen), True, count=150, wait=0.2)
    t_sessions = time.time() - t_restore
    assert res is True, "{}: sessions not back after the drop: {}".format(tag, res)
    res = wait_for(lambda: healthy(tgen), True, count=60, wait=0.5)
    t_groups = time.time() - t_restore
    assert res is True, "{}: not recovered after the drop: {}".format(tag, res)
    report("SUN-6 {}: drop removed; BFD and BGP back after {:.1f} s, every member back in "
           "the kernel groups after {:.1f} s (FARE hold-down)".format(tag, t_sessions, t_groups))


LOG_TS_RE = re.compile(r"^(\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\.\d+) ")


def adjchange_down(router, ifnames, t0):
    """{ifname: seconds after t0} of bgpd's first `%ADJCHANGE ... Down` log
    line for each session after t0 (bgpd.log in the router's log directory)."""
    path = os.path.join(get_topogen().logdir, router.name, "bgpd.log")
    found = {}
    try:
        with open(path) as f:
            lines = f.readlines()
    except OSError:
        return found
    for line in lines:
        m = LOG_TS_RE.match(line)
        if not m or "%ADJCHANGE" not in line or " Down " not in line:
            continue
        when = datetime.datetime.strptime(m.group(1), "%Y/%m/%d %H:%M:%S.%f").timestamp()
        for i in ifnames:
            if when >= t0 and i not in found and "neighbor {}(".format(i) in line:
                found[i] = round(when - t0, 3)
    return found


def bfd_reset_reason(router):
    "The reason FARE shows for a session BFD took down, as this FRR names it."
    version = router.vtysh_cmd("show version")
    if re.search(r"FRRouting 10\.3\b", version):
        return "BGP Notification send (Cease/BFD Down)"
    return "BFD down initiated"


class RouteMonitor:
    "`ip -ts monitor route nexthop` in a router's namespace, read afterwards."

    def __init__(self, router, tag):
        tgen = get_topogen()
        self.router = router
        self.path = os.path.join(tgen.logdir, "{}-{}.monitor".format(router.name, tag))
        self.pid = None

    def start(self):
        self.pid = self.router.run(
            "ip -ts monitor route nexthop > {} 2>&1 & echo $!".format(self.path)).strip()
        time.sleep(0.5)  # subscribed before anything happens

    def stop(self):
        if self.pid:
            self.router.run("kill {}".format(self.pid))
            self.pid = None
        return self.router.run("cat {}".format(self.path))


TS_RE = re.compile(r"^\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)\]\s*(.*)$")


def _epoch(stamp):
    return datetime.datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%f").timestamp()


def nexthop_devs(router):
    "{nexthop id: set of devices} of every kernel nexthop (group or not)."
    nhs = json.loads(router.run("ip -j nexthop show") or "[]")
    single = {nh["id"]: {nh["dev"]} for nh in nhs if "dev" in nh}
    devs = dict(single)
    for nh in nhs:
        if "group" in nh:
            devs[nh["id"]] = set().union(*(single.get(m["id"], {"?"}) for m in nh["group"]))
    return devs


def route_nhid(router, prefix):
    routes = json.loads(router.run("ip -j -4 route show {}".format(prefix)) or "[]")
    return routes[0].get("nhid") if routes else None


def first_loss(events, t0, prefix, nhid, devs, gone):
    """The first monitor event at or after t0 after which `prefix`'s kernel
    route no longer forwards over any of the devices `gone`: (time, line).
    `nhid` and `devs` ({id: devices}) are the kernel state before t0; the
    events update both (a new group, a group replaced in place, the route
    moved to another group or deleted)."""
    devs = {k: set(v) for k, v in devs.items()}
    pfx = prefix.split("/")[0]
    for line in events.splitlines():
        m = TS_RE.match(line)
        if not m:
            continue
        when, text = _epoch(m.group(1)), m.group(2)
        deleted = text.startswith("Deleted ")
        body = text[len("Deleted "):] if deleted else text
        changed = False
        m_id = re.match(r"id (\d+) (.*)$", body)
        if m_id:
            nid, rest = int(m_id.group(1)), m_id.group(2)
            if deleted:
                continue  # an unused nexthop or group going away
            g = re.search(r"group (\S+)", rest)
            d = re.search(r"dev (\S+)", rest)
            if g:
                members = [int(x.split(",")[0]) for x in g.group(1).split("/")]
                devs[nid] = set().union(*(devs.get(x, {"?"}) for x in members))
            elif d:
                devs[nid] = {d.group(1)}
            changed = nid == nhid
        elif body.split(" ")[0] in (pfx, prefix):
            if deleted:
                nhid = None
            else:
                n = re.search(r"nhid (\d+)", body)
                nhid = int(n.group(1)) if n else None
            changed = True
        if changed and when >= t0:
            cur = devs.get(nhid, {"?"}) if nhid is not None else set()
            # a member this parse cannot name ("?") might be one of `gone`
            if "?" not in cur and not cur & set(gone):
                return when, line
    return None, None


def silent_drop(plane_router, ifnames):
    """Drop every packet on `ifnames` (ingress and egress) in the plane's
    namespace, links untouched; the epoch time right before and after."""
    for i in ifnames:
        plane_router.run("tc qdisc add dev {} clsact".format(i))  # no filter yet: forwards
    batch = os.path.join(get_topogen().logdir, "{}-drop.tc".format(plane_router.name))
    with open(batch, "w") as f:
        for i in ifnames:
            for d in ("ingress", "egress"):
                f.write('filter add dev {} {} bpf bytecode "{}" da\n'.format(i, d, DROP_BYTECODE))
    out = plane_router.run("date +%s.%N; tc -batch {} 2>&1; date +%s.%N".format(batch))
    lines = out.split()
    assert len(lines) == 2, "tc -batch failed: {}".format(out)
    return float(lines[0]), float(lines[1])


def restore(plane_router, ifnames):
    for i in ifnames:
        plane_router.run("tc qdisc del dev {} clsact".format(i))


def measure_plane_failure(tgen, plane, tag, wait_gone):
    """Silently drop everything at plane `plane`; the seconds from the drop
    to the sender's kernel group of DEST losing the plane's members, by
    event timestamps. Leaves the drop in place (the caller restores)."""
    sender = tgen.gears["s{}".format(SENDER)]
    switch = tgen.gears["p{}".format(plane)]
    gone = plane_ifs(plane)
    assert kernel_weights(sender, DEST) == ALL_MEMBERS
    nhid, devs = route_nhid(sender, DEST), nexthop_devs(sender)
    assert devs.get(nhid) == set(ALL_MEMBERS), "s1's group of {}: {}".format(DEST, devs.get(nhid))

    mon = RouteMonitor(sender, tag)
    mon.start()
    try:
        t0, t1 = silent_drop(switch, switch_ifs())
        # the data plane is gone, the links are not
        time.sleep(0.2)
        links_plane = link_states(switch, switch_ifs())
        links_sender = link_states(sender, gone)
        expect = wait_for(lambda: kernel_weights(sender, DEST), members_without(plane),
                          count=int(wait_gone * 5), wait=0.2)
        links_after = link_states(switch, switch_ifs())
    finally:
        events = mon.stop()
    drops = tc_drops(switch, switch_ifs())
    filters = tc_drop_filters(switch, switch_ifs())
    up = ("UP", True)
    assert set(links_plane.values()) == {up}, "p{} links during the drop: {}".format(plane, links_plane)
    assert set(links_after.values()) == {up}, "p{} links during the drop: {}".format(plane, links_after)
    assert set(links_sender.values()) == {up}, "s1 links during the drop: {}".format(links_sender)
    # every interface drops both ways; what each one counted depends on what
    # crossed it in the window (one interface may see no packet), so the
    # count is asserted for the plane as a whole
    assert filters == {i: ["ingress", "egress"] for i in switch_ifs()}, filters
    assert None not in drops.values() and sum(drops.values()) > 0, \
        "nothing dropped at p{}: {}".format(plane, drops)
    assert expect == members_without(plane), "s1's group of {} keeps p{}: {}".format(DEST, plane, expect)
    when, line = first_loss(events, t0, DEST, nhid, devs, gone)
    assert when is not None, "no event removing p{} from {}:\n{}".format(plane, DEST, events)
    report("SUN-6 {}: drop installed at {:.6f} (took {:.1f} ms), p{}'s members left s1's "
           "group at {:.6f}: {}".format(tag, t0, (t1 - t0) * 1000, plane, when, line))
    report("SUN-6 {}: s1's BGP sessions over p{} down (bgpd.log) after {} s".format(
        tag, plane, adjchange_down(sender, gone, t0)))
    report("SUN-6 {}: links stayed up during the drop (p{}: {}, s1: {}), packets dropped "
           "per p{} interface: {}".format(tag, plane, links_plane, links_sender, plane, drops))
    return when - t0


# -- tests -------------------------------------------------------------------

RESULTS = {}


def test_healthy():
    "BFD up on p1's sessions only; each server's group of the remote GPU has all 6 sub-ports, equal weights."
    tgen = tgen_or_skip()
    res = wait_for(lambda: healthy(tgen), True, count=90)
    assert res is True, res
    for i in range(1, SERVERS + 1):
        s = tgen.gears["s{}".format(i)]
        assert bfd_peers(s) == {"p1a": "up", "p1b": "up"}
        j = vtysh_json(s, "show bfd peers json")
        prof = {p["interface"]: (p.get("receive-interval"), p.get("transmit-interval"),
                                 p.get("detect-multiplier")) for p in j}
        assert prof == {"p1a": (100, 100, 3), "p1b": (100, 100, 3)}, prof
        other = SERVERS + 1 - i
        k = kernel_weights(s, gpu_prefix(other, 1))
        assert k == ALL_MEMBERS, k
        assert len(set(k.values())) == 1
        report("SUN-6 healthy: s{} -> {}: kernel weights {}, BFD {}".format(
            i, gpu_prefix(other, 1), k, bfd_peers(s)))
    p1 = tgen.gears["p{}".format(BFD_PLANE)]
    assert bfd_peers(p1) == {i: "up" for i in switch_ifs()}


def test_silent_drop_bfd_plane():
    "p1 drops silently: BFD takes its members out of s1's group in < 1 s; the session went down for BFD."
    tgen = tgen_or_skip()
    sender = tgen.gears["s{}".format(SENDER)]
    switch = tgen.gears["p{}".format(BFD_PLANE)]
    try:
        took = measure_plane_failure(tgen, BFD_PLANE, "bfd-plane", wait_gone=5)
        RESULTS["bfd"] = took
        report("SUN-6 BFD: p{} out of s1's group {:.3f} s after the drop".format(BFD_PLANE, took))
        assert took < 1.0, "BFD took {:.3f} s".format(took)
        for ifname in plane_ifs(BFD_PLANE):
            n = bgp_neighbor(sender, ifname)
            reason = (n.get("lastResetDueTo"), n.get("lastNotificationReason"))
            report("SUN-6 BFD: s1 {}: bgpState {}, lastResetDueTo {!r}, lastNotificationReason {!r}".format(
                ifname, n.get("bgpState"), reason[0], reason[1]))
            assert n.get("bgpState") != "Established"
            assert any("BFD" in (r or "") for r in reason), "s1 {} reset reason: {}".format(ifname, reason)
        j = vtysh_json(sender, "show bfd peers json")
        diag = {p.get("interface"): (p.get("status"), p.get("diagnostic")) for p in j}
        report("SUN-6 BFD: s1 BFD peers: {}".format(diag))
        assert set(bfd_peers(sender).values()) == {"down"}, diag
        # FRR 10.3: bgpd's own reason is "BGP Notification send": bgp_bfd.c
        # sets PEER_DOWN_BFD_DOWN, then sends the RFC 9384 Cease/BFD Down
        # notification, and bgp_notify_send() overwrites last_reset; the
        # planes table adds the notification, so BFD is named (SUN-6).
        # FRR 10.7 keeps PEER_DOWN_BFD_DOWN: "BFD down initiated".
        bfd_reset = bfd_reset_reason(sender)
        planes = vtysh_json(sender, "show bgp fare planes json")
        report("SUN-6 BFD: s1 `show bgp fare planes json` with p1 dropping:\n{}".format(
            json.dumps(planes, indent=1)))
        p1 = [p for p in planes["planes"] if p["plane"] == "p{}".format(BFD_PLANE)]
        assert len(p1) == 1, planes["planes"]
        assert p1[0]["state"] == "down" and p1[0]["sessionsUp"] == 0, p1
        for sess in p1[0]["sessionList"]:
            assert sess["bfd"] == "down", sess
            assert sess["lastReset"] == bfd_reset, sess
        dest = planes["destinations"][DEST]["planes"]
        assert dest["p{}".format(BFD_PLANE)] == {
            "weight": 0,
            "sharePercent": 0,
            "bandwidthBytesPerSec": 0,
            "bandwidthBytesPerSecText": dest["p{}".format(BFD_PLANE)]["bandwidthBytesPerSecText"],
            "links": {},
            "reason": "sessions down ({})".format(bfd_reset),
        }, dest
        for plane in (PLAIN_PLANE, HEALTHY_PLANE):
            assert dest["p{}".format(plane)]["sharePercent"] == 50.0, dest
    finally:
        restore(switch, switch_ifs())
    wait_recovery(tgen, "BFD", time.time())


def test_silent_drop_plain_plane():
    "p2 (no BFD) drops silently: its members stay in s1's group until the BGP hold time expires."
    tgen = tgen_or_skip()
    sender = tgen.gears["s{}".format(SENDER)]
    switch = tgen.gears["p{}".format(PLAIN_PLANE)]
    try:
        took = measure_plane_failure(tgen, PLAIN_PLANE, "plain-plane", wait_gone=HOLD_TIME + 8)
        RESULTS["hold"] = took
        for ifname in plane_ifs(PLAIN_PLANE):
            n = bgp_neighbor(sender, ifname)
            reason = (n.get("lastResetDueTo"), n.get("lastNotificationReason"))
            report("SUN-6 hold timer: s1 {}: bgpState {}, lastResetDueTo {!r}, lastNotificationReason {!r}".format(
                ifname, n.get("bgpState"), reason[0], reason[1]))
            assert "Hold Timer Expired" in (reason[1] or ""), reason
        bfd = RESULTS.get("bfd")
        report("SUN-6: a silently dropping plane out of s1's group of {}: BFD (p{}): {} s, "
               "hold timer (p{}): {:.3f} s (hold time {} s)".format(
                   DEST, BFD_PLANE, "{:.3f}".format(bfd) if bfd is not None else "n/a",
                   PLAIN_PLANE, took, HOLD_TIME))
        assert took > 5.0, "without BFD in {:.3f} s: faster than the hold time?".format(took)
        assert took < HOLD_TIME + 5, "without BFD in {:.3f} s".format(took)
    finally:
        restore(switch, switch_ifs())
    wait_recovery(tgen, "hold timer", time.time())
