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
# Ninja for a new build directory: it compiles a target's files while the libraries it links
# are still being built, which keeps both cores busy (an existing directory keeps its generator).
if [ ! -f build/CMakeCache.txt ]; then options+=(-G Ninja); fi
# With the checkout as its base directory, ccache keys on paths relative to it, so clones at
# other paths share the cache.
if command -v ccache >/dev/null; then
  options+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=true;ccache")
fi
cmake -S . -B build "${options[@]}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build build -j2 --target "$@"
else
  cmake --build build -j2
fi
