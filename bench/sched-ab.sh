#!/usr/bin/env bash
# The blocking hier collectives as one schedule against their loops of blocking steps, and
# the non-blocking forms of bcast, reduce, allreduce against MPICH 5.0.1's own, on the
# emulated cluster.  As root, nothing else running (the cluster must be down):
#   bench/sched-ab.sh [REPS] [OUT_DIR] [PARTS]  (defaults 7, build/sched-ab, ab,nb,overlap)
# PARTS: which of the three below to run (comma-separated), the tables of those there.
# 1. ab: A/B of the blocking forms, every hier collective forced, its loop
#    (MPIR_CVAR_HIER_SCHEDULE_BLOCKING=loop) and the schedule started and waited for
#    (=schedule), alternating in one run (hiertune bench -p), 4 nodes x 2 ranks, 100 Mbit/s:
#    bcast, reduce, allreduce at 1 KiB and 64 KiB-4 MiB; allgather, gather, scatter at 1 KiB
#    and 64 KiB-1 MiB per rank; the barrier.
# 2. nb: time to completion of MPI_Ibcast, MPI_Ireduce and MPI_Iallreduce (start, 10 us of
#    computation, wait): tsp_hier against MPICH's selection (default), same cluster,
#    1-4 MiB, two rounds with the order of the two swapped.
# 3. overlap: overlap (Denis & Trahay eq. 1, hiertune overlap) of MPI_Iallreduce, tsp_hier and
#    default, 2 nodes x 1 rank (a core each; with 2 ranks per node the busy loop of the
#    computation shares the cores and its own time triples), without and with
#    MPIR_CVAR_ASYNC_PROGRESS (MPICH reads it in MPI_Init: two launches; its progress
#    thread then shares the rank's core).
# Every rank yields its core while it waits (maint/emucluster sets MPICH's throttle).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-7}
out=${2:-build/sched-ab}
parts=,${3:-ab,nb,overlap},
mkdir -p "$out"
trap 'maint/emucluster down >&2 || true' EXIT

# the link bound of every point (one formula: hiertune link-bound), beside the times
{
    tools/hiertune link-bound -C bcast,reduce,allreduce --sizes 1K,64K,256K,1M,2M,4M --nodes 4 \
        --ppn 2 --rate 12500000
    tools/hiertune link-bound -C allgather,gather,scatter --sizes 1K,64K,256K,1M --nodes 4 \
        --ppn 2 --rate 12500000 | tail -n +2
} > "$out/bounds.csv"
maint/emucluster up --nodes 4 --rate 100mbit >&2
ab() {
    maint/emucluster run --ppn 2 -- tools/hiertune bench -a hier \
        -p MPIR_CVAR_HIER_SCHEDULE_BLOCKING=loop/schedule -x 2 -r "$reps" --csv --no-progress "$@"
}
if [[ $parts == *,ab,* ]]; then
    ab -C bcast,reduce,allreduce --sizes 1024,65536,262144,1048576,4194304 > "$out/ab.csv"
    ab -C allgather,gather,scatter --sizes 1024,65536,262144,1048576 > "$out/ab-rooted.csv"
    ab -C barrier --sizes 0 > "$out/ab-barrier.csv"
fi
# two rounds, the algorithms in turn first
for round in 1 2; do
    [[ $parts == *,nb,* ]] || break
    order=(-a tsp_hier -a default)
    [ "$round" = 2 ] && order=(-a default -a tsp_hier)
    maint/emucluster run --ppn 2 -- tools/hiertune overlap -O ibcast,ireduce,iallreduce \
        "${order[@]}" -m 1M:4M --comp 10:10 --comp-points 1 -r "$reps" --json \
        > "$out/nb-$round.json"
done
maint/emucluster down >&2

if [[ $parts == *,overlap,* ]]; then
    maint/emucluster up --nodes 2 --rate 100mbit >&2
fi
for setting in plain async; do
    [[ $parts == *,overlap,* ]] || break
    env=()
    [ "$setting" = async ] && env=(--env MPIR_CVAR_ASYNC_PROGRESS=1)
    maint/emucluster run --ppn 1 "${env[@]}" -- tools/hiertune overlap -O iallreduce \
        -a tsp_hier -a default -m 64K:1M --comp 1000:300000 --comp-points 4 -r "$reps" --json \
        > "$out/overlap-$setting.json"
done

python3 bench/sched-ab-table.py "$out" | tee "$out/report.md"
