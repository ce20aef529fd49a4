# SPDX-License-Identifier: GPL-2.0-or-later
"""
The ingress fabric of Enhanced ECMP's ingress-interface grouping (EE-1),
shared by the topotest topotests/fare_ecmp_ingress and the demo
demo/fare_demo_ecmp (`scripts/demo.sh ecmp`), and their steps.

- The fabric: fare.fabric.Clos3 (leaves=2, spines=4, 800G, unnumbered
  eBGP, h2 behind leaf2) with hosts h11..h14 behind leaf1's ports
  to-h11..to-h14 (172.16.1k.10/24); spine j has router ID 10.255.1.(5-j),
  so bgpd's member order is not the uplinks' name order. leaf1 starts
  with the 4 lines `bgp fare ecmp-ingress-group 1 interface to-h1k`
  (START_LINES, in the order CONFIG_ORDER) and hashes by L4
  (fib_multipath_hash_policy=1, hash seed HASH_SEED). For the main-table
  checks the spines send leaf1 a default route, an aggregate and
  10.98.0.0/24, and leaf1 has static and kernel routes towards h12..h14
  (start_ingress_fabric).
- The state leaf1 must show for a group layout (expected_state, observed,
  wait_state): `show bgp fare ecmp-ingress json`, the policy rules and
  the ingress tables' routes.
- Traffic: one UDP flow per host (one_flow), the 4 elephants at once
  (elephants_at_once), coded runs of 4 flows with random source ports
  (coded_run), from leaf1's per-uplink tx counter deltas.
"""

import json
import os
import random
import subprocess
import time
from fractions import Fraction

from lib.topogen import TopoRouter

from fare.common import DAEMONS_FARE, SENDER, kernel_weights, start_fabric, tx_packets, \
    vtysh_json, wait_for
from fare.fabric import Clos3

ASN1 = 65101
UPLINKS = ["to-s1", "to-s2", "to-s3", "to-s4"]
HOSTS = ["h11", "h12", "h13", "h14"]  # host k = HOSTS[k-1] behind port to-h1k
PORTS = ["to-h11", "to-h12", "to-h13", "to-h14"]
HOST_NET = {h: 10 + k for k, h in enumerate(HOSTS, 1)}  # h11 -> 172.16.11.0/24
DST = "172.16.2.10"
P4, P6 = "172.16.2.0/24", "2001:db8:2::/64"
TABLE_BASE = 1000000
RULE_PRIO = 250
DPORT = 4791
ELEPHANT = 2000
BASE = 20  # hash runs: host k sends BASE * 2^(k-1) packets
STRAY = 15  # packets of leaf1's own on an uplink in one measurement window
# seed of the hash runs' source ports and of leaf1's multipath hash
_seed = os.environ.get("FARE_EE_SEED", "2723497204")
HASH_SEED = (int.from_bytes(os.urandom(4), "big") >> 1) if _seed == "random" else int(_seed)
EQUAL = {u: 1 for u in UPLINKS}

CONFIG_ORDER = ["to-h13", "to-h11", "to-h14", "to-h12"]


def group_line(group, ifname):
    return "bgp fare ecmp-ingress-group {} interface {}".format(group, ifname)


START_LINES = [" " + group_line(1, i) for i in CONFIG_ORDER]

