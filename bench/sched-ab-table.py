#!/usr/bin/env python3
"""The tables of bench/sched-ab.sh from its output directory (Markdown on stdout).

    sched-ab-table.py OUT_DIR
    sched-ab-table.py OUT_DIR OUT_DIR...   (several runs: the A/B ratios side by side)

bounds.csv (hiertune link-bound) gives the link bound beside every point.
ab*.csv (hiertune bench, -p MPIR_CVAR_HIER_SCHEDULE_BLOCKING=loop/schedule): per collective and size
the loop's and the schedule's median (the median of the repetitions' medians over the
runs) and schedule / loop.  nb-*.json (hiertune overlap, comp 10 us, rounds in
alternating order): per operation and size the time to completion of tsp_hier and of
MPICH's selection (the median over the rounds) and default / tsp_hier.
overlap-{plain,async}.json: per algorithm and size the overlap ratio (Denis & Trahay
eq. 1: 0 = fully overlapped, 1 = not at all) of the cells whose computation is at least
twice the communication.
"""
import csv
import glob
import json
import os
import statistics
import sys


def bounds(outdir):
    """(collective, size) -> link bound in us (bounds.csv of hiertune link-bound), or {}"""
    path = os.path.join(outdir, 'bounds.csv')
    if not os.path.exists(path):
        return {}
    return {(r['collective'], int(r['size'])): float(r['link_bound_us'])
            for r in csv.DictReader(open(path))}


def ab_times(paths):
    """(collective, size) -> {schedule?: [median_us, ...]} of the ab*.csv files in paths"""
    times = {}
    for r in (r for path in paths for r in csv.DictReader(open(path))):
        params = dict(p.split('=') for p in r['params'].split(';') if p)
        sched = params.get('MPIR_CVAR_HIER_SCHEDULE_BLOCKING') in ('1', 'true', 'schedule')
        times.setdefault((r['collective'], int(r['size'])), {}).setdefault(sched, []).append(
            float(r['median_us']))
    return times


def ab_runs_table(outdirs, bound):
    """schedule / loop of every run and their median, per collective and size"""
    ratios = {}
    for d in outdirs:
        for key, t in ab_times(glob.glob(os.path.join(d, 'ab*.csv'))).items():
            ratios.setdefault(key, []).append(statistics.median(t[True]) /
                                              statistics.median(t[False]))
    out = ['| collective | bytes | link bound us | schedule / loop, run by run | median |',
           '|---|---|---|---|---|']
    for (coll, size), r in sorted(ratios.items()):
        out.append('| %s | %d | %s | %s | %.3f |' % (
            coll, size, '%.1f' % bound[(coll, size)] if (coll, size) in bound else '-',
            ' '.join('%.3f' % x for x in r), statistics.median(r)))
    return out


def ab_table(paths, bound):
    times = ab_times(paths)
    out = ['| collective | bytes | link bound us | loop us | schedule us | schedule / loop |',
           '|---|---|---|---|---|---|']
    for (coll, size), t in sorted(times.items()):
        loop, sched = statistics.median(t[False]), statistics.median(t[True])
        out.append('| %s | %d | %s | %.1f | %.1f | %.3f |' % (
            coll, size, '%.1f' % bound[(coll, size)] if (coll, size) in bound else '-', loop,
            sched, sched / loop))
    return out


def json_rows(pattern):
    for path in sorted(glob.glob(pattern)):
        for line in open(path):
            row = json.loads(line)
            if 'operation' in row and 'verdict' not in row:     # not the settings or a verdict
                yield row


def nb_table(pattern, bound):
    times = {}
    for r in json_rows(pattern):
        times.setdefault((r['operation'], r['size']), {}).setdefault(r['algorithm'], []).append(
            r['t_comm_us'])
    out = ['| operation | bytes | link bound us | tsp_hier us | MPICH default us | default / tsp_hier |'
           ' tsp_hier / bound |', '|---|---|---|---|---|---|---|']
    for (op, size), t in sorted(times.items()):
        hier, stock = statistics.median(t['tsp_hier']), statistics.median(t['default'])
        b = bound.get((op[1:], size))
        out.append('| %s | %d | %s | %.1f | %.1f | %.2f | %s |' % (
            op, size, '%.1f' % b if b else '-', hier, stock, stock / hier,
            '%.2f' % (hier / b) if b else '-'))
    return out


def overlap_table(outdir):
    out = ['| progress | algorithm | bytes | comp us | t_comm us | t_comp us | ratio |',
           '|---|---|---|---|---|---|---|']
    for setting in ('plain', 'async'):
        path = os.path.join(outdir, 'overlap-%s.json' % setting)
        if not os.path.exists(path):
            continue
        for r in json_rows(path):
            if r['t_comp_us'] >= 2 * r['t_comm_us']:
                out.append('| %s | %s | %d | %.0f | %.1f | %.1f | %.2f |' % (
                    setting, r['algorithm'], r['size'], r['comp_us'], r['t_comm_us'],
                    r['t_comp_us'], r['ratio']))
    return out


def main():
    outdir = sys.argv[1]
    lines = []
    bound = bounds(outdir)
    if len(sys.argv) > 2:
        print('\n'.join(['## Blocking: schedule / loop in %d runs (4x2, 100 Mbit/s; allgather, '
                         'gather, scatter: bytes per rank)' % (len(sys.argv) - 1), ''] +
                        ab_runs_table(sys.argv[1:], bound)))
        return
    ab = sorted(glob.glob(os.path.join(outdir, 'ab*.csv')))
    if ab:
        lines += ['## Blocking: the loop against the schedule (4x2, 100 Mbit/s; allgather, '
                  'gather, scatter: bytes per rank)', '']
        lines += ab_table(ab, bound) + ['']
    if glob.glob(os.path.join(outdir, 'nb-*.json')):
        lines += ['## Non-blocking: time to completion, tsp_hier against MPICH 5.0.1 (4x2)', '']
        lines += nb_table(os.path.join(outdir, 'nb-*.json'), bound) + ['']
    if glob.glob(os.path.join(outdir, 'overlap-*.json')):
        lines += ['## Overlap of MPI_Iallreduce (2x1), cells with computation >= 2x '
                  'communication', '']
        lines += overlap_table(outdir)
    print('\n'.join(lines))


if __name__ == '__main__':
    main()
