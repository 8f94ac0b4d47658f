#!/usr/bin/env bash
# MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE as a user meets it: a bad tree makes MPI_Init
# fail on every rank with the file, the place in the tree and the bad item (never an
# assert); a tree that names only some collectives is merged over MPICH's built-in one.
# The same check for MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE (MPICH asserts on an
# unknown key there); a valid CH4 tree is read as MPICH reads it.
# Env: MPICH_HIER_PREFIX (set by make check).
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tuning-file.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/tree_smoke" "$(dirname "$0")/tuning_file/tree_smoke.c"
. "$(dirname "$0")/../launch-env.sh"
export MPIEXEC_TIMEOUT=60
ranks=4

cvar=MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE
run() {  # run FILE [VAR=VALUE...]: the job's output (stdout, stderr) in $tmp/out, its status returned
    local status=0 file=$1
    shift
    env "$cvar=$file" MPIR_CVAR_NUM_CLIQUES=2 "$@" \
        "$prefix/bin/mpiexec" -n $ranks "$tmp/tree_smoke" > "$tmp/out" 2>&1 || status=$?
    return $status
}

# expect_refused NAME JSON MESSAGE: MPI_Init fails, every rank prints MESSAGE, no assert
# (JSON "-": no file at all); the tree is the one $cvar names
expect_refused() {
    local file=$tmp/$1.json
    [ "$2" = - ] || printf '%s' "$2" > "$file"
    if run "$file"; then fail "$1: the job ran: $(cat "$tmp/out")"; fi
    local lines
    lines=$(grep -cF "mpich-hier: $cvar=$file: $3" "$tmp/out" || true)
    [ "$lines" = $ranks ] || fail "$1: $ranks ranks should say '$3', $lines did:
$(head -20 "$tmp/out")"
    ! grep -q "Assertion failed" "$tmp/out" || fail "$1: an assertion:
$(head -20 "$tmp/out")"
}

expect_refused missing - 'cannot be read (No such file or directory)'
expect_refused empty-file '' 'not valid JSON: the file is empty'
expect_refused truncated '{"collective=bcast": ' 'not valid JSON: the file ends inside a value'
expect_refused syntax $'{\n  "collective=bcast": {\n    "comm_type=intra" {}\n  }\n}' \
    'not valid JSON at line 3, column'
expect_refused unknown-key '{"collective=bcast": {"comm_type=intra": {"comm_sizee<=8": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}' \
    'at collective=bcast > comm_type=intra: an unknown key "comm_sizee<=8"'
expect_refused bad-number '{"collective=bcast": {"avg_msg_size<=4k": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "avg_msg_size=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}' \
    'at collective=bcast: a bound that is not an integer in 0..INT_MAX: "avg_msg_size<=4k"'
expect_refused typo-algorithm '{"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomal": {}}}' \
    'at collective=bcast: an algorithm MPICH does not know "algorithm=MPIR_Bcast_intra_binomal"'
expect_refused bound-last '{"collective=bcast": {"avg_msg_size<=4096": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}' \
    'at collective=bcast: a bound that ends its chain (MPICH asserts when it loads the tree: an ANY key must follow it): "avg_msg_size<=4096"'
expect_refused no-match '{"collective=bcast": {"avg_msg_size<=4096": {"algorithm=MPIR_Bcast_intra_binomial": {}}, "comm_type=inter": {"algorithm=MPIR_Bcast_inter_remote_send_local_bcast": {}}}}' \
    'at collective=bcast: a chain of bounds that can all fail (MPICH asserts): it ends with "comm_type=inter"'
expect_refused smp-flat '{"collective=barrier": {"comm_type=intra": {"algorithm=MPIR_Barrier_intra_smp": {}}}}' \
    'at collective=barrier > comm_type=intra: MPIR_Barrier_intra_smp selected where "comm_hierarchy=parent" does not hold'
# MPICH allocates its containers uninitialised: a parameter its algorithm takes must be given
expect_refused no-kval '{"collective=allreduce": {"is_commutative=yes": {"algorithm=MPIR_Allreduce_intra_recursive_multiplying": {}}, "is_commutative=no": {"algorithm=MPIR_Allreduce_intra_recursive_doubling": {}}}}' \
    'at collective=allreduce > is_commutative=yes: MPIR_Allreduce_intra_recursive_multiplying without its parameter (MPICH leaves it uninitialised): "k"'
# ring allreduce combines in arrival order: a user's non-commutative op would get a wrong result
expect_refused ring-any-op '{"collective=allreduce": {"comm_type=intra": {"algorithm=MPIR_Allreduce_intra_ring": {}}}}' \
    'at collective=allreduce > comm_type=intra: MPIR_Allreduce_intra_ring selected where "is_commutative=yes" does not hold'
