#!/usr/bin/env bash
# Overlay the mpich-hier plugin onto a pristine MPICH 4.0.2 copy and regenerate.
#   overlay.sh PRISTINE(DIR|TARBALL) REPO DEST
# DEST is (re)created from PRISTINE when the registration patches change; otherwise
# only changed plugin files are copied in, so MPICH's make redoes only their work.
# Regeneration (autogen) keeps the timestamps of files whose content it did not change.
set -euo pipefail

pristine=$1 repo=$2 dest=$3
die() { echo "overlay: $*" >&2; exit 1; }

full_fingerprint() {
    cat "$repo"/maint/patches/*.patch "$repo/maint/overlay.sh" | sha256sum | cut -d' ' -f1
}

# What autogen turns into generated files: CVAR blocks, source lists, algorithm lists.
regen_fingerprint() {
    {
        cat "$repo/src/mpi/coll/hier/Makefile.mk"
        for f in "$repo"/src/mpi/coll/hier/*.c; do
            sed -n '/BEGIN_MPI_T_CVAR_INFO_BLOCK/,/END_MPI_T_CVAR_INFO_BLOCK/p' "$f"
        done
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
    for p in "$repo"/maint/patches/*.patch; do
        patch -d "$dest" -p1 --forward --no-backup-if-mismatch -s < "$p" ||
            die "patch $(basename "$p") does not apply: is this pristine MPICH 4.0.2?"
    done
}

# copy a file only when its content differs, so make sees only real changes
sync_file() {
    local from=$1 to=$2
    if ! cmp -s "$from" "$to"; then
        mkdir -p "$(dirname "$to")"
        cp "$from" "$to"
        echo "overlay: updated ${to#$dest/}" >&2
    fi
}

sync_plugin() {
    local f
    # sources only: a build in the repo may leave objects next to them
    for f in "$repo"/src/mpi/coll/hier/*.[ch] "$repo"/src/mpi/coll/hier/Makefile.mk; do
        sync_file "$f" "$dest/src/mpi/coll/hier/$(basename "$f")"
    done
    # plugin sources removed from the repo leave the copy too
    for f in "$dest"/src/mpi/coll/hier/*.[ch]; do
        [ -e "$repo/src/mpi/coll/hier/$(basename "$f")" ] || rm -f "$f"
    done
}

regenerate() {
    echo "overlay: regenerating (autogen.sh -quick)" >&2
    local snap
    snap=$(mktemp)
    python3 "$repo/maint/keep-mtimes.py" snapshot "$dest" "$snap"
    (cd "$dest" && ./autogen.sh -quick -without-hydra -without-test) \
        > "$dest/.mpich-hier-autogen.log" 2>&1 ||
        die "autogen failed, see $dest/.mpich-hier-autogen.log"
    python3 "$repo/maint/keep-mtimes.py" restore "$dest" "$snap"
    rm -f "$snap"
}

full=$(full_fingerprint)
regen=$(regen_fingerprint)
if [ "$(cat "$dest/.mpich-hier-overlay" 2>/dev/null)" != "$full" ]; then
    fresh_copy
    sync_plugin
    regenerate
    echo "$full" > "$dest/.mpich-hier-overlay"
    echo "$regen" > "$dest/.mpich-hier-regen"
else
    sync_plugin
    if [ "$(cat "$dest/.mpich-hier-regen" 2>/dev/null)" != "$regen" ]; then
        regenerate
        echo "$regen" > "$dest/.mpich-hier-regen"
    fi
fi
