#!/usr/bin/env bash
# Adding stays one file: in a clone of this repository, adds a method (its one file and one line
# of methods/methods.def) and a problem generated from a sympy model kept outside the clone (the
# two files `cmbench.derive --out` writes and one line of problems/problems.def), runs the one
# documented command that rewrites the generated pages and tables (scripts/regenerate_docs.sh),
# then the README's test command (scripts/test.sh: build, every test), and checks that nothing
# changed but the new files, their two lines and what regenerate_docs.sh wrote.
# Usage: scripts/check_extension.sh [CLONE]
#   CLONE  a clean clone to extend, whose build/ is reused (only the new files and the catalog
#          compile again); it is restored afterwards unless KEEP=1. Default: a fresh clone of
#          HEAD in a temporary directory, built from scratch and removed afterwards.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
stage() { echo "check_extension: $*"; }
fail() { echo "check_extension: FAILED at $*" >&2; exit 1; }
work="$(mktemp -d)"
if [ $# -ge 1 ]; then
  clone="$(cd "$1" && pwd)"
  [ -z "$(git -C "$clone" status --porcelain)" ] \
    || { echo "check_extension: $clone has uncommitted changes; commit or stash them" >&2; exit 2; }
  restore() {
    if [ "${KEEP:-0}" != 1 ]; then
      git -C "$clone" checkout -q -- . && git -C "$clone" clean -fdq -- docs methods problems python
    fi
    rm -rf "$work"
  }
else
  clone="$work/clone"
  git clone -q "$root" "$clone"
  restore() { [ "${KEEP:-0}" = 1 ] || rm -rf "$work"; }
fi
trap restore EXIT
cd "$clone"

stage "adding the method cholesky_schur: methods/cholesky_schur.cpp and its line"
cp "$root/tests/extension_tree/methods/cholesky_schur.cpp" methods/
sort -o methods/methods.def <(cat methods/methods.def; echo "CMB_METHOD(cholesky_schur)")

stage "generating the problem bead_on_parabola from a model outside the clone"
mkdir -p "$work/model"
cp "$root/tests/extension_tree/models/bead_on_parabola.py" "$work/model/"
(cd "$work" && PYTHONPATH="$clone/python" /usr/bin/python3 -m cmbench.derive \
  "$work/model/bead_on_parabola.py" --out "$clone/problems") || fail "cmbench.derive"
sort -o problems/problems.def <(cat problems/problems.def; echo "CMB_PROBLEM(bead_on_parabola)")

stage "regenerating the generated pages and tables (scripts/regenerate_docs.sh)"
bash scripts/regenerate_docs.sh >/dev/null || fail "scripts/regenerate_docs.sh"

stage "building and running every test (scripts/test.sh)"
bash scripts/test.sh > "$work/test.log" 2>&1 || { tail -n 30 "$work/test.log"; fail "scripts/test.sh"; }
grep -E "tests passed|tests failed" "$work/test.log"

stage "what changed besides the new files"
changed="$(git status --porcelain)"
echo "$changed"
expected='^( M (methods/methods\.def|problems/problems\.def|README\.md|docs/methods\.md|docs/bad_input\.md|python/cmbench/entries\.json)|\?\? (methods/cholesky_schur\.cpp|problems/bead_on_parabola\.(cpp|inc)|docs/methods/cholesky_schur\.md|docs/problems/bead_on_parabola\.md))$'
unexpected="$(grep -Ev "$expected" <<<"$changed" || true)"
[ -z "$unexpected" ] || fail "edits outside the new files and the generated ones: $unexpected"
stage "a method and a problem added with one file (two for a generated problem) and one line each; the whole suite passes"
