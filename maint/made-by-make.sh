#!/bin/sh
# made-by-make.sh REPO: the files of src/mpi/coll/hier that MPICH's make writes (a rule of
# src/mpi/coll/hier/Makefile.mk makes each), one name a line.  Neither the overlay nor the
# upstream series carries them, and the overlay leaves them in its tree.
sed -n 's|^src/mpi/coll/hier/\([A-Za-z0-9_.+-]*\):.*|\1|p' "$1/src/mpi/coll/hier/Makefile.mk"
