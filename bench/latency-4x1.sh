#!/usr/bin/env bash
# hier's defaults at small sizes against MPICH 5.0.1's best, on the emulated cluster with one
# rank per node (issue 44): 4 ranks on the 2-core VM, the leaders' algorithms alone and the
# latencies closest to free cores this machine gives.  Per collective, `hiertune bench`
# times in turns, size by size: hier with its defaults (by_size), hier with the bandwidth
# submodules that were its defaults before by_size (hier-bw), MPICH as shipped (default),
# every MPICH algorithm forced on the whole comm (stock) and the CH4 compositions (but
# allreduce's multi-leader one, which does not finish at 8 B).  Prints, per collective and
# size, hier, hier-bw and the best MPICH configuration with their ratios.  With --rounds N
# the whole comparison runs N times, the configurations' order rotated each round; a
# figure is then the median over the rounds of the configuration's medians, and hier/b the
# median over the rounds of hier against that round's best MPICH configuration.
#
#   bench/latency-4x1.sh [--sizes 8,1024] [--reps N] [--rounds N] [--out DIR]
# Root; needs the build (./quickstart check).  Output: DIR (build/latency-4x1).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=maint/emucluster hiertune=$PWD/tools/hiertune
sizes=8,1024 reps=400 rounds=1 out=build/latency-4x1
while [ $# -gt 0 ]; do
    case $1 in
        --sizes) sizes=${2:?}; shift 2 ;;
        --reps) reps=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        *) sed -n '/^#   bench/,/^# Root/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
done
for n in "$reps" "$rounds"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || { echo "latency-4x1: --reps and --rounds take a positive whole number, not '$n'" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "latency-4x1: the emulated cluster needs root" >&2; exit 1; }
[ "$("$emu" status)" = down ] || { echo "latency-4x1: a cluster is up; take it down first" >&2; exit 1; }
mkdir -p "$out"

# the bandwidth submodules, hier's defaults before by_size
hier_bw() {
    case $1 in
        bcast | reduce) echo "-a hier:${1}_hier_inter_algorithm=tsp_ring,${1}_hier_intra_algorithm=auto" ;;
        allreduce) echo "-a hier:allreduce_hier_inter_algorithm=tsp_allreduce_ring,allreduce_hier_intra_algorithm=auto" ;;
        allgather) echo "-a hier:allgather_hier_inter_algorithm=ring" ;;
        *) ;;   # gather, scatter, barrier: no by_size submodule
    esac
}
compositions() {
    case $1 in
        bcast | allreduce) echo "-a default:${1}_composition=1/2/3" ;;
        reduce) echo "-a default:reduce_composition=1/2/3" ;;
        barrier | allgather) echo "-a default:${1}_composition=1/2" ;;
    esac
}

trap '"$emu" down --force > /dev/null 2>&1 || true' EXIT
"$emu" up --nodes 4 --rate 100mbit >&2
: > "$out/bench.csv"
for round in $(seq "$rounds"); do
    for coll in bcast reduce allreduce allgather gather scatter barrier; do
        s=$sizes
        [ "$coll" = barrier ] && s=0
        # shellcheck disable=SC2046
        set -- -a hier $(hier_bw "$coll") -a default -a stock $(compositions "$coll")
        for _ in $(seq $(((round - 1) % ($# / 2)))); do   # rotate the order by one -a a round
            set -- "${@:3}" "$1" "$2"
        done
        "$emu" run --ppn 1 -- "$hiertune" bench --csv --no-progress -C "$coll" --sizes "$s" \
            -x 20 -r "$reps" "$@" | sed "/^collective,/d; s/^/$round,/" >> "$out/bench.csv"
    done
done
"$emu" down >&2
trap - EXIT

python3 - "$out/bench.csv" <<'EOF'
import csv, statistics, sys
fields = ['round', 'collective', 'size', 'algorithm', 'params', 'median_us']
by = {}     # (coll, size) -> round -> name -> median
for r in csv.reader(open(sys.argv[1])):
    r = dict(zip(fields, r))
    name = r['algorithm'] + (':' + r['params'].strip() if r['params'].strip() else '')
    by.setdefault((r['collective'], int(r['size'])), {}).setdefault(r['round'], {})[name] = \
        float(r['median_us'])
print('%-10s %6s %10s %10s %10s  %-45s %7s %7s' % ('coll', 'bytes', 'hier', 'hier-bw', 'mpich best',
                                                  '(which)', 'hier/b', 'bw/b'))
for (coll, size), rounds in by.items():
    names = set().union(*rounds.values())
    med = {n: statistics.median(rd[n] for rd in rounds.values() if n in rd) for n in names}
    ratio = lambda n: statistics.median(
        rd[n] / min(v for k, v in rd.items() if not k.startswith('hier')) for rd in rounds.values())
    bw = next((n for n in names if n.startswith('hier:')), None)
    best = min((n for n in names if not n.startswith('hier')), key=med.get)
    print('%-10s %6d %10.1f %10s %10.1f  %-45s %7.2f %7s' % (
        coll, size, med['hier'], '%.1f' % med[bw] if bw else '-', med[best], best[:45],
        ratio('hier'), '%.2f' % ratio(bw) if bw else '-'))
EOF
