#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Validate yang/frr-bgp-fare.yang with yanglint from the project's libyang
# build, strictly: the module must compile with no warning at all, a
# complete example configuration must validate (strict data parsing), and
# data that breaks the model's constraints must be refused. Then the model
# and the module's configuration commands must correspond one to one
# (tests/yang/check-cli-map.py with tests/yang/cli-map.txt: every command of
# bgpd-fare/*.c mapped to the leaves it sets, every leaf to a command, the
# ranges and keywords alike, the example data setting every leaf, and the
# map's example lines accepted by vtysh --dryrun when vtysh is built).
#
# BUILD: the build directory (default: build/ at the top of the checkout).
# Prints one closing line, "1 passed, 0 failed" or "0 passed, 1 failed",
# and exits non-zero on failure.

set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-"$(dirname "$0")/../../build"}
model="$top/yang/frr-bgp-fare.yang"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "check-yang: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

yanglint=""
for cand in "$BUILD/libyang-install/bin/yanglint" \
	"$BUILD/libyang-build/yanglint"; do
	if [ -x "$cand" ]; then
		yanglint=$cand
		break
	fi
done
[ -n "$yanglint" ] ||
	fail "yanglint not found under $BUILD (libyang-install/bin or libyang-build): build libyang first"

# The shared library next to the binary we use.
libdir=$(cd "$(dirname "$yanglint")" && pwd)
[ -d "$libdir/../lib" ] && libdir="$libdir/../lib"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

[ -f "$model" ] || fail "$model is missing"

# yanglint, with anything it says on stderr (warnings included) kept apart.
# -D: no implicit search directories, only the model and libyang's
# built-in modules (ietf-inet-types).
lint() {
	"$yanglint" -D "$@" 2>"$tmp/stderr" >"$tmp/stdout"
}

# 1. The schema compiles, without a single warning.
lint -f tree "$model" ||
	fail "schema does not compile: $(cat "$tmp/stderr")"
[ ! -s "$tmp/stderr" ] ||
	fail "schema warnings: $(cat "$tmp/stderr")"

# Header statements as the project names them.
grep -q '^module frr-bgp-fare {' "$model" || fail "module name is not frr-bgp-fare"
grep -q 'yang-version 1.1;' "$model" || fail "not YANG 1.1"
grep -q 'namespace "http://frrouting.org/yang/bgp-fare";' "$model" ||
	fail "wrong namespace"
grep -q 'prefix frr-bgp-fare;' "$model" || fail "wrong prefix"
grep -Eq '^[[:space:]]*augment[[:space:]]' "$model" && fail "the module must not augment other modules"

# 2. A configuration using every node validates (strict parsing: an
#    unknown node is an error).
cat >"$tmp/good.json" <<'EOF'
{
  "frr-bgp-fare:fare": {
    "debug": true,
    "instance": [
      {
        "vrf": "default",
        "enabled": true,
        "originate": {
          "bandwidth": "max"
        },
        "role": "node",
        "mode": "averaged",
        "parallel-links": "per-session",
        "hold-down": 30,
        "lower-transitive": false,
        "nexthop-groups": true,
        "traffic-alarm": {
          "threshold": 5,
          "min-packets": 2000,
          "interval": 30
        },
        "path-bandwidth": {
          "sub-type": 48
        },
        "wcmp": {
          "max-members": 128,
          "max-weight": 1000
        },
        "multihoming": [
          {
            "prefix-list": "DUAL-HOMED",
            "factor": 2
          }
        ],
        "ecmp-group-id": {
          "sub-type": 71,
          "group": [
            {
              "id": 1,
              "prefix-list": "RACK-A"
            },
            {
              "id": 2
            }
          ]
        },
        "ecmp-subgroups": {
          "size": 4,
          "member": [
            {
              "interface": "swp1",
              "subgroup": 1
            }
          ],
          "map": [
            {
              "router-id": "10.255.0.3",
              "group-id": 2,
              "subgroup": 1
            }
          ]
        },
        "ecmp-ingress": {
          "interface": [
            {
              "name": "swp5",
              "group": 1
            },
            {
              "name": "swp6",
              "group": 1
            }
          ]
        },
        "neighbor": [
          {
            "name": "10.0.0.1",
            "link-bandwidth": "400000000000"
          },
          {
            "name": "2001:db8::1",
            "super-spine": true
          },
          {
            "name": "swp1",
            "link-bandwidth": "100000000000"
          },
          {
            "name": "EXTERNAL",
            "boundary": true
          }
        ]
      },
      {
        "vrf": "blue",
        "enabled": true,
        "originate": {
          "bandwidth": "800000000000"
        },
        "role": "super-spine",
        "lower-transitive": true,
        "path-bandwidth": {
          "sub-type": 49
        }
      },
      {
        "vrf": "gpu",
        "enabled": true,
        "originate": {
          "bandwidth": "max"
        },
        "role": "host"
      }
    ]
  }
}
EOF
lint -t config "$model" "$tmp/good.json" ||
	fail "valid configuration refused: $(cat "$tmp/stderr")"
