#!/usr/bin/env python3
"""The sweeps' winners and the tables, plots and targets of bench/peers.sh.

  peers-table.py winners DIR COLL FINAL_SIZES
      the sweeps' winners of collective COLL screened in DIR (screen-mpich-COLL.csv,
      screen-han-COLL.csv, screen-ompi-COLL.csv, peers.sh's lines): per line a
      configuration and the final sizes it runs at (those where it won, and every final
      size above the largest screened one where it won that one); the fixed
      configurations are left out (they run at every size)
  peers-table.py report OUT [--hiertune PATH] LAYOUT...
      OUT/LAYOUT/final.csv -> the table per layout and collective (stdout and OUT/peers.md),
      a plot per layout and collective (OUT/LAYOUT-COLL.png: time / link bound against
      size, one line per configuration), and what each target of issue 34 measured

Sizes are bytes as peerbench counts them: the message (bcast, reduce, allreduce, scan,
exscan), the whole gathered, scattered or reduced buffer (allgather, gather, scatter,
reduce_scatter_block, reduce_scatter, allgatherv, gatherv, scatterv) or a rank's whole send
buffer (alltoall(v)); a rank's block (alltoall's: what it sends one peer; gatherv's and
scatterv's: the mean of their uneven blocks) is that divided by the ranks; 0 for
barrier.  Open MPI's tuned algorithms forced (ompi:*, swept for alltoall, which HAN has
not) are peers ("best peer" and its ratios) without a column of their own.  A figure is
the median of every repetition of a configuration in the final run (all rounds pooled);
its noise is the half-width of the median's 95 % confidence interval (order statistics).
"""

import collections
import math
import os
import re
import subprocess
import sys

FIXED = ('hier', 'tuned', 'mpich', 'ompi', 'han')
GATHER_LIKE = ('allgather', 'gather', 'scatter', 'reduce_scatter_block', 'reduce_scatter', 'allgatherv',
               'alltoall', 'alltoallv', 'gatherv', 'scatterv')
# the columns: a configuration, or the best of a family (its sweep's winners and its
# shipped configuration)
FAMILIES = {'mpich best': ('mpich', 'mpich:'), 'han best': ('han', 'han:')}
PEERS = ('mpich', 'mpich:', 'ompi', 'ompi:', 'han', 'han:')
LINES = ('hier', 'tuned', 'mpich', 'mpich best', 'ompi', 'han', 'han best')


def in_family(config, members):
    return any(config == m or (m.endswith(':') and config.startswith(m)) for m in members)


# ------------------------------------------------------------------ winners

def screen_best(dir_, coll):
    """{family: {size: (median_us, config)}} of the screening (screen-FAMILY-COLL.csv)."""
    best = collections.defaultdict(dict)
    for family in ('mpich', 'han', 'ompi'):
        for row in read_peerbench(os.path.join(dir_, 'screen-%s-%s.csv' % (family, coll))):
            size = row['bytes']
            if size not in best[family] or row['median_us'] < best[family][size][0]:
                best[family][size] = (row['median_us'], row['config'])
    return best


def winners(dir_, coll, final_sizes):
    best = screen_best(dir_, coll)
    out = collections.OrderedDict()
    for family in ('mpich', 'han', 'ompi'):
        sizes = best.get(family, {})
        if not sizes:
            continue
        largest = max(sizes)
        for size in final_sizes:
            if size in sizes:
                config = sizes[size][1]
            elif size > largest:
                config = sizes[largest][1]
            else:
                continue
            if config not in FIXED:
                out.setdefault(config, []).append(size)
    for config, sizes in out.items():
        print(config, ','.join(str(s) for s in sizes))


# ------------------------------------------------------------------ report

