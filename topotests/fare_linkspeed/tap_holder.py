#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Hold a tap device open so that it has carrier (a tap is NO-CARRIER while
no process has it attached), and do nothing else: the frames the kernel
sends out of it are taken off by a tc mirred redirect before they reach
this file descriptor (see test_fare_linkspeed.py).

    tap_holder.py IFNAME

Prints "attached IFNAME" once attached, then sleeps until killed.
"""

import fcntl
import os
import signal
import struct
import sys

TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000


def main():
    name = sys.argv[1]
    fd = os.open("/dev/net/tun", os.O_RDWR)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TAP | IFF_NO_PI))
    print("attached", name, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        signal.pause()


if __name__ == "__main__":
    main()
