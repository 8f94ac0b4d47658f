#!/usr/bin/env bash
# doc/reference.md is what maint/gen-reference.py writes from the sources today: fails,
# with the diff, when it is stale (fix: python3 maint/gen-reference.py).
# Env: MPICH_HIER_SRCDIR (set by make check; default: this script's repository).
set -euo pipefail
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp "${TMPDIR:-/tmp}/reference.XXXXXX.md")
trap 'rm -f "$tmp"' EXIT
python3 "$srcdir/maint/gen-reference.py" -o "$tmp" "$srcdir"
if ! diff -u "$srcdir/doc/reference.md" "$tmp"; then
    echo "FAIL: doc/reference.md is stale: run python3 maint/gen-reference.py" >&2
    exit 1
fi
echo "doc/reference.md is current"