def read_peerbench(path):
    """Rows of peers.sh's lines: CONFIG, then peerbench's CSV line."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            # the configuration's name may hold commas (han:up=...,low=...), peerbench's
            # fields do not
            fields = line.rstrip('\n').rsplit(',', 8)
            if len(fields) != 9:
                continue
            config, mpi, coll, size, ranks, reps, iters, median, samples = fields
            yield {'config': config, 'mpi': mpi, 'collective': coll, 'bytes': int(size),
                   'ranks': int(ranks), 'median_us': float(median),
                   'samples': [float(s) for s in samples.split()]}


def read_layout(dir_):
    values = {}
    with open(os.path.join(dir_, 'layout.txt')) as f:
        for line in f:
            key, _, value = line.rstrip('\n').partition('=')
            values[key] = value
    return values


def median_and_noise(samples):
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    k = max(0, int(math.floor((n - 1.96 * math.sqrt(n)) / 2)))
    return median, (s[n - 1 - k] - s[k]) / 2


def network(layout):
    """nodes, rate (B/s), leaves, uplink rate (B/s) from the cluster line."""
    line = layout['cluster']
    nodes = int(re.search(r'(\d+) nodes,', line).group(1))
    rate = float(re.search(r'\((\d+) B/s\)', line).group(1))
    leaves, uplink = 1, 0.0
    leaf = re.search(r'leaf switches of (\d+) nodes .*uplinks (\d+)(k|m|g)?bit', line)
    if leaf:
        leaves = nodes // int(leaf.group(1))
        uplink = float(leaf.group(2)) * {'k': 1e3, 'm': 1e6, 'g': 1e9, None: 1}[leaf.group(3)] / 8
    return nodes, rate, leaves, uplink


def link_bounds(hiertune, layout, coll, sizes):
    """{size: bound_us or None}"""
    if coll == 'barrier':
        return {s: None for s in sizes}
    nodes, rate, leaves, uplink = network(layout)
    ranks = int(layout['ranks'])
    per_rank = {s: s // ranks if coll in GATHER_LIKE else s for s in sizes}
    command = [hiertune, 'link-bound', '-C', coll, '--sizes', ','.join(str(v) for v in per_rank.values()),
               '--nodes', str(nodes), '--ppn', layout['ppn'], '--rate', repr(rate)]
    if leaves > 1:
        command += ['--leaves', str(leaves), '--uplink-rate', repr(uplink)]
    lines = subprocess.run(command, check=True, capture_output=True, text=True).stdout.splitlines()[1:]
    by_rank_size = {int(l.split(',')[1]): (float(l.split(',')[2]) if l.split(',')[2] else None) for l in lines}
    return {s: by_rank_size[per_rank[s]] for s in sizes}


def figures(rows, coll):
    """{size: {config: (median, noise)}}"""
    pooled = collections.defaultdict(list)
    for r in rows:
        if r['collective'] == coll:
            pooled[(r['bytes'], r['config'])] += r['samples']
    out = collections.defaultdict(dict)
    for (size, config), samples in pooled.items():
        out[size][config] = median_and_noise(samples)
    return out


def best_of(at, members):
    """(median, noise, config) of the fastest configuration of `members` at one size."""
    found = [(m, n, c) for c, (m, n) in at.items() if in_family(c, members)]
    return min(found) if found else None


def human(size):
    for unit, shift in (('MiB', 20), ('KiB', 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return '%d %s' % (size >> shift, unit)
    return '%d B' % size


class Report:
    """The report's text as it is said, and what the sections after the tables gather."""

    def __init__(self):
        self.text = []
        self.targets = {'slower': [], 'shipped': [], 'compared': [], 'leaf': [], 'bound': []}
        self.headline = []  # (layout, coll, {column: [values]}, peers at >= 1 MiB)
        self.han_won = []   # (layout, coll, "SIZE: PARAMETERS; ...")

    def say(self, line=''):
        print(line)
        self.text.append(line)

    def block(self, head, lines, gap=False):
        """head, then lines in a code block (after a blank line where gap)."""
        self.say(head)
        if gap:
            self.say()
        self.say('```')
        for line in lines:
            self.say(line)
        self.say('```')


