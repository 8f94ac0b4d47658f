"""The plugin's grammar (src/mpi/coll/hier/hier_grammar.h) for the test scripts: the
same table the C plugin and hiertune are built from, read line by line.

    import hier_grammar
    g = hier_grammar.load(SRCDIR)
    g.algorithms['reduce']      -> ['hier', 'seg_linear', ...]
    g.params('bcast', 'seg_chain') -> ['segsize', 'fanout']
    g.inter_algos('allreduce')  -> ['auto', ..., 'tsp_allreduce_ring']
"""
import os
import re

_ENTRY = re.compile(r'^\s*(X|INT|NAME|ALL|OWN)\(([^)]*)\)')
_MACRO = re.compile(r'^#define (MPII_HIER_[A-Z_]+)\(')


class Grammar:
    def __init__(self, tables):
        self._tables = tables
        self.collectives = [e[0] for e in tables['MPII_HIER_COLLECTIVES']]
        self.algorithms = {}
        self._kind = {}
        for coll in self.collectives:
            entries = tables['MPII_HIER_ALGORITHMS_' + coll.upper()]
            self.algorithms[coll] = [e[3] for e in entries]
            for e in entries:
                self._kind[(coll, e[3])] = e[4]

    def params(self, coll, algo):
        return [e[0] for e in self._tables['MPII_HIER_PARAMS_' + self._kind[(coll, algo)]]]

    def inter_algos(self, coll):
        return [e[0] if len(e) == 2 else e[2] for e in self._tables['MPII_HIER_INTER_ALGOS']
                if len(e) == 2 or e[0] == coll]

    def intra_algos(self):
        return [e[0] for e in self._tables['MPII_HIER_INTRA_ALGOS']]


def load(srcdir):
    tables, current = {}, None
    with open(os.path.join(srcdir, 'src/mpi/coll/hier/hier_grammar.h')) as f:
        for line in f:
            m = _MACRO.match(line)
            if m:
                current = m.group(1)
                tables[current] = []
                continue
            m = _ENTRY.match(line)
            if m and current:
                tables[current].append([a.strip() for a in m.group(2).split(',')])
            if not line.rstrip().endswith('\\'):
                current = None
    return Grammar(tables)
