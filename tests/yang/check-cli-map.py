#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Check that yang/frr-bgp-fare.yang and the module's configuration commands
correspond one to one, through tests/yang/cli-map.txt:

1. every configuration command of bgpd-fare/*.c (a DEFPY/DEFUN/ALIAS
   installed by install_element() in a node other than VIEW_NODE and
   ENABLE_NODE) has a line in the map, and every line names such a command
   (or one of FRR's own, frr:NAME);
2. every node a line names exists in the compiled model, and every leaf of
   the model is named by a line;
3. every NODE=TOKEN: TOKEN is in the command's string, and its type agrees
   with the leaf's: a range (a-b) is the leaf's range, keywords <a|b> are
   values of its enumeration, a lone keyword names a boolean leaf, A.B.C.D
   and X:X::X:X are IPv4 and IPv6 addresses, IFNAME an interface name;
4. with --vtysh, vtysh --dryrun accepts every example line;
5. with --covers, that JSON instance data sets every leaf of the model.

usage: check-cli-map.py --yanglint BIN --model FILE --map FILE --sources DIR
                        [--vtysh BIN] [--covers FILE]
Prints what is wrong and exits 1, or exits 0.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

MODULE = "/frr-bgp-fare:fare"
INSTANCE = MODULE + "/instance"
NOT_CONFIG = {"VIEW_NODE", "ENABLE_NODE"}

DEF_RE = re.compile(
    r"\b(?:DEFPY|DEFUN|DEFPY_YANG|DEFUN_YANG|DEFPY_NOSH|DEFUN_NOSH|DEFPY_HIDDEN|DEFUN_HIDDEN"
    r"|DEFPY_YANG_NOSH|ALIAS|ALIAS_HIDDEN|ALIAS_YANG)\s*\(\s*\w+\s*,\s*(\w+)\s*,\s*"
    r"((?:\"(?:[^\"\\]|\\.)*\"\s*)+)")
INSTALL_RE = re.compile(r"\binstall_element\s*\(\s*(\w+)\s*,\s*&\s*(\w+)\s*\)")
IPV4_PATTERN = r'pattern "(([0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|25[0-5])\\.){3}'
IPV6_PATTERN = r'pattern "((:|[0-9a-fA-F]{0,4}):)'


def source_commands(srcdir):
    """{C name: command string} of the configuration commands."""
    strings, nodes = {}, {}
    for path in sorted(glob.glob(os.path.join(srcdir, "*.c"))):
        text = open(path).read()
        for m in DEF_RE.finditer(text):
            strings[m.group(1)] = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(2)))
        for m in INSTALL_RE.finditer(text):
            nodes.setdefault(m.group(2), set()).add(m.group(1))
    return {name: strings.get(name) for name, where in nodes.items() if where - NOT_CONFIG}


def schema_tree(yanglint, model):
    """{schema path: kind} of every node: 'leaf' or 'node'."""
    out = subprocess.run([yanglint, "-D", "-f", "tree", model], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=True).stdout.decode()
    nodes, stack = {}, []
    for line in out.splitlines():
        m = re.match(r"^(\s*(?:\|\s*)*)\+--(?:rw|ro) ([\w-]+)([?*!]?)(\s+.*)?$", line)
        if not m:
            continue
        depth = (len(m.group(1)) - 2) // 3
        stack[depth:] = [m.group(2)]
        path = "/frr-bgp-fare:" + "/".join(stack)
        nodes[path] = "leaf" if m.group(4) and m.group(3) != "*" else "node"
    return nodes


def node_info(yanglint, model, path):
    p = subprocess.run([yanglint, "-D", "-f", "info", "-P", path, "-q", model],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    return p.stdout.decode() if p.returncode == 0 else None


def full_path(node):
    return node if node.startswith(MODULE) else INSTANCE + "/" + node


def check_token(info, token):
    """'' if the token's type agrees with the leaf's compiled info, else why not."""
    rng = re.fullmatch(r"\((\d+)-(\d+)\)", token)
    if rng:
        want = "{}..{}".format(*rng.groups())
        m = re.search(r'range "([^"]*)"', info)
        have = m.group(1) if m else {"uint8": "0..255", "uint16": "0..65535"}.get(
            re.search(r"type (\w+)", info).group(1))
        return "" if have == want else "range {} in the model, {} in the command".format(have, want)
    choice = re.fullmatch(r"<([^>]*)>", token)
    alternatives = choice.group(1).split("|") if choice else [token]
    problems = []
    for alt in alternatives:
        if alt == "A.B.C.D":
            ok = IPV4_PATTERN in info
        elif alt == "X:X::X:X":
            ok = IPV6_PATTERN in info
        elif alt == "IFNAME":
            ok = re.search(r'type string \{\s*length "1\.\.15";', info) is not None
        elif alt == "WORD":
            ok = True
        elif re.fullmatch(r"[a-z][a-z-]*", alt):
            if choice:
                ok = 'enum "{}"'.format(alt) in info
            else:
                ok = re.search(r"type boolean;", info) is not None
        else:
            ok = False
        if not ok:
            problems.append(alt)
    return "" if not problems else "token(s) {} do not fit the leaf's type".format(", ".join(problems))


def dryrun(vtysh, examples):
    """vtysh --dryrun on each example line; the lines it refuses."""
    refused = []
    for name, line in examples:
        if line.startswith(("router bgp", "debug ")):
            conf = line + "\n"
        else:
            conf = "router bgp 65000\n " + line + "\nexit\n"
        with tempfile.NamedTemporaryFile("w", suffix=".conf", delete=False) as f:
            f.write(conf)
        try:
            p = subprocess.run([vtysh, "--dryrun", "-f", f.name], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, check=False)
        finally:
            os.unlink(f.name)
        if p.returncode != 0:
            refused.append("{}: '{}': {}".format(name, line, p.stdout.decode().strip()))
    return refused


def instance_leaves(data, path=""):
    """Schema paths of the leaves a JSON instance sets."""
    out = set()
    if isinstance(data, list):
        for item in data:
            out |= instance_leaves(item, path)
    elif isinstance(data, dict):
        for key, value in data.items():
            out |= instance_leaves(value, path + "/" + key)
    else:
        out.add(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--yanglint", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--sources", required=True)
    ap.add_argument("--vtysh")
    ap.add_argument("--covers")
    args = ap.parse_args()

    errors = []
    commands = source_commands(args.sources)
    for name, string in sorted(commands.items()):
        if string is None:
            errors.append("{}: installed, but no DEFPY/DEFUN/ALIAS found".format(name))
    tree = schema_tree(args.yanglint, args.model)
    leaves = {p for p, kind in tree.items() if kind == "leaf"}
    named, mapped, examples = set(), set(), []

    for lineno, raw in enumerate(open(args.map), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        fields = [f.strip() for f in line.split(" | ")]
        if len(fields) != 3 or not all(fields):
            errors.append("{}:{}: not COMMAND | NODES | EXAMPLE".format(args.map, lineno))
            continue
        name, nodes, example = fields
        examples.append((name, example))
        string = None
        if not name.startswith("frr:"):
            if name in mapped:
                errors.append("{}: twice in the map".format(name))
            mapped.add(name)
            if name not in commands:
                errors.append("{}: in the map, but not a configuration command of {}".format(
                    name, args.sources))
                continue
            string = re.sub(r"\$\w+", "", commands[name])
        for item in nodes.split():
            node, _, token = item.partition("=")
            path = full_path(node)
            if path not in tree:
                errors.append("{}: {} is not in the model".format(name, path))
                continue
            named.add(path)
            if not token:
                continue
            if string is not None and token not in string:
                errors.append("{}: token {} is not in '{}'".format(name, token, commands[name]))
            if tree[path] == "leaf":
                why = check_token(node_info(args.yanglint, args.model, path), token)
                if why:
                    errors.append("{}: {}: {}".format(name, path, why))

    for name in sorted(set(commands) - mapped):
        errors.append("{} ('{}'): configuration command with no line in {}".format(
            name, commands[name], args.map))
    for path in sorted(leaves - named):
        errors.append("{}: leaf set by no command in {}".format(path, args.map))
    if args.covers:
        for path in sorted(leaves - instance_leaves(json.load(open(args.covers)))):
            errors.append("{}: leaf not set in {}".format(path, args.covers))
    if args.vtysh:
        errors += ["vtysh --dryrun refuses " + r for r in dryrun(args.vtysh, examples)]

    for e in errors:
        print("check-cli-map: " + e, file=sys.stderr)
    if not errors:
        print("check-cli-map: {} configuration commands, {} leaves, one to one{}".format(
            len(commands), len(leaves), ", examples accepted by vtysh" if args.vtysh else ""))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
