#!/usr/bin/env bash
# hiertune bench under mpiexec, 4 ranks on 2 emulated nodes: a database sweep
# of two bcast algorithms (one with two parameter values) over a few sizes,
# its rerun (nothing to measure), the db queries, the output formats, the
# data check (of every collective bench times: scan, exscan, the reduce-scatters,
# allgatherv, alltoall, alltoallv, gatherv and scatterv with every algorithm of theirs),
# the oversubscription warning and the errors of bad input.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

# bench of every algorithm (-a all) of the collectives COLLS at SIZES with the data check:
# every point passed, every collective timed at every size by MPICH's selection, its
# plugin algorithm (hier; a non-blocking form's tsp_hier) and another of MPICH's
every_algorithm_checked() {  # COLLS SIZES
    local out=$tmp/every-${1//,/-}
    bench 4 -C "$1" -a all --sizes "$2" -c --json "${fast[@]}" > "$out" 2> "$out.err" ||
        { cat "$out.err"; fail "$1 run failed"; }
    python3 - "$out" "$1" "$2" <<'PY' || fail "bad $1 JSON lines"
import json, sys
points = [json.loads(line) for line in open(sys.argv[1])]
for p in points:
    assert p["data_check"] == "passed" and p["median_us"] > 0, p
for c in sys.argv[2].split(","):
    algorithms = {p["algorithm"] for p in points if p["collective"] == c}
    assert {"default", "hier" if c[0] != "i" else "tsp_hier"} <= algorithms and len(algorithms) > 2, (c, algorithms)
    assert {p["size"] for p in points if p["collective"] == c} == {int(s) for s in sys.argv[3].split(",")}, c
PY
}

# bench's OSU title of the collective COLL names its test TITLE
osu_title_is() {  # COLL TITLE
    bench 4 -C "$1" --sizes 8 "${fast[@]}" > "$tmp/title" 2>/dev/null &&
        grep -q "^# OSU MPI $2 Latency Test" "$tmp/title" || fail "no OSU title of $1 ($2)"
}

db=$tmp/sweep.sqlite
sweep=(--db "$db" -a binomial -a hier:bcast_hier_segsize=1K/64K -m 8:512 --sizes 1000,65537 -c)
planned=27  # 3 configurations x (8, 16, ..., 512, 1000, 65537)

echo "== sweep into $db"
bench 4 "${sweep[@]}" "${fast[@]}" > "$tmp/out1" 2> "$tmp/err1" || { cat "$tmp/err1"; fail "sweep failed"; }
grep -q "0 of $planned points already stored, $planned to measure" "$tmp/err1" || { cat "$tmp/err1"; fail "unexpected plan"; }
check_db "$db" $planned
[ "$(grep -c '^# Size' "$tmp/out1")" = 3 ] || fail "expected 3 OSU header blocks"
[ "$(grep -c '^[0-9]' "$tmp/out1")" = $planned ] || fail "expected $planned OSU rows"
grep -q '^# MPI_Bcast, algorithm: hier MPIR_CVAR_BCAST_HIER_SEGSIZE=65536$' "$tmp/out1" || fail "no hier 64K block"

echo "== same command again: everything is in the database"
bench 4 "${sweep[@]}" "${fast[@]}" -f > "$tmp/out2" 2> "$tmp/err2" || { cat "$tmp/err2"; fail "rerun failed"; }
grep -q "$planned of $planned points already stored, 0 to measure" "$tmp/err2" || { cat "$tmp/err2"; fail "rerun measured again"; }
check_db "$db" $planned
[ "$(grep -c '^[0-9]' "$tmp/out2")" = $planned ] || fail "rerun does not print every point"

echo "== db queries"
"$hiertune" db list --db "$db" | grep -q "4 ranks, 2 nodes x 2 ppn, round-robin, $planned points" ||
    fail "db list: wrong job description"
[ "$("$hiertune" db best --db "$db" --collective bcast | grep -c '^[0-9]')" = 9 ] || fail "db best: expected 9 sizes"
"$hiertune" db check --db "$db" | grep -q ': ok$' || fail "db check"

echo "== JSON and CSV output, reduce and allreduce with the data check"
bench 4 -C bcast,reduce,allreduce --sizes 3,4096 -c --json "${fast[@]}" > "$tmp/json" 2> "$tmp/err3" ||
    { cat "$tmp/err3"; fail "json run failed"; }
[ "$(wc -l < "$tmp/json")" = 6 ] || fail "expected 6 JSON lines"
python3 - "$tmp/json" <<'PY' || fail "bad JSON lines"
import json, sys
for line in open(sys.argv[1]):
    p = json.loads(line)
    assert p["data_check"] == "passed" and p["source"] == "measured", p
    assert 0 < p["min_us"] <= p["ci_lo_us"] <= p["median_us"] <= p["ci_hi_us"] <= p["max_us"], p
    assert p["n"] >= 1 and p["ranks"] == 4 and p["nodes"] == 2 and p["algorithm"] == "default", p
PY

echo "== allgather, gather, scatter (per-rank blocks) and barrier (size 0) with the data check"
bench 4 -C allgather,gather,scatter --sizes 3,4096 -c --json "${fast[@]}" > "$tmp/blocks" 2> "$tmp/err5" ||
    { cat "$tmp/err5"; fail "allgather/gather/scatter run failed"; }
python3 - "$tmp/blocks" <<'PY' || fail "bad allgather/gather/scatter JSON lines"
import json, sys
points = [json.loads(line) for line in open(sys.argv[1])]
assert [(p["collective"], p["size"]) for p in points] == [
    (c, s) for c in ("allgather", "gather", "scatter") for s in (3, 4096)], points
for p in points:
    assert p["data_check"] == "passed" and p["median_us"] > 0, p
PY
bench 4 -C allgather -a default -a ring --sizes 1000 -c "${fast[@]}" > "$tmp/ring" 2> "$tmp/err6" ||
    { cat "$tmp/err6"; fail "allgather ring run failed"; }
grep -q '^# MPI_Allgather, algorithm: ring$' "$tmp/ring" || fail "no allgather ring block"

echo "== --same-runs-once: hier allgather segment sizes at or above a 2-rank node's block are one run"
# 1000 B per rank: a node's block is 2000 B, so 2K and 64K make one piece per node (timed
# once, under 2K) and 1K cuts it in two (its own run)
bench 4 -C allgather -a hier:allgather_hier_segsize=1K/2K/64K --sizes 1000 -c --same-runs-once --json \
    "${fast[@]}" > "$tmp/same" 2> "$tmp/err7" || { cat "$tmp/err7"; fail "allgather --same-runs-once failed"; }
python3 - "$tmp/same" <<'PY' || fail "--same-runs-once did not time 1K and 2K alone"
import json, sys
segsizes = sorted(json.loads(line)["params"]["MPIR_CVAR_ALLGATHER_HIER_SEGSIZE"] for line in open(sys.argv[1]))
assert segsizes == ["1024", "2048"], segsizes
PY
bench 4 -C barrier --sizes 0 -c "${fast[@]}" > "$tmp/barrier" 2> "$tmp/err7" ||
    { cat "$tmp/err7"; fail "barrier run failed"; }
grep -q '^# OSU MPI Barrier Latency Test' "$tmp/barrier" && [ "$(grep -c '^0 ' "$tmp/barrier")" = 1 ] ||
    { cat "$tmp/barrier"; fail "barrier: expected one row of size 0"; }
echo "== scan, exscan and their non-blocking forms, every algorithm, with the data check"
every_algorithm_checked scan,exscan,iscan,iexscan 3,4096
echo "== reduce_scatter, reduce_scatter_block and their non-blocking forms (per-rank blocks), every algorithm, with the data check"
every_algorithm_checked reduce_scatter,reduce_scatter_block,ireduce_scatter,ireduce_scatter_block 3,4096
osu_title_is ireduce_scatter_block "Non-blocking Reduce_scatter_block"
echo "== allgatherv and iallgatherv (per-rank blocks at reversed displacements), every algorithm, with the data check"
# MPICH 5.0.1's MPIR_TSP_Iallgatherv_sched_intra_brucks leaves rank 0's blocks in rank
# order where the displacements are not (rank 0 gathers into recvbuf itself and never
# moves them to displs): the data check fails it, and it alone (a tree never names it:
# its k is unread from a tree)
rc=0
bench 4 -C allgatherv,iallgatherv -a all --sizes 3,4096 -c --json "${fast[@]}" > "$tmp/agv" 2> "$tmp/err10" || rc=$?
others=$(grep 'data check FAILED' "$tmp/err10" | grep -v 'FAILED for iallgatherv tsp_brucks ' || true)
{ [ $rc = 0 ] || { [ $rc = 1 ] && [ -z "$others" ]; }; } || { cat "$tmp/err10"; fail "allgatherv run failed"; }
python3 - "$tmp/agv" <<'PY' || fail "bad allgatherv JSON lines"
import json, sys
points = [json.loads(line) for line in open(sys.argv[1])]
for p in points:
    mpich_bug = (p["collective"], p["algorithm"]) == ("iallgatherv", "tsp_brucks")
    assert (mpich_bug or p["data_check"] == "passed") and p["median_us"] > 0, p
for c in ("allgatherv", "iallgatherv"):
    algorithms = {p["algorithm"] for p in points if p["collective"] == c}
    assert {"default", "hier" if c[0] != "i" else "tsp_hier"} <= algorithms and len(algorithms) > 2, (c, algorithms)
    assert {p["size"] for p in points if p["collective"] == c} == {3, 4096}, c
PY
osu_title_is iallgatherv "Non-blocking Allgatherv"
echo "== alltoall and ialltoall (a block per pair), every algorithm, with the data check"
every_algorithm_checked alltoall,ialltoall 0,3,4096
# hier with each inter-node step of its own list (by_size: the plugin's choice by size)
bench 4 -C alltoall -a hier:alltoall_hier_inter_algorithm=linear/brucks/direct/by_size --sizes 4096 -c --json \
    "${fast[@]}" > "$tmp/a2ah" 2> "$tmp/err12" || { cat "$tmp/err12"; fail "alltoall hier inter-node steps run failed"; }
python3 - "$tmp/a2ah" <<'PY' || fail "bad alltoall hier JSON lines"
import json, sys
points = [json.loads(line) for line in open(sys.argv[1])]
steps = [p["params"]["MPIR_CVAR_ALLTOALL_HIER_INTER_ALGORITHM"] for p in points]
assert steps == ["linear", "brucks", "direct", "by_size"], steps
for p in points:
    assert p["algorithm"] == "hier" and p["data_check"] == "passed", p
PY
osu_title_is ialltoall "Non-blocking Alltoall"
echo "== alltoallv and ialltoallv (a block per pair, reversed rdispls), every algorithm, with the data check"
every_algorithm_checked alltoallv,ialltoallv 0,3,4096
osu_title_is ialltoallv "Non-blocking Alltoallv"
echo "== gatherv, scatterv and their non-blocking forms (uneven blocks at reversed displacements), every algorithm, with the data check"
every_algorithm_checked gatherv,scatterv,igatherv,iscatterv 0,3,4096
osu_title_is igatherv "Non-blocking Gatherv"
osu_title_is scatterv "Scatterv"
bench 2 -a binomial --sizes 1000 --csv "${fast[@]}" > "$tmp/csv" 2>/dev/null || fail "csv run failed"
head -1 "$tmp/csv" | grep -q '^collective,size,algorithm,params,median_us,ci_lo_us,ci_hi_us,min_us,max_us' ||
    fail "csv header"

echo "== oversubscription warning"
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 4 ]; then
    MPIR_CVAR_CH4_PROGRESS_THROTTLE=0 bench 4 --sizes 8 "${fast[@]}" > /dev/null 2> "$tmp/err4" ||
        fail "run without yielding failed"
    grep -q "warning: host .* runs 4 ranks on .* cores and MPIR_CVAR_CH4_PROGRESS_THROTTLE is off" "$tmp/err4" ||
        { cat "$tmp/err4"; fail "no oversubscription warning"; }
