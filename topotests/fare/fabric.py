# SPDX-License-Identifier: GPL-2.0-or-later
"""
The fabric builder of the FARE topotests, the demos and the benchmarks.

Topology is a topogen topology as data: routers, hosts, switches, ExaBGP
peers and links, created in the order they were declared. Every topotest
declares its topology with it and gives it to fare.common.start_fabric (or
to topogen's Topogen as TOPOLOGY.build_topo). Three fabrics are built on it,
each adding its own routers and links first and writing each router's
frr.conf (config(name)):

- Fabric: any graph of routers with numbered eBGP sessions;
- Clos3: a 3-stage leaf-spine fabric, unnumbered or numbered sessions;
- ScaleUp: GPU servers and plane switches of a multi-plane scale-up
  network (SUN-1).

A test adds its own nodes and links to a fabric (fabric.router("ext"),
fabric.link("leaf3", "ext", "to-ext", "to-l3")) or declares a topology of
its own (Topology().router("r1", "r2").link("r1", "r2", "r1-eth0",
"r2-eth0")).
"""


class Topology:
    """Routers, hosts, switches, ExaBGP peers and links in the order
    topogen creates them: first the fabric's own (base_steps(), none
    here), then those added with the methods below. Each method returns
    the topology, so that calls chain."""

    def __init__(self):
        self.steps = []

    def base_steps(self):
        """The nodes and links of the fabric itself, before any added."""
        return []

    def router(self, *names):
        for name in names:
            self.steps.append(("router", name))
        return self

    def host(self, name, ip, default_route):
        """A host (no FRR daemons) with address `ip` and default route
        `default_route` ("via ADDRESS")."""
        self.steps.append(("host", name, ip, default_route))
        return self

    def switch(self, name):
        self.steps.append(("switch", name))
        return self

    def exabgp_peer(self, name, ip, default_route):
        self.steps.append(("exabgp", name, ip, default_route))
        return self

    def link(self, a, b, ifname_a=None, ifname_b=None):
        """A link between nodes a and b, with interface names of topogen's
        choosing where none is given."""
        self.steps.append(("link", a, b, ifname_a, ifname_b))
        return self

    def build_topo(self, tgen):
        """Create the topology in topogen (Topogen's topology function)."""
        for step in list(self.base_steps()) + self.steps:
            kind, args = step[0], step[1:]
            if kind == "router":
                tgen.add_router(args[0])
            elif kind == "host":
                tgen.add_host(*args)
            elif kind == "switch":
                tgen.add_switch(args[0])
            elif kind == "exabgp":
                tgen.add_exabgp_peer(*args)
            else:
                a, b, ifname_a, ifname_b = args
                tgen.add_link(tgen.gears[a], tgen.gears[b], ifname_a, ifname_b)


# -- Fabric: any graph ------------------------------------------------------

class Fabric(Topology):
    """Any fabric as a graph, for the FARE topotests: routers with their AS, links
    with their bandwidth (Gb/s), numbered eBGP sessions (one IPv4 and one IPv6
    session per link). Link k has 10.100.k.0/24 and 2001:db8:100:k::/64, the
    first router .1/::1, the second .2/::2; the interface towards router X is
    named "to-X" ("to-X-1", "to-X-2", ... for parallel links). Each link's
    bandwidth is set on both ends, with `neighbor ADDR fare link-bandwidth`
    or, with link_config="interface", with zebra's interface `bandwidth` (what
    a LAG reports, and can change at runtime) (SPEC FARE-3).
    """

    def __init__(self, routers, links, originate=None, extra=None, fare_lines=None,
                 link_config="neighbor", ipv6_sessions=True, unnumbered=False):
        """routers: {name: asn}; links: [(a, b, gbps)];
        originate: {name: [prefix, ...]}; extra: {name: [router bgp lines]};
        fare_lines: {name: [router bgp lines]} (default " bgp fare");
        ipv6_sessions=False: IPv4 sessions only (IPv6 addresses all the
        same); unnumbered=True: no addresses on the links, one session per
        link on its interface (`neighbor IFNAME interface`, IPv4 and IPv6
        unicast over IPv6 link-local, RFC 5549)."""
        super().__init__()
        self.routers = dict(routers)
        self.links = list(links)
        self.originate = originate or {}
        self.extra = extra or {}
        self.fare_lines = fare_lines or {}
        self.link_config = link_config
        self.ipv6_sessions = ipv6_sessions
        self.unnumbered = unnumbered

    def ifname(self, k, name):
        """Interface of `name` on link k (1-based)."""
        a, b, _ = self.links[k - 1]
        peer = b if name == a else a
        parallel = [i for i, (x, y, _) in enumerate(self.links, 1) if {x, y} == {a, b}]
        if len(parallel) == 1:
            return "to-" + peer
        return "to-{}-{}".format(peer, parallel.index(k) + 1)

    def base_steps(self):
        steps = [("router", name) for name in self.routers]
        for k, (a, b, _) in enumerate(self.links, 1):
            steps.append(("link", a, b, self.ifname(k, a), self.ifname(k, b)))
        return steps

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
        # (address or interface, remote as, gbps, ipv6; None: unnumbered)
        sessions = []
        for k, (a, b, gbps) in enumerate(self.links, 1):
            if name not in (a, b):
                continue
            side = 1 if name == a else 2
            peer = b if name == a else a
            lines += ["interface " + self.ifname(k, name)]
            if not self.unnumbered:
                lines += [" ip address {}/24".format(self.addr(k, side)),
                          " ipv6 address {}/64".format(self.addr(k, side, True))]
            if self.link_config == "interface":
                lines.append(" bandwidth {}".format(gbps * 1000))
            lines += ["!"]
            if self.unnumbered:
                sessions.append((self.ifname(k, name), self.routers[peer], gbps, None))
                continue
            for v6 in (False, True) if self.ipv6_sessions else (False,):
                sessions.append((self.addr(k, 3 - side, v6), self.routers[peer], gbps, v6))
        lines += [
            "router bgp {}".format(asn),
            " bgp router-id 10.255.{}.{}".format(asn % 250, list(self.routers).index(name) + 1),
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            " bgp bestpath as-path multipath-relax",
            " timers bgp 3 9",
        ]
        for addr, ras, _, v6 in sessions:
            lines.append(" neighbor {} {}remote-as {}".format(
                addr, "interface " if v6 is None else "", ras))
        v4 = [p for p in self.originate.get(name, []) if ":" not in p]
        v6 = [p for p in self.originate.get(name, []) if ":" in p]
        lines += [" address-family ipv4 unicast"]
        lines += ["  network " + p for p in v4]
        lines += ["  no neighbor {} activate".format(a) for a, _, _, v in sessions if v]
        lines += [" exit-address-family", " address-family ipv6 unicast"]
        lines += ["  network " + p for p in v6]
        lines += ["  neighbor {} activate".format(a) for a, _, _, v in sessions if v is not False]
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


