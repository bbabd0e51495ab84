#!/usr/bin/env bash
# The cluster workflow on a real Slurm (docs/cluster.md): a one-node cluster on this machine
# (scripts/slurm/local_cluster.sh), the smoke campaign submitted as a 3-task array through
# scripts/slurm/submit.sh into a directory whose name holds `$HOME`, a double quote and a space,
# and the merged result compared with an unsharded local run (`cmbench compare`: same status,
# metrics and work for every run) and checked complete (every record and series, the report).
# Then generated resubmissions (in an order drawn from CMB_SLURM_SEED, default 27): the campaign
# file edited (its old shards are moved aside and the merge completes) or not, another shard
# count (complete too), a merge told another shard count than the last submission's. After each, the invariant: merged/ is
# complete and holds the submitted campaign's results, or the merge failed naming what is
# missing or stale and merged/ is what it was. Exit 77 (ctest: skipped) where Slurm cannot run:
# not root, or the daemons do not start. Stops every daemon it started and removes its files,
# however it ends.
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

out="$work/out \$HOME \"q\""  # literally: the name must reach every job as it is
campaign="$work/campaign.json"
cp "$source_dir/campaigns/smoke.json" "$campaign"

# Submits the campaign with K shards and waits for its merge job; sets $submitted, the copy of
# the campaign file the jobs read.
submit_and_wait() {
  local printed merge_job
  printed="$(CMBENCH="$cmbench" bash "$source_dir/scripts/slurm/submit.sh" "$campaign" "$out" "$1")"
  submitted="$(sed -n 's/^campaign: *//p' <<<"$printed")"
  merge_job="$(sed -n 's/^merge: *job \([0-9]*\).*/\1/p' <<<"$printed")"
  for _ in $(seq 600); do  # at most 5 minutes
    [ -z "$(squeue -h -j "$merge_job" 2>/dev/null)" ] && return 0
    sleep 0.5
  done
  echo "FAIL: the merge job did not end"; squeue; exit 1
}

# The invariant after a submission or merge: merged/ equals a local run of the campaign file as
# submitted, or the merge said what is missing or stale and merged/ did not change. With a third
# argument "complete", only the first is acceptable.
check_invariant() {
  local before="$1" what="$2" want="${3:-}"
  if grep -qE "holds the results of another campaign|missing; merge them all|has no results.json|no shard finished" "$out/logs/merge.out"; then
    [ "$want" != complete ] || { echo "FAIL ($what): the merge failed"; cat "$out/logs/merge.out"; exit 1; }
    [ "$(cat "$out/merged/results.json" 2>/dev/null | md5sum)" = "$before" ] \
      || { echo "FAIL ($what): a failed merge changed merged/"; exit 1; }
    echo "ok ($what): merge refused, merged/ unchanged: $(grep -m1 -oE "(holds the results of another campaign|shard\(s\) [0-9 ,]+ of [0-9]+ missing|no shard finished)" "$out/logs/merge.out")"
    return
  fi
  [ -f "$out/merged/results.json" ] || { echo "FAIL ($what): no merged results"; cat "$out/logs/merge.out"; exit 1; }
  rm -rf "$work/local"
  "$cmbench" campaign "$submitted" --out "$work/local" >/dev/null
  "$cmbench" compare "$work/local" "$out/merged" >"$work/compare.txt" \
    || { echo "FAIL ($what): merged/ is not the submitted campaign's"; head "$work/compare.txt"; exit 1; }
  local runs records
  runs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$out/merged/results.json")
  records=$(ls "$out/merged/runs" | wc -l)
  [ "$runs" -eq "$records" ] && [ -s "$out/merged/report.md" ] \
    || { echo "FAIL ($what): $runs runs, $records records, report $(ls "$out/merged")"; exit 1; }
  echo "ok ($what): merged/ = the submitted campaign ($runs runs)"
}

submit_and_wait 3
cat "$out/logs/merge.out"
[ -f "$out/merged/results.json" ] || { echo "FAIL: no merged results"; tail -n 20 "$out"/logs/*.out; exit 1; }
runs=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['runs']))" "$out/merged/results.json")
series=$(ls "$out/merged/series" | wc -l)
[ "$runs" -eq 24 ] && [ "$series" -eq 24 ] || { echo "FAIL: $runs runs, $series series (want 24)"; exit 1; }
for shard in 1 2 3; do
  grep -q "shard $shard of 3" "$out/logs/shard-$shard.out" || { echo "FAIL: shard $shard"; exit 1; }
done
check_invariant "" "first submission" complete

# Generated resubmissions: the four actions on the same OUT, in an order drawn from the seed.
order="$(python3 -c 'import random, sys; a = [0, 1, 2, 3]; random.Random(int(sys.argv[1])).shuffle(a); print(*a)' "${CMB_SLURM_SEED:-27}")"
step=0
for action in $order; do
  step=$((step + 1))
  before="$(md5sum <"$out/merged/results.json")"
  case $action in
    0) submit_and_wait 3; check_invariant "$before" "step $step: resubmitted unchanged" complete ;;
    1) python3 - "$campaign" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["steppers"][0]["dt"].append(doc["steppers"][0]["dt"][-1] / 2)  # one more step size
json.dump(doc, open(sys.argv[1], "w"), indent=1)
PY
       submit_and_wait 3
       check_invariant "$before" "step $step: campaign edited, resubmitted" complete ;;
    2) submit_and_wait 2; check_invariant "$before" "step $step: resubmitted with 2 shards" complete ;;
    3) CMBENCH="$cmbench" bash "$source_dir/scripts/slurm/merge.sbatch" "$out" 2 "$submitted" \
         >"$out/logs/merge.out" 2>&1 || true
       check_invariant "$before" "step $step: merge told 2 shards" ;;
  esac
done
echo "PASS: 3-task array through submit.sh, merged = unsharded ($runs runs), 4 resubmissions, in $(( $(date +%s) - start )) s"
