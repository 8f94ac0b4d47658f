#!/usr/bin/env python3
"""No function of the plugin (src/mpi/coll/hier/*.c) or of hiertune (tools/src/*.cpp,
tools/lib/*/*.cpp) is longer than 80 lines, from the line of its name to its closing brace.
Prints each longer one and exits 1.

A lambda inside a function counts toward that function; namespace, extern "C", class,
struct and enum bodies are not functions, but the member functions defined in a class
body are, and so is a lambda defined at namespace scope.

    test/function_length.py [SRCDIR]
"""
import glob
import os
import re
import sys

LIMIT = 80
SOURCES = ('src/mpi/coll/hier/*.c', 'tools/src/*.cpp', 'tools/lib/*/*.cpp')

# what may follow a function's parameter list before its body
QUALIFIERS = re.compile(r'\)\s*((const|noexcept|override|final|mutable|volatile|&&|&)\s*)*$')
SCOPE_KEYWORDS = re.compile(r'(^|[\s>])(namespace|class|struct|union|enum)\b')


def code_chars(text):
    """(character, line) of the code in C or C++ text: comments, preprocessor lines and
    the insides of string and character literals (raw ones too) are left out."""
    i, line, n = 0, 1, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if c == '\n':
            line += 1
            at_line_start = True
            yield c, line - 1
            i += 1
            continue
        if at_line_start and c == '#':
            while i < n and (text[i] != '\n' or text[i - 1] == '\\'):
                if text[i] == '\n':
                    line += 1
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith('//', i):
            while i < n and text[i] != '\n':
                i += 1
            continue
        if text.startswith('/*', i):
            end = text.find('*/', i + 2)
            end = n if end < 0 else end + 2
            line += text.count('\n', i, end)
            i = end
            yield ' ', line
            continue
        raw = re.match(r'(u8|u|U|L)?R"([^()\\\s]{0,16})\(', text[i:i + 24])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == '_')):
            end = text.find(')' + raw.group(2) + '"', i + raw.end())
            end = n if end < 0 else end + len(raw.group(2)) + 2
            line += text.count('\n', i, end)
            i = end
            yield '""', line
            continue
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            yield '""', line
            continue
        yield c, line
        i += 1


def header_name(header):
    """(name, index in header, whether a lambda) of the function a header (the code before
    a '{') opens, or None when the brace opens no function."""
    text = ''.join(c for c, _ in header)
    # access specifiers are not part of the header; blank them, keeping the indices
    text = re.sub(r'^\s*((public|private|protected)\s*:(?!:)\s*)+',
                  lambda m: ' ' * len(m.group(0)), text)
    stripped = text.strip()
    if not stripped or SCOPE_KEYWORDS.search(stripped.split('(')[0]) \
            or re.match(r'extern\s*""', stripped):
        return None
    cut = len(text)
    depth = 0
    for k, c in enumerate(text):  # a constructor's initialisers, a trailing return type
        depth += c in '([<' and 1 or 0
        depth -= c in ')]>' and 1 or 0
        if depth == 0 and ((c == ':' and text[k - 1:k] != ':' and text[k + 1:k + 2] != ':')
                           or text.startswith('->', k)):
            cut = k
            break
    if not QUALIFIERS.search(text[:cut].rstrip()):
        return None
    if text[cut:cut + 1] == ':' and not text.rstrip().endswith((')', '}')):
        return None  # a member's brace initialiser in a constructor's list, not the body
    depth, open_paren = 0, None
    for k in range(cut - 1, -1, -1):  # the last parenthesised group: the parameters
        if text[k] == ')':
            depth += 1
        elif text[k] == '(':
            depth -= 1
            if depth == 0:
                open_paren = k
                break
    if open_paren is None:
        return None
    before = text[:open_paren].rstrip()
    if re.match(r'\s*(if|for|while|switch|catch|return)\b', stripped) or before.endswith('='):
        return None
    if before.endswith(']'):  # a lambda: named by what it is assigned to
        m = re.search(r'(\w+)\s*=\s*\[[^\]]*\]$', before)
        return (m.group(1) if m else 'lambda'), before.rfind('['), True
    m = re.search(r'(operator\s*\S+|~?\w+)$', before)
    return (m.group(1), m.start(), False) if m else None


def functions(text):
    """(name, first line, lines) of each function body in C or C++ text."""
    # one entry a brace that is open: its kind, and the header to restore when it closes
    scopes = []
    header = []  # (char, line) since the last statement or scope boundary, outside functions
    start = None  # (name, line) of the function being read
    for c, line in code_chars(text):
        in_function = start is not None
        if c == '{':
            if in_function:
                scopes.append(('block', None))
                continue
            found = header_name(header)
            if found and scopes and scopes[-1][0] == 'init' and not found[2]:
                found = None  # in an initialiser only a lambda has a body; the rest are macros
            if found:
                name, at, _ = found
                start = (name, header[at][1] if at < len(header) else line)
                scopes.append(('function', None))
                header = []
            elif header and SCOPE_KEYWORDS.search(''.join(ch for ch, _ in header).split('=')[0]) \
                    or re.match(r'\s*extern\s*""', ''.join(ch for ch, _ in header)):
                scopes.append(('scope', None))
                header = []
            else:  # an initialiser: its braces belong to the statement it is in
                scopes.append(('init', header + [('{', line)]))
                header = []
        elif c == '}':
            kind, saved = scopes.pop() if scopes else ('scope', None)
            if kind == 'function':
                yield start[0], start[1], line - start[1] + 1
                start = None
                header = []
            elif kind == 'init':
                header = saved + header + [('}', line)]
            elif kind == 'scope':
                header = []
        elif not in_function:
            if c == ';' or (c == ',' and scopes and scopes[-1][0] == 'init'
                            and not open_brackets(header)):
                header = []
            else:
                header.append((c, line))


def open_brackets(header):
    """Whether a ( or [ of the header is still open."""
    depth = 0
    for c, _ in header:
        depth += (c in '([') - (c in ')]')
    return depth > 0


def main(argv):
    srcdir = argv[0] if argv else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    long_ones = []
    for pattern in SOURCES:
        for path in sorted(glob.glob(os.path.join(srcdir, pattern))):
            with open(path) as source:
                found = list(functions(source.read()))
            for name, line, n in found:
                if n > LIMIT:
                    long_ones.append('%s:%d %s: %d lines' % (os.path.relpath(path, srcdir),
                                                             line, name, n))
    for entry in long_ones:
        print('FAIL: ' + entry + ' (limit %d)' % LIMIT)
    if not long_ones:
        print('no function of the plugin or of hiertune is longer than %d lines' % LIMIT)
    return 1 if long_ones else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
