#!/usr/bin/env bash
# Installs the Debian packages cmbench needs, only those that are missing; silent when all are
# present. Safe to run any number of times. Extra package names given as arguments are added
# (scripts/sanitize.sh asks for clang and libFuzzer this way).
set -euo pipefail

packages=(
  cmake g++ make ninja-build git ccache
  libeigen3-dev libboost-dev nlohmann-json3-dev libcli11-dev libgtest-dev libalglib-dev
  python3 python3-dev python3-matplotlib python3-numpy python3-sympy python3-pandas python3-pytest
  python3-hypothesis python3-jsonschema
  pybind11-dev pyflakes3 libsundials-dev libsuitesparse-dev libre2-dev libsqlite3-dev
  zlib1g-dev
  pkgconf
  python3-venv python3-setuptools python3-tqdm python3-nbclient python3-nbformat python3-ipykernel
  mkdocs mkdocs-material python3-pymdownx doxygen
  "$@"
)
# SUNDIALS' CMake configuration (libsundials-dev) looks for OpenMP, which clang finds only with
# LLVM's runtime; GCC brings its own.
if [[ " $* " == *" clang "* ]]; then packages+=(libomp-dev); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "cmbench: installing missing Debian packages: ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
