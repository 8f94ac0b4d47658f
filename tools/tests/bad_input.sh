#!/usr/bin/env bash
# Bad input never crashes hiertune (issue 48): a missing, unreadable (a directory) or
# empty file, random bytes or a foreign, corrupt or too new SQLite file as a database,
# a tree that is not JSON, not a Csel tree or one MPI_Init would refuse (another MPICH's),
# an option out of range (NaN and negative numbers included), in every command.  Each
# must end with exactly one line `hiertune: error: ...` that names the file or option,
# and exit status 2, having launched no job; never an uncaught exception, an abort or a
# core dump.  The MPI commands run under mpiexec (their checks come before anything is
# measured).  A job that fails is not bad input: tune's exit status stays 1.
source "$(dirname "$0")/mpi_common.sh"

cases=0
# expect_bad WORD COMMAND...: COMMAND exits with 2, its stderr's last line is its only
# error line, starts "hiertune: error:" and names WORD; no crash, no job launched.
expect_bad() {
    local word=$1 status=0 last
    shift
    "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null || status=$?
    last=$(tail -n 1 "$tmp/err")
    [ "$status" = 2 ] || fail "$*: exit status $status, expected 2; stderr: $(cat "$tmp/err")"
    [[ $last == "hiertune: error: "* ]] || fail "$*: stderr's last line is not an error: $(cat "$tmp/err")"
    [[ $last == *"$word"* ]] || fail "$*: the error does not name '$word': $last"
    [ "$(grep -c 'error' "$tmp/err")" = 1 ] || fail "$*: not exactly one error line: $(cat "$tmp/err")"
    if grep -Eq 'terminate called|what\(\)|Abort|core dumped|Segmentation' "$tmp/err"; then
        fail "$*: crashed: $(cat "$tmp/err")"
    fi
    if grep -q '^\$ ' "$tmp/out"; then fail "$*: launched a job: $(grep '^\$ ' "$tmp/out")"; fi
    cases=$((cases + 1))
}
ht() { "$hiertune" "$@"; }
mpi() {  # mpi NRANKS ARGS...
    local n=$1
    shift
    "$mpiexec" -n "$n" "$hiertune" "$@"
}

# SQL on a file, through the sqlite3 shell or Python's module.
sql() {
    if command -v sqlite3 > /dev/null; then
        sqlite3 "$1" "$2"
    else
        python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); print(*c.executescript(sys.argv[2]).fetchall()); c.commit()' "$1" "$2"
    fi
}

stock=$(stock_tree)
absent=$tmp/absent.sqlite
dir=$tmp/dir.sqlite
mkdir "$dir"
: > "$tmp/empty.sqlite"
head -c 8192 /dev/urandom > "$tmp/random.sqlite"
sql "$tmp/foreign.sqlite" "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x');"
# hiertune's application_id (0x48547562) with a schema version from the future
sql "$tmp/newer.sqlite" "PRAGMA application_id = 1213494626; PRAGMA user_version = 99; CREATE TABLE jobs (id INTEGER);"
printf '{"collective=bcast": {"comm_type=intra": ' > "$tmp/truncated.json"
printf '[1, 2, 3]\n' > "$tmp/array.json"
printf '{"collective=bcast": 5}\n' > "$tmp/notcsel.json"
# another MPICH's algorithms: 5.0.1 has no MPIR_Bcast_intra_nothing, MPIR_Reduce_intra_nothing
printf '%s\n' '{"collective=bcast": {"comm_type=intra": {"algorithm=MPIR_Bcast_intra_nothing": {}}},' \
    '"collective=reduce": {"comm_type=intra": {"algorithm=MPIR_Reduce_intra_nothing": {}}}}' > "$tmp/other.json"
: > "$tmp/empty.json"
tune_files=(--db "$tmp/tune.sqlite" -o "$tmp/tune.json" --report "$tmp/tune-report" --sizes 1K -s 4K)
# a database of hiertune's, then copies of it that are corrupt or cut short
"$mpiexec" -n 1 "$hiertune" bench --allow-cliques -C bcast,reduce,allreduce --sizes 8,1K -x 0 -r 1 \
    --db "$tmp/good.sqlite" > /dev/null 2>&1 || fail "bench could not write a database"
