#!/usr/bin/env bash
# Style check run by CI: every C++ file formatted as .clang-format says by Debian 12's
# clang-format 14 (pinned: another version formats some constructs differently). Prints the
# offending files and fails when one is not; fix it with `clang-format-14 -i FILE`. (pyflakes is
# the ctest python_passes_pyflakes.)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh clang-format-14
clang-format-14 --version | grep -q 'version 14\.' || {
  echo "check_style: clang-format-14 is not version 14"; exit 1; }
git ls-files '*.cpp' '*.hpp' '*.h' | xargs clang-format-14 --dry-run --Werror
echo "check_style: $(git ls-files '*.cpp' '*.hpp' '*.h' | wc -l) C++ files formatted"
