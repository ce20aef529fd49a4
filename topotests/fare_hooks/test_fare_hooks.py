#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_hooks.py: bgpd_fare and a second module on the same bgpd hooks
combine as bgpd's hooks say (doc/user/fare-patches.rst, "Several modules
on the same hooks"): FRR's hook_call() adds up the handlers' return
values, so each hook says how two modules' answers combine.

    r2 (AS 65002) --200G-- r1 (AS 65001) --100G-- r3 (AS 65003)
                             |
                           r4 (AS 65004, a boundary neighbor of r1)

r2 and r3 originate P = 172.16.9.0/24 with a Path Bandwidth of 400G; r1
weighs their paths min(200, 400) : min(100, 400) = 2:1 (FARE-4). r1
originates 10.98.0.0/24 and 10.99.0.0/24 (with `bgp fare originate`).

The second module, bgpd_hookpeer (tests/modules/bgpd_hookpeer.c, built
here into the run's log directory), names the Path Bandwidth "HOOKPEER",
weights every multipath entry 1, sets the MED of what it announces to 1
when the outgoing attribute carries a Path Bandwidth and to 2 when not,
withholds 10.99.0.0/24 and adds the update-group value "hookpeer" 7. Its
load argument sets its hook priority: "first" (900) runs before
bgpd_fare (1000), "last" (1100) after. r4 runs it without bgpd_fare.

r1's bgpd is restarted with other modules for each case
(test_r1_modules):

- bgpd_fare alone: weights 2:1, "PB:65002:400.000 Gbps", both prefixes
  announced, r4's group class fareBoundary 1.
- hookpeer last (loaded before bgpd_fare on the command line): bgpd_fare
  is first and wins the names and the weights (2:1, "PB:..."); hookpeer
  sees the attribute bgpd_fare left (Path Bandwidth towards r2, stripped
  towards the boundary r4: MED 1 and 2); 10.99.0.0/24 is withheld;
  the classes are fareBoundary 1 then hookpeer 7.
- hookpeer first: weights 1:1 (bgpd_fare left the weighted route alone),
  "HOOKPEER" for both Path Bandwidths, MED 2 (before bgpd_fare added its
  value), 10.99.0.0/24 withheld, classes hookpeer 7 then fareBoundary 1;
  bgpd_fare's own view still shows its weights, and it counts no route
  it weighted for zebra.
"""

import os
import subprocess
import sys
import pytest

CWD = os.path.dirname(os.path.realpath(__file__))

# pylint: disable=C0413
from lib.topogen import TopoRouter, get_topogen
from fare.common import (BUILD, fare_prefix, kernel_weights, start_fabric, tgen_or_skip,
                         update_group_classes, vtysh_json, wait_for)
from fare.fabric import Fabric

pytestmark = [pytest.mark.bgpd]

P = "172.16.9.0/24"
KEPT, WITHHELD = "10.98.0.0/24", "10.99.0.0/24"
FABRIC = Fabric({"r1": 65001, "r2": 65002, "r3": 65003, "r4": 65004},
                [("r1", "r2", 200), ("r1", "r3", 100), ("r1", "r4", 100)],
                originate={"r1": [KEPT, WITHHELD], "r2": [P], "r3": [P]},
                extra={"r2": [" bgp fare originate 400G"], "r3": [" bgp fare originate 400G"]})
# r4 is a boundary neighbor of r1 (FARE-11): bgpd_fare gives its group a class
FABRIC.extra["r1"] = [" neighbor {} fare boundary".format(FABRIC.neighbor("r1", "r4", v6))
                      for v6 in (False, True)]
PEERS = {n: FABRIC.neighbor("r1", n) for n in ("r2", "r3", "r4")}

SRC = os.path.join(CWD, "..", "..", "tests", "modules", "bgpd_hookpeer.c")
MODULE = {}  # "path": the built module


def build_hookpeer(outdir):
    """Compile bgpd_hookpeer.so against the FRR build tree, with the flags
    FRR builds its own modules (bgpd_bmp) with."""
    frr = os.path.join(BUILD, "frr")
    out = os.path.join(outdir, "bgpd_hookpeer.so")
    warnings = ("-Wall -Wextra -Wformat-nonliteral -Wformat-security -Wswitch-enum "
                "-Wstrict-prototypes -Wmissing-prototypes -Wmissing-declarations "
                "-Wpointer-arith -Wbad-function-cast -Wwrite-strings -Wundef "
                "-Wimplicit-fallthrough -Wno-unused-result -Wno-unused-parameter "
                "-Wno-missing-field-initializers").split()
    includes = [frr, os.path.join(frr, "lib", "assert"), os.path.join(frr, "include"),
                os.path.join(frr, "lib"), os.path.join(frr, "bgpd"),
                os.path.join(BUILD, "libyang-install", "include")]
    cmd = (["gcc", "-shared", "-fPIC", "-DHAVE_CONFIG_H", "-DCONFDATE=0"]
           + ["-I" + d for d in includes]
           + ["-fms-extensions", "-fno-omit-frame-pointer", "-funwind-tables"]
           + warnings + ["-Werror", "-g", "-O2", "-o", out, SRC])
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, "building bgpd_hookpeer failed:\n{}".format(res.stderr)
    os.chmod(out, 0o755)
    MODULE["path"] = out


def config(name):
    text = FABRIC.config(name)
    if name == "r4":  # no bgpd_fare on r4
        text = "".join(l for l in text.splitlines(True) if " fare" not in l)
    return text


def daemons(name):
    bgp = "-M {}:last".format(MODULE["path"]) if name == "r4" else "-M fare"
    return [(TopoRouter.RD_ZEBRA, None), (TopoRouter.RD_BGP, bgp)]



def setup_module(mod):
    start_fabric(mod, FABRIC, config, daemons_of=daemons,
                 prepare=lambda tgen: build_hookpeer(tgen.logdir))


def teardown_module(_mod):
    get_topogen().stop_topology()


def restart_bgpd(router, options):
    """Stop bgpd (SIGTERM, a clean exit) and start it with other options,
    giving it its part of the integrated configuration. FRR's topotest
    library fails the test on a core the stopped bgpd left."""
    pid = int(router.run("cat /var/run/frr/bgpd.pid").strip())
    router.run("kill {}".format(pid))
    assert wait_for(lambda: router.net.pid_exists(pid), False, count=50, wait=0.2) is False
    router.run("rm -f /var/run/frr/bgpd.pid")
    router.net.daemons_options["bgpd"] = options
    router.startDaemons(["bgpd"])
    router.run("vtysh -b -d bgpd")


def modules(router):
    """The bgpd modules loaded: the first word of `show modules`' lines."""
    out = router.vtysh_cmd("show modules", daemon="bgpd")
    return sorted({l.split()[0] for l in out.splitlines() if l.startswith("bgpd_")})


def ecom_strings(router, prefix):
    """The extended community text of each path of `prefix`, sorted."""
    j = vtysh_json(router, "show bgp ipv4 unicast {} json".format(prefix))
    return sorted(p.get("extendedCommunity", {}).get("string", "") for p in j.get("paths", []))


def from_r1(router):
    """r1's prefixes as `router` has them: {prefix: MED (None: none)}."""
    routes = vtysh_json(router, "show bgp ipv4 unicast json").get("routes", {})
    return {p: routes[p][0].get("metric") for p in (KEPT, WITHHELD) if p in routes}


def class_lines(router):
    """The `Module class:` lines of the IPv4 update-groups, sorted."""
    out = router.vtysh_cmd("show bgp ipv4 unicast update-groups")
    return sorted(l.strip() for l in out.splitlines() if "Module class:" in l)


def fare_weights(router):
    return {p["interface"]: p["weight"] for p in fare_prefix(router, P).get("paths", [])}


def check(router, func, expected, what, count=60):
    got = wait_for(func, expected, count=count, wait=0.5)
    assert got == expected, "{}: {}: {} != {}".format(router.name, what, got, expected)


PB_TEXT = ["PB:65002:400.000 Gbps", "PB:65003:400.000 Gbps"]
HOOKPEER_CLASS = {"r2": {"hookpeer": 7}, "r3": {"hookpeer": 7}}
# (case, r1's bgpd module options, what r1 and its neighbors show)
CASES = [
    ("fare-alone", "-M fare", {
        "modules": ["bgpd_fare"],
        "kernel": {"to-r2": 2, "to-r3": 1},
        "text": PB_TEXT,
        "r2": {KEPT: 0, WITHHELD: 0},
        "r4": {KEPT: 0, WITHHELD: 0},
        "classes": {"r2": None, "r3": None, "r4": {"fareBoundary": 1}},
        "class_lines": ["Module class: fareBoundary 1"],
        "fare_weighted": True,
    }),
    # loaded before bgpd_fare, run after it: the priority decides
    ("hookpeer-last", "-M {hookpeer}:last -M fare", {
        "modules": ["bgpd_fare", "bgpd_hookpeer"],
        "kernel": {"to-r2": 2, "to-r3": 1},
        "text": PB_TEXT,
        "r2": {KEPT: 1},
        "r4": {KEPT: 2},
        "classes": dict(HOOKPEER_CLASS, r4={"fareBoundary": 1, "hookpeer": 7}),
        "class_lines": ["Module class: fareBoundary 1 hookpeer 7", "Module class: hookpeer 7"],
        "fare_weighted": True,
    }),
    ("hookpeer-first", "-M fare -M {hookpeer}:first", {
        "modules": ["bgpd_fare", "bgpd_hookpeer"],
        "kernel": {"to-r2": 1, "to-r3": 1},
        "text": ["HOOKPEER", "HOOKPEER"],
        "r2": {KEPT: 2},
        "r4": {KEPT: 2},
        "classes": dict(HOOKPEER_CLASS, r4={"hookpeer": 7, "fareBoundary": 1}),
        "class_lines": ["Module class: hookpeer 7", "Module class: hookpeer 7 fareBoundary 1"],
        # every route reached zebra weighted by hookpeer
        "fare_weighted": False,
    }),
]


@pytest.mark.parametrize("case,options,exp", CASES, ids=[c[0] for c in CASES])
def test_r1_modules(case, options, exp):
    """r1 with bgpd_fare alone, then hookpeer after it, then before it:
    kernel weights, community text, what r2 and r4 receive (MED, the
    withheld prefix), update-group classes and their order."""
    tgen = tgen_or_skip()
    r1, r2, r4 = tgen.gears["r1"], tgen.gears["r2"], tgen.gears["r4"]
    options = options.format(hookpeer=MODULE["path"])
    if options != r1.net.daemons_options["bgpd"]:
        restart_bgpd(r1, options)
    check(r1, lambda: modules(r1), exp["modules"], "modules", count=10)
    check(r1, lambda: kernel_weights(r1, P), exp["kernel"], "kernel weights of " + P)
    check(r1, lambda: ecom_strings(r1, P), exp["text"], "community text of " + P)
    check(r2, lambda: from_r1(r2), exp["r2"], "r1's prefixes")
    check(r4, lambda: from_r1(r4), exp["r4"], "r1's prefixes")
    check(r1, lambda: update_group_classes(r1, PEERS), exp["classes"], "update-group classes")
    assert class_lines(r1) == exp["class_lines"]
    # bgpd_fare's own view: its weights, whoever weighted the route for zebra
    assert fare_weights(r1) == {"to-r2": 2, "to-r3": 1}
    p = fare_prefix(r1, P)
    assert (p["wcmp"], p["reason"]) == (True, "weighted by Path Bandwidth")
    j = vtysh_json(r1, "show bgp fare json")
    assert j["module"] == "bgpd_fare" and j["config"]["enabled"] is True
    counters = (j["counters"]["wcmpRoutes"], j["counters"]["ecmpRoutes"])
    if exp["fare_weighted"]:
        assert counters[0] > 0, counters
    else:
        assert counters == (0, 0)


def test_hookpeer_without_fare():
    "r4 runs bgpd_hookpeer without bgpd_fare: the route weighted by it, its class."
    tgen = tgen_or_skip()
    r4 = tgen.gears["r4"]
    assert modules(r4) == ["bgpd_hookpeer"]
    check(r4, lambda: kernel_weights(r4, P), {"to-r1": 1}, "kernel weights of " + P)
    r1_addr = FABRIC.neighbor("r4", "r1")
    check(r4, lambda: update_group_classes(r4, {"r1": r1_addr}), {"r1": {"hookpeer": 7}},
          "update-group classes")


if __name__ == "__main__":
    args = ["-s"] + sys.argv[1:]
    sys.exit(pytest.main(args))
