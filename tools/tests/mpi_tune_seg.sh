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
echo "== shapes larger than the allocation, predicted"
# 3 and 4 nodes x 1 rank beyond the 2 nodes: step 0b fits every modelled algorithm
# (MPICH's too: no -a), the tree names at each predicted shape what the report says
ptree=$tmp/predicted.json preport=$tmp/predicted-report
pargs=()
for a in "${args[@]}"; do
    case $a in "$tree") pargs+=("$ptree") ;; "$report") pargs+=("$preport") ;; *) pargs+=("$a") ;; esac
done
"$hiertune" "${pargs[@]}" --predict-shapes 3x1,4x1 > "$tmp/out3" 2> "$tmp/err3" ||
    { cat "$tmp/out3" "$tmp/err3"; fail "tune --predict-shapes failed"; }
grep -q "^\$ MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 2 .*/hiertune fit --db $db -C bcast,reduce --smallest " \
    "$tmp/out3" || fail "the fit of every modelled algorithm not launched"
sed -n '/^# predicted shape/,$p' "$preport/report.txt"
grep -q "# predicted shape 3x1: larger than the allocation" "$preport/report.txt" || fail "no 3x1 report section"
grep -q "# predicted shape 4x1: larger than the allocation" "$preport/report.txt" || fail "no 4x1 report section"
"$hiertune" show-tree "$ptree" -C bcast --comm-sizes 3,4,64 --ppn 1,2 --json > "$tmp/predicted-rows.json" ||
    fail "show-tree of the predicted tree failed"
[ -f "$ptree.coverage" ] || fail "no coverage file beside the tree"
"$hiertune" show-tree "$ptree" -C bcast --comm-sizes 3 --ppn 1 | grep -q "  source  " ||
    fail "show-tree prints no source column"
python3 - "$tmp/out3" "$tmp/predicted-rows.json" <<'PY' || fail "the tree does not name the predicted picks"
import json, re, sys
picks = {}
for line in open(sys.argv[1]):
    m = re.match(r"predicted shape (\d+)x1: bcast (\d+) B: (.*) \(predicted\)$", line.strip())
    if m:
        picks[(int(m.group(1)), int(m.group(2)))] = m.group(3)
assert sorted(picks) == [(3, 24576), (3, 204800), (4, 24576), (4, 204800)], picks
rows = json.load(open(sys.argv[2]))
for (nodes, size), pick in picks.items():
    row = [r for r in rows if r["comm_size"] == nodes and r["ppn"] == 1 and r["min_bytes"] <= size and (r["max_bytes"] is None or size <= r["max_bytes"])]
    assert len(row) == 1, (nodes, size, row)
    chosen = row[0]["selection"]
    assert ("predicted" if pick != "stock" else "stock") in row[0]["source"].split("+"), (nodes, size, row[0])
    if pick == "stock":
        assert "seg_" not in chosen, (nodes, size, chosen)
    else:
        assert chosen.startswith(pick.split()[0]), (nodes, size, pick, chosen)
# the main job's shape (4 ranks, 2 per node) from the smallest size tuned: tuned (a row
# may reach below it when every pick there was put back, as on noisy cliques it can be)
tuned = [r for r in rows if r["comm_size"] == 4 and r["ppn"] == 2 and
         (r["max_bytes"] is None or r["max_bytes"] >= 24576)]
kinds = ("model", "measured", "stock", "put back")
assert tuned and all(any(s in kinds for s in r["source"].split("+")) for r in tuned), tuned
assert all(r["source"] == "stock (not tuned)" for r in rows if r["comm_size"] == 64), rows
PY
"$hiertune" "${pargs[@]}" --predict-shapes 2x1 > "$tmp/out4" 2>&1 &&
    fail "a predicted shape inside the allocation was taken"
grep -q "predict-shapes 2x1: not larger than the allocation" "$tmp/out4" || { cat "$tmp/out4"; fail "no reason given"; }
echo "PASS: mpi_tune_seg"
