#!/usr/bin/env bash
# Overlay the mpich-hier plugin onto a pristine MPICH 5.0.1 copy and regenerate.
#   overlay.sh PRISTINE(DIR|TARBALL) REPO DEST
# DEST is created from PRISTINE once.  Later runs copy in only the plugin files that
# changed and, when the registration (maint/patches, and the grammar's algorithms that
# maint/gen-registration.py adds to MPICH's lists) changed, only the MPICH files it
# touches, so MPICH's make redoes only the work that depends on them.
# Regeneration (autogen) keeps the timestamps of files whose content it did not change.
# A source without a generated configure (a git export or checkout) gets MPICH's whole
# autogen once, the test suite included (test/mpi runs the MPI tests); later runs, and a
# release tarball, the quick one.
set -euo pipefail

pristine=$1 repo=$2 dest=$3
die() { echo "overlay: $*" >&2; exit 1; }

registration() {
    cat "$repo"/maint/patches/*.patch "$repo/maint/gen-registration.py" \
        "$repo/src/mpi/coll/hier/hier_grammar.h" "$repo/test/mpi/hier_grammar.py"
}

patch_fingerprint() {
    registration | sha256sum | cut -d' ' -f1
}

# MPICH files the registration touches, relative to the tree's top
patched_files() {
    {
        sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$repo"/maint/patches/*.patch
        python3 "$repo/maint/gen-registration.py" --files
    } | sort -u
}

# What autogen turns into generated files: CVAR blocks, source lists, algorithm lists.
regen_fingerprint() {
    {
        registration
        cat "$repo/src/mpi/coll/hier/Makefile.mk" "$repo/src/mpi/coll/hier/cvars.txt"
    } | sha256sum | cut -d' ' -f1
}

fresh_copy() {
    echo "overlay: fresh copy of $pristine -> $dest" >&2
    rm -rf "$dest"
    mkdir -p "$dest"
    if [ -d "$pristine" ]; then
        cp -a "$pristine/." "$dest/"
    else
        tar xf "$pristine" -C "$dest" --strip-components=1
    fi
    apply_patches "$dest"
}

apply_patches() {
    local p
    for p in "$repo"/maint/patches/*.patch; do
        # no fuzz: a hunk that finds its context only approximately lands in the wrong
        # function of ch4_coll.h's look-alike wrappers
        patch -d "$1" -p1 --forward --fuzz=0 --no-backup-if-mismatch -s < "$p" ||
            die "patch $(basename "$p") does not apply: is this pristine MPICH 5.0.1?"
    done
    python3 "$repo/maint/gen-registration.py" "$1" ||
        die "cannot register the grammar's algorithms in $1"
}

# Patches changed on an overlaid tree: rebuild only the files they touch (now or
# before) from pristine, so make redoes only the work that depends on them.
repatch() {
    local tmp f
    tmp=$(mktemp -d)
    { patched_files; cat "$dest/.mpich-hier-patched-files" 2>/dev/null || true; } | sort -u > "$tmp/files"
    mkdir "$tmp/tree"
    if [ -d "$pristine" ]; then
        (cd "$pristine" && xargs -a "$tmp/files" cp --parents -t "$tmp/tree" 2>/dev/null) || true
    else
        local top
        top=$(set +o pipefail; tar tf "$pristine" | head -1 | cut -d/ -f1)
        sed "s|^|$top/|" "$tmp/files" > "$tmp/members"
        tar xf "$pristine" -C "$tmp/tree" --strip-components=1 -T "$tmp/members" 2>/dev/null || true
    fi
    echo "overlay: registration changed, re-applying it" >&2
    apply_patches "$tmp/tree"
    while read -r f; do
        if [ -e "$tmp/tree/$f" ]; then
            sync_file "$tmp/tree/$f" "$dest/$f"
        else
            rm -f "$dest/$f"        # a file only a patch created
        fi
    done < "$tmp/files"
    rm -rf "$tmp"
}

# copy a file only when its content differs, so make sees only real changes
sync_file() {
    local from=$1 to=$2
    if ! cmp -s "$from" "$to"; then
        mkdir -p "$(dirname "$to")"
        cp "$from" "$to"
        echo "overlay: updated ${to#"$dest"/}" >&2
    fi
}

sync_plugin() {
    local f
    python3 "$repo/maint/gen-cvars.py" --check "$repo" ||
        die "src/mpi/coll/hier/cvars.txt does not list the grammar's items: run maint/gen-cvars.py"
    # sources only: a build in the repo may leave objects next to them
    for f in "$repo"/src/mpi/coll/hier/*.[ch] "$repo"/src/mpi/coll/hier/Makefile.mk \
        "$repo"/src/mpi/coll/hier/cvars.txt; do
        sync_file "$f" "$dest/src/mpi/coll/hier/$(basename "$f")"
    done
    # plugin sources removed from the repo leave the copy too (not the generated headers:
    # hier_mpich_keys.h, below, and what MPICH's make writes)
    local made
    made=$("$repo/maint/made-by-make.sh" "$repo")
    for f in "$dest"/src/mpi/coll/hier/*.[ch]; do
        [ "$(basename "$f")" = hier_mpich_keys.h ] || grep -qxF "$(basename "$f")" <<< "$made" ||
            [ -e "$repo/src/mpi/coll/hier/$(basename "$f")" ] || rm -f "$f"
    done
    # the Csel keys this MPICH knows, for the plugin's tree check
    local keys
    keys=$(mktemp)
    sh "$repo/maint/gen-mpich-keys.sh" "$dest" > "$keys" || die "cannot list MPICH's Csel keys"
    sync_file "$keys" "$dest/src/mpi/coll/hier/hier_mpich_keys.h"
    rm -f "$keys"
}

# MPICH's autogen takes minutes and reads only the pristine source, what regen_fingerprint
# hashes and the autotools: after it ran on a fresh copy of a (sha-pinned) tarball, what it
# wrote is kept in a cache outside the repo, as ccache keeps compiles, and the next fresh
# copy with the same key gets it back instead of running autogen.  The newest 3 are kept.
autogen_cache=${MPICH_HIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mpich-hier}/autogen

autogen_key() {
    [ -f "$pristine" ] || return 1
    {
        sha256sum < "$pristine"
        echo "$regen_now $1"
        autoconf --version | head -1; automake --version | head -1; libtoolize --version | head -1
        python3 --version; perl -e 'print "$^V\n"'
    } | sha256sum | cut -c1-32
}

# STATE KEY: store what autogen wrote (and removed) on this fresh copy; a cache that
# cannot be written is skipped (called in a list, so set -e does not act here)
store_autogen() {
    local tmp
    mkdir -p "$autogen_cache" && tmp=$(mktemp -d "$autogen_cache/.new.XXXXXX") || return 0
    if python3 "$repo/maint/keep-mtimes.py" changed "$dest" "$1" > "$tmp/list" &&
        sed '/^-$/,$d' "$tmp/list" > "$tmp/written" && [ -s "$tmp/written" ] &&
        sed '1,/^-$/d' "$tmp/list" > "$tmp/removed" &&
        tar -C "$dest" -czf "$tmp/written.tar.gz" -T "$tmp/written" &&
        mv -T "$tmp" "$autogen_cache/$2" 2> /dev/null; then
        echo "overlay: autogen's output kept in $autogen_cache/$2" >&2
    fi
    rm -rf "$tmp"
    # shellcheck disable=SC2012
    ls -dt "$autogen_cache"/*/ 2> /dev/null | tail -n +4 | xargs -r rm -rf
}

