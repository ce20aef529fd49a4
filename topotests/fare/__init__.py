# SPDX-License-Identifier: GPL-2.0-or-later
"""
The FARE topotests' library, shared by the topotests (topotests/fare_*),
the demos (demo/) and the benchmarks (bench/):

- fare.fabric: the fabric builder (Topology) and the fabrics on it
  (Fabric, Clos3, ScaleUp);
- fare.common: starting a fabric with the module, JSON polling, kernel
  nexthop-group weights, traffic measurement, memory and reload helpers;
- fare.scenarios: fabrics and steps a topotest and a demo share;
- fare.ingress: the ingress fabric of Enhanced ECMP's ingress-interface
  grouping (EE-1) and its traffic steps (fare_ecmp_ingress and the ecmp
  demo);
- fare.metrics_check: tools/fare-metrics' output checks;
- fare.netlink: rtnetlink route and nexthop decoding;
- programs run in a router's namespace: fare.nhg_dump, fare.fpm_listener
  (python3 -m, see fare.common.program), udp_flows.py, paced_udp.py and
  value_counts.py (standard library only, run by path).

scripts/setup-test-env.sh links this package into FRR's tests/topotests/,
the directory of FRR's conftest.py, which pytest puts on sys.path: test
modules import it as `fare` with no sys.path changes.
"""

import sys

# assertions in the library's checks get pytest's explanations, as a test
# module's do
if "pytest" in sys.modules:
    sys.modules["pytest"].register_assert_rewrite("fare.scenarios", "fare.ingress")
