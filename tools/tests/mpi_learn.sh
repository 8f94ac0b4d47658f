#!/usr/bin/env bash
# hiertune learn end to end, small: bcast on 2 emulated nodes x 1 and 2 ranks
# per node, sizes 1K..16K, 3 configurations (default, binomial, smp), under a
# time budget.  learn launches its own bench jobs (mpiexec -n NODES*PPN with
# MPIR_CVAR_NUM_CLIQUES=NODES); then: the iteration lines, the tree passes
# check-tree and MPICH loads it (data-checked bcasts on both shapes), a rerun
# without --machine finds the machine through its first job and reads every
# stored point back (it measures only points not stored), a rerun with
# --machine resumes before any job (nothing measured under a spent budget),
# --train-only writes a tree from the database alone, --parallel runs the jobs
# of a round at once, and bad input fails cleanly.  Cliques time the
# scheduler: correctness only.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
unset MPIR_CVAR_NUM_CLIQUES  # learn sets it per job

stock=$(stock_tree)
db=$tmp/learn.sqlite tree=$tmp/tree.json
space=(-C bcast --nodes 2 --ppn 1,2 -m 1K:16K -a default -a binomial -a smp)
effort=(-x 1 --min-reps 3 -i 8 --max-time 0.5 --trees 30)
args=(learn "${space[@]}" "${effort[@]}" --db "$db" -o "$tree" --stock "$stock" --mpiexec "$mpiexec"
      --batch 3 --allow-cliques)

count_points() { db_rows "$db" | grep -c . || true; }
# "bcast: stopped (...) after N iterations: P points (M measured now, D from the database), ..."
summary() { grep -E '^bcast: stopped \(' "$1" || fail "no summary line in $1: $(cat "$1")"; }
summary_field() {  # summary_field FILE measured|database
    local pattern='[^0-9]([0-9]+) measured now'
    [ "$2" = database ] && pattern='[^0-9]([0-9]+) from the database'
    summary "$1" | sed -E "s/.*$pattern.*/\\1/"
}

echo "== learn"
start=$SECONDS
"$hiertune" "${args[@]}" --time-budget 12 > "$tmp/out1" 2> "$tmp/err1" ||
    { cat "$tmp/out1" "$tmp/err1"; fail "learn failed"; }
cat "$tmp/out1"
echo "(learn took $((SECONDS - start)) s)"
grep -q '^== learn bcast: 30 candidates (3 configurations x 2 shapes x 5 sizes), batch 3$' "$tmp/out1" ||
    fail "no space line"
grep -Eq '^iteration 1: [0-9]+ points? measured, summed variance [0-9.e+-]+, [0-9]+\.[0-9] s$' "$tmp/out1" ||
    fail "no iteration line"
summary "$tmp/out1" | grep -Eq 'stopped \((converged|time budget|every candidate measured)\)' || fail "stop reason"
machine=$(sed -n 's/^machine: \(.*\) (named by the job; --machine sets it)$/\1/p' "$tmp/out1")
[ -n "$machine" ] || fail "the first job named no machine"
# one bench job per shape of a batch: 2 ranks (2 x 1) and 4 ranks (2 x 2) on 2 cliques
grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 2 .*/hiertune bench -C bcast -a .* --db $db --account learn --allow-cliques > /dev/null$" \
    "$tmp/out1" || fail "no 2-rank bench job"
grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 4 .*/hiertune bench -C bcast " "$tmp/out1" || fail "no 4-rank bench job"
grep -q "^wrote $tree$" "$tmp/out1" || fail "no tree written"
points1=$(count_points)
[ "$points1" -gt 0 ] || fail "no points in $db"
[ "$(summary_field "$tmp/out1" measured)" = "$points1" ] || fail "measured now != points in the database ($points1)"
"$hiertune" db check --db "$db" > /dev/null || fail "db check"
learn_rows=$(python3 -c 'import sqlite3, sys
print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM step_times WHERE step = '"'"'learn'"'"'").fetchone()[0])' "$db")
[ "$learn_rows" = "$points1" ] || fail "step_times: $learn_rows rows of learn, $points1 points"

echo "== the tree: check-tree, show-tree, MPICH loads it"
"$hiertune" check-tree "$tree" > "$tmp/check" || { cat "$tmp/check"; fail "check-tree refused the tree"; }
grep -q "^$tree: ok (MPIR tree" "$tmp/check" || fail "check-tree: $(cat "$tmp/check")"
"$hiertune" show-tree "$tree" -C bcast --comm-sizes 2,4 --ppn 1,2 > "$tmp/show" || fail "show-tree failed"
grep -q "NO MATCH\|ASSERTS" "$tmp/show" && fail "show-tree: $(cat "$tmp/show")"
for ranks in 2 4; do
    MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
        bench "$ranks" -C bcast --sizes 1024,3000,16384,100000 -c "${fast[@]}" > /dev/null 2> "$tmp/err2" ||
        { cat "$tmp/err2"; fail "bcast on $ranks ranks under the learned tree failed"; }
done

echo "== rerun: the first job names the machine, every stored point is read back"
"$hiertune" "${args[@]}" --time-budget 3 > "$tmp/out2" 2> "$tmp/err2" ||
    { cat "$tmp/out2" "$tmp/err2"; fail "rerun failed"; }
points2=$(count_points)
[ "$(summary_field "$tmp/out2" database)" = "$points1" ] ||
    fail "rerun read $(summary_field "$tmp/out2" database) stored points, $points1 stored: $(summary "$tmp/out2")"
[ "$((points2 - points1))" = "$(summary_field "$tmp/out2" measured)" ] ||
    fail "rerun: $((points2 - points1)) new points stored, $(summary_field "$tmp/out2" measured) measured"
grep -q "^machine: $machine " "$tmp/out2" || fail "rerun: another machine"

echo "== rerun with --machine: resumed before any job, nothing measured"
"$hiertune" "${args[@]}" --machine "$machine" --time-budget 1e-9 --collect-only > "$tmp/out3" 2> "$tmp/err3" ||
    { cat "$tmp/out3" "$tmp/err3"; fail "resumed run failed"; }
grep -q "^resumed: $points2 points of bcast from $db (machine $machine)$" "$tmp/out3" ||
    fail "resume: $(cat "$tmp/out3")"
grep -q '^\$ ' "$tmp/out3" && fail "a spent budget launched a job: $(cat "$tmp/out3")"
summary "$tmp/out3" | grep -q "stopped (time budget)" || fail "resume: $(summary "$tmp/out3")"
grep -q '^--collect-only: no tree' "$tmp/out3" || fail "collect-only wrote a tree"
[ "$(count_points)" = "$points2" ] || fail "a resumed run stored points"

echo "== --train-only: the tree from the database alone"
"$hiertune" learn "${space[@]}" --trees 30 --db "$db" -o "$tmp/trained.json" --stock "$stock" --train-only \
    > "$tmp/out4" 2> "$tmp/err4" || { cat "$tmp/out4" "$tmp/err4"; fail "train-only failed"; }
grep -q "^machine: $machine (the one machine with jobs of these shapes)$" "$tmp/out4" || fail "train-only machine"
grep -q "^== train bcast: $points2 points from $db$" "$tmp/out4" || fail "train-only: $(cat "$tmp/out4")"
grep -q '^\$ ' "$tmp/out4" && fail "train-only launched a job"
"$hiertune" check-tree "$tmp/trained.json" > /dev/null || fail "check-tree refused the trained tree"
[ "$(count_points)" = "$points2" ] || fail "train-only stored points"

echo "== compare-tuners (no MPI): the two trees against the learned points as the sweep"
"$hiertune" compare-tuners --db "$db" --tree ml="$tree" --tree trained="$tmp/trained.json" --tuning-db ml="$db" \
    --stock "$stock" > "$tmp/cmp" 2>&1 || { cat "$tmp/cmp"; fail "compare-tuners failed"; }
grep -q '^tuner  *cases  not measured  avg slowdown  worst slowdown  worst at  *points  tuning time (s)$' \
    "$tmp/cmp" || fail "compare-tuners header: $(cat "$tmp/cmp")"
for name in exhaustive ml trained "MPICH default"; do
    grep -q "^$name " "$tmp/cmp" || fail "compare-tuners: no row $name: $(cat "$tmp/cmp")"
done
"$hiertune" compare-tuners --db "$db" --tree ml="$tree" --tree trained="$tmp/trained.json" --tuning-db ml="$db" \
    --stock "$stock" --csv > "$tmp/cmp.csv" || fail "compare-tuners --csv failed"
python3 - "$tmp/cmp.csv" <<'PY' || fail "compare-tuners CSV: $(cat "$tmp/cmp.csv")"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["tuner"] for r in rows] == ["exhaustive", "ml", "trained", "MPICH default"], rows
assert rows[0]["average_slowdown"] == rows[0]["worst_slowdown"] == "1.0000", rows[0]
cases = {r["cases"] for r in rows}
assert len(cases) == 1 and int(cases.pop()) > 0, rows
for r in rows:
    for field in ("average_slowdown", "worst_slowdown"):
        assert r[field] == "" or float(r[field]) >= 1, r
