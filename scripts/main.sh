#!/usr/bin/env bash
# The README's main job: install what is missing, build, run the default campaign
# (campaigns/default.json) and write its results and report (figures, tables) to
# results/default/<date>_<git sha>/. Extra arguments go to `cmbench campaign` (e.g. --jobs 1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh cmbench
out="results/default/$(date -u +%F)_$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then out="${out}-dirty"; fi
build/cmbench campaign campaigns/default.json --out "$out" --resume "$@"
/usr/bin/python3 scripts/report.py "$out"