cp "$tmp/good.sqlite" "$tmp/corrupt.sqlite"
dd if=/dev/urandom of="$tmp/corrupt.sqlite" bs=4096 seek=1 count=4 conv=notrunc 2> /dev/null
head -c 12288 "$tmp/good.sqlite" > "$tmp/truncated.sqlite"
good=$tmp/good.sqlite

echo "== the command line"
expect_bad "nosuch" ht nosuch
expect_bad "--nosuch" ht show-tree --nosuch
expect_bad "--db" ht db list
expect_bad "--comm-sizes" ht show-tree "$stock" --comm-sizes 0
expect_bad "--type-size" ht show-tree "$stock" --type-size -1
expect_bad "--ppn" ht show-tree "$stock" --ppn 99999999999
expect_bad "--level" ht check-tree "$stock" --level mpi
expect_bad "--nodes" ht link-bound -C bcast --sizes 1M --nodes 0 --rate 1e6
expect_bad "--rate" ht link-bound -C bcast --sizes 1M --nodes 2 --rate -5
expect_bad "--rate" ht link-bound -C bcast --sizes 1M --nodes 2 --rate nan
expect_bad "1Q" ht link-bound -C bcast --sizes 1Q --nodes 2 --rate 1e6
expect_bad "--uplink-rate" ht link-bound -C bcast --sizes 1M --nodes 4 --leaves 2 --rate 1e6
expect_bad "--nodes" ht critical-path --nodes 0
expect_bad "--ppn" ht critical-path --nodes 4 --ppn 512
expect_bad "--bytes" ht critical-path --bytes 1Q
expect_bad "--bytes" ht critical-path --bytes 0
expect_bad "--placement" ht critical-path --placement round-robin
expect_bad "--collective" ht critical-path -C alltoallw
expect_bad "--latency-bytes" ht critical-path --latency-bytes nan
expect_bad "--from" ht generate --db "$absent" --stock "$stock" -o "$tmp/t.json" --from nowhere
expect_bad "--comm-sizes" ht generate --db "$absent" --stock "$stock" -o "$tmp/t.json" --from analytic --comm-sizes 1
expect_bad "--chain-fanouts" ht generate --db "$absent" --stock "$stock" -o "$tmp/t.json" --from analytic --chain-fanouts 0
expect_bad "--ranks" ht tune -n 1 --stock "$stock"
expect_bad "--tree-rounds" ht tune -n 4 --stock "$stock" --tree-rounds 1
expect_bad "--budget" ht tune -n 4 --stock "$stock" --budget 0
expect_bad "--budget" ht tune -n 4 --stock "$stock" --budget 45x
expect_bad "--precision" ht tune -n 4 --stock "$stock" --precision 0
expect_bad "--precision" ht tune -n 4 --stock "$stock" --precision nan
expect_bad "--max-time" ht tune -n 4 --stock "$stock" --max-time nan
expect_bad "--bench-reps" ht tune -n 4 --stock "$stock" --bench-reps 0
expect_bad "--steady" ht tune -n 4 --stock "$stock" --steady 2
expect_bad "--steady" ht tune -n 4 --stock "$stock" --steady -1
expect_bad "MPIR_CVAR_HIER_LATENCY_BYTES" env MPIR_CVAR_HIER_LATENCY_BYTES=fast "$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock"
expect_bad "MPIR_CVAR_HIER_LATENCY_BYTES" env MPIR_CVAR_HIER_LATENCY_BYTES=-3 "$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock"
expect_bad "--bench-warmup" ht tune -n 4 --stock "$stock" --bench-warmup -1
expect_bad "5X" ht tune -n 4 --stock "$stock" -m 5X
expect_bad "--shapes" ht tune -n 4 --stock "$stock" --shapes 2y2
expect_bad "--shapes" ht tune -n 4 --stock "$stock" --shapes 0x1
expect_bad "--shapes" ht tune -n 4 --stock "$stock" --shapes 2x1,2x1 --shape-launcher "srun -N {nodes}"
expect_bad "--shapes" ht tune -n 4 --stock "$stock" --shapes 2x1
expect_bad "--shape-launcher" ht tune -n 4 --stock "$stock" --shape-launcher "srun -N {nodes}"
expect_bad "--shape-launcher" ht tune -n 4 --stock "$stock" --shapes 2x1 --shape-launcher "emu run --"
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8x2 --fit-launcher "srun"
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8x1,8x1 --fit-launcher "srun"
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8x1
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8x1 -C allreduce --fit-launcher "srun"
expect_bad "--predict-shapes" ht tune -n 4 --stock "$stock" --predict-shapes 8x1 --nodes 2 --shapes 8x1
expect_bad "--mpiexec" ht tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --mpiexec "$tmp/no-mpiexec" "${tune_files[@]}"
expect_bad "--rounds" ht tree-timing --tree "$stock" -n 4 --rounds 1
expect_bad "--tolerance" ht tree-timing --tree "$stock" -n 4 --tolerance 100
expect_bad "--batch" ht learn --nodes 2 --batch 0 --stock "$stock"
expect_bad "--trees" ht learn --nodes 2 --trees 1 --stock "$stock"
expect_bad "--seed" ht learn --nodes 2 --seed -1 --stock "$stock"
expect_bad "--threshold" ht learn --nodes 2 --threshold nan --stock "$stock"
expect_bad "-m" ht learn --nodes 2 -m 1000:4000 --stock "$stock"
expect_bad "--nodes" ht learn --nodes -1 --stock "$stock"

