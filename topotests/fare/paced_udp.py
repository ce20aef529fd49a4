#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Send UDP at a steady rate over many flows (one source port each, round
robin), for throughput measurements through shaped links: the Linux
multipath hash (fib_multipath_hash_policy=1, L4) spreads the flows over
the members of a nexthop group, and every flow carries the same rate. A
raw socket, so that thousands of flows need no socket each.

usage: paced_udp.py DST MBIT SECONDS [FLOWS] [SIZE]
Prints the number of packets sent and the rate achieved (Mb/s, IP bytes).
"""
import socket
import struct
import sys
import time


def main():
    dst, mbit, seconds = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    flows = int(sys.argv[4]) if len(sys.argv) > 4 else 8192
    size = int(sys.argv[5]) if len(sys.argv) > 5 else 1000
    sock = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    payload = b"F" * size
    packets = [struct.pack("!HHHH", 20000 + i, 9, 8 + size, 0) + payload for i in range(flows)]
    pps = mbit * 1e6 / 8 / (size + 28)
    start = time.monotonic()
    sent = 0
    while True:
        now = time.monotonic() - start
        if now >= seconds:
            break
        due = int(now * pps)
        while sent < due:
            sock.sendto(packets[sent % flows], (dst, 0))
            sent += 1
        time.sleep(0.0005)
    elapsed = time.monotonic() - start
    print(sent, sent * (size + 28) * 8 / elapsed / 1e6)


if __name__ == "__main__":
    main()
