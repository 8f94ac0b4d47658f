#!/usr/bin/env bash
# maint/upstream-series writes the plugin as a git format-patch series that `git am` applies
# on a fresh git repository of pristine MPICH 5.0.1: every patch applies; the first ones are
# maint/patches and the next one is what maint/gen-registration.py writes (coll_algorithms.txt
# then lists the plugin's algorithms); the result's src/mpi/coll/hier is the repo's files
# that MPICH builds (hier_mpich_keys.h as maint/gen-mpich-keys.sh makes it), Makefile.mk
# last; a non-empty DIR or a missing source is refused with a message, nothing written.
# Env: MPICH_HIER_SRCDIR (set by make check; default: this script's repository),
#      MPICH_HIER_MPICH_SOURCE (MPICH 5.0.1's source, a directory or a tarball; default:
#      what maint/mpich-source.sh finds; SKIP without one).
set -euo pipefail
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
series=$srcdir/maint/upstream-series
hier=$srcdir/src/mpi/coll/hier
fail() { echo "FAIL: $*" >&2; exit 1; }

pristine=${MPICH_HIER_MPICH_SOURCE:-}
if [ -z "$pristine" ]; then
    pristine=$("$srcdir/maint/mpich-source.sh" 2> /dev/null) || {
        echo "SKIP: no MPICH 5.0.1 source found (set MPICH_HIER_MPICH_SOURCE)"
        exit 77
    }
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/upstream_series.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@localhost
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@localhost

# Refusals: a non-empty DIR, a missing source; nothing written either way
mkdir "$tmp/full"
echo keep > "$tmp/full/keep"
if "$series" "$tmp/full" "$pristine" 2> "$tmp/err"; then
    fail "upstream-series wrote into a non-empty directory"
fi
grep -q "not empty" "$tmp/err" || fail "no message for a non-empty DIR: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/full")" = keep ] || fail "upstream-series changed a non-empty DIR: $(ls -A "$tmp/full")"
if "$series" "$tmp/none" "$tmp/no-such-mpich.tar.xz" 2> "$tmp/err"; then
    fail "upstream-series ran without a source"
fi
grep -q "no pristine MPICH" "$tmp/err" || fail "no message for a missing source: $(cat "$tmp/err")"
[ ! -e "$tmp/none" ] || fail "upstream-series created DIR without a source"

# The series
"$series" "$tmp/series" "$pristine" 2> "$tmp/log" || { cat "$tmp/log" >&2; fail "upstream-series failed"; }
mapfile -t patches < <(ls "$tmp/series"/*.patch)
mapfile -t registration < <(ls "$srcdir"/maint/patches/*.patch)
nreg=${#registration[@]}
[ "${#patches[@]}" -gt $((nreg + 2)) ] || fail "only ${#patches[@]} patches: ${patches[*]}"

# The first patches are maint/patches, but for the series' "[PATCH n/m]"
subject() { sed 's/^Subject: \[PATCH [0-9]*\/[0-9]*\]/Subject: [PATCH]/' "$1"; }
for i in "${!registration[@]}"; do
    diff -u <(subject "${registration[$i]}") <(subject "${patches[$i]}") > /dev/null ||
        fail "patch $((i + 1)) of the series is not maint/patches/$(basename "${registration[$i]}")"
done
grep -q '^+++ b/src/mpi/coll/coll_algorithms.txt' "${patches[$nreg]}" ||
    fail "patch $((nreg + 1)) does not register the algorithms in coll_algorithms.txt"
grep -q '^+++ b/src/mpi/coll/hier/Makefile.mk' "${patches[-1]}" ||
    fail "the last patch does not add src/mpi/coll/hier/Makefile.mk"

# git am of the whole series on a fresh repository of pristine MPICH 5.0.1
tree=$tmp/mpich-5.0.1
mkdir "$tree"
if [ -d "$pristine" ]; then
    cp -a "$pristine/." "$tree/"
    rm -rf "$tree/.git"
else
    tar xf "$pristine" -C "$tree" --strip-components=1
fi
git -C "$tree" init -q
echo '* -text' > "$tree/.git/info/attributes"     # PRISTINE's bytes, CRLF files included
git -C "$tree" add -f -A .
git -C "$tree" commit -q -m "MPICH 5.0.1"
git -C "$tree" tag v5.0.1
git -C "$tree" am -q "${patches[@]}" 2> "$tmp/am" ||
    fail "git am stopped at $(git -C "$tree" am --show-current-patch=raw 2> /dev/null | sed -n 's/^Subject: //p'): $(cat "$tmp/am")"
applied=$(git -C "$tree" rev-list --count v5.0.1..HEAD)
[ "$applied" = "${#patches[@]}" ] || fail "$applied of ${#patches[@]} patches applied"
[ -z "$(git -C "$tree" status --porcelain)" ] || fail "the tree is not clean after git am"

# The registration is gen-registration.py's, literally
mkdir -p "$tmp/reg/src/mpi/coll"
for f in $(python3 "$srcdir/maint/gen-registration.py" --files); do
    git -C "$tree" show "HEAD~$((${#patches[@]} - nreg)):$f" > "$tmp/reg/$f"
done
python3 "$srcdir/maint/gen-registration.py" "$tmp/reg"
for f in $(python3 "$srcdir/maint/gen-registration.py" --files); do
    cmp -s "$tmp/reg/$f" "$tree/$f" || fail "$f of the series is not what gen-registration.py writes"
done
# and coll_algorithms.txt lists the plugin's algorithms in their sections
section_has() {
    awk -v sec="$1:" -v algo="$2" '/^[^ \t#]/ { in_sec = ($1 == sec) }
        in_sec && $0 ~ "^    " algo "[ \t]*$" { found = 1 } END { exit !found }' \
        "$tree/src/mpi/coll/coll_algorithms.txt"
}
for coll in bcast reduce allreduce allgather gather scatter barrier; do
    section_has "$coll-intra" hier || fail "coll_algorithms.txt's $coll-intra does not list hier"
done
section_has ibcast-intra tsp_hier || fail "coll_algorithms.txt's ibcast-intra does not list tsp_hier"

# src/mpi/coll/hier: the files MPICH builds (Makefile.mk, cvars.txt, what Makefile.mk names
# but does not write, and the headers those include), as in the repo; hier_mpich_keys.h
# generated
written=$("$srcdir/maint/made-by-make.sh" "$srcdir")
names=$(grep -oE 'src/mpi/coll/hier/[A-Za-z0-9_.+-]+' "$hier/Makefile.mk" | sed 's|.*/||' |
    grep -vxF -e hier_mpich_keys.h ${written:+-e "$written"} | sort -u)
