#!/usr/bin/env bash
# Build and install MPICH 5.0.1 with the mpich-hier plugin, incrementally.
#   build-mpich.sh REPO BUILDDIR PREFIX PROFILE JOBS [MPICH_SOURCE]
# PROFILE: fast (shared libs only, no Fortran, no ROMIO: tests and CI) or
#          full (static and shared, Fortran, ROMIO: real installs).
set -euo pipefail

repo=$1 builddir=$2 prefix=$3 profile=$4 jobs=$5 source=${6:-}
tree=$builddir/mpich-5.0.1
log=$builddir/mpich-build.log
die() { echo "build-mpich: $*" >&2; exit 1; }

# two makes in one build tree (e.g. `make check` beside `make`) would overlay and
# compile the same MPICH tree at once: the second waits for the first
mkdir -p "$builddir"
exec 9> "$builddir/.build-mpich.lock"
if ! flock -n 9; then
    echo "build-mpich: another build of $tree is running; waiting for it" >&2
    flock 9
fi

case $profile in
    fast) profile_args="--disable-fortran --disable-romio --disable-static --enable-shared" ;;
    full) profile_args="--enable-fortran=all --enable-romio --enable-static --enable-shared" ;;
    *) die "unknown profile '$profile' (fast or full)" ;;
esac

pristine=$("$repo/maint/mpich-source.sh" $source)
"$repo/maint/overlay.sh" "$pristine" "$repo" "$tree"

cc=gcc cxx=g++
if command -v ccache >/dev/null; then
    # the cache lives outside the repo; paths under builddir hash as relative ones,
    # so fresh clones elsewhere still hit it
    cc="ccache gcc" cxx="ccache g++"
    export CCACHE_BASEDIR=$builddir CCACHE_NOHASHDIR=1
fi

config_args="--prefix=$prefix --with-device=ch4:ofi --with-libfabric=/usr --with-hwloc=/usr
    --without-ucx --enable-fast=O2 --enable-g=none --enable-silent-rules $profile_args"
if [ ! -f "$tree/Makefile" ] || [ "$(cat "$tree/.mpich-hier-configure" 2>/dev/null)" != "$cc $config_args" ]; then
    echo "build-mpich: configuring MPICH ($profile profile), log in $log" >&2
    # shellcheck disable=SC2086
    (cd "$tree" && ./configure CC="$cc" CXX="$cxx" $config_args) > "$log" 2>&1 ||
        die "MPICH configure failed, see $log"
    echo "$cc $config_args" > "$tree/.mpich-hier-configure"
fi

echo "build-mpich: building MPICH, log in $log" >&2
(cd "$tree" && make -j"$jobs" && make install) >> "$log" 2>&1 ||
    { tail -30 "$log" >&2; die "MPICH build failed, see $log"; }
echo "build-mpich: installed in $prefix" >&2
