#!/usr/bin/env bash
# The documentation (doc/: user guide, rules, patches, benchmarks, testing)
# as HTML with Sphinx (Debian: python3-sphinx), warnings as errors.
# usage: scripts/build-docs.sh [OUTDIR]   (default build/doc-html)
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-${BUILD:-$TOP/build}/doc-html}
command -v sphinx-build >/dev/null ||
	{ echo "build-docs: sphinx-build not found (Debian: apt-get install python3-sphinx)" >&2; exit 1; }
sphinx-build -q -W --keep-going -b html -d "$OUT/.doctrees" "$TOP/doc" "$OUT"
echo "documentation: $OUT/index.html"
