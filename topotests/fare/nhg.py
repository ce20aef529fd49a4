# SPDX-License-Identifier: GPL-2.0-or-later
"""
What the topotests of the module's shared nexthop groups (`bgp fare
nexthop-groups`) read: a prefix's kernel route and nexthop group id, a
kernel group's members and weights, the module's groups as `show bgp fare
nexthop-groups json` shows them, and `ip -ts monitor route nexthop` run
in the background over a change.
"""

import json
import time

import pytest

# pylint: disable=C0413
from lib.topogen import get_topogen
from fare.common import frr_release, start_fabric, vtysh_json


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
