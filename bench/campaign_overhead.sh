#!/usr/bin/env bash
# The cost of a campaign's bookkeeping, timed on whole commands (a benchmark, not a test): the
# dry run of a 100 000-run campaign (expansion and selection only), and a campaign of 10 000
# runs that each integrate for a few steps, so that what is timed is the work around each run
# (the worker's fork, its commit into the result store, the exported files, the final export).
# Prints the median wall time of REPEATS runs of each, in seconds.
#
#   bash bench/campaign_overhead.sh build/cmbench [REPEATS]
#
# Give two builds' programs in turn to compare them (docs/performance.md, "Result store").
set -euo pipefail
cmbench=$(realpath "$1")
repeats=${2:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 10 000 step sizes for rk4 (each one run), between 1e-3 and 2e-3.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
dts = [round(1e-3 * (1 + k / 10000), 12) for k in range(10000)]
methods = [{"id": m} for m in ("index1", "baumgarte", "projection", "coordinate_partitioning",
                               "svd_null_space", "udwadia_kalaba", "gauss_qp",
                               "augmented_lagrangian")]
methods += [{"id": "baumgarte", "params": {"alpha": a, "beta": a}} for a in (1, 100)]
base = {"repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.005}],
        "steppers": [{"id": "rk4", "dt": dts}]}
json.dump({"name": "dry_run_100k", **base, "methods": methods}, open(f"{work}/dry.json", "w"))
json.dump({"name": "campaign_10k", **base, "methods": [{"id": "index1"}]},
          open(f"{work}/campaign.json", "w"))
PY

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_once() { /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>&1; cat "$work/t"; }

for i in $(seq "$repeats"); do
  time_once "$cmbench" campaign "$work/dry.json" --dry-run
done | median | sed 's/^/dry run, 100 000 runs: /; s/$/ s/'
for i in $(seq "$repeats"); do
  rm -rf "$work/out"
  time_once "$cmbench" campaign "$work/campaign.json" --jobs 2 --out "$work/out"
done | median | sed 's/^/campaign, 10 000 runs, 2 jobs: /; s/$/ s/'
