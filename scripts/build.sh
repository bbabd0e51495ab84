#!/usr/bin/env bash
# Configures (Release by default) and builds cmbench in ./build with two parallel jobs.
# Usage: scripts/build.sh [cmake target ...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE="${CMB_BUILD_TYPE:-Release}" >/dev/null
if [ $# -gt 0 ]; then
  for target in "$@"; do cmake --build build -j2 --target "$target"; done
else
  cmake --build build -j2
fi
