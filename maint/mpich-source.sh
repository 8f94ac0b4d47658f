#!/usr/bin/env bash
# Find a pristine MPICH 5.0.1 source and print its path (a tarball or a directory).
#   mpich-source.sh [DIR|TARBALL]
# Accepted: mpich.org's release tarball (mpich-5.0.1.tar.gz, configure generated), the git
# export of this project's machines (../shared/mpich/mpich-5.0.1-src.tar.xz, no configure),
# or a source directory (an unpacked release or a git checkout with its submodules).  Every
# accepted file has its sha256 pinned below.  With no argument: the shared export where it
# exists, else the release tarball in ${MPICH_HIER_CACHE:-~/.cache/mpich-hier}.  Whether
# autogen must run (no configure) is maint/overlay.sh's business.  Nothing is ever modified
# in the user's tree.
set -euo pipefail

readonly VERSION=5.0.1
readonly RELEASE=mpich-$VERSION.tar.gz
readonly RELEASE_URL=https://www.mpich.org/static/downloads/$VERSION/$RELEASE
# the release tarball's sha256 as Spack's mpich package pins it
readonly RELEASE_SHA256=8c1832a13ddacf071685069f5fadfd1f2877a29e1a628652892c65211b1f3327
# `git archive v5.0.1` with the json-c submodule filled in (../shared/mpich/README.md)
readonly EXPORT=mpich-$VERSION-src.tar.xz
readonly EXPORT_SHA256=ed11f3b29274c0a38e7459ea1803811fa41a79027d1a7f3520e911d49d8d97b1
repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${MPICH_HIER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mpich-hier}

die() { echo "mpich-source: $*" >&2; exit 1; }

version_of_m4() {
    sed -n 's/^m4_define(\[MPICH_VERSION_m4\],\[\([^]]*\)\]).*/\1/p'
}

check_dir() {
    local dir=$1 v
    [ -f "$dir/maint/version.m4" ] || die "$dir is not an MPICH source tree (no maint/version.m4)"
    v=$(version_of_m4 < "$dir/maint/version.m4")
    [ "$v" = "$VERSION" ] || die "$dir is MPICH '${v:-unknown}', mpich-hier needs MPICH $VERSION"
    [ -f "$dir/configure" ] || [ -f "$dir/modules/json-c/json.h.cmake" ] ||
        [ -f "$dir/modules/json-c/json_object.h" ] ||
        die "$dir is a git checkout without its submodules: run git submodule update --init"
}

check_tarball() {
    local file=$1 sum
    sum=$(sha256sum "$file" | cut -d' ' -f1)
    case $sum in
        "$RELEASE_SHA256" | "$EXPORT_SHA256") ;;
        *) die "$file has sha256 $sum; mpich-hier accepts MPICH $VERSION as
  $RELEASE ($RELEASE_URL), sha256 $RELEASE_SHA256
  $EXPORT (this project's git export, ../shared/mpich), sha256 $EXPORT_SHA256
or a source directory (an unpacked release, a git checkout with submodules)" ;;
    esac
}

src=${1:-}
if [ -z "$src" ]; then
    for f in "$repo/../shared/mpich/$EXPORT" "$cache/$RELEASE"; do
        [ -f "$f" ] && { src=$f; break; }
    done
    [ -n "$src" ] || die "no MPICH $VERSION source found.  Download the release:
  mkdir -p $cache && curl -Lo $cache/$RELEASE $RELEASE_URL
  (sha256 $RELEASE_SHA256)
or pass --with-mpich-source=DIR|TARBALL"
fi
[ -e "$src" ] || die "no such file or directory: $src"
src=$(realpath "$src")
if [ -d "$src" ]; then
    check_dir "$src"
elif [ -f "$src" ]; then
    check_tarball "$src"
else
    die "$src is neither a directory nor a tarball"
fi
echo "$src"
