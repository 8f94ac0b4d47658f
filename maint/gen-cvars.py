#!/usr/bin/env python3
"""Write the item lists of the plugin's submodule CVARs in src/mpi/coll/hier/cvars.txt
from the grammar (src/mpi/coll/hier/hier_grammar.h).

    gen-cvars.py [SRCDIR]          rewrite cvars.txt in place
    gen-cvars.py --check [SRCDIR]  exit 1, naming each CVAR, where cvars.txt differs

A submodule CVAR is MPIR_CVAR_<COLL>_<SUFFIX> of a NAME parameter of the grammar
(MPII_HIER_PARAMS_*: NAME(param, LIST, SUFFIX)).  Its description keeps the lines written
by hand before the list; the list itself (every "name - text" line, MPICH's enum form,
which maint/extractcvars turns into the enum values) is written here: the names and their
order from the grammar (the plugin's enum checks rely on that order), the text from
ITEM_TEXT below.  The defaults of the CVARs in DEFAULT_MACROS are the values of those
macros in the plugin's pure-logic header (hier_by_size.h), which the critical-path counts
and the tools use too.  Everything else in cvars.txt is left as it is.
"""
import os
import re
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'test', 'mpi'))
import hier_grammar  # noqa: E402

# The non-blocking steps each tree collective's inter-node submodule runs.
TREE_STEPS = {'bcast': ['bcast'], 'reduce': ['reduce'], 'allreduce': ['reduce', 'bcast']}


def tree_item_text(coll, item):
    """The text of an item of the tree collectives' inter-node list for coll."""
    steps = TREE_STEPS[coll]
    calls = ' and '.join('MPIR_I' + s for s in steps)
    trees = "MPICH's tsp tree " + ' and '.join(steps)
    root_first = coll == 'bcast'
    text = {
        'auto': calls + " (MPICH's own selection)",
        'sched_binomial': ' and '.join('MPIR_I%s_intra_sched_binomial' % s for s in steps),
        'tsp_kary': trees + ', k-ary tree',
        'tsp_knomial': trees + ', k-nomial tree',
        'tsp_ring': trees + ', chain',
        'seg_linear': 'segmented linear tree (%s)' % (
            'root sends to every leader' if root_first else 'every leader sends to the root'),
        'seg_chain': 'segmented chains, inter_k of them',
        'seg_pipeline': 'segmented single chain',
        'seg_binary': 'segmented binary tree',
        'seg_binomial': 'segmented binomial tree',
        'seg_split_binary': 'segmented split-binary tree (halves, then exchange)',
        'seg_in_order_binary': 'segmented in-order binary tree (rank order)',
        'tsp_allreduce_ring':
            "one step instead of reduce + bcast: MPICH's tsp ring allreduce (reduce-scatter "
            "then allgather around the leaders), which sends 2(N-1)/N of a segment through "
            "each node link where a reduce chain and a bcast chain send 2 (commutative ops); "
            "a step below the top one runs tsp_ring instead",
    }
    if item == 'by_size':
        if coll == 'allreduce':
            return ("by the message (hier_by_size.h): MPICH's recursive doubling among the "
                    "members (one step) for a message of one piece where the alpha-beta model "
                    "(MPIR_CVAR_HIER_LATENCY_BYTES) rates it below tsp_allreduce_ring, which "
                    "runs otherwise")
        return ("by the message (hier_by_size.h): sched_binomial for a message of one piece, "
                "tsp_ring for one the step pipelines")
    return text.get(item)


# The gather's and scatter's by_size item: both choose their tree alike.
ROOTED_BY_SIZE = ("by the message (hier_by_size.h): binomial while a group's blocks cost less "
                  "than the start-ups linear adds (MPIR_CVAR_HIER_LATENCY_BYTES), linear beyond")


# The scan's and exscan's top step: both run the same schedule.
SCAN_ITEMS = {
    'recursive_doubling': "recursive doubling of the groups' totals (log2 rounds of the "
                          "whole message)",
    'linear': "a chain in rank order that passes each leader's prefix on in segments of "
              "MPII_HIER_SEGSIZE_DEFAULT bytes (hier_by_size.h), pipelined",
    'by_size': "by the message (hier_by_size.h): recursive_doubling where its rounds cost "
               "less than the chain's pipelined hops (MPIR_CVAR_HIER_LATENCY_BYTES), linear "
               "beyond",
}


