#!/bin/sh
# gen-mpich-keys.sh MPICH_SRCDIR > hier_mpich_keys.h
#
# The keys MPICH's Csel parser knows, taken from its own source so that the plugin's
# tree check (src/mpi/coll/hier/hier_grammar.c) and hiertune accept exactly what this
# MPICH accepts: an unknown key makes MPICH assert when it reads a tree.
#   MPII_HIER_MPICH_COLLECTIVES(X)   "collective=NAME" names (src/mpi/coll/src/csel.c)
#   MPII_HIER_MPICH_CONDITIONS(X)    condition keys tested whole (csel.c)
#   MPII_HIER_MPICH_BOUNDS(X)        condition keys followed by a number (csel.c)
#   MPII_HIER_MPICH_ALGORITHMS(X)    MPIR containers (src/mpi/coll/src/csel_container.c)
#   MPII_HIER_MPICH_ALGORITHM_PARAMS(X)  X("container", "param"): the "param=VALUE" keys
#                                    MPICH reads for its container (csel_container.c's
#                                    parse_container_params; it ignores any other)
#   MPII_HIER_MPICH_ALGORITHM_CVARS(X)  X("container", "param", "CVAR", "default"): the
#                                    parameters MPICH passes from the container to the
#                                    algorithm (coll_algorithms.txt's extra_params), the
#                                    variable that gives it when the algorithm is forced
#                                    (cvar_params) and that variable's default (cvars.txt;
#                                    booleans as 0/1).  MPICH does not initialise them: a
#                                    tree must give each one.
#   MPII_HIER_MPICH_UNREAD_PARAMS(X)  X("container", "param"): a parameter MPICH passes to
#                                    the algorithm that its container parser never reads,
#                                    so a tree cannot give it and the algorithm gets an
#                                    uninitialised value (e.g. MPIR_Igather_intra_tsp_tree's
#                                    k): hiertune never names such a container
#   MPII_HIER_MPICH_COMPOSITIONS(X)  CH4 containers (src/mpid/ch4/src/ch4_init.c)
#   MPII_HIER_MPICH_KEY_COLLECTIVES(X)  X("key", "collective"): the collectives MPICH
#                                    defines a per-collective key for (csel.c's
#                                    is_commutative(), get_avg_msgsize(), ...: it aborts
#                                    on the others when it evaluates the key)
set -eu
src=${1:?usage: gen-mpich-keys.sh MPICH_SRCDIR}
csel=$src/src/mpi/coll/src/csel.c
containers=$src/src/mpi/coll/src/csel_container.c
ch4=$src/src/mpid/ch4/src/ch4_init.c
algorithms=$src/src/mpi/coll/coll_algorithms.txt
cvars=$src/src/mpi/coll/cvars.txt
for f in "$csel" "$containers" "$ch4" "$algorithms" "$cvars"; do
    [ -r "$f" ] || { echo "gen-mpich-keys: cannot read $f" >&2; exit 1; }
done

