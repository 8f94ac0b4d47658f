# shellcheck shell=bash disable=SC2034,SC2154
# emucluster's Slurm (sourced by maint/emucluster): `up --slurm` starts a real Slurm on
# the emulated nodes, as a site runs it:
#   munged     in the root namespace, its own key and socket in the state directory;
#   slurmctld  in the root namespace, listening on the spine's address (.254);
#   slurmd     one per node, inside the node's network namespace and a UTS namespace named
#              after the node (slurmd -N NODE), so job steps, and the ranks they start,
#              live on that node's link.
# slurm.conf and topology.conf (topology/tree: the leaf switches of --leaf-size, or one
# switch) are written into the state directory; every client needs SLURM_CONF pointing
# there.  Each daemon is recorded as `daemon PIDFILE` and stopped by `down` before the
# links go; nothing is written outside the state directory.
#
# Why slurmd is not started with `ip netns exec`: that remounts /sys for the namespace and
# hides /sys/fs/cgroup, and Slurm 22.05's slurmd will not start without it.  A mount
# namespace of its own instead carries the cluster's /etc/hosts (node names, and this
# host's name for hydra run inside salloc): a real cluster has DNS for that.

SLURM_PACKAGES="slurm-wlm munge"
SLURM_CPUS_DEFAULT=8     # CPUs slurm.conf gives each node (config_overrides: not checked)
SLURM_START_TIMEOUT=60   # seconds for every node to register idle

# Installs Slurm and munge when a command is missing (root; Debian's packages).
slurm_require() {
    local c missing=0
    for c in munged mungekey slurmctld slurmd srun sinfo scontrol; do
        command -v "$c" > /dev/null || missing=1
    done
    [ "$missing" = 0 ] && return 0
    command -v apt-get > /dev/null || die "up --slurm: Slurm is not installed (Debian packages: $SLURM_PACKAGES)"
    note "installing $SLURM_PACKAGES"
    apt-get update -q > /dev/null
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q $SLURM_PACKAGES > /dev/null ||
        die "up --slurm: apt-get install $SLURM_PACKAGES failed"
}

# A TCP port free on this host, from $1 upward.
slurm_free_port() {
    local port=$1
    while [ -n "$(ss -Hltn "sport = :$port" 2> /dev/null)" ]; do port=$((port + 1)); done
    echo "$port"
}

