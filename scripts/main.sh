#!/usr/bin/env bash
# The README's main job: install what is missing, build, then run the default campaign and the
# two studies whose figures the default one cannot provide (Baumgarte heat maps and impulse
# responses; cost against size), each into results/<campaign>/<date>_<git sha>/ with its
# report (figures, tables, report.md, report.html). Extra arguments go to every
# `cmbench campaign` call (e.g. --jobs 1). CMB_CAMPAIGNS="default" runs a subset.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh cmbench cmb_python_core
stamp="$(date -u +%F)_$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then stamp="${stamp}-dirty"; fi
for name in ${CMB_CAMPAIGNS:-default baumgarte_study scaling}; do
  out="results/${name}/${stamp}"
  echo "== campaign ${name} -> ${out}"
  build/cmbench campaign "campaigns/${name}.json" --out "$out" --resume "$@"
  bash scripts/report.sh "$out"
done
