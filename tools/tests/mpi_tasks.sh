#!/usr/bin/env bash
# hiertune tasks, 4 ranks on 2 emulated nodes: task benchmarks of two
# configurations into a database, the rerun (nothing measured again), a tree
# generated from them by the model and the collectives data-checked under it;
# then the errors (one node, a tree type that needs another launch).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

stock=${MPICH_GENERIC_JSON:-${MPICH_HIER_BUILDDIR:-}/mpich-4.0.2/maint/tuning/coll/mpir/generic.json}
[ -r "$stock" ] || fail "no MPICH generic.json at '$stock' (set MPICH_GENERIC_JSON or MPICH_HIER_BUILDDIR)"

db=$tmp/tasks.sqlite
args=(tasks -C bcast,allreduce --config inter_algo=tsp_kary/sched_binomial,intra_algo=binomial -s 4K,32K -x 1 -i 5
      --db "$db" --allow-cliques)
echo "== task benchmarks"
"$mpiexec" -n 4 "$hiertune" "${args[@]}" > "$tmp/out1" 2> "$tmp/err1" || { cat "$tmp/err1"; fail "tasks failed"; }
cat "$tmp/out1"
grep -q "0 of 8 task groups already stored, 8 to measure (2 nodes)" "$tmp/err1" || { cat "$tmp/err1"; fail "plan"; }
[ "$(grep -c ' sbib ' "$tmp/out1")" = 8 ] || fail "expected 8 result lines with sbib"
grep -q '^allreduce segsize=32768 inter_algo=sched_binomial intra_algo=binomial: sr .* ibir .* sbibirsr .* sb ' \
    "$tmp/out1" || fail "allreduce tasks missing"

echo "== rerun: everything stored"
"$mpiexec" -n 4 "$hiertune" "${args[@]}" > "$tmp/out2" 2> "$tmp/err2" || { cat "$tmp/err2"; fail "rerun failed"; }
grep -q "8 of 8 task groups already stored, 0 to measure" "$tmp/err2" || { cat "$tmp/err2"; fail "rerun measured"; }

echo "== model tree, collectives under it"
tree=$tmp/tree.json
"$hiertune" generate --db "$db" --stock "$stock" -o "$tree" --from model --sizes 1K,16K,100000,1M > "$tmp/gen" ||
    { cat "$tmp/gen"; fail "generate --from model failed"; }
grep -q "^bcast: job 1 .*: 4 sizes, 4 not stock" "$tmp/gen" || { cat "$tmp/gen"; fail "model did not pick hier"; }
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
    bench 4 -C bcast,allreduce --sizes 1,1000,20000,100000,1048576 -c "${fast[@]}" > /dev/null 2> "$tmp/err3" ||
    { cat "$tmp/err3"; fail "collectives under the model tree failed"; }

echo "== errors"
MPIR_CVAR_NUM_CLIQUES=1 "$mpiexec" -n 2 "$hiertune" tasks -s 4K 2> "$tmp/e1" && fail "one node accepted"
grep -q "need at least 2 nodes" "$tmp/e1" || fail "one node: $(cat "$tmp/e1")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K --config inter_algo=tsp_knomial --allow-cliques 2> "$tmp/e2" && fail "knomial accepted"
grep -q "needs MPIR_CVAR_IBCAST_TREE_TYPE=knomial_1 at launch" "$tmp/e2" || fail "knomial: $(cat "$tmp/e2")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K --config inter_algo=seg_chain --allow-cliques 2> "$tmp/e3" && fail "seg_chain accepted"
grep -q "exists only inside the plugin" "$tmp/e3" || fail "seg_chain: $(cat "$tmp/e3")"
"$mpiexec" -n 4 "$hiertune" tasks -s 4K 2> "$tmp/e4" && fail "cliques accepted without --allow-cliques"
grep -q "^hiertune: error: MPIR_CVAR_NUM_CLIQUES=2: emulated nodes share one host's cores" "$tmp/e4" ||
    fail "cliques: $(cat "$tmp/e4")"
echo "PASS: mpi_tasks"
