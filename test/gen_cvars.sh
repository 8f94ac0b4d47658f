#!/usr/bin/env bash
# src/mpi/coll/hier/cvars.txt lists the grammar's submodule items and holds the segment
# size defaults of hier_by_size.h (maint/gen-cvars.py): the committed file is current, a
# new item in the grammar makes --check fail and the generator add it, in the grammar's
# order, to every CVAR of that list, and a default changed in the header is written too.
# Env: MPICH_HIER_SRCDIR (set by make check; default: this script's repository).
set -euo pipefail
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 "$srcdir/maint/gen-cvars.py" --check "$srcdir" ||
    fail "cvars.txt is stale: run python3 maint/gen-cvars.py"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gen_cvars.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/mpi/coll/hier" "$tmp/maint" "$tmp/test/mpi"
cp "$srcdir/maint/gen-cvars.py" "$tmp/maint/"
cp "$srcdir/test/mpi/hier_grammar.py" "$tmp/test/mpi/"
cp "$srcdir/src/mpi/coll/hier/cvars.txt" "$srcdir/src/mpi/coll/hier/hier_by_size.h" \
    "$tmp/src/mpi/coll/hier/"
# a new gather and scatter inter-node item, between linear and binomial (their lists only)
sed '/^#define MPII_HIER_INTER_ALGOS_\(GATHER\|SCATTER\)(X)/,/^$/s/^\(    X(linear, LINEAR) \\\)$/\1\n    X(flat, FLAT) \\/' \
    "$srcdir/src/mpi/coll/hier/hier_grammar.h" > "$tmp/src/mpi/coll/hier/hier_grammar.h"
grep -q 'X(flat, FLAT)' "$tmp/src/mpi/coll/hier/hier_grammar.h" || fail "the test's grammar edit did not apply"

if python3 "$tmp/maint/gen-cvars.py" --check "$tmp" 2>/dev/null; then
    fail "--check passed with an item the file lacks"
fi
# the generator names the item it has no text for rather than writing a blank one
out=$(python3 "$tmp/maint/gen-cvars.py" "$tmp" 2>&1) && fail "an item without text was written"
echo "$out" | grep -q "no text for INTER_ALGOS item flat of gather" || fail "unexpected refusal: $out"

# with a text, it lands in order in each CVAR of the list (gather's and scatter's)
sed -i "s/^    ('gather', 'linear'): /    ('gather', 'flat'): 'one message per rank',\n&/; s/^    ('scatter', 'linear'): /    ('scatter', 'flat'): 'one message per rank',\n&/" \
    "$tmp/maint/gen-cvars.py"
python3 "$tmp/maint/gen-cvars.py" "$tmp"
python3 "$tmp/maint/gen-cvars.py" --check "$tmp" || fail "--check fails right after writing"
for cvar in MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM MPIR_CVAR_SCATTER_HIER_INTER_ALGORITHM; do
    items=$(awk -v c="$cvar" '$0 ~ "name *: *" c "$" {on=1; next} /- name/ {on=0}
        on && /^        [a-z_]+ +- / {print $1}' "$tmp/src/mpi/coll/hier/cvars.txt" | tr '\n' ' ')
    [ "$items" = "linear flat binomial by_size " ] || fail "$cvar lists '$items'"
done
# a segment size default changed in hier_by_size.h: --check fails, the generator writes it
sed -i 's/^#define MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT [0-9]*$/#define MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT 12345/' \
    "$tmp/src/mpi/coll/hier/hier_by_size.h"
grep -q 'ALLGATHER_SEGSIZE_DEFAULT 12345$' "$tmp/src/mpi/coll/hier/hier_by_size.h" ||
    fail "the test's header edit did not apply"
python3 "$tmp/maint/gen-cvars.py" --check "$tmp" 2> /dev/null && fail "--check passed with a stale default"
python3 "$tmp/maint/gen-cvars.py" "$tmp"
default=$(awk '/name *: *MPIR_CVAR_ALLGATHER_HIER_SEGSIZE$/ {on=1; next} on && /default *:/ {print $3; exit}' \
    "$tmp/src/mpi/coll/hier/cvars.txt")
[ "$default" = 12345 ] || fail "MPIR_CVAR_ALLGATHER_HIER_SEGSIZE's default is '$default', not the header's"
# a default macro gone from the header, a default line gone from cvars.txt: refused, named
cp "$tmp/src/mpi/coll/hier/hier_by_size.h" "$tmp/by_size.h.kept"
sed -i '/^#define MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT /d' "$tmp/src/mpi/coll/hier/hier_by_size.h"
out=$(python3 "$tmp/maint/gen-cvars.py" "$tmp" 2>&1) && fail "a missing default macro was accepted"
[ "$out" = "gen-cvars: hier_by_size.h defines no integer MPII_HIER_ALLGATHER_SEGSIZE_DEFAULT" ] ||
    fail "missing macro: $out"
cp "$tmp/by_size.h.kept" "$tmp/src/mpi/coll/hier/hier_by_size.h"
awk '/name *: *MPIR_CVAR_ALLGATHER_HIER_SEGSIZE$/ {on=1} on && /default *:/ {on=0; next} {print}' \
    "$tmp/src/mpi/coll/hier/cvars.txt" > "$tmp/cvars.txt.cut"
cp "$tmp/cvars.txt.cut" "$tmp/src/mpi/coll/hier/cvars.txt"
out=$(python3 "$tmp/maint/gen-cvars.py" "$tmp" 2>&1) && fail "a CVAR without a default line was accepted"
[ "$out" = "gen-cvars: cvars.txt has no default line for MPIR_CVAR_ALLGATHER_HIER_SEGSIZE" ] ||
    fail "missing default line: $out"
# bad input: one line naming what is wrong, no traceback
for args in "/nonexistent" "--bogus" "a b"; do
    # shellcheck disable=SC2086
    out=$(python3 "$srcdir/maint/gen-cvars.py" $args 2>&1) && fail "gen-cvars accepted $args"
    [ "$(echo "$out" | wc -l)" = 1 ] && echo "$out" | grep -q "^gen-cvars: " ||
        fail "gen-cvars $args: $out"
done
echo "cvars.txt is current; a new grammar item is written where the grammar puts it; a default follows hier_by_size.h; a missing default macro or line, and bad arguments, refused"
