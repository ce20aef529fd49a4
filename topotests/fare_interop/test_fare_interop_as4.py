#!/usr/bin/env python
# SPDX-License-Identifier: GPL-2.0-or-later
"""
test_fare_interop_as4.py: test_fare_interop.py with 4-octet AS numbers
(RFC 6793; the private range 4200000000 and up that RFC 7938 recommends
for large fabrics). Every AS n of the 2-octet plan becomes
4200000000 + (n - 65000): leaves 4200000101..103, spines 4200000500
(spine1's confederation identifier; its member AS 4200000001),
4200000002..005, spine2 towards leaf3 4200000202.

A Path Bandwidth's Global Administrator carries the writer's AS modulo 2^16
(FARE-1), so a leaf still tells the value spine3..5 (BIRD, GoBGP, FRR
without the module) passed on from leaf2 (GA 60006) from one its
neighbor wrote (spine2: GA 59906): stale, plain ECMP, as with 2-octet
ASNs. Written as AS_TRANS (23456), as FARE 0.2 did, every 4-octet writer
looked alike and the leaves weighted those paths by leaf2's origination
value.
"""

import pytest

# the tests live in interop_suite: rewrite its asserts as a test module's
pytest.register_assert_rewrite("interop_suite")

from interop_suite import suite  # pylint: disable=C0413

globals().update(suite(as4=True))
