#!/usr/bin/env python3
"""Register the grammar's algorithms in an MPICH 5.0.1 tree.

  gen-registration.py TREE      add them to TREE's src/mpi/coll/coll_algorithms.txt
                                (gen_coll.py: prototypes, Csel containers, CVAR dispatch)
                                and src/mpi/coll/cvars.txt (the MPIR_CVAR_<COLL>_INTRA_ALGORITHM
                                items)
  gen-registration.py --files   the files it changes, relative to the tree's top

The algorithms, their JSON parameters and the CVARs those default from are read from the
grammar table (src/mpi/coll/hier/hier_grammar.h, via test/mpi/hier_grammar.py): adding an
algorithm there registers it.  maint/overlay.sh runs this right after the patches of
maint/patches/ on a pristine tree; maint/gen-reference.py lists the items it adds.
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = ['src/mpi/coll/coll_algorithms.txt', 'src/mpi/coll/cvars.txt']


def grammar():
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(REPO, 'test/mpi'))
    import hier_grammar
    return hier_grammar.load(REPO)


def item_text(coll, algo):
    """The CVAR item's description, from the algorithm's name."""
    if algo == 'hier':
        what = 'HAN pipelined hierarchical %s' % coll
    elif algo.startswith('seg_'):
        what = 'segmented %s tree %s' % (algo[4:].replace('_', ' '), coll)
    else:
        what = '%s %s' % (algo.replace('_', ' '), coll)
    return 'Force %s (mpich-hier)' % what


def sched_item_text(coll):
    return 'Force the HAN pipelined hierarchical %s as one schedule (mpich-hier; the hier ' \
        '%s\'s parameters from its CVARs)' % (coll, coll)


def cvar_items(g):
    """(cvar, item, text) of every item added to MPICH's INTRA_ALGORITHM CVARs."""
    return [(g.cvar(coll, 'INTRA_ALGORITHM'), algo, item_text(coll, algo))
            for coll in g.collectives for algo in g.algorithms[coll]] + \
        [('MPIR_CVAR_%s_INTRA_ALGORITHM' % ICOLL, algo, sched_item_text(coll))
         for icoll, Icoll, ICOLL, algo, coll in g.sched_algorithms]


def registered(g):
    """(section, algo, specs) of every algorithm added to coll_algorithms.txt"""
    return [('%s-intra:' % coll, algo, g.param_specs(coll, algo))
            for coll in g.collectives for algo in g.algorithms[coll]] + \
        [('%s-intra:' % icoll, algo, []) for icoll, _, _, algo, _ in g.sched_algorithms]


def section_end(lines, start):
    """Index of the first line after lines[start] that is not indented (or the end)."""
    i = start + 1
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(' ')):
        i += 1
    while i > start + 1 and not lines[i - 1].strip():
        i -= 1
    return i


def register_algorithms(text, g):
    lines = text.split('\n')
    for header, algo, specs in registered(g):
        if header not in lines:
            sys.exit('gen-registration: coll_algorithms.txt has no section %s' % header)
        start = lines.index(header)
        end = section_end(lines, start)
        listed = {l.strip() for l in lines[start + 1:end] if re.match(r'^    \w+$', l)}
        if algo in listed:
            sys.exit('gen-registration: %s already lists %s' % (header, algo))
        entry = ['    ' + algo]
        if specs:
            entry += ['        extra_params: ' + ', '.join(s[0] for s in specs),
                      '        cvar_params: ' + ', '.join(s[3] for s in specs)]
        at = first_allcomm(lines, start, end)
        lines[at:at] = entry
    return '\n'.join(lines)


def first_allcomm(lines, start, end):
    """Where an intra algorithm goes in the section lines[start:end]: before its first
    allcomm algorithm, or at its end.  MPICH 5.0.1's gen_coll.py names every algorithm
    listed after an allcomm one MPIR_<Coll>_allcomm_<algo> in the Csel switch of
    MPIR_<Coll>_allcomm_auto (gatherv, scatterv: their linear is allcomm)."""
    algo_at = None
    for i in range(start + 1, end):
        if re.match(r'^    \w+$', lines[i]):
            algo_at = i
        elif algo_at is not None and re.match(r'^\s+allcomm:\s*1\s*$', lines[i]):
            return algo_at
    return end


def register_cvar_items(text, g):
    lines = text.split('\n')
    for name in sorted({cvar for cvar, _, _ in cvar_items(g)}):
        heads = [i for i, l in enumerate(lines) if re.match(r'^\s*- name\s*: %s$' % name, l)]
        if len(heads) != 1:
            sys.exit('gen-registration: cvars.txt has no single %s' % name)
        i = heads[0] + 1
        items = []
        while i < len(lines) and not re.match(r'^\s*- name\s*:', lines[i]) and \
                not (items and not lines[i].strip()):
            m = re.match(r'^(\s+)(\w+)(\s+)- ', lines[i])
            if m and 'description' not in lines[i]:
                items.append((i, m))
            i += 1
        if not items:
            sys.exit('gen-registration: %s lists no items' % name)
        last, aligned = items[-1]       # MPICH aligns all items but "auto"
        indent, width = aligned.group(1), len(aligned.group(2)) + len(aligned.group(3))
        known = {m.group(2) for _, m in items}
        added = []
        for cvar, algo, desc in cvar_items(g):
            if cvar != name:
                continue
            if algo in known:
                sys.exit('gen-registration: %s already has the item %s' % (name, algo))
            added.append('%s%s- %s' % (indent, algo.ljust(max(width, len(algo) + 1)), desc))
        lines[last + 1:last + 1] = added
    return '\n'.join(lines)


def main():
    if sys.argv[1:] == ['--files']:
        print('\n'.join(FILES))
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__.split('\n\n')[1])
    tree, g = sys.argv[1], grammar()
    for rel, edit in zip(FILES, (register_algorithms, register_cvar_items)):
        path = os.path.join(tree, rel)
        with open(path) as f:
            text = f.read()
        with open(path, 'w') as f:
            f.write(edit(text, g))


if __name__ == '__main__':
    main()
