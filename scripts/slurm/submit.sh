#!/usr/bin/env bash
# Submits a whole cmbench campaign to Slurm (docs/cluster.md): the self-converged references
# first, then a K-task job array (one shard each, tasks 1..K), then the merge and report once
# every task has ended; prints the three job ids.
#
#   scripts/slurm/submit.sh CAMPAIGN.json OUT_DIR K [sbatch options for the array tasks ...]
#   e.g. scripts/slurm/submit.sh campaigns/default.json /scratch/$USER/default 8 \
#          --cpus-per-task=8 --time=2:00:00 --partition=compute
#
# OUT_DIR must be on a file system every node sees. The campaign file is copied to
# OUT_DIR/submitted/<time>.json, which this submission's jobs read: editing the file afterwards,
# or submitting again, changes nothing queued. Shards holding another campaign (left from an
# earlier submission of an edited file) are moved to OUT_DIR/stale/ first, and the merge
# refuses any it still finds. Exits non-zero, cancelling what it submitted, when a submission
# fails.
# The binary is $CMBENCH when set, else this repository's build/cmbench; the jobs get CMBENCH
# and CMB_REPO in their environment.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,17p' "$0"; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
campaign="$(realpath -m -- "$1")"
out="$(realpath -m -- "$2")"
count="$3"
shift 3
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: K must be a whole number >= 1, got '$count'" >&2; exit 2; }
export CMBENCH="${CMBENCH:-$repo/build/cmbench}"
export CMB_REPO="$repo"
[ -x "$CMBENCH" ] || { echo "submit.sh: no cmbench at $CMBENCH (build it, or set CMBENCH)" >&2; exit 2; }
"$CMBENCH" campaign "$campaign" --dry-run >/dev/null  # a bad campaign file fails here, not in the queue
mkdir -p -- "$out/logs" "$out/submitted"
stamp="$(date -u +%Y%m%dT%H%M%SZ)-$$"
submitted="$out/submitted/$stamp.json"
cp -- "$campaign" "$submitted.tmp"
mv -f -- "$submitted.tmp" "$submitted"

# A shard directory holding another campaign could only be refused (its tasks resume): moved
# aside, its shard starts afresh.
for dir in "$out"/shard-*; do
  [ -f "$dir/campaign.json" ] || continue
  if ! python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
      "$dir/campaign.json" "$submitted" 2>/dev/null; then
    mkdir -p -- "$out/stale"
    mv -- "$dir" "$out/stale/$(basename -- "$dir").$stamp"
    echo "moved $dir (another campaign) to $out/stale/"
  fi
done
# The array this submission makes, for its tasks and for later resubmissions of some of them.
printf 'CMB_SHARD_COUNT=%s\nCMB_SHARD_BASE=1\nCMB_SHARD_STEP=1\n' "$count" >"$out/array.env.tmp"
mv -f -- "$out/array.env.tmp" "$out/array.env"

jobs=()
cancel_submitted() {
  [ ${#jobs[@]} -eq 0 ] || scancel "${jobs[@]}" 2>/dev/null || true
  echo "submit.sh: a submission failed; cancelled what was submitted (${jobs[*]:-none})" >&2
}
trap cancel_submitted ERR
# Every path is an argument of the job script, never part of a command string.
references=$(sbatch --parsable --output="$out/logs/references.out" \
  "$here/references.sbatch" "$submitted" "$out")
jobs+=("$references")
# A failed references job cancels the array (instead of leaving it pending forever); the merge
# then runs and says which shards are missing.
array=$(sbatch --parsable --dependency="afterok:$references" --kill-on-invalid-dep=yes \
  --array="1-$count" --output="$out/logs/shard-%a.out" "$@" "$here/campaign.sbatch" \
  "$submitted" "$out")
jobs+=("$array")
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$out/logs/merge.out" \
  "$here/merge.sbatch" "$out" "$count" "$submitted")
jobs+=("$merge")
trap - ERR
echo "campaign:   $submitted"
echo "references: job $references"
echo "shards:     job array $array (tasks 1-$count write $out/shard-1 ... shard-$count)"
echo "merge:      job $merge (writes $out/merged with its report)"
