#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write the seed corpora of the fuzz targets: tests/fuzz/corpus/<target>/.

Each seed is a small input in the target's format (see the comment at the
top of tests/fuzz/fuzz_*.c and fuzz_bandwidth() in fuzz_input.h). The
files are committed; run this again after changing a format.

usage: tests/fuzz/gen-corpus.py
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# fuzz_bandwidth() kinds
ZERO, NAN, FLT_MAX = 0x00, 0x02, 0x07
G75, G100 = 0x0E, 0x0F  # special values: 75 and 100 Gb/s
M1 = 0x11  # 1 Mb/s


def gbps(g):
    """a line rate of 10 to 640 Gb/s in steps of 10"""
    assert g % 10 == 0 and 10 <= g <= 640
    return 0x40 + g // 10 - 1


def f32(v):
    return bytes([0x80]) + struct.pack(">f", v)


def f64(v):
    return bytes([0xC0]) + struct.pack(">d", v)


def bw(kind):
    return kind if isinstance(kind, bytes) else bytes([kind])


def limit(v):
    """fuzz_limit(): up to 239 in one byte, else 0xf0 and v - 1"""
    if v < 0xF0:
        return bytes([v])
    return bytes([0xF0]) + struct.pack(">H", v - 1)


def pathbw(subtype, ec, asn, buflen, bandwidth, text):
    return (bytes([subtype]) + bytes.fromhex(ec) + struct.pack(">I", asn) +
            bytes([buflen]) + bw(bandwidth) + text.encode())


def path(link, t, nt=ZERO, f1=0, f2=0, g=0):
    return bytes([f1, f2, g]) + bw(link) + bw(t) + bw(nt)


def rules(paths, flags=0, k=1, max_weight=254, max_members=512):
    return (bw(gbps(100)) + bytes([2]) + bw(gbps(100)) +
            struct.pack(">H", len(paths)) + bytes([flags, k]) +
            limit(max_weight) + limit(max_members) + b"".join(paths))


def wcmp(bws, max_weight=254, max_members=512, scale=0):
    return (limit(max_weight) + limit(max_members) + bytes([scale + 8]) +
            struct.pack(">H", len(bws)) + b"".join(bw(b) for b in bws))


def groupid(subtype, ec, router_id, group, buflen=40):
    """fuzz_groupid: sub-type, length, octets, router ID, group, buffer"""
    octets = bytes.fromhex(ec)
    return (bytes([subtype, len(octets)]) + octets +
            struct.pack(">IHB", router_id, group, buflen))


# fuzz_ecmp_map operations (op % 8)
ADD, REMOVE, PIN, UNPIN, RESIZE = 0, 3, 5, 6, 7


def ecmp_map(k, ops):
    """fuzz_ecmp_map: sub-groups, then (op, router 0-31, group 0-7, arg)"""
    return bytes([k]) + b"".join(bytes([op, router | group << 5, arg])
                                 for op, router, group, arg in ops)


def dp_weight(v):
    """fuzz_dp_weight(): 0-15 in one byte, else 0xf0 and 4 bytes"""
    if v == 0xFFFFFFFF:
        return bytes([0xFF])
    return bytes([v]) if v < 16 else bytes([0xF0]) + struct.pack(">I", v)


def dp_count(v):
    """fuzz_dp_count(): 0-239 in one byte, else 0xf0 and 4 bytes"""
    if v == 0xFFFFFFFF:
        return bytes([0xFF])
    return bytes([v]) if v < 0xF0 else bytes([0xF0]) + struct.pack(">I", v)


def dp(old, new, counts, at_once=False, max_slots=256, requested=0,
       port=49152):
    """fuzz_dp: n, flags, max_slots, requested, first port, then per member
    old weight, new weight, live flows"""
    assert len(old) == len(new) == len(counts)
    return (bytes([len(old), 1 if at_once else 0]) +
            struct.pack(">HIH", max_slots, requested, port) +
            b"".join(dp_weight(o) + dp_weight(w) + dp_count(c)
                     for o, w, c in zip(old, new, counts)))


SS = 0x40  # f1: from a super-spine
STALE = 4  # f1: transitive value stale (FARE-7)

