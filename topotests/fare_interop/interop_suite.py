# SPDX-License-Identifier: GPL-2.0-or-later
"""
interop_suite.py: the interoperability topotest of test_fare_interop.py
and test_fare_interop_as4.py, once per AS number plan: suite(as4) returns
setup_module, teardown_module and the tests, for the test module to take
into its namespace.

The 2-octet plan is the one test_fare_interop.py describes; the 4-octet
plan (RFC 6793; RFC 7938 recommends the private range 4200000000 and up
for large fabrics) maps every AS n of it to 4200000000 + (n - 65000), so
leaf2 is 4200000102 and its Path Bandwidth's Global Administrator reads
4200000102 mod 2^16 = 60006 (FARE-1). The configuration files hold the
2-octet plan; the 4-octet run rewrites their AS numbers as it loads them.
"""

import json
import os
import re
import shutil
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import Topogen, get_topogen
from fare.common import (
    DAEMONS_FARE,
    DAEMONS_PLAIN,
    GBPS,
    kernel_weights,
    tgen_or_skip,
    vtysh_json,
    wait_for,
    wait_json,
)
from fare.fabric import Topology


def suite(as4):
    "The topotest with 2-octet (as4 False) or 4-octet (as4 True) AS numbers."


    LEAF_SPINES = {1: (1, 2, 3, 4, 5), 2: (1, 2, 3, 4, 5), 3: (1, 2)}
    def asn(n):
        "AS n of the 2-octet plan in this run's plan."
        return 4200000000 + n - 65000 if as4 else n

    def ga(n):
        "The Global Administrator a writer of AS n (2-octet plan) puts in (FARE-1)."
        return asn(n) & 0xFFFF

    # spine1 is AS 65001 in a confederation of identifier 65500: the leaves
    # see 65500 (a confederation border); spine2 meets leaf3 as 65202
    # (`neighbor local-as 65202 no-prepend replace-as`), everyone else as
    # 65002. Their values must be fresh all the same (FARE-7).
    SPINE_AS = {j: asn(65500 if j == 1 else 65000 + j) for j in range(1, 6)}
    LEAF_AS = {i: asn(65100 + i) for i in range(1, 4)}

    def seen_as(leaf, spine):
        "The AS a leaf's session with a spine runs with."
        return asn(65202) if (leaf, spine) == (3, 2) else SPINE_AS[spine]

    def conf_text(path):
        "A configuration file of this directory in this run's AS plan."
        with open(path) as f:
            text = f.read()
        return re.sub(r"\b65(\d{3})\b", lambda m: str(asn(int(m.group(0)))), text)

    def conf_file(tgen, name, filename):
        "conf_text of name/filename, written into the run's log directory."
        out = os.path.join(tgen.logdir, "{}-{}".format(name, filename))
        with open(out, "w") as f:
            f.write(conf_text(os.path.join(CWD, name, filename)))
        return out
    NON_FARE_SPINES = (3, 4, 5)  # BIRD, GoBGP, FRR without the module
    STALE_REASON = "a path has a stale Path Bandwidth (FARE-7)"
    GOBGP_HOST, GOBGP_PORT = "127.0.0.1", 50051  # gobgpd's gRPC API, in spine4's namespace


    def addr(leaf, spine, side):
        "Address of a leaf-spine link: side 1 = the leaf, 2 = the spine."
        return "10.{}.{}.{}".format(leaf, spine, side)


    def prefix(leaf):
        return "172.16.{}.0/24".format(leaf)


    TOPOLOGY = Topology()
    TOPOLOGY.router(*("leaf{}".format(i) for i in LEAF_SPINES))
    TOPOLOGY.router(*("spine{}".format(j) for j in SPINE_AS))
    for i, spines in LEAF_SPINES.items():
        for j in spines:
            TOPOLOGY.link("leaf{}".format(i), "spine{}".format(j), "to-s{}".format(j),
                          "to-l{}".format(i))


    def _rundir(tgen, name):
        return os.path.join(tgen.logdir, name)


    def _addresses(router, spine):
        "BIRD and GoBGP have no zebra: address their interfaces directly."
        for i, spines in LEAF_SPINES.items():
            if spine in spines:
                ifname = "to-l{}".format(i)
                router.cmd_raises("ip addr add {}/30 dev {}".format(addr(i, spine, 2), ifname))
                router.cmd_raises("ip link set dev {} up".format(ifname))


    def _start_bird(tgen):
        """spine3: bird -c CONF -s SOCK -P PID, all under its log directory (not
        the system's /etc/bird, /run/bird)."""
        router, d = tgen.gears["spine3"], _rundir(tgen, "spine3")
        _addresses(router, 3)
        conf = conf_text(os.path.join(CWD, "spine3", "bird.conf")).replace("@LOGDIR@", d)
        with open(os.path.join(d, "bird.conf"), "w") as f:
            f.write(conf)
        router.cmd_raises(
            "bird -c {0}/bird.conf -s {0}/bird.ctl -P {0}/bird.pid".format(d)
        )


    def _start_gobgp(tgen):
        "spine4: gobgpd in the background, its gRPC API on the namespace's loopback."
        router, d = tgen.gears["spine4"], _rundir(tgen, "spine4")
        _addresses(router, 4)
        router.cmd_raises(
            "gobgpd -f {1} -t toml -p --api-hosts {2}:{3} --pprof-disable "
            "> {0}/gobgpd.log 2>&1 & echo $! > {0}/gobgpd.pid".format(d, conf_file(tgen, "spine4", "gobgpd.toml"), GOBGP_HOST, GOBGP_PORT)
        )


    def _stop_non_frr(tgen):
        for name, pidfile in (("spine3", "bird.pid"), ("spine4", "gobgpd.pid")):
            path = os.path.join(_rundir(tgen, name), pidfile)
            if os.path.exists(path):
                tgen.gears[name].cmd("kill $(cat {}) 2>/dev/null".format(path))


    def birdc(tgen, cmd):
        return tgen.gears["spine3"].cmd("birdc -s {}/bird.ctl {}".format(_rundir(tgen, "spine3"), cmd))


    def gobgp(tgen, cmd):
        return tgen.gears["spine4"].cmd("gobgp -u {} -p {} {}".format(GOBGP_HOST, GOBGP_PORT, cmd))


    def setup_module(mod):
        for tool in ("bird", "birdc", "gobgpd", "gobgp"):
            assert shutil.which(tool), "{} not found: install bird2 and gobgpd (scripts/install-deps.sh)".format(tool)
        tgen = Topogen(TOPOLOGY.build_topo, mod.__name__)
        tgen.start_topology()
        # the non-FRR spines first, so that the leaves' first connects succeed
        _start_bird(tgen)
        _start_gobgp(tgen)
        for name in ("leaf1", "leaf2", "leaf3", "spine1", "spine2", "spine5"):
            router = tgen.gears[name]
            daemons = DAEMONS_PLAIN if name == "spine5" else DAEMONS_FARE
            router.load_frr_config(conf_file(tgen, name, "frr.conf"), daemons)
            tgen.start_router(router)


    def teardown_module(_mod):
        tgen = get_topogen()
        _stop_non_frr(tgen)
        tgen.stop_topology()


    def _fare_view(router, pfx):
        j = vtysh_json(router, "show bgp ipv4 fare {} json".format(pfx))
        return j.get("prefixes", {}).get(pfx)


    def _bgp_paths(router, pfx):
        "{peer address: (AS path, extended communities string)} of a prefix."
        j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(pfx))
        return {
            p["peer"]["peerId"]: (p["aspath"]["string"], p.get("extendedCommunity", {}).get("string"))
            for p in j.get("paths", [])
        }


    def _multipaths(router, pfx):
        "Peers of the best path and its equal-cost multipaths."
        j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(pfx))
        return sorted(
            p["peer"]["peerId"]
            for p in j.get("paths", [])
            if p.get("multipath") or p.get("bestpath", {}).get("overall")
        )


    def _gobgp_rib(tgen, pfx):
        "GoBGP's paths of a prefix, from `gobgp global rib -j`."
        out = gobgp(tgen, "global rib -a ipv4 {} -j".format(pfx))
        try:
            return json.loads(out).get(pfx, [])
        except ValueError:
            return [{"neighbor-ip": None, "attrs": [], "_unparsed": out}]


    def _gobgp_ecs(path):
        "Extended communities (attribute type 16) of a GoBGP path, [] if none."
        return [ec for a in path["attrs"] if a["type"] == 16 for ec in a["value"]]


    def _gobgp_aspath(path):
        return [asn for a in path["attrs"] if a["type"] == 2 for seg in a["as_paths"] for asn in seg["asns"]]


    def test_sessions_established():
        "Every leaf session is Established: FRR+FARE, BIRD, GoBGP, plain FRR spines."
        tgen = tgen_or_skip()
        for i, spines in LEAF_SPINES.items():
            leaf = tgen.gears["leaf{}".format(i)]
            peers = {addr(i, j, 2): {"remoteAs": seen_as(i, j), "state": "Established"} for j in spines}
            res = wait_json(leaf, "show bgp summary json", {"ipv4Unicast": {"peers": peers}}, count=90)
            assert res is None, "leaf{}: {}\nBIRD:\n{}\nGoBGP:\n{}".format(
                i, res, birdc(tgen, "show protocols"), gobgp(tgen, "neighbor"))


    def test_routes_cross_unchanged():
        """leaf1 has leaf2's prefix over all 5 spines as equal-cost paths; the
        non-FARE spines pass leaf2's community on unchanged (PB:65102:max,
        FARE-2), the FARE spines re-stamp it with their AS and value (FARE-5)."""
        tgen = tgen_or_skip()
        leaf1 = tgen.gears["leaf1"]
        pfx = prefix(2)
        expected = {addr(1, j, 2): ("{} {}".format(SPINE_AS[j], LEAF_AS[2]), "PB:{}:max".format(ga(65102)))
                    for j in NON_FARE_SPINES}
        expected[addr(1, 1, 2)] = ("{} {}".format(SPINE_AS[1], LEAF_AS[2]),
                                   "PB:{}:800.000 Gbps".format(ga(65500)))
        expected[addr(1, 2, 2)] = ("{} {}".format(SPINE_AS[2], LEAF_AS[2]),
                                   "PB:{}:800.000 Gbps".format(ga(65002)))
        got = wait_for(lambda: _bgp_paths(leaf1, pfx), expected, count=60)
        assert got == expected
        five = sorted(addr(1, j, 2) for j in SPINE_AS)
        assert wait_for(lambda: _multipaths(leaf1, pfx), five) == five


    def test_non_fare_spines_pass_community_unchanged():
        """BIRD and GoBGP hold leaf2's community as leaf2 sent it (FARE-1):
        type 0x00, sub-type 0x30, AS 65102, the float FLT_MAX (0x7f7fffff =
        2139095039); test_routes_cross_unchanged sees them send it on as is."""
        tgen = tgen_or_skip()
        out = birdc(tgen, "show route {} all".format(prefix(2)))
        assert "\tBGP.ext_community: (unknown 0x30, {}, 2139095039)\n".format(ga(65102)) in out, out
        paths = _gobgp_rib(tgen, prefix(2))
        from_leaf2 = [p for p in paths if p["neighbor-ip"] == addr(2, 4, 1)]
        assert len(from_leaf2) == 1, paths
        assert _gobgp_ecs(from_leaf2[0]) == [{"type": 0, "subtype": 0x30, "value": "{}:2139095039".format(ga(65102))}]


    def _weighted(router, pfx):
        """A prefix's FARE view: wcmp, reason and per peer (transitive state,
        received value as text, w in Gb/s, weight)."""
        v = _fare_view(router, pfx)
        if not v:
            return v
        return {
            "wcmp": v["wcmp"],
            "reason": v["reason"],
            "paths": {
                p["peer"]: (p["transitive"]["state"], p["transitive"].get("bytesPerSecText"),
                            p["pathBandwidthBytesPerSec"] / GBPS, p["weight"])
                for p in v["paths"]
            },
        }


    WEIGHTED = "weighted by Path Bandwidth"


    def test_fare_paths_leaf1_to_leaf3():
        """FARE-4: leaf1 -> 172.16.3.0/24 over spine1 and spine2 only, each
        advertising 800G (FARE-5, re-stamped: fresh): min(400, 800) :
        min(800, 800) = 1:2 in show and in the kernel."""
        tgen = tgen_or_skip()
        leaf1 = tgen.gears["leaf1"]
        exp = {"wcmp": True, "reason": WEIGHTED, "paths": {
            addr(1, 1, 2): ("present", "800.000 Gbps", 400.0, 1),
            addr(1, 2, 2): ("present", "800.000 Gbps", 800.0, 2)}}
        assert wait_for(lambda: _weighted(leaf1, prefix(3)), exp) == exp
        kexp = {addr(1, 1, 2): 1, addr(1, 2, 2): 2}
        assert wait_for(lambda: kernel_weights(leaf1, prefix(3), key="gateway"), kexp) == kexp


    def test_fare_paths_leaf3_to_leaf1():
        """FARE-5 at spine1: one path from leaf1, w = min(400, max) = 400G,
        re-advertised with AS 65001; spine2 800G. FARE-4 at leaf3:
        min(800, 400) : min(800, 800) = 1:2 in show and in the kernel."""
        tgen = tgen_or_skip()
        spine1, leaf3 = tgen.gears["spine1"], tgen.gears["leaf3"]
        exp = {"prefixes": {prefix(1): {"wcmp": True, "advertised": {
            "transitive": "replace", "transitiveBytesPerSec": 400 * GBPS}}}}
        assert wait_json(spine1, "show bgp ipv4 fare {} json".format(prefix(1)), exp) is None
        exp = {"wcmp": True, "reason": WEIGHTED, "paths": {
            addr(3, 1, 2): ("present", "400.000 Gbps", 400.0, 1),
            addr(3, 2, 2): ("present", "800.000 Gbps", 800.0, 2)}}
        assert wait_for(lambda: _weighted(leaf3, prefix(1)), exp) == exp
        kexp = {addr(3, 1, 2): 1, addr(3, 2, 2): 2}
        assert wait_for(lambda: kernel_weights(leaf3, prefix(1), key="gateway"), kexp) == kexp
        assert _bgp_paths(leaf3, prefix(1)) == {
            addr(3, 1, 2): ("{} {}".format(SPINE_AS[1], LEAF_AS[1]), "PB:{}:400.000 Gbps".format(ga(65500))),
            addr(3, 2, 2): ("{} {}".format(asn(65202), LEAF_AS[1]), "PB:{}:800.000 Gbps".format(ga(65202)))}


    def test_fresh_values_are_not_stale():
        """FARE-7 freshness has no false positives: spine1 takes leaf2's own
        origination value (Global Administrator 65102 = its neighbor's AS) as
        present; leaf3 weighs leaf2's prefix 800G:800G = 1:1."""
        tgen = tgen_or_skip()
        spine1, leaf3 = tgen.gears["spine1"], tgen.gears["leaf3"]
        exp = {"wcmp": True, "reason": WEIGHTED, "paths": {
            addr(2, 1, 1): ("present", "max", 800.0, 1)}}
        assert wait_for(lambda: _weighted(spine1, prefix(2)), exp) == exp
        exp = {"wcmp": True, "reason": WEIGHTED, "paths": {
            addr(3, 1, 2): ("present", "800.000 Gbps", 800.0, 1),
            addr(3, 2, 2): ("present", "800.000 Gbps", 800.0, 1)}}
        assert wait_for(lambda: _weighted(leaf3, prefix(2)), exp) == exp
        kexp = {addr(3, 1, 2): 1, addr(3, 2, 2): 1}
        assert wait_for(lambda: kernel_weights(leaf3, prefix(2), key="gateway"), kexp) == kexp


    # -- the freshness check (SPEC section 5, FARE-7) ---------------------------


    @pytest.mark.parametrize("leaf,dest", [(1, 2), (2, 1)])
    def test_stale_paths_fall_back_to_ecmp(leaf, dest):
        """FARE-7 freshness: the paths via BIRD, GoBGP and FRR without the
        module carry the origin leaf's AS, not the neighbor's: stale -> the
        prefix is on plain ECMP (5 next hops of weight 1 in the kernel), the
        reason is shown, nothing transitive is re-advertised; the FARE spines'
        paths are fresh ("present")."""
        tgen = tgen_or_skip()
        router = tgen.gears["leaf{}".format(leaf)]
        pfx = prefix(dest)
        # via spine1: min(400, max) for leaf1's prefix, min(800, max) otherwise
        s1 = 400 if dest == 1 else 800
        # stale: last written by the origin leaf, not by spine3/4/5
        paths = {addr(leaf, j, 2): {"transitive": {"state": "stale", "writtenByAs": ga(65100 + dest)},
                                    "weight": 0} for j in NON_FARE_SPINES}
        paths[addr(leaf, 1, 2)] = {"transitive": {"state": "present", "bytesPerSec": s1 * GBPS}, "weight": 0}
        paths[addr(leaf, 2, 2)] = {"transitive": {"state": "present", "bytesPerSec": 800 * GBPS}, "weight": 0}
        expected = {"wcmp": False, "reason": STALE_REASON, "advertised": {"transitive": "strip"},
                    "paths": paths}

        def view():
            v = _fare_view(router, pfx)
            if not v:
                return v
            out = {k: v.get(k) for k in ("wcmp", "reason")}
            out["advertised"] = {"transitive": v.get("advertised", {}).get("transitive")}
            out["paths"] = {}
            for p in v.get("paths", []):
                t = {"state": p["transitive"]["state"]}
                if t["state"] == "present":
                    t["bytesPerSec"] = p["transitive"]["bytesPerSec"]
                if t["state"] == "stale":
                    t["writtenByAs"] = p["transitive"].get("writtenByAs")
                out["paths"][p["peer"]] = {"transitive": t, "weight": p["weight"]}
            return out

        got = wait_for(view, expected, count=30)
        assert got == expected
        kexp = {addr(leaf, j, 2): 1 for j in SPINE_AS}
        got = wait_for(lambda: kernel_weights(router, pfx, key="gateway"), kexp, count=30)
        assert got == kexp, "leaf{} kernel {}: {} != {}".format(leaf, pfx, got, kexp)


    def test_stale_value_not_passed_on():
        """FARE-7 strip, seen by the receivers: leaf1 advertises its best path
        for leaf2's prefix to the spines without any Path Bandwidth (FRR and
        GoBGP spines show it; the spine the best path came from drops it for
        its own AS in the path, BIRD keeps only its best)."""
        tgen = tgen_or_skip()
        leaf1 = tgen.gears["leaf1"]
        pfx = prefix(2)
        j = vtysh_json(leaf1, "show bgp ipv4 unicast {} json".format(pfx))
        best = [p["peer"]["peerId"] for p in j["paths"] if p.get("bestpath", {}).get("overall")]
        assert len(best) == 1, j
        best_spine = int(best[0].split(".")[2])
        aspath = "{} {} {}".format(LEAF_AS[1], SPINE_AS[best_spine], LEAF_AS[2])
        for spine in (1, 2, 5):
            if spine == best_spine:
                continue
            router, from_leaf1 = tgen.gears["spine{}".format(spine)], addr(1, spine, 1)
            exp = {from_leaf1: (aspath, None)}
            got = wait_for(lambda: {k: v for k, v in _bgp_paths(router, pfx).items() if k == from_leaf1}, exp)
            assert got == exp, "spine{}: {}".format(spine, got)
        if best_spine != 4:
            def gobgp_from_leaf1():
                return [(" ".join(str(a) for a in _gobgp_aspath(p)), _gobgp_ecs(p))
                        for p in _gobgp_rib(tgen, pfx) if p["neighbor-ip"] == addr(1, 4, 1)]
            exp = [(aspath, [])]
            assert wait_for(gobgp_from_leaf1, exp) == exp


    def test_stale_counted():
        """counters.staleValue (FARE-7) counts the stale values on leaf1 and
        leaf2; none on leaf3, spine1, spine2, which only have FARE neighbors
        (every value they get was re-stamped by the sender)."""
        tgen = tgen_or_skip()
        for name in ("leaf1", "leaf2"):
            c = vtysh_json(tgen.gears[name], "show bgp fare json").get("counters", {})
            assert c.get("staleValue", 0) > 0, "{}: {}".format(name, c)
        for name in ("leaf3", "spine1", "spine2"):
            c = vtysh_json(tgen.gears[name], "show bgp fare json").get("counters", {})
            assert c.get("staleValue") == 0, "{}: {}".format(name, c)

    return {k: v for k, v in locals().items()
            if k.startswith("test_") or k in ("setup_module", "teardown_module")}
