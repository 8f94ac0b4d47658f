#!/usr/bin/env bash
# The hier allgather's ring against its link bound and against what the emulated links
# give a rank that sends and receives at once (issue 44), on the emulated cluster:
#   bench/allgather-ring.sh [--layouts 4x2,8x1,leaf] [--sizes 1048576,4194304,8388608]
#                           [--segsizes 0,8192] [--rounds 3] [--out DIR]
#                           [--base-lib DIR]
# Sizes are peerbench's (bench/peerbench.c): the bytes every rank ends with, a rank's block
# is size / ranks.  Per layout, ROUNDS times in turn: hier forced with each ring piece size
# (MPIR_CVAR_ALLGATHER_HIER_SEGSIZE; 0: one piece per node's block), MPICH 5.0.1 as
# shipped, and with --base-lib each piece size again as `base:S` with the libmpi.so.0 in
# DIR (a build of another commit, e.g. `cp -a build/install/lib/libmpi.so* DIR` before a
# change: an A/B of two builds in one run); a figure is the median of the rounds' per-call times (each the median of 3
# repetitions, max over ranks).  Then bench/link-probe.c's `one`, `ring` and `ringall`
# patterns at the largest size (one rank per node): what one stream, a rank's stream in
# and out at once (ranks 0-2), and every node's at once (the leaders' ring of the
# allgather, every rank busy) take on these links.  The link bound is `hiertune
# link-bound`'s; a second table divides by it times the `ringall` factor (what the links
# give that pattern).  Root; needs
# the build (./quickstart check).  Output: DIR/LAYOUT.csv and the table on stdout
# (DIR: build/allgather-ring).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=maint/emucluster
layouts=4x2,8x1,leaf sizes=1048576,4194304,8388608 segsizes=0,8192 rounds=3 out=build/allgather-ring
base_lib=
. bench/layouts.sh
die() { echo "allgather-ring: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
        --layouts) layouts=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --segsizes) segsizes=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --base-lib) base_lib=${2:?}; shift 2 ;;
        *) sed -n '/^#   bench/,/^#  *\[--base-lib/p' "$0" | sed 's/^# \{0,1\}//' >&2; die "unknown option '$1'" ;;
    esac
done
[[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes $sizes: need bytes,bytes,..."
[[ $segsizes =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--segsizes $segsizes: need bytes,bytes,..."
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: need a positive count"
[ -z "$base_lib" ] || [ -e "$base_lib/libmpi.so.0" ] || die "--base-lib $base_lib: no libmpi.so.0 there"
configs=${segsizes//,/ }
[ -z "$base_lib" ] || for s in ${segsizes//,/ }; do configs+=" base:$s"; done
for layout in ${layouts//,/ }; do
    bench_layout "$layout" || die "--layouts: '$layout' is none of $BENCH_LAYOUTS"
done
bench_ready "$out"
build/install/bin/mpicc -O2 -o "$out/bin/link-probe" bench/link-probe.c
largest=$(tr , '\n' <<< "$sizes" | sort -n | tail -1)

for layout in ${layouts//,/ }; do
    bench_layout "$layout"
    "$emu" up "${up[@]}" > /dev/null
    csv=$out/$layout.csv
    echo "config,round,size,median_us" > "$csv"
    for round in $(seq "$rounds"); do
        for config in $configs mpich; do
            env=()
            [ "$config" = mpich ] || env=(MPIR_CVAR_ALLGATHER_INTRA_ALGORITHM=hier
                                          "MPIR_CVAR_ALLGATHER_HIER_SEGSIZE=${config#base:}")
            [ "${config%%:*}" != base ] || env+=("LD_LIBRARY_PATH=$base_lib")
            env "${env[@]}" "$emu" run --ppn "$ppn" -- "$out/bin/peerbench" -C allgather \
                -s "$sizes" -r 3 -x 1 | awk -F, -v c="$config" -v r="$round" \
                'NR > 1 { name = c == "mpich" || c ~ /^base:/ ? c : "hier:" c; print name "," r "," $3 "," $7 }' >> "$csv"
        done
    done
    per_rank=$(tr , '\n' <<< "$sizes" | awk -v n="$((ppn * ${up[1]}))" '{ printf "%s%d", (NR > 1 ? "," : ""), $1 / n }')
    tools/hiertune link-bound -C allgather --sizes "$per_rank" "${bound[@]}" > "$out/$layout.bound.csv"
    probe=()
    for pattern in one ring ringall; do
        probe+=("$("$emu" run --ppn 1 -- "$out/bin/link-probe" "$pattern" "$largest" | awk '{ print $10 }')")
    done
    "$emu" down > /dev/null
    python3 - "$layout" "$csv" "$out/$layout.bound.csv" "$((ppn * ${up[1]}))" "$largest" "${probe[@]}" <<'EOF'
import csv, statistics, sys
layout, times, bounds, ranks, largest, one, ring, ringall = sys.argv[1:]
bound = {int(r["size"]) * int(ranks): float(r["link_bound_us"]) for r in csv.DictReader(open(bounds))}
runs = {}
for r in csv.DictReader(open(times)):
    runs.setdefault((r["config"], int(r["size"])), []).append(float(r["median_us"]))
configs = sorted({c for c, _ in runs}, key=lambda c: (c == "mpich", c))
link = int(largest) * 80 / 1000  # 100 Mbit/s: the node links, the leaf layout's uplinks
ringall_factor = int(ringall) / link
for title, scale in (("/ link bound", 1.0), (f"/ (link bound x ringall {ringall_factor:.2f})", ringall_factor)):
    print(f"\n{layout}: ms (median of the rounds), {title}")
    print("size        bound  " + "  ".join(f"{c:>18}" for c in configs))
    for size in sorted({s for _, s in runs}):
        cells = []
        for c in configs:
            t = statistics.median(runs[(c, size)]) / 1000
            cells.append(f"{t:9.1f} ({t * 1000 / (bound[size] * scale):4.2f}x)")
        print(f"{size:<9} {bound[size] * scale / 1000:7.1f}  " + "  ".join(f"{x:>18}" for x in cells))
print(f"link-probe at {largest} B (one rank per node; one transfer at 100 Mbit/s {link:.0f} us): "
      f"one {int(one) / link:.2f}x, ring (ranks 0-2) {int(ring) / link:.2f}x, "
      f"ringall (every rank) {ringall_factor:.2f}x")
EOF
done
