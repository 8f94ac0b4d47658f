#!/usr/bin/env sh
# The environment-modules / Lmod modulefile of an mpich-hier install, on stdout.
#   modulefile.sh PREFIX MPICH_VERSION SRCDIR
# make writes it to PREFIX/share/modulefiles/mpich-hier/MPICH_VERSION; the site tree's
# place comes from src/mpi/coll/hier/hier_site.h.
set -eu
prefix=$1 version=$2 srcdir=$3
site_h=$srcdir/src/mpi/coll/hier/hier_site.h
dir=$(sed -n 's/^#define MPII_HIER_SITE_TREE_DIR "\(.*\)"$/\1/p' "$site_h")
name=$(sed -n 's/^#define MPII_HIER_SITE_TREE_NAME "\(.*\)"$/\1/p' "$site_h")
[ -n "$dir" ] && [ -n "$name" ] || { echo "modulefile.sh: no site tree path in $site_h" >&2; exit 1; }
cat <<MODULE
#%Module1.0
## mpich-hier: MPICH $version with hierarchical collectives, in $prefix
## (written by make, maint/modulefile.sh)

proc ModulesHelp { } {
    puts stderr "MPICH $version with the mpich-hier collectives, installed in $prefix."
    puts stderr "Every job loads the site's tuned tree $prefix/$dir/$name when one is installed"
    puts stderr "(hiertune install-tree); MPIR_CVAR_HIER_SITE_TREE=0 leaves it out, and"
    puts stderr "MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE names a tree of the job's own."
    puts stderr "'hiertune show-tree' shows the installed tree and whether MPI_Init loads it."
}
module-whatis "MPICH $version with mpich-hier hierarchical collectives ($prefix)"

set prefix {$prefix}
prepend-path PATH            \$prefix/bin
prepend-path LD_LIBRARY_PATH \$prefix/lib
prepend-path MANPATH         \$prefix/share/man
prepend-path PKG_CONFIG_PATH \$prefix/lib/pkgconfig
setenv MPICH_HIER_ROOT       \$prefix
setenv MPICH_HIER_SITE_TREE_FILE \$prefix/$dir/$name
MODULE