[ ! -s "$tmp/stderr" ] ||
	fail "warnings on a valid configuration: $(cat "$tmp/stderr")"

# Defaults as the module's (sub-type 0x30, 512 members, weights up to 254,
# role node, draft mode, parallel links per neighbor, hold-down 10 s).
cat >"$tmp/min.json" <<'EOF'
{ "frr-bgp-fare:fare": { "instance": [ { "vrf": "default" } ] } }
EOF
lint -t config -f json -d all "$model" "$tmp/min.json" ||
	fail "minimal configuration refused: $(cat "$tmp/stderr")"
for want in '"sub-type": 48' '"max-members": 512' '"max-weight": 254' \
	'"role": "node"' '"mode": "draft"' '"parallel-links": "per-neighbor"' \
	'"hold-down": 10' '"enabled": false' '"debug": false'; do
	grep -qF "$want" "$tmp/stdout" ||
		fail "default missing or different: $want"
done

# 3. Data outside the model's ranges is refused.
bad() {
	local name=$1 instance=$2

	printf '{ "frr-bgp-fare:fare": { "instance": [ %s ] } }\n' \
		"$instance" >"$tmp/bad-$name.json"
	if lint -t config "$model" "$tmp/bad-$name.json"; then
		fail "invalid configuration accepted ($name): $instance"
	fi
}
bad factor-zero '{ "vrf": "default", "multihoming": [ { "prefix-list": "P", "factor": 0 } ] }'
bad factor-too-big '{ "vrf": "default", "multihoming": [ { "prefix-list": "P", "factor": 1025 } ] }'
bad factor-missing '{ "vrf": "default", "multihoming": [ { "prefix-list": "P" } ] }'
bad members-zero '{ "vrf": "default", "wcmp": { "max-members": 0 } }'
bad members-too-big '{ "vrf": "default", "wcmp": { "max-members": 65536 } }'
bad sub-type-too-big '{ "vrf": "default", "path-bandwidth": { "sub-type": 256 } }'
bad link-bw-zero '{ "vrf": "default", "neighbor": [ { "name": "10.0.0.1", "link-bandwidth": "0" } ] }'
bad originate-junk '{ "vrf": "default", "originate": { "bandwidth": "fast" } }'
bad role-unknown '{ "vrf": "default", "role": "spine" }'
bad unknown-node '{ "vrf": "default", "spray": true }'
bad vrf-too-long '{ "vrf": "0123456789012345678901234567890123456" }'
bad group-zero '{ "vrf": "default", "ecmp-group-id": { "group": [ { "id": 0 } ] } }'
bad subgroup-size-zero '{ "vrf": "default", "ecmp-subgroups": { "size": 0 } }'
bad subgroup-missing '{ "vrf": "default", "ecmp-subgroups": { "member": [ { "interface": "swp1" } ] } }'
bad map-router-id '{ "vrf": "default", "ecmp-subgroups": { "map": [ { "router-id": "10.255.0", "group-id": 1, "subgroup": 1 } ] } }'
bad hold-down-too-long '{ "vrf": "default", "hold-down": 3601 }'
bad mode-unknown '{ "vrf": "default", "mode": "fast" }'
bad ingress-group-too-big '{ "vrf": "default", "ecmp-ingress": { "interface": [ { "name": "swp1", "group": 65 } ] } }'
bad ingress-group-missing '{ "vrf": "default", "ecmp-ingress": { "interface": [ { "name": "swp1" } ] } }'
bad ingress-in-vrf '{ "vrf": "blue", "ecmp-ingress": { "interface": [ { "name": "swp1", "group": 1 } ] } }'
bad alarm-threshold-zero '{ "vrf": "default", "traffic-alarm": { "threshold": 0 } }'
bad alarm-interval-too-long '{ "vrf": "default", "traffic-alarm": { "interval": 3601 } }'

# 4. The model and the module's configuration commands, one to one.
vtysh=()
[ -x "$BUILD/install/bin/vtysh" ] && vtysh=(--vtysh "$BUILD/install/bin/vtysh")
python3 "$here/check-cli-map.py" --yanglint "$yanglint" --model "$model" \
	--map "$here/cli-map.txt" --sources "$top/bgpd-fare" --covers "$tmp/good.json" \
	${vtysh[@]+"${vtysh[@]}"} >"$tmp/map.out" 2>&1 ||
	fail "model and commands differ:
$(cat "$tmp/map.out")"
cat "$tmp/map.out"

echo "1 passed, 0 failed"
exit 0