else
    echo "(more than 3 cores: 4 ranks do not oversubscribe, not checked)"
fi

echo "== bad input: a clear message and exit status 2 (tools/tests/bad_input.sh has more)"
expect_error() {  # expect_error PATTERN ARGS...
    local pattern=$1 status=0
    shift
    bench 2 "$@" --sizes 8 "${fast[@]}" > "$tmp/bad.out" 2> "$tmp/bad.err" || status=$?
    [ "$status" = 2 ] || { cat "$tmp/bad.err"; fail "'$*' exited with $status, expected 2"; }
    grep -q -- "$pattern" "$tmp/bad.err" || { cat "$tmp/bad.err"; fail "'$*': no '$pattern'"; }
    [ "$(grep -c 'hiertune: error' "$tmp/bad.err")" = 1 ] || fail "'$*': error not printed exactly once"
}
expect_error "unknown bcast algorithm 'nosuch'" -a nosuch
expect_error "unknown MPI_T control variable 'nosuch'" -a hier:nosuch=1
expect_error "invalid value 'bogus' for MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM" -a hier:bcast_hier_inter_algorithm=bogus
expect_error "barrier takes no message size: use --sizes 0" -C barrier
expect_error "message size '5X'" -m 5X
expect_error "empty entry" --sizes 3,,5
expect_error "larger than the maximum" -m 4G
echo "not a database" > "$tmp/junk.sqlite"
expect_error "not an SQLite file" --db "$tmp/junk.sqlite"
expect_error "the MPI library rejects bcast hier MPIR_CVAR_BCAST_HIER_SEGSIZE=-1" -a hier:bcast_hier_segsize=-1
status=0
"$mpiexec" -n 2 "$hiertune" bench --sizes 8 "${fast[@]}" > /dev/null 2> "$tmp/bad.err" || status=$?
[ "$status" = 2 ] || fail "bench on cliques without --allow-cliques exited with $status"
[ "$(grep -c "^hiertune: error: MPIR_CVAR_NUM_CLIQUES=2: emulated nodes share one host's cores" "$tmp/bad.err")" = 1 ] ||
    { cat "$tmp/bad.err"; fail "cliques: no single refusal line"; }
status=0
"$hiertune" db list --db "$tmp/absent.sqlite" 2> "$tmp/bad.err" || status=$?
[ "$status" = 2 ] && grep -q "does not exist" "$tmp/bad.err" || fail "db list on a missing file"

echo "PASS: mpi_bench_sweep"