def report(out, hiertune, layouts):
    rep = Report()
    for layout_name in layouts:
        layout_section(rep, out, hiertune, layout_name)
    headline_section(rep)
    han_section(rep)
    targets_section(rep)
    with open(os.path.join(out, 'peers.md'), 'w') as f:
        f.write('\n'.join(rep.text) + '\n')


def layout_section(rep, out, hiertune, layout_name):
    dir_ = os.path.join(out, layout_name)
    layout = read_layout(dir_)
    rows = list(read_peerbench(os.path.join(dir_, 'final.csv')))
    failed_path = os.path.join(dir_, 'failed.txt')
    failed = open(failed_path).read().splitlines() if os.path.exists(failed_path) else []
    rep.say('## %s: %s' % (layout_name, layout['cluster']))
    rep.say()
    rep.say('taken %s, %s; time per call (us), max over ranks, median of every repetition' %
            (layout['date'], layout.get('rounds', '')))
    rep.say()
    if failed:
        rep.block('Jobs that failed or were stopped (configuration, collective, sizes, phase):', failed, gap=True)
        rep.say()
    for coll in collections.OrderedDict.fromkeys(r['collective'] for r in rows):
        collective_section(rep, out, hiertune, layout_name, layout, rows, coll)


def collective_section(rep, out, hiertune, layout_name, layout, rows, coll):
    at_size = figures(rows, coll)
    sizes = sorted(at_size)
    bounds = link_bounds(hiertune, layout, coll, sizes)
    rep.say('### MPI_%s, %s' % (coll.capitalize(), layout_name))
    rep.say()
    rep.say('```')
    rep.say('%-8s %10s %10s %10s %10s %10s %-26s %10s %10s %10s %-30s %-10s %6s %6s %6s' %
            ('size', 'bound', 'hier', 'tuned', 'mpich', 'mpich best', '(which)', 'ompi', 'han',
             'han best', '(which)', 'best peer', 'p/hier', 'p/tuned', 'h/bnd'))
    dat = []
    summary = collections.defaultdict(list)
    big_peers = []
    for size in sizes:
        at, bound = at_size[size], bounds.get(size)
        dat.append((size, bound, size_row(rep, at, size, bound)))
        peer = best_of(at, PEERS)
        note_summary(summary, big_peers, coll, size, at, peer, bound)
        note_targets(rep.targets, layout_name, coll, size, at, peer, bound)
    rep.say('```')
    rep.say()
    rep.headline.append((layout_name, coll, summary, list(collections.OrderedDict.fromkeys(big_peers))))
    won = [(size, best_of(at_size[size], FAMILIES['han best'])) for size in sizes]
    if any(hb for _, hb in won):
        rep.han_won.append((layout_name, coll, '; '.join(
            '%s: %s' % (human(size), hb[2].replace('han:', '') if hb[2] != 'han' else 'as shipped')
            for size, hb in won if hb)))
    if coll != 'barrier' and len(sizes) > 1:
        plot(out, layout_name, coll, dat)
        rep.say('![MPI_%s on %s](%s-%s.png)' % (coll.capitalize(), layout_name, layout_name, coll))
        rep.say()


