#!/usr/bin/env bash
# hiertune tasks, 4 ranks on 2 emulated nodes: task benchmarks of three
# configurations into a database (tsp_allreduce_ring: allreduce's ia tasks,
# skipped for bcast), the rerun (nothing measured again), a tree generated
# from them by the model and the collectives data-checked under it; allgather's
# ring tasks (sbia, sb per segment size, sg per size) and its model tree; then the
# errors (one node, a tree type that needs another launch, bcast with only the
# allreduce ring).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

stock=$(stock_tree)

db=$tmp/tasks.sqlite
args=(tasks -C bcast,allreduce --config inter_algo=tsp_kary/sched_binomial/tsp_allreduce_ring,intra_algo=binomial
      -s 4K,32K -x 1 -i 5 --db "$db" --allow-cliques)
echo "== task benchmarks"
"$mpiexec" -n 4 "$hiertune" "${args[@]}" > "$tmp/out1" 2> "$tmp/err1" || { cat "$tmp/err1"; fail "tasks failed"; }
cat "$tmp/out1"
# bcast 2 configurations, allreduce 3, x 2 segment sizes
grep -q "0 of 10 task groups already stored, 10 to measure (2 nodes)" "$tmp/err1" || { cat "$tmp/err1"; fail "plan"; }
grep -q "^bcast: inter_algo=tsp_allreduce_ring,intra_algo=binomial skipped (tsp_allreduce_ring is allreduce only)$" \
    "$tmp/err1" || { cat "$tmp/err1"; fail "bcast's skip of the ring not reported"; }
grep -q "^bcast .*tsp_allreduce_ring" "$tmp/out1" && fail "ring measured for bcast"
[ "$(grep -c ' sbib ' "$tmp/out1")" = 8 ] || fail "expected 8 result lines with sbib"
grep -q '^allreduce segsize=32768 inter_algo=sched_binomial intra_algo=binomial: sr .* ibir .* sbibirsr .* sb ' \
    "$tmp/out1" || fail "allreduce tasks missing"
