#!/usr/bin/env python3
"""Write doc/reference.md: everything a user of mpich-hier can set or read.

    maint/gen-reference.py [-o FILE|-] [SRCDIR]

Sources: the grammar (src/mpi/coll/hier/hier_grammar.h, read by test/mpi/hier_grammar.py),
the MPI_T CVAR info blocks of src/mpi/coll/hier/cvars.txt and of maint/patches/*.patch, the items
maint/gen-registration.py adds to MPICH's algorithm CVARs, and the pvar table of
src/mpi/coll/hier/hier_pvars.c.  test/doc_reference.sh fails when the file is stale.
"""
import argparse
import glob
import importlib.util
import os
import re
import sys

HIER = 'src/mpi/coll/hier'
STRING = r'"(?:[^"\\]|\\.)*"'
# a NAME parameter's list: what it is called here, and its names for a collective
LISTS = {'INTER_ALGOS': ('inter-node submodule', lambda g, coll: g.inter_algos(coll)),
         'INTRA_ALGOS': ('intra-node submodule', lambda g, coll: g.intra_algos())}


def md(text):
    """Text for a Markdown table cell."""
    return text.replace('|', '\\|').replace('*', '\\*')


def table(header, rows):
    out = ['| ' + ' | '.join(header) + ' |', '|' + '---|' * len(header)]
    return out + ['| ' + ' | '.join(row) + ' |' for row in rows] + ['']


# ---- CVAR info blocks ----

KEY = re.compile(r'^( *)(- )?(\w+) *: ?(.*)$')
ITEM = re.compile(r'^(\w+)\s+- (.*)$')


def parse_cvars(lines):
    """The CVARs of one info block's lines: dicts of their keys; 'description' becomes
    'text' (one line of prose) and 'items' (name -> one line, an enum's item list)."""
    cvars, key_col, field = [], None, None
    for line in lines:
        m = KEY.match(line)
        col = m and len(m.group(1)) + len(m.group(2) or '')
        if m and (key_col is None or col <= key_col):
            if m.group(2):
                cvars.append({})
                key_col = col
            if cvars:
                field = m.group(3)
                cvars[-1][field] = m.group(4).strip()
        elif field and line.strip():
            cvars[-1][field] += '\n' + line.rstrip()
    for cvar in cvars:
        cvar['text'], cvar['items'] = split_description(cvar.get('description', ''))
    return cvars


def split_description(desc):
    """(prose, {item: text}) of a description: '>-' folds; '|-' keeps lines, where a
    line 'name - text' at the base indent starts an item and deeper lines continue it."""
    style, _, body = desc.partition('\n')
    lines = [l for l in body.split('\n') if l.strip()]
    base = min((len(l) - len(l.lstrip()) for l in lines), default=0)
    prose, items, item = [], {}, None
    for line in lines:
        m = ITEM.match(line[base:]) if style == '|-' else None
        if m:
            item = m.group(1)
            items[item] = m.group(2).strip()
        elif item and len(line) - len(line.lstrip()) > base:
            items[item] += ' ' + line.strip()
        else:
            item = None
            prose.append(line.strip())
    return ' '.join(prose), items


def info_blocks(lines):
    """The info blocks among lines: lists of their lines."""
    blocks, block = [], None
    for line in lines:
        if '=== BEGIN_MPI_T_CVAR_INFO_BLOCK ===' in line:
            block = []
        elif '=== END_MPI_T_CVAR_INFO_BLOCK ===' in line:
            blocks.append(block)
            block = None
        elif block is not None:
            block.append(line)
    return blocks


def patch_added(path):
    """The lines a patch adds: (file patched, run of consecutive '+' lines) in order."""
    runs, target, run = [], None, None
    for line in open(path).read().split('\n'):
        if line.startswith('+++ '):
            target = re.sub(r'^b/', '', line[4:].split('\t')[0])
        elif line.startswith('+'):
            if run is None:
                run = []
                runs.append((target, run))
            run.append(line[1:])
            continue
        run = None
    return runs


