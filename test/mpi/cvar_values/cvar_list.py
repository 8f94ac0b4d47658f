#!/usr/bin/env python3
"""The plugin's CVARs and what each accepts, for test/mpi/cvar_values.sh: read from the
MPI_T CVAR info blocks by maint/gen-reference.py's parser (the blocks MPICH's extractcvars
turns into the checks under test).

    cvar_list.py SRCDIR    one line per CVAR: NAME TYPE MIN MAX ITEM...
                           (MIN, MAX: '-' where the block states none)
"""
import importlib.util
import os
import sys


def main():
    srcdir = sys.argv[1]
    sys.dont_write_bytecode = True
    sys.path.insert(0, os.path.join(srcdir, 'test/mpi'))
    import hier_grammar
    spec = importlib.util.spec_from_file_location(
        'gen_reference', os.path.join(srcdir, 'maint/gen-reference.py'))
    reference = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reference)
    new, _ = reference.load_cvars(srcdir, hier_grammar.load(srcdir))
    for c in new:
        print(' '.join([c['name'], c['type'], c.get('min', '-'), c.get('max', '-')] +
                       list(c['items'])))


if __name__ == '__main__':
    main()