# -- Clos3: a 3-stage leaf-spine fabric ---------------------------------------

LEAF_AS_BASE = 65100
SPINE_AS = 65000


def leaf_if(spine):
    return "to-s{}".format(spine)


def spine_if(leaf):
    return "to-l{}".format(leaf)


def leaf_prefix(i, ipv6=False):
    return "2001:db8:{}::/64".format(i) if ipv6 else "172.16.{}.0/24".format(i)


class Clos3(Topology):
    """A 3-stage Clos fabric for the FARE topotests and the demo.

    Leaves leaf1..N (AS 65101..), spines spine1..M (AS 65000), one eBGP session
    per leaf-spine link: unnumbered (`neighbor IFNAME interface`, IPv4 and IPv6
    unicast over IPv6 link-local, RFC 5549) or numbered (one IPv4 and one IPv6
    session per link). Every link has a bandwidth in Gb/s, configured on both
    ends with `neighbor ... fare link-bandwidth` (veth reports 10000 Mb/s
    whatever we want to model, SPEC FARE-3). Leaf i originates 172.16.i.0/24 and
    2001:db8:i::/64; with hosts, host h<i> sits on that subnet behind leaf i.
    """

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
        super().__init__()
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

    def base_steps(self):
        steps = [("router", "leaf{}".format(i)) for i in range(1, self.leaves + 1)]
        steps += [("router", "spine{}".format(j)) for j in range(1, self.spines + 1)]
        for i in range(1, self.leaves + 1):
            for j in range(1, self.spines + 1):
                steps.append(("link", "leaf{}".format(i), "spine{}".format(j), leaf_if(j),
                              spine_if(i)))
        for i in self.hosts:
            steps.append(("host", "h{}".format(i), "172.16.{}.10/24".format(i),
                          "via 172.16.{}.1".format(i)))
            steps.append(("link", "leaf{}".format(i), "h{}".format(i), "to-h", "eth0"))
        return steps

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


# -- ScaleUp: a multi-plane scale-up network (SUN-1) -------------------------

SERVER_AS_BASE = 65000
PLANE_AS_BASE = 65100


def sub_name(k):
    return "abcdefgh"[k - 1]


def server_if(plane, sub):
    return "p{}{}".format(plane, sub_name(sub))


def plane_if(server, sub):
    return "s{}{}".format(server, sub_name(sub))


def gpu_addr(server, gpu):
    return "10.0.{}.{}".format(server, gpu)


def gpu_prefix(server, gpu):
    return gpu_addr(server, gpu) + "/32"


