#!/usr/bin/env python3
"""The table of `./quickstart compare`: per size, MPICH as shipped, the best stock MPICH
configuration of the sweep (which one), hier with its defaults, the tuned tree, and the
link bound, with the ratios that matter.

  compare-table.py COLL REPS BENCH_CSV [TUNED_CSV]

BENCH_CSV: `hiertune bench --csv` of one job where the configurations took turns:
`default` (as shipped), `hier`, and the stock sweep (any other algorithm or parameter set
that is not a plugin algorithm).  TUNED_CSV: `default` in a job started with the tuned
tree (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE is read at MPI_Init only, so it cannot
take turns with the others).
"""

import csv
import sys

PLUGIN_PREFIXES = ('hier', 'seg_')


def rows(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def label(row):
    params = row['params'].strip()
    return row['algorithm'] + (':' + params.replace(' ', ',') if params else '')


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__.split('\n\n')[1])
    coll, reps, bench = sys.argv[1], int(sys.argv[2]), rows(sys.argv[3])
    tuned = {int(r['size']): float(r['median_us']) for r in rows(sys.argv[4])} \
        if len(sys.argv) == 5 else {}
    sizes = sorted({int(r['size']) for r in bench})
    print('# MPI_%s, median of %d repetitions (max over ranks), us; best stock: the fastest '
          'stock MPICH configuration of the sweep' % (coll, reps))
    print('# %-9s %11s %11s %-40s %11s %11s %11s %9s %9s %9s' %
          ('Size', 'shipped', 'best stock', '(which)', 'hier', 'tuned', 'link bound',
           'ship/hier', 'best/hier', 'hier/bnd'))
    for size in sizes:
        at = [r for r in bench if int(r['size']) == size]
        shipped = hier = bound = None
        best = None
        for r in at:
            t = float(r['median_us'])
            if r['algorithm'] == 'default' and not r['params'].strip():
                shipped = t
            if r['algorithm'] == 'hier' and not r['params'].strip():
                hier = t
            if not r['algorithm'].startswith(PLUGIN_PREFIXES) and (best is None or t < best[0]):
                best = (t, label(r))
            if r.get('link_bound_us'):
                bound = float(r['link_bound_us'])
        fmt = lambda v: '%11.1f' % v if v is not None else '%11s' % '-'
        ratio = lambda a, b: '%9.2f' % (a / b) if a is not None and b else '%9s' % '-'
        print('  %-9d %s %s %-40s %s %s %s %s %s %s' %
              (size, fmt(shipped), fmt(best[0] if best else None), best[1] if best else '-',
               fmt(hier), fmt(tuned.get(size)), fmt(bound), ratio(shipped, hier),
               ratio(best[0] if best else None, hier), ratio(hier, bound)))


if __name__ == '__main__':
    main()
