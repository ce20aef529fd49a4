#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Send one UDP packet per flow, each flow with its own source port, to DST:
what the Linux multipath hash (fib_multipath_hash_policy=1, L4) spreads
over the members of a nexthop group. A raw socket: thousands of flows in a
fraction of a second, no dependency beyond Python.

usage: udp_flows.py DST FLOWS [SPORT_BASE] [DPORT] [PACKETS_PER_FLOW]
"""
import socket
import struct
import sys


def main():
    dst = sys.argv[1]
    flows = int(sys.argv[2])
    sport_base = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    dport = int(sys.argv[4]) if len(sys.argv) > 4 else 9
    per_flow = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    payload = b"FARE" * 16
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    sent = 0
    for _ in range(per_flow):
        for i in range(flows):
            sport = sport_base + i
            header = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0)
            sock.sendto(header + payload, (dst, 0))
            sent += 1
    print(sent)


if __name__ == "__main__":
    main()
