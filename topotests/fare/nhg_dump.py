#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Dump the kernel's nexthop groups with their full 16-bit member weights
(Linux 6.12+: the high byte in struct nexthop_grp's weight_high), which
iproute2 releases older than 6.12 do not print: one JSON object
{group id: [[member id, weight], ...]} from RTM_GETNEXTHOP over netlink.

usage: python3 -m fare.nhg_dump   (with this package's parent directory on PYTHONPATH)
"""
import json
import os
import socket
import struct

from fare.netlink import (NLMSG_DONE, NLMSG_ERROR, NLMSG_HDR, RTM_GETNEXTHOP, RTM_NEWNEXTHOP,
                          decode_nexthop, messages)

NETLINK_ROUTE = 0
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
    sock.bind((0, 0))
    nhmsg = struct.pack("BBBBI", socket.AF_UNSPEC, 0, 0, 0, 0)
    hdr = NLMSG_HDR.pack(NLMSG_HDR.size + len(nhmsg), RTM_GETNEXTHOP, NLM_F_REQUEST | NLM_F_DUMP,
                         1, os.getpid())
    sock.send(hdr + nhmsg)
    groups = {}
    done = False
    while not done:
        for mtype, _, payload in messages(sock.recv(1 << 20)):
            if mtype in (NLMSG_DONE, NLMSG_ERROR):
                done = True
                break
            if mtype == RTM_NEWNEXTHOP:
                nh = decode_nexthop(payload)
                if nh["id"] is not None and "group" in nh:
                    groups[nh["id"]] = [[m["id"], m["weight"]] for m in nh["group"]]
    print(json.dumps(groups))


if __name__ == "__main__":
    main()
