#!/usr/bin/env bash
# bench/latency-4x1.sh refuses a bad --reps or --rounds, and an unknown option, with exit
# status 2 and one line naming what it takes, before it touches the emulated cluster;
# bench/allgather-ring.sh refuses bad --sizes, --segsizes, --rounds, --layouts, a --base-lib
# without libmpi.so.0 and unknown options with one line naming the option, and so does
# bench/hier-ab.sh (--coll, --cvar, --sizes, --rounds, --layouts), and bench/peers.sh (--burst,
# --rounds, --sizes, --layouts, --colls); both take every collective bench/peerbench.c
# times (hier-ab.sh all but barrier).
set -uo pipefail
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
script=$srcdir/bench/latency-4x1.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
for args in "--rounds 0" "--rounds -3" "--reps x" "--reps 1.5"; do
    # shellcheck disable=SC2086
    err=$("$script" $args 2>&1 > /dev/null)
    rc=$?
    [ "$rc" = 2 ] || fail "latency-4x1.sh $args exited $rc, not 2"
    grep -q -- "--reps and --rounds take a positive whole number" <<< "$err" ||
        fail "latency-4x1.sh $args said: $err"
done
"$script" --no-such-option > /dev/null 2>&1
[ $? = 2 ] || fail "latency-4x1.sh accepted an unknown option"
ring=$srcdir/bench/allgather-ring.sh
for args in "--sizes 1M" "--segsizes -1" "--rounds 0" "--layouts 4x4" "--base-lib /nonexistent" "--bogus 1"; do
    # shellcheck disable=SC2086
    err=$("$ring" $args 2>&1 > /dev/null) && fail "allgather-ring.sh accepted $args"
    grep -q -- "^allgather-ring: .*${args%% *}" <<< "$err" || fail "allgather-ring.sh $args said: $err"
done
ab=$srcdir/bench/hier-ab.sh
valid="--coll gather --cvar MPIR_CVAR_GATHER_HIER_INTER_ALGORITHM=binomial/linear"
for args in "--coll foo" "--cvar X" "--sizes 1M" "--rounds 0" "--layouts 4x4" "--bogus 1"; do
    # shellcheck disable=SC2086
    err=$("$ab" $valid $args 2>&1 > /dev/null) && fail "hier-ab.sh accepted $args"
    grep -q -- "^hier-ab: .*${args%% *}" <<< "$err" || fail "hier-ab.sh $args said: $err"
done
peers=$srcdir/bench/peers.sh
for args in "--burst 3" "--burst 2kbit" "--rounds 0" "--sizes 1M" "--layouts 4x4" "--colls foo"; do
    # shellcheck disable=SC2086
    err=$("$peers" $args 2>&1 > /dev/null) && fail "peers.sh accepted $args"
    grep -q -- "^peers: .*${args%% *}" <<< "$err" || fail "peers.sh $args said: $err"
done
# every collective of peerbench's COLLECTIVES gets past --coll / --colls: the scripts stop
# at the bad option after it
colls=$(sed -n '/COLLECTIVES\[\] = {/,/};/p' "$srcdir/bench/peerbench.c" | grep -o '"[a-z_]*"' | tr -d '"' | tr '\n' ' ')
[[ " $colls" == *" alltoall "* ]] || fail "no alltoall among peerbench's collectives: $colls"
for c in $colls; do
    if [ "$c" != barrier ]; then
        err=$("$ab" --coll "$c" --cvar MPIR_CVAR_X=a/b --rounds 0 2>&1 > /dev/null) && fail "hier-ab.sh accepted --rounds 0"
        grep -q -- "^hier-ab: --rounds" <<< "$err" || fail "hier-ab.sh --coll $c said: $err"
    fi
    err=$("$peers" --colls "$c" --layouts 4x4 2>&1 > /dev/null) && fail "peers.sh accepted --layouts 4x4"
    grep -q -- "^peers: --layouts" <<< "$err" || fail "peers.sh --colls $c said: $err"
done
echo "latency-4x1.sh refuses bad --reps, --rounds and unknown options; allgather-ring.sh, hier-ab.sh and peers.sh bad options; hier-ab.sh and peers.sh take peerbench's collectives"
