#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Sort the sanitizer reports the FRR daemons of a topotest run left behind
(ASan and LeakSanitizer logs, <router>.asan.<daemon>.<pid>, and UBSan's
"runtime error" lines in the daemons' stderr): a report is the module's
when one of its frames is in bgpd/fare/ (or bgpd_fare.so); the others are
FRR's. Leaks are grouped by the first frame that is not an allocator.
Prints one line per distinct report and a summary; exits 1 when a report
is the module's.

usage: scripts/sanitizer-report.py [TOPOTEST_LOG_DIR]   (default /tmp/topotests)
"""

import collections
import glob
import os
import re
import sys

ALLOC = re.compile(r"\b(malloc|calloc|realloc|strdup|qmalloc|qcalloc|qrealloc|qstrdup|"
                   r"mt_count_alloc|__interceptor_\w+)\b")
FRAME = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ in (\S+) (\S+)")


def ours(frames):
    return any("bgpd/fare/" in loc or "bgpd_fare" in loc for _, loc in frames)


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


def site(frames):
    for func, loc in frames:
        if not ALLOC.search(func):
            return "{} {}".format(func, os.path.basename(loc))
    return "?"


def main():
    logdir = sys.argv[1] if len(sys.argv) > 1 else "/tmp/topotests"
    found = collections.Counter()
    module = collections.Counter()
    for path in glob.glob(os.path.join(logdir, "**", "*.asan.*"), recursive=True):
        with open(path, errors="replace") as f:
            text = f.read()
        for kind, frames in reports(text):
            key = (kind, site(frames))
            (module if ours(frames) else found)[key] += 1
    for path in glob.glob(os.path.join(logdir, "**", "*.err"), recursive=True):
        with open(path, errors="replace") as f:
            for line in f:
                if "runtime error:" in line:
                    where = line.split(": runtime error:")[0].strip()
                    key = ("ubsan", where + ":" + line.split("runtime error:")[1].strip()[:80])
                    (module if "bgpd/fare/" in where else found)[key] += 1
    for title, counts in (("module (bgpd/fare)", module), ("FRR", found)):
        print("sanitizer reports from {}: {} distinct, {} in all".format(
            title, len(counts), sum(counts.values())))
        for (kind, where), n in counts.most_common():
            print("  {:5d}  {:24s} {}".format(n, kind, where))
    return 1 if module else 0


if __name__ == "__main__":
    sys.exit(main())