# ENTRY: put a stored autogen output back, newer than its inputs and in its own order
put_back_autogen() {
    echo "overlay: autogen's output from $1" >&2
    tar -C "$dest" -xzf "$1/written.tar.gz" &&
        (cd "$dest" && xargs -r -d '\n' rm -f < "$1/removed") &&
        python3 "$repo/maint/keep-mtimes.py" order "$dest" "$1/written"
}

# fresh: a fresh copy, whose autogen output the cache may hold
regenerate() {
    local snap args key=
    if [ -f "$dest/configure" ] && [ -f "$dest/src/pm/hydra/configure" ] &&
        [ -f "$dest/test/mpi/configure" ]; then
        args="-quick -without-hydra -without-test"
    else
        # hwloc and libfabric are Debian's (modules/ has no copies), UCX is not used
        args="-without-hwloc -without-ofi -without-ucx"
    fi
    if [ "${1:-}" = fresh ] && key=$(autogen_key "$args") && [ -d "$autogen_cache/$key" ]; then
        put_back_autogen "$autogen_cache/$key" && return
        echo "overlay: $autogen_cache/$key does not put back: dropped, running autogen" >&2
        rm -rf "${autogen_cache:?}/$key"
    fi
    echo "overlay: regenerating (autogen.sh $args)" >&2
    snap=$(mktemp)
    python3 "$repo/maint/keep-mtimes.py" snapshot "$dest" "$snap"
    # -quick skips the autotools check that sets AUTORECONF (MPICH's CI exports it)
    # shellcheck disable=SC2086
    (cd "$dest" && AUTORECONF=${AUTORECONF:-autoreconf} ./autogen.sh $args) \
        > "$dest/.mpich-hier-autogen.log" 2>&1 ||
        die "autogen failed, see $dest/.mpich-hier-autogen.log"
    python3 "$repo/maint/keep-mtimes.py" restore "$dest" "$snap"
    [ -z "$key" ] || store_autogen "$snap" "$key"
    rm -f "$snap"
}

# A tree is overlaid once from its pristine source; later runs bring it up to date.  The
# fingerprints are taken before anything is copied: an edit made while this runs is seen
# by the next run.
patches_now=$(patch_fingerprint) regen_now=$(regen_fingerprint) files_now=$(patched_files)
if [ "$(cat "$dest/.mpich-hier-source" 2>/dev/null)" != "$pristine" ]; then
    fresh_copy
    sync_plugin
    regenerate fresh
    echo "$pristine" > "$dest/.mpich-hier-source"
else
    if [ "$(cat "$dest/.mpich-hier-patches" 2>/dev/null)" != "$patches_now" ]; then
        repatch
    fi
    sync_plugin
    if [ "$(cat "$dest/.mpich-hier-regen" 2>/dev/null)" != "$regen_now" ]; then
        regenerate
    fi
fi
echo "$patches_now" > "$dest/.mpich-hier-patches"
echo "$files_now" > "$dest/.mpich-hier-patched-files"
echo "$regen_now" > "$dest/.mpich-hier-regen"
