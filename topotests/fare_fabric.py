# SPDX-License-Identifier: GPL-2.0-or-later
"""
A 3-stage Clos fabric for the FARE topotests and the demo.

Leaves leaf1..N (AS 65101..), spines spine1..M (AS 65000), one eBGP session
per leaf-spine link: unnumbered (`neighbor IFNAME interface`, IPv4 and IPv6
unicast over IPv6 link-local, RFC 5549) or numbered (one IPv4 and one IPv6
session per link). Every link has a bandwidth in Gb/s, configured on both
ends with `neighbor ... fare link-bandwidth` (veth reports 10000 Mb/s
whatever we want to model, SPEC FARE-3). Leaf i originates 172.16.i.0/24 and
2001:db8:i::/64; with hosts, host h<i> sits on that subnet behind leaf i.
"""

LEAF_AS_BASE = 65100
SPINE_AS = 65000


def leaf_if(spine):
    return "to-s{}".format(spine)


def spine_if(leaf):
    return "to-l{}".format(leaf)


def leaf_prefix(i, ipv6=False):
    return "2001:db8:{}::/64".format(i) if ipv6 else "172.16.{}.0/24".format(i)


class Clos3:
    def __init__(
        self,
        leaves=4,
        spines=4,
        link_gbps=None,
        default_gbps=800,
        hosts=(),
        fare=True,
        numbered=False,
        extra_leaf_config=None,
        extra_spine_config=None,
    ):
        self.leaves = leaves
        self.spines = spines
        self.link_gbps = dict(link_gbps or {})
        self.default_gbps = default_gbps
        self.hosts = tuple(hosts)
        self.fare = fare
        self.numbered = numbered
        self.extra_leaf_config = extra_leaf_config or {}
        self.extra_spine_config = extra_spine_config or {}

    def gbps(self, leaf, spine):
        return self.link_gbps.get((leaf, spine), self.default_gbps)

    # -- topology ----------------------------------------------------------

    def build_topo(self, tgen):
        for i in range(1, self.leaves + 1):
            tgen.add_router("leaf{}".format(i))
        for j in range(1, self.spines + 1):
            tgen.add_router("spine{}".format(j))
        for i in range(1, self.leaves + 1):
            for j in range(1, self.spines + 1):
                tgen.add_link(
                    tgen.gears["leaf{}".format(i)],
                    tgen.gears["spine{}".format(j)],
                    leaf_if(j),
                    spine_if(i),
                )
        for i in self.hosts:
            host = tgen.add_host(
                "h{}".format(i),
                "172.16.{}.10/24".format(i),
                "via 172.16.{}.1".format(i),
            )
            tgen.add_link(tgen.gears["leaf{}".format(i)], host, "to-h", "eth0")

    # -- configuration -----------------------------------------------------

    def _link_addr(self, leaf, spine, side, ipv6=False):
        # side 1 = leaf, 2 = spine
        if ipv6:
            return "2001:db8:ff:{}{:02d}::{}".format(leaf, spine, side)
        return "10.{}.{}.{}".format(leaf, spine, side)

    def leaf_config(self, i):
        asn = LEAF_AS_BASE + i
        lines = ["frr defaults datacenter", "hostname leaf{}".format(i), "!"]
        for j in range(1, self.spines + 1):
            lines += ["interface {}".format(leaf_if(j))]
            if self.numbered:
                lines += [
                    " ip address {}/24".format(self._link_addr(i, j, 1)),
                    " ipv6 address {}/64".format(self._link_addr(i, j, 1, True)),
                ]
            lines += ["!"]
        if i in self.hosts:
            lines += [
                "interface to-h",
                " ip address 172.16.{}.1/24".format(i),
                " ipv6 address 2001:db8:{}::1/64".format(i),
                "!",
            ]
        lines += [
            "router bgp {}".format(asn),
            " bgp router-id 10.255.0.{}".format(i),
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            " timers bgp 3 9",
        ]
        neighbors = self._neighbors(i, None)
        for n, remote_as, _ in neighbors:
            if self.numbered:
                lines.append(" neighbor {} remote-as {}".format(n, remote_as))
            else:
                lines.append(" neighbor {} interface remote-as external".format(n))
        lines += self._af_blocks(
            neighbors,
            ["network {}".format(leaf_prefix(i))],
            ["network {}".format(leaf_prefix(i, True))],
        )
        if self.fare:
            lines += [" bgp fare", " bgp fare originate"]
            for n, _, gbps in neighbors:
                lines.append(" neighbor {} fare link-bandwidth {}G".format(n, gbps))
        lines += self.extra_leaf_config.get(i, [])
        lines += ["!"]
        return "\n".join(lines) + "\n"

    def spine_config(self, j):
        lines = ["frr defaults datacenter", "hostname spine{}".format(j), "!"]
        for i in range(1, self.leaves + 1):
            lines += ["interface {}".format(spine_if(i))]
            if self.numbered:
                lines += [
                    " ip address {}/24".format(self._link_addr(i, j, 2)),
                    " ipv6 address {}/64".format(self._link_addr(i, j, 2, True)),
                ]
            lines += ["!"]
        lines += [
            "router bgp {}".format(SPINE_AS),
            " bgp router-id 10.255.1.{}".format(j),
            " no bgp ebgp-requires-policy",
            " timers bgp 3 9",
        ]
        neighbors = self._neighbors(None, j)
        for n, remote_as, _ in neighbors:
            if self.numbered:
                lines.append(" neighbor {} remote-as {}".format(n, remote_as))
            else:
                lines.append(" neighbor {} interface remote-as external".format(n))
        lines += self._af_blocks(neighbors, [], [])
        if self.fare:
            lines += [" bgp fare"]
            for n, _, gbps in neighbors:
                lines.append(" neighbor {} fare link-bandwidth {}G".format(n, gbps))
        lines += self.extra_spine_config.get(j, [])
        lines += ["!"]
        return "\n".join(lines) + "\n"

    def _neighbors(self, leaf, spine):
        """(neighbor, remote AS, link Gb/s) of a leaf or a spine; numbered
        sessions give an IPv4 and an IPv6 neighbor per link."""
        out = []
        pairs = (
            [(leaf, j) for j in range(1, self.spines + 1)]
            if leaf
            else [(i, spine) for i in range(1, self.leaves + 1)]
        )
        for i, j in pairs:
            gbps = self.gbps(i, j)
            remote_as = SPINE_AS if leaf else LEAF_AS_BASE + i
            if self.numbered:
                side = 2 if leaf else 1
                out.append((self._link_addr(i, j, side), remote_as, gbps))
                out.append((self._link_addr(i, j, side, True), remote_as, gbps))
            else:
                out.append((leaf_if(j) if leaf else spine_if(i), remote_as, gbps))
        return out

    def _af_blocks(self, neighbors, v4_lines, v6_lines):
        lines = [" address-family ipv4 unicast"]
        lines += ["  " + l for l in v4_lines]
        if self.numbered:
            lines += [
                "  no neighbor {} activate".format(n) for n, _, _ in neighbors if ":" in n
            ]
        lines += [" exit-address-family", " address-family ipv6 unicast"]
        lines += ["  " + l for l in v6_lines]
        lines += ["  neighbor {} activate".format(n) for n, _, _ in neighbors]
        lines += [" exit-address-family"]
        return lines

    def config(self, name):
        if name.startswith("leaf"):
            return self.leaf_config(int(name[4:]))
        return self.spine_config(int(name[5:]))