# every problem of a tree, each on its own line, on every rank
expect_refused three-problems '{"collective=bcast": {"algorithm=MPIR_Bcast_intra_seg_binary": {"fanout=2": {}, "window=4": {}}}, "collective=reduce": {"algorithm=MPIR_Reduce_intra_hier": {"intra_algo=ring": {}}}}' \
    'at collective=reduce: invalid parameter of MPIR_Reduce_intra_hier: "intra_algo=ring"'
[ "$(grep -c 'invalid parameter of' "$tmp/out")" = $((3 * ranks)) ] ||
    fail "three-problems: $ranks x 3 lines expected: $(head -20 "$tmp/out")"
expect_refused unknown-collective '{"collective=bcats": {"algorithm=MPIR_Bcast_intra_binomial": {}}}' \
    'at the top: not a collective ("collective=NAME") "collective=bcats"'
expect_refused other-collective '{"collective=bcast": {"algorithm=MPIR_Reduce_intra_binomial": {}}}' \
    'at collective=bcast: not an algorithm of this collective "algorithm=MPIR_Reduce_intra_binomial"'
expect_refused bad-param '{"collective=bcast": {"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=4096": {}, "inter_algo=seg_in_order_binary": {}}}}}' \
    'at collective=bcast > comm_hierarchy=parent: invalid parameter of MPIR_Bcast_intra_hier: "inter_algo=seg_in_order_binary"'
expect_refused fanout '{"collective=reduce": {"algorithm=MPIR_Reduce_intra_seg_binary": {"fanout=3": {}}}}' \
    'at collective=reduce: invalid parameter of MPIR_Reduce_intra_seg_binary: "fanout=3"'
expect_refused composition '{"collective=bcast": {"composition=MPIDI_Bcast_intra_composition_alpha": {}}}' \
    'at collective=bcast: a CH4 composition in an MPIR tree "composition=MPIDI_Bcast_intra_composition_alpha"'
expect_refused empty '{"collective=bcast": {"comm_size<=8": {}}}' \
    'at collective=bcast > comm_size<=8: an empty object: no algorithm chosen "{}"'

# a tree of bcast alone: reduce and allreduce keep the built-in tree, bcast runs hier
printf '%s' '{"collective=bcast": {"comm_type=intra": {"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=1024": {}}}, "comm_hierarchy=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}' \
    > "$tmp/bcast-only.json"
run "$tmp/bcast-only.json" || fail "a tree of bcast alone: $(head -20 "$tmp/out")"
grep -qx "ok, hier bcasts: [1-9][0-9]*" "$tmp/out" || fail "a tree of bcast alone: $(head -20 "$tmp/out")"
# A user's CH4 tree: checked as MPID_Init reads it, never an assert; a valid one runs
cvar=MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE
expect_refused ch4-unknown-key '{"collective=bcast": {"comm_type=intra": {"comm_sizee<=8": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}}}}' \
    'at collective=bcast > comm_type=intra: an unknown key "comm_sizee<=8"'
expect_refused ch4-mpir-algorithm '{"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}}' \
    'at collective=bcast: an MPIR algorithm in a CH4 tree "algorithm=MPIR_Bcast_intra_binomial"'
expect_refused ch4-reduce-any-op '{"collective=reduce": {"comm_hierarchy=parent": {"composition=MPIDI_Reduce_intra_composition_alpha": {}}, "comm_hierarchy=any": {"composition=MPIDI_Reduce_intra_composition_gamma": {}}}}' \
    'at collective=reduce > comm_hierarchy=parent: MPIDI_Reduce_intra_composition_alpha selected where "is_commutative=yes" does not hold'
printf '%s' '{"collective=allreduce": {"comm_type=intra": {"composition=MPIDI_Allreduce_intra_composition_beta": {}}}, "collective=bcast": {"comm_type=intra": {"composition=MPIDI_Bcast_intra_composition_gamma": {}}}, "collective=reduce": {"comm_type=intra": {"composition=MPIDI_Reduce_intra_composition_gamma": {}}}}' \
    > "$tmp/ch4.json"
run "$tmp/ch4.json" MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$tmp/bcast-only.json" MPIR_CVAR_DEBUG_SUMMARY=1 ||
    fail "a valid CH4 tree: $(head -20 "$tmp/out")"
grep -qx "MPID: $tmp/ch4.json" "$tmp/out" || fail "the CH4 tree was not read: $(grep "^MPI[RD]:" "$tmp/out")"
grep -qx "ok, hier bcasts: [0-9]*" "$tmp/out" || fail "a valid CH4 tree: $(head -20 "$tmp/out")"
echo "PASS: tuning files"
