#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Benchmark of the FARE data-plane agent (scripts/bench.sh dataplane, not part
of the test suite). Plain `ip netns` namespaces, no FRR: the route is built
by hand.

    sender (s0) --- (r0) router (u1..u4) ==== (d1..d4) receiver

The router has a kernel nexthop group of the four uplinks with weights
1:1:2:2 and fib_multipath_hash_policy=1 (L4 hash). The receiver has no
route to the destinations and does not forward: it drops the packets after
its route lookup, the cheapest sink.

1. Packets per second forwarded by the router (sum of the uplinks' tx
   counters over the sender's sending time): plain hash ECMP (no agent)
   against per-packet spray (fare-dpd, `destination 172.16.2.0/24
   per-packet udp-port 4791`), the same traffic (udpgen flood: THREADS
   threads, 64 UDP flows, 64-byte payload), runs interleaved; the
   per-member split of each against the 1:1:2:2 share.
2. Per-flow mode (`destination 172.16.3.0/24 per-flow udp-port 4791 idle
   300`): fare-dpd's VmRSS/VmHWM with 0, 10k, 50k tracked flows (one packet
   per flow, distinct source address/port, udpgen flows), its CPU while
   holding them, and the rebalance after a weight change (2:2:1:1, then
   back to 1:1:2:2) from its log line "programmed in X ms (moved N flows)",
   checked against the conntrack marks.

usage: bench_dataplane.py --prefix PFX --tmp DIR --dpd FARE-DPD --dp FARE-DP
                          --udpgen UDPGEN
Knobs (environment): FARE_BENCH_SECONDS (6), FARE_BENCH_RUNS (3),
FARE_BENCH_THREADS (CPUs), FARE_BENCH_FLOWS (10000,50000), FARE_REPORT.
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

MEMBERS = ["u1", "u2", "u3", "u4"]
WEIGHTS = [1, 1, 2, 2]
WEIGHTS_ALT = [2, 2, 1, 1]
PP_DEST, PP_ADDR, PP_GROUP = "172.16.2.0/24", "172.16.2.1", 10
PF_DEST, PF_ADDR, PF_GROUP = "172.16.3.0/24", "172.16.3.1", 20
PORT = 4791
PPS_FLOWS = 64


def log(msg):
    print("# " + msg, file=sys.stderr, flush=True)


def sh(*cmd, check=True, ns=None, timeout=120):
    if ns:
        cmd = ("ip", "netns", "exec", ns) + cmd
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError("{}: {}".format(" ".join(cmd), (p.stderr or p.stdout).strip()))
    return p.stdout


def group_spec(weights):
    # iproute2: group ID[,WEIGHT][/ID[,WEIGHT]]...
    return "/".join("{},{}".format(i + 1, w) for i, w in enumerate(weights))


