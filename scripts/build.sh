#!/usr/bin/env bash
# Configures (Release by default) and builds cmbench in ./build with two parallel jobs.
# Usage: scripts/build.sh [cmake target ...]
# Environment: CMB_BUILD_TYPE (default Release), CMB_WERROR=ON (warnings are errors; CI sets it,
# the default is OFF). Compiles through ccache when it is installed (install_deps.sh installs it),
# so a rebuild of unchanged sources in this checkout costs a cache look-up.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
options=(-DCMAKE_BUILD_TYPE="${CMB_BUILD_TYPE:-Release}" -DCMB_WERROR="${CMB_WERROR:-OFF}")
if command -v ccache >/dev/null; then options+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B build "${options[@]}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j2 --target "$@"
else
  cmake --build build -j2
fi
