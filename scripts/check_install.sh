#!/usr/bin/env bash
# CI check of the installable package: installs the build (scripts/build.sh's) into a temporary
# prefix, builds examples/out_of_tree against it with find_package(cmbench) and no build type
# (checking that it builds Release and that its records say so: tests/check_program_build.py),
# runs its tests (the conformance suites over the catalog plus its own method and problem), runs
# its method on two catalog problems and a catalog method on its problem, and its campaign with
# a report; then generates a problem from a sympy model kept outside the checkout with the
# installed Python package and builds and tests it against the prefix.
# Usage: scripts/check_install.sh [WORK_DIR]   (default: a new temporary directory, removed after)
# CMB_INSTALL_BUILD=DIR installs another build directory instead of build/, e.g. the smallest one
# the install needs (-DCMB_TESTS=OFF -DCMB_PYTHON_MODULE=OFF, docs/extending.md).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
work="${1:-$(mktemp -d)}"
[ $# -ge 1 ] || trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"
cmake --install "${CMB_INSTALL_BUILD:-build}" --prefix "$prefix" >/dev/null
# Configured as the documentation says, with no build type: the package makes it Release, and
# the example's records and --version must say so with the flags that compiled its own files.
cmake -S examples/out_of_tree -B "$work/example" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
cmake --build "$work/example" -j2
(cd "$work/example" && ctest -j2 --output-on-failure | tail -n 3)
bench="$work/example/mybench"
/usr/bin/python3 tests/check_program_build.py "$work/example" Release
# Read the whole listing first: grep -q stops at the first match, and with pipefail the writer's
# SIGPIPE would fail the pipeline whenever the listing is longer than one pipe write.
methods="$("$bench" list methods)"
grep -q '^  example_kkt_lu ' <<<"$methods" || { echo "example method not listed"; exit 1; }
"$bench" run --problem simple_pendulum --method example_kkt_lu --stepper dopri5 --tol 1e-8
"$bench" run --problem crank_rocker --method example_kkt_lu --stepper dopri5 --tol 1e-8
"$bench" run --problem example_incline --method index1 --stepper rk4 --dt 0.01
"$bench" campaign examples/out_of_tree/campaign.json --out "$work/campaign" --jobs 2
PYTHONPATH="$root/python" /usr/bin/python3 -m cmbench.report "$work/campaign" >/dev/null
test -s "$work/campaign/report.md"
grep -q example_kkt_lu "$work/campaign/report.md" || { echo "example method not in the report"; exit 1; }
# The Python module from the prefix, with whichever python3 is first on the PATH (built for
# Debian's 3.11; any CPython 3.11 loads it) and with Debian's (pandas for load).
site="$prefix/lib/python3/dist-packages"
if compgen -G "$site/cmbench/_core*.so" >/dev/null; then
  (cd "$work" && PYTHONPATH="$site" python3 -c "import cmbench; r = cmbench.run(problem='simple_pendulum', method='baumgarte', stepper='rk4', dt=1e-3); assert r['status'] == 'ok', r")
  (cd "$work" && PYTHONPATH="$site" python3 -c "import cmbench; assert cmbench.campaign_file('smoke').startswith('$site'), cmbench.campaign_file('smoke')")
  (cd "$work" && PYTHONPATH="$site" /usr/bin/python3 -c "import cmbench; f = cmbench.load('$work/campaign'); assert len(f) == 15, len(f); print('python from the prefix:', cmbench.version(), len(f), 'runs loaded')")
else  # a build without CMB_PYTHON_MODULE installs the pure-Python package only
  (cd "$work" && PYTHONPATH="$site" /usr/bin/python3 -c "import cmbench; f = cmbench.load('$work/campaign'); assert len(f) == 15, len(f); print('python from the prefix (no compiled module):', len(f), 'runs loaded')")
fi
# A problem written as a sympy model outside the checkout, generated with the installed package
# and built against the installed prefix: its conformance tests and a run.
model_dir="$work/model"
mkdir -p "$model_dir"
cp tests/derive/models/driven_knife_edge.py "$model_dir/"
(cd "$work" && PYTHONPATH="$site" /usr/bin/python3 -m cmbench.derive \
  "$model_dir/driven_knife_edge.py" --out "$model_dir/generated" >/dev/null)
cat > "$model_dir/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.21)
project(generated_model_example LANGUAGES CXX)
find_package(cmbench 0.2 REQUIRED)
find_package(GTest REQUIRED)
cmbench_add_executable(modelbench PROBLEMS generated/driven_knife_edge.cpp)
cmbench_add_conformance_tests(modelbench_tests PROBLEMS generated/driven_knife_edge.cpp)
CMAKE
cmake -S "$model_dir" -B "$work/model-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/model-build" -j2
"$work/model-build/modelbench_tests" --gtest_filter='*driven_knife_edge*' --gtest_brief=1 | tail -n 3
"$work/model-build/modelbench" run --problem driven_knife_edge --method projection \
  --stepper dopri5 --tol 1e-10 --repeat 1
echo "check_install: installed package, out-of-tree example built, tested and run; Python module imported from the prefix"
