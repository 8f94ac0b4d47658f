#!/bin/sh
# gen-cvar-enums.sh MPIR_CVARS_H > mpich_cvar_enums.inc
#
# MPICH 4.0.2 registers its enum control variables (MPIR_CVAR_*_ALGORITHM, ...)
# with MPI_T_ENUM_NULL, so MPI_T gives no item names.  Their items are the C
# enums "enum <NAME>_choice { MPIR_CVAR_<NAME>_<item>, ... }" of the generated
# mpir_cvars.h in the MPICH build tree, in value order (0, 1, ...).  This
# writes them as a C++ raw string literal, one "MPIR_CVAR_<NAME> item item ..."
# line per variable, for tools/src/mpi_cvars.cpp; at run time hiertune checks
# each list against the library's MPI_T description before trusting it.
set -eu
header=${1:?usage: gen-cvar-enums.sh MPIR_CVARS_H}
[ -r "$header" ] || { echo "gen-cvar-enums: cannot read $header" >&2; exit 1; }
echo 'R"HIERTUNE_ENUMS('
awk '
    /^enum [A-Za-z0-9_]+_choice *\{/ {
        name = $2; sub(/_choice$/, "", name); name = "MPIR_CVAR_" name
        line = name; inside = 1; next
    }
    inside && /\}/ {
        print line
        inside = 0; next
    }
    inside {
        item = $0; gsub(/[ \t,]/, "", item)
        if (item == "") next
        prefix = name "_"
        if (substr(item, 1, length(prefix)) != prefix) { bad = 1; exit }
        line = line " " substr(item, length(prefix) + 1)
    }
    END { if (bad || inside) { print "gen-cvar-enums: unexpected enum layout" > "/dev/stderr"; exit 1 } }
' "$header"
echo ')HIERTUNE_ENUMS"'