def load_cvars(srcdir, g):
    """(new CVARs, each with its 'source'; items added to MPICH's enum CVARs:
    (cvar, item, text, source))."""
    new = []
    for path in sorted(glob.glob(os.path.join(srcdir, HIER, 'cvars.txt'))):
        for block in info_blocks(open(path).read().split('\n')):
            new += [dict(c, source=os.path.relpath(path, srcdir)) for c in parse_cvars(block)]
    for path in sorted(glob.glob(os.path.join(srcdir, 'maint/patches/*.patch'))):
        source = os.path.relpath(path, srcdir)
        for block in info_blocks([l for _, run in patch_added(path) for l in run]):
            new += [dict(c, source=source) for c in parse_cvars(block)]
    spec = importlib.util.spec_from_file_location(
        'gen_registration', os.path.join(srcdir, 'maint/gen-registration.py'))
    registration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(registration)
    added = [item + ('maint/gen-registration.py',) for item in registration.cvar_items(g)]
    return new, added


# ---- sections ----

def algorithms_section(g, cvars):
    out = ['## Algorithms and their Csel JSON parameters', '',
           'From `%s/hier_grammar.h`.  Force an algorithm with its CVAR item, or select it in '
           'a Csel JSON tree (`MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE`) as '
           '`"algorithm=<container>": {"<param>=<value>":{}, ...}`; a parameter left out '
           'follows its CVAR at call time.' % HIER, '']
    for coll in g.collectives:
        out += ['### %s' % coll, '']
        out += table(['algorithm', 'container', 'forced by', 'JSON parameters'],
                     [['`%s`' % a, '`%s`' % g.container(coll, a),
                       '`%s=%s`' % (g.cvar(coll, 'INTRA_ALGORITHM'), a),
                       ', '.join('`%s`' % p for p in g.params(coll, a))]
                      for a in g.algorithms[coll]])
        specs = {}
        for algo in g.algorithms[coll]:
            for spec in g.param_specs(coll, algo):
                specs.setdefault(spec, []).append(algo)
        rows = []
        for (param, kind, arg, suffix), algos in specs.items():
            cvar = cvars[g.cvar(coll, suffix)]
            if kind == 'INT' and cvar.get('min') != arg:
                sys.exit('gen-reference: %s states min %s, the grammar %s' %
                         (cvar['name'], cvar.get('min'), arg))
            values = ('integer >= %s' % arg if kind == 'INT' else
                      'one of ' + ', '.join('`%s`' % n for n in LISTS[arg][1](g, coll)))
            rows.append(['`%s`' % param, ', '.join('`%s`' % a for a in algos), values,
                         '`%s`' % cvar['name'], '`%s`' % cvar['default'], md(cvar['text'])])
        out += table(['parameter', 'of', 'values', 'default from CVAR', 'CVAR default',
                      'CVAR description'], rows)
    out += ['### Non-blocking and persistent forms', '',
            'Schedules of MPICH\'s gentran transport (`MPII_HIER_SCHED_ALGORITHMS`): no JSON '
            'parameters; they take the blocking algorithm\'s parameters from its CVARs.', '']
    out += table(['collective', 'algorithm', 'container', 'forced by', 'schedule of'],
                 [['%s' % icoll, '`%s`' % algo, '`MPIR_%s_intra_%s`' % (Icoll, algo),
                   '`MPIR_CVAR_%s_INTRA_ALGORITHM=%s`' % (ICOLL, algo), '`%s`' % g.container(coll, 'hier')]
                  for icoll, Icoll, ICOLL, algo, coll in g.sched_algorithms])
    return out


def accepts(c):
    """What a CVAR accepts, as MPI_Init and MPI_T writes check it (maint/patches/06)."""
    if c['items']:
        return 'one of ' + ', '.join('`%s`' % i for i in c['items'])
    if c['type'] == 'int':
        return 'integer %s to 2147483647' % c.get('min', '-2147483648')
    if c['type'] == 'boolean':
        return '`1`, `0`, `yes`, `no`, `true`, `false`, `on`, `off`'
    return 'any string'


def cvars_section(new, added):
    out = ['## CVARs', '', 'The CVARs the plugin defines: the MPI_T CVAR info blocks of '
           '`%s/cvars.txt` and those the registration patches `maint/patches/*.patch` add, in '
           'source order.  Any other value ends MPI_Init on every rank with one line naming '
           'the variable, the value and what it accepts; an MPI_T write of one returns '
           '`MPI_T_ERR_INVALID` and leaves the variable as it was.' % HIER, '']
    rows = []
    for c in new:
        rows.append(['`%s`' % c['name'], accepts(c), '`%s`' % c['default'], md(c['text']),
                     '`%s`' % c['source']])
    out += table(['CVAR', 'accepts', 'default', 'description', 'defined in'], rows)
    out += ['### Items added to MPICH\'s CVARs', '']
    out += table(['CVAR', 'item', 'description', 'added by'],
                 [['`%s`' % c, '`%s`' % i, md(t), '`%s`' % s] for c, i, t, s in added])
    return out


