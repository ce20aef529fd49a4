#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_interop.py: a stale Path Bandwidth that crossed routers without
FARE (BIRD 2, GoBGP, FRR without the module) is not used (FARE-7 freshness).

   spine1      spine2      spine3      spine4      spine5
   FRR+FARE    FRR+FARE    BIRD 2      GoBGP       FRR, no -M fare
    /  |  \\    /  |  \\     /  \\        /  \\        /  \\
   l1  l2  l3  l1  l2  l3   l1   l2      l1   l2      l1   l2

   leaves: FRR + bgpd -M fare, `bgp fare`, `bgp fare originate`

   links, Gb/s      spine1   spine2   spine3   spine4   spine5
   (AS)             65500    65002    65003    65004    65005
   leaf1 (65101)     400      800      800      800      800
   leaf2 (65102)     800      800      800      800      800
   leaf3 (65103)     800      800       -        -        -

spine1 is AS 65001 in a confederation of identifier 65500, which is what
the leaves see (a confederation border); spine2 meets leaf3 as 65202
(`neighbor local-as 65202 no-prepend replace-as`). Both write the AS their
neighbor knows them by, so their values are fresh at the leaves (FARE-7).

Numbered eBGP over one /30 per link, 10.<leaf>.<spine>.0/30, the leaf .1,
the spine .2; leaf i originates 172.16.i.0/24 with the maximum value
(FARE-2, shown `PB:<leaf AS>:max`). Link bandwidths (FARE-3, `neighbor X
fare link-bandwidth` on the FARE routers, both ends): leaf1-spine1 400G,
every other link 800G.

What the routers do with the transitive Path Bandwidth:

- spine1/spine2 (FARE) re-advertise min(link, received) with the AS the
  receiving leaf knows them by (FARE-4/5): leaf1's prefix leaves spine1 as
  PB:65500:400G (one path: min(400, max)) and spine2 as PB:65002:800G
  (PB:65202:800G to leaf3); leaf2's and leaf3's prefixes
  leave both as PB:6500x:800G (min(800, max)).
- spine3 (BIRD), spine4 (GoBGP), spine5 (FRR without the module) pass it on
  unchanged: leaf2's prefix reaches leaf1 through them still as
  PB:65102:max, a value that describes leaf2's links, not spine3..5's.

Freshness (SPEC section 5, decision on FARE-7): the Global Administrator of
a received transitive value must be the AS of the neighbor it came from
(for eBGP the first AS of the AS_PATH). At leaf1, leaf2's prefix has 5
equal-cost paths; those via spine3, spine4 and spine5 carry AS 65102, not
65003/65004/65005: stale, treated as no Path Bandwidth, so the prefix is on
plain ECMP (5 next hops of weight 1), says why, is counted
(counters.staleValue) and is re-advertised without a transitive value
(FARE-7 strip). The same holds at leaf2 for leaf1's prefix.

Without the check leaf1 would weigh leaf2's prefix
min(400, 800) : min(800, 800) : min(800, max) x 3 = 1:2:2:2:2, trusting
leaf2's origination value as if it were spine3..5's bandwidth.

FARE paths keep working (fresh values are never flagged):
- leaf1 -> leaf3's 172.16.3.0/24, via spine1 and spine2 only, each
  advertising 800G: min(400, 800) : min(800, 800) = 400:800 = 1:2.
- leaf3 -> leaf1's 172.16.1.0/24: spine1 receives one path from leaf1 and
  re-advertises w = min(400, max) = 400G (FARE-5, the sum over its one
  path), spine2 800G; leaf3 weighs min(800, 400) : min(800, 800) = 1:2.
- leaf3 -> leaf2's 172.16.2.0/24: 800G from both, 1:1; spine1 accepts
  leaf2's own origination value (AS 65102 = neighbor AS), weight 1.

The tests are in interop_suite.py, which test_fare_interop_as4.py runs
again with 4-octet AS numbers.
"""

import pytest

# the tests live in interop_suite: rewrite its asserts as a test module's
pytest.register_assert_rewrite("interop_suite")

from interop_suite import suite  # pylint: disable=C0413

globals().update(suite(as4=False))
