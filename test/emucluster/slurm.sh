#!/usr/bin/env bash
# A real Slurm on the emulated nodes (`emucluster up --slurm`), used as a site uses it:
#   - the cluster comes up with every node idle, and down leaving nothing (no link,
#     namespace, daemon or file);
#   - srun --mpi=pmi2 places ranks by block and, with --distribution=cyclic, round robin
#     (the nodes MPICH detects are Slurm's);
#   - with hier forced, the hierarchy the plugin builds is Slurm's: its switch level
#     groups the ranks as the SLURM_TOPOLOGY_ADDR Slurm set for each task (topology.conf,
#     leaf switches in cyclic order), its node level as Slurm's nodes; the data is right and
#     hier ran (hier_bcast -expect-hier reads the plugin's pvar), under the site's
#     MpiDefault (plain srun);
#   - hydra's mpiexec inside salloc and inside sbatch (its Slurm bootstrap) runs on the
#     allocated nodes;
#   - maint/slurm-tune.sbatch tunes on 2 nodes, is requeued while it runs and resumes
#     from its database (run 2 finds the calibration stored), and installs its tree;
#   - a user's job under `module load mpich-hier` (srun, no tree named) runs what the
#     installed tree says (hiertune verify, the tune's own cases), and with
#     MPIR_CVAR_HIER_SITE_TREE=0 does not where the tree picks hier.
source "$(dirname "$0")/common.sh"
builddir=${MPICH_HIER_BUILDDIR:-$srcdir/build}
hiertune=${HIERTUNE:-$srcdir/tools/hiertune}
[ -x "$hiertune" ] || fail "no $hiertune (make)"
site=$prefix/share/mpich-hier/tuning.json
# the other tests need the default path: this test leaves no site tree behind
[ ! -e "$site" ] || fail "a site tree is installed at $site already (remove it and its .record)"
trap 'rm -f "$site" "$site.record"; cleanup' EXIT

build_program node_layout
"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/bcast_once" "$srcdir/test/mpi/hierarchy/bcast_once.c" ||
    fail "cannot build bcast_once.c"
"$prefix/bin/mpicc" -O2 -Wall -I"$srcdir/test/mpi/coll" -o "$tmp/hier_bcast" \
    "$srcdir/test/mpi/coll/hier_bcast.c" || fail "cannot build hier_bcast.c"

echo "== up --slurm: a bad CPU count refused, naming it ($SECONDS s)"
for bad in 0 x; do
    ! "$emucluster" up --nodes 2 --slurm --slurm-cpus $bad > "$tmp/up" 2>&1 || fail "--slurm-cpus $bad accepted"
    grep -qx "emucluster: up: --slurm-cpus $bad: need 1 .. 1024" "$tmp/up" || fail "--slurm-cpus $bad: $(cat "$tmp/up")"
    [ -z "$(made_objects)" ] || fail "--slurm-cpus $bad left: $(made_objects)"
done
echo "== up --slurm: 4 nodes, leaf switches of 2 in cyclic order ($SECONDS s)"
"$emucluster" up --nodes 4 --rate 100mbit --leaf-size 2 --uplink-rate 100mbit --leaf-order cyclic --slurm \
    > "$tmp/up" 2>&1 || fail "up --slurm: $(cat "$tmp/up")"
export SLURM_CONF=$EMUCLUSTER_DIR/slurm/slurm.conf
grep -qx "slurm: SLURM_CONF=$SLURM_CONF, 4 nodes idle, 0 job(s)" <("$emucluster" status) ||
    fail "status: $("$emucluster" status)"
[ "$(sinfo -h -N -o '%N %t' | sort -u | tr '\n' ' ')" = \
    "$EMUCLUSTER_PREFIX-n0 idle $EMUCLUSTER_PREFIX-n1 idle $EMUCLUSTER_PREFIX-n2 idle $EMUCLUSTER_PREFIX-n3 idle " ] ||
    fail "sinfo: $(sinfo -N)"
# jobs on these nodes name no fabric of their own: the nodes' task prolog sets it
unset FI_PROVIDER FI_TCP_IFACE

echo "== srun --mpi=pmi2: block and cyclic placement ($SECONDS s)"
srun_layout() {  # srun_layout EXPECTED SRUN-OPTIONS...
    local expected=$1 got
    shift
    got=$(timeout 120 srun "$@" "$tmp/node_layout" 100000 2> "$tmp/err") || fail "srun $*: $(cat "$tmp/err")"
    [ "$got" = "$expected" ] || fail "srun $*: layout
$got
expected
$expected"
}
srun_layout "$layout_ppn_2" --mpi=pmi2 -N4 --ntasks-per-node=2
srun_layout "node: 0 4
node: 1 5
node: 2 6
node: 3 7" --mpi=pmi2 -N4 --ntasks-per-node=2 --distribution=cyclic

