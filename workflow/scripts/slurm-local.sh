#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, reachable on loopback only, for testing the SLURM profile.
#
#   workflow/scripts/slurm-local.sh start    start munged, slurmctld and slurmd (a no-op if already running)
#   workflow/scripts/slurm-local.sh status   exit 0 and show the node if the cluster answers, else exit 1
#   workflow/scripts/slurm-local.sh env      print the environment clients need (eval "$(... env)")
#   workflow/scripts/slurm-local.sh stop     stop the daemons (a no-op if none runs); the state stays for its logs
#
# Needs Debian's slurm-wlm and munge packages (apt-get install slurm-wlm munge) and root, because
# /etc/slurm/slurm.conf is made a link to the generated configuration: Snakemake's job step runs srun with
# every SLURM_* variable removed, SLURM_CONF included, so srun only finds the configuration there. A
# slurm.conf already there that is not this script's link is left alone and start refuses.
# No slurmdbd: jobs that ended are listed by squeue for MinJobAge (10 minutes) and in slurmctld's job
# completion file (jobcomp/filetxt), which tests count instead of using sacct.
# Environment:
#   KERNBENCH_SLURM_DIR   state, configuration and logs (default: ${TMPDIR:-/tmp}/kernbench-slurm)
#   KERNBENCH_SLURM_PORT  slurmctld port; slurmd listens on the next one (default: 6817)
# The daemons run with the lowest CPU priority (nice 19), and so do the jobs, which inherit it.
set -euo pipefail

STATE="${KERNBENCH_SLURM_DIR:-${TMPDIR:-/tmp}/kernbench-slurm}"
PORT="${KERNBENCH_SLURM_PORT:-6817}"
CONF="$STATE/slurm.conf"
SYSTEM_CONF="${KERNBENCH_SLURM_SYSTEM_CONF:-/etc/slurm/slurm.conf}"
SOCKET="$STATE/munge/munge.socket.2"
NODE="$(hostname -s)"

die() {
    echo "slurm-local: $*" >&2
    exit 1
}

need() {
    local program
    for program in "$@"; do
        command -v "$program" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$program" >/dev/null 2>&1 ||
            die "'$program' is not installed; install Debian's SLURM with: apt-get install slurm-wlm munge"
    done
}

process_gone() { ! kill -0 "$1" 2>/dev/null; }

no_jobs() { [[ -z "$(SLURM_CONF="$CONF" squeue --noheader --format=%i 2>/dev/null)" ]]; }

