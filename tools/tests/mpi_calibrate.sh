#!/usr/bin/env bash
# hiertune calibrate, 4 ranks on 2 emulated nodes (--allow-cliques: loopback
# numbers, correctness only): the table has the links 0-1 and intra with
# positive numbers, --db stores them with the cluster line, a rerun replaces
# them, --if-missing keeps them, an absurd --expect-rate exits 1 naming the
# link; then the refusal without --allow-cliques and bad input.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

db=$tmp/calibration.sqlite
effort=(-x 1 --min-reps 3 -i 20 --max-time 1 --bw-size 64K --bw-window 4)
quick=("${effort[@]}" --allow-cliques)
calibrate() { "$mpiexec" -n 4 "$hiertune" calibrate "$@"; }

# Rows of the calibration table: link|latency|bandwidth|n_latency|n_bandwidth|cluster
rows() {
    python3 - "$db" << 'PY'
import sqlite3, sys
for row in sqlite3.connect(sys.argv[1]).execute(
        "SELECT link, latency, bandwidth, n_latency, n_bandwidth, cluster FROM calibration ORDER BY rowid"):
    print("|".join(str(v) for v in row))
PY
}

echo "== calibrate into $db"
HIERTUNE_CLUSTER="cliques: test one" calibrate --db "$db" "${quick[@]}" > "$tmp/out1" 2> "$tmp/err1" ||
    { cat "$tmp/out1" "$tmp/err1"; fail "calibrate failed"; }
cat "$tmp/out1"
grep -q "job 1 (.*4 ranks, 2 nodes x 2 ppn, round-robin): measuring 2 links" "$tmp/err1" ||
    { cat "$tmp/err1"; fail "unexpected plan"; }
grep -q '^# cluster: cliques: test one$' "$tmp/out1" || fail "no cluster line"
grep -q '^link *latency(us) *bandwidth(MB/s) *reps$' "$tmp/out1" || fail "no table header"
# link, latency, bandwidth > 0, reps latency/bandwidth >= 1 each
awk '$1 == "0-1" || $1 == "intra" {
        split($4, reps, "/")
        if (!($2 > 0 && $3 > 0 && reps[1] >= 1 && reps[2] >= 1)) { print "FAIL: row " $0 > "/dev/stderr"; bad = 1 }
        seen[$1] = 1 }
     END { if (!seen["0-1"] || !seen["intra"]) { print "FAIL: links missing" > "/dev/stderr"; bad = 1 }; exit bad }' \
    "$tmp/out1" || fail "table rows"
[ "$(grep -cE '^(0-[0-9]+|intra) ' "$tmp/out1")" = 2 ] || fail "expected 2 links"
first=$(rows)
echo "$first"
[ "$(printf '%s\n' "$first" | cut -d'|' -f1 | tr '\n' ' ')" = "0-1 intra " ] || fail "stored links: $first"
printf '%s\n' "$first" | awk -F'|' '!($2 > 0 && $3 > 0 && $4 >= 1 && $5 >= 1 && $6 == "cliques: test one") {
    print "FAIL: stored row " $0 > "/dev/stderr"; bad = 1 } END { exit bad }' || fail "stored values"
"$hiertune" db list --db "$db" | grep -q "^    calibration: 0-1 .* us .* MB/s, intra .*; cluster: cliques: test one; measured " ||
    fail "db list: $("$hiertune" db list --db "$db")"

echo "== rerun: the job's rows are replaced"
HIERTUNE_CLUSTER="cliques: test two" calibrate --db "$db" --json "${quick[@]}" > "$tmp/out2" 2> "$tmp/err2" ||
    { cat "$tmp/err2"; fail "rerun failed"; }
second=$(rows)
[ "$(printf '%s\n' "$second" | wc -l)" = 2 ] || fail "rerun left $(printf '%s\n' "$second" | wc -l) rows: $second"
[ "$(printf '%s\n' "$second" | cut -d'|' -f6 | sort -u)" = "cliques: test two" ] || fail "rows not replaced: $second"
python3 - "$tmp/out2" << 'PY' || fail "bad JSON lines"
import json, sys
lines = [json.loads(line) for line in open(sys.argv[1])]
assert [p["link"] for p in lines] == ["0-1", "intra"], lines
for p in lines:
    assert p["latency_us"] > 0 and p["bandwidth_MBps"] > 0 and p["source"] == "measured", p
    assert p["job"] == 1 and p["ranks"] == 4 and p["nodes"] == 2 and p["cluster"] == "cliques: test two", p
PY

echo "== --if-missing: the stored calibration is kept"
calibrate --db "$db" --if-missing --csv "${quick[@]}" > "$tmp/out3" 2> "$tmp/err3" ||
    { cat "$tmp/err3"; fail "--if-missing failed"; }
grep -q "calibration stored (measured .*): nothing to measure" "$tmp/err3" || { cat "$tmp/err3"; fail "measured again"; }
[ "$(tail -n +2 "$tmp/out3" | cut -d, -f1,6 | tr '\n' ' ')" = "0-1,db intra,db " ] || fail "csv: $(cat "$tmp/out3")"
[ "$(rows)" = "$second" ] || fail "--if-missing changed the rows"

echo "== --expect-rate: an absurd rate fails the link"
status=0
calibrate --expect-rate 1 --tolerance 10 "${quick[@]}" > "$tmp/out4" 2> "$tmp/err4" || status=$?
cat "$tmp/out4"
[ "$status" = 1 ] || { cat "$tmp/err4"; fail "--expect-rate 1 exited with $status, expected 1"; }
grep -q "^0-1: rate off by +[0-9.]* % (.* MB/s measured, 1 B/s expected, tolerance 10 %)$" "$tmp/out4" ||
    fail "no verdict naming 0-1"
grep -q "^intra: rate" "$tmp/out4" && fail "intra judged against the node link rate"

echo "== errors"
status=0
calibrate "${effort[@]}" > /dev/null 2> "$tmp/e1" || status=$?
[ "$status" = 2 ] || fail "cliques without --allow-cliques exited with $status"
[ "$(grep -c "^hiertune: error: MPIR_CVAR_NUM_CLIQUES=2: emulated nodes share one host's cores" "$tmp/e1")" = 1 ] ||
    { cat "$tmp/e1"; fail "no single refusal line"; }
calibrate --expect-rate fast "${quick[@]}" > /dev/null 2> "$tmp/e2" && fail "--expect-rate fast accepted"
grep -q "^hiertune: error: --expect-rate 'fast': " "$tmp/e2" || fail "bad rate: $(cat "$tmp/e2")"
HIERTUNE_LINK_RATE=12.5Q calibrate "${quick[@]}" > /dev/null 2> "$tmp/e3" && fail "bad HIERTUNE_LINK_RATE accepted"
grep -q "^hiertune: error: HIERTUNE_LINK_RATE '12.5Q': unknown suffix" "$tmp/e3" || fail "bad env rate: $(cat "$tmp/e3")"
MPIR_CVAR_NUM_CLIQUES=1 "$mpiexec" -n 2 "$hiertune" calibrate "${quick[@]}" > /dev/null 2> "$tmp/e4" &&
    fail "one node accepted"
grep -q "^hiertune: error: calibrate needs at least 2 nodes" "$tmp/e4" || fail "one node: $(cat "$tmp/e4")"
echo "PASS: mpi_calibrate"
