#!/usr/bin/env bash
# Hardening check (run by CI): an AddressSanitizer + UndefinedBehaviorSanitizer build of
# everything with clang in build-san/, the whole test suite under the sanitizers, then each
# libFuzzer target (fuzz/) for CMB_FUZZ_SECONDS seconds (default 45) starting from its committed
# seed corpus. A sanitizer report, a failing test or a fuzzer crash fails the script; inputs
# that crashed are left in build-san/ (crash-*) to become regression seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh clang libclang-rt-14-dev
CC=clang CXX=clang++ cmake -S . -B build-san -DCMAKE_BUILD_TYPE=Release -DCMB_SANITIZE=ON \
  -DCMB_FUZZ=ON -DCMB_PYTHON_MODULE=OFF >/dev/null
cmake --build build-san -j2
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The docs label checks the numbers quoted in README/docs, which are the Release build's; the slurm
# label runs a local cluster, which the Release test run has exercised.
(cd build-san && ctest -j2 --output-on-failure -LE "docs|slurm")

seconds="${CMB_FUZZ_SECONDS:-45}"
total=0
for target in campaign params record reference_cache results run_request; do
  work="build-san/fuzz/corpus_${target}"
  mkdir -p "$work"
  log="build-san/fuzz/${target}.log"
  # A reference cache's smallest real file (a 200-interval grid) is about 25 kB.
  max_len=16384
  [ "$target" = reference_cache ] && max_len=65536
  (cd build-san/fuzz && "./fuzz_${target}" -max_total_time="$seconds" -timeout=20 -max_len="$max_len" \
     -rss_limit_mb=4096 -print_final_stats=1 "corpus_${target}" "../../fuzz/corpus/${target}") \
     >"$log" 2>&1 || { tail -40 "$log"; echo "fuzz_${target}: FAILED (see $log)"; exit 1; }
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz_${target}: ${runs} executions in ${seconds} s, no crash"
  total=$((total + runs))
done
echo "fuzzing: ${total} executions in total, no crash"
