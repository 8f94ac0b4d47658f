#!/usr/bin/env bash
# MPICH's own node detection on the emulated cluster: one node per namespace, with the
# ranks per node asked for (even and uneven), no MPIR_CVAR_NUM_CLIQUES; inter-node bytes
# cross the node links (eth0 counters), and the cliques fallback gives the same layout.
source "$(dirname "$0")/common.sh"
build_program node_layout

"$emucluster" up --nodes 4 --rate 1gbit > /dev/null 2>&1

# MPIR_CVAR_NUM_CLIQUES in the job's environment is ignored on real nodes
expect_layout "$tmp/node_layout" "--env MPIR_CVAR_NUM_CLIQUES=3 --ppn 2" "$layout_ppn_2"
expect_layout "$tmp/node_layout" "--env MPIR_CVAR_NUM_CLIQUES=3 --ppn 3,2,2,1" "$layout_ppn_3221"
expect_layout "$tmp/node_layout" "--env MPIR_CVAR_NUM_CLIQUES=3 --ppn 1 --nodes 3" "node: 0
node: 1
node: 2"

# -n N (test harnesses) follows a clique layout given in the environment: that many real
# nodes, round robin, or blocks with MPIR_CVAR_CLIQUES_BY_BLOCK=1; without it, blocks
# over all nodes
expect_n_layout() {  # expect_n_layout "ENV" N "EXPECTED LINES"
    local got
    # shellcheck disable=SC2086
    got=$(env $1 "$emucluster" run -n "$2" "$tmp/node_layout") || fail "run -n $2 ($1) failed"
    [ "$got" = "$3" ] || fail "run -n $2 ($1): layout
$got
expected
$3"
}
expect_n_layout "MPIR_CVAR_NUM_CLIQUES=3" 7 "node: 0 3 6
node: 1 4
node: 2 5"
expect_n_layout "MPIR_CVAR_NUM_CLIQUES=3 MPIR_CVAR_CLIQUES_BY_BLOCK=1" 7 "node: 0 1 2
node: 3 4 5
node: 6"
expect_n_layout "X=1" 6 "node: 0 1
node: 2 3
node: 4 5"

# 4 MiB from rank 0: node 1 (ranks 2, 3) must receive at least that on its eth0
rx() { ip netns exec "$EMUCLUSTER_PREFIX-n$1" cat /sys/class/net/eth0/statistics/rx_bytes; }
before=$(rx 1)
"$emucluster" run --ppn 2 -- "$tmp/node_layout" 4194304 > "$tmp/out" || fail "4 MiB bcast run failed: $(cat "$tmp/out")"
grep -q wrong "$tmp/out" && fail "4 MiB bcast delivered wrong data"
after=$(rx 1)
[ $((after - before)) -ge 4194304 ] || fail "node 1's link carried $((after - before)) B of a 4 MiB bcast"

# the correctness fallback (no namespaces): the same block layout on one host
got=$("$emucluster" run --cliques 4 --ppn 2 -- "$tmp/node_layout")
[ "$got" = "node: 0 1
node: 2 3
node: 4 5
node: 6 7" ] || fail "--cliques 4 --ppn 2: layout $got"
echo "PASS: node detection on the emulated cluster"
