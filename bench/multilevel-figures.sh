#!/usr/bin/env bash
# Issue 19's table: hier over three levels (leaf switch, node, in the node) against
# two-level hier (MPIR_CVAR_HIER_LEVELS=nodes, HAN's levels) and MPICH as shipped, on the
# emulated cluster: 4 nodes x 2 ranks under 2 leaf switches of 2 nodes, node links
# 100 Mbit/s, uplinks 25 Mbit/s (4x slower).  The plugin sees the switches from the
# SLURM_TOPOLOGY_ADDR that `emucluster run` sets per node.  One bench job per collective:
# the three configurations take turns repetition by repetition (median of REPS, max over
# ranks).  Then the same on the same leaves in cyclic order (node i under leaf i mod 2:
# an allocation whose node order alternates between the switches, so HAN's inter-node
# chain in node order crosses the uplinks three times).  As root, nothing else running:
#   bench/multilevel-figures.sh [OUT_DIR] [REPS]      (default build/multilevel, 7)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-build/multilevel}
reps=${2:-7}
mkdir -p "$out"

trap 'maint/emucluster down >&2' EXIT
for order in block cyclic; do
    maint/emucluster up --nodes 4 --leaf-size 2 --uplink-rate 25mbit --leaf-order "$order" >&2
    maint/emucluster status | sed -n 1p >&2
    for coll in bcast allreduce; do
        maint/emucluster run --ppn 2 -- tools/hiertune bench --no-progress --csv -C "$coll" \
            --sizes 65536,1048576,4194304 -x 1 -r "$reps" -a default -a hier -p HIER_LEVELS=all/nodes \
            > "$out/$coll-$order.csv"
    done
    if [ "$order" = block ]; then
        # the bcast with an inter-node tree that is not a chain in node order (binary: node 0
        # sends to nodes 1 and 2, node 1 to node 3, so two transfers cross the same uplink)
        maint/emucluster run --ppn 2 -- tools/hiertune bench --no-progress --csv -C bcast \
            --sizes 1048576,4194304 -x 1 -r "$reps" -a hier -p BCAST_HIER_INTER_ALGORITHM=tsp_kary \
            -p HIER_LEVELS=all/nodes > "$out/bcast-kary.csv"
    fi
    maint/emucluster down >&2
done
# stock, two-level and three-level side by side per size.  bench runs MPICH's selection
# under both values of the CVAR (it does not read it): the faster of the two is "stock".
# The uplink bound: the message crossing a 25 Mbit/s uplink once, which every bcast and
# allreduce from a rank under one leaf to the ranks under the other must do.
for run in bcast-block allreduce-block bcast-cyclic allreduce-cyclic; do
    awk -F, -v coll="${run%-*}" -v placement="${run#*-}" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        {
            size = $col["size"]
            if (!(size in seen)) { seen[size] = 1; order[n++] = size }
            t = $col["median_us"]
            if ($col["algorithm"] == "default") { if (!(size in stock) || t < stock[size]) stock[size] = t }
            else if ($col["params"] ~ /HIER_LEVELS=nodes/) two[size] = t
            else three[size] = t
        }
        END {
            printf "# MPI_%s, 4 nodes x 2 ranks, 2 leaf switches (%s order), median us\n", coll, placement
            printf "# %-9s %11s %11s %11s %8s %10s %12s %8s\n", "size", "stock", "two-level", "three-level",
                "3 vs 2", "3 vs stock", "uplink bound", "3/bound"
            for (i = 0; i < n; i++) {
                s = order[i]
                bound = s / (25e6 / 8) * 1e6
                printf "  %-9s %11.0f %11.0f %11.0f %8.2f %10.2f %12.0f %8.2f\n", s, stock[s], two[s], three[s],
                    two[s] / three[s], stock[s] / three[s], bound, three[s] / bound
            }
        }' "$out/$run.csv"
done | tee "$out/table.txt"
awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    {
        size = $col["size"]
        if (!(size in seen)) { seen[size] = 1; order[n++] = size }
        if ($col["params"] ~ /HIER_LEVELS=nodes/) two[size] = $col["median_us"]; else three[size] = $col["median_us"]
    }
    END {
        printf "# MPI_bcast, hier with inter_algo=tsp_kary (k = 2), median us\n"
        printf "# %-9s %11s %11s %8s\n", "size", "two-level", "three-level", "3 vs 2"
        for (i = 0; i < n; i++)
            printf "  %-9s %11.0f %11.0f %8.2f\n", order[i], two[order[i]], three[order[i]], two[order[i]] / three[order[i]]
    }' "$out/bcast-kary.csv" | tee -a "$out/table.txt"