# EE-1 and the main table (test_main_table_answers): every spine sends
# leaf1 a default route (IPv4 and IPv6), the aggregate AGG (component
# 10.99.9.0/24 suppressed) and BGP_STATIC; leaf1 has static routes (staticd)
# to STATIC_ONLY via h13 and to BGP_STATIC via h14 (zebra prefers the
# static: distance 1 < 20), and a kernel route MORE_SPECIFIC (inside AGG)
# via h12; h12..h14 own an address in them (on lo).
AGG = "10.99.0.0/16"
BGP_STATIC = "10.98.0.0/24"
STATIC_ONLY = "192.0.2.0/24"
MORE_SPECIFIC = "10.99.5.0/24"
LOOPBACKS = {"h12": "10.99.5.1", "h13": "192.0.2.1", "h14": "10.98.0.1"}
V6_HOSTS = ("h11", "h12")  # 2001:db8:1k::10/64 behind to-h1k
SPINE_EXTRA = [
    " no bgp network import-check",
    " address-family ipv4 unicast",
    "  network {}".format(BGP_STATIC),
    "  network 10.99.9.0/24",
    "  aggregate-address {} summary-only".format(AGG),
    "  neighbor to-l1 default-originate",
    " exit-address-family",
    " address-family ipv6 unicast",
    "  neighbor to-l1 default-originate",
    " exit-address-family",
]
# what leaf1's ingress tables copy with the startup layout
COPIED4 = ["0.0.0.0/0", AGG, "172.16.2.0/24"]
COPIED6 = ["::/0", "2001:db8:2::/64"]

# spine j's router ID 10.255.1.(5-j) (Clos3 gives 10.255.1.j): bgpd's member
# order need not be the uplinks' name order
INGRESS_FABRIC = Clos3(leaves=2, spines=4, default_gbps=800, hosts=(2,),
                       extra_leaf_config={1: START_LINES},
                       extra_spine_config={j: [" bgp router-id 10.255.1.{}".format(5 - j)] + SPINE_EXTRA
                                           for j in range(1, 5)})

for _h, _port in zip(HOSTS, PORTS):
    INGRESS_FABRIC.host(_h, "172.16.{}.10/24".format(HOST_NET[_h]),
                        "via 172.16.{}.1".format(HOST_NET[_h]))
    INGRESS_FABRIC.link("leaf1", _h, _port, "eth0")


def ingress_config(name):
    "frr.conf of `name`: Clos3's, with leaf1's host ports and static routes."
    conf = INGRESS_FABRIC.config(name)
    if name == "leaf1":
        blocks = "".join("interface {}\n ip address 172.16.{}.1/24\n{}!\n".format(
            p, HOST_NET[h],
            " ipv6 address 2001:db8:{}::1/64\n".format(HOST_NET[h]) if h in V6_HOSTS else "")
            for h, p in zip(HOSTS, PORTS))
        blocks += "ip route {} 172.16.13.10\nip route {} 172.16.14.10\n!\n".format(
            STATIC_ONLY, BGP_STATIC)
        head = "hostname leaf1\n!\n"
        assert head in conf
        conf = conf.replace(head, head + blocks, 1)
    return conf


def ingress_daemons(name):
    "The daemons of `name`: staticd too on leaf1."
    return DAEMONS_FARE + [(TopoRouter.RD_STATIC, None)] if name == "leaf1" else DAEMONS_FARE


def start_ingress_fabric(mod):
    """Start the ingress fabric for test module `mod` (setup_module); the
    topogen."""
    tgen = start_fabric(mod, INGRESS_FABRIC, ingress_config, ingress_daemons)
    leaf1 = tgen.gears["leaf1"]
    for h in V6_HOSTS:
        n = HOST_NET[h]
        tgen.gears[h].run("ip -6 addr add 2001:db8:{}::10/64 dev eth0 nodad; "
                          "ip -6 route add default via 2001:db8:{}::1".format(n, n))
    for h, addr in LOOPBACKS.items():
        tgen.gears[h].run("ip addr add {}/32 dev lo".format(addr))
    leaf1.run("ip route add {} via 172.16.12.10".format(MORE_SPECIFIC))
    leaf1.run("sysctl -w net.ipv4.fib_multipath_hash_policy=1")
    leaf1.run("sysctl -w net.ipv6.fib_multipath_hash_policy=1")
    # a fixed hash seed and fixed source ports (HASH_SEED): the hash runs
    # give the same figures every time, so the statistical check cannot
    # flake; FARE_EE_SEED=random draws new ones
    leaf1.run("sysctl -w net.ipv4.fib_multipath_hash_seed={}".format(HASH_SEED))
    return tgen