echo "== databases: corrupt, cut short, missing, a directory, empty, random bytes, foreign, too new"
for db in "$tmp/corrupt.sqlite" "$tmp/truncated.sqlite"; do  # which command meets the damage depends on the pages
    expect_bad "$db" ht db list --db "$db"
    expect_bad "$db" ht db check --db "$db"
done
for db in "$absent" "$dir" "$tmp/empty.sqlite" "$tmp/random.sqlite" "$tmp/foreign.sqlite" "$tmp/newer.sqlite"; do
    expect_bad "$db" ht db list --db "$db"
    expect_bad "$db" ht db check --db "$db"
    expect_bad "$db" ht db points --db "$db" -C bcast
    expect_bad "$db" ht generate --db "$db" --stock "$stock" -o "$tmp/t.json"
    expect_bad "$db" ht analytic-report --db "$db" --job 1 -o "$tmp/report"
    expect_bad "$db" ht compare-tuners --db "$db" --tree "t=$stock" --stock "$stock"
done
[ ! -e "$absent" ] && [ ! -s "$tmp/empty.sqlite" ] || fail "a query created or changed a database"
for db in "$tmp/random.sqlite" "$tmp/foreign.sqlite" "$tmp/newer.sqlite" "$dir/x/y.sqlite"; do
    expect_bad "$db" ht learn --nodes 2 --train-only --db "$db" --stock "$stock" -o "$tmp/t.json"
    expect_bad "$db" ht compare-tuners --db "$good" --tree "t=$stock" --tuning-db "t=$db"
done
[ "$(sql "$tmp/foreign.sqlite" "SELECT count(*) FROM sqlite_master")" = 1 ] || fail "the foreign database was changed"

echo "== trees: missing, a directory, empty, not JSON, not a Csel tree, another MPICH's"
for tree in "$tmp/absent.json" "$dir" "$tmp/empty.json" "$tmp/truncated.json" "$tmp/array.json" "$tmp/notcsel.json"; do
    expect_bad "$tree" ht show-tree "$tree"
done
for tree in "$tmp/absent.json" "$dir"; do
    expect_bad "$tree" ht check-tree "$stock" "$tree"
done
for tree in "$tmp/absent.json" "$dir" "$tmp/empty.json" "$tmp/truncated.json" "$tmp/array.json" "$tmp/notcsel.json" \
    "$tmp/other.json"; do
    expect_bad "$tree" ht generate --db "$good" --stock "$tree" -o "$tmp/t.json"
    expect_bad "$tree" ht tree-timing --tree "$tree" -n 4 --nodes 2 --allow-cliques
    expect_bad "$tree" ht install-tree "$tree" --prefix "$tmp/prefix"
    expect_bad "$tree" ht tune -n 4 --nodes 2 --allow-cliques --stock "$tree" "${tune_files[@]}"
    expect_bad "$tree" ht learn --nodes 2 --allow-cliques --stock "$tree" --db "$tmp/learn.sqlite" -o "$tmp/t.json"
    expect_bad "$tree" ht compare-tuners --db "$good" --tree "t=$tree" --stock "$stock"
    expect_bad "$tree" ht compare-tuners --db "$good" --tree "t=$stock" --stock "$tree"
