#!/usr/bin/env bash
# Issue 20's figures: hiertune overlap on the emulated cluster, 2 nodes x 1 rank (a core
# each, not oversubscribed), without and with MPIR_CVAR_ASYNC_PROGRESS (MPICH reads it only
# in MPI_Init: two launches), then overlap-report side by side with heat maps.  As root,
# nothing else running:
#   bench/overlap-figures.sh [OUT_DIR]      (default build/overlap)
# Grid: 1 KiB - 1 MiB (11 sizes) x 10 us - 100 ms (6 computation times, log-spaced), 5
# repetitions per cell after a warm-up; MPI_Isend, MPI_Irecv, both, and MPI_Iallreduce with
# MPICH's selection and four of its algorithms (sched: recursive doubling, reduce-scatter +
# allgather; tsp: recursive exchange, ring).  About 15 min.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/overlap}
mkdir -p "$out"
grid=(-m 1K:1M --comp 10:100000 --comp-points 6 -r 5 --json)
iallreduce=(-a default -a sched_recursive_doubling -a sched_reduce_scatter_allgather -a tsp_recexch_single_buffer
            -a tsp_ring)

maint/emucluster up --nodes 2 >&2
trap 'maint/emucluster down >&2' EXIT
for setting in plain async; do
    env=()
    [ "$setting" = async ] && env=(--env MPIR_CVAR_ASYNC_PROGRESS=1)
    maint/emucluster run --ppn 1 "${env[@]}" -- tools/hiertune overlap -O isend,irecv,both "${grid[@]}" \
        > "$out/pt2pt-$setting.json"
    maint/emucluster run --ppn 1 "${env[@]}" -- tools/hiertune overlap -O iallreduce "${iallreduce[@]}" "${grid[@]}" \
        > "$out/iallreduce-$setting.json"
done
tools/hiertune overlap-report "$out/pt2pt-plain.json" "$out/pt2pt-async.json" --png-dir "$out/maps" \
    | tee "$out/pt2pt-report.txt"
tools/hiertune overlap-report "$out/iallreduce-plain.json" "$out/iallreduce-async.json" --png-dir "$out/maps" \
    | tee "$out/iallreduce-report.txt"
