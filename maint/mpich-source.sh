#!/usr/bin/env bash
# Get a pristine MPICH 4.0.2 source tree and print its path.
#   mpich-source.sh [DIR|TARBALL]
# With no argument: the orig tarball of Debian's source package mpich 4.0.2-3, cached in
# ${MPICH_HIER_CACHE:-~/.cache/mpich-hier}, its sha256 verified.  A tarball or directory
# the user names must be MPICH 4.0.2.  Nothing is ever modified in the user's tree.
set -euo pipefail

readonly VERSION=4.0.2
readonly DEBIAN_VERSION=4.0.2-3
readonly ORIG=mpich_${VERSION}.orig.tar.xz
readonly ORIG_SHA256=b27039f964afeb6b8a3e009c56b441cbe368c26d6d6476ad3bb7190996875860
cache=${MPICH_HIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mpich-hier}

die() { echo "mpich-source: $*" >&2; exit 1; }

check_version_dir() {
    local dir=$1 v
    [ -f "$dir/maint/version.m4" ] || die "$dir is not an MPICH source tree (no maint/version.m4)"
    v=$(sed -n 's/^m4_define(\[MPICH_VERSION_m4\],\[\([^]]*\)\]).*/\1/p' "$dir/maint/version.m4")
    [ "$v" = "$VERSION" ] || die "$dir is MPICH '${v:-unknown}', mpich-hier needs MPICH $VERSION"
}

fetch_debian_orig() {
    mkdir -p "$cache"
    if [ ! -f "$cache/$ORIG" ]; then
        command -v apt-get >/dev/null || die "no apt-get: pass --with-mpich-source=DIR|TARBALL"
        if ! apt-cache showsrc mpich 2>/dev/null | grep -q "^Version: $DEBIAN_VERSION"; then
            [ "$(id -u)" = 0 ] || die "Debian source packages are not enabled; as root run:
  sed 's/^Types: deb\$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources > /etc/apt/sources.list.d/debian-src.sources && apt-get update
or pass --with-mpich-source=DIR|TARBALL"
            sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
                > /etc/apt/sources.list.d/debian-src.sources
            apt-get update -q >&2
        fi
        (cd "$cache" && apt-get source --download-only "mpich=$DEBIAN_VERSION" >&2) ||
            die "could not download the Debian source package mpich=$DEBIAN_VERSION"
    fi
    echo "$ORIG_SHA256  $cache/$ORIG" | sha256sum -c --quiet - >&2 ||
        die "$cache/$ORIG does not have the pinned sha256 $ORIG_SHA256 (remove it to refetch)"
    echo "$cache/$ORIG"
}

src=${1:-}
if [ -z "$src" ]; then
    src=$(fetch_debian_orig)
fi
[ -e "$src" ] || die "no such file or directory: $src"
src=$(realpath "$src")
if [ -d "$src" ]; then
    check_version_dir "$src"
elif [ -f "$src" ]; then
    top=$(tar tf "$src" 2>/dev/null | head -1 | cut -d/ -f1) || true
    [ -n "$top" ] || die "$src is not a readable tarball"
    v=$(tar xOf "$src" "$top/maint/version.m4" 2>/dev/null |
        sed -n 's/^m4_define(\[MPICH_VERSION_m4\],\[\([^]]*\)\]).*/\1/p') || true
    [ "$v" = "$VERSION" ] || die "$src is MPICH '${v:-unknown}', mpich-hier needs MPICH $VERSION"
else
    die "$src is neither a directory nor a tarball"
fi
echo "$src"
