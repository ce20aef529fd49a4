#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Dump the kernel's nexthop groups with their full 16-bit member weights
(Linux 6.12+: the high byte in struct nexthop_grp's weight_high), which
iproute2 releases older than 6.12 do not print: one JSON object
{group id: [[member id, weight], ...]} from RTM_GETNEXTHOP over netlink.

usage: fare_nhg_dump.py
"""
import json
import os
import socket
import struct

NETLINK_ROUTE = 0
RTM_NEWNEXTHOP, RTM_GETNEXTHOP = 104, 106
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
NHA_ID, NHA_GROUP = 1, 2


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    sock.bind((0, 0))
    nhmsg = struct.pack("BBBBI", socket.AF_UNSPEC, 0, 0, 0, 0)
    hdr = struct.pack("=IHHII", 16 + len(nhmsg), RTM_GETNEXTHOP, NLM_F_REQUEST | NLM_F_DUMP, 1,
                      os.getpid())
    sock.send(hdr + nhmsg)
    groups = {}
    done = False
    while not done:
        data = sock.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            length, mtype, _, _, _ = struct.unpack_from("=IHHII", data, off)
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                done = True
                break
            if mtype == RTM_NEWNEXTHOP:
                nh_id, members = None, None
                aoff = off + 16 + 8
                while aoff + 4 <= off + length:
                    alen, atype = struct.unpack_from("=HH", data, aoff)
                    payload = data[aoff + 4:aoff + alen]
                    if atype == NHA_ID:
                        nh_id = struct.unpack("=I", payload[:4])[0]
                    elif atype == NHA_GROUP:
                        members = []
                        for i in range(0, len(payload) - 7, 8):
                            mid, low, high, _ = struct.unpack_from("=IBBH", payload, i)
                            members.append([mid, ((high << 8) | low) + 1])
                    aoff += (alen + 3) & ~3
                if nh_id is not None and members is not None:
                    groups[nh_id] = members
            off += (length + 3) & ~3
    print(json.dumps(groups))


if __name__ == "__main__":
    main()
