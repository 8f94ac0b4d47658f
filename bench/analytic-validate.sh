#!/usr/bin/env bash
# Issue 17's validation: the analytic models fitted on the emulated cluster against the
# exhaustive sweep of the same space, in one database.  As root (brings the emulated
# cluster up and down; nothing else running):
#   bench/analytic-validate.sh [DB] [REPORT_DIR]      (default build/analytic/...)
# Space (bench/validation-space.sh): MPI_Bcast and MPI_Reduce at one rank per node on 2, 3 and 4 emulated nodes
# (100 Mbit/s; token bucket of 2 KB: with emucluster's default 16 KB an idle link passes
# the first 16 KB at once, which no alpha-beta model of a link describes), 8 KiB - 4 MiB (10 sizes, x2 apart), MPICH's modelled algorithms and the
# seg_* trees at 16/64/256 KiB segments (seg_chain: 2 chains), MPICH's default beside.
# Fit on 4 nodes: gamma for P = 2..4 at the three segment sizes, each algorithm at the
# 10 sizes (seg_* at 64 KiB).  Same stopping rule for the fit and the sweep.  A rerun
# resumes both from the database.  Then the tree (--from analytic, comm sizes 2-16) and
# hiertune analytic-report (exit 1 when a target is missed).
set -euo pipefail
cd "$(dirname "$0")/.."
db=${1:-build/analytic/validate.sqlite}
report=${2:-build/analytic/report}
mkdir -p "$(dirname "$db")"
. bench/validation-space.sh

maint/emucluster up --nodes 4 --rate 100mbit --burst 2kb >&2
trap 'maint/emucluster down >&2' EXIT
maint/emucluster run --ppn 1 --nodes 4 -- tools/hiertune fit --db "$db" --largest 4M --smallest 8K --count 10 \
    "${effort[@]}" | tee "$(dirname "$db")/fit.txt"
for nodes in ${space_nodes//,/ }; do
    for c in bcast reduce; do
        declare -n algos=$c
        maint/emucluster run --ppn 1 --nodes "$nodes" -- tools/hiertune bench --db "$db" --account exhaustive \
            -C "$c" "${algos[@]}" --sizes "$sizes" "${effort[@]}" --csv --no-progress > /dev/null
    done
done
job=$(tools/hiertune db list --db "$db" --csv | awk -F, 'NR > 1 && $3 == 4 { print $1; exit }')
tools/hiertune generate --db "$db" --job "$job" --from analytic --comm-sizes 2,3,4,8,16 \
    --stock build/mpich-5.0.1/maint/tuning/coll/mpir/generic.json -o "$(dirname "$db")/tree.json"
tools/hiertune analytic-report --db "$db" --job "$job" -o "$report"
