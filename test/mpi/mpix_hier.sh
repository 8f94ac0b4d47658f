#!/usr/bin/env bash
# The MPIX hierarchical communicators (issue 19; hierarchical-communicators paper, sections
# 3 and 5) on emulated layouts, cliques by block (test/mpi/hierarchy/mpix_split.c checks
# each rank against the levels listed):
#   8 ranks, 2 nodes x 2 emulated packages                  Node:4 Package:2
#   8 ranks, 4 nodes, emulated switches of 2, 2 packages    Switch:4 Node:2 Package:1
#   4 ranks, one per node                                   Node:1 (alone: the host's
#                                                           hwloc levels, not checked)
#   4 ranks on one node, 2 packages                         Package:2 (above it: the node)
# Env: MPICH_HIER_PREFIX (set by make check).
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
fail() { echo "FAIL: mpix_hier: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mpix-hier.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# mpicc finds the declarations in mpi.h
"$prefix/bin/mpicc" -O2 -Wall -Werror -o "$tmp/mpix_split" "$(dirname "$0")/hierarchy/mpix_split.c"
. "$(dirname "$0")/../launch-env.sh"
export MPIEXEC_TIMEOUT=60
unset SLURM_TOPOLOGY_ADDR SLURM_TOPOLOGY_ADDR_PATTERN MPIR_CVAR_HIER_TOPOLOGY_FILE

run() {  # run NAME NPROCS ENV... -- ARGS...: one job, " No Errors" expected
    local name=$1 n=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=(-genv "${1%%=*}" "${1#*=}"); shift; done
    shift
    "$prefix/bin/mpiexec" -n "$n" -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 "${envs[@]}" \
        "$tmp/mpix_split" "$@" > "$tmp/out" 2>&1 || fail "$name: $(head -20 "$tmp/out")"
    grep -q '^ No Errors' "$tmp/out" || fail "$name: $(head -20 "$tmp/out")"
    echo "$name: ok"
}

run "nodes and packages" 8 MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_HIER_EMULATE_PACKAGES=2 -- \
    Node:4 Package:2
run "switches, nodes and packages" 8 MPIR_CVAR_NUM_CLIQUES=4 MPIR_CVAR_HIER_EMULATE_SWITCH_NODES=2 \
    MPIR_CVAR_HIER_EMULATE_PACKAGES=2 -- Switch:4 Node:2 Package:1
run "one rank per node" 4 MPIR_CVAR_NUM_CLIQUES=4 -- -alone - Node:1
run "one node, packages" 4 MPIR_CVAR_HIER_EMULATE_PACKAGES=2 -- -top Node Package:2
