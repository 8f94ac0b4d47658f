#!/usr/bin/env bash
# The segmented trees' one mechanism (transport schedule, waited for) against the former
# point-to-point engine, side by side in one run per case.  Needs the A/B build:
#   git apply bench/seg-engine-ab.patch && make mpich
# (window > 100 runs the former engine with window - 100), then, as root:
#   bench/seg-engine-ab.sh [REPS]      (and git apply -R bench/seg-engine-ab.patch && make mpich)
# Cases: 4 emulated nodes x 2 ranks at 100 Mbit/s (8 B - 4 MiB, 4 trees each); 2 nodes x 1
# rank (small messages over a link, no oversubscription); 2 ranks on one node (shared
# memory, a core each: the schedule's CPU cost per call).
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-9}
grep -q p2p_seg_bcast src/mpi/coll/hier/bcast_intra_seg.c ||
    { echo "seg-engine-ab: apply bench/seg-engine-ab.patch and make mpich first" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
ab="-p MPIR_CVAR_BCAST_SEG_WINDOW=4/104 -p MPIR_CVAR_REDUCE_SEG_WINDOW=4/104"
maint/emucluster up --nodes 4 --rate 100mbit >&2
for c in bcast:seg_split_binary reduce:seg_in_order_binary; do
    maint/emucluster run --ppn 2 -- tools/hiertune bench -C "${c%%:*}" -a seg_binomial \
        -a seg_chain -a seg_pipeline -a "${c#*:}" $ab \
        --sizes 8,1024,16384,65536,262144,1048576,4194304 -x 2 -r "$reps" --csv --no-progress \
        > "$out/4x2-${c%%:*}.csv"
done
maint/emucluster run --ppn 1 --nodes 2 -- tools/hiertune bench -C bcast,reduce \
    -a seg_binomial -a seg_linear $ab --sizes 8,256,4096,65536,1048576 -x 20 -r $((reps * 10)) \
    --csv --no-progress > "$out/2x1.csv"
PATH=$PWD/build/install/bin:$PATH mpiexec -n 2 tools/hiertune bench -C bcast,reduce \
    -a seg_binomial $ab --sizes 8,256,4096,65536,1048576 -x 20 -r $((reps * 20)) --csv \
    --no-progress > "$out/shm2.csv"
python3 - "$out" <<'PY'
import csv, os, statistics, sys
for name, title in (('4x2-bcast', '4 nodes x 2 ranks, 100 Mbit/s'), ('4x2-reduce', ''),
                    ('2x1', '2 nodes x 1 rank, 100 Mbit/s'), ('shm2', '2 ranks, one node')):
    times = {}
    for r in csv.DictReader(open(os.path.join(sys.argv[1], name + '.csv'))):
        params = dict(p.split('=') for p in r['params'].split(';'))
        window = int(params['MPIR_CVAR_%s_SEG_WINDOW' % r['collective'].upper()])
        key = (r['collective'], r['algorithm'], int(r['size']))
        times.setdefault(key, {}).setdefault(window > 100, []).append(float(r['median_us']))
    if title:
        print('\n' + title)
    print('%-7s %-20s %8s %12s %12s %6s' % ('coll', 'algorithm', 'bytes', 'p2p us',
                                          'schedule us', 'ratio'))
    for (coll, algo, size), t in sorted(times.items()):
        p2p, sched = statistics.mean(t[True]), statistics.mean(t[False])
        print('%-7s %-20s %8d %12.1f %12.1f %6.2f' % (coll, algo, size, p2p, sched, sched / p2p))
PY
