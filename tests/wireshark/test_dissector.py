#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Tests of tools/wireshark/fare.lua, the FARE extended communities for
tshark: a pcap of hand-built BGP UPDATEs (scapy) decoded by tshark with the
Lua script, every decoded field compared with the value it must have.

1. Fixed cases: Path Bandwidth transitive 400G from AS 65101, non-transitive
   100G, zero, negative, NaN (quiet and signalling), +inf, -inf, subnormal,
   FLT_MAX ("max"), AS 23456, two Path Bandwidths among other communities
   in one UPDATE, sub-type 0x31 (decoded only with -o fare.pb_subtype:0x31),
   GroupID 10.255.0.3:2 and its unusable forms, two UPDATEs in one TCP
   segment, an UPDATE split over two segments, UPDATEs without FARE.
2. Differential: a thousand values (random bits, realistic bandwidths, unit
   boundaries) whose text and class must be what the reference codecs
   (bgpd-fare/core/fare_pathbw.c, fare_groupid.c, compiled here with cc and
   called through ctypes) print, i.e. what FRR's `show bgp` prints.

usage: tests/wireshark/test_dissector.py  (Debian: /usr/bin/python3 with
python3-scapy, tshark; FARE_LUA=path overrides the script, TSHARK the
binary). Prints "N passed, M failed" last; exits non-zero on failure.
"""

import ctypes
import math
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LUA = os.environ.get("FARE_LUA", os.path.join(TOP, "tools", "wireshark", "fare.lua"))
TSHARK = os.environ.get("TSHARK", "tshark")
CORE = os.path.join(TOP, "bgpd-fare", "core")

FLT_MAX_BITS = 0x7F7FFFFF

# ---------------------------------------------------------------------------
# BGP messages, by hand (RFC 4271, RFC 4360)
# ---------------------------------------------------------------------------


def pb(asn, value, transitive=True, subtype=0x30):
    """Path Bandwidth (FARE-1); value: a float, or ("bits", 0x7fc00000)"""
    typ = 0x00 if transitive else 0x40
    if isinstance(value, tuple):
        return struct.pack(">BBHI", typ, subtype, asn, value[1])
    return struct.pack(">BBHf", typ, subtype, asn, value)


def gid(router_id, group, subtype=0x47, typ=0x83):
    """ECMP GroupID (EE-3)"""
    return struct.pack(">BB4BH", typ, subtype, *map(int, router_id.split(".")), group)


def route_target(asn, num):
    return struct.pack(">BBHI", 0x00, 0x02, asn, num)


def link_bandwidth(asn, value):
    return struct.pack(">BBHf", 0x40, 0x04, asn, value)


def attr(flags, code, value):
    if len(value) > 255:
        return struct.pack(">BBH", flags | 0x10, code, len(value)) + value
    return struct.pack(">BBB", flags, code, len(value)) + value


def update(comms, prefix=(172, 16, 1)):
    """An IPv4 UPDATE: ORIGIN, empty AS_PATH, NEXT_HOP, EXTENDED
    COMMUNITIES (when comms), one /24"""
    attrs = attr(0x40, 1, b"\x00") + attr(0x40, 2, b"") + attr(0x40, 3, bytes([10, 0, 0, 1]))
    if comms:
        attrs += attr(0xC0, 16, b"".join(comms))
    body = struct.pack(">HH", 0, len(attrs)) + attrs + bytes([24]) + bytes(prefix)
    return b"\xff" * 16 + struct.pack(">HB", 19 + len(body), 2) + body


def keepalive():
    return b"\xff" * 16 + struct.pack(">HB", 19, 4)


# ---------------------------------------------------------------------------
# The fixed cases: (name, [TCP payloads, one per frame]); the UPDATE is
# decoded in the frame of its last segment.
# ---------------------------------------------------------------------------

SPLIT = update([route_target(65101, 7), pb(65101, 2.5e10)], prefix=(172, 16, 9))

CASES = [
    ("pb400", [update([pb(65101, 5e10)])]),
    ("pb100nt", [update([pb(65101, 1.25e10, transitive=False)])]),
    ("zero", [update([pb(65101, 0.0)])]),
    ("negative", [update([pb(65101, -1.25e10)])]),
    ("nan", [update([pb(65101, ("bits", 0x7FC00000))])]),
    ("snan", [update([pb(65101, ("bits", 0xFF800001))])]),
    ("inf", [update([pb(65101, ("bits", 0x7F800000))])]),
    ("neginf", [update([pb(65101, ("bits", 0xFF800000))])]),
    ("subnormal", [update([pb(65101, ("bits", 0x00000001)), pb(65101, ("bits", 0x80000001))])]),
    ("max", [update([pb(65101, ("bits", FLT_MAX_BITS))])]),
    ("astrans", [update([pb(23456, 2e11)])]),
    (
        "two",
        [
            update(
                [
                    route_target(65101, 100),
                    pb(65101, 5e10),
                    link_bandwidth(65101, 1.25e10),
                    pb(65201, 2.5e10, transitive=False),
                ]
            )
        ],
    ),
    ("sub31", [update([pb(65101, 1e11, subtype=0x31)])]),
    ("gid", [update([pb(65101, 5e10), gid("10.255.0.3", 2)])]),
    (
        "gidbad",
        [
            update(
                [
                    gid("10.255.0.3", 0),
                    gid("0.0.0.0", 2),
                    gid("10.255.0.4", 3, subtype=0x48),
                    gid("10.255.0.5", 4, typ=0x80),
                ]
            )
        ],
    ),
    (
        "twoupdates",
        [update([pb(65101, 5e10)]) + update([gid("10.255.0.3", 2)], prefix=(172, 16, 2))],
    ),
    ("split", [SPLIT[:40], SPLIT[40:]]),
    ("plain", [update([route_target(65101, 100)]) + keepalive()]),
]


def write_pcap(path, payloads):
    """One TCP stream 10.0.0.1:40000 -> 10.0.0.2:179, consecutive
    sequence numbers, one frame per payload."""
    # scapy is slow to import: only here
    from scapy.all import IP, TCP, Ether, Raw, wrpcap  # pylint: disable=C0415

    seq = 1000
    pkts = []
    for payload in payloads:
        pkts.append(
            Ether(src="02:00:00:00:00:01", dst="02:00:00:00:00:02")
            / IP(src="10.0.0.1", dst="10.0.0.2")
            / TCP(sport=40000, dport=179, flags="PA", seq=seq, ack=1)
            / Raw(payload)
        )
        seq += len(payload)
    wrpcap(path, pkts)


FIELDS = [
    "frame.number",
    "fare.pb.text",
    "fare.pb.class",
    "fare.pb.transitive",
    "fare.pb.subtype",
    "fare.pb.as",
    "fare.pb.raw",
    "fare.pb.bytes_per_sec",
    "fare.pb.bits_per_sec",
    "fare.pb.usable",
    "fare.gid.text",
    "fare.gid.class",
    "fare.gid.subtype",
    "fare.gid.router_id",
    "fare.gid.group",
    "bgp.ext_community",
]


def tshark(pcap, *args, fields=FIELDS, lua=None):
    """tshark with the script; {frame number: {field: [values]}} of the
    frames that pass the filter (-Y in args; every frame without)"""
    cmd = [TSHARK, "-n", "-X", "lua_script:" + (lua or LUA), "-r", pcap, "-T", "fields"]
    cmd += ["-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in fields:
        cmd += ["-e", f]
    cmd += list(args)
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise AssertionError("{} failed ({}): {}".format(" ".join(cmd), res.returncode, res.stderr))
    stderr = "\n".join(
        line for line in res.stderr.splitlines() if "Running as user" not in line
    )
    if "Lua" in stderr or "lua" in stderr:
        raise AssertionError("tshark reported a Lua problem: " + stderr)
    frames = {}
    for line in res.stdout.splitlines():
        cols = line.split("\t")
        row = {f: (cols[i].split("|") if i < len(cols) and cols[i] else []) for i, f in enumerate(fields)}
        frames[int(row["frame.number"][0])] = row
    return frames, stderr


class Capture:
    """The pcap of the fixed cases and tshark's view of it, once."""

    tmp = None
    pcap = None
    frame_of = {}

    @classmethod
    def build(cls):
        if cls.pcap:
            return
        cls.tmp = tempfile.mkdtemp(prefix="fare-dissector-")
        cls.pcap = os.path.join(cls.tmp, "fare.pcap")
        payloads, frame = [], 0
        for name, segments in CASES:
            payloads += segments
            frame += len(segments)
            cls.frame_of[name] = frame
        write_pcap(cls.pcap, payloads)


