#!/usr/bin/env bash
# The cost of a campaign's bookkeeping, timed on whole commands (a benchmark, not a test): the
# dry run of a 100 000-run campaign (expansion and selection only), and a campaign of 10 000
# runs that each integrate for five steps, so that what is timed is the work around each run
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

# 10 000 Baumgarte parameter pairs (each a run of 5 steps), times 10 step sizes for the dry run.
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
methods = [{"id": "baumgarte", "params": {"alpha": 1 + k / 100, "beta": 10}} for k in range(10000)]
base = {"repeat": 0, "problems": [{"id": "simple_pendulum", "t_end": 0.005}], "methods": methods}
json.dump({"name": "dry_run_100k", **base,
           "steppers": [{"id": "rk4", "dt": [0.005 / j for j in range(1, 11)]}]},
          open(f"{work}/dry.json", "w"))
json.dump({"name": "campaign_10k", **base, "steppers": [{"id": "rk4", "dt": [0.001]}]},
          open(f"{work}/campaign.json", "w"))
PY

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_once() {
  if ! /usr/bin/time -f %e -o "$work/t" "$@" >/dev/null 2>"$work/err"; then
    echo "failed: $*" >&2
    tail -3 "$work/err" >&2
    exit 1
  fi
  cat "$work/t"
}

for i in $(seq "$repeats"); do
  time_once "$cmbench" campaign "$work/dry.json" --dry-run
done | median | sed 's/^/dry run, 100 000 runs: /; s/$/ s/'
for i in $(seq "$repeats"); do
  rm -rf "$work/out"
  time_once "$cmbench" campaign "$work/campaign.json" --jobs 2 --out "$work/out"
done | median | sed 's/^/campaign, 10 000 runs, 2 jobs: /; s/$/ s/'