# The reduce-scatter's and reduce-scatter-block's top step: both run the same schedule.
REDUCE_SCATTER_LINEAR = ("every leader sends each other leader that one's piece of its "
                         "partial at once and combines the pieces it receives in rank order "
                         "(any op)")


# The lists of their own (MPII_HIER_INTER_ALGOS_<COLL>) and the intra-node list.
LISTED_ITEM_TEXT = {
    ('allgather', 'auto'): "MPIR_Allgatherv_allcomm_auto (MPICH's selection) of the groups' "
                           "blocks, then one bcast of everything down each group",
    ('allgather', 'ring'): "a ring of the leaders that forwards each piece as it arrives, each "
                           "piece broadcast down the group while the next ones travel",
    ('allgather', 'by_size'): "by the message (hier_by_size.h): auto while a group's block is "
                              "no longer than MPIR_CVAR_HIER_LATENCY_BYTES (the hops decide), "
                              "ring beyond",
    ('gather', 'linear'): "every leader sends to the step's root",
    ('gather', 'binomial'): "a binomial tree of the groups",
    ('scatter', 'linear'): "the step's root sends to every leader",
    ('scatter', 'binomial'): "a binomial tree of the groups",
    ('gather', 'by_size'): ROOTED_BY_SIZE,
    ('scatter', 'by_size'): ROOTED_BY_SIZE,
    ('barrier', 'auto'): "MPIR_Ibarrier and a wait (MPICH's own selection)",
    ('barrier', 'dissemination'): "MPIR_Barrier_intra_dissemination",
    ('scan', 'recursive_doubling'): SCAN_ITEMS['recursive_doubling'],
    ('exscan', 'recursive_doubling'): SCAN_ITEMS['recursive_doubling'],
    ('scan', 'linear'): SCAN_ITEMS['linear'],
    ('exscan', 'linear'): SCAN_ITEMS['linear'],
    ('scan', 'by_size'): SCAN_ITEMS['by_size'],
    ('exscan', 'by_size'): SCAN_ITEMS['by_size'],
    ('reduce_scatter', 'linear'): REDUCE_SCATTER_LINEAR,
    ('reduce_scatter_block', 'linear'): REDUCE_SCATTER_LINEAR,
    ('allgatherv', 'linear'): "every leader sends each other leader its groups' blocks at once",
    ('alltoall', 'linear'): "every leader sends each other leader the blocks from its groups' "
                            "ranks to that one's at once",
    ('alltoall', 'brucks'): "MPICH's Bruck alltoall of those pieces among the leaders "
                            "(ceil(log2 leaders) rounds), each padded to the widest pair's",
    ('alltoall', 'direct'): "no leaders: every rank sends every other rank its block at once, "
                            "starting with the next rank",
    ('alltoallv', 'direct'): "every rank sends every other rank its block, in node rounds (each "
                             "after the one before from the mean block hier_by_size.h names)",
    ('alltoallv', 'linear'): "every rank's counts, then its blocks, go up to its top leader; "
                             "every top leader sends each other one the blocks from its groups' "
                             "ranks to that one's at once",
    ('gatherv', 'linear'): "every top leader sends the root its groups' blocks, after the "
                           "counts went up; a block longer than a start-up goes straight "
                           "from its rank",
    ('scatterv', 'linear'): "the root sends every top leader its groups' blocks, after their "
                            "counts; a block longer than a start-up goes straight to its rank",
    ('alltoall', 'by_size'): "by the block (hier_by_size.h): direct for blocks longer than "
                             "MPIR_CVAR_HIER_LATENCY_BYTES or rows too long to hold at a "
                             "leader, else brucks where its rounds cost no more than linear's "
                             "start-ups and pieces, linear beyond",
}

