#!/usr/bin/env python3
"""Keep the timestamps of files a generator rewrote with identical content.

    keep-mtimes.py snapshot DIR STATE   record mtime and hash of every file under DIR
    keep-mtimes.py restore DIR STATE    give unchanged-but-rewritten files their old mtime

make then rebuilds only what a regeneration really changed.
"""
import hashlib
import json
import os
import sys


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
    else:
        sys.exit(f"usage: {sys.argv[0]} snapshot|restore DIR STATE")


if __name__ == '__main__':
    main()
