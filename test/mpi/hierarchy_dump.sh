#!/usr/bin/env bash
# The N-level hierarchy the plugin sees (issue 19), printed by MPIR_CVAR_HIER_DUMP on the
# first hier collective of MPI_COMM_WORLD (8 ranks on emulated nodes):
#   4 cliques round robin, emulated leaf switches of 2 nodes      switch and node levels
#   2 cliques by block, 2 emulated packages per node               node and package levels
#   4 cliques by block, SLURM_TOPOLOGY_ADDR per rank (2 leaves)     switch and node levels
#   without any of them                                             the node level only
#   a malformed MPIR_CVAR_HIER_TOPOLOGY_FILE                        MPI_Init fails, every rank names its line
# Env: MPICH_HIER_PREFIX (set by make check).
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
fail() { echo "FAIL: hierarchy_dump: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hierarchy-dump.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 -o "$tmp/bcast_once" "$(dirname "$0")/hierarchy/bcast_once.c"
. "$(dirname "$0")/../launch-env.sh"
export MPIEXEC_TIMEOUT=60
export MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier MPIR_CVAR_BCAST_DEVICE_COLLECTIVE=0 MPIR_CVAR_HIER_DUMP=1
unset SLURM_TOPOLOGY_ADDR SLURM_TOPOLOGY_ADDR_PATTERN MPIR_CVAR_HIER_TOPOLOGY_FILE

dump() {  # dump MPIEXEC_ARGS...: MPI_COMM_WORLD's dump lines (8 ranks), without the prefix
    # (a forced hier also runs, and dumps, on the one-node comms of the device's own
    # set-up broadcasts in MPICH 5.0.1: not what this test is about)
    "$prefix/bin/mpiexec" "$@" > "$tmp/out" 2>&1 || fail "job failed ($*): $(head -20 "$tmp/out")"
    sed -n 's/^mpich-hier: //p' "$tmp/out" | sed 's/^comm [0-9a-f]* /comm /' |
        awk '/^comm / { world = /^comm \(8 ranks\)/ } world'
}
expect() {  # expect NAME: the dump (stdin) against the lines that follow NAME's call
    diff <(cat) "$tmp/want" > "$tmp/diff" || fail "$1: $(cat "$tmp/diff")"
    echo "$1: ok"
}

cat > "$tmp/want" << 'EOF2'
comm (8 ranks): 2 levels
  level 0 Switch: 2 groups
    group 0 (in 0) leader 0 ranks 0 1 4 5
    group 1 (in 0) leader 2 ranks 2 3 6 7
  level 1 Node: 4 groups
    group 0 (in 0) leader 0 ranks 0 4
    group 1 (in 0) leader 1 ranks 1 5
    group 2 (in 1) leader 2 ranks 2 6
    group 3 (in 1) leader 3 ranks 3 7
EOF2
dump -n 8 -genv MPIR_CVAR_NUM_CLIQUES 4 -genv MPIR_CVAR_HIER_EMULATE_SWITCH_NODES 2 "$tmp/bcast_once" |
    expect "emulated switches"

cat > "$tmp/want" << 'EOF2'
comm (8 ranks): 2 levels
  level 0 Node: 2 groups
    group 0 (in 0) leader 0 ranks 0 1 2 3
    group 1 (in 0) leader 4 ranks 4 5 6 7
  level 1 Package (emulated): 4 groups
    group 0 (in 0) leader 0 ranks 0 1
    group 1 (in 0) leader 2 ranks 2 3
    group 2 (in 1) leader 4 ranks 4 5
    group 3 (in 1) leader 6 ranks 6 7
EOF2
dump -n 8 -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 \
    -genv MPIR_CVAR_HIER_EMULATE_PACKAGES 2 "$tmp/bcast_once" | expect "emulated packages"

cat > "$tmp/want" << 'EOF2'
comm (8 ranks): 2 levels
  level 0 Switch: 2 groups
    group 0 (in 0) leader 0 ranks 0 1 2 3
    group 1 (in 0) leader 4 ranks 4 5 6 7
  level 1 Node: 4 groups
    group 0 (in 0) leader 0 ranks 0 1
    group 1 (in 0) leader 2 ranks 2 3
    group 2 (in 1) leader 4 ranks 4 5
    group 3 (in 1) leader 6 ranks 6 7
EOF2
slurm=(-env SLURM_TOPOLOGY_ADDR_PATTERN switch.switch.node)
dump -genv MPIR_CVAR_NUM_CLIQUES 4 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 \
    -n 4 "${slurm[@]}" -env SLURM_TOPOLOGY_ADDR spine.leaf0.n "$tmp/bcast_once" : \
    -n 4 "${slurm[@]}" -env SLURM_TOPOLOGY_ADDR spine.leaf1.n "$tmp/bcast_once" | expect "Slurm addresses"

cat > "$tmp/want" << 'EOF2'
comm (8 ranks): 1 level
  level 0 Node: 2 groups
    group 0 (in 0) leader 0 ranks 0 2 4 6
    group 1 (in 0) leader 1 ranks 1 3 5 7
EOF2
dump -n 8 -genv MPIR_CVAR_NUM_CLIQUES 2 "$tmp/bcast_once" | expect "nodes only"

printf 'somehost spine leaf.0\n' > "$tmp/topology"
if "$prefix/bin/mpiexec" -n 4 -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_HIER_TOPOLOGY_FILE "$tmp/topology" \
    "$tmp/bcast_once" > "$tmp/out" 2>&1; then
    fail "a malformed topology file was accepted"
fi
[ "$(grep -cF "mpich-hier: MPIR_CVAR_HIER_TOPOLOGY_FILE=$tmp/topology: line 1 is malformed" "$tmp/out")" = 4 ] ||
    fail "not every rank named the topology file's bad line: $(head -20 "$tmp/out")"
echo "malformed topology file: refused"
echo "PASS: hierarchy_dump"