def expand_macros(text):
    """text with its function-like #defines expanded (# and ## included; no nesting)."""
    for m in list(re.finditer(r'^#define (\w+)\(([^)]*)\)((?:.*\\\n)*.*)$', text, re.M)):
        name, params = m.group(1), [p.strip() for p in m.group(2).split(',')]
        body = m.group(3).replace('\\\n', ' ')
        text = text.replace(m.group(0), '')

        def call(c):
            args = dict(zip(params, (a.strip() for a in c.group(1).split(','))))
            return re.sub(STRING + r'|\s*##\s*|#\s*(\w+)|\w+', lambda t: (
                '' if '##' in t.group(0) else '"%s"' % args[t.group(1)] if t.group(1)
                else args.get(t.group(0), t.group(0))), body)
        text = re.sub(r'\b%s\(([^)]*)\)' % name, call, text)
    return text


def pvars_section(srcdir, g):
    # the per-algorithm call counters come from the grammar's MPII_HIER_ALGORITHMS
    calls = lambda x: ' '.join('%s(%s)' % (x, ', '.join(e)) for e in g.algorithm_entries())
    sched_calls = lambda x: ' '.join('%s(%s)' % (x, ', '.join(e)) for e in g.sched_algorithms)
    text = open(os.path.join(srcdir, HIER, 'hier_pvars.c')).read()
    text = re.sub(r'MPII_HIER_PVAR_CALLS\((\w+), (\w+)\)', r'MPII_HIER_PVAR_CALLS_ ## \1 ## _ ## \2',
                  text)
    text = re.sub(r'MPII_HIER_SCHED_ALGORITHMS\((\w+)\)', lambda m: sched_calls(m.group(1)), text)
    text = expand_macros(re.sub(r'MPII_HIER_ALGORITHMS\((\w+)\)', lambda m: calls(m.group(1)),
                                text))
    strings = lambda s: ''.join(t[1:-1] for t in re.findall(STRING, s))
    info = {m.group(1): (strings(m.group(2)), strings(m.group(3))) for m in re.finditer(
        r'\[(MPII_HIER_PVAR_\w+)\]\s*=\s*\{\s*((?:%s\s*)+),\s*((?:%s\s*)+)\}' % (STRING, STRING),
        text)}
    enum = re.search(r'enum\s*\{([^}]*)\bMPII_HIER_PVAR_COUNT\b',
                     open(os.path.join(srcdir, HIER, 'hier_impl.h')).read()).group(1)
    enum = re.sub(r'MPII_HIER_ALGORITHMS\(\w+\)', ' '.join(
        'MPII_HIER_PVAR_CALLS_%s_%s,' % (e[0], e[3]) for e in g.algorithm_entries()), enum)
    enum = re.sub(r'MPII_HIER_SCHED_ALGORITHMS\(\w+\)', ' '.join(
        'MPII_HIER_PVAR_CALLS_%s_%s,' % (e[0], e[3]) for e in g.sched_algorithms), enum)
    enum = re.sub(r'#define.*', '', enum)
    ids = re.findall(r'\b(MPII_HIER_PVAR_\w+)', re.sub(r'/\*.*?\*/', '', enum, flags=re.S))
    if sorted(ids) != sorted(info):
        sys.exit('gen-reference: pvars of hier_impl.h and hier_pvars.c differ: %s'
                 % sorted(set(ids) ^ set(info)))
    cls = re.search(r'MPI_T_PVAR_CLASS_(\w+)', text).group(1)
    out = ['## MPI_T performance variables', '',
           'From `%s/hier_pvars.c` (one call counter per algorithm of the grammar), in '
           'registration order.  All of '
           'class %s.' % (HIER, cls), '']
    return out + table(['pvar', 'description'],
                       [['`%s`' % info[i][0], md(info[i][1])] for i in ids])


