#!/usr/bin/env bash
# bench/peers-table.py on a hand-made run (no MPI, no cluster): the sweeps' winners per
# size (the largest screened size's winner above it; names with commas), the pooled median of all rounds, the
# link bound of leaf switches from `hiertune link-bound`, the best peer and the targets.
# Env: HIERTUNE (set by make check), MPICH_HIER_SRCDIR.
set -euo pipefail
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
hiertune=${HIERTUNE:-$srcdir/tools/hiertune}
table=$srcdir/bench/peers-table.py
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/peers-table.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dir=$tmp/leaf
mkdir -p "$dir"
cat > "$dir/layout.txt" <<'END'
layout=leaf
cluster=emucluster: 4 nodes, links 400mbit (50000000 B/s), burst 16kb, mtu 1500, leaf switches of 2 nodes (block order), uplinks 100mbit
ppn=2
ranks=8
date=2026-11-27T06:00:00Z
rounds=2 rounds of 3 repetitions
END
cat > "$dir/screen-mpich-bcast.csv" <<'END'
mpich:binomial,MPICH Version: 5.0.1,bcast,1048576,8,1,1,250,250
mpich:binomial,MPICH Version: 5.0.1,bcast,4194304,8,1,1,1300,1300
mpich:composition=4,MPICH Version: 5.0.1,bcast,1048576,8,1,1,400,400
mpich:composition=4,MPICH Version: 5.0.1,bcast,4194304,8,1,1,1000,1000
END
cat > "$dir/screen-han-bcast.csv" <<'END'
han:up=libnbc,low=tuned,seg=16384,Open MPI v4.1.4,bcast,1048576,8,1,1,500,500
han:up=libnbc,low=tuned,seg=16384,Open MPI v4.1.4,bcast,4194304,8,1,1,900,900
han:up=adapt-pipeline,low=tuned,seg=65536,Open MPI v4.1.4,bcast,1048576,8,1,1,450,450
han:up=adapt-pipeline,low=tuned,seg=65536,Open MPI v4.1.4,bcast,4194304,8,1,1,950,950
END
cat > "$dir/screen-mpich-gather.csv" <<'END'
mpich:binomial,MPICH Version: 5.0.1,gather,1048576,8,1,1,300,300
mpich:nb,MPICH Version: 5.0.1,gather,1048576,8,1,1,200,200
END
: > "$dir/screen-han-gather.csv"

got=$(python3 "$table" winners "$dir" bcast 1048576,4194304,16777216)
want='mpich:binomial 1048576
mpich:composition=4 4194304,16777216
han:up=adapt-pipeline,low=tuned,seg=65536 1048576
han:up=libnbc,low=tuned,seg=16384 4194304,16777216'
[ "$got" = "$want" ] || fail "bcast winners:
$got
want:
$want"
# no HAN screening at all
got=$(python3 "$table" winners "$dir" gather 1048576)
[ "$got" = "mpich:nb 1048576" ] || fail "gather winners: $got"

# the final run: two rounds of 3 repetitions (the pooled median of hier is 91500, which
# neither round's median is); the bound of a 1 MiB bcast: its uplink crossing,
# 1048576 B / 12.5e6 B/s = 83886.1 us
row() { echo "$1,X,$2,${4:-1048576},8,3,1,0,$3"; }
{
    row hier bcast '80000 90000 100000'
    row tuned bcast '95000 95000 95000'
    row mpich bcast '300000 300000 300000'
    row mpich:binomial bcast '250000 250000 250000'
    row ompi bcast '400000 400000 400000'
    row han bcast '200000 200000 200000'
    row han:up=adapt-pipeline,low=tuned,seg=65536 bcast '180000 181000 179000'
    row hier bcast '91000 92000 93000'
    row hier bcast '360000 360000 360000' 4194304
    row mpich bcast '700000 700000 700000' 4194304
    row hier allreduce '200 201 202'
    row mpich allreduce '100 101 102'
    row tuned allreduce '249 250 251'
} > "$dir/final.csv"
python3 "$table" report "$tmp" --hiertune "$hiertune" leaf > "$tmp/report.txt" || fail "report failed"
line=$(grep '^1 MiB' "$tmp/report.txt" | head -1)
read -r -a cells <<< "$line"
# size(2) bound hier tuned mpich mpich-best which ompi han han-best which best-peer p/hier p/tuned h/bnd
[ "${cells[2]}" = 83886.1 ] || fail "bound ${cells[2]} in: $line"
[ "${cells[3]}" = 91500.0 ] || fail "hier ${cells[3]} (pooled median of both rounds) in: $line"
[ "${cells[6]}" = 250000.0 ] && [ "${cells[7]}" = mpich:binomial ] || fail "mpich best in: $line"
[ "${cells[11]}" = han:up=adapt-pipeline,low=tuned,seg=65536 ] || fail "han best in: $line"
[ "${cells[12]}" = "${cells[11]}" ] || fail "best peer in: $line"
# 180000 / 91500 = 1.97, 180000 / 95000 = 1.89, 91500 / 83886.08 = 1.09
[ "${cells[13]} ${cells[14]} ${cells[15]}" = "1.97 1.89 1.09" ] || fail "ratios in: $line"
grep -qx 'leaf allreduce 1 MiB: hier 201.0 us +- 1.0, best peer mpich 101.0 +- 1.0 (1.99x)' "$tmp/report.txt" ||
    fail "the allreduce slower than its best peer is not listed: $(cat "$tmp/report.txt")"
! grep -q 'leaf bcast 1 MiB: hier' <(sed -n '/^Slower/,/^3-level/p' "$tmp/report.txt") ||
    fail "a bcast faster than every peer is listed as slower"
# tuned 95000 against MPICH as shipped 300000: faster beyond the noise; a tuned allreduce
# slower than shipped is listed
grep -qx 'The tuned tree slower than MPICH 5.0.1 as shipped beyond the noise (1 of 2 points; faster at 1):' \
    "$tmp/report.txt" || fail "the shipped count: $(grep 'as shipped beyond' "$tmp/report.txt")"
grep -qx 'leaf allreduce 1 MiB: tuned 250.0 us +- 1.0, mpich 101.0 +- 1.0 (2.48x)' "$tmp/report.txt" ||
    fail "the tuned allreduce slower than shipped is not listed: $(sed -n '/as shipped beyond/,/^3-level/p' "$tmp/report.txt")"
grep -qx 'leaf bcast 1 MiB: best peer / tuned = 1.89 (han:up=adapt-pipeline,low=tuned,seg=65536)' "$tmp/report.txt" ||
    fail "the 3-level target line"
grep -qx 'leaf bcast 1 MiB: hier / bound = 1.09, tuned / bound = 1.13' "$tmp/report.txt" || fail "the bound target line"
# the headline row: from 1 MiB, 180000 / 91500 = 1.97 and 700000 / 360000 = 1.94 (the
# best peer at 4 MiB is MPICH as shipped, the only peer measured there)
grep -qx '| leaf | bcast | - | 1.94-1.97 | 1.89 | `han:up=adapt-pipeline,low=tuned,seg=65536`, `mpich` | 1.07-1.09 |' \
    "$tmp/report.txt" || fail "the headline row: $(grep '^| leaf | bcast' "$tmp/report.txt")"
[ -s "$tmp/leaf-bcast.png" ] || fail "no plot"
[ -s "$tmp/peers.md" ] && grep -q '^### MPI_Bcast, leaf' "$tmp/peers.md" || fail "no peers.md"
echo "PASS: winners, pooled medians, leaf-switch bound, best peer, targets, plot"