done
cp "$stock" "$tmp/good.json"
expect_bad "--latency-bytes" ht install-tree "$tmp/good.json" --prefix "$tmp/prefix" --latency-bytes 0
expect_bad "--latency-bytes" ht install-tree "$tmp/good.json" --prefix "$tmp/prefix" --latency-bytes fast
echo "465 bytes" > "$tmp/good.json.latency_bytes"
expect_bad "$tmp/good.json.latency_bytes" ht install-tree "$tmp/good.json" --prefix "$tmp/prefix"
rm "$tmp/good.json.latency_bytes"
[ ! -e "$tmp/prefix/share" ] || fail "install-tree installed a bad tree"
[ ! -e "$tmp/tune.sqlite" ] && [ ! -e "$tmp/learn.sqlite" ] || fail "a refused tune or learn created its database"
expect_bad "$tmp/truncated.json" ht overlap-report "$tmp/truncated.json"
expect_bad "$tmp/absent.json" ht overlap-report "$tmp/absent.json"
expect_bad "$tmp/empty.json" ht overlap-report "$tmp/empty.json"

echo "== the MPI commands: options, databases, values the library refuses"
expect_bad "--precision" mpi 1 bench --allow-cliques --precision 500
expect_bad "--precision" mpi 1 bench --allow-cliques --precision nan
expect_bad "--max-reps" mpi 1 bench --allow-cliques -i 0
expect_bad "--max-time" mpi 1 bench --allow-cliques --max-time -1
expect_bad "--warmup" mpi 1 bench --allow-cliques -x -3
expect_bad "--min-reps" mpi 1 bench --allow-cliques --min-reps 50 -i 10
expect_bad "-8" mpi 1 bench --allow-cliques --sizes -8
expect_bad "99999999999999999999" mpi 1 bench --allow-cliques --sizes 99999999999999999999
expect_bad "MPIR_CVAR_NUM_CLIQUES" mpi 1 bench --sizes 8
expect_bad "nosuch" mpi 1 bench --allow-cliques --sizes 8 -a nosuch
expect_bad "MPIR_CVAR_BCAST_HIER_SEGSIZE=-1" mpi 2 bench --allow-cliques --sizes 8 -a hier:bcast_hier_segsize=-1 -x 0 -r 1
for db in "$dir" "$tmp/random.sqlite" "$tmp/foreign.sqlite" "$tmp/newer.sqlite" "$dir/x/y.sqlite"; do
    expect_bad "$db" mpi 1 bench --allow-cliques --sizes 8 -x 0 -r 1 --db "$db"
done
expect_bad "--bw-window" mpi 1 calibrate --allow-cliques --bw-size 1G --bw-window 18446744073709551615
expect_bad "--bw-size" mpi 1 calibrate --allow-cliques --bw-size 0
expect_bad "--expect-rate" mpi 1 calibrate --allow-cliques --expect-rate fast
expect_bad "--tolerance" mpi 1 calibrate --allow-cliques --tolerance nan
expect_bad "--steady" mpi 1 tasks --allow-cliques -s 4K --steady 3
expect_bad "--warmup" mpi 1 tasks --allow-cliques -s 4K -x -1
expect_bad "segment size 0" mpi 1 tasks --allow-cliques -s 0
expect_bad "--comp-points" mpi 1 overlap --allow-cliques --comp-points 0
expect_bad "--threads" mpi 1 overlap --allow-cliques -t 0
expect_bad "--comp" mpi 1 overlap --allow-cliques --comp 100:-5
expect_bad "--count" mpi 1 fit --allow-cliques --db "$tmp/fit.sqlite" --count 1
expect_bad "--segsize" mpi 1 fit --allow-cliques --db "$tmp/fit.sqlite" --segsize 0
expect_bad "$tmp/random.sqlite" mpi 2 fit --allow-cliques --db "$tmp/random.sqlite"
expect_bad "bcast:8:oops" mpi 1 verify --case bcast:8:oops

echo "== not bad input: a job that fails stays exit status 1"
status=0
"$hiertune" tune -n 2 --nodes 2 --allow-cliques --mpiexec /bin/false --stock "$stock" "${tune_files[@]}" \
    > /dev/null 2> "$tmp/err" || status=$?
[ "$status" = 1 ] && grep -q "^hiertune: error: step 0 (calibrate) failed" "$tmp/err" ||
    fail "a failing job: exit status $status: $(cat "$tmp/err")"

echo "PASS: bad_input ($cases cases)"
