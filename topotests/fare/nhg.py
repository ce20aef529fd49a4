# SPDX-License-Identifier: GPL-2.0-or-later
"""
What the topotests of the module's shared nexthop groups (`bgp fare
nexthop-groups`) read: a prefix's kernel route and nexthop group id, a
kernel group's members and weights, the module's groups as `show bgp fare
nexthop-groups json` shows them, and `ip -ts monitor route nexthop` run
in the background over a change.
"""

import json
import re
import time

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import frr_release, kernel_weights, start_fabric, vtysh_json, wait_for


def kernel_route(router, prefix):
    "The kernel's route of prefix (`ip -j route show`), {} when there is none."
    fam = "-6" if ":" in prefix else "-4"
    routes = json.loads(router.run("ip -j {} route show {}".format(fam, prefix)) or "[]")
    return routes[0] if routes else {}


def nhids(router, prefixes):
    "{prefix: kernel nexthop group id (None: none)}."
    return {p: kernel_route(router, p).get("nhid") for p in prefixes}


def group_members(router, nhid):
    "{device: weight} of kernel nexthop group nhid ({} when there is none)."
    out = router.run("ip -j nexthop show id {} 2>/dev/null".format(nhid)).strip()
    if not out:
        return {}
    nhg = json.loads(out)[0]
    members = {}
    for m in nhg.get("group", []):
        nh = json.loads(router.run("ip -j nexthop show id {}".format(m["id"])))[0]
        members[nh["dev"]] = m.get("weight", 1)
    return members


def module_groups(router):
    "{id: show bgp fare nexthop-groups json's group} of the default instance."
    j = vtysh_json(router, "show bgp fare nexthop-groups json")
    return {g["id"]: g for g in j.get("groups", [])}


def shared(router, prefixes):
    "The one nhid all of prefixes have, None when they differ or have none."
    ids = set(nhids(router, prefixes).values())
    return ids.pop() if len(ids) == 1 else None


def monitor_start(router, path):
    "`ip -ts monitor route nexthop` in router's namespace, into path."
    router.run("rm -f {0}; ip -ts monitor route nexthop > {0} 2>&1 & echo $! > {0}.pid"
               .format(path))
    time.sleep(0.5)


def monitor_stop(router, path):
    "The monitor stopped (anything late still counted): what it saw."
    time.sleep(1)
    router.run("kill $(cat {0}.pid)".format(path))
    return router.run("cat {}".format(path))


def monitor_lines(text):
    "The monitor's event lines (its header and blank lines left out)."
    return [l for l in text.splitlines() if l.strip() and not l.startswith("Timestamp")]


def route_events(lines, prefixes):
    """The prefixes of `prefixes` in route event lines ("[time] PREFIX ..."
    or "[time] Deleted PREFIX ..."), one per event, sorted."""
    ours = set(prefixes)
    return sorted(p for l in lines for p in l.split()[1:3] if p in ours)


def start_nhg_fabric(mod, fabric):
    """Start fabric (a fare.fabric.Fabric) for test module mod, and skip
    the module on an FRR whose series has no shared nexthop groups (FRR
    10.3's: no patch 0021), where the routers start without the command."""
    def config_of(name):
        text = fabric.config(name)
        if frr_release(get_topogen()) >= (10, 7):
            return text
        return text.replace(" bgp fare nexthop-groups\n", "")

    tgen = start_fabric(mod, fabric, config_of)
    if frr_release(tgen) < (10, 7):
        tgen.stop_topology()
        pytest.skip("FRR {}.{}: the series has no shared nexthop groups (patch 0021)".format(
            *frr_release(tgen)), allow_module_level=True)
    return tgen


def zebra_sends(router, fam):
    "The routes of a family zebra counted added and updated by bgpd (`show zebra client`)."
    m = re.search(r"Client: bgp\b.*?\n{}\s+(\d+)\s+(\d+)".format("IPv6" if fam == "ipv6" else "IPv4"),
                  router.vtysh_cmd("show zebra client"), re.S)
    return int(m.group(1)) + int(m.group(2))


def _vrf(vrf):
    "`vrf NAME ` of a show, or nothing for the default VRF"
    return "vrf {} ".format(vrf) if vrf else ""


def not_sent_unchanged(router, vrf=None):
    "The routes an instance of the module did not send zebra again: zebra had them as they were."
    return vtysh_json(router, "show bgp {}fare json".format(_vrf(vrf)))["counters"]["notSentUnchanged"]