# Starts daemon DAEMON-ARGS... and records PIDFILE; fails if it does not write it.
slurm_start() {  # slurm_start PIDFILE COMMAND...
    local pidfile=$1 i
    shift
    record daemon "$pidfile"
    # without the cluster's lock descriptors: a daemon holding them would hold the locks
    "$@" 8>&- 9>&-
    for ((i = 0; i < 100; i++)); do
        [ -s "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2> /dev/null && return 0
        sleep 0.1
    done
    die "up --slurm: $1 did not start (logs in $(dirname "$pidfile"))"
}

# Stops the daemon whose pid PIDFILE holds, and waits until it is gone.
slurm_stop() {
    local pidfile=$1 pid i
    [ -s "$pidfile" ] || return 0
    pid=$(cat "$pidfile")
    kill -TERM "$pid" 2> /dev/null || return 0
    for ((i = 0; i < 100; i++)); do
        kill -0 "$pid" 2> /dev/null || return 0
        sleep 0.1
    done
    kill -KILL "$pid" 2> /dev/null || true
}

# The cluster's /etc/hosts: the nodes, and this host under its own names at .254.
slurm_hosts() {  # slurm_hosts NODES NET
    local i
    echo "127.0.0.1 localhost"
    echo "$2.254 $(hostname) $(hostname -s)"
    for ((i = 0; i < $1; i++)); do echo "$2.$((i + 1)) $prefix-n$i"; done
}

# topology.conf: one switch, or the leaf switches (leaf_of from cmd_up) under the spine.
slurm_topology() {  # slurm_topology NODES LEAF_SIZE NLEAVES
    local nodes=$1 leaf_size=$2 nleaves=$3 i l members
    if [ "$leaf_size" = 0 ]; then
        echo "SwitchName=$prefix-sw Nodes=$prefix-n[0-$((nodes - 1))]"
        return
    fi
    for ((l = 0; l < nleaves; l++)); do
        members=""
        for ((i = 0; i < nodes; i++)); do
            [ "$(leaf_of "$i")" = "$l" ] && members+=${members:+,}$prefix-n$i
        done
        echo "SwitchName=$prefix-l$l Nodes=$members"
    done
    echo "SwitchName=$prefix-sw Switches=$prefix-l[0-$((nleaves - 1))]"
}

# The task prolog: what a site's module or prolog sets on its nodes.  The fabric is the
# node's (always eth0 here); the yield and hiertune's cluster names only when the job did
# not set its own.
slurm_task_prolog() {
    printf '%s\n' '#!/bin/sh' \
        "# emucluster's Slurm task prolog: the environment every task of the cluster starts with" \
        'echo "export FI_PROVIDER=tcp"' 'echo "export FI_TCP_IFACE=eth0"' \
        "[ -n \"\${HIERTUNE_MACHINE:-}\" ] || echo \"export HIERTUNE_MACHINE=$MACHINE-slurm\"" \
        "[ -n \"\${HIERTUNE_CLUSTER:-}\" ] || echo \"export HIERTUNE_CLUSTER=$DESCRIPTION_SLURM\"" \
        "[ -n \"\${HIERTUNE_LINK_RATE:-}\" ] || echo \"export HIERTUNE_LINK_RATE=$RATE_BYTES\"" \
        '# every node shares this machine'"'"'s cores: waiting ranks of a job with more tasks than' \
        '# cores give their core away (MPICH 5.0.1'"'"'s progress throttle), unless the job says' \
        "if [ \"\${SLURM_STEP_NUM_TASKS:-\${SLURM_NTASKS:-1}}\" -gt $(nproc) ] && [ -z \"\${MPIR_CVAR_CH4_PROGRESS_THROTTLE:-}\" ]; then" \
        '    echo "export MPIR_CVAR_CH4_PROGRESS_THROTTLE=1"' \
        "    echo \"export MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT=$NO_PROGRESS_COUNT\"" \
        'fi'
}

slurm_conf() {  # slurm_conf SDIR NODES NET CPUS CTLD_PORT
    local sdir=$1 nodes=$2 net=$3 cpus=$4 port=$5 i
    cat << CONF
# emucluster's Slurm: $nodes emulated nodes ($DESCRIPTION)
ClusterName=$prefix
SlurmctldHost=$(hostname -s)($net.254)
SlurmctldPort=$port
SlurmdPort=6818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sdir/munge.socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$sdir/slurmctld
SlurmdSpoolDir=$sdir/slurmd.%n
SlurmctldPidFile=$sdir/slurmctld.pid
SlurmdPidFile=$sdir/slurmd.%n.pid
SlurmctldLogFile=$sdir/slurmctld.log
SlurmdLogFile=$sdir/slurmd.%n.log
MailProg=/bin/true
# no cgroups: every node shares this machine's cores; tasks are not bound
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
TaskProlog=$sdir/task-prolog
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=pmi2
TopologyPlugin=topology/tree
ReturnToService=2
JobRequeue=1
CONF
    for ((i = 0; i < nodes; i++)); do
        echo "NodeName=$prefix-n$i NodeAddr=$net.$((i + 1)) CPUs=$cpus State=UNKNOWN"
    done
    echo "PartitionName=$prefix Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
}

# Starts munged, slurmctld and one slurmd per node; waits until every node is idle.
# Runs inside cmd_up's failure trap: whatever it started is recorded and so stopped.
slurm_up() {  # slurm_up NODES NET LEAF_SIZE NLEAVES CPUS
    local nodes=$1 net=$2 leaf_size=$3 nleaves=$4 cpus=$5 sdir=$dir/slurm i node port
    slurm_require
    mkdir -p "$sdir" "$sdir/slurmctld"
    record tree "$sdir"
    chmod 755 "$sdir"
    mungekey --create --keyfile="$sdir/munge.key" > /dev/null
    slurm_start "$sdir/munged.pid" munged --force --key-file="$sdir/munge.key" \
        --socket="$sdir/munge.socket" --pid-file="$sdir/munged.pid" \
        --log-file="$sdir/munged.log" --seed-file="$sdir/munged.seed"
    slurm_hosts "$nodes" "$net" > "$sdir/hosts"
    slurm_topology "$nodes" "$leaf_size" "$nleaves" > "$sdir/topology.conf"
    slurm_task_prolog > "$sdir/task-prolog"
    chmod 755 "$sdir/task-prolog"
    port=$(slurm_free_port 6817)
    slurm_conf "$sdir" "$nodes" "$net" "$cpus" "$port" > "$sdir/slurm.conf"
    slurm_start "$sdir/slurmctld.pid" slurmctld -f "$sdir/slurm.conf"
    for ((i = 0; i < nodes; i++)); do
        node=$prefix-n$i
        slurm_start "$sdir/slurmd.$node.pid" nsenter --net="/run/netns/$node" \
            unshare --uts --mount --propagation private sh -c \
            'hostname "$1" && mount --bind "$2/hosts" /etc/hosts && exec slurmd -f "$2/slurm.conf" -N "$1"' \
            sh "$node" "$sdir"
    done
    local deadline=$((SECONDS + SLURM_START_TIMEOUT)) idle
    while :; do
        idle=$(SLURM_CONF=$sdir/slurm.conf sinfo -h -N -t idle -o %N 2> /dev/null | sort -u | wc -l)
        [ "$idle" = "$nodes" ] && break
        [ "$SECONDS" -lt "$deadline" ] ||
            die "up --slurm: $idle of $nodes nodes idle after ${SLURM_START_TIMEOUT}s (logs in $sdir)"
        sleep 0.2
    done
}

# Whether Slurm on this cluster has a job (pending or running).
slurm_busy() {
    [ -f "$dir/slurm/slurm.conf" ] || return 1
    [ -n "$(SLURM_CONF=$dir/slurm/slurm.conf squeue -h -o %i 2> /dev/null)" ]
}