for fs in 4096 32768; do
    grep -q "^allreduce segsize=$fs inter_algo=tsp_allreduce_ring intra_algo=binomial: sr [0-9.]* ia [0-9.]* \
iasr [0-9.]* sbiasr [0-9.]* sbia [0-9.]* sb [0-9.]*  (us" "$tmp/out1" || fail "allreduce ia tasks missing at $fs"
done
ia_rows=$(sql_rows "$db" "SELECT collective, count(DISTINCT task), count(*), min(median) > 0 FROM tasks
    WHERE config LIKE '%tsp_allreduce_ring%' GROUP BY collective")
# allreduce only: 6 tasks x 2 segment sizes x 2 leaders
[ "$ia_rows" = "allreduce:6:24:1" ] || fail "stored ia tasks: $ia_rows"

echo "== rerun: everything stored"
"$mpiexec" -n 4 "$hiertune" "${args[@]}" > "$tmp/out2" 2> "$tmp/err2" || { cat "$tmp/err2"; fail "rerun failed"; }
grep -q "10 of 10 task groups already stored, 0 to measure" "$tmp/err2" || { cat "$tmp/err2"; fail "rerun measured"; }

echo "== model tree, collectives under it"
tree=$tmp/tree.json
"$hiertune" generate --db "$db" --stock "$stock" -o "$tree" --from model --sizes 1K,16K,100000,1M > "$tmp/gen" ||
    { cat "$tmp/gen"; fail "generate --from model failed"; }
grep -q "^bcast: job 1 .*: 4 sizes, 4 not stock" "$tmp/gen" || { cat "$tmp/gen"; fail "model did not pick hier"; }
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
    bench 4 -C bcast,allreduce --sizes 1,1000,20000,100000,1048576 -c "${fast[@]}" > /dev/null 2> "$tmp/err3" ||
    { cat "$tmp/err3"; fail "collectives under the model tree failed"; }

echo "== the ia configuration alone: the model's tree names it, MPICH runs it"
# a copy of the database with only the ring's tasks: the model can pick nothing else
python3 - "$db" "$tmp/ring.sqlite" << 'PY'
import sqlite3, sys
src, dst = sqlite3.connect(sys.argv[1]), sqlite3.connect(sys.argv[2])
src.backup(dst)
dst.execute("DELETE FROM tasks WHERE config NOT LIKE '%tsp_allreduce_ring%'")
dst.commit()
PY
"$hiertune" generate --db "$tmp/ring.sqlite" --stock "$stock" -o "$tmp/ring.json" --from model -C allreduce \
    --sizes 1K,100000 > "$tmp/gen_ring" || { cat "$tmp/gen_ring"; fail "generate from the ia tasks failed"; }
grep -q "^allreduce: job 1 .*: 2 sizes, 2 not stock" "$tmp/gen_ring" || { cat "$tmp/gen_ring"; fail "ia not picked"; }
grep -q '"inter_algo=tsp_allreduce_ring"' "$tmp/ring.json" || fail "the tree does not name tsp_allreduce_ring"
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tmp/ring.json \
    bench 4 -C allreduce --sizes 1,1000,20000,100000,1048576 -c "${fast[@]}" > /dev/null 2> "$tmp/err4" ||
    { cat "$tmp/err4"; fail "allreduce under the ia tree failed"; }

echo "== allgather: the ring's tasks, its model tree, MPICH runs it"
# tsp_kary and inter_k are not allgather's: both configurations are its ring with binomial
ag=(tasks -C allgather --config inter_algo=tsp_kary/ring,inter_k=2,intra_algo=binomial -s 4K,32K --sizes 1K,20000
    -x 1 -i 5 --db "$tmp/ag.sqlite" --allow-cliques)
"$mpiexec" -n 4 "$hiertune" "${ag[@]}" > "$tmp/ag_out" 2> "$tmp/ag_err" || { cat "$tmp/ag_err"; fail "allgather tasks failed"; }
cat "$tmp/ag_out"
grep -q "0 of 4 task groups already stored, 4 to measure (2 nodes)" "$tmp/ag_err" || { cat "$tmp/ag_err"; fail "allgather plan"; }
for fs in 4096 32768; do
    grep -q "^allgather segsize=$fs inter_algo=ring intra_algo=binomial: sbia [0-9.]* sb [0-9.]*  (us" "$tmp/ag_out" ||
        fail "allgather ring tasks missing at $fs"
done
for m in 1024 20000; do
    grep -q "^allgather sg bytes=$m inter_algo=ring intra_algo=binomial: sg [0-9.]*  (us" "$tmp/ag_out" ||
        fail "allgather sg missing at $m"
done
ag_rows=$(sql_rows "$tmp/ag.sqlite" "SELECT task, group_concat(DISTINCT seg_bytes), count(*), min(median) > 0
    FROM tasks WHERE collective = 'allgather' GROUP BY task ORDER BY task")
# per leader (2): sb and sbia at 2 segment sizes, sg at 2 sizes per rank
[ "$ag_rows" = "sb:4096,32768:4:1 sbia:4096,32768:4:1 sg:1024,20000:4:1" ] || fail "stored allgather tasks: $ag_rows"
"$mpiexec" -n 4 "$hiertune" "${ag[@]}" > /dev/null 2> "$tmp/ag_err2" || { cat "$tmp/ag_err2"; fail "allgather rerun"; }
grep -q "4 of 4 task groups already stored, 0 to measure" "$tmp/ag_err2" || { cat "$tmp/ag_err2"; fail "allgather rerun measured"; }
"$hiertune" generate --db "$tmp/ag.sqlite" --stock "$stock" -o "$tmp/ag.json" --from model -C allgather \
    --sizes 1K,20000 > "$tmp/ag_gen" || { cat "$tmp/ag_gen"; fail "generate from the allgather tasks failed"; }
grep -q "^allgather: job 1 .*: 2 sizes, 2 not stock" "$tmp/ag_gen" || { cat "$tmp/ag_gen"; fail "allgather ring not picked"; }
grep -q '"algorithm=MPIR_Allgather_intra_hier"' "$tmp/ag.json" || fail "the tree does not name MPIR_Allgather_intra_hier"
grep -q '"inter_algo=ring"' "$tmp/ag.json" || fail "the tree does not name the ring"
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tmp/ag.json \
    bench 4 -C allgather --sizes 1,1000,20000,100000 -c "${fast[@]}" > /dev/null 2> "$tmp/ag_err3" ||
    { cat "$tmp/ag_err3"; fail "allgather under its model tree failed"; }
"$mpiexec" -n 4 "$hiertune" tasks -C allgather -s 4K --allow-cliques 2> "$tmp/e6" && fail "allgather without --sizes accepted"
grep -q "^hiertune: error: allgather: no --sizes" "$tmp/e6" || fail "allgather without sizes: $(cat "$tmp/e6")"

echo "== errors"
MPIR_CVAR_NUM_CLIQUES=1 "$mpiexec" -n 2 "$hiertune" tasks -s 4K 2> "$tmp/e1" && fail "one node accepted"
grep -q "need at least 2 nodes" "$tmp/e1" || fail "one node: $(cat "$tmp/e1")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K --config inter_algo=tsp_knomial --allow-cliques 2> "$tmp/e2" && fail "knomial accepted"
grep -q "needs MPIR_CVAR_IBCAST_TREE_TYPE=knomial_1 at launch" "$tmp/e2" || fail "knomial: $(cat "$tmp/e2")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K --config inter_algo=seg_chain --allow-cliques 2> "$tmp/e3" && fail "seg_chain accepted"
grep -q "exists only inside the plugin" "$tmp/e3" || fail "seg_chain: $(cat "$tmp/e3")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K --config inter_algo=tsp_allreduce_ring --allow-cliques 2> "$tmp/e5" &&
    fail "bcast with only the allreduce ring accepted"
grep -q "^hiertune: error: no configuration applies to bcast (bcast: inter_algo=tsp_allreduce_ring skipped" "$tmp/e5" ||
    fail "ring for bcast: $(cat "$tmp/e5")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K 2> "$tmp/e4" && fail "cliques accepted without --allow-cliques"
grep -q "^hiertune: error: MPIR_CVAR_NUM_CLIQUES=2: emulated nodes share one host's cores" "$tmp/e4" ||
    fail "cliques: $(cat "$tmp/e4")"
echo "PASS: mpi_tasks"
