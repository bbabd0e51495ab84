#!/usr/bin/env bash
# Adding stays one file (issue #28): in a fresh copy of this repository's HEAD, adds a method
# (its one file and one line of methods/methods.def) and a problem generated from a sympy model
# kept outside the copy (the two files `cmbench.derive --out problems` writes and one line of
# problems/problems.def), runs the one documented command that rewrites the generated pages and
# tables (scripts/regenerate_docs.sh), then the README's test command (scripts/test.sh: build,
# every test, -j2), and checks that nothing changed but the new files, their two lines and what
# regenerate_docs.sh wrote. The method and the model are tests/extension_tree/.
# Usage: scripts/check_extension.sh [DEST | CLONE]
#   (none)  a fresh clone of this checkout's HEAD in a new directory under ${TMPDIR:-/tmp}, built
#           from scratch (build/ of its own); removed when every stage passes unless KEEP=1.
#   DEST    the same clone made at DEST, a directory that does not exist yet or is empty.
#   CLONE   an existing clean clone, extended in place: its build/ is reused (only the new files
#           and the catalog compile again), and afterwards exactly the files this script added or
#           changed are restored (unless KEEP=1); nothing else of the clone is touched.
#   A failed run keeps what it made and names it. Uncommitted changes are never copied.
#   Prints the wall time of each stage; exit status 1 with one line naming the failed stage.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
method=cholesky_schur
problem=bead_on_parabola
work="$(mktemp -d "${TMPDIR:-/tmp}/check_extension.XXXXXX")"  # the model, the logs
in_place=0
if [ $# -ge 1 ] && [ -e "$1/.git" ]; then
  in_place=1 copy="$(cd "$1" && pwd)"
  [ -z "$(git -C "$copy" status --porcelain)" ] || {
    echo "check_extension: $copy has uncommitted changes; commit or stash them" >&2
    rm -rf "$work"
    exit 2
  }
elif [ $# -ge 1 ]; then
  copy="$1"
  [ ! -e "$copy" ] || [ -z "$(ls -A "$copy")" ] || {
    echo "check_extension: $copy is neither a git clone nor a new or empty directory" >&2
    rm -rf "$work"
    exit 2
  }
else
  copy="$work/tree"
fi
ours=""  # in place: the `git status` lines this script made, restored at the end

stage_name="" stage_start=$SECONDS times=()
stage() {  # stage NAME: closes the running stage (its wall time) and opens the next
  [ -z "$stage_name" ] || times+=("$(printf '%5ds  %s' $((SECONDS - stage_start)) "$stage_name")")
  stage_name="$1" stage_start=$SECONDS
  [ -z "$1" ] || echo "check_extension: [$1]"
}
fail() {
  local failed="$stage_name"
  stage ""
  [ ${#times[@]} -eq 0 ] || printf '  %s\n' "${times[@]}" >&2
  local kept="copy kept in $copy"
  [ "$in_place" = 0 ] || kept="$copy restored"
  [ "${KEEP:-0}" != 1 ] || kept="$copy left as it is (KEEP=1)"
  echo "check_extension: FAILED at stage '$failed'${1:+: $1} ($kept; logs and model in" \
       "$work)" >&2
  exit 1
}
trap 'fail' ERR
finish() {
  local status=$? entry
  if [ "${KEEP:-0}" = 1 ]; then
    echo "check_extension: KEEP=1: the copy is $copy, the model and logs are in $work"
  elif [ "$in_place" = 1 ]; then
    while IFS= read -r entry; do  # what this script added or changed, and only that
      case "$entry" in
        "?? "*) rm -f -- "$copy/${entry:3}" ;;
        " M "*) git -C "$copy" checkout -q -- "${entry:3}" ;;
      esac
    done <<<"$ours"
    [ "$status" -ne 0 ] || rm -rf "$work"
  elif [ "$status" -eq 0 ]; then
    rm -rf "$copy" "$work"
  fi
}
trap finish EXIT
# insert_sorted FILE LINE: LINE where it belongs in the sorted list FILE (the rest untouched).
insert_sorted() {
  ! grep -qxF "$2" "$1" || fail "$1 already has $2"
  LC_ALL=C awk -v new="$2" '!done && $0 > new { print new; done = 1 } { print }
                            END { if (!done) print new }' "$1" > "$1.new"
  mv "$1.new" "$1"
}

stage "copy of HEAD"
if [ "$in_place" = 0 ]; then
  git clone -q "$root" "$copy"
  git -C "$copy" checkout -q --detach "$(git -C "$root" rev-parse HEAD)"
fi
echo "  $(git -C "$copy" log -1 --format='%h %s' | cut -c1-90) -> $copy"
dirty="$(git -C "$root" status --porcelain | wc -l)"
[ "$dirty" -eq 0 ] || echo "  ($dirty uncommitted changes of $root are not in the copy)"
cd "$copy"
mine() { ours="$(git status --porcelain --untracked-files=all)"; }  # the clone started clean

stage "method $method: methods/$method.cpp and its line"
[ ! -e "methods/$method.cpp" ] || fail "methods/$method.cpp is already in the tree"
cp "$root/tests/extension_tree/methods/$method.cpp" methods/
mine
insert_sorted methods/methods.def "CMB_METHOD($method)"
mine

stage "problem $problem generated from a model outside the copy"
[ ! -e "problems/$problem.cpp" ] || fail "problems/$problem.cpp is already in the tree"
mkdir "$work/model"
cp "$root/tests/extension_tree/models/$problem.py" "$work/model/"
(cd "$work/model" && PYTHONPATH="$copy/python" /usr/bin/python3 -m cmbench.derive \
  "$work/model/$problem.py" --out "$copy/problems") || { mine; fail "cmbench.derive"; }
mine
grep -q "^#include \"$problem.inc\"" "problems/$problem.cpp" \
  || fail "problems/$problem.cpp does not include $problem.inc by name"
insert_sorted problems/problems.def "CMB_PROBLEM($problem)"
mine
before="$ours"

stage "scripts/regenerate_docs.sh (builds cmbench)"
bash scripts/regenerate_docs.sh > "$work/regenerate.log" 2>&1 \
  || { mine; tail -n 30 "$work/regenerate.log"; fail "see $work/regenerate.log"; }
mine
after="$ours"
written="$(comm -13 <(sort <<<"$before") <(sort <<<"$after"))"

stage "scripts/test.sh (build, ctest -j2)"
bash scripts/test.sh > "$work/test.log" 2>&1 || {
  grep -q "tests failed out of" "$work/test.log" || tail -n 30 "$work/test.log"
  sed -n '/tests failed out of/p; /^The following tests FAILED/,/^Errors/p' "$work/test.log"
  fail "see $work/test.log"
}
grep -E "tests passed|tests failed" "$work/test.log" | sed 's/^/  /'
listed="$(cd build && ctest -N)"
for id in "$method" "$problem"; do
  n="$(grep -c "$id" <<<"$listed" || true)"
  echo "  $n tests name $id"
  [ "$n" -gt 0 ] || fail "no test names $id: the catalog did not pick it up"
done

stage "what changed in the copy"
changed="$(git status --porcelain --untracked-files=all)"
mapfile -t lines <<<"$changed"
printf '  %s\n' "${lines[@]}"
[ "$changed" = "$after" ] || fail "the build or the tests changed the tree: $(
  comm -3 <(sort <<<"$after") <(sort <<<"$changed") | tr '\n' ' ')"
for def in "methods/methods.def CMB_METHOD($method)" "problems/problems.def CMB_PROBLEM($problem)"
do
  read -r file line <<<"$def"
  if [ "$(git diff --numstat -- "$file" | cut -f1,2)" != "$(printf '1\t0')" ] \
    || ! grep -qxF "+$line" <<<"$(git diff -U0 -- "$file")"; then
    fail "the change of $file is not the one line $line"
  fi
done
# Allowed: the new files, the two lines, and the generated pages and tables that
# regenerate_docs.sh wrote (documentation and python/cmbench/entries.json, no source file).
new="?? methods/$method.cpp|?? problems/$problem.cpp|?? problems/$problem.inc"
unexpected="$(while IFS= read -r entry; do
  case "|$new| M methods/methods.def| M problems/problems.def|" in *"|$entry|"*) continue ;; esac
  if grep -qxF "$entry" <<<"$written"; then
    case "${entry:3}" in docs/* | README.md | python/cmbench/entries.json) continue ;; esac
  fi
  echo "$entry"
done <<<"$changed")"
[ -z "$unexpected" ] || fail "edits outside the new files and the generated ones: $(
  tr '\n' ' ' <<<"$unexpected")"

stage ""
echo "check_extension: wall time per stage:"
printf '  %s\n' "${times[@]}"
echo "check_extension: passed: a method and a generated problem added with their files and one" \
     "line each; every test passes"
