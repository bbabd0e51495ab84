#!/usr/bin/env bash
# The tests of one entry, after adding or changing it (docs/extending.md): builds the in-process
# test program (cmb_unit_tests: incremental after the first build) and the command line, then runs
# every test whose name carries the id — its conformance pairs with every problem or method of
# the catalog, its own problem checks — from the unit and slow tiers.
# Usage: scripts/test_entry.sh ID   (a method, problem or DAE integrator id)
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[a-z0-9_]+$ ]]; then
  echo "usage: scripts/test_entry.sh ID (a method, problem or DAE integrator id, snake_case)" >&2
  exit 2
fi
id="$1"
bash scripts/build.sh cmb_unit_tests cmbench
# Test names end in /ID or /ID__OTHER or /OTHER__ID (GoogleTest's parameter names).
pattern="(/|__)${id}(__|$)"
count="$(cd build && ctest -N -L '^(unit|slow)$' -R "$pattern" | sed -n 's/^Total Tests: //p')"
if [ "${count:-0}" -eq 0 ]; then
  echo "test_entry: no test names '$id': is it listed in its .def file (build/cmbench list)?" >&2
  exit 2
fi
echo "test_entry: ${count} tests of ${id}"
cd build && ctest -j2 --output-on-failure -L '^(unit|slow)$' -R "$pattern"