def submodules_section(g, cvars):
    out = ['## Submodules of the hier algorithms', '',
           'From the grammar: the values of each `NAME` parameter, with the CVAR item that '
           'sets it and the item\'s description in that CVAR.', '']
    for coll in g.collectives:
        seen = set()
        for algo in g.algorithms[coll]:
            for param, kind, arg, suffix in g.param_specs(coll, algo):
                if kind != 'NAME' or (param, suffix) in seen:
                    continue
                seen.add((param, suffix))
                cvar = cvars[g.cvar(coll, suffix)]
                out += ['### %s: %ss (`%s`, `%s`)' % (coll, LISTS[arg][0], param, cvar['name']), '']
                out += table(['submodule', 'CVAR', 'JSON', 'description'],
                             [['`%s`' % n, '`%s=%s`' % (cvar['name'], n), '`%s=%s`' % (param, n),
                               md(cvar['items'].get(n, '(not described in the CVAR)'))]
                              for n in LISTS[arg][1](g, coll)])
    return out


def mpich_section():
    """MPICH 5.0.1's own variables the plugin, its tests and tools rely on."""
    rows = [
        ('MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE', 'the MPIR Csel tree (a tuned tree of '
         'hiertune); checked by the plugin and merged over the built-in one at MPI_Init'),
        ('MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE', 'the CH4 (composition) tree; when '
         'a user sets it, the route of patch 04 leaves the device\'s choice alone'),
        ('MPIR_CVAR_<COLL>_INTRA_ALGORITHM', 'forces an algorithm; the plugin adds its items '
         '(`hier`, `seg_*`)'),
        ('MPIR_CVAR_<COLL>_DEVICE_COLLECTIVE', '0: MPI_<Coll> goes to the MPIR level directly; '
         '`hiertune bench` sets it with a forced algorithm'),
        ('MPIR_CVAR_<COLL>_COMPOSITION', 'CH4 compositions of Barrier, Bcast, Allreduce, '
         'Allgather, Alltoall, Reduce (0 auto; Allreduce 4, Allgather 1, Alltoall 1: '
         'multi-leader); swept by `./quickstart compare`'),
        ('MPIR_CVAR_NUM_MULTI_LEADS', 'leaders per node of the multi-leader compositions'),
        ('MPIR_CVAR_CH4_PROGRESS_THROTTLE', '1: a waiting rank yields its core (sched_yield) '
         'after `MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT` polls without progress (the '
         'release_gather spin included); `maint/emucluster` sets 1 and 100 when ranks outnumber '
         'cores, the tests 1 and 0 (`test/launch-env.sh`)'),
        ('MPIR_CVAR_NUM_CLIQUES, MPIR_CVAR_CLIQUES_BY_BLOCK', 'one host taken for N nodes '
         '(correctness only)'),
    ]
    out = ['## MPICH 5.0.1 variables this project uses', '',
           'Defined by MPICH 5.0.1 itself (its own descriptions: `mpivars -a` or '
           'src/include/mpir_cvars.h of the build).', '',
           '| CVAR | role here |', '|---|---|']
    out += ['| `%s` | %s |' % r for r in rows]
    return out + ['']


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('srcdir', nargs='?',
                    default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument('-o', '--output', help='default SRCDIR/doc/reference.md; - for stdout')
    a = ap.parse_args()
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(a.srcdir, 'test/mpi'))
    import hier_grammar
    g = hier_grammar.load(a.srcdir)
    new, added = load_cvars(a.srcdir, g)
    cvars = {c['name']: c for c in new}
    sources = sorted({c['source'] for c in new} | {s for *_, s in added})
    lines = ['<!-- Generated by maint/gen-reference.py from %s/hier_grammar.h, '
             '%s/hier_pvars.c and the CVAR blocks of %s: do not edit by hand. -->'
             % (HIER, HIER, ', '.join(sources)), '',
             '# mpich-hier reference', '',
             'Everything a user can set (CVARs, Csel JSON parameters) or read (MPI_T pvars). '
             'Generated by `maint/gen-reference.py`; `test/doc_reference.sh` checks it is '
             'current.', '']
    lines += algorithms_section(g, cvars) + submodules_section(g, cvars)
    lines += cvars_section(new, added) + mpich_section() + pvars_section(a.srcdir, g)
    text = '\n'.join(lines).rstrip('\n') + '\n'
    out = a.output or os.path.join(a.srcdir, 'doc/reference.md')
    if out == '-':
        sys.stdout.write(text)
    else:
        with open(out, 'w') as f:
            f.write(text)


if __name__ == '__main__':
    main()
