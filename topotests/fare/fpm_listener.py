#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
An FPM server for the topotests, in the role SONiC's fpmsyncd has on a
switch: it accepts zebra's dplane_fpm_nl connection, decodes the netlink
messages zebra sends and keeps the latest state, written as JSON to a file
after every read (replaced atomically, so a reader never sees half of it),
and one line per message on its standard output (errors on standard error):

    {"connections": N,            # zebra (re)connections so far
     "messages": {"RTM_NEWROUTE": n, ...},   # on this connection
     "routes": {prefix: route},   # fare.netlink.decode_route(); main table
                                  # (others as "table N PREFIX")
     "nexthops": {id: nexthop},   # fare.netlink.decode_nexthop()
     "last": [message, ...]}      # the last LAST_KEPT decoded messages

A new connection starts from an empty state: zebra sends every nexthop
group and route again on connecting (its NHG and RIB walks), as it does
when "fpm use-next-hop-groups" is toggled.

FPM framing (FRR's fpm/fpm.h): 1-byte version (1), 1-byte type (1:
netlink), 2-byte big-endian length including this 4-byte header, then
one or more netlink messages.

usage: python3 -m fare.fpm_listener STATE_FILE [ADDRESS [PORT]]   (127.0.0.1 2620)
"""

import json
import os
import socket
import struct
import sys

from fare.netlink import (MSG_NAMES, RTM_DELNEXTHOP, RTM_DELROUTE, RTM_NEWNEXTHOP,
                          RTM_NEWROUTE, decode_nexthop, decode_route, messages)

FPM_HDR = struct.Struct("!BBH")
FPM_PROTO_VERSION, FPM_MSG_TYPE_NETLINK = 1, 1
LAST_KEPT = 40
RT_TABLE_MAIN = 254


def _via(msg):
    return " ".join("{} {}".format(k, msg[k]) for k in ("gateway", "ifname") if msg.get(k))


def describe(name, msg):
    """One line for a decoded message, e.g. "RTM_NEWNEXTHOP id 55 group
    12 weight 1000 (weight 0xe7 weight_high 3) / ..."."""
    if "prefix" in msg:
        out = "{} {}".format(name, msg["prefix"])
        if "nhId" in msg:
            out += " nhid {}".format(msg["nhId"])
        for hop in msg.get("multipath", []):
            out += " / {} weight {} (rtnh_hops {})".format(_via(hop), hop["weight"], hop["hops"])
        return (out + " " + _via(msg)).rstrip()
    out = "{} id {}".format(name, msg["id"])
    if "group" in msg:
        out += " group " + " / ".join(
            "{} weight {} (weight {:#04x} weight_high {})".format(
                m["id"], m["weight"], m["weightLow"], m["weightHigh"]) for m in msg["group"])
    return (out + " " + _via(msg) + (" blackhole" if msg.get("blackhole") else "")).rstrip()


class State:
    def __init__(self, path):
        self.path = path
        self.connections = 0
        self.reset()

    def reset(self):
        self.counts, self.routes, self.nexthops, self.last = {}, {}, {}, []

    def netlink(self, data):
        for mtype, _, payload in messages(data):
            name = MSG_NAMES.get(mtype, str(mtype))
            self.counts[name] = self.counts.get(name, 0) + 1
            if mtype in (RTM_NEWROUTE, RTM_DELROUTE):
                msg = decode_route(payload)
                # the main table's routes by prefix, others' "table N PREFIX"
                key = msg["prefix"] if msg["table"] == RT_TABLE_MAIN else "table {} {}".format(
                    msg["table"], msg["prefix"])
                if mtype == RTM_NEWROUTE:
                    self.routes[key] = msg
                else:
                    self.routes.pop(key, None)
            elif mtype in (RTM_NEWNEXTHOP, RTM_DELNEXTHOP):
                msg = decode_nexthop(payload)
                if mtype == RTM_NEWNEXTHOP:
                    self.nexthops[str(msg["id"])] = msg
                else:
                    self.nexthops.pop(str(msg["id"]), None)
            else:
                continue
            self.last = (self.last + [dict(msg, msg=name)])[-LAST_KEPT:]
            print(describe(name, msg), flush=True)

    def write(self):
        tmp = self.path + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"connections": self.connections, "messages": self.counts,
                       "routes": self.routes, "nexthops": self.nexthops, "last": self.last}, f,
                      indent=1, sort_keys=True)
        os.replace(tmp, self.path)


def serve(conn, state):
    buf = b""
    while True:
        data = conn.recv(1 << 16)
        if not data:
            return
        buf += data
        while len(buf) >= FPM_HDR.size:
            version, mtype, length = FPM_HDR.unpack_from(buf)
            if version != FPM_PROTO_VERSION or length < FPM_HDR.size:
                raise ValueError("bad FPM header: version {} length {}".format(version, length))
            if len(buf) < length:
                break
            if mtype == FPM_MSG_TYPE_NETLINK:
                state.netlink(buf[FPM_HDR.size:length])
            buf = buf[length:]
        state.write()


def main():
    path = sys.argv[1]
    addr = sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1"
    port = int(sys.argv[3]) if len(sys.argv) > 3 else 2620
    state = State(path)
    state.write()
    srv = socket.socket(socket.AF_INET6 if ":" in addr else socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    while True:
        conn, _ = srv.accept()
        state.connections += 1
        state.reset()
        state.write()
        try:
            serve(conn, state)
        except (OSError, ValueError) as err:
            print("fpm_listener: connection {}: {}".format(state.connections, err),
                  file=sys.stderr, flush=True)
        conn.close()


if __name__ == "__main__":
    main()
