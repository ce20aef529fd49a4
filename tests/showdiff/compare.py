#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Compare two dumps of showdump_plugin.py (OLD and NEW directories, one
subdirectory per test module, one JSON file per router): how many outputs
are byte-identical, how many identical once list order and bgpd's best-path
mark are set aside, and how many once the event counters are too; the
outputs that still differ are listed.

usage: tests/showdiff/compare.py OLD NEW
"""
import json
import os
import sys


def canon(x, drop_counters):
    if isinstance(x, dict):
        return {k: canon(v, drop_counters) for k, v in x.items()
                if k != "bestpath" and not (drop_counters and k == "counters")}
    if isinstance(x, list):
        return sorted((canon(v, drop_counters) for v in x), key=lambda v: json.dumps(v, sort_keys=True))
    return x


def main(old, new):
    total = raw = ordered = nocount = 0
    differ = []
    for mod in sorted(os.listdir(new)):
        for f in sorted(os.listdir(os.path.join(new, mod))):
            path_old = os.path.join(old, mod, f)
            if not os.path.exists(path_old):
                differ.append((mod, f, "*", "only in NEW"))
                continue
            with open(path_old) as fo, open(os.path.join(new, mod, f)) as fn:
                dump_old, dump_new = json.load(fo), json.load(fn)
            for cmd, text in sorted(dump_new.items()):
                total += 1
                before = dump_old.get(cmd)
                if before == text:
                    raw += 1
                    ordered += 1
                    nocount += 1
                    continue
                try:
                    a, b = json.loads(before), json.loads(text)
                except (TypeError, ValueError):
                    differ.append((mod, f, cmd, "text differs"))
                    continue
                if canon(a, False) == canon(b, False):
                    ordered += 1
                    nocount += 1
                elif canon(a, True) == canon(b, True):
                    nocount += 1
                else:
                    differ.append((mod, f, cmd, "differs"))
    print("outputs: {}; byte-identical: {}; identical but for list order and best path: {}; "
          "and but for the event counters: {}".format(total, raw, ordered, nocount))
    for d in differ:
        print("  {} {} {}: {}".format(*d))
    return 1 if differ else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
