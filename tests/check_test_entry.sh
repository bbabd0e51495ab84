#!/usr/bin/env bash
# scripts/test_entry.sh selects an entry's tests by its id in ctest's names: for a catalog
# problem, its own conformance tests and its pairs with the methods, and no other problem's.
# Usage: tests/check_test_entry.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(CMB_BUILD_DIR="$1" bash scripts/test_entry.sh --list simple_pendulum)"
fail() { echo "check_test_entry: $1"; echo "$out" | head -20; exit 1; }
# ctest may show a parameterized name followed by "  # GetParam() = ...".
grep -Eq 'ProblemConformance\..*/simple_pendulum(  #|$)' <<<"$out" || fail "no ProblemConformance test"
grep -Eq 'MethodConformance\..*__simple_pendulum(  #|$)' <<<"$out" || fail "no method pair"
! grep -Eq '(/|__)crank_rocker(  #|$)' <<<"$out" || fail "another problem's tests"
echo "check_test_entry: $(sed -n 's/^test_entry: //p' <<<"$out")"
