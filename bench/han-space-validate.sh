#!/usr/bin/env bash
# Issue 18's all-tuners table on a space where nodes hold more than one rank, so that the
# HAN task model has something to tune: MPI_Bcast and MPI_Allreduce on 4 emulated nodes x 2
# ranks (100 Mbit/s, emucluster's default bucket), 1 KiB - 1 MiB, the hier algorithms of
# `./quickstart tune`'s space (segment 16/64/256 KiB x inter-node submodule x intra-node
# submodule) and MPICH's default selection.  As root, nothing else running:
#   bench/han-space-validate.sh [OUT_DIR] [LEARN_BUDGET_S...]
# (default build/han-space, budgets 44 and 90 s per collective: a quarter and a half of
# the sweep's 355 s measured 2026-11-25, split between the two collectives).
#  1. hiertune tune: link calibration, task benchmarks, the HAN model's tree (tree-han.json),
#     then the exhaustive sweep of the same space (its step 6) and MPICH's default (step 1),
#     all in tune.sqlite.  A rerun resumes from the database.
#  2. per budget B, hiertune learn over the same configurations, same bench effort (tune's
#     and learn's defaults agree), its own database learn-B.sqlite, B seconds per collective.
#  3. hiertune compare-tuners per collective: the sweep of step 1 against the HAN tree and
#     each learned tree (rows han, learn-B), written to compare-COLL.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/han-space}
budgets=("${@:2}")
[ ${#budgets[@]} -gt 0 ] || budgets=(44 90)
mkdir -p "$out"
. bench/tune-space.sh
tune_collectives=bcast,allreduce  # this study's two (the space's others have their own sizes and shares)
segs=${tune_segsizes//,//}
declare -A inter=([bcast]=${tune_inter//\/tsp_allreduce_ring/} [allreduce]=$tune_inter)

maint/emucluster up --nodes 4 --rate 100mbit >&2
trap 'maint/emucluster down >&2' EXIT
tools/hiertune tune -n 8 --launcher "maint/emucluster run --ppn 2 --" -C "$tune_collectives" -m "$tune_sizes" \
    -s "$tune_segsizes" --config "inter_algo=$tune_inter,intra_algo=$tune_intra" \
    --db "$out/tune.sqlite" -o "$out/tree-han.json" --report "$out/report" | tee "$out/tune.txt"
for b in "${budgets[@]}"; do
    for c in ${tune_collectives//,/ }; do
        tools/hiertune learn -C "$c" --nodes 4 --ppn 2 -m "$tune_sizes" -a default \
            -a "hier:${c}_hier_segsize=$segs,${c}_hier_inter_algorithm=${inter[$c]},${c}_hier_intra_algorithm=$tune_intra" \
            --launcher 'maint/emucluster run' --db "$out/learn-$b.sqlite" --batch 4 --time-budget "$b" \
            -o "$out/tree-learn$b-$c.json" | tee "$out/learn$b-$c.txt"
    done
done
for c in ${tune_collectives//,/ }; do
    trees=(--tree han="$out/tree-han.json" --tuning-db han="$out/tune.sqlite")
    for b in "${budgets[@]}"; do
        trees+=(--tree "learn-$b=$out/tree-learn$b-$c.json" --tuning-db "learn-$b=$out/learn-$b.sqlite")
    done
    tools/hiertune compare-tuners --db "$out/tune.sqlite" -C "$c" "${trees[@]}" | tee "$out/compare-$c.txt"
done