echo "== the plugin's hierarchy is Slurm's nodes and switches ($SECONDS s)"
# "KIND: RANKS" per group, from the SLURM_TOPOLOGY_ADDR (switch.leaf.node) of each task
groups_from_slurm() {
    python3 -c '
import sys, collections
leaf, node = collections.defaultdict(list), collections.defaultdict(list)
for line in sys.stdin:
    rank, addr, pattern = line.split()
    assert pattern == "switch.switch.node", pattern
    _, l, n = addr.split(".")
    leaf[l].append(int(rank)); node[n].append(int(rank))
for kind, groups in (("Switch", leaf), ("Node", node)):
    for ranks in sorted(sorted(g) for g in groups.values()):
        print(kind + ":", *ranks)'
}
# the same from MPIR_CVAR_HIER_DUMP's lines for MPI_COMM_WORLD
groups_from_dump() {
    awk '/comm .* \(8 ranks\): [0-9]+ levels/ {on = 1; next}
         /comm .* ranks\)/ {on = 0}
         on && $2 == "level" {kind = $4; sub(":", "", kind)}
         on && $2 == "group" {sub(/.* ranks /, ""); print kind ": " $0}' |
        python3 -c '
import sys
rows = [l.split(":") for l in sys.stdin if l.strip()]
for kind in ("Switch", "Node"):
    for ranks in sorted(sorted(map(int, r.split())) for k, r in rows if k == kind):
        print(kind + ":", *ranks)'
}
for dist in block cyclic; do
    opts=(-N4 --ntasks-per-node=2 --distribution=$dist)
    timeout 60 srun "${opts[@]}" sh -c 'echo $SLURM_PROCID $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN' \
        > "$tmp/addr" 2> "$tmp/err" || fail "srun $dist: $(cat "$tmp/err")"
    expected=$(groups_from_slurm < "$tmp/addr") || fail "Slurm's addresses: $(cat "$tmp/addr")"
    MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 MPIR_CVAR_HIER_DUMP=1 \
        timeout 120 srun "${opts[@]}" "$tmp/bcast_once" > "$tmp/dump" 2>&1 || fail "bcast_once ($dist): $(cat "$tmp/dump")"
    got=$(groups_from_dump < "$tmp/dump")
    [ "$got" = "$expected" ] || fail "$dist: the plugin's groups
$got
Slurm's
$expected
(dump: $(cat "$tmp/dump"))"
    [ "$(grep -c '^Switch:' <<< "$got")" = 2 ] || fail "$dist: not 2 switch groups: $got"
    # hier forced, the site's MpiDefault (no --mpi): data checked, hier ran (pvar)
    MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier timeout 300 srun "${opts[@]}" "$tmp/hier_bcast" -expect-hier \
        > "$tmp/out" 2>&1 || fail "hier_bcast ($dist): $(head -20 "$tmp/out")"
    [ "$(cat "$tmp/out")" = " No Errors" ] || fail "hier_bcast ($dist): $(head -20 "$tmp/out")"
done

echo "== hydra's mpiexec inside salloc and sbatch ($SECONDS s)"
got=$(timeout 120 salloc -N4 --ntasks-per-node=2 "$mpiexec" "$tmp/node_layout" 100000 2> "$tmp/err") ||
    fail "salloc mpiexec: $(cat "$tmp/err")"
[ "$got" = "$layout_ppn_2" ] || fail "salloc mpiexec: layout $got"
printf '#!/bin/sh\nexec "%s" "%s" 1000\n' "$mpiexec" "$tmp/node_layout" > "$tmp/job.sh"
timeout 120 sbatch -W -N4 --ntasks-per-node=2 -o "$tmp/job.out" "$tmp/job.sh" > /dev/null ||
    fail "sbatch mpiexec: $(cat "$tmp/job.out")"
[ "$(grep '^node:' "$tmp/job.out")" = "$layout_ppn_2" ] || fail "sbatch mpiexec: $(cat "$tmp/job.out")"