class ScaleUp(Topology):
    """A multi-plane scale-up network for the FARE topotests and the demo
    (SPEC SUN-1): GPU servers s1..N, each a BGP speaker with FARE's host role,
    and one switch per plane p1..M.

    Every server has one port per plane, split by a Y-cable into `subports`
    sub-ports (a, b, ...): one link and one unnumbered eBGP session per
    sub-port (RFC 5549 for IPv4). Server interfaces are named after the plane
    and sub-port ("p1a", "p1b", ...), plane-switch interfaces after the server
    and sub-port ("s1a", "s1b", ...). Every link is `gbps` Gb/s, configured on
    both ends with `neighbor IF fare link-bandwidth` (veth reports one speed
    whatever is modelled, SPEC FARE-3).

    Server i is AS 65000+i with router-id 10.255.0.i; plane j is AS 65100+j
    with router-id 10.255.1.j. Server i's GPU g has the loopback address
    10.0.i.g/32 on `lo`, originated with the maximum Path Bandwidth (FARE-2).
    """

    def __init__(
        self,
        servers=4,
        planes=4,
        gpus=2,
        subports=2,
        gbps=400,
        host_role=True,
        fare=True,
        hold_down=None,
        timers=(3, 9),
        bfd_profile=None,
        extra_server_config=None,
        extra_plane_config=None,
    ):
        super().__init__()
        self.servers = servers
        self.planes = planes
        self.gpus = gpus
        self.subports = subports
        self.gbps = gbps
        self.host_role = host_role
        self.fare = fare
        self.hold_down = hold_down
        self.timers = timers
        # "name": a bfdd profile of that name is expected in the extra config;
        # every server-to-plane session then uses BFD with it (SUN-6).
        self.bfd_profile = bfd_profile
        self.extra_server_config = extra_server_config or {}
        self.extra_plane_config = extra_plane_config or {}

    def server_names(self):
        return ["s{}".format(i) for i in range(1, self.servers + 1)]

    def plane_names(self):
        return ["p{}".format(j) for j in range(1, self.planes + 1)]

    def server_ifs(self):
        """A server's interfaces, plane by plane, sub-port by sub-port."""
        return [
            server_if(j, k) for j in range(1, self.planes + 1) for k in range(1, self.subports + 1)
        ]

    # -- topology ----------------------------------------------------------

    def base_steps(self):
        steps = [("router", name) for name in self.server_names() + self.plane_names()]
        for i in range(1, self.servers + 1):
            for j in range(1, self.planes + 1):
                for k in range(1, self.subports + 1):
                    steps.append(("link", "s{}".format(i), "p{}".format(j), server_if(j, k),
                                  plane_if(i, k)))
        return steps

    # -- configuration -----------------------------------------------------

    def _common(self, name, asn, router_id, neighbors):
        lines = [
            "router bgp {}".format(asn),
            " bgp router-id {}".format(router_id),
            " no bgp ebgp-requires-policy",
            " no bgp network import-check",
            # a server's paths to a GPU come through planes of different ASes
            " bgp bestpath as-path multipath-relax",
            " timers bgp {} {}".format(*self.timers),
        ]
        for n in neighbors:
            lines.append(" neighbor {} interface remote-as external".format(n))
            if self.bfd_profile:
                lines.append(" neighbor {} bfd profile {}".format(n, self.bfd_profile))
        return lines

    def server_config(self, i):
        lines = ["frr defaults datacenter", "hostname s{}".format(i), "!", "interface lo"]
        lines += [" ip address {}/32".format(gpu_addr(i, g)) for g in range(1, self.gpus + 1)]
        lines += ["!"]
        neighbors = self.server_ifs()
        lines += self._common("s{}".format(i), SERVER_AS_BASE + i, "10.255.0.{}".format(i), neighbors)
        lines += [" address-family ipv4 unicast"]
        lines += ["  network {}".format(gpu_prefix(i, g)) for g in range(1, self.gpus + 1)]
        lines += [" exit-address-family"]
        if self.fare:
            lines += [" bgp fare", " bgp fare originate"]
            if self.host_role:
                lines += [" bgp fare role host"]
            if self.hold_down is not None:
                lines += [" bgp fare hold-down {}".format(self.hold_down)]
            for n in neighbors:
                lines.append(" neighbor {} fare link-bandwidth {}G".format(n, self.gbps))
        lines += self.extra_server_config.get(i, [])
        lines += ["!"]
        return "\n".join(lines) + "\n"

    def plane_config(self, j):
        lines = ["frr defaults datacenter", "hostname p{}".format(j), "!"]
        neighbors = [
            plane_if(i, k) for i in range(1, self.servers + 1) for k in range(1, self.subports + 1)
        ]
        lines += self._common("p{}".format(j), PLANE_AS_BASE + j, "10.255.1.{}".format(j), neighbors)
        if self.fare:
            lines += [" bgp fare"]
            if self.hold_down is not None:
                lines += [" bgp fare hold-down {}".format(self.hold_down)]
            for n in neighbors:
                lines.append(" neighbor {} fare link-bandwidth {}G".format(n, self.gbps))
        lines += self.extra_plane_config.get(j, [])
        lines += ["!"]
        return "\n".join(lines) + "\n"

    def config(self, name):
        if name.startswith("s"):
            return self.server_config(int(name[1:]))
        return self.plane_config(int(name[1:]))