# one X("...") line per string, sorted, in a macro named $1
table() {
    printf '#define %s(X) \\\n' "$1"
    sort -u | sed 's/.*/    X("&") \\/'
    printf '\n'
}
nonempty() {
    n=$(wc -l < "$1")
    [ "$n" -gt 0 ] || { echo "gen-mpich-keys: no $2 found: is this MPICH 5.0.1?" >&2; exit 1; }
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed -n 's/.*!strcmp(str, "\([a-z_]*\)").*/\1/p' "$csel" > "$tmp/collectives"
sed -n 's/.*!strcmp(ckey, "\([a-z_]*[=<][a-z_0-9]*\)").*/\1/p' "$csel" > "$tmp/conditions"
sed -n 's/.*!strncmp(ckey, "\([a-z_]*<=*\)",.*/\1/p' "$csel" > "$tmp/bounds"
sed -n 's/.*"algorithm=\(MPIR_[A-Za-z0-9_]*\)".*/\1/p' "$containers" > "$tmp/algorithms"
sed -n 's/.*"composition=\(MPIDI_[A-Za-z0-9_]*\)".*/\1/p' "$ch4" > "$tmp/compositions"
# the cases of csel.c's function FN, each as "KEY collective"
key_collectives() {
    awk -v fn="$1" -v key="$2" '
        $0 ~ "^static inline [A-Za-z_]+ " fn "\\(" { on = 1; next }
        on && /^}/ { exit }
        on && match($0, /case MPIR_CSEL_COLL_TYPE__[A-Z_]+:/) {
            print key " " tolower(substr($0, RSTART + 26, RLENGTH - 27))
        }' "$csel"
}
# parse_container_params, each parameter as "CONTAINER param"
awk '
    /^static void parse_container_params\(/ { on = 1; next }
    on && /^}/ { exit }
    on && match($0, /case MPII_CSEL_CONTAINER_TYPE__ALGORITHM__[A-Za-z0-9_]+:/) {
        algo = substr($0, RSTART, RLENGTH - 1); sub(/.*__ALGORITHM__/, "", algo)
    }
    on && match($0, /strn?cmp\(ckey, "[a-z_0-9]+=/) {
        p = substr($0, RSTART, RLENGTH - 1); sub(/.*"/, "", p); print algo " " p
    }' "$containers" > "$tmp/algorithm_params"
# the defaults of the collective variables, each as "CVAR default" (the first definition)
awk '
    /^ *- name *:/ { name = $NF }
    /^ *default *:/ && name != "" && !(name in seen) {
        v = $NF; if (v == "true") v = 1; if (v == "false") v = 0
        seen[name] = 1; print name " " v
    }' "$cvars" > "$tmp/cvar_defaults"
# coll_algorithms.txt: per algorithm of a "coll-intra:" section, its extra_params paired
# with its cvar_params, each as "CONTAINER param CVAR" ("-": a constant, no variable)
awk '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    /^[a-z_]+-intra:/ { coll = substr($1, 1, length($1) - 7); next }
    /^[a-z_]+-inter:/ { coll = ""; next }
    coll != "" && /^    [a-z_0-9]+ *$/ { algo = trim($0); next }
    coll != "" && /^        extra_params:/ { n = split(substr($0, index($0, ":") + 1), extra, ",") }
    coll != "" && /^        cvar_params:/ {
        split(substr($0, index($0, ":") + 1), cv, ",")
        Coll = toupper(substr(coll, 1, 1)) substr(coll, 2)
        for (i = 1; i <= n; i++) {
            p = trim(extra[i]); c = trim(cv[i])
            if (c == "-" || p ~ /=/) continue
            print "MPIR_" Coll "_intra_" algo " " p " MPIR_CVAR_" toupper(coll) "_" c
        }
    }' "$algorithms" > "$tmp/call_params"
# kept where MPICH's container parser reads the parameter, with the default appended
awk 'FILENAME == ARGV[1] { readable[$1 " " $2] = 1; next }
     FILENAME == ARGV[2] { dflt[$1] = $2; next }
     ($1 " " $2) in readable {
        if (!($3 in dflt)) { print "gen-mpich-keys: no default for " $3 > "/dev/stderr"; exit 1 }
        print $1 " " $2 " " $3 " " dflt[$3]
     }' "$tmp/algorithm_params" "$tmp/cvar_defaults" "$tmp/call_params" > "$tmp/algorithm_cvars"
# passed from the container but never read into it (the plugin's own containers, which
# the plugin's parser reads, among them)
awk 'FILENAME == ARGV[1] { readable[$1 " " $2] = 1; next }
     !(($1 " " $2) in readable) { print $1 " " $2 }' "$tmp/algorithm_params" "$tmp/call_params" > "$tmp/unread_params"
for pair in is_sendbuf_inplace:is_sendbuf_inplace is_commutative:is_commutative \
    is_op_built_in:is_op_built_in is_block_regular:is_block_regular \
    get_avg_msgsize:avg_msg_size get_count:count get_total_msgsize:total_msg_size; do
    key_collectives "${pair%%:*}" "${pair#*:}"
done > "$tmp/key_collectives"
nonempty "$tmp/collectives" collectives
nonempty "$tmp/key_collectives" "per-collective keys"
nonempty "$tmp/conditions" "condition keys"
nonempty "$tmp/bounds" "bounded keys"
nonempty "$tmp/algorithms" algorithms
nonempty "$tmp/compositions" compositions
nonempty "$tmp/algorithm_params" "algorithm parameters"
nonempty "$tmp/algorithm_cvars" "algorithm parameter variables"

echo "/* generated by maint/gen-mpich-keys.sh from the MPICH source it is part of: do not edit */"
echo "#ifndef HIER_MPICH_KEYS_H_INCLUDED"
echo "#define HIER_MPICH_KEYS_H_INCLUDED"
table MPII_HIER_MPICH_COLLECTIVES < "$tmp/collectives"
table MPII_HIER_MPICH_CONDITIONS < "$tmp/conditions"
table MPII_HIER_MPICH_BOUNDS < "$tmp/bounds"
table MPII_HIER_MPICH_ALGORITHMS < "$tmp/algorithms"
table MPII_HIER_MPICH_COMPOSITIONS < "$tmp/compositions"
printf '#define MPII_HIER_MPICH_ALGORITHM_PARAMS(X) \\\n'
sort -u "$tmp/algorithm_params" | sed 's/\(.*\) \(.*\)/    X("\1", "\2") \\/'
printf '\n'
printf '#define MPII_HIER_MPICH_ALGORITHM_CVARS(X) \\\n'
sort -u "$tmp/algorithm_cvars" | sed 's/\(.*\) \(.*\) \(.*\) \(.*\)/    X("\1", "\2", "\3", "\4") \\/'
printf '\n'
printf '#define MPII_HIER_MPICH_UNREAD_PARAMS(X) \\\n'
sort -u "$tmp/unread_params" | sed 's/\(.*\) \(.*\)/    X("\1", "\2") \\/'
printf '\n'
printf '#define MPII_HIER_MPICH_KEY_COLLECTIVES(X) \\\n'
sort -u "$tmp/key_collectives" | sed 's/\(.*\) \(.*\)/    X("\1", "\2") \\/'
printf '\n'
echo "#endif"
