# SPDX-License-Identifier: GPL-2.0-or-later
"""
Any fabric as a graph, for the FARE topotests: routers with their AS, links
with their bandwidth (Gb/s), numbered eBGP sessions (one IPv4 and one IPv6
session per link). Link k has 10.100.k.0/24 and 2001:db8:100:k::/64, the
first router .1/::1, the second .2/::2; the interface towards router X is
named "to-X" ("to-X-1", "to-X-2", ... for parallel links). Each link's
bandwidth is set on both ends, with `neighbor ADDR fare link-bandwidth`
or, with link_config="interface", with zebra's interface `bandwidth` (what
a LAG reports, and can change at runtime) (SPEC FARE-3).
"""


class Fabric:
    def __init__(self, routers, links, originate=None, extra=None, fare_lines=None,
                 link_config="neighbor"):
        """routers: {name: asn}; links: [(a, b, gbps)];
        originate: {name: [prefix, ...]}; extra: {name: [router bgp lines]};
        fare_lines: {name: [router bgp lines]} (default " bgp fare")."""
        self.routers = dict(routers)
        self.links = list(links)
        self.originate = originate or {}
        self.extra = extra or {}
        self.fare_lines = fare_lines or {}
        self.link_config = link_config

    def ifname(self, k, name):
        """Interface of `name` on link k (1-based)."""
        a, b, _ = self.links[k - 1]
        peer = b if name == a else a
        parallel = [i for i, (x, y, _) in enumerate(self.links, 1) if {x, y} == {a, b}]
        if len(parallel) == 1:
            return "to-" + peer
        return "to-{}-{}".format(peer, parallel.index(k) + 1)

    def build_topo(self, tgen):
        for name in self.routers:
            tgen.add_router(name)
        for k, (a, b, _) in enumerate(self.links, 1):
            tgen.add_link(tgen.gears[a], tgen.gears[b], self.ifname(k, a), self.ifname(k, b))

    def addr(self, k, side, ipv6=False):
        return "2001:db8:100:{}::{}".format(k, side) if ipv6 else "10.100.{}.{}".format(k, side)

    def neighbor(self, name, peer, ipv6=False):
        """Address of `peer` on the link between name and peer."""
        for k, (a, b, _) in enumerate(self.links, 1):
            if (a, b) == (name, peer):
                return self.addr(k, 2, ipv6)
            if (a, b) == (peer, name):
                return self.addr(k, 1, ipv6)
        raise KeyError((name, peer))

    def config(self, name):
        asn = self.routers[name]
        lines = ["frr defaults datacenter", "hostname " + name, "!"]
        sessions = []  # (address, remote as, gbps, ipv6)
        for k, (a, b, gbps) in enumerate(self.links, 1):
            if name not in (a, b):
                continue
            side = 1 if name == a else 2
            peer = b if name == a else a
            lines += [
                "interface " + self.ifname(k, name),
                " ip address {}/24".format(self.addr(k, side)),
                " ipv6 address {}/64".format(self.addr(k, side, True)),
            ]
            if self.link_config == "interface":
                lines.append(" bandwidth {}".format(gbps * 1000))
            lines += ["!"]
            for v6 in (False, True):
                sessions.append((self.addr(k, 3 - side, v6), self.routers[peer], gbps, v6))
        lines += [
            "router bgp {}".format(asn),
            " bgp router-id 10.255.{}.{}".format(asn % 250, list(self.routers).index(name) + 1),
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            " bgp bestpath as-path multipath-relax",
            " timers bgp 3 9",
        ]
        for addr, ras, _, _ in sessions:
            lines.append(" neighbor {} remote-as {}".format(addr, ras))
        v4 = [p for p in self.originate.get(name, []) if ":" not in p]
        v6 = [p for p in self.originate.get(name, []) if ":" in p]
        lines += [" address-family ipv4 unicast"]
        lines += ["  network " + p for p in v4]
        lines += ["  no neighbor {} activate".format(a) for a, _, _, v in sessions if v]
        lines += [" exit-address-family", " address-family ipv6 unicast"]
        lines += ["  network " + p for p in v6]
        lines += ["  neighbor {} activate".format(a) for a, _, _, v in sessions if v]
        lines += [" exit-address-family"]
        lines += self.fare_lines.get(name, [" bgp fare"])
        if self.originate.get(name):
            lines.append(" bgp fare originate")
        if self.link_config == "neighbor":
            for addr, _, gbps, _ in sessions:
                lines.append(" neighbor {} fare link-bandwidth {}G".format(addr, gbps))
        lines += self.extra.get(name, [])
        lines += ["!"]
        return "\n".join(lines) + "\n"