def _family(prefix):
    return "ipv6" if ":" in prefix else "ipv4"


def _one_path(router, prefix, vrf=None):
    "(community, MED) of router's one path to prefix; None: not one path"
    cmd = "show bgp {}{} unicast {} json".format(_vrf(vrf), _family(prefix), prefix)
    paths = vtysh_json(router, cmd).get("paths", [])
    if len(paths) != 1:
        return None
    return paths[0].get("community", {}).get("string"), paths[0].get("metric")


def _zebra_metric(router, prefix, vrf=None):
    "zebra's metric of prefix (bgpd sends the MED as the route's metric)"
    cmd = "show {} route {}{} json".format("ipv6" if _family(prefix) == "ipv6" else "ip", _vrf(vrf),
                                          prefix)
    return vtysh_json(router, cmd)[prefix][0]["metric"]


def neighbor_out(router, asn, neighbor, prefix, what, on):
    """`[no] neighbor NEIGHBOR WHAT out` (WHAT: a route-map or a
    prefix-list) in router's `router bgp ASN`, prefix's address family."""
    router.vtysh_cmd("configure terminal\nrouter bgp {}\naddress-family {} unicast\n"
                     "{}neighbor {} {} out\n".format(asn, _family(prefix), "" if on else "no ",
                                                     neighbor, what))


def single_path_sent_on_change_only(r1, sender, asn, neighbor, prefix, route_maps, community,
                                    ifname, vrf=None, kernel=None):
    """r1's prefix on its single path from sender (`router bgp ASN`, its
    session to r1 `neighbor`), off the module's groups (over ifname): bgpd
    processes it again for an attribute zebra does not get (a community):
    the module finds zebra has the route as it is and nothing is sent
    (zebra counts no add or update of the family from bgpd, the module
    counts one route not sent); a MED of 55, which is zebra's metric of
    the route, is sent. route_maps: the sender's route-maps for prefix
    that set the community and the MED of 55; prefix is written as FRR
    writes it (the key of its JSON shows). vrf: r1's VRF of the route
    (its instance counts), kernel: what runs `ip` in that VRF's tables
    (r1 for the default VRF)."""
    comm_map, med_map = route_maps
    kernel = kernel or r1

    def route_map_out(name, on):
        neighbor_out(sender, asn, neighbor, prefix, "route-map " + name, on)

    fam = _family(prefix)
    community0, med = _one_path(r1, prefix, vrf)
    metric = _zebra_metric(r1, prefix, vrf)
    assert community0 is None and med != 55, (prefix, community0, med)
    sends, unchanged = zebra_sends(r1, fam), not_sent_unchanged(r1, vrf)
    route_map_out(comm_map, True)
    exp = (community, med)
    got = wait_for(lambda: _one_path(r1, prefix, vrf), exp)
    assert got == exp, (prefix, sender.name, got)
    got = wait_for(lambda: not_sent_unchanged(r1, vrf) - unchanged, 1, count=10)
    assert got == 1, (prefix, "routes not sent again", got)
    got = zebra_sends(r1, fam) - sends
    assert got == 0, (prefix, "zebra's adds and updates from bgpd", got)
    got = kernel_weights(kernel, prefix, ipv6=fam == "ipv6")
    assert got == {ifname: 1}, (prefix, got)

    # (one route-map out per neighbor: the MED's takes the community's place)
    route_map_out(med_map, True)
    got = wait_for(lambda: _one_path(r1, prefix, vrf), (None, 55))
    assert got == (None, 55), (prefix, got)
    got = wait_for(lambda: zebra_sends(r1, fam) - sends, 1, count=10)
    assert got == 1, (prefix, "zebra's adds and updates from bgpd", got)
    # zebra counts the message when it reads it, and updates its table after
    got = wait_for(lambda: _zebra_metric(r1, prefix, vrf), 55, count=10)
    assert got == 55, (prefix, "zebra's metric", got)
    got = not_sent_unchanged(r1, vrf) - unchanged
    assert got == 1, (prefix, "routes not sent again", got)
    route_map_out(med_map, False)
    got = wait_for(lambda: _one_path(r1, prefix, vrf), (None, med))
    assert got == (None, med), (prefix, got)
    got = wait_for(lambda: _zebra_metric(r1, prefix, vrf), metric, count=10)
    assert got == metric, (prefix, "zebra's metric", got)
