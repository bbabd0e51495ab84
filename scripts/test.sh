#!/usr/bin/env bash
# The test command of the README and of CI: install what is missing, build, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cd build
ctest -j2 --output-on-failure