class Bench:
    def __init__(self, args):
        self.a = args
        self.S, self.R, self.D = (args.prefix + x for x in ("s", "r", "d"))
        self.agent = None
        self.agent_log = None
        self.notes = []

    # ---- namespaces ----

    def setup(self):
        S, R, D = self.S, self.R, self.D
        existing = sh("ip", "netns", "list")
        for n in (S, R, D):
            if re.search(r"^{}\b".format(re.escape(n)), existing, re.M):
                raise RuntimeError("namespace {} exists already".format(n))
        for n in (S, R, D):
            sh("ip", "netns", "add", n)
            sh("ip", "-n", n, "link", "set", "lo", "up")
            sh("sysctl", "-qw", "net.ipv4.conf.all.rp_filter=0",
               "net.ipv4.conf.default.rp_filter=0", ns=n)
        sh("sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv4.fib_multipath_hash_policy=1", ns=R)
        sh("sysctl", "-qw", "net.ipv4.ip_forward=0", ns=D)
        sh("ip", "link", "add", "s0", "netns", S, "type", "veth", "peer", "name", "r0", "netns", R)
        sh("ip", "-n", S, "addr", "add", "10.1.0.1/24", "dev", "s0")
        sh("ip", "-n", R, "addr", "add", "10.1.0.2/24", "dev", "r0")
        sh("ip", "-n", S, "link", "set", "s0", "up")
        sh("ip", "-n", R, "link", "set", "r0", "up")
        sh("ip", "-n", S, "route", "add", "default", "via", "10.1.0.2")
        for k in range(1, 5):
            sh("ip", "link", "add", "u%d" % k, "netns", R, "type", "veth", "peer", "name",
               "d%d" % k, "netns", D)
            sh("ip", "-n", R, "addr", "add", "10.2.%d.1/24" % k, "dev", "u%d" % k)
            sh("ip", "-n", D, "addr", "add", "10.2.%d.2/24" % k, "dev", "d%d" % k)
            sh("ip", "-n", R, "link", "set", "u%d" % k, "up")
            sh("ip", "-n", D, "link", "set", "d%d" % k, "up")
            sh("ip", "-n", R, "nexthop", "add", "id", str(k), "via", "10.2.%d.2" % k, "dev",
               "u%d" % k)
        for group, dest in ((PP_GROUP, PP_DEST), (PF_GROUP, PF_DEST)):
            sh("ip", "-n", R, "nexthop", "add", "id", str(group), "group", group_spec(WEIGHTS))
            sh("ip", "-n", R, "route", "add", dest, "nhid", str(group))
        sh("ip", "-n", D, "route", "add", "10.1.0.0/24", "via", "10.2.1.1")
        # neighbours resolved before any measurement
        sh("ping", "-c", "1", "-W", "1", "10.1.0.2", ns=S)
        for k in range(1, 5):
            sh("ping", "-c", "1", "-W", "1", "10.2.%d.2" % k, ns=R)

    def teardown(self):
        self.agent_stop(check=False)
        for n in (self.S, self.R, self.D):
            subprocess.run(["ip", "netns", "del", n], capture_output=True)

    # ---- the agent ----

    def agent_start(self, name, conf_text, want):
        conf = os.path.join(self.a.tmp, name + ".conf")
        with open(conf, "w") as f:
            f.write(conf_text)
        self.agent_log = os.path.join(self.a.tmp, name + ".log")
        sock = os.path.join(self.a.tmp, name + ".sock")
        self.sock = sock
        logf = open(self.agent_log, "w")
        self.agent = subprocess.Popen(
            ["ip", "netns", "exec", self.R, self.a.dpd, "-f", conf, "-s", sock],
            stdout=logf, stderr=subprocess.STDOUT)
        logf.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            text = self.log_text()
            if "running:" in text and re.search(want, text):
                return
            if self.agent.poll() is not None:
                break
            time.sleep(0.05)
        raise RuntimeError("fare-dpd did not program {}:\n{}".format(name, self.log_text()))

    def agent_stop(self, check=True):
        if not self.agent:
            return
        if self.agent.poll() is None:
            self.agent.send_signal(signal.SIGTERM)
            try:
                self.agent.wait(5)
            except subprocess.TimeoutExpired:
                self.agent.kill()
                self.agent.wait()
                self.notes.append("fare-dpd did not exit on SIGTERM within 5 s (killed)")
        self.agent = None
        if check:
            rules = sh("ip", "-n", self.R, "rule")
            tables = sh("nft", "list", "tables", ns=self.R)
            if "fwmark" in rules or "fare_dp" in tables:
                self.notes.append("fare-dpd left rules or its nft table behind after SIGTERM")
                sh("ip", "-n", self.R, "rule", "flush", check=False)
                sh("ip", "-n", self.R, "rule", "add", "pref", "32766", "table", "main",
                   check=False)
                sh("ip", "-n", self.R, "rule", "add", "pref", "32767", "table", "default",
                   check=False)
                sh("nft", "delete", "table", "inet", "fare_dp", ns=self.R, check=False)

    def log_text(self):
        with open(self.agent_log) as f:
            return f.read()

    def agent_mem(self):
        st = {}
        with open("/proc/%d/status" % self.agent.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    st[k] = int(v.split()[0])
        return st["VmRSS"], st["VmHWM"]

    def agent_cpu(self):
        with open("/proc/%d/stat" % self.agent.pid) as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def show(self):
        return json.loads(sh(self.a.dp, "-s", self.sock, "show", "json"))

    # ---- traffic ----

    def tx(self):
        out = sh("cat", *["/sys/class/net/%s/statistics/tx_packets" % m for m in MEMBERS],
                 ns=self.R)
        return [int(x) for x in out.split()]

    def flood(self, seconds):
        out = sh(self.a.udpgen, "flood", PP_ADDR, str(PORT), str(PPS_FLOWS), str(seconds),
                 str(self.a.threads), "64", ns=self.S, timeout=seconds + 30)
        m = re.search(r"sent (\d+) elapsed ([\d.]+) cpu ([\d.]+)", out)
        return int(m.group(1)), float(m.group(2)), float(m.group(3))

    def pps_run(self, mode):
        if mode == "spray":
            self.agent_start("per-packet",
                             "destination {} per-packet udp-port {}\n".format(PP_DEST, PORT),
                             r"{} group {}: weights [\d,]+ programmed".format(
                                 re.escape(PP_DEST), PP_GROUP))
        try:
            before = self.tx()
            sent, elapsed, cpu = self.flood(self.a.seconds)
            time.sleep(0.05)
            after = self.tx()
        finally:
            if mode == "spray":
                self.agent_stop()
        delta = [b - a for a, b in zip(before, after)]
        fwd = sum(delta)
        return {"pps": fwd / elapsed, "sent_pps": sent / elapsed, "split": delta,
                "ns": cpu * 1e9 / fwd if fwd else 0, "cpus": cpu / elapsed,
                "loss": max(0.0, 1 - fwd / sent) if sent else 0.0}

    def part1(self):
        log("warm-up flood, 1 s")
        self.flood(1)
        res = {"hash": [], "spray": []}
        for i in range(self.a.runs):
            order = ("hash", "spray") if i % 2 == 0 else ("spray", "hash")
            for mode in order:
                r = self.pps_run(mode)
                log("run {} {:5}: {:,.0f} pps forwarded ({:,.0f} sent), {:.0f} ns CPU/packet "
                    "({:.2f} CPUs), split {}".format(i + 1, mode, r["pps"], r["sent_pps"],
                                                     r["ns"], r["cpus"], r["split"]))
                res[mode].append(r)
        return res

    # ---- per-flow ----

    def conntrack_marks(self):
        """Tracked flows per mark, and how many conntrack ids two flows share."""
        if not self.a.conntrack:
            return None, 0
        out = sh(self.a.conntrack, "-L", "-p", "udp", "--dport", str(PORT), "-o", "id",
                 ns=self.R, check=False)
        counts, ids = {}, {}
        for line in out.splitlines():
            m = re.search(r"\bmark=(\d+)", line)
            if m:
                counts[int(m.group(1))] = counts.get(int(m.group(1)), 0) + 1
            m = re.search(r"\bid=(\d+)", line)
            if m:
                ids[m.group(1)] = ids.get(m.group(1), 0) + 1
        return counts, sum(1 for v in ids.values() if v > 1)

    def wait_live(self, n, timeout=10):
        deadline = time.monotonic() + timeout
        live = -1
        while time.monotonic() < deadline:
            live = self.show()["destinations"][0]["flows"]["live"]
            if live == n:
                return live
            time.sleep(0.2)
        self.notes.append("fare-dpd counted {} live flows, {} sent".format(live, n))
        return live

    def reweigh(self, weights, timeout=30):
        start = len(self.log_text())
        pat = re.compile(r"{} group {}: weights {} programmed in ([\d.]+) ms \(moved (\d+) flows\)"
                         .format(re.escape(PF_DEST), PF_GROUP, ",".join(map(str, weights))))
        t0 = time.monotonic()
        sh("ip", "-n", self.R, "nexthop", "replace", "id", str(PF_GROUP), "group",
           group_spec(weights))
        while time.monotonic() < t0 + timeout:
            m = pat.search(self.log_text(), start)
            if m:
                return float(m.group(1)), int(m.group(2))
            time.sleep(0.02)
        raise RuntimeError("no rebalance logged for weights {}:\n{}".format(
            weights, self.log_text()[start:]))

    def part2(self):
        R = self.R
        sizes = self.a.flows
        self.agent_start("per-flow",
                         "destination {} per-flow udp-port {} idle 300\n".format(PF_DEST, PORT),
                         r"{} group {}: weights [\d,]+ programmed".format(
                             re.escape(PF_DEST), PF_GROUP))
        ct_max = int(sh("cat", "/proc/sys/net/netfilter/nf_conntrack_max", ns=R, check=False)
                     or 0)
        if ct_max and ct_max < max(sizes) + 1000:
            sh("sysctl", "-qw", "net.netfilter.nf_conntrack_max=%d" % (max(sizes) + 10000),
               ns=R, check=False)
            ct_max = int(sh("cat", "/proc/sys/net/netfilter/nf_conntrack_max", ns=R))
            if ct_max < max(sizes) + 1000:
                self.notes.append("nf_conntrack_max {} in the namespace: sizes above it "
                                  "dropped".format(ct_max))
                sizes = [s for s in sizes if s + 1000 <= ct_max]
        time.sleep(1)
        rss0, hwm0 = self.agent_mem()
        rows = [{"flows": 0, "rss": rss0, "hwm": hwm0}]
        log("per-flow agent started: VmRSS {} kB".format(rss0))
        sent = 0
        weights = WEIGHTS
        for n in sizes:
            t0 = time.monotonic()
            out = sh(self.a.udpgen, "flows", PF_ADDR, str(PORT), str(n - sent), str(sent),
                     "50000", ns=self.S)
            assert out.strip() == "sent %d" % (n - sent), out
            sent = n
            live = self.wait_live(n)
            t_track = time.monotonic() - t0
            time.sleep(0.5)
            rss, hwm = self.agent_mem()
            c0 = self.agent_cpu()
            time.sleep(3)
            cpu = (self.agent_cpu() - c0) / 3
            weights = WEIGHTS_ALT if weights == WEIGHTS else WEIGHTS
            ms, moved = self.reweigh(weights)
            time.sleep(0.3)
            _, hwm_after = self.agent_mem()
            st = self.show()["destinations"][0]
            quota_ok = all(m["live"] == m["quota"] for m in st["members"])
            marks, dup = self.conntrack_marks()
            if dup:
                self.notes.append("{} flows: {} conntrack id(s) shared by two flows (32-bit "
                                  "ids; the agent tells them apart by their tuples)".format(n, dup))
            ct_split = None
            if marks is not None:
                ct_split = [marks.get(m["mark"], 0) for m in st["members"]]
                if ct_split != [m["quota"] for m in st["members"]]:
                    self.notes.append("{} flows: conntrack marks {} differ from the quotas {}"
                                      .format(n, ct_split, [m["quota"] for m in st["members"]]))
            nct = int(sh("cat", "/proc/sys/net/netfilter/nf_conntrack_count", ns=R))
            row = {"flows": n, "live": live, "conntrack": nct, "rss": rss, "hwm": hwm,
                   "hwm_after": hwm_after, "cpu": cpu, "track_s": t_track,
                   "weights": weights, "ms": ms, "moved": moved, "quota_ok": quota_ok,
                   "split": [m["live"] for m in st["members"]], "ct_split": ct_split}
            log("{} flows: {}".format(n, row))
            rows.append(row)
        text = self.log_text()
        lost = text.count("conntrack events lost")
        if lost:
            self.notes.append("fare-dpd lost conntrack events {} time(s) while the flows "
                              "were created (recovered by a dump)".format(lost))
        self.agent_stop()
        return rows


def pct(v):
    t = sum(v)
    return [100.0 * x / t if t else 0 for x in v]


def fmt_split(v):
    return " ".join("{:6.1f}".format(x) for x in v)


def render(b, p1, p2, elapsed, load0, load1):
    a = b.a
    L = []
    L.append("fare-dpd data plane: sender -> router (4 veth uplinks, kernel group 1:1:2:2, "
             "L4 hash) -> receiver")
    L.append("forwarding: {} sender thread(s), {} UDP flows to port {}, 64-byte payload, "
             "{:g} s per run, {} runs of each, interleaved".format(
                 a.threads, PPS_FLOWS, PORT, a.seconds, a.runs))
    L.append("")
    L.append("{:<28} {:>10} {:>11} {:>9} {:>7}  {:>6} {:>6} {:>6} {:>6}".format(
        "router forwarding", "pps min", "pps median", "CPU ns/p", "loss %", "u1 %", "u2 %",
        "u3 %", "u4 %"))
    med, mn, ns = {}, {}, {}
    for mode, label in (("hash", "hash ECMP (no agent)"), ("spray", "per-packet spray (fare-dpd)")):
        pps = [r["pps"] for r in p1[mode]]
        mn[mode], med[mode] = min(pps), statistics.median(pps)
        ns[mode] = statistics.median(r["ns"] for r in p1[mode])
        tot = [sum(r["split"][i] for r in p1[mode]) for i in range(4)]
        loss = max(r["loss"] for r in p1[mode]) * 100
        L.append("{:<28} {:>10,.0f} {:>11,.0f} {:>9,.0f} {:>7.2f}  {}".format(
            label, mn[mode], med[mode], ns[mode], loss, fmt_split(pct(tot))))
    L.append("{:<28} {:>10.3f} {:>11.3f} {:>9.3f}".format(
        "ratio spray / hash", mn["spray"] / mn["hash"], med["spray"] / med["hash"],
        ns["spray"] / ns["hash"]))
    L.append("{:<28} {:>10} {:>11} {:>9} {:>7}  {}".format("weights 1:1:2:2", "", "", "", "",
                                                          fmt_split(pct(WEIGHTS))))
    spray_tot = [sum(r["split"][i] for r in p1["spray"]) for i in range(4)]
    exact = [sum(spray_tot) * w / sum(WEIGHTS) for w in WEIGHTS]
    dev = max(abs(x - e) for x, e in zip(spray_tot, exact))
    L.append("(pps: packets out of the 4 uplinks per second of sending; CPU ns/p: median CPU")
    L.append(" time of the sender per forwarded packet, which holds the router's and receiver's")
    L.append(" softirq work on veth; spray: {:,} packets in all, at most {:,.0f} off the exact"
             .format(sum(spray_tot), dev))
    L.append(" 1:1:2:2 share on any member)")
    L.append("")
    L.append("per-flow mode: {} per-flow udp-port {} idle 300; one packet per flow, then "
             "a weight change".format(PF_DEST, PORT))
    L.append("{:>7} {:>9} {:>9} {:>11} {:>7} {:>10}  {:>9} {:>8}  {}".format(
        "flows", "VmRSS kB", "VmHWM kB", "kB per 10k", "B/flow", "agent CPU", "reweigh to",
        "rebal ms", "moved flows"))
    rss0 = p2[0]["rss"]
    L.append("{:>7} {:>9} {:>9} {:>11} {:>7} {:>10}  {:>9} {:>8}  {}".format(
        0, p2[0]["rss"], p2[0]["hwm"], "-", "-", "-", "-", "-", "-"))
    checks = []
    for r in p2[1:]:
        grow = r["rss"] - rss0
        L.append("{:>7} {:>9} {:>9} {:>11.0f} {:>7.0f} {:>9.1f}%  {:>9} {:>8.1f}  {}".format(
            r["flows"], r["rss"], r["hwm_after"], grow * 10000.0 / r["flows"],
            grow * 1024.0 / r["flows"], r["cpu"] * 100, ":".join(map(str, r["weights"])),
            r["ms"], r["moved"]))
        ok = r["quota_ok"] and r["live"] == r["flows"]
        if r["ct_split"] is not None:
            ok = ok and r["ct_split"] == r["split"]
        checks.append("{} flows {} ({})".format(
            r["flows"], "/".join(map(str, r["split"])), "ok" if ok else "NOT at the quotas"))
    L.append("(VmRSS: the flows tracked, before the weight change; VmHWM: after it; kB per 10k:")
    L.append(" VmRSS growth over the agent with no flow; agent CPU: utime+stime over 3 s holding")
    L.append(" the flows; rebal ms: the agent's netlink-to-programmed time from its log, with")
    L.append(" its conntrack dump and the mark updates)")
    L.append("live flows per member after each change, against the quotas{}: {}".format(
        " and the conntrack marks" if b.a.conntrack else "", "; ".join(checks)))
    L.append("")
    L.append("{} CPUs, load average {} at start, {} at end; {:.0f} s in all".format(
        os.cpu_count(), load0, load1, elapsed))
    for n in b.notes:
        L.append("note: " + n)
    return "\n".join(L)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prefix", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--dpd", required=True)
    ap.add_argument("--dp", required=True)
    ap.add_argument("--udpgen", required=True)
    ap.add_argument("--conntrack", default=None)
    a = ap.parse_args()
    a.seconds = float(os.environ.get("FARE_BENCH_SECONDS", "6"))
    a.runs = int(os.environ.get("FARE_BENCH_RUNS", "3"))
    a.threads = int(os.environ.get("FARE_BENCH_THREADS", str(os.cpu_count() or 1)))
    a.flows = [int(x) for x in os.environ.get("FARE_BENCH_FLOWS", "10000,50000").split(",")
               if x.strip()]

    def on_term(sig, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, on_term)
    b = Bench(a)
    t0 = time.monotonic()
    load0 = open("/proc/loadavg").read().split()[0]
    try:
        log("namespaces {}{{s,r,d}}".format(a.prefix))
        b.setup()
        p1 = b.part1()
        p2 = b.part2()
    except KeyboardInterrupt:
        log("interrupted: namespaces deleted")
        sys.exit(130)
    finally:
        b.teardown()
    load1 = open("/proc/loadavg").read().split()[0]
    text = render(b, p1, p2, time.monotonic() - t0, load0, load1)
    print(text)
    out = os.environ.get("FARE_REPORT")
    if out:
        with open(out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
