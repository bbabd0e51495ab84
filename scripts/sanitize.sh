#!/usr/bin/env bash
# Hardening check (run by CI): an AddressSanitizer + UndefinedBehaviorSanitizer build with clang in
# build-san/ of what the C++ test tiers need, those tiers under the sanitizers (unit, process and
# slow: docs/build.md, "Test tiers"; the Python, docs and cluster tiers check the Release build
# and run once, in scripts/test.sh), then each libFuzzer target (fuzz/) for CMB_FUZZ_SECONDS
# seconds (default 45) starting from its committed seed corpus. A sanitizer report, a failing test
# or a fuzzer crash fails the script; inputs that crashed are left in build-san/ (crash-*) to
# become regression seeds. CMB_WERROR=ON makes clang's warnings errors (CI sets it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh clang libclang-rt-14-dev
options=(-DCMAKE_BUILD_TYPE=Release -DCMB_SANITIZE=ON -DCMB_FUZZ=ON -DCMB_PYTHON_MODULE=OFF
         -DCMB_WERROR="${CMB_WERROR:-OFF}")
# Ninja for a new build directory: it compiles a target's files while the libraries it links
# are still being built, which keeps both cores busy (an existing directory keeps its generator).
if [ ! -f build-san/CMakeCache.txt ]; then options+=(-G Ninja); fi
# With the checkout as its base directory, ccache keys on paths relative to it, so clones at
# other paths share the cache.
if command -v ccache >/dev/null; then
  options+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_BASEDIR=$PWD;CCACHE_NOHASHDIR=true;ccache")
fi
CC=clang CXX=clang++ cmake -S . -B build-san "${options[@]}" >/dev/null
# Only the C++ tiers' programs and the fuzzers: the sanitized tree runs nothing else.
cmake --build build-san -j2 --target cmb_unit_tests cmb_process_tests cmb_eta_tests \
  cmb_extension_tests cmbench cmbench_stuck fuzz_campaign fuzz_params fuzz_record \
  fuzz_reference_cache fuzz_results fuzz_run_request
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The slow tier's tests carry the highest COST, so they start first (tests/CMakeLists.txt).
(cd build-san && ctest -j2 --output-on-failure -L "^(unit|process|slow)$")

# Two fuzzers at a time, one per core: each still gets its CMB_FUZZ_SECONDS of one core.
seconds="${CMB_FUZZ_SECONDS:-45}"
fuzz_one() {  # fuzz_one TARGET: runs it, leaves its log, fails if it crashed
  local target="$1" max_len=16384
  # A reference cache's smallest real file (a 200-interval grid) is about 25 kB.
  [ "$target" = reference_cache ] && max_len=65536
  mkdir -p "build-san/fuzz/corpus_${target}"
  (cd build-san/fuzz && "./fuzz_${target}" -max_total_time="$seconds" -timeout=20 \
     -max_len="$max_len" -rss_limit_mb=4096 -print_final_stats=1 "corpus_${target}" \
     "../../fuzz/corpus/${target}") >"build-san/fuzz/${target}.log" 2>&1
}
total=0
set -- campaign params record reference_cache results run_request
while [ $# -gt 0 ]; do
  pids=() names=()
  for target in "$1" "${2:-}"; do
    [ -n "$target" ] || continue
    fuzz_one "$target" & pids+=($!) names+=("$target")
  done
  shift $(( $# >= 2 ? 2 : $# ))
  for i in "${!pids[@]}"; do
    target="${names[$i]}" log="build-san/fuzz/${names[$i]}.log"
    wait "${pids[$i]}" || { tail -40 "$log"; echo "fuzz_${target}: FAILED (see $log)"; exit 1; }
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "fuzz_${target}: ${runs} executions in ${seconds} s, no crash"
    total=$((total + runs))
  done
done
echo "fuzzing: ${total} executions in total, no crash"