def setUpModule():
    if not os.path.isfile(LUA):
        raise AssertionError("the dissector is missing: " + LUA)
    if not shutil.which(TSHARK):
        raise AssertionError("tshark not found (Debian: apt-get install tshark)")
    Capture.build()


def tearDownModule():
    if Capture.tmp:
        shutil.rmtree(Capture.tmp, ignore_errors=True)


class FixedCases(unittest.TestCase):
    """Every decoded field of the hand-built UPDATEs, exactly."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.frames, cls.stderr = tshark(Capture.pcap)

    def row(self, name):
        frame = Capture.frame_of[name]
        self.assertIn(frame, self.frames, "frame {} ({}) missing".format(frame, name))
        return self.frames[frame]

    def check_pb(self, name, **want):
        row = self.row(name)
        got = {k: row["fare.pb." + k] for k in want}
        self.assertEqual(got, want, name)

    def test_transitive_400g(self):
        self.check_pb(
            "pb400",
            text=["PB:65101:400.000 Gbps"],
            **{"class": ["valid"]},
            transitive=["1"],
            subtype=["0x30"],
            raw=["0x513a43b7"],
            bytes_per_sec=["5e+10"],
            bits_per_sec=["400000000000"],
            usable=["1"],
        )
        self.assertEqual(self.row("pb400")["fare.pb.as"], ["65101"])
        self.assertEqual(self.row("pb400")["fare.gid.text"], [])

    def test_non_transitive_100g(self):
        self.check_pb(
            "pb100nt",
            text=["PB-NT:65101:100.000 Gbps"],
            **{"class": ["valid"]},
            transitive=["0"],
            raw=["0x503a43b7"],
            bytes_per_sec=["1.25e+10"],
            bits_per_sec=["100000000000"],
            usable=["1"],
        )

    def test_zero(self):
        self.check_pb(
            "zero",
            text=["PB:65101:0 bps"],
            **{"class": ["zero"]},
            raw=["0x00000000"],
            bits_per_sec=["0"],
            usable=["1"],
        )

    def test_negative(self):
        self.check_pb(
            "negative",
            text=["PB:65101:invalid(negative)"],
            **{"class": ["negative"]},
            raw=["0xd03a43b7"],
            # unusable: the raw float (-12499999744) times 8
            bits_per_sec=["-99999997952"],
            usable=["0"],
        )

    def test_nan(self):
        self.check_pb(
            "nan", text=["PB:65101:invalid(nan)"], **{"class": ["nan"]}, usable=["0"]
        )
        # signalling and with the sign bit set: still a NaN (classified by bits)
        self.check_pb(
            "snan", text=["PB:65101:invalid(nan)"], **{"class": ["nan"]}, raw=["0xff800001"]
        )

    def test_infinities(self):
        self.check_pb(
            "inf", text=["PB:65101:invalid(infinite)"], **{"class": ["infinite"]}, usable=["0"]
        )
        self.check_pb(
            "neginf",
            text=["PB:65101:invalid(negative-infinite)"],
            **{"class": ["negative-infinite"]},
            usable=["0"],
        )

    def test_subnormal(self):
        # a negative subnormal is "negative" (fare_pathbw.h)
        self.check_pb(
            "subnormal",
            text=["PB:65101:invalid(subnormal)", "PB:65101:invalid(negative)"],
            **{"class": ["subnormal", "negative"]},
            raw=["0x00000001", "0x80000001"],
            usable=["0", "0"],
        )

    def test_max(self):
        self.check_pb("max", text=["PB:65101:max"], **{"class": ["valid"]}, raw=["0x7f7fffff"])

    def test_as_trans(self):
        self.check_pb("astrans", text=["PB:23456:1.600 Tbps"], bits_per_sec=["1600000000000"])
        self.assertEqual(self.row("astrans")["fare.pb.as"], ["23456"])

    def test_two_in_one_update(self):
        "Route target and link bandwidth around them are not FARE's."
        row = self.row("two")
        self.assertEqual(len(row["bgp.ext_community"]), 4)
        self.assertEqual(
            row["fare.pb.text"], ["PB:65101:400.000 Gbps", "PB-NT:65201:200.000 Gbps"]
        )
        self.assertEqual(row["fare.pb.as"], ["65101", "65201"])
        self.assertEqual(row["fare.pb.transitive"], ["1", "0"])
        self.assertEqual(row["fare.pb.bits_per_sec"], ["400000000000", "200000000000"])

    def test_other_subtype_not_decoded_by_default(self):
        row = self.row("sub31")
        self.assertEqual(row["bgp.ext_community"], ["1"])
        self.assertEqual(row["fare.pb.text"], [])

    def test_groupid(self):
        row = self.row("gid")
        self.assertEqual(row["fare.gid.text"], ["EG:10.255.0.3:2"])
        self.assertEqual(row["fare.gid.router_id"], ["10.255.0.3"])
        self.assertEqual(row["fare.gid.group"], ["2"])
        self.assertEqual(row["fare.gid.class"], ["valid"])
        self.assertEqual(row["fare.gid.subtype"], ["0x47"])
        self.assertEqual(row["fare.pb.text"], ["PB:65101:400.000 Gbps"])

    def test_groupid_unusable_and_foreign(self):
        row = self.row("gidbad")
        self.assertEqual(
            row["fare.gid.text"], ["EG:10.255.0.3:0(no-group)", "EG:0.0.0.0:2(router-id-zero)"]
        )
        self.assertEqual(row["fare.gid.class"], ["no-group", "router-id-zero"])
        self.assertEqual(row["fare.pb.text"], [])

    def test_two_updates_in_one_segment(self):
        row = self.row("twoupdates")
        self.assertEqual(row["fare.pb.text"], ["PB:65101:400.000 Gbps"])
        self.assertEqual(row["fare.gid.text"], ["EG:10.255.0.3:2"])

    def test_update_split_over_two_segments(self):
        first = self.frames[Capture.frame_of["split"] - 1]
        self.assertEqual((first["bgp.ext_community"], first["fare.pb.text"]), ([], []))
        row = self.row("split")
        self.assertEqual(len(row["bgp.ext_community"]), 2)
        self.assertEqual(row["fare.pb.text"], ["PB:65101:200.000 Gbps"])

    def test_no_fare_no_tree(self):
        "Only the frames with a FARE community pass the filter `fare`."
        frames, _ = tshark(Capture.pcap, "-Y", "fare", fields=["frame.number"])
        want = {
            Capture.frame_of[n]
            for n, _ in CASES
            if n not in ("sub31", "plain")
        }
        self.assertEqual(set(frames), want)
        frames, _ = tshark(Capture.pcap, "-Y", 'fare.pb.class == "nan"', fields=["frame.number"])
        self.assertEqual(set(frames), {Capture.frame_of["nan"], Capture.frame_of["snan"]})

    def test_summary_line_and_expert(self):
        "The FARE tree's label lists the texts; unusable values raise an expert warning."
        out = subprocess.run(
            [TSHARK, "-n", "-X", "lua_script:" + LUA, "-r", Capture.pcap, "-O", "fare",
             "-Y", "frame.number == {}".format(Capture.frame_of["gid"])],
            capture_output=True, text=True, check=True,
        ).stdout
        self.assertIn("FARE: PB:65101:400.000 Gbps, EG:10.255.0.3:2", out)
        frames, _ = tshark(Capture.pcap, "-Y", "fare.pb.invalid || fare.gid.invalid",
                           fields=["frame.number"])
        want = {Capture.frame_of[n] for n in
                ("negative", "nan", "snan", "inf", "neginf", "subnormal", "gidbad")}
        self.assertEqual(set(frames), want)


class Preferences(unittest.TestCase):
    "-o fare.pb_subtype / fare.gid_subtype"

    def test_pb_subtype_0x31(self):
        for value in ("0x31", "49"):
            frames, _ = tshark(Capture.pcap, "-o", "fare.pb_subtype:" + value)
            row = frames[Capture.frame_of["sub31"]]
            self.assertEqual(row["fare.pb.text"], ["PB:65101:800.000 Gbps"], value)
            self.assertEqual(row["fare.pb.subtype"], ["0x31"])
            self.assertEqual(row["fare.pb.bits_per_sec"], ["800000000000"])
            # the 0x30 ones are then not Path Bandwidth; the GroupID stays
            self.assertEqual(frames[Capture.frame_of["pb400"]]["fare.pb.text"], [])
            self.assertEqual(frames[Capture.frame_of["gid"]]["fare.pb.text"], [])
            self.assertEqual(frames[Capture.frame_of["gid"]]["fare.gid.text"],
                             ["EG:10.255.0.3:2"])

    def test_gid_subtype(self):
        frames, _ = tshark(Capture.pcap, "-o", "fare.gid_subtype:0x48")
        self.assertEqual(frames[Capture.frame_of["gidbad"]]["fare.gid.text"], ["EG:10.255.0.4:3"])
        self.assertEqual(frames[Capture.frame_of["gid"]]["fare.gid.text"], [])

    def test_bad_value_refused(self):
        cmd = [TSHARK, "-n", "-X", "lua_script:" + LUA, "-o", "fare.pb_subtype:256",
               "-r", Capture.pcap, "-T", "fields", "-e", "fare.pb.subtype"]
        res = subprocess.run(cmd, capture_output=True, text=True, check=False)
        self.assertIn('sub-type "256" is not 0-255', res.stderr)
        # the default stays
        self.assertIn("0x30", res.stdout.split())


# ---------------------------------------------------------------------------
# Differential: the reference codecs through ctypes
# ---------------------------------------------------------------------------


class FarePathbw(ctypes.Structure):
    _fields_ = [
        ("transitive", ctypes.c_bool),
        ("subtype", ctypes.c_uint8),
        ("as_", ctypes.c_uint16),
        ("bytes_per_sec", ctypes.c_float),
        ("cls", ctypes.c_int),
    ]


class FareGroupid(ctypes.Structure):
    _fields_ = [
        ("subtype", ctypes.c_uint8),
        ("router_id", ctypes.c_uint32),
        ("group_id", ctypes.c_uint16),
        ("cls", ctypes.c_int),
    ]


def reference_codecs(tmp):
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        return None
    lib = os.path.join(tmp, "libfarecore.so")
    subprocess.run(
        [cc, "-std=gnu11", "-O1", "-shared", "-fPIC", "-o", lib,
         os.path.join(CORE, "fare_pathbw.c"), os.path.join(CORE, "fare_groupid.c"), "-lm"],
        check=True,
    )
    so = ctypes.CDLL(lib)
    so.fare_pathbw_decode.restype = ctypes.c_bool
    so.fare_pathbw_decode.argtypes = [ctypes.c_char_p, ctypes.c_uint8, ctypes.POINTER(FarePathbw)]
    so.fare_pathbw_format.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(FarePathbw)]
    so.fare_bw_class_name.restype = ctypes.c_char_p
    so.fare_bw_class_usable.restype = ctypes.c_bool
    so.fare_bw_wire_value.restype = ctypes.c_double
    so.fare_bw_wire_value.argtypes = [ctypes.c_float]
    so.fare_groupid_decode.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_uint8,
                                       ctypes.POINTER(FareGroupid)]
    so.fare_groupid_format.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(FareGroupid)]
    so.fare_groupid_class_name.restype = ctypes.c_char_p
    return so


def c_pathbw(so, ec):
    pbw = FarePathbw()
    assert so.fare_pathbw_decode(ec, 0x30, ctypes.byref(pbw))
    buf = ctypes.create_string_buffer(128)
    so.fare_pathbw_format(buf, len(buf), ctypes.byref(pbw))
    cls = so.fare_bw_class_name(pbw.cls).decode()
    raw = struct.unpack(">f", ec[4:])[0]
    bits = (so.fare_bw_wire_value(raw) if so.fare_bw_class_usable(pbw.cls) else raw) * 8
    return buf.value.decode(), cls, bits


def c_groupid(so, ec):
    g = FareGroupid()
    so.fare_groupid_decode(ec, 8, 0x47, ctypes.byref(g))
    buf = ctypes.create_string_buffer(64)
    so.fare_groupid_format(buf, len(buf), ctypes.byref(g))
    return buf.value.decode(), so.fare_groupid_class_name(g.cls).decode()


def random_values(rng):
    """Local Administrators (as 32 bits) worth comparing"""
    vals = [0x00000000, 0x80000000, 0x00800000, 0x007FFFFF, 0x7F7FFFFF, 0x7F7FFFFE,
            0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFFFFFFFF, 0x3F800000]
    # unit boundaries and the 999.9995 switch, in bytes/s
    for unit in (1e3, 1e6, 1e9, 1e12, 1e15, 1e18):
        for k in (0.9999994, 0.9999995, 0.9999996, 1.0, 1.0000001, 999.9994, 999.9996):
            vals.append(struct.unpack(">I", struct.pack(">f", unit * k / 8))[0])
    # realistic line rates: 1 Mb/s to 100 Tb/s, bytes/s
    for _ in range(400):
        v = 10 ** rng.uniform(5, 13) / 8
        if rng.random() < 0.3:
            v = round(v / 1.25e8) * 1.25e8 or 1.25e8
        vals.append(struct.unpack(">I", struct.pack(">f", v))[0])
    # any 32 bits, and sub-1000-bps values
    vals += [rng.getrandbits(32) for _ in range(400)]
    vals += [struct.unpack(">I", struct.pack(">f", rng.uniform(0, 125)))[0] for _ in range(100)]
    return vals


class Differential(unittest.TestCase):
    """The script prints what FRR prints, for values no one picked."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="fare-dissector-diff-")
        cls.so = reference_codecs(cls.tmp)
        if cls.so is None:
            raise unittest.SkipTest("no C compiler (cc): no comparison with the reference codecs")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_against_reference_codecs(self):
        rng = random.Random(20250301)
        pbs = [pb(rng.randrange(65536), ("bits", v), transitive=rng.random() < 0.5)
               for v in random_values(rng)]
        gids = [gid("{}.{}.{}.{}".format(*(rng.choice([0, rng.randrange(256)]) for _ in range(4))),
                    rng.choice([0, 1, 2, rng.randrange(65536)])) for _ in range(200)]
        comms = pbs + gids
        chunks = [comms[i:i + 200] for i in range(0, len(comms), 200)]
        pcap = os.path.join(self.tmp, "diff.pcap")
        write_pcap(pcap, [update(c, prefix=(172, 17, i)) for i, c in enumerate(chunks)])
        frames, _ = tshark(pcap, fields=["frame.number", "fare.pb.text", "fare.pb.class",
                                         "fare.pb.bits_per_sec", "fare.gid.text",
                                         "fare.gid.class"])
        got_pb, got_gid = [], []
        for n in sorted(frames):
            row = frames[n]
            got_pb += zip(row["fare.pb.text"], row["fare.pb.class"], row["fare.pb.bits_per_sec"])
            got_gid += zip(row["fare.gid.text"], row["fare.gid.class"])
        self.assertEqual(len(got_pb), len(pbs))
        self.assertEqual(len(got_gid), len(gids))
        for ec, (text, cls, bits) in zip(pbs, got_pb):
            want_text, want_cls, want_bits = c_pathbw(self.so, ec)
            self.assertEqual((text, cls), (want_text, want_cls), ec.hex())
            got = float(bits)
            if math.isnan(want_bits):
                self.assertTrue(math.isnan(got), ec.hex())
            else:
                # tshark prints a double with 15 significant digits
                self.assertTrue(math.isclose(got, want_bits, rel_tol=1e-14, abs_tol=1e-300)
                                or got == want_bits, "{}: {} != {}".format(ec.hex(), got, want_bits))
        for ec, (text, cls) in zip(gids, got_gid):
            self.assertEqual((text, cls), c_groupid(self.so, ec), ec.hex())


class Harness(unittest.TestCase):
    """The checks above can fail: without the script nothing is decoded."""

    def test_without_script_no_fare(self):
        empty = os.path.join(Capture.tmp, "empty.lua")
        with open(empty, "w") as f:
            f.write("-- no dissector\n")
        with self.assertRaises(AssertionError):
            tshark(Capture.pcap, lua=empty)


def main():
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(result.failures) + len(result.errors)
    passed = max(0, result.testsRun - failed - len(result.skipped))
    print("{} passed, {} failed".format(passed, failed))
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
