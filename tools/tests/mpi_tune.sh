#!/usr/bin/env bash
# hiertune tune end to end, small: 4 ranks on 2 emulated nodes, 3 sizes, a
# 2-configuration search space (one segment size), both collectives.  tune
# launches its own jobs (calibrate, tasks, the stock reference, verify under
# the tree, the exhaustive sweep);
# then: the tree exists and MPICH loads it, the report starts with the cluster
# line and the calibration and has a row per size with slowdowns >= 1, the
# rerun (through --launcher) measures nothing, and bad input fails cleanly.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
unset MPIR_CVAR_NUM_CLIQUES  # tune sets it from --nodes

stock=${MPICH_GENERIC_JSON:-${MPICH_HIER_BUILDDIR:-}/mpich-4.0.2/maint/tuning/coll/mpir/generic.json}
[ -r "$stock" ] || fail "no MPICH generic.json at '$stock' (set MPICH_GENERIC_JSON or MPICH_HIER_BUILDDIR)"

db=$tmp/tune.sqlite tree=$tmp/tree.json report=$tmp/report
args=(tune -n 4 --nodes 2 -C bcast,allreduce --sizes 2K,24K,200K -s 8K
      --config inter_algo=tsp_kary/sched_binomial,intra_algo=binomial
      --db "$db" -o "$tree" --report "$report" --stock "$stock" --mpiexec "$mpiexec"
      --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
      --allow-cliques)

echo "== tune"
start=$SECONDS
HIERTUNE_CLUSTER="cliques: mpi_tune" "$hiertune" "${args[@]}" > "$tmp/out1" 2> "$tmp/err1" ||
    { cat "$tmp/out1" "$tmp/err1"; fail "tune failed"; }
cat "$tmp/out1"
echo "(tune took $((SECONDS - start)) s)"
for step in 0 1 2 3 4 5 6; do grep -q "^== tune step $step/6" "$tmp/out1" || fail "step $step missing"; done
grep -q "^\\$ .*/hiertune calibrate --db $db --if-missing --json .* > $report/calibration.jsonl$" "$tmp/out1" ||
    fail "no calibrate job"
grep -q "calibration stored in" "$tmp/out1" && fail "first run found a stored calibration"
grep -q "^verify: 6 of 6 cases as the tree says" "$tmp/out1" || fail "verify did not check 6 cases"
grep -q "^stock reference: " "$tmp/out1" || fail "the stock selection was not measured"

echo "== step times: the jobs account every measured item in the database"
count_steps() {
    python3 - "$db" << 'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT step, count(*), min(seconds) FROM step_times GROUP BY step ORDER BY step").fetchall()
print(" ".join(f"{step}={n}" for step, n, low in rows), "positive" if all(low > 0 for _, _, low in rows) else "ZERO")
PY
}
# 4 task groups (2 collectives x 2 configurations x 1 segment size), 6 stock
# points, 2 x 2 x 3 = 12 swept points
steps=$(count_steps)
[ "$steps" = "bench=12 stock=6 tasks=4 positive" ] || fail "step_times rows: $steps"

echo "== step 0: the calibration in the database and atop the report"
calibration=$(python3 - "$db" << 'PY'
import sqlite3
import sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT job_id, link, latency > 0 AND bandwidth > 0 AND n_latency > 0 AND n_bandwidth > 0, cluster"
    " FROM calibration ORDER BY rowid").fetchall()
print(" ".join(f"{job}:{link}:{ok}:{cluster}" for job, link, ok, cluster in rows))
PY
)
[ "$calibration" = "1:0-1:1:cliques: mpi_tune 1:intra:1:cliques: mpi_tune" ] || fail "calibration rows: $calibration"
[ "$(head -1 "$report/report.txt")" = "cluster: cliques: mpi_tune" ] || fail "report.txt: no cluster line first"
sed -n 2p "$report/report.txt" | grep -q '^link *latency(us) *bandwidth(MB/s) *reps$' || fail "report.txt: no table"
sed -n 3,4p "$report/report.txt" | awk '$2 > 0 && $3 > 0 { n++ } END { exit n != 2 }' ||
    fail "report.txt: calibration rows $(sed -n 3,4p "$report/report.txt")"
[ "$(sed -n 3,4p "$report/report.txt" | cut -d' ' -f1 | tr '\n' ' ')" = "0-1 intra " ] || fail "report.txt: links"

echo "== the tree exists and MPICH loads it"
[ -s "$tree" ] || fail "no tree at $tree"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tree" || fail "tree is not JSON"
MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
    bench 4 -C bcast,allreduce --sizes 2048,30000 -c "${fast[@]}" > /dev/null 2> "$tmp/err2" ||
    { cat "$tmp/err2"; fail "collectives under the tuned tree failed"; }

echo "== the report"
for f in report.txt summary.csv predictions.csv prediction.gp; do
    [ -s "$report/$f" ] || fail "no $report/$f"
done
# a row per (collective, size), every slowdown >= 1
[ "$(tail -n +2 "$report/summary.csv" | wc -l)" = 6 ] || { cat "$report/summary.csv"; fail "expected 6 summary rows"; }
for coll in bcast allreduce; do
    for size in 2048 24576 204800; do
        grep -q "^$coll,$size," "$report/summary.csv" || fail "no row for $coll $size"
    done
done
awk -F, 'NR > 1 && !($8 >= 1) { print "FAIL: slowdown < 1: " $0 > "/dev/stderr"; bad = 1 } END { exit bad }' \
    "$report/summary.csv" || fail "slowdown below 1"
