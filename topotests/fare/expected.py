# SPDX-License-Identifier: GPL-2.0-or-later
"""
The kernel weights the topotests assert, read from expected_weights.txt
beside this file. The simulator's unit test (tests/unit/test_sim.c) reads
the same file and computes each case with the core on the same fabric
(doc/user/fare-sim.rst), so that a change to the rules cannot move the
daemons' weights without the simulator's, or the other way round.
"""

import os

_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected_weights.txt")


def _cases():
    cases = {}
    with open(_FILE) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|")]
            hops = fields[5].split()[1:]  # after wcmp/ecmp
            cases[fields[0]] = [int(h.split("=")[1]) for h in hops]
    return cases


def weights(name):
    """Case NAME's weights, in the order of the router's links (of the
    topotest's interfaces); 0: a next hop not installed."""
    return _cases()[name]


def kernel(name, interfaces):
    """Case NAME's weights as kernel_weights() returns them: {interface:
    weight} over the router's interfaces in its link order, the next hops
    at weight 0 left out."""
    w = weights(name)
    assert len(w) == len(interfaces), "{}: {} weights for {}".format(name, len(w), interfaces)
    return {i: x for i, x in zip(interfaces, w) if x}