pid_alive() { # pid_alive FILE: the process named in FILE runs
    [[ -s "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

answers() { # slurmctld answers and the node is usable
    SLURM_CONF="$CONF" scontrol ping 2>/dev/null | grep -q "is UP" || return 1
    SLURM_CONF="$CONF" sinfo --noheader --nodes="$NODE" --format=%t 2>/dev/null | grep -Eq '^(idle|mix|alloc)'
}

wait_for() { # wait_for SECONDS COMMAND...: retry COMMAND every half second until it succeeds
    local seconds="$1"
    shift
    local tries=$((seconds * 2))
    until "$@"; do
        tries=$((tries - 1))
        ((tries > 0)) || return 1
        sleep 0.5
    done
}

write_conf() {
    local cpus memory
    cpus="$(nproc)"
    # slurmd reports the memory it sees; a node declaring more than that is drained.
    memory="$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')"
    [[ -n "$memory" ]] || die "cannot read this machine's memory from 'slurmd -C'"
    cat >"$CONF" <<EOF
# Written by workflow/scripts/slurm-local.sh: one node, loopback only.
ClusterName=kernbench
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
AuthInfo=socket=$SOCKET
CredType=cred/munge
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/d
SlurmctldPidFile=$STATE/slurmctld.pid
SlurmdPidFile=$STATE/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$STATE/log/jobcomp.log
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
DefMemPerCPU=1000
# Finished jobs stay visible to scontrol and squeue for 10 minutes.
MinJobAge=600
KillWait=10
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=local Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
}

print_env() {
    echo "export SLURM_CONF=$(printf '%q' "$CONF")"
}

start() {
    need munged munge slurmctld slurmd scontrol sinfo
    if [[ -f "$CONF" ]] && answers; then
        echo "slurm-local: already running (state in $STATE)" >&2
        print_env
        return 0
    fi
    check_system_conf
    # Daemons left from an earlier, broken start are stopped first so that state and ports are free.
    stop_daemons
    mkdir -p "$STATE"/{munge,ctld,d,log}
    chmod 755 "$STATE" "$STATE/munge" # munged requires a socket directory everyone can traverse
    if [[ ! -s "$STATE/munge/munge.key" ]]; then
        (umask 077 && head -c 1024 /dev/urandom >"$STATE/munge/munge.key")
    fi
    chmod 400 "$STATE/munge/munge.key"
    write_conf
    link_system_conf

    nice -n 19 munged --key-file="$STATE/munge/munge.key" --socket="$SOCKET" --pid-file="$STATE/munge/munged.pid" \
        --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munged.seed" ||
        die "munged did not start; see $STATE/log/munged.log"
    nice -n 19 slurmctld -f "$CONF" || die "slurmctld did not start; see $STATE/log/slurmctld.log"
    nice -n 19 slurmd -f "$CONF" -N "$NODE" || die "slurmd did not start; see $STATE/log/slurmd.log"
    if ! wait_for 60 answers; then
        die "the cluster did not come up within 60 s; see $STATE/log/slurmctld.log and $STATE/log/slurmd.log"
    fi
    echo "slurm-local: running, node $NODE ($STATE)" >&2
    print_env
}

system_conf_is_ours() { [[ -L "$SYSTEM_CONF" && "$(readlink "$SYSTEM_CONF")" == "$CONF" ]]; }

check_system_conf() {
    if ! system_conf_is_ours && [[ -e "$SYSTEM_CONF" || -L "$SYSTEM_CONF" ]]; then
        die "$SYSTEM_CONF exists and is not a link to $CONF; this machine has its own SLURM configuration (or another local cluster runs), so a local cluster is not started"
    fi
}

link_system_conf() {
    system_conf_is_ours && return 0
    mkdir -p "$(dirname "$SYSTEM_CONF")" && ln -s "$CONF" "$SYSTEM_CONF" ||
        die "cannot link $SYSTEM_CONF to $CONF (run as root)"
}

unlink_system_conf() {
    if system_conf_is_ours; then
        rm -f "$SYSTEM_CONF"
    fi
}

stop_one() { # stop_one PIDFILE NAME: SIGTERM, then SIGKILL after 20 s
    local pidfile="$1" name="$2" pid
    pid_alive "$pidfile" || {
        rm -f "$pidfile"
        return 0
    }
    pid="$(cat "$pidfile")"
    kill -TERM "$pid" 2>/dev/null || true
    if ! wait_for 20 process_gone "$pid"; then
        echo "slurm-local: $name (pid $pid) ignored SIGTERM; killing it" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
}

stop_daemons() {
    if [[ -f "$CONF" ]] && pid_alive "$STATE/slurmctld.pid"; then
        # Jobs are cancelled while slurmd still runs, so that it ends their processes.
        SLURM_CONF="$CONF" scancel --quiet --partition=local 2>/dev/null || true
        wait_for 30 no_jobs || echo "slurm-local: jobs still listed after 30 s; stopping anyway" >&2
    fi
    stop_one "$STATE/slurmd.pid" slurmd
    stop_one "$STATE/slurmctld.pid" slurmctld
    stop_one "$STATE/munge/munged.pid" munged
}

stop() {
    [[ -d "$STATE" ]] || {
        echo "slurm-local: not running (no $STATE)" >&2
        return 0
    }
    stop_daemons
    unlink_system_conf
    echo "slurm-local: stopped (logs in $STATE/log)" >&2
}

status() {
    [[ -f "$CONF" ]] || die "not running (no $CONF)"
    answers || die "not running or not answering (state in $STATE)"
    SLURM_CONF="$CONF" sinfo --nodes="$NODE"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env) print_env ;;
*)
    echo "usage: $0 start|stop|status|env" >&2
    exit 2
    ;;
esac
