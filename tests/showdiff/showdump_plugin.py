# SPDX-License-Identifier: GPL-2.0-or-later
"""A pytest plug-in for topotests: at the end of each test module (before
its teardown) every router's FARE shows in JSON and its running
configuration are saved to FARE_SHOWDUMP_DIR/<module>/<router>.json, so
that two builds' outputs on the same fabrics can be compared
(tests/showdiff/compare.py). doc/developer.rst says how to run it."""
import json
import os

import pytest

CMDS = [
    "show bgp fare json",
    "show bgp ipv4 fare json",
    "show bgp ipv6 fare json",
    "show bgp fare ecmp-groups json",
    "show bgp fare ecmp-ingress json",
    "show bgp fare planes json",
    "show bgp vrf all fare json",
]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    if nextitem is None or nextitem.module is not item.module:
        try:
            from lib.topogen import get_topogen

            tgen = get_topogen()
            out_dir = os.path.join(os.environ["FARE_SHOWDUMP_DIR"], item.module.__name__)
            os.makedirs(out_dir, exist_ok=True)
            for name, router in sorted(tgen.routers().items()):
                dump = {}
                for cmd in CMDS:
                    dump[cmd] = router.vtysh_cmd(cmd)
                dump["running-config"] = router.vtysh_cmd("show running-config")
                with open(os.path.join(out_dir, name + ".json"), "w") as f:
                    json.dump(dump, f, indent=1, sort_keys=True)
        except Exception as e:  # pylint: disable=broad-except
            print("showdump:", e)
    yield
