#!/usr/bin/env bash
# A throw-away one-node Slurm cluster on this machine, for the tests and for trying the cluster
# workflow (docs/cluster.md) without a cluster. Debian's slurmctld, slurmd, slurm-client and
# munge (Slurm 22.05 in bookworm; installed when missing).
#
#   scripts/slurm/local_cluster.sh start DIR   configuration, state and logs under DIR; prints
#                                              the line to eval: export SLURM_CONF=DIR/slurm.conf
#   scripts/slurm/local_cluster.sh stop DIR    stops the daemons it started (by pid) and removes DIR
#
# Run as root (the daemons run as root: SlurmUser=root). Private ports, no accounting, the
# machine's hostname as the one node with the CPUs it has; munged gets a freshly generated key
# (/etc/munge/munge.key, owned by munge, mode 400) and its own socket under DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
action="${1:-}"
dir="${2:-}"
[ -n "$action" ] && [ -n "$dir" ] || { sed -n '2,12p' "$0"; exit 2; }

stop() {
  for daemon in slurmd slurmctld munged; do
    pidfile="$dir/$daemon.pid"
    [ -f "$pidfile" ] || continue
    pid="$(cat "$pidfile")"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$dir"
}

if [ "$action" = stop ]; then
  stop
  exit 0
fi
[ "$action" = start ] || { echo "local_cluster.sh: start or stop, not '$action'"; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "local_cluster.sh: run as root (the daemons run as root)"; exit 2; }
bash "$here/../install_deps.sh" slurmctld slurmd slurm-client munge

mkdir -p "$dir"/{state,spool,munge}
dir="$(cd "$dir" && pwd)"
chmod 755 "$dir"  # munged runs as user munge: it must reach munge/ (and so must every parent)
host="$(hostname -s)"
cpus="$(nproc --all)"
memory=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) / 1024 - 256 ))  # MB, a little left
# Ports above the usual 6817-6819, chosen from the directory so that two clusters can coexist.
base=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))

# munge: a fresh key and a private socket, pid file and log.
dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
chown munge:munge /etc/munge/munge.key
chmod 400 /etc/munge/munge.key
chown munge:munge "$dir/munge"
socket="$dir/munge/munge.socket"
runuser -u munge -- /usr/sbin/munged --socket="$socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed"
cp "$dir/munge/munged.pid" "$dir/munged.pid"

cat >"$dir/slurm.conf" <<EOF
ClusterName=cmbench-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=300
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld -f "$SLURM_CONF"
/usr/sbin/slurmd -f "$SLURM_CONF"
# Up to a minute: the test suite runs beside it on a loaded machine.
for _ in $(seq 300); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
    echo "export SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.2
done
echo "local_cluster.sh: the node did not come up; logs in $dir" >&2
sinfo >&2 || true
tail -5 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
stop
exit 1
