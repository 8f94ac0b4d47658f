#!/usr/bin/env python3
"""Keep the timestamps of files a generator rewrote with identical content.

    keep-mtimes.py snapshot DIR STATE   record mtime and hash of every file under DIR
    keep-mtimes.py restore DIR STATE    give unchanged-but-rewritten files their old mtime
    keep-mtimes.py changed DIR STATE    after restore: print what the regeneration wrote
                                        (changed or new files, oldest first, relative to
                                        DIR), then "-" and each file it removed
    keep-mtimes.py order DIR LIST       give LIST's files (one a line, relative to DIR)
                                        mtimes of now, increasing in LIST's order

make then rebuilds only what a regeneration really changed.  `changed` and `order` let a
regeneration's output be stored and put back later (maint/overlay.sh's autogen cache)
with the relative ages make's rebuild rules read: a generated file stays newer than what
it was generated from, and than the files generated before it.
"""
import hashlib
import json
import os
import sys
import time


def walk(top):
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d not in ('.git', 'autom4te.cache')]
        for name in files:
            path = os.path.join(root, name)
            if os.path.isfile(path) and not os.path.islink(path):
                yield path


def digest(path):
    with open(path, 'rb') as f:
        return hashlib.sha1(f.read()).hexdigest()


def main():
    mode, top, state = sys.argv[1:4]
    if mode == 'snapshot':
        snap = {p: [os.stat(p).st_mtime_ns, digest(p)] for p in walk(top)}
        with open(state, 'w') as f:
            json.dump(snap, f)
    elif mode == 'restore':
        with open(state) as f:
            snap = json.load(f)
        kept = 0
        for path, (mtime, sha) in snap.items():
            try:
                if os.stat(path).st_mtime_ns != mtime and digest(path) == sha:
                    os.utime(path, ns=(mtime, mtime))
                    kept += 1
            except FileNotFoundError:
                pass
        print(f"keep-mtimes: {kept} regenerated files unchanged", file=sys.stderr)
    elif mode == 'changed':
        with open(state) as f:
            snap = json.load(f)
        now = {p: os.stat(p).st_mtime_ns for p in walk(top)}
        written = sorted((m, p) for p, m in now.items() if p not in snap or snap[p][0] != m)
        for _, path in written:
            print(os.path.relpath(path, top))
        print('-')
        for path in sorted(set(snap) - set(now)):
            print(os.path.relpath(path, top))
    elif mode == 'order':
        with open(state) as f:
            names = [line.rstrip('\n') for line in f if line.strip()]
        start = time.time_ns()
        for rank, name in enumerate(names):
            os.utime(os.path.join(top, name), ns=(start + rank, start + rank))
    else:
        sys.exit(f"usage: {sys.argv[0]} snapshot|restore|changed DIR STATE, order DIR LIST")


if __name__ == '__main__':
    main()
