#!/usr/bin/env bash
# The cluster workflow on a real Slurm (docs/cluster.md): a one-node cluster on this machine
# (scripts/slurm/local_cluster.sh), the smoke campaign submitted as a 3-task array through
# scripts/slurm/submit.sh, and the merged result compared with an unsharded local run
# (`cmbench compare`: same status, metrics and work for every run) and checked complete (every
# record and series, the report). Exit 77 (ctest: skipped) where Slurm cannot run: not root, or
# the daemons do not start. Stops every daemon it started and removes its files, however it ends.
# Usage: test_local_cluster.sh CMBENCH SOURCE_DIR
set -uo pipefail
cmbench="$(realpath "$1")"
source_dir="$(realpath "$2")"
[ "$(id -u)" -eq 0 ] || { echo "skipped: the local cluster needs root"; exit 77; }
work="$(mktemp -d /tmp/cmb-slurm-test.XXXXXX)"
chmod 755 "$work"  # munged runs as munge and must reach its files below it
cluster="$work/cluster"
trap 'bash "$source_dir/scripts/slurm/local_cluster.sh" stop "$cluster" >/dev/null 2>&1; rm -rf "$work"' EXIT
start=$(date +%s)
if ! line="$(bash "$source_dir/scripts/slurm/local_cluster.sh" start "$cluster" 2>"$work/start.err")"; then
  cat "$work/start.err"
  echo "skipped: the local Slurm cluster did not start"
  exit 77
fi
eval "$line"
set -e

out="$work/out"
submitted="$(CMBENCH="$cmbench" bash "$source_dir/scripts/slurm/submit.sh" \
  "$source_dir/campaigns/smoke.json" "$out" 3)"
echo "$submitted"
merge_job="$(sed -n 's/^merge: *job \([0-9]*\).*/\1/p' <<<"$submitted")"
for _ in $(seq 600); do  # at most 5 minutes
  [ -z "$(squeue -h -j "$merge_job" 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$merge_job" 2>/dev/null)" ] || { echo "FAIL: the merge job did not end"; squeue; exit 1; }
cat "$out/logs/merge.out"
[ -f "$out/merged/results.json" ] || { echo "FAIL: no merged results"; tail -n 20 "$out"/logs/*.out; exit 1; }

"$cmbench" campaign "$source_dir/campaigns/smoke.json" --out "$work/local" >/dev/null
"$cmbench" compare "$work/local" "$out/merged" | head -n 6
runs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$out/merged/results.json")
records=$(ls "$out/merged/runs" | wc -l)
series=$(ls "$out/merged/series" | wc -l)
[ "$runs" -eq 24 ] && [ "$records" -eq 24 ] && [ "$series" -eq 24 ] \
  || { echo "FAIL: $runs runs, $records records, $series series (want 24 each)"; exit 1; }
[ -s "$out/merged/report.md" ] || { echo "FAIL: no report"; exit 1; }
for shard in 1 2 3; do
  grep -q "shard $shard of 3" "$out/logs/shard-$shard.out" || { echo "FAIL: shard $shard"; exit 1; }
done
echo "PASS: 3-task array through submit.sh, merged = unsharded ($runs runs), in $(( $(date +%s) - start )) s"