[ -n "$written" ] || fail "Makefile.mk writes no hier_prefix.h (the prefix header)"
mkdir "$tmp/expect"
for f in Makefile.mk cvars.txt $names; do
    [ -f "$hier/$f" ] && cp "$hier/$f" "$tmp/expect/"
done
for f in $names; do
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$hier/$f"
done | sort -u | while read -r inc; do
    if [ "$inc" != hier_mpich_keys.h ] && [ -f "$hier/$inc" ]; then cp "$hier/$inc" "$tmp/expect/"; fi
done
(cd "$tmp" && sh "$srcdir/maint/gen-mpich-keys.sh" mpich-5.0.1) > "$tmp/expect/hier_mpich_keys.h"
diff -r "$tmp/expect" "$tree/src/mpi/coll/hier" > "$tmp/diff" ||
    fail "src/mpi/coll/hier after git am differs from the repo's built files:
$(head -40 "$tmp/diff")"
for f in hier_critical_path.c hier_critical_path.h; do
    [ ! -e "$tree/src/mpi/coll/hier/$f" ] || fail "the series carries $f, which MPICH does not build"
done

# The series' tree is the one this build compiled (with MPICH's warning flags, and tested):
# every file the series adds or changes is the same in the overlay's MPICH build tree
built=${MPICH_HIER_BUILDDIR:+$MPICH_HIER_BUILDDIR/mpich-5.0.1}
if [ -n "$built" ] && [ -d "$built/src/mpi/coll/hier" ]; then
    nfiles=0
    while read -r f; do
        # the generated keys name the tree they were read from in their first line
        skip=1
        [ "$(basename "$f")" = hier_mpich_keys.h ] && skip=2
        cmp -s <(tail -n +$skip "$tree/$f") <(tail -n +$skip "$built/$f") ||
            fail "$f of the series differs from the built tree's ($built)"
        nfiles=$((nfiles + 1))
    done < <(git -C "$tree" diff --name-only --diff-filter=AM v5.0.1..HEAD)
    echo "upstream-series: its $nfiles added or changed files are those of the built tree $built"
else
    echo "upstream-series: no built tree (MPICH_HIER_BUILDDIR), the series not compared with one"
fi

echo "upstream-series: ${#patches[@]} patches, git am on MPICH 5.0.1 applies all; the plugin and its registration as in the repo"
