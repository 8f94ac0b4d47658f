#!/usr/bin/env bash
# hiertune overlap under mpiexec, 2 ranks: the CSV of a small grid (its
# columns, one row per operation x size x computation time, eq. (1) holding
# on every row), the verdicts, the JSON's settings without and with
# MPIR_CVAR_ASYNC_PROGRESS and computation threads, overlap-report's tables
# and heat maps of both runs, and the errors of bad input.  Shape and
# arithmetic only: the timings themselves are not under test.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

overlap() {  # hiertune overlap --allow-cliques under mpiexec, 2 ranks
    "$mpiexec" -n 2 "$hiertune" overlap --allow-cliques "$@" < /dev/null
}

echo "== isend and iallreduce over 1K:4K x 10:100 us, CSV"
overlap -O isend,iallreduce -m 1K:4K --comp 10:100 --comp-points 2 -r 3 --csv > "$tmp/csv" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "overlap run failed"; }
[ "$(head -n 1 "$tmp/csv")" = "operation,algorithm,params,size,comp_us,t_comm_us,t_comp_us,t_measured_us,ratio" ] ||
    fail "unexpected header: $(head -n 1 "$tmp/csv")"
[ "$(tail -n +2 "$tmp/csv" | wc -l)" = 12 ] || { cat "$tmp/csv"; fail "expected 12 rows (2 operations x 3 sizes x 2 times)"; }
# each (operation, size, comp) exactly once, and exactly the planned ones
tail -n +2 "$tmp/csv" | awk -F, '
    { key = $1 "," $4 "," $5; if (seen[key]++) { print "FAIL: row twice: " key > "/dev/stderr"; bad = 1 } }
    !(($1 == "isend" || $1 == "iallreduce") && ($4 == 1024 || $4 == 2048 || $4 == 4096) &&
      ($5 == 10 || $5 == 100) && $2 == "default") { print "FAIL: unplanned row: " $0 > "/dev/stderr"; bad = 1 }
    END { exit bad }' || fail "wrong cells"
# times > 0; ratio = (t_measured - max) / min up to the printed rounding
# (3 decimals on the times, 4 on the ratio)
tail -n +2 "$tmp/csv" | awk -F, '
    function abs(x) { return x < 0 ? -x : x }
    {
        comm = $6; comp = $7; meas = $8; ratio = $9
        if (!(comm > 0 && comp > 0 && meas > 0)) { print "FAIL: time <= 0: " $0 > "/dev/stderr"; bad = 1; next }
        lo = comm < comp ? comm : comp; hi = comm < comp ? comp : comm
        want = (meas - hi) / lo
        if (abs(ratio - want) > 0.0001 + 0.001 * (1 + abs(want)) / lo) {
            print "FAIL: ratio " ratio " != " want ": " $0 > "/dev/stderr"; bad = 1 }
    }
    END { exit bad }' || fail "eq. (1) does not hold"
for operation in isend iallreduce; do
    grep -q "^hiertune: $operation (default)\( overlaps\|: no verdict\)" "$tmp/err" ||
        { cat "$tmp/err"; fail "no verdict line for $operation"; }
done

echo "== JSON without and with ASYNC_PROGRESS (environment), 3 computation threads, overlap-report"
overlap -O iallreduce -m 1K:2K --comp 10:10 -r 2 --json > "$tmp/plain.json" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "overlap --json failed"; }
MPIR_CVAR_ASYNC_PROGRESS=1 overlap -O iallreduce -m 1K:2K --comp 10:10 -r 2 -t 3 --json \
    > "$tmp/async.json" 2> "$tmp/err" || { cat "$tmp/err"; fail "overlap --json with ASYNC_PROGRESS failed"; }
# the settings as MPI_T and MPI_Query_thread see them (async progress raises the thread level)
head -n 1 "$tmp/plain.json" | grep -q '"threads":1,"async_progress":"0","thread_level":"single"' ||
    fail "plain run's settings: $(head -n 1 "$tmp/plain.json")"
head -n 1 "$tmp/async.json" | grep -q '"threads":3,"async_progress":"1","thread_level":"multiple"' ||
    fail "async run's settings: $(head -n 1 "$tmp/async.json")"
# one rank per emulated node, 3 threads: more than the cores where a rank may use fewer than 3
if [ "$(nproc)" -lt 3 ]; then
    grep -q "1 ranks per node x 3 computation threads > the cores" "$tmp/err" ||
        { cat "$tmp/err"; fail "no oversubscription warning"; }
elif grep -q "computation threads > the cores" "$tmp/err"; then
    fail "oversubscription warning with $(nproc) cores"
fi
[ "$(grep -c '"size"' "$tmp/async.json")" = 2 ] || fail "expected 2 cells in the async run"
"$hiertune" overlap-report "$tmp/plain.json" "$tmp/async.json" --png-dir "$tmp/maps" > "$tmp/report" ||
    { cat "$tmp/report"; fail "overlap-report failed"; }
grep -q "^## iallreduce (default)" "$tmp/report" || { cat "$tmp/report"; fail "no iallreduce section"; }
for label in "ASYNC_PROGRESS=0, 1 thread" "ASYNC_PROGRESS=1, 3 threads"; do
    grep -q "^# verdict, $label" "$tmp/report" || { cat "$tmp/report"; fail "no verdict for $label"; }
done
[ "$(grep -c '^  [12]K ' "$tmp/report")" = 4 ] || { cat "$tmp/report"; fail "expected 2 table rows per run"; }
[ -s "$tmp/maps/overlap-iallreduce-default.png" ] || { cat "$tmp/report"; fail "no heat map"; }
[ "$(head -c 8 "$tmp/maps/overlap-iallreduce-default.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    fail "the heat map is not a PNG"
if "$hiertune" overlap-report "$tmp/report" > "$tmp/out" 2> "$tmp/err"; then
    fail "overlap-report accepted a file that is not overlap --json output"
fi
grep -q "not a line of hiertune overlap --json" "$tmp/err" || { cat "$tmp/err"; fail "no message for a bad file"; }

echo "== errors"
if overlap -O bogus -m 1K:1K --comp 10:10 -r 1 --csv > "$tmp/out" 2> "$tmp/err"; then
    fail "an unknown operation was accepted"
fi
grep -q "bogus" "$tmp/err" || { cat "$tmp/err"; fail "no message naming the unknown operation"; }
if overlap -O isend -p MPIR_CVAR_ASYNC_PROGRESS=1 -m 1K:1K --comp 10:10 -r 1 > "$tmp/out" 2> "$tmp/err"; then
    fail "MPIR_CVAR_ASYNC_PROGRESS was accepted at run time"
fi
grep -q "set it in the environment" "$tmp/err" || { cat "$tmp/err"; fail "no hint to set ASYNC_PROGRESS in the environment"; }

echo "PASS"