# -- the expected state -------------------------------------------------------


def apportion(weights, ports):
    """Member index (0-based) of each of `ports` ports: ports in proportion
    to `weights` (member order), largest remainder, ties to the lowest
    member index, handed out in member order."""
    total = sum(weights)
    quotas = [Fraction(ports * w, total) for w in weights]
    counts = [q.numerator // q.denominator for q in quotas]
    left = ports - sum(counts)
    for i in sorted(range(len(weights)), key=lambda i: (-(quotas[i] - counts[i]), i))[:left]:
        counts[i] += 1
    return [i for i, c in enumerate(counts) for _ in range(c)]


def table_of(group, index):
    return TABLE_BASE + (group - 1) * 256 + (index - 1)


def members(leaf, prefix, ipv6=False):
    """(interfaces in bgpd's order, installed kernel weight of each)."""
    afi = "ipv6" if ipv6 else "ipv4"
    j = vtysh_json(leaf, "show bgp {} fare {} json".format(afi, prefix))
    paths = j.get("prefixes", {}).get(prefix, {}).get("paths", [])
    kw = kernel_weights(leaf, prefix, ipv6)
    # the paths zebra installed (in plain ECMP bgpd's per-path weight is not set)
    ifs = [p.get("interface") for p in paths if p.get("interface") in kw]
    return ifs, [kw.get(i) for i in ifs], kw


def expected_state(layout, mem):
    """layout {group: [interfaces]}; mem {"4"/"6": member interface list,
    member weights}: what leaf1 must show (same shape as observed())."""
    groups, rules, tables = [], [], {"4": {}, "6": {}}
    for g in sorted(layout):
        ifs = sorted(layout[g])
        groups.append({"group": g, "interfaces": [
            {"interface": i, "index": k, "table": table_of(g, k)} for k, i in enumerate(ifs, 1)]})
        for fam, prefix in (("4", P4), ("6", P6)):
            m_ifs, m_w = mem[fam]
            chosen = apportion(m_w, len(ifs))
            for k, i in enumerate(ifs, 1):
                t = table_of(g, k)
                tables[fam][t] = {prefix: {m_ifs[chosen[k - 1]]: 1}}
        rules += [(RULE_PRIO, "all", i, table_of(g, k), ()) for k, i in enumerate(ifs, 1)]
    return {
        "json": {"tableBase": TABLE_BASE, "groups": groups,
                 "prefixes": len(COPIED4) + len(COPIED6) if layout else 0},
        "rules4": sorted(rules),
        "rules6": sorted(rules),
        "tables4": tables["4"],
        "tables6": tables["6"],
    }


# -- what leaf1 shows ---------------------------------------------------------


def ingress_json(leaf):
    return vtysh_json(leaf, "show bgp fare ecmp-ingress json")


def projected_json(j):
    "The keys of the interface only (extra keys are reported, not compared)."
    if "_unparsed" in j:
        return j
    groups = j.get("groups")
    if isinstance(groups, list):
        groups = [{"group": g.get("group"),
                   "interfaces": [{k: i.get(k) for k in ("interface", "index", "table")}
                                  for i in (g.get("interfaces") or [])]}
                  for g in groups]
    return {"tableBase": j.get("tableBase"), "groups": groups, "prefixes": j.get("prefixes")}


def json_run(router, cmd):
    "The JSON of an `ip -j` command `cmd` in `router` ([] for none)."
    out = router.run(cmd + " 2>/dev/null")
    try:
        return json.loads(out or "[]")
    except ValueError:
        return [{"_unparsed": out}]


def _table_id(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def ingress_rules(leaf, fam):
    """Rules at priority 250 or towards a table >= 1000000, as (priority,
    src, iif, table, other selector keys)."""
    out = []
    for r in json_run(leaf, "ip -j -{} rule show".format(fam)):
        t = _table_id(r.get("table"))
        if r.get("priority") != RULE_PRIO and (t is None or t < TABLE_BASE):
            continue
        other = tuple(sorted(k for k in r if k not in ("priority", "src", "iif", "table", "protocol")))
        out.append((r.get("priority"), r.get("src"), r.get("iif"), t, other))
    return sorted(out)


def ingress_tables(leaf, fam, only=(P4, P6)):
    """{table: {dst: {dev: weight}}} of every route in a table >= 1000000
    (of the destinations `only`, when given; throw routes: {"throw": 1})."""
    nhs = {n.get("id"): n for n in json_run(leaf, "ip -j nexthop show")}
    tables = {}
    for r in json_run(leaf, "ip -j -{} route show table all".format(fam)):
        t = _table_id(r.get("table"))
        if t is None or t < TABLE_BASE or (only and r.get("dst") not in only):
            continue
        if r.get("type") == "throw":
            tables.setdefault(t, {})[r.get("dst")] = {"throw": 1}
            continue
        devs = {}
        if "nhid" in r:
            nh = nhs.get(r["nhid"], {})
            for m in nh.get("group") or [{"id": r["nhid"], "weight": 1}]:
                devs[nhs.get(m["id"], {}).get("dev")] = m.get("weight", 1)
        elif "nexthops" in r:
            for nh in r["nexthops"]:
                devs[nh.get("dev")] = nh.get("weight", 1)
        else:
            devs[r.get("dev")] = 1
        tables.setdefault(t, {})[r.get("dst")] = devs
    return tables


def observed(leaf):
    return {
        "json": projected_json(ingress_json(leaf)),
        "rules4": ingress_rules(leaf, 4),
        "rules6": ingress_rules(leaf, 6),
        "tables4": ingress_tables(leaf, 4),
        "tables6": ingress_tables(leaf, 6),
    }


def diff(got, exp):
    return {k: {"got": got.get(k), "expected": exp[k]} for k in exp if got.get(k) != exp[k]}


def wait_state(leaf, layout, mem, what, count=40):
    exp = expected_state(layout, mem)
    got = wait_for(lambda: observed(leaf), exp, count=count)
    assert got == exp, "{}: leaf1 differs from the interface: {}".format(what, diff(got, exp))
    return exp


def wait_members(leaf, weights=EQUAL, count=90):
    """Wait for `weights` in the kernel for both prefixes; the members in
    bgpd's order with their installed weights {"4": (ifs, w), "6": ...}."""
    for prefix, v6 in ((P4, False), (P6, True)):
        got = wait_for(lambda: kernel_weights(leaf, prefix, v6), weights, count=count)
        assert got == weights, "{}: kernel weights {} != {}".format(prefix, got, weights)
    mem = {}
    for fam, prefix, v6 in (("4", P4, False), ("6", P6, True)):
        ifs, w, kw = members(leaf, prefix, v6)
        assert sorted(ifs) == sorted(kw), (
            "{}: fare JSON members {} != kernel next hops {}".format(prefix, ifs, kw))
        mem[fam] = (ifs, w)
    return mem


def running(router):
    return router.vtysh_cmd("show running-config")


def ingress_lines(router):
    return [l for l in running(router).splitlines() if "ecmp-ingress-group" in l]


def conf_bgp(router, *lines):
    out = router.vtysh_cmd("configure terminal\nrouter bgp {}\n{}\n".format(ASN1, "\n".join(lines)))
    assert "%" not in out, "{}: {}".format(lines, out)


START_LAYOUT = {1: list(PORTS)}


# -- traffic ------------------------------------------------------------------


def prime(tgen):
    "ARP of each host's gateway resolved before a burst (no queued drops)."
    for h in HOSTS:
        tgen.gears[h].run("ping -c 1 -W 1 172.16.{}.1".format(HOST_NET[h]))


def send(host, sport, packets):
    out = host.run("/usr/bin/python3 {} {} 1 {} {} {}".format(SENDER, DST, sport, DPORT, packets))
    assert out.strip() == str(packets), "{}: sender printed {!r}".format(host.name, out)


def settle(leaf, before):
    "Counters once leaf1 has forwarded everything (two equal reads)."
    time.sleep(0.05)
    prev = tx_packets(leaf, UPLINKS)
    for _ in range(20):
        time.sleep(0.05)
        cur = tx_packets(leaf, UPLINKS)
        if cur == prev:
            break
        prev = cur
    return {u: prev[u] - before[u] for u in UPLINKS}


def one_flow(tgen, host, packets=ELEPHANT, sport=None):
    """`host` sends one flow; the uplink of leaf1 that carried it (delta in
    [packets, packets+STRAY], every other uplink <= STRAY), and the deltas."""
    leaf1 = tgen.gears["leaf1"]
    before = tx_packets(leaf1, UPLINKS)
    send(tgen.gears[host], sport or random.randint(1024, 65535), packets)
    delta = settle(leaf1, before)
    carriers = [u for u in UPLINKS if packets <= delta[u] <= packets + STRAY]
    quiet = [u for u in UPLINKS if delta[u] <= STRAY]
    assert len(carriers) == 1 and len(quiet) == len(UPLINKS) - 1, (
        "{}: one flow of {} packets, leaf1 uplink tx deltas {} (expected one uplink in "
        "[{}, {}], the others <= {})".format(host, packets, delta, packets, packets + STRAY, STRAY))
    return carriers[0], delta


def coded_run(tgen, rng):
    """One run: host k sends BASE*2^(k-1) packets with a fresh random source
    port; {host: uplink} decoded from leaf1's uplink deltas."""
    leaf1 = tgen.gears["leaf1"]
    sports = rng.sample(range(1024, 65536), len(HOSTS))
    before = tx_packets(leaf1, UPLINKS)
    for k, h in enumerate(HOSTS):
        send(tgen.gears[h], sports[k], BASE << k)
    delta = settle(leaf1, before)
    masks = {u: delta[u] // BASE for u in UPLINKS}
    ok = all(delta[u] % BASE <= STRAY for u in UPLINKS) and sum(masks.values()) == 15
    full = 0
    for m in masks.values():
        full |= m
    assert ok and full == 15, (
        "run with source ports {}: leaf1 uplink deltas {} do not decode into the 4 flows "
        "(host k sends {}*2^(k-1) packets, at most {} stray per uplink)".format(
            sports, delta, BASE, STRAY))
    return {h: next(u for u in UPLINKS if masks[u] >> k & 1) for k, h in enumerate(HOSTS)}, sports


def port_uplinks(mem, n=len(PORTS)):
    "Uplink of IPv4 member chosen for each of n ports."
    ifs, w = mem["4"]
    return [ifs[i] for i in apportion(w, n)]


def elephants_at_once(tgen):
    """The 4 hosts send one ELEPHANT-packet flow each at the same time,
    each with a random source port: leaf1's tx delta on each uplink."""
    leaf1 = tgen.gears["leaf1"]
    before = tx_packets(leaf1, UPLINKS)
    procs = [tgen.gears[h].popen(
        ["/usr/bin/python3", SENDER, DST, "1", str(random.randint(1024, 65535)), str(DPORT),
         str(ELEPHANT)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) for h in HOSTS]
    outs = [p.communicate(timeout=60) for p in procs]
    delta = settle(leaf1, before)
    for h, (out, err) in zip(HOSTS, outs):
        out = out.decode() if isinstance(out, bytes) else out
        assert out.strip() == str(ELEPHANT), "{}: {!r} {!r}".format(h, out, err)
    return delta


def not_one_elephant(delta):
    """The uplinks of `delta` (elephants_at_once) that did not carry exactly
    one flow: {uplink: delta} outside [ELEPHANT, ELEPHANT+STRAY]."""
    return {u: d for u, d in delta.items() if not ELEPHANT <= d <= ELEPHANT + STRAY}
