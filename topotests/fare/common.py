# SPDX-License-Identifier: GPL-2.0-or-later
"""
Helpers shared by the FARE topotests: daemon start with the module, JSON
polling, and reading nexthop-group weights back from the kernel.

The tests run under FRR's own topotest library (lib.topogen), from FRR's
tests/topotests/ directory where scripts/setup-test-env.sh links them and
this package (pytest puts that directory, FRR's conftest.py's, on sys.path).
"""

import json
import os
import re
import subprocess
import time

import pytest

from lib.topogen import Topogen, TopoRouter, get_topogen  # noqa: E402
from lib import topotest  # noqa: E402

GBPS = 1e9 / 8  # bytes per second in one Gb/s

DAEMONS_FARE = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, "-M fare")]
DAEMONS_PLAIN = [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, None)]


def start_fabric(mod, topology, config_of, daemons_of=lambda name: DAEMONS_FARE, prepare=None):
    """Start the topology of test module `mod` (a fare.fabric.Topology) and
    every router in it with the frr.conf text config_of(name) (kept in the
    run's log directory);
    prepare(tgen), if given, runs once the namespaces exist, before the
    daemons start (interfaces a test builds itself)."""
    tgen = Topogen(topology.build_topo, mod.__name__)
    tgen.start_topology()
    if prepare:
        prepare(tgen)
    confdir = os.path.join(tgen.logdir, "configs")
    os.makedirs(confdir, exist_ok=True)
    for name, router in tgen.routers().items():
        path = os.path.join(confdir, name + ".conf")
        text = config_of(name)
        if os.environ.get("FARE_TEST_NEXTHOP_GROUPS") == "1" and frr_release(tgen) >= (10, 7):
            # the suite with shared nexthop groups on wherever FARE is
            # (doc/testing.rst); tests that check the configuration
            # written back or the knob's default see the line too
            text = re.sub(r"^( +)bgp fare$", r"\1bgp fare\n\1bgp fare nexthop-groups", text,
                          flags=re.M)
        with open(path, "w") as f:
            # microseconds in the daemons' log timestamps, which tests
            # parse: FRR 10.7's library no longer sets them with frr.conf
            f.write(text.rstrip("\n") + "\nlog timestamp precision 6\n")
        router.load_frr_config(path, daemons_of(name))
    tgen.start_router()
    return tgen


def tgen_or_skip():
    """The running topology, or skip the test when a router has failed."""
    tgen = get_topogen()
    if tgen.routers_have_failure():
        pytest.skip(tgen.errors)
    return tgen


def vtysh_json(router, cmd):
    out = router.vtysh_cmd(cmd)
    try:
        return json.loads(out)
    except ValueError:
        return {"_unparsed": out}


def fare_prefix(router, prefix, afi="ipv4"):
    """`show bgp AFI fare PREFIX json` of one prefix ({} when absent)."""
    j = vtysh_json(router, "show bgp {} fare {} json".format(afi, prefix))
    return j.get("prefixes", {}).get(prefix, {})


def update_group_classes(router, peers, afi="ipv4"):
    """{name: moduleClass} of the update-groups the neighbors of `router`
    given as peers = {name: address} are in (None: a group without one);
    a neighbor in no group is left out."""
    j = vtysh_json(router, "show bgp {} unicast update-groups json".format(afi))
    out = {}
    for groups in j.values():
        if not isinstance(groups, dict):
            continue
        for grp in groups.values():
            for sub in grp.get("subGroup", []):
                for name, addr in peers.items():
                    if addr in sub.get("peers", []):
                        out[name] = grp.get("moduleClass")
    return out


def bgp_zebra_client(router):
    "The connect time of zebra's client bgp ('show zebra client'), None when bgpd is not connected."
    m = re.search(r"Client: bgp\b.*?Connect Time: *(\S+)", router.vtysh_cmd("show zebra client"), re.S)
    return m.group(1) if m else None


def wait_json(router, cmd, expected, count=60, wait=1):
    """Poll `cmd` until its JSON contains `expected` (topotest.json_cmp):
    None, else the last difference."""
    return wait_for(lambda: topotest.json_cmp(vtysh_json(router, cmd), expected), None,
                    count=count, wait=wait)


