#!/usr/bin/env bash
# The link rate holds: hiertune calibrate measures every inter-node link of a 100 Mbit/s
# emulated cluster within 15 % of the rate (MPI point-to-point, both directions loaded in
# turn: the frames' headers take 4.4 % of a link of 1500-byte MTU, and the rest is the
# VM's noise), and a 4-node switch topology with a slower uplink
# is made and removed.
source "$(dirname "$0")/common.sh"
hiertune=${HIERTUNE:-$srcdir/tools/hiertune}
tolerance=15  # percent, hiertune's default (kDefaultRateTolerancePercent): why above
[ -x "$hiertune" ] || fail "no hiertune at $hiertune (make builds it; or set HIERTUNE)"

"$emucluster" up --nodes 3 --rate 100mbit > /dev/null 2>&1
# the verdicts are on stdout; notes on stderr may arrive in the middle of its lines
out=$("$emucluster" run --ppn 1 -- "$hiertune" calibrate --tolerance "$tolerance" --max-time 3 \
    2> "$tmp/err") ||
    fail "calibrate: a link is off the 100mbit rate by more than $tolerance %:
$out
$(cat "$tmp/err")"
for link in 0-1 0-2; do
    grep -q "^$link: rate holds" <<< "$out" ||
        fail "no 'rate holds' for link $link:
$out
$(cat "$tmp/err")"
done
# a rate the links cannot have is caught (the check can fail)
"$emucluster" run --ppn 1 -- "$hiertune" calibrate --expect-rate 1gbit --max-time 2 > "$tmp/out" 2>&1 &&
    fail "calibrate accepted 1gbit on 100mbit links: $(cat "$tmp/out")"
"$emucluster" down > /dev/null 2>&1

# leaf switches of 2 nodes, uplinks at 50mbit: a pair under one leaf gets the node link's
# rate, a pair across the spine the uplink's (calibrate's own check against the node rate
# fails there, so its exit status is not the verdict here)
"$emucluster" up --nodes 4 --rate 100mbit --leaf-size 2 --uplink-rate 50mbit > /dev/null 2>&1
for l in 0 1; do
    grep -q 'tbf.*rate 50Mbit' <<< "$(tc qdisc show dev "$EMUCLUSTER_PREFIX-u${l}l")" ||
        fail "no 50Mbit tbf on uplink $l"
done
# each rank sees its node's place under the switches, as Slurm's topology/tree plugin
# gives it (issue 19's switch levels read it), whatever mpiexec's own environment says
SLURM_TOPOLOGY_ADDR=elsewhere "$emucluster" run --ppn 2 -- \
    sh -c 'echo "$PMI_RANK $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN"' > "$tmp/topo" 2>&1 ||
    fail "run failed: $(cat "$tmp/topo")"
for r in 0 1 2 3 4 5 6 7; do
    node=$((r / 2)) leaf=$((r / 4))
    grep -qx "$r $EMUCLUSTER_PREFIX-sw.$EMUCLUSTER_PREFIX-l$leaf.$EMUCLUSTER_PREFIX-n$node switch.switch.node" \
        "$tmp/topo" || fail "rank $r: wrong or no SLURM_TOPOLOGY_ADDR: $(cat "$tmp/topo")"
done
"$emucluster" run --ppn 1 -- "$hiertune" calibrate --csv --max-time 3 > "$tmp/csv" 2> /dev/null || true
# link,latency_us,bandwidth_MBps,...
check_rate() {  # check_rate LINK MB/s
    awk -F, -v link="$1" -v want="$2" -v tol="$tolerance" '$1 == link { found = 1; got = $3
        if (got < (1 - tol / 100) * want || got > (1 + tol / 100) * want) {
            print "link " link ": " got " MB/s, expected " want; exit 1 } }
        END { if (!found) { print "no link " link; exit 1 } }' "$tmp/csv"
}
check_rate 0-1 12.5 || fail "same-leaf link off its 100mbit rate: $(cat "$tmp/csv")"
check_rate 0-2 6.25 || fail "cross-spine link off its 50mbit uplink rate: $(cat "$tmp/csv")"
check_rate 0-3 6.25 || fail "cross-spine link off its 50mbit uplink rate: $(cat "$tmp/csv")"
"$emucluster" down > /dev/null 2>&1

# the same leaves in cyclic order: node i under leaf i mod 2, so nodes 0 and 1 talk
# through the uplinks and nodes 0 and 2 through their leaf
"$emucluster" up --nodes 4 --rate 100mbit --leaf-size 2 --uplink-rate 50mbit --leaf-order cyclic > /dev/null 2>&1
"$emucluster" run --ppn 1 -- sh -c 'echo "$PMI_RANK $SLURM_TOPOLOGY_ADDR"' > "$tmp/topo" 2>&1 ||
    fail "run failed: $(cat "$tmp/topo")"
for r in 0 1 2 3; do
    grep -qx "$r $EMUCLUSTER_PREFIX-sw.$EMUCLUSTER_PREFIX-l$((r % 2)).$EMUCLUSTER_PREFIX-n$r" "$tmp/topo" ||
        fail "cyclic: rank $r: wrong or no SLURM_TOPOLOGY_ADDR: $(cat "$tmp/topo")"
done
"$emucluster" run --ppn 1 -- "$hiertune" calibrate --csv --max-time 3 > "$tmp/csv" 2> /dev/null || true
check_rate 0-2 12.5 || fail "cyclic: same-leaf link off its 100mbit rate: $(cat "$tmp/csv")"
check_rate 0-1 6.25 || fail "cyclic: cross-spine link off its 50mbit uplink rate: $(cat "$tmp/csv")"
"$emucluster" down > /dev/null 2>&1
[ -z "$(made_objects)" ] || fail "down left $(made_objects)"
echo "PASS: link rates and switch addresses on the emulated cluster (block and cyclic leaves)"
