#!/usr/bin/env bash
# The modulefile make writes into the prefix, as a user meets it with Debian's
# environment-modules: `module load` puts this MPICH first (its mpicc builds, its mpiexec
# runs a job) and names the site tree's place; `module unload` takes it all back.
# Env: MPICH_HIER_PREFIX (set by make check).
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
fail() { echo "FAIL: $*" >&2; exit 1; }
init=/usr/share/modules/init/bash
[ -r "$init" ] || fail "no $init: install Debian's environment-modules (./quickstart installs it)"
version=$("$prefix/bin/mpichversion" | sed -n 's/^MPICH Version:[[:space:]]*//p')
[ -r "$prefix/share/modulefiles/mpich-hier/$version" ] ||
    fail "no modulefile $prefix/share/modulefiles/mpich-hier/$version (make writes it)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/modulefile.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# a user's shell: not this MPICH on PATH before the load (a system MPI may be: Debian's
# Open MPI, which bench/peers.sh installs, puts /usr/bin/mpiexec there)
export PATH=/usr/local/bin:/usr/bin:/bin
unset LD_LIBRARY_PATH MANPATH PKG_CONFIG_PATH MPICH_HIER_ROOT MPICH_HIER_SITE_TREE_FILE || true
mpiexec_before=$(command -v mpiexec || true)
set +u
# shellcheck disable=SC1090
. "$init"
module use "$prefix/share/modulefiles"
module load mpich-hier || fail "module load mpich-hier failed"
set -u
[ "$(command -v mpiexec)" = "$prefix/bin/mpiexec" ] || fail "mpiexec is $(command -v mpiexec), not $prefix's"
[ "$(command -v mpicc)" = "$prefix/bin/mpicc" ] || fail "mpicc is $(command -v mpicc), not $prefix's"
case ":$LD_LIBRARY_PATH:" in *":$prefix/lib:"*) ;; *) fail "LD_LIBRARY_PATH=$LD_LIBRARY_PATH lacks $prefix/lib" ;; esac
case ":$PKG_CONFIG_PATH:" in *":$prefix/lib/pkgconfig:"*) ;; *) fail "PKG_CONFIG_PATH lacks $prefix/lib/pkgconfig" ;; esac
[ "$MPICH_HIER_ROOT" = "$prefix" ] || fail "MPICH_HIER_ROOT=$MPICH_HIER_ROOT"
[ "$MPICH_HIER_SITE_TREE_FILE" = "$prefix/share/mpich-hier/tuning.json" ] ||
    fail "MPICH_HIER_SITE_TREE_FILE=$MPICH_HIER_SITE_TREE_FILE"
module whatis mpich-hier > "$tmp/whatis" 2>&1
grep -q "MPICH $version with mpich-hier" "$tmp/whatis" || fail "module whatis: $(cat "$tmp/whatis")"

# an MPI job from the loaded environment: this MPICH's library, on 2 ranks
cat > "$tmp/hello.c" <<'C'
#include <mpi.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, rank, size, sum;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Get_library_version(version, &len);
    if (rank == 0)
        printf("ranks %d sum %d %s\n", size, sum, strstr(version, "MPICH Version:") ? "MPICH" : version);
    MPI_Finalize();
    return 0;
}
C
mpicc -o "$tmp/hello" "$tmp/hello.c" || fail "mpicc of the loaded module failed"
FI_PROVIDER=tcp FI_TCP_IFACE=lo MPIEXEC_TIMEOUT=60 mpiexec -n 2 "$tmp/hello" > "$tmp/out" 2>&1 ||
    fail "mpiexec -n 2: $(cat "$tmp/out")"
grep -qx "ranks 2 sum 1 MPICH" "$tmp/out" || fail "the job said: $(cat "$tmp/out")"
ldd "$tmp/hello" > "$tmp/ldd"
grep -q "=> $prefix/lib/libmpi" "$tmp/ldd" || fail "hello is not linked to $prefix's libmpi: $(cat "$tmp/ldd")"

set +u
module unload mpich-hier
set -u
[ "$(command -v mpiexec || true)" = "$mpiexec_before" ] ||
    fail "mpiexec after unload is $(command -v mpiexec), before the load it was '${mpiexec_before}'"
[ -z "${MPICH_HIER_ROOT:-}" ] || fail "MPICH_HIER_ROOT still set after unload"
echo "PASS: modulefile"
