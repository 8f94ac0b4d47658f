#!/usr/bin/env bash
# Open MPI on the emulated cluster (`run --openmpi`, what bench/peers.sh launches): every
# node is its own host to it (UTS namespace named after the node, for MPICH's jobs too),
# its ranks land on the nodes asked for (its MPI_COMM_TYPE_SHARED split), the bytes of a
# bcast cross the node links (tcp BTL on eth0, not loopback), a job with more ranks than
# cores is told to yield, and the neutral benchmark of peers.sh checks every collective's
# data under both MPIs.  SKIP without Debian's Open MPI (bench/peers.sh installs it).
source "$(dirname "$0")/common.sh"
command -v mpirun.openmpi > /dev/null && command -v mpicc.openmpi > /dev/null || {
    echo "SKIP: no Open MPI (apt-get install openmpi-bin libopenmpi-dev; bench/peers.sh installs it)"
    exit 77
}
mpicc.openmpi -O2 -o "$tmp/node_layout-openmpi" "$srcdir/test/emucluster/node_layout.c" || fail "cannot build node_layout.c"
mpicc.openmpi -O2 -o "$tmp/peerbench-openmpi" "$srcdir/bench/peerbench.c" || fail "cannot build peerbench.c (Open MPI)"
"$prefix/bin/mpicc" -O2 -o "$tmp/peerbench-mpich" "$srcdir/bench/peerbench.c" || fail "cannot build peerbench.c (MPICH)"

"$emucluster" up --nodes 4 --rate 1gbit > /dev/null 2>&1

# one host name per node, under either launch
for mpi in "" --openmpi; do
    got=$("$emucluster" run $mpi --ppn 2 -- hostname 2> /dev/null | sort | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')
    [ "$got" = "$EMUCLUSTER_PREFIX-n0:2 $EMUCLUSTER_PREFIX-n1:2 $EMUCLUSTER_PREFIX-n2:2 $EMUCLUSTER_PREFIX-n3:2 " ] ||
        fail "run $mpi --ppn 2 hostname: $got"
done

expect_layout "$tmp/node_layout-openmpi" "--openmpi --ppn 2" "$layout_ppn_2"
expect_layout "$tmp/node_layout-openmpi" "--openmpi --ppn 3,2,2,1" "$layout_ppn_3221"

# 8 MiB from rank 0 (node 0) reach node 3's ranks through node 3's link
rx() { ip netns exec "$EMUCLUSTER_PREFIX-n3" cat /sys/class/net/eth0/statistics/rx_bytes; }
before=$(rx)
"$emucluster" run --openmpi --ppn 2 -- "$tmp/node_layout-openmpi" 8388608 > /dev/null 2>&1 || fail "8 MiB bcast failed or wrong data"
crossed=$(($(rx) - before))
[ "$crossed" -ge 8388608 ] || fail "only $crossed bytes crossed node 3's link for an 8 MiB bcast"

# yield when the job has more ranks than this machine has cores, as MPICH's throttle
want=1
[ "$(nproc)" -ge 8 ] && want=unset
got=$("$emucluster" run --openmpi --ppn 2 -- sh -c 'echo "${OMPI_MCA_mpi_yield_when_idle:-unset}"' 2> /dev/null | sort -u)
[ "$got" = "$want" ] || fail "mpi_yield_when_idle of 8 ranks on $(nproc) cores: '$got', expected $want"

# peerbench: every collective's data checked, one line each, under both MPIs (hier forced
# for MPICH; 32 B and 65568 B: the smallest and an unaligned size every block split allows
# in MPI_INT elements on 8 ranks), and a size no block split allows refused with the reason
colls=$(sed -n '/COLLECTIVES\[\] = {/,/};/p' "$srcdir/bench/peerbench.c" | grep -o '"[a-z_]*"' | tr -d '"')
ncolls=$(wc -w <<< "$colls")
for mpi in openmpi mpich; do
    run=("$emucluster" run --ppn 2)
    env=()
    [ $mpi = openmpi ] && run+=(--openmpi)
    [ $mpi = mpich ] && for c in $colls; do
        env+=("MPIR_CVAR_${c^^}_INTRA_ALGORITHM=hier"); done
    out=$(env "${env[@]}" "${run[@]}" -- "$tmp/peerbench-$mpi" -s 32,65568,1048576 -r 2 2> "$tmp/err") ||
        fail "peerbench ($mpi): $(cat "$tmp/err")"
    lines=$(tail -n +2 <<< "$out" | awk -F, '$7 > 0 && NF == 8' | wc -l)
    want=$(( (ncolls - 1) * 3 + 1 ))
    [ "$lines" = $want ] || fail "peerbench ($mpi): $lines timed lines of $want ($((ncolls - 1)) collectives x 3 sizes + barrier):
$out"
    if "${run[@]}" -- "$tmp/peerbench-$mpi" -C gather -s 12 > /dev/null 2> "$tmp/err"; then
        fail "peerbench ($mpi) accepted a gather of 12 bytes on 8 ranks"
    fi
    grep -q "gather of 12 bytes: the buffer is one block per rank, and 8 ranks do not divide it" "$tmp/err" ||
        fail "peerbench ($mpi) refused without the reason: $(cat "$tmp/err")"
done
echo "PASS: host names, Open MPI's node layout, its bytes on the node links, yield, peerbench under both MPIs"
