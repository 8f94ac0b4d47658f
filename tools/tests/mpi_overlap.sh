#!/usr/bin/env bash
# hiertune overlap under mpiexec, 2 ranks: the CSV of a small grid (its
# columns, one row per operation x size x computation time, eq. (1) holding
# on every row), the verdicts, and the errors of bad input.  Shape and
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