SEEDS = {
    "fuzz_pathbw": {
        # PB:65000:100.000 Gbps, the default sub-type
        "transitive-100g": pathbw(0x30, "0030fde8503a43b7", 65000, 40, G100,
                                  "100G"),
        # PB-NT, FLT_MAX (FARE-2), a 4-octet AS (its low 16 bits)
        "non-transitive-max": pathbw(0x30, "40305ba07f7fffff", 200000, 8,
                                     FLT_MAX, "max"),
        "nan": pathbw(0x30, "003000017fc00000", 1, 3, NAN, "1.6Tbps"),
        "subnormal": pathbw(0x30, "0030000100000001", 1, 0, f32(1e-45),
                            "0.5bps"),
        "other-subtype": pathbw(0x04, "0030fde8503a43b7", 65000, 16,
                                f64(123456.789), "25000"),
    },
    "fuzz_rules": {
        # WP-4: Leaf2 receives 75:75:100:100 over 100G links
        "wp4-draft": rules([path(G100, G75), path(G100, G75),
                            path(G100, G100), path(G100, G100)]),
        "wp4-averaged": rules([path(G100, G75), path(G100, G75),
                               path(G100, G100), path(G100, G100)], flags=1),
        # FARE-9: non-transitive values from super-spines, lowered
        "fare9-lower": rules([path(G100, FLT_MAX, gbps(50), f1=SS),
                              path(G100, FLT_MAX, gbps(100), f1=SS),
                              path(gbps(40), FLT_MAX, gbps(100), f1=SS)],
                             flags=4),
        # FARE-8: a super-spine, two sessions over one link
        "fare8-super-spine": rules([path(G100, gbps(200), g=1),
                                    path(G100, gbps(200), g=1)], flags=2),
        # FARE-4 per neighbor: parallel 50G + 100G links to one router
        "parallel-links": rules([path(gbps(50), FLT_MAX, g=0x11),
                                 path(G100, FLT_MAX, g=0x12),
                                 path(G100, gbps(100))]),
        # add-path: one next hop over one link, FARE-6 k = 2
        "addpath-multihomed": rules([path(G100, gbps(100), g=0x05),
                                     path(G100, gbps(200), g=0x05),
                                     path(gbps(50), gbps(100))], k=2),
        # FARE-7: a stale value
        "fare7-stale": rules([path(G100, G100), path(G100, G100, f1=STALE)]),
        # WP-3: a member budget that drops a path
        "budget": rules([path(G100, G100), path(G100, M1)],
                        max_weight=8, max_members=8),
    },
    "fuzz_groupid": {
        # EE-3: EG:10.255.0.3:2 with the default sub-type
        "valid": groupid(0x47, "83470aff00030002", 0x0AFF0003, 2),
        "no-group": groupid(0x47, "83470aff00030000", 0x0AFF0003, 0),
        "router-id-zero": groupid(0x47, "8347000000000007", 0, 7, 12),
        "other-subtype": groupid(0x30, "83470aff00030002", 1, 1),
        "flowspec-rate": groupid(0x47, "8006000000000000", 0xFFFFFFFF, 0xFFFF),
        # an IPv6 address-specific community is 20 octets
        "ipv6-length": groupid(0x47, "8347" + "00" * 18, 0x0AFF0003, 2, 0),
    },
    "fuzz_ecmp_map": {
        # EE-4: 16 remote groups on 4 sub-groups, then half go away
        "adds-removes": ecmp_map(4, [(ADD, r, g, 0) for r in range(4)
                                     for g in range(1, 5)] +
                                 [(REMOVE, r, 1, 0) for r in range(4)] +
                                 [(REMOVE, 0, g, 0) for g in range(2, 5)]),
        # the operator's map: pinned, dormant (index 9), cleared
        "explicit": ecmp_map(3, [(ADD, r, 1, 0) for r in range(9)] +
                             [(PIN, 1, 1, 2), (PIN, 2, 1, 9), (REMOVE, 1, 1, 0),
                              (ADD, 1, 1, 0), (UNPIN, 1, 1, 0), (PIN, 30, 7, 0),
                              (RESIZE, 0, 0, 10), (UNPIN, 2, 1, 0)]),
        # EE-2/EE-4: the uplink sub-groups change
        "resize": ecmp_map(2, [(ADD, r, g, 0) for r in range(8)
                               for g in range(1, 3)] +
                           [(RESIZE, 0, 0, n) for n in (8, 3, 0, 5, 16, 1)]),
    },
    "fuzz_dp": {
        # SUN-4: a plane (members 0, 1) fails, 8 QPs each
        "plane-failure": dp([1] * 8, [0, 0] + [1] * 6, [8] * 8),
        # SUN-4: two members at half bandwidth, reduced weights
        "half-failure": dp([1] * 8, [2] * 6 + [1, 1], [8] * 8, at_once=True),
        # SUN-4: the plane comes back, at once
        "recovery-at-once": dp([0, 0] + [1] * 6, [1] * 8,
                               [0, 0, 11, 11, 11, 11, 10, 10], at_once=True,
                               requested=20),
        "recovery-next-burst": dp([2] * 6 + [1, 1], [1] * 8,
                                  [9] * 6 + [5, 5]),
        # SUN-5, WP-6: 1:1:2:2 -> six slots
        "wp6": dp([1, 1, 2, 2], [1, 1, 2, 2], [1, 1, 2, 2]),
        # more reduced weight than slots, ports running out
        "budget": dp([1, 1, 100], [1, 1, 100], [0, 0, 0], max_slots=16,
                     requested=1000, port=65000),
        "huge": dp([0xFFFFFFFF, 3], [0xFFFFFFFF, 0xFFFFFFFE],
                   [0xFFFFFFFF, 1000], at_once=True),
        "many-members": dp([1] * 64, [1] * 32 + [2] * 32,
                           [i % 7 for i in range(64)], at_once=True,
                           max_slots=64),
    },
    "fuzz_wcmp": {
        "wp4": wcmp([G75, G75, G100, G100]),
        # WP-5: four 100G spines and four 200G ones
        "wp5": wcmp([G100] * 4 + [gbps(200)] * 4, max_members=128),
        "brute-small": wcmp([gbps(10), gbps(30), f64(0.3e9)], 12, 12, 1),
        "drop-path": wcmp([G100, M1], 8, 8),
        "zero-and-invalid": wcmp([ZERO, G100, f64(-1.0)], 4, 4),
        "many-paths": wcmp([gbps(10 * (i % 7 + 1)) for i in range(160)],
                           max_members=512, scale=-3),
    },
}


def main():
    for target, seeds in SEEDS.items():
        directory = os.path.join(HERE, "corpus", target)
        os.makedirs(directory, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
