#!/usr/bin/env python3
"""No function of the plugin (src/mpi/coll/hier/*.c) is longer than 80 lines, from the line
of its name to its closing brace.  Prints each longer one and exits 1.

    test/function_length.py [SRCDIR]
"""
import glob
import os
import re
import sys

LIMIT = 80


def functions(text):
    """(name, first line, lines) of each top-level function body in C text."""
    lines = text.split('\n')
    depth, start, name = 0, None, None
    for i, line in enumerate(lines):
        code = re.sub(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)*\'|//.*', '""', line)
        if depth == 0 and '{' in code and start is None:
            j = i
            while j >= 0 and '(' not in lines[j]:
                j -= 1
            head = lines[j] if j >= 0 else ''
            m = re.search(r'(\w+)\s*\(', head)
            if m and not re.match(r'\s*(typedef|struct|enum|static const|const)', head) \
                    and not head.rstrip().endswith('='):
                name, start = m.group(1), j
        depth += code.count('{') - code.count('}')
        if depth == 0 and start is not None:
            yield name, start + 1, i - start + 1
            start = None


def main(argv):
    srcdir = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    long_ones = []
    for path in sorted(glob.glob(os.path.join(srcdir, 'src/mpi/coll/hier/*.c'))):
        for name, line, n in functions(open(path).read()):
            if n > LIMIT:
                long_ones.append('%s:%d %s: %d lines' % (os.path.relpath(path, srcdir), line,
                                                         name, n))
    for entry in long_ones:
        print('FAIL: ' + entry + ' (limit %d)' % LIMIT)
    if not long_ones:
        print('no plugin function is longer than %d lines' % LIMIT)
    return 1 if long_ones else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
