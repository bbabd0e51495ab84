#!/usr/bin/env bash
# The tests of one entry, after adding or changing it (docs/extending.md): builds the in-process
# test program (cmb_unit_tests: incremental after the first build) and the command line, then runs
# every test whose name carries the id — its conformance pairs with every problem or method of
# the catalog, its own problem checks — from the unit and slow tiers.
# Usage: scripts/test_entry.sh [--list] ID   (a method, problem or DAE integrator id)
# --list builds nothing and lists the tests the current build/ (or $CMB_BUILD_DIR) has for ID.
set -euo pipefail
cd "$(dirname "$0")/.."
list=0
if [ "${1:-}" = --list ]; then list=1; shift; fi
if [ $# -ne 1 ] || ! [[ "$1" =~ ^[a-z0-9_]+$ ]]; then
  echo "usage: scripts/test_entry.sh [--list] ID (a method, problem or DAE integrator id, snake_case)" >&2
  exit 2
fi
id="$1"
dir=build
if [ "$list" -eq 1 ]; then dir="${CMB_BUILD_DIR:-build}"; else bash scripts/build.sh cmb_unit_tests cmbench; fi
# The id is a parameter of GoogleTest's parameterized names: /ID, /ID__OTHER or /OTHER__ID, which
# ctest shows followed by "  # GetParam() = ...".
pattern="(/|__)${id}(__|  #|$)"
listing="$(cd "$dir" && ctest -N -L '^(unit|slow)$' -R "$pattern")"
count="$(sed -n 's/^Total Tests: //p' <<<"$listing")"
if [ "${count:-0}" -eq 0 ]; then
  echo "test_entry: no test names '$id': is it listed in its .def file (build/cmbench list)?" >&2
  exit 2
fi
echo "test_entry: ${count} tests of ${id}"
if [ "$list" -eq 1 ]; then grep 'Test *#' <<<"$listing"; exit 0; fi
cd build && ctest -j2 --output-on-failure -L '^(unit|slow)$' -R "$pattern"
