#!/usr/bin/env bash
# The README's main job: install what is missing, build, run the demo set, write results and
# figures to results/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh cmbench
/usr/bin/python3 scripts/run_demo.py --cmbench build/cmbench --campaign campaigns/demo.json \
  --out results/demo "$@"
