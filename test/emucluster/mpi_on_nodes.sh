#!/usr/bin/env bash
# MPI tests that need real nodes (CH4 builds its node-aware compositions only for nodes
# it detects itself, not for MPIR_CVAR_NUM_CLIQUES):
#   reduce_inplace_root  the default path's MPI_Reduce at every root, MPI_IN_PLACE
#                        (maint/patches/06), by-block, round-robin and uneven layouts
#   hier_route           the device hands a call to the MPIR level only when a plugin
#                        algorithm, or one of MPICH's marked whole_comm=1, is selected
#                        there (maint/patches/04)
# Env: MPICH_HIER_BUILDDIR (MPICH's tree, for its generic.json; set by make check).
source "$(dirname "$0")/common.sh"
builddir=${MPICH_HIER_BUILDDIR:-$srcdir/build}
generic=$builddir/mpich-5.0.1/maint/tuning/coll/mpir/generic.json
[ -f "$generic" ] || fail "no $generic: build MPICH first (make)"
for p in reduce_inplace_root hier_route; do
    "$prefix/bin/mpicc" -O2 -Wall -I"$srcdir/test/mpi/coll" -o "$tmp/$p" \
        "$srcdir/test/mpi/coll/$p.c" || fail "cannot build $p.c"
done
"$srcdir/test/mpi/coll/make_hier_tree.py" "$generic" route > "$tmp/route_tree.json"
"$srcdir/test/mpi/coll/make_hier_tree.py" "$generic" whole > "$tmp/whole_tree.json"

"$emucluster" up --nodes 3 --rate 1gbit > /dev/null 2>&1

expect_clean() {  # expect_clean WHAT RUN-ARGS...: the run prints " No Errors" and nothing else
    local what=$1
    shift
    "$emucluster" run "$@" > "$tmp/out" 2>&1 || fail "$what: run failed: $(cat "$tmp/out")"
    [ "$(cat "$tmp/out")" = " No Errors" ] || fail "$what:
$(cat "$tmp/out")"
}

# default path, no CVAR: by block (3,3,1), round robin (3,2,2), uneven (1,3,2)
for layout in "MPIR_CVAR_CLIQUES_BY_BLOCK=1" "X=1"; do
    MPIR_CVAR_NUM_CLIQUES=3 env $layout "$emucluster" run -n 7 -- "$tmp/reduce_inplace_root" \
        > "$tmp/out" 2>&1 || fail "reduce_inplace_root ($layout): $(cat "$tmp/out")"
    [ "$(cat "$tmp/out")" = " No Errors" ] || fail "reduce_inplace_root ($layout):
$(head -20 "$tmp/out")"
done
expect_clean "reduce_inplace_root --ppn 1,3,2" --ppn 1,3,2 -- "$tmp/reduce_inplace_root"

# routing: nothing selected, stock CVAR values, a tree naming small bcasts, forced hier,
# a tree marking MPICH's algorithms of the netmod-composed collectives whole_comm=1
ppn=(--ppn 2,2,1)
expect_clean "hier_route, no CVAR" "${ppn[@]}" -- "$tmp/hier_route"
expect_clean "hier_route, stock CVAR values" "${ppn[@]}" \
    --env MPIR_CVAR_BCAST_INTRA_ALGORITHM=binomial \
    --env MPIR_CVAR_REDUCE_INTRA_ALGORITHM=reduce_scatter_gather \
    --env MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=recursive_doubling \
    --env MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise \
    --env MPIR_CVAR_GATHERV_INTRA_ALGORITHM=linear -- "$tmp/hier_route"
expect_clean "hier_route, tree naming bcast <= 4 KiB" "${ppn[@]}" \
    --env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$tmp/route_tree.json" -- \
    "$tmp/hier_route" -routed bcast_small
expect_clean "hier_route, hier forced for reduce and allreduce" "${ppn[@]}" \
    --env MPIR_CVAR_REDUCE_INTRA_ALGORITHM=hier --env MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=hier -- \
    "$tmp/hier_route" -routed reduce,allreduce
composed=reduce_scatter,reduce_scatter_block,allgatherv,alltoall,alltoallv,gatherv,scatterv
forced=()
for coll in ${composed//,/ }; do
    forced+=(--env "MPIR_CVAR_${coll^^}_INTRA_ALGORITHM=hier")
done
expect_clean "hier_route, hier forced for the netmod-composed collectives" "${ppn[@]}" \
    "${forced[@]}" -- "$tmp/hier_route" -routed "$composed"
expect_clean "hier_route, tree marking MPICH's algorithms whole_comm=1" "${ppn[@]}" \
    --env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$tmp/whole_tree.json" -- \
    "$tmp/hier_route" -whole "$composed"
echo "PASS: MPI tests on the emulated cluster's nodes"
