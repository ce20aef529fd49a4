#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Check tools/wireshark/fare.lua, the Wireshark/tshark dissector of FARE's
# extended communities: tests/wireshark/test_dissector.py builds a pcap of
# BGP UPDATEs with scapy and compares what tshark decodes with the script
# to the expected values and to the reference codecs (bgpd-fare/core).
# Needs tshark and python3-scapy (Debian); no root, no namespaces.
#
# Prints one closing line, "N passed, M failed", and exits non-zero on
# failure.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

fail() {
	echo "check-dissector: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

[ -f "$top/tools/wireshark/fare.lua" ] || fail "$top/tools/wireshark/fare.lua is missing"
command -v tshark >/dev/null || fail "tshark not found (Debian: apt-get install tshark)"
# scapy is Debian's python3-scapy: the system interpreter, not a pyenv one
python=/usr/bin/python3
[ -x "$python" ] || python=$(command -v python3)
"$python" -c 'import scapy' 2>/dev/null ||
	fail "scapy not found for $python (Debian: apt-get install python3-scapy)"

exec "$python" "$here/test_dissector.py"
