#!/usr/bin/env bash
# Submits a whole cmbench campaign to Slurm (docs/cluster.md): the self-converged references
# first, then a K-task job array (one shard each, tasks 1..K), then the merge and report once
# every task has ended; prints the three job ids.
#
#   scripts/slurm/submit.sh CAMPAIGN.json OUT_DIR K [sbatch options for the array tasks ...]
#   e.g. scripts/slurm/submit.sh campaigns/default.json /scratch/$USER/default 8 \
#          --cpus-per-task=8 --time=2:00:00 --partition=compute
#
# OUT_DIR must be on a file system every node sees. The binary is $CMBENCH when set, else this
# repository's build/cmbench; the jobs get CMBENCH and CMB_REPO in their environment.
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,12p' "$0"; exit 2; }
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
campaign="$(realpath -m "$1")"
out="$(realpath -m "$2")"
count="$3"
shift 3
[[ "$count" =~ ^[1-9][0-9]*$ ]] || { echo "submit.sh: K must be a whole number >= 1, got '$count'" >&2; exit 2; }
export CMBENCH="${CMBENCH:-$repo/build/cmbench}"
export CMB_REPO="$repo"
[ -x "$CMBENCH" ] || { echo "submit.sh: no cmbench at $CMBENCH (build it, or set CMBENCH)" >&2; exit 2; }
"$CMBENCH" campaign "$campaign" --dry-run >/dev/null  # a bad campaign file fails here, not in the queue
mkdir -p "$out/logs"

references=$(sbatch --parsable --job-name=cmbench-references --cpus-per-task=1 \
  --output="$out/logs/references.out" \
  --wrap="\"$CMBENCH\" campaign \"$campaign\" --prepare-references --reference-cache \"$out/references\"")
array=$(sbatch --parsable --dependency="afterok:$references" --array="1-$count" \
  --output="$out/logs/shard-%a.out" "$@" "$here/campaign.sbatch" "$campaign" "$out")
merge=$(sbatch --parsable --dependency="afterany:$array" --output="$out/logs/merge.out" \
  "$here/merge.sbatch" "$out" "$count")
echo "references: job $references"
echo "shards:     job array $array (tasks 1-$count write $out/shard-1 ... shard-$count)"
echo "merge:      job $merge (writes $out/merged with its report)"
