#!/usr/bin/env bash
# hiertune tune with seg_* inter-node submodules in the search space, small: 4
# ranks on 2 emulated nodes (cliques: correctness only), bcast and allreduce at
# two sizes, tsp_kary and seg_pipeline with binomial inside the node.  Step 0b
# fits the analytic models on one rank per node (mpiexec -n 2 on 2 cliques),
# only the tsp_kary configuration is task-benchmarked, the model predicts
# seg_pipeline from the fitted models, the exhaustive sweep measures both, and
# the report has a prediction and a measurement for every configuration; a
# rerun measures nothing.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
unset MPIR_CVAR_NUM_CLIQUES  # tune sets it from --nodes

stock=$(stock_tree)

db=$tmp/tune.sqlite tree=$tmp/tree.json report=$tmp/report
args=(tune -n 4 --nodes 2 -C bcast,allreduce --sizes 24K,200K -s 8K
      --config inter_algo=tsp_kary/seg_pipeline,intra_algo=binomial
      --db "$db" -o "$tree" --report "$report" --stock "$stock" --mpiexec "$mpiexec"
      --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
      --tree-rounds 2 --allow-tree-slower --allow-cliques)

echo "== tune"
"$hiertune" "${args[@]}" > "$tmp/out1" 2> "$tmp/err1" || { cat "$tmp/out1" "$tmp/err1"; fail "tune failed"; }
cat "$tmp/out1"
grep -q "^== tune step 0b/7: fit the analytic models" "$tmp/out1" || fail "no fit step"
grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 2 .*/hiertune fit --db $db -C bcast,reduce -a seg_pipeline " \
    "$tmp/out1" || fail "fit not launched on one rank per node"
grep -q "^\\$ .*/hiertune tasks .*seg_pipeline" "$tmp/out1" && fail "seg_pipeline task-benchmarked"
for coll in bcast allreduce; do
    grep -q "^$coll: 1 seg_\* inter-node candidates from the analytic models of job " "$tmp/out1" ||
        fail "$coll: no seg_* candidate from the models"
done
python3 - "$report/predictions.csv" <<'PY' || fail "the report lacks seg_pipeline's prediction or measurement"
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if "inter_algo=seg_pipeline" in r["config"]]
assert len(rows) == 4, rows  # 2 collectives x 2 sizes
assert all(r["predicted_us"] and r["measured_us"] for r in rows), rows
PY
python3 - "$db" <<'PY' || fail "the database does not hold the fit on one rank per node"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
jobs = db.execute("SELECT id FROM jobs WHERE ranks = 2 AND nodes = 2 AND ppn = 1").fetchall()
assert len(jobs) == 1, jobs
models = db.execute("SELECT collective, algorithm FROM fit_models WHERE job_id = ?", jobs[0]).fetchall()
assert sorted(models) == [("bcast", "seg_pipeline"), ("reduce", "seg_pipeline")], models
PY

echo "== a rerun measures nothing"
"$hiertune" "${args[@]}" > "$tmp/out2" 2> "$tmp/err2" || { cat "$tmp/out2" "$tmp/err2"; fail "rerun failed"; }
grep -q "fit points stored, 0 to measure" "$tmp/err2" "$tmp/out2" || fail "the fit measured again"
grep -q "every configuration measured" "$tmp/out2" || fail "rerun swept again"
echo "PASS: mpi_tune_seg"