INTRA_ITEM_TEXT = {
    'bcast': {
        'auto': "MPIR_Bcast_allcomm_auto on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Bcast_intra_binomial",
        'shm': "the device's shared-memory bcast (CH4 POSIX release_gather), binomial where "
               "the device cannot",
    },
    'reduce': {
        'auto': "MPIR_Reduce_allcomm_auto on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Reduce_intra_binomial",
        'shm': "the device's shared-memory reduce (CH4 POSIX release_gather), MPIR where the "
               "device cannot (e.g. non-commutative ops)",
    },
    'allreduce': {
        'auto': "MPIR_Reduce/Bcast_allcomm_auto on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Reduce/Bcast_intra_binomial",
        'shm': "the device's shared-memory reduce and bcast (CH4 POSIX release_gather), MPIR "
               "where the device cannot (e.g. non-commutative ops)",
    },
    'allgather': {
        'auto': "MPICH's selection on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Gather_intra_binomial and MPIR_Bcast_intra_binomial",
        'shm': "the gather as the hier gather's shm, then the device's shared-memory bcast "
               "(CH4 POSIX release_gather) of each piece, binomial where the device cannot",
        'by_size': "by the message, once per call: while all ranks' blocks fit one of the "
                   "device's bcast cells, the bcast shm and the gather as the hier gather's "
                   "by_size; auto beyond",
    },
    'gather': {
        'auto': "MPIR_Gather_allcomm_auto on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Gather_intra_binomial",
        'shm': "in one step through the device's shared memory (CH4 POSIX release_gather) "
               "while the node's blocks fit a reduce cell (hier_by_size.h): each rank's "
               "zeroed copy of them, its own block in place, or-ed onto the leader by the "
               "device's reduce; binomial beyond or where the device cannot",
        'by_size': "shm while the node's blocks fit and it has more than 2 ranks (where "
                   "binomial takes more than one step), auto otherwise",
    },
    'scatter': {
        'auto': "MPIR_Scatter_allcomm_auto on the node communicator (MPIR Csel tree)",
        'binomial': "MPIR_Scatter_intra_binomial",
        'shm': "in one step through the device's shared memory (CH4 POSIX release_gather) "
               "while the node's blocks fit a bcast cell (hier_by_size.h): one bcast of all "
               "of them, each rank keeping its own; binomial beyond or where the device "
               "cannot",
        'by_size': "shm while the node's blocks fit and it has more than 2 ranks (where "
                   "binomial takes more than one step), auto otherwise",
    },
    'barrier': {
        'auto': "MPIR_Barrier_allcomm_auto on the node communicator, then "
                "MPIR_Bcast_allcomm_auto of one byte",
        'binomial': "empty messages up and down a binomial tree",
        'shm': "the device's shared-memory barrier, then its bcast of one byte (CH4 POSIX "
               "release_gather); MPIR where the device cannot",
        'by_size': "as shm",
    },
}
INTRA_BY_SIZE = "shm for a message that fits one release_gather cell, auto otherwise"

# CVAR: the macro of src/mpi/coll/hier/hier_by_size.h that holds its default
DEFAULT_MACROS = {
    'MPIR_CVAR_BCAST_HIER_SEGSIZE': 'MPII_HIER_SEGSIZE_DEFAULT',
    'MPIR_CVAR_REDUCE_HIER_SEGSIZE': 'MPII_HIER_SEGSIZE_DEFAULT',
    'MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE': 'MPII_HIER_SEGSIZE_DEFAULT',
    'MPIR_CVAR_ALLGATHER_HIER_SEGSIZE': 'MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT',
}

INDENT = 8
NAME_WIDTH = 14
LINE_WIDTH = 92


def item_text(coll, list_name, item):
    """The text of one item; None where this script has none."""
    if list_name == 'INTRA_ALGOS':
        return INTRA_ITEM_TEXT[coll].get(item, INTRA_BY_SIZE if item == 'by_size' else None)
    if coll in TREE_STEPS:
        return tree_item_text(coll, item)
    return LISTED_ITEM_TEXT.get((coll, item))


