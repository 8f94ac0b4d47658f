# Shared setup of the emulated-cluster tests (sourced).  Each test brings up its own
# cluster under its own name prefix and state directory, so it never touches a cluster
# of the user's, and takes it down on exit.
# Env: MPICH_HIER_PREFIX (set by make check), MPICH_HIER_SRCDIR.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
emucluster=$srcdir/maint/emucluster
prefix=${MPICH_HIER_PREFIX:-$srcdir/build/install}
mpiexec=$prefix/bin/mpiexec
[ -x "$mpiexec" ] || fail "no $mpiexec: build and install MPICH first (make)"
if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the emulated cluster needs root (network namespaces)"
    exit 77
fi

export EMUCLUSTER_PREFIX=${EMUCLUSTER_PREFIX:-mht} EMUCLUSTER_MPIEXEC=$mpiexec
tmp=$(mktemp -d "${TMPDIR:-/tmp}/emucluster-test.XXXXXX")
export EMUCLUSTER_DIR=$tmp/state
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-120}
cleanup() {
    "$emucluster" down --force > /dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# Names of what a cluster of this prefix has in the system right now.
made_objects() {
    { ip netns list | awk '{print "netns " $1}'; ip -o link show | awk -F': ' '{print "link " $2}' | sed 's/@.*//'; } |
        grep -E " $EMUCLUSTER_PREFIX-" | sort || true
}

# Waits (at most SECONDS) until COMMAND succeeds; fails with MESSAGE otherwise.
wait_for() {
    local seconds=$1 message=$2
    shift 2
    local deadline=$((SECONDS + seconds))
    until "$@"; do
        [ "$SECONDS" -lt "$deadline" ] || fail "$message (waited ${seconds}s)"
        sleep 0.2
    done
}

# Compiles test/emucluster/NAME.c with the installed mpicc into $tmp/NAME.
build_program() {
    "$prefix/bin/mpicc" -O2 -Wall -o "$tmp/$1" "$srcdir/test/emucluster/$1.c" || fail "cannot build $1.c"
}

# The layouts node_layout.c prints for `run --ppn 2` and `--ppn 3,2,2,1` on 4 nodes
layout_ppn_2="node: 0 1
node: 2 3
node: 4 5
node: 6 7"
layout_ppn_3221="node: 0 1 2
node: 3 4
node: 5 6
node: 7"

# Runs PROGRAM (a node_layout.c build) with `emucluster run OPTIONS` and fails unless it
# prints the EXPECTED node layout ("node: RANKS" per node).
expect_layout() {  # expect_layout PROGRAM "RUN OPTIONS" "EXPECTED LINES"
    local got
    # shellcheck disable=SC2086
    got=$("$emucluster" run $2 -- "$1" 2> "$tmp/layout.err") || fail "run $2 $1 failed: $(cat "$tmp/layout.err")"
    [ "$got" = "$3" ] || fail "run $2: layout
$got
expected
$3"
}
