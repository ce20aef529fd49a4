# SPDX-License-Identifier: GPL-2.0-or-later
"""
A multi-plane scale-up network for the FARE topotests and the demo
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


class ScaleUp:
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

    def build_topo(self, tgen):
        for name in self.server_names() + self.plane_names():
            tgen.add_router(name)
        for i in range(1, self.servers + 1):
            for j in range(1, self.planes + 1):
                for k in range(1, self.subports + 1):
                    tgen.add_link(
                        tgen.gears["s{}".format(i)],
                        tgen.gears["p{}".format(j)],
                        server_if(j, k),
                        plane_if(i, k),
                    )

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
