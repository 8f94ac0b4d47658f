#!/usr/bin/env bash
# Issue 18's first figures: hiertune learn on the space of bench/analytic-validate.sh
# (MPI_Bcast and MPI_Reduce at one rank per node on 2, 3 and 4 emulated nodes, 100 Mbit/s,
# 2 KB token bucket, 8 KiB - 4 MiB, MPICH's algorithms and the seg_* trees at 16/64/256 KiB,
# the same bench effort), each collective under a time budget of a quarter of the
# exhaustive sweep's share, into a database of its own (it measures its own points).  As
# root, nothing else running, after bench/analytic-validate.sh (whose sweep the picks are
# compared with):
#   bench/learn-validate.sh [OUT_DIR] [BUDGET_S]      (default build/learn, 120 s per collective)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/learn}
budget=${2:-120}
mkdir -p "$out"
effort=(-x 1 --min-reps 5 -i 20 --max-time 3)
segs=16K/64K/256K
bcast=(-a default -a binomial -a scatter_recursive_doubling_allgather -a scatter_ring_allgather)
reduce=(-a default -a binomial -a reduce_scatter_gather -a seg_in_order_binary:reduce_seg_segsize=$segs)
for a in seg_linear seg_pipeline seg_binary seg_binomial; do
    bcast+=(-a "$a:bcast_seg_segsize=$segs")
    reduce+=(-a "$a:reduce_seg_segsize=$segs")
done
bcast+=(-a "seg_split_binary:bcast_seg_segsize=$segs" -a "seg_chain:bcast_seg_segsize=$segs,bcast_seg_fanout=2")
reduce+=(-a "seg_chain:reduce_seg_segsize=$segs,reduce_seg_fanout=2")

maint/emucluster up --nodes 4 --rate 100mbit --burst 2kb >&2
trap 'maint/emucluster down >&2' EXIT
for c in bcast reduce; do
    declare -n algos=$c
    tools/hiertune learn -C "$c" --nodes 2,3,4 --ppn 1 -m 8K:4M "${algos[@]}" "${effort[@]}" \
        --launcher 'maint/emucluster run' --db "$out/learn.sqlite" --batch 4 --time-budget "$budget" \
        -o "$out/tree-$c.json" | tee "$out/learn-$c.txt"
done
