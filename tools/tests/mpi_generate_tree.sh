#!/usr/bin/env bash
# hiertune generate end to end, 4 ranks on 2 emulated nodes: a small sweep of
# stock vs hier (bcast, allreduce), a tree generated from it on MPICH's stock
# generic.json, then collectives timed and data-checked under that tree
# (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): MPICH must load it (an unknown
# key or container asserts) and every result must be right, the guessed
# midpoints included.  Then generate's errors.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

stock=$(stock_tree)

db=$tmp/gen.sqlite
echo "== sweep: default vs hier"
bench 4 --db "$db" -C bcast -a default -a hier:bcast_hier_segsize=4K,bcast_hier_inter_kval=3 \
    --sizes 8,1024,262144 "${fast[@]}" > /dev/null 2> "$tmp/err1" || { cat "$tmp/err1"; fail "bcast sweep failed"; }
bench 4 --db "$db" -C allreduce -a default -a hier:allreduce_hier_segsize=16K \
    --sizes 8,1024,262144 "${fast[@]}" > /dev/null 2> "$tmp/err2" || { cat "$tmp/err2"; fail "allreduce sweep failed"; }

echo "== generate"
tree=$tmp/tree.json
"$hiertune" generate --db "$db" --stock "$stock" -o "$tree" > "$tmp/gen" || { cat "$tmp/gen"; fail "generate failed"; }
cat "$tmp/gen"
grep -q "^wrote $tree (44 collectives)" "$tmp/gen" || fail "generate did not report the tree"
python3 - "$stock" "$tree" <<'PY' || fail "tree does not keep the stock collectives"
import json, sys
stock, tree = (json.load(open(p)) for p in sys.argv[1:])
assert list(stock) == list(tree), "collectives differ"
for key in stock:
    if key not in ("collective=bcast", "collective=allreduce"):
        assert stock[key] == tree[key], key
PY

echo "== check-tree and show-tree: what MPI_Init checks, what the tree selects"
"$hiertune" check-tree "$tree" "$stock" > "$tmp/check" || { cat "$tmp/check"; fail "check-tree refused the tree"; }
grep -q "^$tree: ok (MPIR tree, 44 collectives" "$tmp/check" || fail "check-tree: $(cat "$tmp/check")"
ch4=$(dirname "$stock")/../ch4/generic.json
"$hiertune" check-tree "$ch4" | grep -q ": ok (CH4 tree" || fail "check-tree: MPICH's CH4 tree"
printf '%s' '{"collective=bcast": {"comm_size<=8": {"algorithm=MPIR_Bcast_intra_seg_binary": {"fanout=2": {}}}}}' \
    > "$tmp/bad.json"
if "$hiertune" check-tree "$tmp/bad.json" > "$tmp/check"; then fail "check-tree passed a bad tree"; fi
[ "$(grep -c "^$tmp/bad.json: " "$tmp/check")" = 3 ] || fail "check-tree: 2 problems and a count: $(cat "$tmp/check")"
"$hiertune" show-tree "$tree" -C bcast --comm-sizes 4 --ppn 2 > "$tmp/show" || fail "show-tree failed"
grep -q "MPIR_Bcast_intra_" "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"

echo "== collectives under the tree (sizes around every boundary)"
sizes=1,8,100,1024,5000,131072,262144,300000
MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree \
    bench 4 -C bcast,reduce,allreduce --sizes $sizes -c "${fast[@]}" > "$tmp/out" 2> "$tmp/err3" ||
    { cat "$tmp/err3"; fail "collectives under the generated tree failed"; }
[ "$(grep -c '^[0-9]' "$tmp/out")" = 24 ] || fail "expected 24 rows under the tree"

echo "== errors"
"$hiertune" generate --db "$tmp/none.sqlite" --stock "$stock" -o "$tmp/x.json" 2> "$tmp/e1" && fail "missing db accepted"
grep -q "hiertune: error: .*does not exist" "$tmp/e1" || fail "missing db: $(cat "$tmp/e1")"
"$hiertune" generate --db "$db" --stock "$tmp/none.json" -o "$tmp/x.json" 2> "$tmp/e2" && fail "missing stock accepted"
grep -q "hiertune: error: cannot read JSON tree" "$tmp/e2" || fail "missing stock: $(cat "$tmp/e2")"
"$hiertune" generate --db "$db" --stock "$stock" -o "$tmp/x.json" --from model 2> "$tmp/e3" && fail "model without tasks accepted"
grep -q "hiertune: error: nothing to generate from" "$tmp/e3" || fail "model without tasks: $(cat "$tmp/e3")"
[ ! -e "$tmp/x.json" ] || fail "a failed generate wrote a tree"
echo "PASS: mpi_generate_tree"
