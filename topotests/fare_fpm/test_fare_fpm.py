#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_fpm.py: FARE's weights reach a switch data plane through zebra's
FPM (dplane_fpm_nl, as SONiC's fpmsyncd reads it) exactly (WP-3, FARE-4).

    r2 (AS 65002) --1000G-- r1 (AS 65001) --777G-- r3 (AS 65003)

r2 and r3 originate 172.16.9.0/24 and 2001:db8:9::/64 (both: weighted
ECMP); r2 alone originates 172.16.2.0/24 and 2001:db8:2::/64 (a single
path). The link bandwidths are zebra's interface `bandwidth` (FARE-3), so
a test changes them at runtime (decreases: they apply at once, WP-7).
r1 runs `zebra -M dplane_fpm_nl` with `fpm address 127.0.0.1 port 2620`,
and fare.fpm_listener in its namespace as the FPM server: it decodes every
netlink message zebra sends (RTM_NEWROUTE/DELROUTE, RTM_NEWNEXTHOP/
DELNEXTHOP) and keeps the latest state per prefix and nexthop id. r1's
FARE may use 16-bit weights (bgp fare wcmp max-weight and max-members
65535). Each step asserts the exact weights that arrive over FPM, equal to
those the kernel holds (`ip route`, `ip nexthop`, and the kernel's own
16-bit group weights over netlink), equal to FARE's and to the values
computed here from the configured bandwidths:

1. FPM with nexthop groups, 16-bit weights (zebra detects that the kernel
   takes them, patch 0009; FARE's weights go unscaled, patches 0003/0015):
   1000G:777G arrives as a group 1000:777, the high byte in weight_high;
   the single path as a route whose nexthop id is a plain nexthop.
2. to-r3 down to 301G: the new group 1000:301 arrives.
3. `no fpm use-next-hop-groups` (zebra reconnects and sends all again):
   routes carry RTA_MULTIPATH, whose rtnh_hops has 8 bits, so zebra scales
   each weight to 255 * w / max (patch 0018): 1000:301 arrives as 255:76
   while the kernel keeps 1000:301; a single path as RTA_GATEWAY/RTA_OIF.
   to-r3 down to 173G: 255:44 arrives (the kernel 1000:173).
4. `fpm use-next-hop-groups` and `no zebra nexthop kernel enable`: the
   width in force is 8 bits; FARE computes its best weights within 255
   (WP-3) and zebra sends them in nexthop groups, weight_high 0, as the
   kernel holds them (routes without groups there). to-r3 down to 97G: the
   new 8-bit group arrives.
5. The module's groups with FPM without groups: `no fpm
   use-next-hop-groups` and `zebra nexthop kernel enable` again (16 bits
   in force), then `bgp fare nexthop-groups`: the kernel's routes are on
   the module's groups. to-r3 down to 71G, and back at 97G after its
   hold-down: each time the module replaces each group in place (same id,
   replacedInPlace one more), the kernel's group holds 1000:71 (1000:97),
   and FPM gets every route of the group again with RTA_MULTIPATH 255:18
   (255:24): zebra installs the routes of a replaced group again while FPM
   takes them expanded (patch 0025; before it, FPM kept the old weights).
   It comes last: zebra keeps routes on the module's group ids once the
   command is off (a route whose own next hops equal a group's finds that
   group), which the steps before do not expect.

There is no other way to get 8-bit nexthop-group weights on this kernel
(Linux 6.12 and later): zebra has no option to turn 16-bit weights off
(--nexthop-weight-16-bit only turns them on, and patch 0009 detects the
kernel's). On an older kernel zebra says 8-bit and FARE keeps within 255
as in step 4, with kernel nexthop groups; not testable here.
"""

import json
import os
import shutil
import sys
from fractions import Fraction
from math import gcd

import pytest

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import (fare_prefix, frr_release, kernel_weights, kernel_weights_wide, program,
                         start_fabric, tgen_or_skip, vtysh_json, wait_for)
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

ECMP = {"ipv4": "172.16.9.0/24", "ipv6": "2001:db8:9::/64"}
SINGLE = {"ipv4": "172.16.2.0/24", "ipv6": "2001:db8:2::/64"}
BW_R2 = 1000
FABRIC = Fabric({"r1": 65001, "r2": 65002, "r3": 65003},
                [("r1", "r2", BW_R2), ("r1", "r3", 777)],
                originate={"r2": list(ECMP.values()) + list(SINGLE.values()),
                           "r3": list(ECMP.values())},
                fare_lines={"r1": [" bgp fare", " bgp fare wcmp max-weight 65535",
                                   " bgp fare wcmp max-members 65535"]},
                link_config="interface")

FPM = {}



def config_of(name):
    "r1's zebra feeds FPM, with nexthop groups (zebra's default)."
    lines = FABRIC.config(name).split("\n")
    if name == "r1":
        lines[2:2] = ["fpm address 127.0.0.1 port 2620", "!"]
    return "\n".join(lines)


def daemons_of(name):
    return [(TopoRouter.RD_ZEBRA, "-M dplane_fpm_nl" if name == "r1" else None),
            (TopoRouter.RD_BGP, "-M fare")]


def _start_listener(tgen):
    "The FPM server in r1's namespace, before zebra starts."
    os.makedirs(os.path.join(tgen.logdir, "r1"), exist_ok=True)
    FPM["state"] = os.path.join(tgen.logdir, "r1", "fpm-state.json")
    FPM["log"] = os.path.join(tgen.logdir, "r1", "fpm-listener.log")
    FPM["err"] = os.path.join(tgen.logdir, "r1", "fpm-listener.err")
    FPM["proc"] = tgen.gears["r1"].popen(program("fpm_listener") + [FPM["state"]],
                                         stdout=open(FPM["log"], "w"),
                                         stderr=open(FPM["err"], "w"))
    assert wait_for(lambda: os.path.exists(FPM["state"]), True, count=40, wait=0.25)


def setup_module(mod):
    start_fabric(mod, FABRIC, config_of, daemons_of=daemons_of, prepare=_start_listener)


def teardown_module(_mod):
    # zebra first: FRR 10.7.1's zebra can hang at exit when its FPM peer
    # goes away just before (the FPM pthread's reconnect waits on the main
    # thread's event loop while the main thread joins that pthread), and
    # the topotest then kills it with SIGBUS and reports a core
    get_topogen().stop_topology()
    if "proc" in FPM:
        FPM["proc"].kill()
        FPM["proc"].wait()


# --- what arrived over FPM ---------------------------------------------------

def fpm_state():
    with open(FPM["state"]) as f:
        return json.load(f)


def fpm_route(prefix, key="ifname", state=None):
    """(form, {key: weight}) of `prefix` as zebra sent it over FPM: form
    "nhg" (RTA_NH_ID of a group), "nexthop" (RTA_NH_ID of one nexthop),
    "multipath" (RTA_MULTIPATH) or "single" (RTA_GATEWAY/RTA_OIF); key
    "ifname" or "gateway". (None, {}) while absent."""
    state = state or fpm_state()
    rt = state["routes"].get(prefix)
    if rt is None:
        return None, {}
    if "nhId" in rt:
        nh = state["nexthops"].get(str(rt["nhId"]))
        if nh is None:
            return "nhg", {}
        if "group" in nh:
            return "nhg", {state["nexthops"].get(str(m["id"]), {}).get(key): m["weight"]
                           for m in nh["group"]}
        return "nexthop", {nh.get(key): 1}
    if "multipath" in rt:
        return "multipath", {h.get(key): h["weight"] for h in rt["multipath"]}
    return "single", {rt.get(key): 1}


def fpm_group(prefix):
    "The FPM nexthop group of `prefix`, members as sent (weightLow/High)."
    state = fpm_state()
    return state["nexthops"][str(state["routes"][prefix]["nhId"])]["group"]


def kernel(afi, prefix, key="dev"):
    "What r1's kernel holds, nexthop-group weights read at 16 bits."
    r1 = get_topogen().gears["r1"]
    return kernel_weights_wide(r1, prefix, key=key, ipv6=afi == "ipv6")


def fare_weights(afi, prefix):
    paths = fare_prefix(get_topogen().gears["r1"], prefix, afi).get("paths", [])
    return {p["interface"]: p["weight"] for p in paths}


# --- the weights expected from the bandwidths ----------------------------------

def exact(bw):
    "16-bit: the bandwidths' ratio in lowest terms (WP-3's GCD reduction)."
    g = gcd(*bw.values())
    return {k: v // g for k, v in bw.items()}


def rtnh_scaled(weights):
    """RTA_MULTIPATH (patch 0018): above 256 each weight is scaled to
    255 * w / max, at least 1; rtnh_hops = that - 1."""
    wmax = max(weights.values())
    if wmax <= 256:
        return dict(weights)
    return {k: max(1, w * 255 // wmax) for k, w in weights.items()}


def best_8bit(bw, max_weight=255):
    """WP-3 within 8 bits, two paths: the weights in [0, max_weight] that
    maximise the throughput min over w_i > 0 of (b_i / B) / (w_i / W),
    exact ties to the smaller sum (bgpd-fare/core/fare_wcmp.h). For each
    w_a the throughput rises with w_b up to w_a * b_b / b_a and falls
    after: the best w_b is its floor or ceiling (or 0, one path only)."""
    (ka, ba), (kb, bb) = sorted(bw.items())
    total = Fraction(ba + bb)

    def throughput(wa, wb):
        return min(Fraction(b) / total * (wa + wb) / w for b, w in ((ba, wa), (bb, wb)) if w)

    cands = {(0, 1), (1, 0)}
    for wa in range(1, max_weight + 1):
        ideal = Fraction(wa * bb, ba)
        cands |= {(wa, min(max_weight, w)) for w in (int(ideal), int(ideal) + 1)}
    best = min(cands, key=lambda c: (-throughput(*c), sum(c), c.count(0)))
    return {k: w for k, w in zip((ka, kb), best) if w}


def set_r3_bandwidth(gbps):
    get_topogen().gears["r1"].vtysh_cmd(
        "configure terminal\ninterface to-r3\nbandwidth {}\n".format(gbps * 1000))


def reconfigure_fpm(r1, commands):
    """Configure r1's zebra with `commands` that toggle FPM's nexthop
    groups: zebra reconnects, and the listener starts from an empty state."""
    before = fpm_state()["connections"]
    r1.vtysh_cmd("configure terminal\n{}\n".format(commands))
    got = wait_for(lambda: fpm_state()["connections"], before + 1, count=40, wait=0.5)
    assert got == before + 1


def bandwidths(r3_gbps):
    return {"to-r2": BW_R2, "to-r3": r3_gbps}


def assert_arrives(step, form, fpm_exp, fare_exp, kernel_form):
    """Both address families: FPM carries `fpm_exp` as `form` (waited for),
    FARE computed `fare_exp` and the kernel holds it ("nhg": in a nexthop
    group, "multipath": in the route); the gateways agree with the
    kernel's. The single path arrives as one nexthop, weight 1. The
    listener's state is kept as fpm-state-STEP.json in r1's log directory."""
    for afi, prefix in ECMP.items():
        got = wait_for(lambda: fpm_route(prefix), (form, fpm_exp), count=60, wait=0.5)
        assert got == (form, fpm_exp), "{} over FPM: {}, expected {} {}".format(
            prefix, got, form, fpm_exp)
        assert fare_weights(afi, prefix) == fare_exp
        assert wait_for(lambda: kernel(afi, prefix), fare_exp, count=20, wait=0.5) == fare_exp
        r1 = get_topogen().gears["r1"]
        fam = "-6" if afi == "ipv6" else "-4"
        route = json.loads(r1.run("ip -j {} route show {}".format(fam, prefix)))[0]
        assert ("nhid" in route) == (kernel_form == "nhg"), route
        if form == kernel_form == "nhg":
            # the same nexthop group object in the kernel and over FPM
            assert route["nhid"] == fpm_state()["routes"][prefix]["nhId"]
        by_gw = kernel(afi, prefix, key="gateway")
        fpm_gw = fpm_route(prefix, key="gateway")[1]
        if form == "multipath" and fpm_exp != fare_exp:
            assert sorted(fpm_gw) == sorted(by_gw)
        else:
            assert fpm_gw == by_gw
    single = "nexthop" if form == "nhg" else "single"
    for afi, prefix in SINGLE.items():
        exp = (single, {"to-r2": 1})
        assert wait_for(lambda: fpm_route(prefix), exp, count=20, wait=0.5) == exp
        assert fpm_route(prefix, key="gateway")[1] == kernel_weights(
            get_topogen().gears["r1"], prefix, afi == "ipv6", key="gateway")
    shutil.copy(FPM["state"], FPM["state"].replace(".json", "-{}.json".format(step)))


# --- the steps ------------------------------------------------------------------

def test_fpm_connected():
    "zebra connects to the FPM server and sends its routes; the config is written back."
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    assert wait_for(lambda: fpm_state()["connections"] > 0, True, count=40, wait=0.5)
    assert wait_for(lambda: fpm_route(ECMP["ipv4"])[0], "nhg", count=60) == "nhg"
    cfg = r1.vtysh_cmd("show running-config")
    assert "\nfpm address 127.0.0.1\n" in cfg  # 2620 is the default port
    assert "no fpm use-next-hop-groups" not in cfg


def test_16bit_nexthop_groups():
    "1000G:777G arrives as a nexthop group 1000:777, exactly, high byte in weight_high."
    tgen_or_skip()
    exp = exact(bandwidths(777))
    assert exp == {"to-r2": 1000, "to-r3": 777}
    width = {"width": "16-bit", "zebraMaxWeight": 65535, "maxWeightInForce": 65535}
    r1 = get_topogen().gears["r1"]
    assert vtysh_json(r1, "show bgp fare json").get("nexthopWeights") == width
    assert_arrives("16bit", "nhg", exp, exp, "nhg")
    for prefix in ECMP.values():
        members = {m["weight"]: (m["weightHigh"], m["weightLow"]) for m in fpm_group(prefix)}
        assert members == {1000: (3, 0xe7), 777: (3, 0x08)}


def test_16bit_bandwidth_change():
    "to-r3 down to 301G: the group 1000:301 arrives."
    tgen_or_skip()
    set_r3_bandwidth(301)
    exp = exact(bandwidths(301))
    assert exp == {"to-r2": 1000, "to-r3": 301}
    assert_arrives("16bit-301G", "nhg", exp, exp, "nhg")


def test_8bit_rta_multipath():
    """no fpm use-next-hop-groups: RTA_MULTIPATH with 8-bit rtnh_hops,
    1000:301 scaled to 255:76 (the kernel keeps 1000:301); then 1000:173
    as 255:44."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    reconfigure_fpm(r1, "no fpm use-next-hop-groups")
    assert "\nno fpm use-next-hop-groups\n" in r1.vtysh_cmd("show running-config")
    fare = exact(bandwidths(301))
    assert rtnh_scaled(fare) == {"to-r2": 255, "to-r3": 76}
    assert_arrives("multipath", "multipath", rtnh_scaled(fare), fare, "nhg")
    # no nexthop objects on this connection
    assert "RTM_NEWNEXTHOP" not in fpm_state()["messages"]
    # zebra counted and logged the reduction (patch 0018)
    line = "{}: nexthop weights up to 1000 reduced to at most 255 (FPM, no nexthop group)"
    with open(os.path.join(tgen.logdir, "r1", "zebra.log")) as f:
        assert line.format(ECMP["ipv4"]) in f.read()

    set_r3_bandwidth(173)
    fare = exact(bandwidths(173))
    assert rtnh_scaled(fare) == {"to-r2": 255, "to-r3": 44}
    assert_arrives("multipath-173G", "multipath", rtnh_scaled(fare), fare, "nhg")


def test_8bit_nexthop_groups():
    """fpm use-next-hop-groups, no zebra nexthop kernel enable: 8 bits in
    force; FARE's best weights within 255 arrive in nexthop groups and
    are what the kernel holds; then to-r3 at 97G."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    reconfigure_fpm(r1, "fpm use-next-hop-groups\nno zebra nexthop kernel enable")
    width = {"width": "8-bit", "zebraMaxWeight": 255, "maxWeightInForce": 255}
    got = wait_for(lambda: vtysh_json(r1, "show bgp fare json").get("nexthopWeights"), width)
    assert got == width

    def check(gbps):
        exp = best_8bit(bandwidths(gbps))
        assert max(exp.values()) <= 255 and exp != exact(bandwidths(gbps))
        assert_arrives("8bit-{}G".format(gbps), "nhg", exp, exp, "multipath")
        for prefix in ECMP.values():
            assert all(m["weightHigh"] == 0 for m in fpm_group(prefix))

    check(173)
    set_r3_bandwidth(97)
    check(97)


def module_groups(r1):
    "{prefix family: (id, replacedInPlace)} of r1's ECMP prefixes' groups of the module ({} while none)."
    groups = {g["id"]: g for g in vtysh_json(r1, "show bgp fare nexthop-groups json").get("groups", [])}
    out = {}
    for afi, prefix in ECMP.items():
        gid = fare_prefix(r1, prefix, afi).get("nexthopGroupId")
        if gid in groups:
            out[afi] = (gid, groups[gid]["replacedInPlace"])
    return out


def test_rta_multipath_module_groups():
    """no fpm use-next-hop-groups and zebra's kernel groups again (16 bits
    in force), then bgp fare nexthop-groups: the routes are on the
    module's groups in the kernel and go to FPM with RTA_MULTIPATH.
    to-r3 down to 71G, then back at 97G (after its hold-down): each time
    the module replaces its group in place (same id), and FPM gets every
    route of it with the new weights (255:18, then 255:24), the kernel's
    group 1000:71 (1000:97). Last: zebra keeps routes on the module's
    group ids once the command is off (a route's own next hops that equal
    a group's find that group), which the steps before do not expect."""
    tgen = tgen_or_skip()
    r1 = tgen.gears["r1"]
    if frr_release(tgen) < (10, 7):
        pytest.skip("FRR {}.{}: the series has no shared nexthop groups (patch 0021)".format(
            *frr_release(tgen)))
    reconfigure_fpm(r1, "no fpm use-next-hop-groups\nzebra nexthop kernel enable")
    width = {"width": "16-bit", "zebraMaxWeight": 65535, "maxWeightInForce": 65535}
    got = wait_for(lambda: vtysh_json(r1, "show bgp fare json").get("nexthopWeights"), width)
    assert got == width
    r1.vtysh_cmd("configure terminal\nrouter bgp 65001\nbgp fare nexthop-groups\n")
    assert wait_for(lambda: sorted(module_groups(r1)), sorted(ECMP)) == sorted(ECMP)
    # a single next hop, IPv4 and IPv6, stays on zebra's own next hop: on
    # no group of the module, in bgpd's view and in the kernel's
    ids = {g["id"] for g in vtysh_json(r1, "show bgp fare nexthop-groups json")["groups"]}
    for afi, prefix in SINGLE.items():
        assert fare_prefix(r1, prefix, afi).get("nexthopGroupId") == 0, (prefix, fare_prefix(r1, prefix, afi))
        route = json.loads(r1.run("ip -j {} route show {}".format(
            "-6" if afi == "ipv6" else "-4", prefix)))[0]
        assert route.get("nhid") not in ids, (prefix, route, ids)
    for gbps in (71, 97):
        before = module_groups(r1)
        fare = exact(bandwidths(gbps))
        set_r3_bandwidth(gbps)
        # replaced in place: the same ids, once each
        after = wait_for(lambda: module_groups(r1), {a: (g, n + 1) for a, (g, n) in before.items()})
        assert after == {a: (g, n + 1) for a, (g, n) in before.items()}, (gbps, before, after)
        for afi, prefix in ECMP.items():
            route = json.loads(r1.run("ip -j {} route show {}".format(
                "-6" if afi == "ipv6" else "-4", prefix)))[0]
            assert route["nhid"] == after[afi][0], route
        assert_arrives("multipath-module-nhg-{}G".format(gbps), "multipath", rtnh_scaled(fare), fare, "nhg")
    assert rtnh_scaled(exact(bandwidths(71))) == {"to-r2": 255, "to-r3": 18}
    assert rtnh_scaled(exact(bandwidths(97))) == {"to-r2": 255, "to-r3": 24}
    assert "RTM_NEWNEXTHOP" not in fpm_state()["messages"]


def test_listener_decoded_everything():
    "No frame or message the listener could not decode (it logs and drops the connection)."
    tgen_or_skip()
    with open(FPM["err"]) as f:
        assert f.read() == ""


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
