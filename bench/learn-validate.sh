#!/usr/bin/env bash
# Issue 18's first figures: hiertune learn on the space of bench/analytic-validate.sh
# (MPI_Bcast and MPI_Reduce at one rank per node on 2, 3 and 4 emulated nodes, 100 Mbit/s,
# 2 KB token bucket, 8 KiB - 4 MiB, MPICH's algorithms and the seg_* trees at 16/64/256 KiB,
# the same bench effort), each collective under a time budget of a quarter of the
# exhaustive sweep's share, into a database of its own (it measures its own points).  As
# root, nothing else running, after bench/analytic-validate.sh (whose sweep the picks are
# compared with):
#   bench/learn-validate.sh [OUT_DIR] [BUDGET_S] [LEARN_ARG...]
# (default build/learn, 120 s per collective; e.g. --threshold 0 runs to the budget, the
# variance stop off; --random-start starts as ACCLAiM does)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/learn}
budget=${2:-120}
extra=("${@:3}")
mkdir -p "$out"
. bench/validation-space.sh

maint/emucluster up --nodes 4 --rate 100mbit --burst 2kb >&2
trap 'maint/emucluster down >&2' EXIT
for c in bcast reduce; do
    declare -n algos=$c
    tools/hiertune learn -C "$c" --nodes "$space_nodes" --ppn 1 -m "${sizes%%,*}:${sizes##*,}" "${algos[@]}" "${effort[@]}" \
        --launcher 'maint/emucluster run' --db "$out/learn.sqlite" --batch 4 --time-budget "$budget" \
        "${extra[@]}" -o "$out/tree-$c.json" | tee "$out/learn-$c.txt"
done
