#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Sort the sanitizer and Valgrind reports the FRR daemons of a topotest run
left behind (ASan and LeakSanitizer logs, <router>.asan.<daemon>.<pid>,
or their reports in the daemons' stderr, with UBSan's "runtime error"
lines; Memcheck logs,
<router>.valgrind.<daemon>.<pid>, of topotests run with
--valgrind-memleaks): a report is the module's when one of its frames is
in bgpd/fare/ (or bgpd_fare.so, or one of the module's files, bgp_fare*.c
and its core's fare_*.c, as Valgrind names them); the others are FRR's.
Reports are grouped by kind and the first frame that is not an allocator.
Prints one line per distinct report and a summary; exits 1 when a report
is the module's, or, with --junit, when a test failed for another reason
than the Valgrind leak check of FRR's topotest library (the reports are
what this script sorts).

Of the Valgrind logs, only those of the daemons themselves are read: each
daemon's first process forks into the background and exits at once,
leaving a log owned by root (FRR's library skips those too); the daemon
runs as user frr.

usage: scripts/sanitizer-report.py [--junit JUNIT_XML] [TOPOTEST_LOG_DIR...]
       (default /tmp/topotests)
"""

import argparse
import collections
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ALLOC = re.compile(r"\b(malloc|calloc|realloc|strdup|qmalloc|qcalloc|qrealloc|qstrdup|"
                   r"mt_count_alloc|memalign|posix_memalign|operator new(\[\])?|"
                   r"__interceptor_\w+)\b")
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+) (\S+)")
# Memcheck: "==PID==    at 0x4848899: malloc (vg_replace_malloc.c:381)" or "(in /lib/x.so)"
VG_FRAME = re.compile(r"^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: (.+?) \((?:in )?(.+)\)$")
VG_LEAK = re.compile(r"are (definitely|indirectly|possibly) lost|are (still reachable)")
MODULE_FILE = re.compile(r"^(bgp_fare\w*|fare_\w+)\.[ch]:\d+")


def ours(frames):
    return any("bgpd/fare/" in loc or "bgpd_fare" in loc or MODULE_FILE.match(loc)
               for _, loc in frames)


def reports(text):
    """(kind, frames) of each report in an ASan/LSan log."""
    for block in re.split(r"\n(?==+\d+==ERROR: |Direct leak|Indirect leak)", text):
        m = re.search(r"ERROR: (AddressSanitizer|LeakSanitizer): ([\w-]+)|^(Direct|Indirect) leak",
                      block, re.M)
        if not m:
            continue
        kind = m.group(2) if m.group(2) else m.group(3).lower() + "-leak"
        if kind == "detected":  # the LeakSanitizer header; its leaks follow
            continue
        frames = [(f.group(1), f.group(2)) for f in map(FRAME.match, block.splitlines()) if f]
        yield kind, frames


def valgrind_reports(text):
    """(kind, frames) of each Memcheck record (an error, or a loss record
    of --leak-check=full) in a Valgrind log."""
    for block in re.split(r"\n==\d+== ?\n", text):
        lines = block.strip("\n").splitlines()
        frames = [(f.group(1), f.group(2)) for f in map(VG_FRAME.match, lines) if f]
        if not frames:
            continue
        head = re.sub(r"^==\d+== ?", "", lines[0]).strip()
        m = VG_LEAK.search(head)
        if m:
            kind = (m.group(1) or m.group(2)).replace(" ", "-")
            kind = kind if kind == "still-reachable" else kind + "-lost"
        else:
            kind = re.sub(r"\W+", "-", re.sub(r" of size \d+| \d+ bytes", "", head)).strip("-").lower()
        yield kind, frames


def site(frames):
    for func, loc in frames:
        if not ALLOC.search(func):
            return "{} {}".format(func, os.path.basename(loc))
    return "?"


def severity(kind):
    "Order of the kinds in the listing: errors, then leaks, still reachable last."
    leaks = ["definitely-lost", "direct-leak", "possibly-lost", "indirect-leak", "indirectly-lost",
             "still-reachable"]
    return (leaks.index(kind) + 1 if kind in leaks else 0, kind)


def other_failures(junit):
    """Tests of a pytest JUnit XML file that failed for another reason
    than the Valgrind leak check of FRR's topotest library."""
    failed = []
    for case in ET.parse(junit).getroot().iter("testcase"):
        for res in list(case.findall("failure")) + list(case.findall("error")):
            if "valgrind memleaks found" not in (res.get("message") or ""):
                failed.append("{}::{}: {}".format(case.get("classname"), case.get("name"),
                                                  (res.get("message") or "")[:200]))
    return failed


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--junit", help="pytest JUnit XML of the run")
    ap.add_argument("logdirs", nargs="*", default=["/tmp/topotests"])
    args = ap.parse_args()
    found = collections.Counter()
    module = collections.Counter()

    def daemon(path, marker):
        "bgpd of r1.asan.bgpd.123 (marker .asan.) or of r1/bgpd.err"
        name = os.path.basename(path)
        return name.split(marker)[1].split(".")[0] if marker else name.split(".")[0]

    def add(path, marker, kind, frames):
        key = (kind, daemon(path, marker), site(frames))
        (module if ours(frames) else found)[key] += 1

    logs = collections.Counter()
    for logdir in args.logdirs:
        for pattern, marker, parse in (("*.asan.*", ".asan.", reports),
                                       ("*.valgrind.*", ".valgrind.", valgrind_reports)):
            for path in glob.glob(os.path.join(logdir, "**", pattern), recursive=True):
                if marker == ".valgrind." and os.stat(path).st_uid == 0:
                    continue  # a daemon's first process (see above)
                logs[marker.strip(".")] += 1
                with open(path, errors="replace") as f:
                    for kind, frames in parse(f.read()):
                        add(path, marker, kind, frames)
        for path in glob.glob(os.path.join(logdir, "**", "*.err"), recursive=True):
            with open(path, errors="replace") as f:
                text = f.read()
            # a daemon that cannot write its ASan log (it runs as user frr)
            # reports on its stderr
            for kind, frames in reports(text):
                add(path, None, kind, frames)
            for line in text.splitlines():
                if "runtime error:" in line:
                    where = line.split(": runtime error:")[0].strip()
                    key = ("ubsan", daemon(path, None),
                           where + ":" + line.split("runtime error:")[1].strip()[:80])
                    (module if "bgpd/fare/" in where else found)[key] += 1
    if logs:
        print("logs read: " + ", ".join("{} {}".format(n, k) for k, n in sorted(logs.items())))
    for title, counts in (("module (bgpd/fare)", module), ("FRR", found)):
        kinds = collections.Counter()
        for (kind, _, _), n in counts.items():
            kinds[kind] += n
        print("sanitizer reports from {}: {} distinct, {} in all{}".format(
            title, len(counts), sum(counts.values()),
            " ({})".format(", ".join("{} {}".format(k, n) for k, n in
                                     sorted(kinds.items(), key=lambda kn: severity(kn[0]))))
            if kinds else ""))
        for (kind, where, frame), n in sorted(counts.items(),
                                              key=lambda kv: (severity(kv[0][0]), -kv[1])):
            print("  {:5d}  {:24s} {:8s} {}".format(n, kind, where, frame))
    rc = 1 if module else 0
    if args.junit:
        failed = other_failures(args.junit)
        print("tests failed (other than the leak check): {}".format(len(failed)))
        for line in failed:
            print("  " + line)
        rc = rc or (1 if failed else 0)
    return rc


if __name__ == "__main__":
    sys.exit(main())