def size_row(rep, at, size, bound):
    """Says one size's row of the table; returns its columns' medians (the plot's)."""
    get = lambda c: at.get(c, (None, None))[0]
    mb = best_of(at, FAMILIES['mpich best'])
    hb = best_of(at, FAMILIES['han best'])
    peer = best_of(at, PEERS)
    fmt = lambda v: '%10.1f' % v if v is not None else '%10s' % '-'
    ratio = lambda a, b: '%6.2f' % (a / b) if a is not None and b else '%6s' % '-'
    rep.say('%-8s %s %s %s %s %s %-26s %s %s %s %-30s %-10s %s %s %s' % (
        human(size), fmt(bound), fmt(get('hier')), fmt(get('tuned')), fmt(get('mpich')),
        fmt(mb[0] if mb else None), mb[2] if mb else '-', fmt(get('ompi')), fmt(get('han')),
        fmt(hb[0] if hb else None), hb[2] if hb else '-', peer[2] if peer else '-',
        ratio(peer[0] if peer else None, get('hier')), ratio(peer[0] if peer else None, get('tuned')),
        ratio(get('hier'), bound)))
    return {'hier': get('hier'), 'tuned': get('tuned'), 'mpich': get('mpich'),
            'mpich best': mb[0] if mb else None, 'ompi': get('ompi'), 'han': get('han'),
            'han best': hb[0] if hb else None}


def note_summary(summary, big_peers, coll, size, at, peer, bound):
    """The headline's ratios at one size: 64 KiB (barrier: its one size), and from 1 MiB."""
    hier, tuned = at.get('hier', (None,))[0], at.get('tuned', (None,))[0]
    if peer and hier and (size == 1 << 16 or coll == 'barrier'):
        summary['64k'].append(peer[0] / hier)
    if peer and size >= 1 << 20:
        big_peers.append(peer[2])
        if hier:
            summary['hier'].append(peer[0] / hier)
        if tuned:
            summary['tuned'].append(peer[0] / tuned)
        if hier and bound:
            summary['bound'].append(hier / bound)


def note_targets(targets, layout_name, coll, size, at, peer, bound):
    """The targets' lines at one size (Report.targets)."""
    where = '%s %s %s' % (layout_name, coll, human(size))
    # the site's promise: the tuned tree never slower than MPICH as shipped
    if 'tuned' in at and 'mpich' in at:
        (m, n), (p, q) = at['tuned'], at['mpich']
        targets['compared'].append(m + n < p - q)  # faster beyond the noise
        if m - p > n + q:
            targets['shipped'].append('%s: tuned %.1f us +- %.1f, mpich %.1f +- %.1f (%.2fx)' % (
                where, m, n, p, q, m / p))
    if peer:
        for ours in ('tuned', 'hier'):
            if ours in at and at[ours][0] - peer[0] > at[ours][1] + peer[1]:
                m, n = at[ours]
                targets['slower'].append('%s: %s %.1f us +- %.1f, best peer %s %.1f +- %.1f (%.2fx)' % (
                    where, ours, m, n, peer[2], peer[0], peer[1], m / peer[0]))
        if layout_name == 'leaf' and coll in ('bcast', 'allreduce') and size >= 1 << 20:
            for ours in ('tuned', 'hier'):
                if ours in at:
                    targets['leaf'].append('%s: best peer / %s = %.2f (%s)' % (
                        where, ours, peer[0] / at[ours][0], peer[2]))
    if bound and size >= 1 << 20 and 'hier' in at:
        targets['bound'].append('%s: hier / bound = %.2f%s' % (
            where, at['hier'][0] / bound,
            ', tuned / bound = %.2f' % (at['tuned'][0] / bound) if 'tuned' in at else ''))


def headline_section(rep):
    rep.say('## Headline')
    rep.say()
    rep.say('Ratios above 1: mpich-hier is faster.  "best peer": the fastest of MPICH 5.0.1 (as shipped '
            'and its best configuration), Open MPI (tuned: as shipped, and for alltoall its best algorithm '
            'forced) and Open MPI HAN (as shipped and at its best) '
            'at each size; barrier: its one size in the 64 KiB column.')
    rep.say()
    rep.say('| layout | collective | 64 KiB: best peer / hier | >= 1 MiB: best peer / hier | '
            '>= 1 MiB: best peer / tuned tree | best peer at >= 1 MiB | hier / link bound, >= 1 MiB |')
    rep.say('|---|---|---|---|---|---|---|')
    span = lambda v: ('%.2f' % min(v) if min(v) == max(v) or '%.2f' % min(v) == '%.2f' % max(v)
                      else '%.2f-%.2f' % (min(v), max(v))) if v else '-'
    for layout_name, coll, summary, peers in rep.headline:
        rep.say('| %s | %s | %s | %s | %s | %s | %s |' % (
            layout_name, coll, span(summary['64k']), span(summary['hier']), span(summary['tuned']),
            ', '.join('`%s`' % p for p in peers) or '-', span(summary['bound'])))
    rep.say()


