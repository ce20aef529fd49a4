#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Count the prefixes of a `show bgp ipv4|ipv6 fare json` (read from
standard input) per Path Bandwidth of their one path, in Gb/s rounded:
one JSON object {"Gb/s": prefixes}, the key "None" for prefixes without
exactly one path. Only prefixes that start with PREFIX_START count. Run in a
router's namespace behind vtysh, so that a table of 100,000 prefixes is
not carried (and logged) whole by the test library.

usage: vtysh -c 'show bgp ipv4 fare json' | python3 value_counts.py PREFIX_START
"""
import json
import sys

GBPS = 1e9 / 8  # bytes per second in one Gb/s


def main():
    start = sys.argv[1]
    counts = {}
    for prefix, entry in json.load(sys.stdin).get("prefixes", {}).items():
        if not prefix.startswith(start):
            continue
        paths = entry.get("paths", [])
        gbps = round(paths[0]["pathBandwidthBytesPerSec"] / GBPS) if len(paths) == 1 else None
        counts[str(gbps)] = counts.get(str(gbps), 0) + 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
