# SPDX-License-Identifier: GPL-2.0-or-later
"""
Helpers of the topotests that run tools/fare-metrics (as scripts/build.sh
installs it) in a router's namespace and check what it prints: a strict
parser of the Prometheus text format, `promtool check metrics` (Debian
package prometheus) when installed, and scrapes taken while the module's
counters stand still, with those counters.
"""

import math
import os
import re
import shutil
import subprocess
import time

import pytest

from fare.common import BINDIR, vtysh_json

TOOL = os.path.join(BINDIR, "fare-metrics")
SOURCE = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "tools", "fare-metrics")

# The counters of `show bgp fare json` and the series each becomes.
COUNTER_SERIES = {
    "duplicate": "frr_fare_duplicate_values_total",
    "conflicting": "frr_fare_conflicting_values_total",
    "staleValue": "frr_fare_stale_values_total",
    "passedUnchanged": "frr_fare_passed_unchanged_announcements_total",
    "gracefulRestarts": "frr_fare_graceful_restarts_total",
    "ignoredBoundary": "frr_fare_boundary_ignored_paths_total",
    "strippedBoundary": "frr_fare_stripped_boundary_announcements_total",
    "originated": "frr_fare_originated_announcements_total",
    "replaced": "frr_fare_replaced_announcements_total",
    "strippedFallback": "frr_fare_stripped_fallback_announcements_total",
    "nonTransitiveAttached": "frr_fare_non_transitive_attached_announcements_total",
    "heldDown": "frr_fare_hold_downs_total",
    "wcmpRoutes": 'frr_fare_zebra_routes_total{kind="wcmp",',
    "ecmpRoutes": 'frr_fare_zebra_routes_total{kind="ecmp",',
    "frrWeightedRoutes": 'frr_fare_zebra_routes_total{kind="frr",',
    "notSentUnchanged": "frr_fare_zebra_unchanged_routes_total",
    "droppedPaths": "frr_fare_dropped_paths_total",
    "transitWithheld": "frr_fare_transit_withheld_announcements_total",
    "tableWalks": "frr_fare_table_walks_total",
    "peerOnlyRefreshes": "frr_fare_peer_only_refreshes_total",
    "reannouncePasses": "frr_fare_reannounce_passes_total",
    "reannouncedSubgroups": "frr_fare_reannounced_subgroups_total",
    "reannouncedRoutes": "frr_fare_reannounced_routes_total",
    "reevaluatedRoutes": "frr_fare_reevaluated_routes_total",
}
VALUE_CLASSES = ["valid", "zero", "subnormal", "negative", "nan", "infinite", "negative-infinite"]

# The text format (exposition format 0.0.4), strictly.
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"'
VALUE = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?|Inf)|NaN"
SAMPLE = re.compile(r"^(%s)(?:\{((?:%s)(?:,%s)*)?\})? (%s)$" % (NAME, LABEL, LABEL, VALUE))


def parse_strict(text):
    """Every line checked; {series: value text}. Fails on anything the
    format does not allow or Prometheus would refuse: a family split or
    typed twice, a sample before its TYPE, a duplicate series (labels in
    any order), a label twice, a counter not named _total or negative, a
    value that is not a Go float."""
    assert text.endswith("\n"), "no final newline"
    families, current, series, out = {}, None, set(), {}
    for line in text[:-1].split("\n"):
        if line.startswith("# HELP "):
            m = re.match(r"^# HELP (%s) (\S.*)$" % NAME, line)
            assert m, line
            assert m.group(1) not in families, "family again: " + line
            current = m.group(1)
            families[current] = None
            continue
        if line.startswith("# TYPE "):
            m = re.match(r"^# TYPE (%s) (counter|gauge|untyped)$" % NAME, line)
            assert m and m.group(1) == current and families[current] is None, line
            families[current] = m.group(2)
            continue
        assert line and not line.startswith("#") and line.strip() == line, repr(line)
        m = SAMPLE.match(line)
        assert m, "not a sample: " + line
        name, value = m.group(1), line.rsplit(" ", 1)[1]
        assert name == current and families[name], "sample outside its family: " + line
        labels = re.findall(LABEL, m.group(2) or "")
        keys = [k for k, _v in labels]
        assert len(keys) == len(set(keys)), "label twice: " + line
        if families[name] == "counter":
            v = float(value)
            assert name.endswith("_total") and v >= 0 and not math.isnan(v), line
        canon = (name, tuple(sorted(labels)))
        assert canon not in series, "duplicate series: " + line
        series.add(canon)
        out[line.rsplit(" ", 1)[0]] = value
    return out


def promtool_check(text):
    """`promtool check metrics` (Debian: prometheus) when installed; else
    only the strict parser runs, and it says so."""
    promtool = shutil.which("promtool")
    if not promtool:
        print("promtool not installed (Debian package prometheus): strict parser only")
        return
    p = subprocess.run([promtool, "check", "metrics"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    assert p.returncode == 0 and not p.stdout.strip(), p.stdout.decode()


def check_format(text):
    parsed = parse_strict(text)
    promtool_check(text)
    return parsed


def scrape(router, *args):
    """(exit status, output) of the installed tool in the router's namespace."""
    out = router.run("/usr/bin/python3 {} {} 2>&1; echo \"rc=$?\"".format(TOOL, " ".join(args)))
    m = re.search(r"rc=(\d+)\s*$", out)
    return int(m.group(1)), out[: m.start()]


def families(text):
    """{family: [sample lines]}."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            out.setdefault(re.match(NAME, line).group(0), []).append(line)
    return out


def quiet_counters(router, vrf="default"):
    """`show bgp [vrf NAME] fare json` counters once they stay the same for 2 s."""
    last = None
    cmd = "show bgp fare json" if vrf == "default" else "show bgp vrf {} fare json".format(vrf)
    for _ in range(30):
        c = vtysh_json(router, cmd)["counters"]
        if c == last:
            return c
        last = c
        time.sleep(2)
    pytest.fail("FARE counters never settle: {}".format(last))


def counter_lines(c, vrf="default"):
    """The sample lines every counter of `show bgp [vrf NAME] fare json`
    must give (the instance's counters, labelled with its VRF)."""
    assert set(c) == set(COUNTER_SERIES) | {"receivedValues"}, sorted(c)
    assert sorted(c["receivedValues"]) == sorted(VALUE_CLASSES), sorted(c["receivedValues"])
    lines = ['frr_fare_received_values_total{class="%s",vrf="%s"} %d' % (k, vrf, c["receivedValues"][k])
             for k in VALUE_CLASSES]
    for key, series in COUNTER_SERIES.items():
        if not series.endswith(","):
            series += "{"
        lines.append('{}vrf="{}"}} {}'.format(series, vrf, c[key]))
    return lines


def scrape_settled(router, *args):
    """Output of a scrape taken while the counters did not move, and the
    counters of that moment."""
    for _ in range(5):
        before = quiet_counters(router)
        rc, text = scrape(router, *args)
        after = vtysh_json(router, "show bgp fare json")["counters"]
        if before == after:
            assert rc == 0, text
            return text, before
    pytest.fail("counters kept moving during the scrapes")
