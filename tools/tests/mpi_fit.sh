#!/usr/bin/env bash
# hiertune fit and generate --from analytic end to end, 4 ranks on 2 emulated
# nodes (cliques: correctness only): a small fit (gamma at one segment size,
# three bcast and two reduce algorithms at 3 sizes) stored with the job; a
# rerun measures nothing and refits the same; a tree generated from the models
# for comm sizes 2, 4 and 8 (8: predicted), which MPICH loads and under which
# every collective returns the right data; then the errors.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

stock=$(stock_tree)

db=$tmp/fit.sqlite
fit_fast=(-x 1 --min-reps 3 -i 8 --max-time 2)
space=(--smallest 4K --largest 64K --count 3 --gamma-segsizes 4K --segsize 4K --gather 512)
fit() {  # fit COLLECTIVE ALGORITHMS OUT
    "$mpiexec" -n 4 "$hiertune" fit --allow-cliques --db "$db" -C "$1" -a "$2" "${space[@]}" "${fit_fast[@]}" \
        > "$3" 2> "$3.err" || { cat "$3" "$3.err"; fail "fit $1 $2 failed"; }
}
echo "== fit"
fit bcast binomial,seg_binomial,seg_chain "$tmp/fit1"
fit reduce binomial,seg_linear "$tmp/fit2"
cat "$tmp/fit2"
grep -q "0 of 12 fit points stored, 12 to measure" "$tmp/fit1.err" || fail "first fit: $(cat "$tmp/fit1.err")"
grep -q "3 of 9 fit points stored, 6 to measure" "$tmp/fit2.err" || fail "second fit: $(cat "$tmp/fit2.err")"
# eager points at 1, 2 and 4 KiB (up to the gamma segment), measured once
grep -q "0 of 3 eager points stored" "$tmp/fit1.err" || fail "first fit, eager: $(cat "$tmp/fit1.err")"
grep -q "3 of 3 eager points stored" "$tmp/fit2.err" || fail "second fit, eager: $(cat "$tmp/fit2.err")"
for b in 1024 2048 4096; do grep -Eq "^$b +[0-9.]+$" "$tmp/fit2" || fail "no eager ratio at $b B"; done
grep -Eq "^# eager limit: (0|1024|2048|4096) B" "$tmp/fit2" || fail "no eager limit printed"
# gamma for P = 2, 3, 4 at 4 KiB (gamma(2) = 1 by definition), five fitted algorithms
for p in 2 3 4; do grep -Eq "^4096 +$p +[0-9.]+" "$tmp/fit2" || fail "no gamma for P = $p"; done
grep -Eq "^4096 +2 +1\.000" "$tmp/fit2" || fail "gamma(2) is not 1"
[ "$(grep -Ec ' (bcast|reduce) ' "$tmp/fit2")" = 5 ] || fail "expected 5 fitted algorithms"
python3 - "$db" <<'PY' || fail "the database does not hold the fit"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
kinds = dict(db.execute("SELECT kind, count(*) FROM fit_points GROUP BY kind"))
assert kinds == {"gamma": 3, "experiment": 15}, kinds
eager = db.execute("SELECT msg_bytes, median FROM fit_eager").fetchall()
assert sorted(b for b, _ in eager) == [1024, 2048, 4096] and all(r > 0 for _, r in eager), eager
models = db.execute("SELECT collective, algorithm, procs, equations, alpha, beta FROM fit_models").fetchall()
assert len(models) == 5, models
assert all(procs == 4 and eq == 3 for _, _, procs, eq, _, _ in models), models
assert db.execute("SELECT count(*) FROM step_times WHERE step = 'fit'").fetchone()[0] == 2
PY

echo "== a rerun measures nothing and fits the same"
before=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT group_concat(alpha || \",\" || beta) FROM fit_models').fetchone()[0])" "$db")
fit reduce binomial,seg_linear "$tmp/fit3"
grep -q "9 of 9 fit points stored, 0 to measure" "$tmp/fit3.err" || fail "rerun: $(cat "$tmp/fit3.err")"
after=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT group_concat(alpha || \",\" || beta) FROM fit_models').fetchone()[0])" "$db")
[ "$before" = "$after" ] || fail "refit changed the models: $before vs $after"

echo "== generate --from analytic"
tree=$tmp/tree.json
"$hiertune" generate --db "$db" --stock "$stock" -o "$tree" --from analytic --comm-sizes 2,4,8 \
    --sizes 1024,16384,262144 > "$tmp/gen" || { cat "$tmp/gen"; fail "generate --from analytic failed"; }
cat "$tmp/gen"
grep -q "comm sizes: measured 4; predicted 2,8" "$tmp/gen" || fail "generate does not say what is predicted"
"$hiertune" check-tree "$tree" "$stock" > /dev/null || fail "check-tree refused the analytic tree"
"$hiertune" show-tree "$tree" -C bcast,reduce --comm-sizes 4,8 --ppn 2 > "$tmp/show" || fail "show-tree failed"
grep -Eq "MPIR_(Bcast|Reduce)_intra_(binomial|seg_)" "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"

echo "== collectives under the tree"
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
    bench 4 -C bcast,reduce --sizes 1,1000,16384,100000 -c "${fast[@]}" > "$tmp/out" 2> "$tmp/err" ||
    { cat "$tmp/err"; fail "collectives under the analytic tree failed"; }
[ "$(grep -c '^[0-9]' "$tmp/out")" = 8 ] || fail "expected 8 rows under the tree"

echo "== errors"
"$mpiexec" -n 4 "$hiertune" fit --allow-cliques --db "$db" -a smp "${fit_fast[@]}" > /dev/null 2> "$tmp/e1" &&
    fail "fit of an unmodelled algorithm accepted"
grep -q "hiertune: error: no analytic model of bcast smp" "$tmp/e1" || fail "unmodelled: $(cat "$tmp/e1")"
"$hiertune" generate --db "$db" --stock "$stock" -o "$tmp/x.json" --from analytic -C allreduce 2> "$tmp/e2" &&
    fail "analytic allreduce accepted"
grep -q "the analytic models cover bcast and reduce" "$tmp/e2" || fail "allreduce: $(cat "$tmp/e2")"
"$hiertune" generate --db "$db" --stock "$stock" -o "$tmp/x.json" --comm-sizes 4 2> "$tmp/e3" &&
    fail "--comm-sizes without --from analytic accepted"
grep -q "hiertune: error: --comm-sizes needs --from analytic" "$tmp/e3" || fail "comm sizes: $(cat "$tmp/e3")"
[ ! -e "$tmp/x.json" ] || fail "a failed generate wrote a tree"
echo "PASS: mpi_fit"