# 2 hier configurations and the stock selection per size, all measured
[ "$(tail -n +2 "$report/predictions.csv" | wc -l)" = 18 ] || fail "expected 18 prediction rows"
[ "$(grep -c ',stock,' "$report/predictions.csv")" = 6 ] || fail "expected a stock row per size"
grep -q "^average slowdown: .* over 6 sizes (target <= 1.050): " "$report/report.txt" || fail "no average slowdown"
grep -q "^worst slowdown: " "$report/report.txt" || fail "no worst slowdown"
grep -q "task share .* (target <= 25 %): " "$report/report.txt" || fail "no time comparison"
if command -v gnuplot > /dev/null; then
    [ -s "$report/prediction.png" ] || fail "gnuplot is installed but no plot"
else
    grep -q "gnuplot not found" "$tmp/out1" || fail "missing gnuplot not reported"
fi

echo "== rerun through --launcher: the same job, everything stored, nothing measured"
# the launcher's words replace mpiexec, -n and --nodes (cliques through env)
relaunch=()
for ((i = 0; i < ${#args[@]}; i++)); do
    case ${args[i]} in
        --nodes | --mpiexec) i=$((i + 1)) ;;
        *) relaunch+=("${args[i]}") ;;
    esac
done
"$hiertune" "${relaunch[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out3" 2> "$tmp/err3" ||
    { cat "$tmp/out3" "$tmp/err3"; fail "rerun failed"; }
grep -q "^\\$ env MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 4 .*/hiertune calibrate " "$tmp/out3" || fail "launcher not used"
grep -q "calibration stored in $db: nothing to measure" "$tmp/out3" || fail "rerun calibrated again"
[ "$(head -1 "$report/report.txt")" = "cluster: cliques: mpi_tune" ] || fail "rerun report: no stored cluster line"
grep -q "all task benchmarks stored" "$tmp/out3" || fail "rerun measured tasks again"
grep -q "stock selection measured at every size" "$tmp/out3" || fail "rerun measured the stock selection again"
grep -q "every configuration measured" "$tmp/out3" || fail "rerun swept again"
[ "$(count_steps)" = "$steps" ] || fail "rerun added step times: $(count_steps)"

echo "== errors"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --db "$tmp/e.sqlite" --mpiexec "$tmp/none" 2> "$tmp/e1" &&
    fail "missing mpiexec accepted"
grep -q "^hiertune: error: no mpiexec at $tmp/none" "$tmp/e1" || fail "missing mpiexec: $(cat "$tmp/e1")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$tmp/none.json" --db "$tmp/e.sqlite" 2> "$tmp/e2" &&
    fail "missing stock accepted"
grep -q "^hiertune: error: cannot read JSON tree" "$tmp/e2" || fail "missing stock: $(cat "$tmp/e2")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques -C reduce --stock "$stock" 2> "$tmp/e3" && fail "reduce accepted"
grep -q "reduce not in {bcast,allreduce}" "$tmp/e3" || fail "reduce: $(cat "$tmp/e3")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --config inter_algo=seg_chain --stock "$stock" 2> "$tmp/e4" &&
    fail "seg_chain accepted"
grep -q "^hiertune: error: .*exists only inside the plugin" "$tmp/e4" || fail "seg_chain: $(cat "$tmp/e4")"
# a job that fails (a launcher that always fails)
"$hiertune" tune -n 2 --nodes 2 --allow-cliques --mpiexec /bin/false --sizes 1K -s 4K \
    --stock "$stock" --db "$tmp/e5.sqlite" -o "$tmp/e5.json" --report "$tmp/e5-report" > /dev/null 2> "$tmp/e5" &&
    fail "a failing job accepted"
grep -q "^hiertune: error: step 0 (calibrate) failed: the calibrate job exited with status" "$tmp/e5" ||
    fail "failing job: $(cat "$tmp/e5")"
[ ! -e "$tmp/e5.json" ] || fail "a failed tune wrote a tree"
# emulated nodes without --allow-cliques: refused before anything runs
"$hiertune" tune -n 4 --nodes 2 --stock "$stock" --db "$tmp/e6.sqlite" 2> "$tmp/e6" && fail "--nodes accepted"
grep -q "^hiertune: error: --nodes 2: emulated nodes share one host's cores" "$tmp/e6" || fail "--nodes: $(cat "$tmp/e6")"
MPIR_CVAR_NUM_CLIQUES=2 "$hiertune" tune -n 4 --stock "$stock" --db "$tmp/e6.sqlite" 2> "$tmp/e7" &&
    fail "MPIR_CVAR_NUM_CLIQUES accepted"
grep -q "^hiertune: error: MPIR_CVAR_NUM_CLIQUES=2: emulated" "$tmp/e7" || fail "cliques: $(cat "$tmp/e7")"
[ ! -e "$tmp/e6.sqlite" ] || fail "a refused tune created its database"
# --launcher replaces mpiexec and --nodes; its command must exist
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --launcher "$mpiexec -n 4" --stock "$stock" 2> "$tmp/e8" &&
    fail "--launcher with --nodes accepted"
grep -q "^hiertune: error: --launcher replaces mpiexec, its arguments and -n" "$tmp/e8" || fail "launcher: $(cat "$tmp/e8")"
"$hiertune" tune -n 4 --launcher "'$tmp/no such' -n 4" --stock "$stock" --db "$tmp/e9.sqlite" 2> "$tmp/e9" &&
    fail "missing launcher accepted"
grep -q "^hiertune: error: --launcher: cannot run '$tmp/no such'" "$tmp/e9" || fail "launcher: $(cat "$tmp/e9")"
"$hiertune" tune -n 4 --launcher "mpiexec 'oops" --stock "$stock" 2> "$tmp/e10" && fail "bad quoting accepted"
grep -q "^hiertune: error: --launcher 'mpiexec 'oops': unterminated '" "$tmp/e10" || fail "quoting: $(cat "$tmp/e10")"
echo "PASS: mpi_tune"