def wait_for(func, expected, count=60, wait=1):
    """Poll func() until it returns expected; return the last value.
    Gives up once it has called func() `count` times and `count` x `wait`
    seconds have passed. The pauses start at a tenth of a second and
    double up to `wait`: a value that comes a moment after the first
    call is seen a moment later, not a whole `wait` later."""
    deadline = time.monotonic() + count * wait
    pause = min(0.1, wait)
    calls = 0
    while True:
        value = func()
        calls += 1
        if value == expected:
            return value
        if calls >= count and time.monotonic() >= deadline:
            return value
        time.sleep(pause)
        pause = min(2 * pause, wait)


def kernel_weights(router, prefix, ipv6=False, key="dev"):
    """Weights of the kernel nexthop group of `prefix` in `router`'s
    namespace, as {device: weight} (key="gateway": {gateway: weight}).
    Plain (non-group) multipath routes and single nexthops are read too, so
    a test sees what the kernel forwards with whatever way zebra installed
    it. The route and its group are two reads: when zebra replaced the
    group in between (its id is gone), both are read again."""
    for _ in range(5):
        try:
            return _kernel_weights_once(router, prefix, ipv6, key)
        except (ValueError, IndexError):
            time.sleep(0.2)
    return _kernel_weights_once(router, prefix, ipv6, key)


def _kernel_weights_once(router, prefix, ipv6, key):
    fam = "-6" if ipv6 else "-4"
    routes = json.loads(router.run("ip -j {} route show {}".format(fam, prefix)) or "[]")
    if not routes:
        return {}
    route = routes[0]
    weights = {}
    if "nhid" in route:
        nhg = json.loads(router.run("ip -j nexthop show id {}".format(route["nhid"])))[0]
        members = nhg.get("group") or [{"id": route["nhid"], "weight": 1}]
        for m in members:
            nh = json.loads(router.run("ip -j nexthop show id {}".format(m["id"])))[0]
            weights[nh[key]] = m.get("weight", 1)
        return weights
    if "nexthops" in route:
        for nh in route["nexthops"]:
            weights[nh[key]] = nh.get("weight", 1)
        return weights
    weights[route[key]] = 1
    return weights


def kernel_nexthop(router, prefix):
    """(nhid, whether it is a group) of `prefix`'s route in `router`'s
    namespace (anything with a run(cmd) method); (None, False) when the
    route has no nexthop object (or there is no route)."""
    fam = "-6" if ":" in prefix else "-4"
    routes = json.loads(router.run("ip -j {} route show {}".format(fam, prefix)) or "[]")
    nhid = routes[0].get("nhid") if routes else None
    if not nhid:
        return None, False
    nh = json.loads(router.run("ip -j nexthop show id {}".format(nhid)))[0]
    return nhid, "group" in nh


HERE = os.path.dirname(os.path.realpath(__file__))
# the directory that holds this package (the repository's topotests/)
TOPOTESTS = os.path.dirname(HERE)


def program(module):
    """The argv that runs the package's module `module` (e.g. "nhg_dump")
    as a program in a router's namespace."""
    return ["env", "PYTHONPATH=" + TOPOTESTS, "/usr/bin/python3", "-m", "fare." + module]


NHG_DUMP = " ".join(program("nhg_dump"))


def kernel_weights_wide(router, prefix, key="dev", ipv6=False):
    """As kernel_weights(), with each member's full weight read from the
    kernel over netlink: 16 bits on Linux 6.12 and later, where iproute2
    before 6.12 shows only the low 8 bits."""
    fam = "-6" if ipv6 else "-4"
    routes = json.loads(router.run("ip -j {} route show {}".format(fam, prefix)) or "[]")
    if not routes or "nhid" not in routes[0]:
        return kernel_weights(router, prefix, ipv6, key=key)
    groups = json.loads(router.run(NHG_DUMP))
    weights = {}
    for member, weight in groups.get(str(routes[0]["nhid"]), []):
        nh = json.loads(router.run("ip -j nexthop show id {}".format(member)))[0]
        weights[nh[key]] = weight
    return weights