echo "== tune as a batch job: requeued while it runs, resumed, installed ($SECONDS s)"
job_state() { scontrol show job "$1" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
export TUNE_OUT=$tmp/tune HIERTUNE=$hiertune MPICH_HIER_SRC=$srcdir
export TUNE_ARGS="-C bcast,allreduce --sizes 2K,24K,200K -s 8K --config inter_algo=tsp_kary/sched_binomial,intra_algo=binomial
 --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1 --tree-rounds 2
 --allow-tree-slower --stock $builddir/mpich-5.0.1/maint/tuning/coll/mpir/generic.json"
TUNE_ARGS=${TUNE_ARGS//$'\n'/}
id=$(sbatch --parsable -N2 --ntasks-per-node=2 -o "$tmp/tune.out" "$srcdir/maint/slurm-tune.sbatch") ||
    fail "sbatch maint/slurm-tune.sbatch"
deadline=$((SECONDS + 120))
until grep -qs "^== tune step 1/7" "$tmp/tune.out"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "the tune job never reached its step 1: $(scontrol show job "$id")
$(tail -20 "$tmp/tune.out")"
    sleep 0.2
done
scontrol requeue "$id" || fail "scontrol requeue $id"
# A requeued job, once pending again, waits out a begin time Slurm gives it (2 minutes):
# the test moves it to now, but only once the first run's steps have ended.  Their
# slurmstepds end after the requeue (srun waits up to KillWait for its tasks), and an end
# reported after the second run started ends that run as FAILED.
first_run_ended() { ! pgrep -f "^slurmstepd: \[$id\." > /dev/null; }
wait_for 90 "the first run's steps did not end: $(pgrep -af "^slurmstepd: \[$id\.")" first_run_ended
ended=$(date +%s)
wait_for 60 "the requeued tune job is not pending: $(job_state "$id")" \
    sh -c "scontrol show job $id | grep -qE 'JobState=(PENDING|RUNNING|COMPLETED|FAILED)'"
# slurmd revokes the first run's credential with a time in whole seconds and refuses a
# credential issued in that same second ("Job credential revoked": the second run FAILED),
# so the second run may start only once the clock has left the second the first ended in
[ "$(job_state "$id")" != PENDING ] || wait_for 5 "the clock did not pass $ended" sh -c "[ \$(date +%s) -gt $ended ]"
[ "$(job_state "$id")" != PENDING ] || scontrol update JobId="$id" StartTime=now ||
    fail "scontrol update StartTime=now"
wait_for 600 "the requeued tune job did not finish: $(job_state "$id")" \
    sh -c "scontrol show job $id | grep -qE 'JobState=(COMPLETED|FAILED|CANCELLED|TIMEOUT)'"
[ "$(job_state "$id")" = COMPLETED ] || fail "tune job $(job_state "$id"): $(tail -30 "$tmp/tune.out")
slurmctld on job $id: $(grep -E "JobId=$id[^0-9]" "$EMUCLUSTER_DIR/slurm/slurmctld.log")"
grep -q "^== job $id run 1: 4 ranks on " "$tmp/tune.out" || fail "no run 1: $(head "$tmp/tune.out")"
grep -q "^== job $id run 2: " "$tmp/tune.out" || fail "the job was not run again after the requeue"
sed -n '/^== job '"$id"' run 2/,$p' "$tmp/tune.out" > "$tmp/run2"
grep -q "^calibration stored in $TUNE_OUT/tune.sqlite" "$tmp/run2" ||
    fail "run 2 measured the calibration again: $(head -20 "$tmp/run2")"
grep -q "^\\$ srun --mpi=pmi2 .*hiertune calibrate " "$tmp/run2" || fail "the jobs were not srun steps"
grep -q "^installed $site " "$tmp/run2" || fail "the tree was not installed: $(tail "$tmp/run2")"
cmp -s "$TUNE_OUT/tree.json" "$site" || fail "the installed tree is not the tune's"

echo "== a user's job under module load runs the installed tree ($SECONDS s)"
cases=$(sed -n 's/^\$ .*hiertune verify \(--case .*\)$/\1/p' "$tmp/run2" | tail -1)
[ -n "$cases" ] || fail "no verify step in the tune's output"
unset MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE MPIR_CVAR_HIER_SITE_TREE MPICH_HIER_SITE_TREE
set +u
# shellcheck disable=SC1091
. /usr/share/modules/init/bash || fail "no environment-modules"
module use "$prefix/share/modulefiles"
module load mpich-hier || fail "module load mpich-hier"
set -u
# shellcheck disable=SC2086
timeout 120 srun -N2 --ntasks-per-node=2 "$hiertune" verify $cases > "$tmp/verify" 2>&1 ||
    fail "the user's job does not run the installed tree ($cases): $(cat "$tmp/verify")"
if grep -q ":hier/" <<< "$cases"; then
    # shellcheck disable=SC2086
    ! MPIR_CVAR_HIER_SITE_TREE=0 timeout 120 srun -N2 --ntasks-per-node=2 "$hiertune" verify $cases \
        > "$tmp/verify0" 2>&1 || fail "verify passed without the site tree: it checks nothing ($cases)"
else
    echo "note: the tuned tree picks MPICH's own algorithms at every size here ($cases)"
fi

echo "== down: nothing left ($SECONDS s)"
"$emucluster" down > /dev/null 2>&1 || fail "down failed"
[ -z "$(made_objects)" ] || fail "left behind: $(made_objects)"
! pgrep -f "$EMUCLUSTER_DIR" > /dev/null || fail "daemons left: $(pgrep -af "$EMUCLUSTER_DIR")"
[ ! -e "$EMUCLUSTER_DIR/slurm" ] || fail "$EMUCLUSTER_DIR/slurm left"
echo "PASS: Slurm on the emulated cluster"