def han_section(rep):
    rep.say('## HAN at its best')
    rep.say()
    rep.say('The fastest HAN configuration of the final run per size (up: the module among the node '
            'leaders, adapt-ALG with 16 KiB adapt segments; low: the module inside a node; seg: HAN\'s '
            'segment size; "as shipped": coll_han_priority=100 and nothing else):')
    rep.say()
    for layout_name, coll, winners in rep.han_won:
        rep.say('- %s %s: %s' % (layout_name, coll, winners))
    rep.say()


def targets_section(rep):
    targets = rep.targets
    rep.say('## Targets')
    rep.say()
    rep.block('Slower than the best peer configuration beyond the noise (tuned tree, hier):',
              targets['slower'] or ['none'])
    compared = targets['compared']
    rep.block('The tuned tree slower than MPICH 5.0.1 as shipped beyond the noise (%d of %d points; faster at %d):'
              % (len(targets['shipped']), len(compared), sum(compared)), targets['shipped'] or ['none'])
    rep.block('3-level layout, bcast and allreduce from 1 MiB (target >= 1.5):', targets['leaf'] or ['not measured'])
    rep.block('From 1 MiB, time over the link bound (target <= 1.1):', targets['bound'] or ['not measured'])


def plot(out, layout, coll, dat):
    stem = os.path.join(out, '%s-%s' % (layout, coll))
    with open(stem + '.dat', 'w') as f:
        f.write('# size ' + ' '.join('"%s"' % l for l in LINES) + '  (time / link bound)\n')
        for size, bound, values in dat:
            cells = ['%.4g' % (values[l] / bound) if values[l] is not None and bound else 'NaN' for l in LINES]
            f.write('%d %s\n' % (size, ' '.join(cells)))
    script = '\n'.join([
        'set terminal pngcairo size 800,500' if gnuplot_has('pngcairo') else 'set terminal png size 800,500',
        'set output "%s.png"' % stem,
        'set title noenhanced "MPI_%s, %s: time / link bound (1 = the network\'s limit)"' % (coll.capitalize(), layout),
        'set logscale xy 2', 'set xlabel "size"', 'set ylabel "time / link bound"', 'set key top right noenhanced',
        'set xtics (%s)' % ', '.join('"%s" %d' % (human(size), size) for size, _, _ in dat),
        'set offsets graph 0.03, graph 0.06, 0, 0', 'set grid',
        'plot ' + ', '.join('"%s.dat" using 1:%d with linespoints title "%s"' % (stem, i + 2, l)
                            for i, l in enumerate(LINES))])
    subprocess.run(['gnuplot'], input=script, text=True, check=True)


_terminals = None


def gnuplot_has(terminal):
    global _terminals
    if _terminals is None:
        _terminals = subprocess.run(['gnuplot', '-e', 'set terminal'], capture_output=True,
                                    text=True).stderr + ''
    return (' ' + terminal + ' ') in _terminals


def main():
    args = sys.argv[1:]
    if len(args) == 4 and args[0] == 'winners':
        winners(args[1], args[2], [int(s) for s in args[3].split(',')])
    elif len(args) >= 3 and args[0] == 'report':
        out, rest, hiertune = args[1], args[2:], 'tools/hiertune'
        if rest[:1] == ['--hiertune']:
            hiertune, rest = rest[1], rest[2:]
        report(out, hiertune, rest)
    else:
        sys.exit(__doc__.split('\n\n')[1])


if __name__ == '__main__':
    main()
