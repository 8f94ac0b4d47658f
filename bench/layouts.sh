# The emulated cluster's benchmark layouts, sourced by bench/peers.sh, bench/allgather-ring.sh
# and bench/hier-ab.sh (run from the repository's root).  bench_layout LAYOUT sets
#   up     the arguments of `maint/emucluster up`
#   ppn    ranks per node
#   bound  the network arguments of `hiertune link-bound` (nodes, ranks, rates in B/s)
# and returns 1 for a name that is none of BENCH_LAYOUTS.
#   4x2   4 nodes x 2 ranks, 100 Mbit/s links
#   8x1   8 nodes x 1 rank, 100 Mbit/s
#   4x1   4 nodes x 1 rank, 100 Mbit/s (on 2 cores, the small sizes' latencies closest to
#         free cores')
#   leaf  2 leaf switches x 2 nodes x 2 ranks, node links 400 Mbit/s, uplinks 100 Mbit/s
#   2x4   2 nodes x 4 ranks, 100 Mbit/s (a node's binomial tree takes two steps)
BENCH_LAYOUTS="4x2 8x1 4x1 leaf 2x4"

bench_layout() {
    case $1 in
        4x2) up=(--nodes 4 --rate 100mbit) ppn=2 bound=(--nodes 4 --ppn 2 --rate 12.5e6) ;;
        8x1) up=(--nodes 8 --rate 100mbit) ppn=1 bound=(--nodes 8 --ppn 1 --rate 12.5e6) ;;
        4x1) up=(--nodes 4 --rate 100mbit) ppn=1 bound=(--nodes 4 --ppn 1 --rate 12.5e6) ;;
        2x4) up=(--nodes 2 --rate 100mbit) ppn=4 bound=(--nodes 2 --ppn 4 --rate 12.5e6) ;;
        leaf) up=(--nodes 4 --rate 400mbit --leaf-size 2 --uplink-rate 100mbit) ppn=2
              bound=(--nodes 4 --ppn 2 --rate 50e6 --leaves 2 --uplink-rate 12.5e6) ;;
        *) return 1 ;;
    esac
}

# bench_ready DIR: what a benchmark checks before it takes the emulated cluster (the
# caller's die says what is missing), then peerbench (bench/peerbench.c) built as
# DIR/bin/peerbench and the cluster taken down at the script's exit
bench_ready() {
    [ "$(id -u)" = 0 ] || die "the emulated cluster needs root"
    [ -x build/install/bin/mpicc ] && [ -x tools/hiertune ] || die "no build: run ./quickstart check first"
    [ "$(maint/emucluster status)" = down ] ||
        die "a cluster is already up (maint/emucluster status); take it down first"
    mkdir -p "$1/bin"
    build/install/bin/mpicc -O2 -o "$1/bin/peerbench" bench/peerbench.c
    trap 'maint/emucluster down --force > /dev/null 2>&1 || true' EXIT
}
