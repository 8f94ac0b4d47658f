#!/usr/bin/env bash
# A/B of the values of one hier CVAR, beside MPICH 5.0.1 as shipped and the link bound, on
# the emulated cluster:
#   bench/hier-ab.sh --coll COLL --cvar NAME=V1/V2/... [--layouts leaf,4x2,8x1]
#                    [--sizes 65536,1048576,4194304] [--rounds 3] [--out DIR]
# Per layout (bench/layouts.sh), ROUNDS times, the configurations in turn (their order
# rotated each round): hier forced (MPIR_CVAR_<COLL>_INTRA_ALGORITHM=hier) with NAME set to
# each value, then MPICH as shipped; each a bench/peerbench.c job (its sizes: the bytes
# every rank ends with, a rank's block size / ranks for gather, scatter, allgather(v), the
# reduce-scatters, gatherv and scatterv (the mean of their uneven blocks) and alltoall(v),
# whose block is what a rank sends one peer),
# a call's time the median of 3 repetitions, max over ranks.  A figure is the median of
# the rounds' times; beside it the link bound (`hiertune link-bound`) and the ratio to the
# first value.  Root; needs the build (./quickstart check).  Output: DIR/LAYOUT.csv and the
# tables on stdout (DIR: build/hier-ab).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=maint/emucluster
coll= cvar= layouts=leaf,4x2,8x1 sizes=65536,1048576,4194304 rounds=3 out=build/hier-ab
. bench/layouts.sh
die() { echo "hier-ab: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
        --coll) coll=${2:?}; shift 2 ;;
        --cvar) cvar=${2:?}; shift 2 ;;
        --layouts) layouts=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        *) sed -n '/^#   bench/,/^#  *\[--sizes/p' "$0" | sed 's/^# \{0,1\}//' >&2; die "unknown option '$1'" ;;
    esac
done
case $coll in bcast | reduce | allreduce | allgather | gather | scatter | scan | exscan | \
    reduce_scatter | reduce_scatter_block | allgatherv | alltoall | alltoallv | gatherv | scatterv) ;;
    *) die "--coll '$coll': one of bcast reduce allreduce allgather gather scatter scan exscan reduce_scatter reduce_scatter_block allgatherv alltoall alltoallv gatherv scatterv" ;; esac
[[ $cvar =~ ^MPIR_CVAR_[A-Z0-9_]+=[A-Za-z0-9_]+(/[A-Za-z0-9_]+)+$ ]] ||
    die "--cvar '$cvar': need MPIR_CVAR_NAME=VALUE/VALUE[/...]"
[[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes $sizes: need bytes,bytes,..."
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: need a positive count"
for layout in ${layouts//,/ }; do
    bench_layout "$layout" || die "--layouts: '$layout' is none of $BENCH_LAYOUTS"
done
bench_ready "$out"

name=${cvar%%=*} values=${cvar#*=}
configs=(${values//\// } mpich)
force=MPIR_CVAR_${coll^^}_INTRA_ALGORITHM=hier

for layout in ${layouts//,/ }; do
    bench_layout "$layout"
    "$emu" up "${up[@]}" > /dev/null
    ranks=$((ppn * ${up[1]})) csv=$out/$layout.csv
    echo "config,round,size,median_us" > "$csv"
    for round in $(seq "$rounds"); do
        for k in "${!configs[@]}"; do
            config=${configs[(k + round - 1) % ${#configs[@]}]}
            env=()
            [ "$config" = mpich ] || env=("$force" "$name=$config")
            env "${env[@]}" "$emu" run --ppn "$ppn" -- "$out/bin/peerbench" -C "$coll" \
                -s "$sizes" -r 3 -x 1 | awk -F, -v c="$config" -v r="$round" \
                'NR > 1 { print c "," r "," $3 "," $7 }' >> "$csv"
        done
    done
    "$emu" down > /dev/null
    per_rank=$sizes
    case $coll in allgather | gather | scatter | reduce_scatter | reduce_scatter_block | allgatherv | alltoall | alltoallv | \
        gatherv | scatterv)
        per_rank=$(tr , '\n' <<< "$sizes" | awk -v n="$ranks" '{ printf "%s%d", (NR > 1 ? "," : ""), $1 / n }') ;;
    esac
    tools/hiertune link-bound -C "$coll" --sizes "$per_rank" "${bound[@]}" > "$out/$layout.bound.csv"
    python3 - "$layout" "$csv" "$out/$layout.bound.csv" "$sizes" "$per_rank" "$name" "${configs[@]}" <<'EOF'
import csv, statistics, sys
layout, times, bounds, sizes, per_rank, name, *configs = sys.argv[1:]
of_rank = dict(zip(map(int, per_rank.split(",")), map(int, sizes.split(","))))
bound = {of_rank[int(r["size"])]: float(r["link_bound_us"]) for r in csv.DictReader(open(bounds))}
runs = {}
for r in csv.DictReader(open(times)):
    runs.setdefault((r["config"], int(r["size"])), []).append(float(r["median_us"]))
print(f"\n{layout}: {name}, ms (median of the rounds), x the link bound, / {configs[0]}")
print(f"{'size':<9} {'bound':>7}  " + "  ".join(f"{c:>24}" for c in configs))
for size in sorted({s for _, s in runs}):
    first = statistics.median(runs[(configs[0], size)])
    cells = []
    for c in configs:
        t = statistics.median(runs[(c, size)])
        cells.append(f"{t / 1000:8.1f} {t / bound[size]:5.2f}x {t / first:5.3f}")
    print(f"{size:<9} {bound[size] / 1000:7.1f}  " + "  ".join(f"{x:>24}" for x in cells))
EOF
done
