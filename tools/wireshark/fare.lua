-- SPDX-License-Identifier: GPL-2.0-or-later
--[[
FARE extended communities for Wireshark and tshark (Lua postdissector).

Decodes, in every BGP extended community Wireshark's own BGP dissector
finds in a packet (field bgp.ext_community, UPDATEs in any address family,
several per UPDATE and several UPDATEs per segment), the two communities of
the FARE module (doc/user/fare-rules.rst):

  Path Bandwidth (FARE-1): type 0x00 (transitive) or 0x40 (non-transitive),
    sub-type 0x30 by default, Global Administrator = 2-octet AS, Local
    Administrator = IEEE 754 single float, bytes per second.
  ECMP GroupID (EE-3): type 0x83, sub-type 0x47 by default, value = 4-octet
    BGP router ID + 2-octet group ID.

Each is added under a "FARE" tree after the packet's other protocols, with
the text FRR prints for it in `show bgp ... PREFIX` ("PB:65101:400.000
Gbps", "PB-NT:65101:invalid(nan)", "EG:10.255.0.3:2") and the value class
names of the reference codecs (bgpd-fare/core/fare_pathbw.c,
fare_groupid.c).

Fields (display filters, tshark -e):
  fare.pb                  the 8 octets of a Path Bandwidth community
  fare.pb.transitive       type 0x00 (true) or 0x40 (false)
  fare.pb.subtype          sub-type
  fare.pb.as               Global Administrator (the writer's AS modulo 2^16)
  fare.pb.raw              Local Administrator, the float's 32 bits
  fare.pb.bytes_per_sec    the float as sent (single precision)
  fare.pb.bits_per_sec     bandwidth in bits/s as bgpd computes with it:
                           for a usable value the float read to 6
                           significant digits (400 Gb/s sent as a float
                           is 4e11 exactly), times 8; otherwise the raw
                           value times 8 (nan, inf, negative, subnormal)
  fare.pb.class            valid, zero, subnormal, negative, nan, infinite,
                           negative-infinite (fare_bw_class_name())
  fare.pb.usable           class valid or zero: takes part in FARE-4/5
  fare.pb.text             FRR's display text, e.g. "PB:65101:400.000 Gbps"
  fare.gid                 the 8 octets of an ECMP GroupID community
  fare.gid.subtype         sub-type
  fare.gid.router_id       router ID (IPv4)
  fare.gid.group           group ID (0 is reserved: no group)
  fare.gid.class           valid, no-group, router-id-zero
                           (fare_groupid_class_name())
  fare.gid.text            FRR's display text, e.g. "EG:10.255.0.3:2",
                           "EG:10.255.0.3:0(no-group)"
Unusable values also raise an expert warning (fare.pb.invalid,
fare.gid.invalid).

Preferences (Edit > Preferences > Protocols > FARE, or tshark -o), the
sub-types the fabric uses (bgp fare path-bandwidth sub-type, bgp fare
ecmp-group-id sub-type), decimal or 0x hexadecimal:
  fare.pb_subtype   Path Bandwidth sub-type, default 0x30
  fare.gid_subtype  ECMP GroupID sub-type, default 0x47

Usage, from the top of the FARE checkout:
  tshark -X lua_script:tools/wireshark/fare.lua -r bgp.pcap -Y fare
  tshark -X lua_script:tools/wireshark/fare.lua -r bgp.pcap -Y fare.pb \
      -T fields -e frame.number -e fare.pb.text -e fare.gid.text
  tshark -X lua_script:tools/wireshark/fare.lua -o fare.pb_subtype:0x31 \
      -r bgp.pcap -O fare
  wireshark -X lua_script:tools/wireshark/fare.lua bgp.pcap
or install it for every run: copy this file into the personal Lua plugin
folder (~/.local/lib/wireshark/plugins/; `tshark -G folders` lists it).
BGP on a port other than 179: -d tcp.port==PORT,bgp.

Tested with Wireshark 4.0 (Lua 5.2): tests/wireshark/check-dissector.sh;
written for Lua 5.2 to 5.4.
--]]

local fare = Proto("fare", "FARE extended communities")

-- FARE-1 (fare_pathbw.h)
local PB_TYPE_TRANSITIVE = 0x00
local PB_TYPE_NON_TRANSITIVE = 0x40
local PB_SUBTYPE_DEFAULT = 0x30
-- EE-3 (fare_groupid.h)
local GID_TYPE = 0x83
local GID_SUBTYPE_DEFAULT = 0x47
local ECOMM_SIZE = 8

-- FLT_MAX as a Lua number (a double, exact): the origination value (FARE-2)
local FLT_MAX = (2 - 2 ^ -23) * 2 ^ 127
-- FLT_DIG
local FLT_DIG = 6

local pf = {
	pb = ProtoField.bytes("fare.pb", "Path Bandwidth", base.NONE,
		"FARE Path Bandwidth extended community (FARE-1)"),
	pb_transitive = ProtoField.bool("fare.pb.transitive", "Transitive", base.NONE, nil, nil,
		"Type 0x00 (transitive) or 0x40 (non-transitive)"),
	pb_subtype = ProtoField.uint8("fare.pb.subtype", "Sub-type", base.HEX),
	pb_as = ProtoField.uint16("fare.pb.as", "AS", base.DEC, nil, nil,
		"Global Administrator: AS that attached or last updated the value"),
	pb_raw = ProtoField.uint32("fare.pb.raw", "Local Administrator", base.HEX, nil, nil,
		"The IEEE 754 single precision float, as bits"),
	pb_bytes = ProtoField.float("fare.pb.bytes_per_sec", "Bytes per second", nil,
		"Local Administrator: bandwidth in bytes per second, single precision"),
	pb_bits = ProtoField.double("fare.pb.bits_per_sec", "Bits per second", nil,
		"Bandwidth in bits per second as bgpd reads it (6 significant digits)"),
	pb_class = ProtoField.string("fare.pb.class", "Class", base.ASCII,
		"Value class: valid, zero, subnormal, negative, nan, infinite, negative-infinite"),
	pb_usable = ProtoField.bool("fare.pb.usable", "Usable", base.NONE, nil, nil,
		"Valid or zero: the value takes part in min() and sum() (FARE-4)"),
	pb_text = ProtoField.string("fare.pb.text", "Text", base.ASCII,
		"As FRR shows it: PB:AS:bandwidth or PB-NT:AS:bandwidth"),

	gid = ProtoField.bytes("fare.gid", "ECMP GroupID", base.NONE,
		"FARE ECMP GroupID extended community (EE-3)"),
	gid_subtype = ProtoField.uint8("fare.gid.subtype", "Sub-type", base.HEX),
	gid_router_id = ProtoField.ipv4("fare.gid.router_id", "Router ID",
		"BGP router ID of the egress leaf"),
	gid_group = ProtoField.uint16("fare.gid.group", "Group ID", base.DEC, nil, nil,
		"Group ID (0: reserved, no group)"),
	gid_class = ProtoField.string("fare.gid.class", "Class", base.ASCII,
		"Value class: valid, no-group, router-id-zero"),
	gid_text = ProtoField.string("fare.gid.text", "Text", base.ASCII,
		"As FRR shows it: EG:router-id:group"),
}
fare.fields = {
	pf.pb, pf.pb_transitive, pf.pb_subtype, pf.pb_as, pf.pb_raw, pf.pb_bytes,
	pf.pb_bits, pf.pb_class, pf.pb_usable, pf.pb_text,
	pf.gid, pf.gid_subtype, pf.gid_router_id, pf.gid_group, pf.gid_class, pf.gid_text,
}

local ef_pb_invalid = ProtoExpert.new("fare.pb.invalid", "Unusable Path Bandwidth value",
	expert.group.PROTOCOL, expert.severity.WARN)
local ef_gid_invalid = ProtoExpert.new("fare.gid.invalid", "Unusable ECMP GroupID value",
	expert.group.PROTOCOL, expert.severity.WARN)
fare.experts = { ef_pb_invalid, ef_gid_invalid }

-- Sub-types as strings: a uint preference only takes decimal, these are
-- written 0x30 and 0x47 everywhere else.
fare.prefs.pb_subtype = Pref.string("Path Bandwidth sub-type",
	string.format("0x%02x", PB_SUBTYPE_DEFAULT),
	"Sub-type of the Path Bandwidth community, types 0x00 and 0x40 "
	.. "(bgp fare path-bandwidth sub-type); decimal or 0x hexadecimal, 0-255")
fare.prefs.gid_subtype = Pref.string("ECMP GroupID sub-type",
	string.format("0x%02x", GID_SUBTYPE_DEFAULT),
	"Sub-type of the ECMP GroupID community, type 0x83 "
	.. "(bgp fare ecmp-group-id sub-type); decimal or 0x hexadecimal, 0-255")

local pb_subtype = PB_SUBTYPE_DEFAULT
local gid_subtype = GID_SUBTYPE_DEFAULT

-- "48", "0x30", " 0x30 " -> 48; nil for anything else
local function parse_subtype(text)
	local s = tostring(text or ""):match("^%s*(.-)%s*$")
	local v
	if s:match("^0[xX]%x+$") then
		v = tonumber(s:sub(3), 16)
	elseif s:match("^%d+$") then
		v = tonumber(s, 10)
	end
	if v and v >= 0 and v <= 255 then
		return v
	end
	return nil
end

local function apply_prefs()
	local v = parse_subtype(fare.prefs.pb_subtype)
	if not v then
		report_failure("FARE: Path Bandwidth sub-type \"" .. tostring(fare.prefs.pb_subtype)
			.. "\" is not 0-255 (decimal or 0x hexadecimal); keeping "
			.. string.format("0x%02x", pb_subtype))
	else
		pb_subtype = v
	end
	v = parse_subtype(fare.prefs.gid_subtype)
	if not v then
		report_failure("FARE: ECMP GroupID sub-type \"" .. tostring(fare.prefs.gid_subtype)
			.. "\" is not 0-255 (decimal or 0x hexadecimal); keeping "
			.. string.format("0x%02x", gid_subtype))
	else
		gid_subtype = v
	end
end

function fare.prefs_changed()
	apply_prefs()
end

-- fare_pathbw.c, classify_bits(): from the bits, no FP operation on the
-- value (arithmetic on the 32-bit integer: no bit32, gone in Lua 5.3+)
local function classify_bits(bits)
	local negative = bits >= 2 ^ 31
	local exponent = math.floor(bits / 2 ^ 23) % 256
	local fraction = bits % 2 ^ 23

	if exponent == 255 then
		if fraction ~= 0 then
			return "nan"
		end
		return negative and "negative-infinite" or "infinite"
	end
	if exponent == 0 then
		if fraction == 0 then
			return "zero"
		end
		return negative and "negative" or "subnormal"
	end
	return negative and "negative" or "valid"
end

local function class_usable(class)
	return class == "valid" or class == "zero"
end

-- C's round(): half away from zero (x - floor(x) is exact)
local function round(x)
	if x < 0 then
		return -round(-x)
	end
	local f = math.floor(x)
	if x - f >= 0.5 then
		return f + 1
	end
	return f
end

-- fare_pathbw.c, fare_bw_wire_value(): rounded to FLT_DIG significant digits
local function wire_value(d)
	if not (d > 0) or d == math.huge then
		return d
	end
	if d >= FLT_MAX then
		return FLT_MAX
	end
	-- math.log(d, 10) is C's log10() in Lua 5.2 to 5.4
	local exp10 = math.floor(math.log(d, 10)) - (FLT_DIG - 1)
	if exp10 >= 0 then
		local scale = 10 ^ exp10
		return round(d / scale) * scale
	end
	local scale = 10 ^ -exp10
	return round(d * scale) / scale
end

local units = {
	{ 1e3, "Kbps" }, { 1e6, "Mbps" }, { 1e9, "Gbps" },
	{ 1e12, "Tbps" }, { 1e15, "Pbps" }, { 1e18, "Ebps" },
}

-- fare_pathbw.c, fare_bw_format()
local function bw_format(bytes)
	if bytes ~= bytes or bytes == math.huge or bytes == -math.huge or bytes < 0 then
		return "invalid"
	end
	if bytes >= FLT_MAX then
		return "max"
	end
	-- -0.0 is zero: "0 bps", not "-0 bps"
	local bits = bytes == 0 and 0.0 or bytes * 8.0
	if bits < units[1][1] then
		if bits == math.floor(bits) then
			return string.format("%.0f bps", bits)
		end
		return string.format("%.3f bps", bits)
	end
	local unit = 1
	while unit < #units and bits >= units[unit + 1][1] do
		unit = unit + 1
	end
	local scaled = bits / units[unit][1]
	if scaled >= 999.9995 and unit < #units then
		unit = unit + 1
		scaled = bits / units[unit][1]
	end
	return string.format("%.3f %s", scaled, units[unit][2])
end

local function dissect_pb(tree, r, transitive)
	local as = r(2, 2):uint()
	local bits = r(4, 4):uint()
	local value = r(4, 4):float()
	local class = classify_bits(bits)
	local usable = class_usable(class)
	local prefix = transitive and "PB" or "PB-NT"
	local text

	if usable then
		text = string.format("%s:%d:%s", prefix, as, bw_format(value))
	else
		text = string.format("%s:%d:invalid(%s)", prefix, as, class)
	end

	local t = tree:add(pf.pb, r)
	t:set_text("Path Bandwidth: " .. text)
	t:add(pf.pb_transitive, r(0, 1), transitive)
	t:add(pf.pb_subtype, r(1, 1))
	t:add(pf.pb_as, r(2, 2))
	t:add(pf.pb_raw, r(4, 4))
	t:add(pf.pb_bytes, r(4, 4))
	t:add(pf.pb_bits, r(4, 4), (usable and wire_value(value) or value) * 8)
	t:add(pf.pb_class, r(4, 4), class)
	t:add(pf.pb_usable, r(4, 4), usable)
	t:add(pf.pb_text, r, text)
	if not usable then
		t:add_proto_expert_info(ef_pb_invalid, "Unusable Path Bandwidth value (" .. class .. ")")
	end
	return text
end

local function dissect_gid(tree, r)
	local a, b, c, d = r(2, 1):uint(), r(3, 1):uint(), r(4, 1):uint(), r(5, 1):uint()
	local group = r(6, 2):uint()
	local class = "valid"
	if a + b + c + d == 0 then
		class = "router-id-zero"
	elseif group == 0 then
		class = "no-group"
	end
	local text = string.format("EG:%d.%d.%d.%d:%d", a, b, c, d, group)
	if class ~= "valid" then
		text = text .. "(" .. class .. ")"
	end

	local t = tree:add(pf.gid, r)
	t:set_text("ECMP GroupID: " .. text)
	t:add(pf.gid_subtype, r(1, 1))
	t:add(pf.gid_router_id, r(2, 4))
	t:add(pf.gid_group, r(6, 2))
	t:add(pf.gid_class, r(2, 6), class)
	t:add(pf.gid_text, r, text)
	if class ~= "valid" then
		t:add_proto_expert_info(ef_gid_invalid, "Unusable ECMP GroupID value (" .. class .. ")")
	end
	return text
end

local ext_community = Field.new("bgp.ext_community")

function fare.dissector(tvb, pinfo, tree)
	local found = { ext_community() }
	if #found == 0 then
		return
	end
	local subtree, texts = nil, {}
	for _, fi in ipairs(found) do
		local r = fi.range
		if r and r:len() == ECOMM_SIZE then
			local typ, sub = r(0, 1):uint(), r(1, 1):uint()
			local is_pb = (typ == PB_TYPE_TRANSITIVE or typ == PB_TYPE_NON_TRANSITIVE)
				and sub == pb_subtype
			local is_gid = typ == GID_TYPE and sub == gid_subtype
			if is_pb or is_gid then
				subtree = subtree or tree:add(fare)
				if is_pb then
					texts[#texts + 1] = dissect_pb(subtree, r, typ == PB_TYPE_TRANSITIVE)
				else
					texts[#texts + 1] = dissect_gid(subtree, r)
				end
			end
		end
	end
	if subtree then
		subtree:set_text("FARE: " .. table.concat(texts, ", "))
	end
end

register_postdissector(fare)
