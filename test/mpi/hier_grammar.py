"""The plugin's grammar (src/mpi/coll/hier/hier_grammar.h) for the test scripts: the
same table the C plugin and hiertune are built from, read line by line.

    import hier_grammar
    g = hier_grammar.load(SRCDIR)
    g.algorithms['reduce']      -> ['hier', 'seg_linear', ...]
    g.params('bcast', 'seg_chain') -> ['segsize', 'fanout']
    g.inter_algos('allreduce')  -> ['auto', ..., 'tsp_allreduce_ring']
    g.inter_algos('gather')     -> ['linear', 'binomial', 'by_size']
    g.param_specs('bcast', 'hier') -> [('segsize', 'INT', '0', 'HIER_SEGSIZE'),
                                       ('inter_algo', 'NAME', 'INTER_ALGOS', ...), ...]
    g.container('bcast', 'hier') -> 'MPIR_Bcast_intra_hier'
    g.cvar('bcast', 'HIER_SEGSIZE') -> 'MPIR_CVAR_BCAST_HIER_SEGSIZE'
    g.sched_algorithms          -> [('ibcast', 'Ibcast', 'IBCAST', 'tsp_hier', 'bcast'), ...]
"""
import os
import re

_ENTRY = re.compile(r'^\s*(X|INT|NAME|ALL|OWN)\(([^)]*)\)')
_MACRO = re.compile(r'^#define (MPII_HIER_[A-Z_]+)\(')


class Grammar:
    def __init__(self, tables, types=None):
        self._tables = tables
        self._types = types or {}
        self.collectives = [e[0] for e in tables['MPII_HIER_COLLECTIVES']]
        self._spelling = {e[0]: (e[1], e[2]) for e in tables['MPII_HIER_COLLECTIVES']}
        self.algorithms = {}
        self._kind = {}
        for coll in self.collectives:
            entries = tables['MPII_HIER_ALGORITHMS_' + coll.upper()]
            self.algorithms[coll] = [e[3] for e in entries]
            for e in entries:
                self._kind[(coll, e[3])] = e[4]
        # the schedules (non-blocking, persistent): (icoll, Icoll, ICOLL, algo, coll)
        self.sched_algorithms = [tuple(e) for e in tables.get('MPII_HIER_SCHED_ALGORITHMS', [])]

    def algorithm_entries(self):
        """The entries of MPII_HIER_ALGORITHMS in its order: (coll, Coll, COLL, algo, PARAMS)."""
        return [tuple(e) for coll in self.collectives
                for e in self._tables['MPII_HIER_ALGORITHMS_' + coll.upper()]]

    def params(self, coll, algo):
        return [e[0] for e in self._tables['MPII_HIER_PARAMS_' + self._kind[(coll, algo)]]]

    def param_specs(self, coll, algo):
        """Each JSON parameter of the algorithm as (param, 'INT', min, cvar) or
        (param, 'NAME', list, cvar): its kind, its minimum or its list of names
        (MPII_HIER_<list>), and the suffix of the CVAR it defaults from."""
        table = 'MPII_HIER_PARAMS_' + self._kind[(coll, algo)]
        return [(e[0], t, e[1], e[2]) for t, e in zip(self._types[table], self._tables[table])]

    def container(self, coll, algo):
        return 'MPIR_%s_intra_%s' % (self._spelling[coll][0], algo)

    def cvar(self, coll, suffix):
        return 'MPIR_CVAR_%s_%s' % (self._spelling[coll][1], suffix)

    def inter_algos(self, coll):
        """A listed collective's own list, else the tree collectives' common items and
        the collective's own last one."""
        listed = [e[0] for e in self._tables['MPII_HIER_LISTED_COLLECTIVES']]
        if coll in listed:
            return [e[0] for e in self._tables['MPII_HIER_INTER_ALGOS_' + coll.upper()]]
        return [e[0] if len(e) == 2 else e[2] for e in self._tables['MPII_HIER_INTER_ALGOS']
                if len(e) == 2 or e[0] == coll]

    def intra_algos(self):
        return [e[0] for e in self._tables['MPII_HIER_INTRA_ALGOS']]


def load(srcdir):
    tables, types, current = {}, {}, None
    with open(os.path.join(srcdir, 'src/mpi/coll/hier/hier_grammar.h')) as f:
        for line in f:
            m = _MACRO.match(line)
            if m:
                current = m.group(1)
                tables[current], types[current] = [], []
                continue
            m = _ENTRY.match(line)
            if m and current:
                tables[current].append([a.strip() for a in m.group(2).split(',')])
                types[current].append(m.group(1))
            if not line.rstrip().endswith('\\'):
                current = None
    return Grammar(tables, types)
