# SPDX-License-Identifier: GPL-2.0-or-later
"""
Decoding of the rtnetlink messages the FARE topotests read: routes
(RTM_NEWROUTE/RTM_DELROUTE) and nexthop objects (RTM_NEWNEXTHOP/
RTM_DELNEXTHOP), from the kernel (fare.nhg_dump) or from zebra over FPM
(fare.fpm_listener). Python standard library only.

Layouts, from Linux's include/uapi/linux/{netlink,rtnetlink,nexthop}.h
(FRR 10.7.1 carries a copy in include/linux/):
- struct nlmsghdr {u32 len; u16 type; u16 flags; u32 seq; u32 pid}
- struct rtmsg {u8 family, dst_len, src_len, tos, table, protocol, scope,
  type; u32 flags}, then rtattrs {u16 len; u16 type}, 4-byte aligned
- struct rtnexthop {u16 len; u8 flags; u8 hops; s32 ifindex} in
  RTA_MULTIPATH, then its own rtattrs (RTA_GATEWAY): weight = hops + 1
- struct nhmsg {u8 family, scope, protocol, resvd; u32 flags}
- struct nexthop_grp {u32 id; u8 weight; u8 weight_high; u16 resvd2} in
  NHA_GROUP: weight = ((weight_high << 8) | weight) + 1 (the kernel's
  nexthop_grp_weight(); weight_high is 0 before Linux 6.12)
"""

import socket
import struct

NLMSG_HDR = struct.Struct("=IHHII")
NLMSG_ERROR, NLMSG_DONE = 2, 3
RTM_NEWROUTE, RTM_DELROUTE = 24, 25
RTM_NEWNEXTHOP, RTM_DELNEXTHOP, RTM_GETNEXTHOP = 104, 105, 106
MSG_NAMES = {RTM_NEWROUTE: "RTM_NEWROUTE", RTM_DELROUTE: "RTM_DELROUTE",
             RTM_NEWNEXTHOP: "RTM_NEWNEXTHOP", RTM_DELNEXTHOP: "RTM_DELNEXTHOP"}

RTMSG = struct.Struct("=BBBBBBBBI")
RTA_DST, RTA_OIF, RTA_GATEWAY, RTA_MULTIPATH, RTA_TABLE, RTA_NH_ID = 1, 4, 5, 9, 15, 30
RTNEXTHOP = struct.Struct("=HBBi")

NHMSG = struct.Struct("=BBBBI")
NHA_ID, NHA_GROUP, NHA_BLACKHOLE, NHA_OIF, NHA_GATEWAY = 1, 2, 4, 5, 6
NEXTHOP_GRP = struct.Struct("=IBBH")

NLA_TYPE_MASK = 0x3fff  # without NLA_F_NESTED and NLA_F_NET_BYTEORDER


def align4(n):
    return (n + 3) & ~3


def messages(data):
    """(type, flags, payload) of each netlink message in `data`."""
    off = 0
    while off + NLMSG_HDR.size <= len(data):
        length, mtype, flags, _, _ = NLMSG_HDR.unpack_from(data, off)
        if length < NLMSG_HDR.size or off + length > len(data):
            raise ValueError("bad nlmsg_len {} at {} of {}".format(length, off, len(data)))
        yield mtype, flags, data[off + NLMSG_HDR.size:off + length]
        off += align4(length)


def attrs(data, off=0):
    """{type: payload} of the rtattrs in data[off:] (the last of a type wins)."""
    out = {}
    while off + 4 <= len(data):
        alen, atype = struct.unpack_from("=HH", data, off)
        if alen < 4:
            raise ValueError("bad rta_len {} at {}".format(alen, off))
        out[atype & NLA_TYPE_MASK] = data[off + 4:off + alen]
        off += align4(alen)
    return out


def u32(payload):
    return struct.unpack("=I", payload[:4])[0]


def address(family, payload):
    return socket.inet_ntop(family, payload)


def ifname(index):
    """Interface name of ifindex `index` in this namespace (None: gone)."""
    try:
        return socket.if_indextoname(index)
    except OSError:
        return None


def nexthop_grp(payload):
    """Members of an NHA_GROUP: [{id, weight, weightLow, weightHigh}]."""
    members = []
    for off in range(0, len(payload) - NEXTHOP_GRP.size + 1, NEXTHOP_GRP.size):
        mid, low, high, _ = NEXTHOP_GRP.unpack_from(payload, off)
        members.append({"id": mid, "weight": ((high << 8) | low) + 1,
                        "weightLow": low, "weightHigh": high})
    return members


def decode_nexthop(payload):
    """An RTM_NEWNEXTHOP/RTM_DELNEXTHOP body as a dict: id, and group
    (members with weights) or oif/ifname/gateway, or blackhole."""
    family, _, protocol, _, _ = NHMSG.unpack_from(payload)
    tb = attrs(payload, NHMSG.size)
    nh = {"id": u32(tb[NHA_ID]) if NHA_ID in tb else None, "protocol": protocol}
    if NHA_GROUP in tb:
        nh["group"] = nexthop_grp(tb[NHA_GROUP])
    if NHA_OIF in tb:
        nh["oif"] = u32(tb[NHA_OIF])
        nh["ifname"] = ifname(nh["oif"])
    if NHA_GATEWAY in tb:
        nh["gateway"] = address(family, tb[NHA_GATEWAY])
    if NHA_BLACKHOLE in tb:
        nh["blackhole"] = True
    return nh


def decode_route(payload):
    """An RTM_NEWROUTE/RTM_DELROUTE body as a dict: prefix, table, and
    nhId (RTA_NH_ID), or multipath (rtnexthops: ifindex, ifname, gateway,
    hops, weight = hops + 1), or oif/ifname/gateway."""
    family, dst_len, _, _, table, protocol, _, rtype, _ = RTMSG.unpack_from(payload)
    tb = attrs(payload, RTMSG.size)
    if RTA_DST in tb:
        dst = address(family, tb[RTA_DST])
    else:
        dst = "0.0.0.0" if family == socket.AF_INET else "::"
    rt = {"prefix": "{}/{}".format(dst, dst_len), "family": family,
          "table": u32(tb[RTA_TABLE]) if RTA_TABLE in tb else table,
          "protocol": protocol, "type": rtype}
    if RTA_NH_ID in tb:
        rt["nhId"] = u32(tb[RTA_NH_ID])
    if RTA_OIF in tb:
        rt["oif"] = u32(tb[RTA_OIF])
        rt["ifname"] = ifname(rt["oif"])
    if RTA_GATEWAY in tb:
        rt["gateway"] = address(family, tb[RTA_GATEWAY])
    if RTA_MULTIPATH in tb:
        mp, off, hops = tb[RTA_MULTIPATH], 0, []
        while off + RTNEXTHOP.size <= len(mp):
            rlen, _, nhops, index = RTNEXTHOP.unpack_from(mp, off)
            if rlen < RTNEXTHOP.size:
                raise ValueError("bad rtnh_len {}".format(rlen))
            sub = attrs(mp[off:off + rlen], RTNEXTHOP.size)
            hop = {"ifindex": index, "ifname": ifname(index), "hops": nhops,
                   "weight": nhops + 1}
            if RTA_GATEWAY in sub:
                hop["gateway"] = address(family, sub[RTA_GATEWAY])
            hops.append(hop)
            off += align4(rlen)
        rt["multipath"] = hops
    return rt