def reduced(weights):
    """Ratio of a {key: weight} dict in lowest terms, for comparisons."""
    from math import gcd
    from functools import reduce

    if not weights:
        return {}
    g = reduce(gcd, weights.values())
    return {k: v // g for k, v in weights.items()}


def report(text):
    """Print `text` and append it to the file named by $FARE_REPORT, which
    the demo and the test runner show after pytest's own output."""
    print(text)
    out = os.environ.get("FARE_REPORT")
    if out:
        with open(out, "a") as f:
            f.write(text + "\n")


SENDER = os.path.join(HERE, "udp_flows.py")
PACED_SENDER = os.path.join(HERE, "paced_udp.py")
# counts a big table's Path Bandwidths behind vtysh (fare_table_passes)
VALUE_COUNTS = os.path.join(HERE, "value_counts.py")


def tx_packets(router, ifnames):
    out = router.run(
        " ".join("cat /sys/class/net/{}/statistics/tx_packets;".format(i) for i in ifnames)
    )
    return dict(zip(ifnames, [int(x) for x in out.split()]))


def measure_split(leaf, host, uplinks, dst, flows):
    """`host` sends `flows` UDP flows (one source port each) to `dst`; the
    share (%) of `leaf`'s packets on each of its `uplinks`, from the
    interfaces' tx counters. The leaf must hash by L4
    (net.ipv4.fib_multipath_hash_policy = 1)."""
    host.run("ping -c 2 -i 0.2 -W 1 {}".format(dst))  # resolve neighbours first
    before = tx_packets(leaf, uplinks)
    sent = int(host.run("/usr/bin/python3 {} {} {}".format(SENDER, dst, flows)).strip())
    assert sent == flows
    time.sleep(1)
    after = tx_packets(leaf, uplinks)
    delta = {i: after[i] - before[i] for i in uplinks}
    total = sum(delta.values())
    assert total >= flows, "lost flows: {} of {} counted".format(total, flows)
    return {i: 100.0 * delta[i] / total for i in uplinks}

# The build tree (scripts/run-tests.sh exports BUILD; else the repository's
# build/ next to this directory) and FRR's frr-reload.py in it.
BUILD = os.environ.get("BUILD") or os.path.join(TOPOTESTS, "..", "build")
FRR_RELOAD = os.path.join(BUILD, "frr/tools/frr-reload.py")
BINDIR = os.path.join(BUILD, "install/bin")


def frr_reload(router, mode, filename):
    """Run FRR's frr-reload.py (--test or --reload) on `filename` in
    `router`'s namespace; (exit code, output)."""
    out = router.cmd(
        "/usr/bin/python3 {} --{} --stdout --bindir {} --confdir /etc/frr --rundir /var/run/frr "
        "{} 2>&1; echo \"rc=$?\"".format(FRR_RELOAD, mode, BINDIR, filename))
    m = re.search(r"rc=(\d+)\s*$", out)
    return int(m.group(1)), out[: m.start()]


# FRR 10.7's mgmtd answers a commit that changes nothing (frr-reload.py's
# second pass) with this note: not an error.
MGMTD_NOTHING_TO_COMMIT = ("% Configuration applied with notes:", "No changes found to be committed!")


def reload_errors(out):
    "The error lines of frr-reload.py's output `out` (ERROR, WARNING, vtysh's '%' lines)."
    lines = out.splitlines()
    errors = []
    for i, line in enumerate(lines):
        if tuple(l.strip() for l in lines[i:i + 2]) == MGMTD_NOTHING_TO_COMMIT:
            continue
        if "ERROR" in line or "WARNING" in line or line.startswith("%"):
            errors.append(line)
    return errors


def fare_memory(router):
    """{memory type: allocations now} of the module's group ("bgpd FARE")
    in `show memory bgpd`."""
    out = router.vtysh_cmd("show memory bgpd")
    m = re.search(r"--- qmem bgpd FARE ---\n(.*?)(?=\n--- qmem |\Z)", out, re.S)
    assert m, "no 'bgpd FARE' memory group in:\n{}".format(out[:2000])
    counts = {}
    for line in m.group(1).splitlines()[1:]:
        lm = re.match(r"^(.+?)\s*:\s+(\d+)\s", line)
        if lm:
            counts[lm.group(1)] = int(lm.group(2))
    return counts


def settled_memory(router):
    "The module's memory counts, once two readings 1 s apart agree."
    last = fare_memory(router)
    for _ in range(20):
        time.sleep(1)
        now = fare_memory(router)
        if now == last:
            return now
        last = now
    return last


def frr_release(tgen):
    """(major, minor) of the FRR release the topology runs: its zebra's
    --version, from the library's frrdir."""
    frrdir = tgen.config.get(tgen.CONFIG_SECTION, "frrdir")
    out = subprocess.run([os.path.join(frrdir, "zebra"), "--version"],
                         capture_output=True, text=True, check=False).stdout
    m = re.search(r"version (\d+)\.(\d+)", out)
    assert m, "no FRR version in {}".format(out)
    return int(m.group(1)), int(m.group(2))


def assert_no_fare_memory_at_exit(tgen):
    """After tgen.stop_topology(): FRR lists the memory types that still
    hold allocations when a daemon exits, by group, on its stderr; no
    router's bgpd may name the module's group."""
    for name in tgen.routers():
        with open(os.path.join(tgen.logdir, name, "bgpd.err"), errors="replace") as f:
            err = f.read()
        assert "memory group bgpd FARE" not in err, "{}: at exit:\n{}".format(name, err)


def memory_types(router, daemon="bgpd"):
    """FRR's allocation counters of a daemon (`show memory DAEMON`):
    {group: {type: (allocations now, bytes now)}}, and the allocator's
    statistics (mallinfo: {name: text})."""
    out = router.vtysh_cmd("show memory " + daemon)
    groups, group, heap = {}, None, {}
    for line in out.splitlines():
        m = re.match(r"--- qmem (.+) ---$", line)
        if m:
            group = groups.setdefault(m.group(1), {})
            continue
        m = re.match(r"^(.+?)\s*:\s+(\d+)\s+(?:variable|\d+)?\s+(\d+)\s+\d+", line)
        if m and group is not None:
            group[m.group(1)] = (int(m.group(2)), int(m.group(3)))
            continue
        m = re.match(r"^  (Total heap allocated|Used ordinary blocks|Free ordinary blocks):\s+(.+)$",
                     line)
        if m:
            heap[m.group(1)] = m.group(2).strip()
    return groups, heap


# resident kB of the main heap ([heap]) and of the unnamed anonymous
# mappings (the other threads' malloc arenas, thread stacks, large blocks)
SMAPS_SPLIT = ("awk '/^[0-9a-f]+-[0-9a-f]+ /{{name=$6}} /^Rss:/{{if (name==\"[heap]\") h+=$2; "
               "else if (name==\"\") a+=$2}} END {{print \"Heap:\", h+0, \"kB\"; "
               "print \"AnonMaps:\", a+0, \"kB\"}}' /proc/$pid/smaps")


def rss_kb(router, daemon):
    """VmRSS, RssAnon and RssFile of DAEMON in ROUTER's namespace, and the
    resident part of its main heap and of its other anonymous mappings
    (kB)."""
    out = router.run(("pid=$(cat /var/run/frr/{}.pid); "
                      "grep -E '^(VmRSS|RssAnon|RssFile):' /proc/$pid/status; " + SMAPS_SPLIT)
                     .format(daemon))
    got = {k: int(v) for k, v in re.findall(r"^(\w+):\s+(\d+)\s+kB", out, re.M)}
    assert set(got) == {"VmRSS", "RssAnon", "RssFile", "Heap", "AnonMaps"}, "{} {}: {!r}".format(
        router.name, daemon, out)
    return got


def malloc_trim(router, daemon):
    """glibc's malloc_trim(0) called in DAEMON (gdb attaches for well under
    a second): every arena's free pages go back to the kernel, so that the
    RSS read next counts the pages that hold live allocations, not the
    free blocks the allocator kept from its high-water mark."""
    # the executable through /proc, which still opens when the file was
    # replaced (a rebuild while the test runs)
    out = router.run("pid=$(cat /var/run/frr/{}.pid); timeout 60 gdb -batch -nx "
                     "-ex 'call (int) malloc_trim(0)' /proc/$pid/exe $pid 2>&1".format(daemon))
    assert re.search(r"^\$1 = [01]$", out, re.M), "{} {}: malloc_trim via gdb: {!r}".format(
        router.name, daemon, out[-500:])