def list_lines(g, coll, list_name):
    """The description lines of one submodule list, in MPICH's 'name - text' form."""
    items = g.intra_algos() if list_name == 'INTRA_ALGOS' else g.inter_algos(coll)
    width = min(max(len(i) for i in items), NAME_WIDTH)
    lines = []
    for item in items:
        text = item_text(coll, list_name, item)
        if text is None:
            sys.exit('gen-cvars: no text for %s item %s of %s' % (list_name, item, coll))
        head = ' ' * INDENT + item.ljust(width) + ' - '
        wrapped = textwrap.wrap(text, LINE_WIDTH, initial_indent=head, break_on_hyphens=False,
                                subsequent_indent=' ' * (INDENT + width + 3))
        # maint/extractcvars takes any line that starts "word - " for an item
        if any(ITEM.match(w) for w in wrapped[1:]):
            sys.exit('gen-cvars: the text of %s wraps into a line that reads as an item' % item)
        lines += wrapped
    return lines


def submodule_cvars(g):
    """{CVAR name: (coll, list name)} for every NAME parameter of the grammar."""
    out = {}
    for coll in g.collectives:
        for algo in g.algorithms[coll]:
            for param, kind, arg, suffix in g.param_specs(coll, algo):
                if kind == 'NAME':
                    out[g.cvar(coll, suffix)] = (coll, arg)
    return out


ITEM = re.compile(r'^\s*\w+\s+-\s')


def rewrite(text, g):
    """cvars.txt's text with every submodule CVAR's list written anew; the CVARs found."""
    wanted = submodule_cvars(g)
    out, found, current, in_list = [], set(), None, False
    for line in text.splitlines():
        m = re.match(r'^\s*- name\s*:\s*(\S+)', line)
        if m:
            current, in_list = m.group(1), False
        if current in wanted and ITEM.match(line) and line.startswith(' ' * INDENT) \
                and not line.startswith(' ' * (INDENT + 1)):
            if not in_list:
                out += list_lines(g, *wanted[current])
                found.add(current)
                in_list = True
            continue
        if in_list and line.startswith(' ' * (INDENT + 1)):
            continue  # a continuation line of the old list
        in_list = False
        out.append(line)
    missing = sorted(set(wanted) - found)
    if missing:
        sys.exit('gen-cvars: cvars.txt has no item list for ' + ', '.join(missing))
    return '\n'.join(out) + '\n'


def header_macros(srcdir):
    """{macro: integer text} of the #defines of hier_by_size.h that DEFAULT_MACROS names."""
    with open(os.path.join(srcdir, 'src/mpi/coll/hier/hier_by_size.h')) as f:
        found = dict(re.findall(r'^#define\s+(\w+)\s+(\d+)\s*$', f.read(), re.M))
    missing = sorted(set(DEFAULT_MACROS.values()) - set(found))
    if missing:
        sys.exit('gen-cvars: hier_by_size.h defines no integer ' + ', '.join(missing))
    return found


def write_defaults(text, macros):
    """text with the default of every CVAR of DEFAULT_MACROS set from its macro."""
    out, current, done = [], None, set()
    for line in text.splitlines():
        m = re.match(r'^\s*- name\s*:\s*(\S+)', line)
        if m:
            current = m.group(1)
        d = re.match(r'^(\s*default\s*:\s*)\S+\s*$', line)
        if d and current in DEFAULT_MACROS:
            line = d.group(1) + macros[DEFAULT_MACROS[current]]
            done.add(current)
        out.append(line)
    missing = sorted(set(DEFAULT_MACROS) - done)
    if missing:
        sys.exit('gen-cvars: cvars.txt has no default line for ' + ', '.join(missing))
    return '\n'.join(out) + '\n'


def main(argv):
    check = '--check' in argv
    args = [a for a in argv if a != '--check']
    if len(args) > 1 or any(a.startswith('-') for a in args):
        sys.exit('gen-cvars: usage: gen-cvars.py [--check] [SRCDIR]')
    srcdir = args[0] if args else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    path = os.path.join(srcdir, 'src/mpi/coll/hier/cvars.txt')
    try:
        with open(path) as f:
            old = f.read()
        grammar = hier_grammar.load(srcdir)
        macros = header_macros(srcdir)
    except OSError as e:
        sys.exit('gen-cvars: cannot read %s: %s' % (e.filename, e.strerror))
    new = write_defaults(rewrite(old, grammar), macros)
    if check:
        if new != old:
            sys.stderr.write('gen-cvars: %s is not what the grammar and hier_by_size.h give; '
                             'run maint/gen-cvars.py\n' % path)
            return 1
        return 0
    if new != old:
        with open(path, 'w') as f:
            f.write(new)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