assert int(rows[0]["points"]) > 0 and rows[1]["seconds"] != "" and rows[2]["points"] == "", rows
PY

echo "== --parallel: a round's jobs at once on disjoint (emulated) nodes"
"$hiertune" learn "${space[@]}" "${effort[@]}" --db "$tmp/parallel.sqlite" --mpiexec "$mpiexec" --batch 6 \
    --parallel 4 --collect-only --time-budget 4 --allow-cliques > "$tmp/out5" 2> "$tmp/err5" ||
    { cat "$tmp/out5" "$tmp/err5"; fail "parallel learn failed"; }
grep -Eq '^round: 2 nodes x [12] ppn on nodes 0-1 2 nodes x [12] ppn on nodes 2-3$' "$tmp/out5" ||
    fail "no round of two jobs: $(grep '^round:' "$tmp/out5")"

echo "== --launcher: the shape through placeholders (maint/emucluster run --cliques, correctness only)"
emucluster=${MPICH_HIER_SRCDIR:-$here/../..}/maint/emucluster
[ -x "$emucluster" ] || fail "no $emucluster (set MPICH_HIER_SRCDIR)"
"$hiertune" learn "${space[@]}" "${effort[@]}" --db "$tmp/launcher.sqlite" --batch 2 \
    --launcher "$emucluster run --cliques {nodes} --ppn {ppn} --" --collect-only --time-budget 2 --allow-cliques \
    > "$tmp/out6" 2> "$tmp/err6" || { cat "$tmp/out6" "$tmp/err6"; fail "learn through the launcher failed"; }
for ppn in 1 2; do
    grep -q "^\\$ $emucluster run --cliques 2 --ppn $ppn -- .*/hiertune bench -C bcast " "$tmp/out6" ||
        fail "no launch of 2 x $ppn through the launcher: $(grep '^\$ ' "$tmp/out6")"
done
grep -q '^bcast: stopped (' "$tmp/out6" || fail "learn through the launcher: $(cat "$tmp/out6")"

echo "== errors"
expect_error() {  # expect_error PATTERN ARGS...: learn fails (status 2: bad input) saying PATTERN, measuring nothing
    local pattern=$1 status=0
    shift
    "$hiertune" learn "$@" > "$tmp/eout" 2> "$tmp/eerr" || status=$?
    [ "$status" = 2 ] || fail "learn $*: exit status $status: $(cat "$tmp/eout" "$tmp/eerr")"
    grep -q -- "$pattern" "$tmp/eerr" || fail "learn $*: $(cat "$tmp/eerr")"
    grep -q '^\$ ' "$tmp/eout" && fail "learn $*: launched a job"
    return 0
}
common=(--db "$tmp/e.sqlite" --stock "$stock" --mpiexec "$mpiexec")
expect_error "--nodes is required" -C bcast "${common[@]}"
expect_error "^hiertune: error: -m: size 1000 is not a power of two" --nodes 2 -m 1000:4000 "${common[@]}" --allow-cliques
expect_error "^hiertune: error: --nodes 2 without --launcher: emulated nodes" --nodes 2 "${common[@]}"
expect_error "excludes" --nodes 2 --collect-only --train-only "${common[@]}" --allow-cliques
expect_error "^hiertune: error: --parallel needs the mpiexec launch" --nodes 2 --parallel 4 --launcher "maint/emucluster run" --db "$tmp/e.sqlite" \
    --stock "$stock" --allow-cliques
expect_error "^hiertune: error: --train-only: no database" --nodes 2 --train-only --db "$tmp/none.sqlite" --stock "$stock"
expect_error "gather" -C gather --nodes 2 "${common[@]}" --allow-cliques
expect_error "^hiertune: error: unknown bcast algorithm 'nosuch'" --nodes 2 -a nosuch "${common[@]}" --allow-cliques
[ ! -e "$tmp/e.sqlite" ] || fail "a refused learn created its database"
echo "PASS"
