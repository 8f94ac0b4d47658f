#!/usr/bin/env bash
# hiertune tune end to end, small: 4 ranks on 2 emulated nodes, 3 sizes, a
# 3-configuration search space (one segment size; tsp_allreduce_ring, the
# one-step allreduce, skipped for bcast), both collectives.  tune
# launches its own jobs (calibrate, tasks, the stock reference, verify under
# the tree, 2 rounds of the tree timing, the exhaustive sweep);
# then: the tree exists and MPICH loads it, the report starts with the cluster
# line and the calibration and has a row per size with slowdowns >= 1 and a
# tree-timing row per size, the rerun (through --launcher) measures nothing, a
# tree slower than no tree (stored timings made so) fails tune unless
# --allow-tree-slower, `tree-timing` times any tree, and bad input fails
# cleanly.  Cliques time the scheduler: the runs that measure pass
# --allow-tree-slower.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
unset MPIR_CVAR_NUM_CLIQUES  # tune sets it from --nodes

stock=$(stock_tree)

db=$tmp/tune.sqlite tree=$tmp/tree.json report=$tmp/report
args=(tune -n 4 --nodes 2 -C bcast,allreduce --sizes 2K,24K,200K -s 8K
      --config inter_algo=tsp_kary/sched_binomial/tsp_allreduce_ring,intra_algo=binomial
      --db "$db" -o "$tree" --report "$report" --stock "$stock" --mpiexec "$mpiexec"
      --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
      --tree-rounds 2 --allow-tree-slower --keep-unproven --allow-cliques --time-every-size)

echo "== tune"
start=$SECONDS
HIERTUNE_CLUSTER="cliques: mpi_tune" "$hiertune" "${args[@]}" > "$tmp/out1" 2> "$tmp/err1" ||
    { cat "$tmp/out1" "$tmp/err1"; fail "tune failed"; }
cat "$tmp/out1"
echo "(tune took $((SECONDS - start)) s)"
for step in 0 1 2 3 4 5 6 7; do grep -q "^== tune step $step/7" "$tmp/out1" || fail "step $step missing"; done
grep -q "^\\$ .*/hiertune calibrate --db $db --if-missing --json .* > $report/calibration.jsonl$" "$tmp/out1" ||
    fail "no calibrate job"
grep -q "calibration stored in" "$tmp/out1" && fail "first run found a stored calibration"
grep -q "^verify: 6 of 6 cases as the tree says" "$tmp/out1" || fail "verify did not check 6 cases"
grep -q "^stock reference: " "$tmp/out1" || fail "the stock selection was not measured"
skip_note="bcast: inter_algo=tsp_allreduce_ring,intra_algo=binomial skipped (tsp_allreduce_ring is allreduce only)"
grep -qxF "$skip_note" "$tmp/out1" || fail "bcast's skip of the ring not reported"
grep -q "^\\$ .*/hiertune bench -C bcast .*tsp_allreduce_ring" "$tmp/out1" && fail "ring swept for bcast"

echo "== step times: the jobs account every measured item in the database"
sqlite3_count() {
    python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' "$db" "$1"
}
count_steps() {
    python3 - "$db" << 'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT step, count(*), min(seconds) FROM step_times GROUP BY step ORDER BY step").fetchall()
print(" ".join(f"{step}={n}" for step, n, low in rows), "positive" if all(low > 0 for _, _, low in rows) else "ZERO")
PY
}
# MPICH's own (step 1, bench -a stock): its selection and each of its algorithms, at
# each of the 3 sizes; at least one forced algorithm besides the selection per collective
stock_configs=$(sqlite3_count "SELECT count(DISTINCT collective || algorithm || params) FROM points
                               WHERE algorithm <> 'hier'")
for coll in bcast allreduce; do
    n=$(sqlite3_count "SELECT count(DISTINCT algorithm) FROM points WHERE collective = '$coll'
                       AND algorithm NOT IN ('hier', 'default') AND msg_bytes = 204800")
    [ "$n" -ge 1 ] || fail "step 1 forced none of MPICH's $coll algorithms"
done
# 10 task groups (bcast 2 configurations, allreduce 3, x the segment size 8K and the
# 2K message, shorter than it), the stock points, (2 + 3) x 3 = 15 hier points: the
# close calls' (step 2b, as many as the figures make) and the rest swept, 2 x 2 tree
# timing jobs
steps=$(count_steps)
close=$(sed -nE 's/.*close=([0-9]+).*/\1/p' <<< "$steps")
[ "$(sed -E 's/ close=[0-9]+//' <<< "$steps")" = "bench=$((15 - ${close:-0})) stock=$((3 * stock_configs)) tasks=10 tree-timing=4 positive" ] ||
    fail "step_times rows: $steps ($stock_configs stock configurations)"
if [ -n "$close" ]; then
    grep -q "^== tune step 2b/7: time the close calls" "$tmp/out1" || fail "close calls timed outside step 2b"
    grep -q "^close calls (the model's prediction within 2x of MPICH's measured best" "$report/report.txt" ||
        fail "report.txt: the close calls not listed"
    grep -Eq "^  (bcast|allreduce) [0-9]+ B: (MPICH's best [0-9.]+ us \(.*\)|no MPICH point)(; segsize=[0-9]+ .* predicted [0-9.]+ us, timed [0-9.]+ us)+: .+$" \
        "$report/report.txt" || fail "report.txt: a close call without its times"
    grep -q "not settled" "$report/report.txt" && fail "report.txt: a close call not settled after step 2b"
fi
echo "step 2b timed ${close:-0} hier points of close calls"

echo "== step 5: the tree as loaded, alternating with no tree"
# the jobs in order: round 1 tree, no-tree, round 2 tree, no-tree; bench -a default over the tune's sizes
sed -n '/^== tune step 5\/7/,/^== tune step 6\/7/p' "$tmp/out1" | grep '^\$ ' > "$tmp/tree-jobs"
[ "$(wc -l < "$tmp/tree-jobs")" = 4 ] || fail "expected 4 tree timing jobs: $(cat "$tmp/tree-jobs")"
grep -v ' bench -C bcast,allreduce -a default --sizes 2048,24576,204800 .* --json --allow-cliques > ' \
    "$tmp/tree-jobs" && fail "a tree timing job is not bench -a default over the tune's sizes"
# every job after step 0 runs with the links' alpha/beta it measured, which tune writes beside its tree
latency=$(cat "$tree.latency_bytes") || fail "no $tree.latency_bytes"
grep -qx "by_size crossovers: MPIR_CVAR_HIER_LATENCY_BYTES=$latency (alpha/beta of the inter-node links): every job below runs with it" \
    "$tmp/out1" || fail "step 0 named no by_size crossovers $latency"
jobs=$(sed -E "s/^\\$ MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_HIER_LATENCY_BYTES=$latency MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=([^ ]*) .*\\/(round-.*)\\.jsonl\$/\\1:\\2/" \
    "$tmp/tree-jobs" | tr '\n' ' ')
[ "$jobs" = "$tree:round-1-tree '':round-1-no-tree $tree:round-2-tree '':round-2-no-tree " ] ||
    fail "tree timing jobs: $jobs"
for f in round-1-tree round-1-no-tree round-2-tree round-2-no-tree; do
    [ "$(grep -c '"algorithm":"default"' "$report/tree-timing/$f.jsonl")" = 6 ] || fail "$f.jsonl: not 6 points"
done
# 2 rounds x 2 jobs x 6 (collective, size), under one tree digest
timings=$(python3 - "$db" << 'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(
    "SELECT count(*), count(DISTINCT tree), count(DISTINCT round || variant), sum(median > 0) FROM tree_timings"
).fetchone()
print(*rows)
PY
)
[ "$timings" = "24 1 4 24" ] || fail "tree_timings rows (count, trees, jobs, positive): $timings"

echo "== step 0: the calibration in the database and atop the report"
calibration=$(sql_rows "$db" "SELECT job_id, link,
    latency > 0 AND bandwidth > 0 AND n_latency > 0 AND n_bandwidth > 0, cluster FROM calibration ORDER BY rowid")
[ "$calibration" = "1:0-1:1:cliques: mpi_tune 1:intra:1:cliques: mpi_tune" ] || fail "calibration rows: $calibration"
[ "$(head -1 "$report/report.txt")" = "cluster: cliques: mpi_tune" ] || fail "report.txt: no cluster line first"
sed -n 2p "$report/report.txt" | grep -q '^link *latency(us) *bandwidth(MB/s) *reps$' || fail "report.txt: no table"
# 4 ranks on this host: where they outnumber its cores the report says which picks stand on such figures
if [ "$(nproc)" -lt 4 ]; then
    grep -qx "shared cores: $(hostname): 4 ranks on $(nproc) cores" "$report/report.txt" ||
        fail "report.txt: no shared cores line"
    grep -q "^  \(picks there other than MPICH's selection: .* B (--keep-unproven: not checked against no tree)\|no pick there other than MPICH's selection\)$" \
        "$report/report.txt" || fail "report.txt: the shared cores' picks"
else
    grep -q "^shared cores:" "$report/report.txt" && fail "report.txt: shared cores with $(nproc) cores"
fi
sed -n 3,4p "$report/report.txt" | awk '$2 > 0 && $3 > 0 { n++ } END { exit n != 2 }' ||
    fail "report.txt: calibration rows $(sed -n 3,4p "$report/report.txt")"
[ "$(sed -n 3,4p "$report/report.txt" | cut -d' ' -f1 | tr '\n' ' ')" = "0-1 intra " ] || fail "report.txt: links"
echo "== the coverage table: each tuned collective's sizes, MPICH's selection below 2K"
sed -n '/^# coverage:/,$p' "$report/report.txt" > "$tmp/coverage"
grep -q '^# tuned at 4 ranks, 2 per node' "$tmp/coverage" || fail "coverage: no tuned shape"
for coll in bcast allreduce; do
    grep -q "^$coll  *< 2048  *stock  *MPICH's selection (not measured)" "$tmp/coverage" ||
        fail "coverage: $coll below 2K"
    grep -Eq "^$coll .* and up +(model|measured|stock|put back) " "$tmp/coverage" || fail "coverage: $coll's last sizes"
done

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
# the hier configurations (bcast 2, allreduce 3) and MPICH's own per size, all measured
# (a tree cannot run some stock points, e.g. smp on 2 ranks per node: at most all of them)
rows=$(tail -n +2 "$report/predictions.csv" | wc -l)
[ "$rows" -gt 21 ] && [ "$rows" -le $((15 + 3 * stock_configs)) ] ||
    fail "expected 15 hier and up to $((3 * stock_configs)) stock prediction rows, got $rows"
[ "$(grep -c ',stock,' "$report/predictions.csv")" = 6 ] || fail "expected a stock row per size"
grep -q '^allreduce,204800,MPIR_Allreduce_intra_recursive_multiplying k=2,' "$report/predictions.csv" ||
    fail "no row of MPICH's recursive_multiplying (with its k) for allreduce"
# the ia configuration predicted by its own tasks and measured, for allreduce only
ring="segsize=8192 inter_algo=tsp_allreduce_ring intra_algo=binomial"
[ "$(grep -cE "^allreduce,[0-9]+,$ring,[0-9.]+,[0-9.]+," "$report/predictions.csv")" = 3 ] ||
    { cat "$report/predictions.csv"; fail "expected 3 predicted and measured ia rows"; }
grep -q "^bcast,.*tsp_allreduce_ring" "$report/predictions.csv" && fail "ring row for bcast"
grep -qxF "$skip_note" "$report/report.txt" || fail "report.txt: bcast's skip of the ring not named"
grep -q "^average slowdown: .* over 6 sizes (target <= 1.050): " "$report/report.txt" || fail "no average slowdown"
grep -q "^worst slowdown: " "$report/report.txt" || fail "no worst slowdown"
grep -q "task share .* (target <= 25 %): " "$report/report.txt" || fail "no time comparison"
# the tree as loaded: its definition, a row per (collective, size) of 2 rounds, the verdict line
grep -qxF "# hiertune: the tree as loaded vs no tree (times in us)" "$report/report.txt" ||
    fail "report.txt: no tree timing table"
grep -q "^# FAIL (slower): every round with the tree slower than every round without it AND ratio < 1 - 0.050;" \
    "$report/report.txt" || fail "report.txt: the failure is not defined"
grep -q '^collective *size *rounds *tree *no-tree *ratio *noise *verdict$' "$report/report.txt" ||
    fail "report.txt: no tree timing header"
for coll in bcast allreduce; do
    for size in 2048 24576 204800; do
        grep -qE "^$coll +$size +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +(faster|within noise|FAIL \(slower\)|slower)(, same choice: noise|: put back)?$" \
            "$report/report.txt" || fail "report.txt: no tree timing row for $coll $size"
    done
done
grep -qE "^tree vs no tree: [0-6] of 6 sizes slower beyond the noise: (ok|accepted \(--allow-tree-slower\) .*)$" \
    "$report/report.txt" || fail "report.txt: no tree timing verdict"
[ "$(tail -n +2 "$report/tree-timing.csv" | wc -l)" = 6 ] || fail "expected 6 tree-timing.csv rows"
awk -F, 'NR > 1 && !($3 == 2 && $4 > 0 && $5 > 0 && $6 > 0 && $7 >= 0) { bad = 1 } END { exit bad }' \
    "$report/tree-timing.csv" || fail "tree-timing.csv: $(cat "$report/tree-timing.csv")"
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
# (and --install PREFIX: the verified tree becomes that prefix's site tree, with its record)
"$hiertune" "${relaunch[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" --install "$tmp/site" \
    > "$tmp/out3" 2> "$tmp/err3" || { cat "$tmp/out3" "$tmp/err3"; fail "rerun failed"; }
site=$tmp/site/share/mpich-hier/tuning.json
grep -q "^installed $site (fnv1a64:[0-9a-f]\{16\}): every job of $tmp/site whose environment names no tree loads it" \
    "$tmp/out3" || fail "--install: $(tail -3 "$tmp/out3")"
cmp -s "$site" "$tree" || fail "--install: $site is not the tree"
python3 - "$site.record" <<'PY' || fail "--install: bad record $(cat "$site.record")"
import json, sys
record = json.load(open(sys.argv[1]))
assert record["machine"] and "4 ranks" in record["cluster"] and record["mpich_version"].startswith("5.0.1"), record
PY
grep -q "^\\$ env MPIR_CVAR_NUM_CLIQUES=2 $mpiexec -n 4 .*/hiertune calibrate " "$tmp/out3" || fail "launcher not used"
grep -q "calibration stored in $db: nothing to measure" "$tmp/out3" || fail "rerun calibrated again"
[ "$(head -1 "$report/report.txt")" = "cluster: cliques: mpi_tune" ] || fail "rerun report: no stored cluster line"
grep -q "all task benchmarks stored" "$tmp/out3" || fail "rerun measured tasks again"
grep -q "stock selection measured at every size" "$tmp/out3" || fail "rerun measured the stock selection again"
grep -q "every configuration measured" "$tmp/out3" || fail "rerun swept again"
grep -q "^tree [0-9a-f]\{16\} timed in $db (2 rounds): nothing to measure" "$tmp/out3" ||
    fail "rerun timed the tree again"
[ "$(count_steps)" = "$steps" ] || fail "rerun added step times: $(count_steps)"

echo "== a CH4 composition measured fastest goes into TREE.ch4, which the jobs load (stored points made so)"
# step 1 forced each collective's compositions in a job of its own
grep -q "^\\$ .*/hiertune bench -C bcast -a default:MPIR_CVAR_BCAST_COMPOSITION=1/2/3 --sizes 2048,24576,204800 " \
    "$tmp/out1" || fail "bcast's compositions not measured"
[ "$(sql_rows "$db" "SELECT count(*) FROM points WHERE collective = 'allreduce' AND algorithm = 'default'
                     AND params LIKE '%ALLREDUCE_COMPOSITION%'")" = 9 ] || fail "allreduce: not 3 compositions x 3 sizes"
ch4db=$tmp/ch4.sqlite ch4tree=$tmp/ch4.json
cp "$db" "$ch4db"
# the first tune may have picked beta already (then this tree is that one): forget its
# tree timing, so step 5 times this tree under its CH4 tree either way
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("DELETE FROM tree_timings"); db.commit()' "$ch4db"
set_compositions() {  # the stored medians (seconds) of the forced compositions whose params are LIKE $1
    python3 - "$ch4db" "$1" "$2" << 'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE points SET median = ?2, ci_lo = ?2, min = ?2, mean = ?2, ci_hi = max(ci_hi, ?2), "
           "max = max(max, ?2) WHERE algorithm = 'default' AND params LIKE ?1", (sys.argv[2], float(sys.argv[3])))
db.commit()
PY
}
set_compositions MPIR_CVAR_BCAST_COMPOSITION=2 1e-9
ch4args=()
for ((i = 0; i < ${#relaunch[@]}; i++)); do
    case ${relaunch[i]} in
        --db) ch4args+=(--db "$ch4db"); i=$((i + 1)) ;;
        -o) ch4args+=(-o "$ch4tree"); i=$((i + 1)) ;;
        --report) ch4args+=(--report "$tmp/ch4-report"); i=$((i + 1)) ;;
        *) ch4args+=("${relaunch[i]}") ;;
    esac
done
"$hiertune" "${ch4args[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out8" 2> "$tmp/err8" ||
    { cat "$tmp/out8" "$tmp/err8"; fail "tune with a composition fastest failed"; }
for size in 2048 24576 204800; do
    grep -q "^bcast $size B: MPIDI_Bcast_intra_composition_beta " "$tmp/out8" || fail "bcast $size B: not beta"
done
grep -qxF "wrote $ch4tree.ch4 (the CH4 tree tuned with it)" "$tmp/out8" || fail "no CH4 tree written"
grep -q "composition=MPIDI_Bcast_intra_composition_beta" "$ch4tree.ch4" || fail "beta not in the CH4 tree"
grep -q "composition" "$ch4tree" && fail "a composition in the MPIR tree"
"$hiertune" check-tree --level ch4 "$ch4tree.ch4" > /dev/null || fail "the CH4 tree fails MPID_Init's check"
grep -q "^verify: 6 of 6 cases as the tree says" "$tmp/out8" || fail "verify under the CH4 tree"
grep -q "^\\$ MPIR_CVAR_HIER_LATENCY_BYTES=[0-9]* MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$ch4tree MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE=$ch4tree.ch4 .* verify " \
    "$tmp/out8" || fail "verify not run under the CH4 tree"
sed -n '/^== tune step 5\/7/,/^== tune step 6\/7/p' "$tmp/out8" | { grep '^\$ ' || true; } > "$tmp/ch4-jobs"
[ "$(grep -c "CH4_COLL_SELECTION_TUNING_JSON_FILE=$ch4tree.ch4 " "$tmp/ch4-jobs")" = 2 ] &&
    [ "$(grep -c "CH4_COLL_SELECTION_TUNING_JSON_FILE='' " "$tmp/ch4-jobs")" = 2 ] ||
    fail "tree timing jobs and the CH4 tree: $(cat "$tmp/ch4-jobs")"
grep -q "^bcast  *2048-204800 and up  *measured  *MPIDI_Bcast_intra_composition_beta$" "$tmp/ch4-report/report.txt" ||
    fail "coverage: $(sed -n '/^# coverage:/,$p' "$tmp/ch4-report/report.txt")"
# the coverage file beside the tree is the MPIR tree's: show-tree gives each row its source
"$hiertune" show-tree "$ch4tree" -C bcast --comm-sizes 4 --ppn 2 > "$tmp/ch4-show" 2> "$tmp/ch4-show-err" ||
    fail "show-tree of the tree with a CH4 tree failed"
grep -q "  source  " "$tmp/ch4-show" && [ ! -s "$tmp/ch4-show-err" ] ||
    fail "show-tree: no source column ($(cat "$tmp/ch4-show-err"))"
# every composition measured slow: none picked, and the CH4 tree of the earlier tree goes
set_compositions %_COMPOSITION=% 1
"$hiertune" "${ch4args[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out9" 2> "$tmp/err9" ||
    { cat "$tmp/out9" "$tmp/err9"; fail "tune after the composition measured slow failed"; }
grep -q "B: MPIDI_.*_intra_composition_" "$tmp/out9" && fail "a composition picked at 1 s"
[ -e "$ch4tree.ch4" ] && fail "the earlier CH4 tree is left beside a tree without a composition"

echo "== a tree slower than no tree beyond the noise fails tune (stored timings made so)"
# at the first size whose pick is not MPICH's selection (there the tree runs what no tree
# runs, and a slower verdict is noise: mark_same_choices) every tree round 1 s, every
# no-tree round 1 ms; elsewhere both alike (ratio 1)
read -r slow_coll slow_size < <(python3 - "$report/summary.csv" << 'PY'
import csv, sys
picked = [r for r in csv.DictReader(open(sys.argv[1])) if r["pick"] != "stock"]
print(*(picked[0]["collective"], picked[0]["msg_bytes"]) if picked else ("none", 0))
PY
)
if [ "$slow_coll" = none ]; then
    echo "skipped: every pick of this run is MPICH's selection, so no tree can be slower (test_tune_plan covers it)"
else
python3 - "$db" "$slow_coll" "$slow_size" << 'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("UPDATE tree_timings SET median = 1e-4, ci_lo = 1e-4, ci_hi = 1e-4, min = 1e-4, max = 1e-4, mean = 1e-4")
for variant, t in (("tree", 1.0), ("no-tree", 1e-3)):
    db.execute("UPDATE tree_timings SET median = ?1, ci_lo = ?1, ci_hi = ?1, min = ?1, max = ?1, mean = ?1"
               " WHERE collective = ?2 AND msg_bytes = ?3 AND variant = ?4", (t, sys.argv[2], int(sys.argv[3]), variant))
db.commit()
PY
strict=()
for word in "${relaunch[@]}"; do [ "$word" = --allow-tree-slower ] || strict+=("$word"); done
"$hiertune" "${strict[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out4" 2> "$tmp/err4" &&
    { cat "$tmp/out4"; fail "tune accepted a tree slower than no tree"; }
slower="the tree is slower than no tree beyond the noise at 1 of 6 sizes ($slow_coll $slow_size B; --allow-tree-slower accepts it)"
grep -qxF "hiertune: error: $slower: see $report/report.txt" "$tmp/err4" || fail "slower tree: $(cat "$tmp/err4")"
grep -qE "^$slow_coll +$slow_size +2 +1000000.00 +1000.00 +0.001 +0.0% +FAIL \(slower\)$" "$report/report.txt" ||
    fail "report.txt: no failing row: $(grep -A12 'tree as loaded' "$report/report.txt")"
[ "$(grep -cE '^(bcast|allreduce) .* within noise$' "$report/report.txt")" = 5 ] ||
    fail "report.txt: expected 5 sizes within noise"
grep -qxF "tree vs no tree: 1 of 6 sizes slower beyond the noise: FAILED ($slow_coll $slow_size B)" "$report/report.txt" ||
    fail "report.txt: no FAILED line"
grep -q "^$slow_coll,$slow_size,2,1000000.00,1000.00,0.001,0,slower,$" "$report/tree-timing.csv" ||
    fail "tree-timing.csv: no slower row"
grep -q "^tree [0-9a-f]\{16\} timed in $db (2 rounds): nothing to measure" "$tmp/out4" ||
    fail "the failing rerun measured"
# with the flag: reported, accepted
"$hiertune" "${relaunch[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out5" 2> "$tmp/err5" ||
    { cat "$tmp/out5" "$tmp/err5"; fail "--allow-tree-slower did not accept the slower tree"; }
grep -qxF "tree vs no tree: 1 of 6 sizes slower beyond the noise: accepted (--allow-tree-slower) ($slow_coll $slow_size B)" \
    "$report/report.txt" || fail "report.txt: the slower tree not accepted"
fi

echo "== step 5b: picks not measured faster than no tree become stock, the tree made and verified; its timing the first tree's"
# the stored timings above find no size faster: every pick that is not stock goes back
cp "$tree" "$tmp/tree-before-5b.json"
proven=()
for word in "${relaunch[@]}"; do [ "$word" = --keep-unproven ] || proven+=("$word"); done
"$hiertune" "${proven[@]}" --launcher "env MPIR_CVAR_NUM_CLIQUES=2 '$mpiexec' -n 4" > "$tmp/out7" 2> "$tmp/err7" ||
    { cat "$tmp/out7" "$tmp/err7"; fail "tune with step 5b failed"; }
sed -n '/^== tune step 5b/,/^== tune step 6/p' "$tmp/out7"
grep -q "^== tune step 5b/7: keep the picks measured faster than no tree$" "$tmp/out7" || fail "no step 5b"
same_json() { python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' "$1" "$2"; }
same_json "$tree" "$stock" || fail "step 5b: the tree is not MPICH's own tree though no pick was measured faster"
if same_json "$tmp/tree-before-5b.json" "$stock"; then
    grep -q "^no pick left that the timing did not find faster: the tree stays$" "$tmp/out7" || fail "step 5b: $(cat "$tmp/out7")"
else
    grep -qE "^never slower: [1-9][0-9]* picks back to MPICH's selection" "$tmp/out7" || fail "step 5b: no picks listed"
    grep -qE "^  $slow_coll $slow_size B: .* \(no tree / tree 0\.001, noise 0\.0 %: slower\)$" "$tmp/out7" ||
        fail "step 5b: $slow_coll $slow_size B not listed as slower"
    grep -q "^\\$ .*/hiertune verify " <(sed -n '/^== tune step 5b/,/^== tune step 6/p' "$tmp/out7") ||
        fail "step 5b: the new tree not verified"
    grep -qE "^never slower: [1-9][0-9]* picks back" "$report/report.txt" || fail "report.txt: step 5b's picks missing"
    # the tree written differs only where picks went back to MPICH's selection: not timed again
    [ "$(sql_rows "$db" 'SELECT count(DISTINCT tree) FROM tree_timings')" = 1 ] || fail "step 5b: the new tree timed again"
    grep -q "^the tree timed in step 5 stands for this one" "$tmp/out7" || fail "step 5b: the timing's source not said"
    grep -qE "^$slow_coll +$slow_size +2 +1000000.00 +1000.00 +0.001 +0.0% +slower: put back$" "$report/report.txt" ||
        fail "report.txt: the put-back size not shown as MPICH's choice: $(grep -A12 'tree as loaded' "$report/report.txt")"
    grep -qxF "tree vs no tree: 0 of 6 sizes slower beyond the noise: ok" "$report/report.txt" ||
        fail "report.txt: the tree written counted slower where it runs MPICH's selection"
fi

echo "== tree-timing: any tree, standalone"
"$hiertune" tree-timing --tree "$tree" -n 4 --nodes 2 -C bcast,reduce --sizes 2K --rounds 2 -x 1 --min-reps 3 -i 5 \
    --max-time 1 --mpiexec "$mpiexec" --allow-cliques --allow-tree-slower > "$tmp/out6" 2> "$tmp/err6" ||
    { cat "$tmp/out6" "$tmp/err6"; fail "tree-timing failed"; }
cat "$tmp/out6"
standalone='^\$ MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=.* bench -C bcast,reduce -a default --sizes 2048 '
[ "$(grep -c "$standalone" "$tmp/out6")" = 4 ] || fail "tree-timing: expected 4 jobs"
grep -q "^# 4 ranks, 2 nodes x 2 ppn, .*; 2 rounds$" "$tmp/out6" || fail "tree-timing: no layout line"
for coll in bcast reduce; do
    grep -qE "^$coll +2048 +2 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+% +(faster|within noise|FAIL \(slower\)|slower)(, same choice: noise)?$" "$tmp/out6" ||
        fail "tree-timing: no row for $coll"
done
# the tree names no reduce (its coverage file says MPICH's own selection runs): never a failure
grep -qE "^reduce +2048 .*FAIL" "$tmp/out6" && fail "tree-timing: reduce, not tuned, counted as slower"
grep -qE "^tree vs no tree: [0-2] of 2 sizes slower beyond the noise: " "$tmp/out6" || fail "tree-timing: no verdict"

echo "== allgather: its share of the space (the ring with binomial), tasks by bytes per rank, tree, verify;"
echo "   its own sizes (--sizes-of) beside bcast's"
ag=(tune -n 4 --nodes 2 -C allgather,bcast --sizes 2K --sizes-of allgather=2K,24K -s 8K
    --config inter_algo=tsp_kary,intra_algo=binomial
    --db "$tmp/ag.sqlite" -o "$tmp/ag.json" --report "$tmp/ag-report" --stock "$stock" --mpiexec "$mpiexec"
    --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
    --tree-rounds 2 --allow-tree-slower --allow-cliques)
"$hiertune" "${ag[@]}" > "$tmp/ag_out" 2> "$tmp/ag_err" || { cat "$tmp/ag_out" "$tmp/ag_err"; fail "allgather tune failed"; }
grep -q "^allgather sg bytes=24576 inter_algo=ring intra_algo=binomial: sg " "$tmp/ag_out" || fail "allgather sg not timed"
# the leaders receive (N-1) ceil(ppn m / fs) pieces where hier runs
# (or, where the plan picked stock, MPICH's selection, or one of its algorithms on the whole comm)
grep -Eq "^verify allgather 24576 B: (hier ran with 0..6 segments \(expected 6\)|stock choice ran|MPICH's algorithm ran on the whole comm).*: ok$" "$tmp/ag_out" ||
    { cat "$tmp/ag_out"; fail "allgather verify"; }
grep -q '"collective=allgather"' "$tmp/ag.json" || fail "no allgather in the tree"
grep -q "^\$ .* bench -C allgather -a stock --sizes 2048,24576 " "$tmp/ag_out" || fail "allgather's stock not at its own sizes"
grep -q "^\$ .* bench -C bcast -a stock --sizes 2048 " "$tmp/ag_out" || fail "bcast's stock not at -m"
grep -q "^verify bcast 2048 B: " "$tmp/ag_out" || fail "bcast not verified"
grep -q "^verify bcast 24576 B" "$tmp/ag_out" && fail "bcast tuned at allgather's sizes"
"$hiertune" "${ag[@]/allgather=2K,24K/reduce=2K}" > /dev/null 2> "$tmp/ag_err2" && fail "--sizes-of a collective not tuned accepted"
grep -q "^hiertune: error: --sizes-of reduce: not a collective of the HAN task model in -C" "$tmp/ag_err2" ||
    { cat "$tmp/ag_err2"; fail "--sizes-of reduce: no clear error"; }
grep -q '"avg_msg_size<' <(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["collective=allgather"]))' "$tmp/ag.json") &&
    fail "allgather keyed on avg_msg_size (MPICH asserts: csel.c has no avg_msg_size for allgather)"

echo "== reduce: its tasks (sr, irsr, ir: the bcast's pipeline mirrored), picks, tree, verify"
rd=(tune -n 4 --nodes 2 -C reduce --sizes 2K,24K -s 8K --config inter_algo=tsp_kary/tsp_allreduce_ring,intra_algo=binomial
    --db "$tmp/rd.sqlite" -o "$tmp/rd.json" --report "$tmp/rd-report" --stock "$stock" --mpiexec "$mpiexec"
    --task-warmup 1 --task-reps 5 --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
    --tree-rounds 2 --allow-tree-slower --keep-unproven --allow-cliques --no-stock)
"$hiertune" "${rd[@]}" --budget 1s > "$tmp/rd_out" 2> "$tmp/rd_err" || { cat "$tmp/rd_out" "$tmp/rd_err"; fail "reduce tune failed"; }
grep -qE "^reduce segsize=8192 inter_algo=tsp_kary intra_algo=binomial: sr [0-9.]+ irsr [0-9.]+ ir [0-9.]+ " "$tmp/rd_out" ||
    fail "reduce tasks not timed"
grep -q "^reduce: inter_algo=tsp_allreduce_ring,intra_algo=binomial skipped (tsp_allreduce_ring is allreduce only)" \
    "$tmp/rd_out" || fail "the allreduce ring not skipped for reduce"
# without the stock reference the model's hier picks go in: 24 KiB is 3 segments of 8 KiB
grep -q "^verify reduce 24576 B: hier ran with 3 segments (expected 3), data ok: ok$" "$tmp/rd_out" ||
    { cat "$tmp/rd_out"; fail "reduce verify"; }
grep -q '"algorithm=MPIR_Reduce_intra_hier"' "$tmp/rd.json" || fail "no hier reduce in the tree"
# with --budget 1s the tree is still made, verified and timed; every sweep job is left out
# and said so; the rerun without a budget resumes and sweeps
sweep_job='^\$ .*/hiertune bench -C reduce -a hier:'
grep -q "$sweep_job" "$tmp/rd_out" && fail "a sweep job ran past --budget 1s"
grep -qE "^budget: exhaustive sweep of reduce, [0-9]+ configurations? left out$" "$tmp/rd_out" ||
    { cat "$tmp/rd_out"; fail "the sweep job left out not said"; }
grep -qE "^budget 1.0 s: this run took .* \(over by .*: the steps that make, verify and time the tree always run\)$" \
    "$tmp/rd-report/report.txt" || { cat "$tmp/rd-report/report.txt"; fail "no budget line in the report"; }
grep -qE "^  left out: exhaustive sweep of reduce, [0-9]+ configurations? \(estimated .*, 0.0 s left\)$" \
    "$tmp/rd-report/report.txt" || fail "the report does not name the sweep job left out"
grep -q "^the model's picks checked against the exhaustive sweep at 0 of 2 sizes: the budget left the others' sweep out$" \
    "$tmp/rd-report/report.txt" || fail "the report does not say the picks went unchecked"
# where the time went: each step's time against the budget, stored steps said
grep -q "^where this run's time went (share of the budget, 1.0 s):$" "$tmp/rd-report/report.txt" ||
    fail "no time table against the budget"
grep -qE "^  1 task benchmarks +[0-9.]+ s +[0-9.]+ %$" "$tmp/rd-report/report.txt" ||
    fail "the task benchmarks' time not in the table"
"$hiertune" "${rd[@]}" > "$tmp/rd_out2" 2> "$tmp/rd_err2" ||
    { cat "$tmp/rd_out2" "$tmp/rd_err2"; fail "reduce tune resumed without a budget failed"; }
grep -q "$sweep_job" "$tmp/rd_out2" || fail "the resumed tune did not sweep"
grep -q "^budget" "$tmp/rd-report/report.txt" && fail "a budget line without --budget"
grep -q "^the model's picks checked against" "$tmp/rd-report/report.txt" && fail "picks unchecked after the sweep"
grep -qE "^where this run's time went \(share of the run, .*\):$" "$tmp/rd-report/report.txt" ||
    fail "no time table without a budget"
grep -qE "^  1 task benchmarks +[0-9.]+ s +[0-9.]+ %  \(stored: nothing measured\)$" "$tmp/rd-report/report.txt" ||
    fail "the resumed run's stored tasks not said"

echo "== gather, barrier, iscatter, ibarrier: measured (hier against MPICH's), one choice per shape, verify"
ms=(tune -n 4 --nodes 2 -C gather,barrier,iscatter,ibarrier --measured-sizes 2K,24K
    --db "$tmp/ms.sqlite" -o "$tmp/ms.json" --report "$tmp/ms-report" --stock "$stock" --mpiexec "$mpiexec"
    --bench-warmup 1 --bench-min-reps 3 --bench-reps 10 --max-time 1
    --tree-rounds 2 --allow-tree-slower --keep-unproven --allow-cliques)
"$hiertune" "${ms[@]}" > "$tmp/ms_out" 2> "$tmp/ms_err" || { cat "$tmp/ms_out" "$tmp/ms_err"; fail "measured tune failed"; }
grep -q "^\\$ .* bench -C gather -a hier:gather_hier_inter_algorithm=linear/binomial --sizes 2048,24576 " "$tmp/ms_out" ||
    fail "gather's hier not measured"
grep -q "^\\$ .* bench -C barrier -a hier:barrier_hier_inter_algorithm=auto/dissemination --sizes 0 " "$tmp/ms_out" ||
    fail "barrier's hier not measured at size 0"
grep -q "^\\$ .* bench -C iscatter -a tsp_hier --sizes 2048,24576 " "$tmp/ms_out" ||
    fail "iscatter's schedule not measured"
grep -q "^\\$ .* bench -C barrier,ibarrier -a stock --sizes 0 " "$tmp/ms_out" ||
    fail "MPICH's ibarrier not measured beside its barrier"
grep -q "^verify: 6 of 6 cases as the tree says" "$tmp/ms_out" || { cat "$tmp/ms_out"; fail "measured verify"; }
# a non-blocking form's MPICH algorithm runs on the whole comm without the plugin's route
! grep -q "^verify i.*whole comm" "$tmp/ms_out" || fail "a non-blocking case expected the plugin's route"
for case in "gather 24576" "barrier 0" "iscatter 24576" "ibarrier 0"; do
    grep -Eq "^verify $case B: (hier ran with 0 segments \\(not checked\\)|stock choice ran|MPICH's algorithm ran on the whole comm).*: ok$" \
        "$tmp/ms_out" || fail "verify $case"
done
grep -q "^# measured picks (one per job shape, or per size where MPICH selects by bytes) vs the best measured at each size" "$tmp/ms-report/report.txt" ||
    fail "no measured section in the report"
# one choice per shape: no message-size key in the tuned branches (MPICH's is a count for gather)
python3 - "$tmp/ms.json" << 'PY' || fail "a measured collective keyed on its message size"
import json, sys
tree = json.load(open(sys.argv[1]))
def keys(node):
    return [k for k in node] + [x for v in node.values() if isinstance(v, dict) for x in keys(v)] if isinstance(node, dict) else []
for coll in ("gather", "barrier", "iscatter", "ibarrier"):
    parent = tree["collective=" + coll]["comm_type=intra"].get("comm_hierarchy=parent", {})
    assert not any("msg_size" in k for k in keys(parent)), coll
    # CH4 hands a non-blocking call to the MPIR level whole: no route mark
    assert not coll.startswith("i") or "whole_comm=1" not in keys(parent), coll
PY

# step 5 leaves out the sizes where the tree picked MPICH's selection (no --time-every-size):
# those it names and those the report times make the 6 (collective, size)
untimed=$(sed -nE "s/^not timed: ([0-9]+) sizes where the tree runs MPICH's selection, as no tree does$/\1/p" "$tmp/ms_out")
timed=$(sed -nE 's/^tree vs no tree: [0-9]+ of ([0-9]+) sizes slower beyond the noise: .*/\1/p' "$tmp/ms-report/report.txt")
[ "$((${untimed:-0} + ${timed:-0}))" = 6 ] || fail "step 5: ${untimed:-0} sizes not timed and ${timed:-none} timed, not 6"
if [ -n "$untimed" ]; then
    grep -qx "tree timing: $untimed sizes not timed, where the tree picked MPICH's selection (it runs what no tree runs)" \
        "$tmp/ms-report/report.txt" || fail "the report does not say which sizes step 5 left out"
fi

echo "== --shapes: further job shapes measured in jobs of their own, keyed in one tree, verified, timed"
"$hiertune" "${ms[@]}" --shapes 2x1,3x1 > "$tmp/sh_out" 2> "$tmp/sh_err" ||
    { cat "$tmp/sh_out" "$tmp/sh_err"; fail "tune --shapes failed"; }
grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_HIER_LATENCY_BYTES=[0-9]* [^ ]*mpiexec -n 2 .* bench -C gather,iscatter -a default --sizes 2048,24576 " \
    "$tmp/sh_out" || fail "--shapes: MPICH's selection not measured at 2x1"
grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=3 MPIR_CVAR_HIER_LATENCY_BYTES=[0-9]* [^ ]*mpiexec -n 3 .* bench -C gather -a hier:gather_hier_inter_algorithm=linear/binomial " \
    "$tmp/sh_out" || fail "--shapes: hier not measured at 3x1"
[ "$(grep -c "^verify: 6 of 6 cases as the tree says" "$tmp/sh_out")" = 3 ] || fail "--shapes: not verified at each shape"
for shape in "2x1: job [0-9]* (vm, 2 ranks, 2 nodes x 1 ppn" "3x1: job [0-9]* (vm, 3 ranks, 3 nodes x 1 ppn"; do
    grep -q "^# further shape $shape" "$tmp/ms-report/report.txt" || fail "--shapes: no report section $shape"
done
[ "$(grep -c "^# tuned at [23] ranks, 1 per node" "$tmp/ms-report/report.txt")" = 2 ] || fail "--shapes: coverage"
# each shape's section says whether its own job's ranks shared cores (the database's record of it)
shape_section() { sed -n "/^# further shape $1:/,/^# further shape [^$1]/p" "$tmp/ms-report/report.txt"; }
for n in 2 3; do
    if [ "$n" -gt "$(nproc)" ]; then
        shape_section "${n}x1" | grep -q "^shared cores: .*: $n ranks on $(nproc) cores$" ||
            fail "--shapes: ${n}x1's section does not say its $n ranks share $(nproc) cores"
    else
        shape_section "${n}x1" | grep -q "^shared cores:" && fail "--shapes: ${n}x1 said to share cores"
    fi
done
# each shape's verify job ran at its shape, with the one tree (which picks are hier there
# is measured, so the tree's keys are the unit test's: FurtherShapesShareTheTree)
for n in 2 3; do
    grep -q "^\\$ MPIR_CVAR_NUM_CLIQUES=$n MPIR_CVAR_HIER_LATENCY_BYTES=[0-9]* MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tmp/ms.json MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE=[^ ]* [^ ]*mpiexec -n $n [^ ]*hiertune verify " \
        "$tmp/sh_out" || fail "--shapes: no verify job of $n ranks under the tree"
done
"$hiertune" "${ms[@]}" --shapes 2x1,3x1 > "$tmp/sh_out2" 2> "$tmp/sh_err2" || fail "tune --shapes rerun failed"
grep -q "^further shapes 2x1, 3x1 measured at every size: nothing to measure" "$tmp/sh_out2" || fail "--shapes: rerun measured"
"$hiertune" "${ms[@]}" --shapes 2x2 > /dev/null 2> "$tmp/sh_e1" && fail "--shapes: the main job's shape accepted"
grep -q "^hiertune: error: --shapes 2x2: the tree position of the main job" "$tmp/sh_e1" || fail "--shapes 2x2: $(cat "$tmp/sh_e1")"
"$hiertune" "${ms[@]}" --shapes 1x4 2> "$tmp/sh_e2" && fail "--shapes: one node accepted"
grep -q "^hiertune: error: --shapes: 1x4: need at least 2 nodes" "$tmp/sh_e2" || fail "--shapes 1x4: $(cat "$tmp/sh_e2")"
"$hiertune" "${ms[@]}" --shapes 2x1 --shape-launcher "maint/emucluster run" 2> "$tmp/sh_e3" &&
    fail "--shape-launcher with --nodes accepted"
grep -q "^hiertune: error: --shape-launcher does not go with --nodes" "$tmp/sh_e3" || fail "--shape-launcher: $(cat "$tmp/sh_e3")"

echo "== verify: a whole_comm case runs MPICH's algorithm on the whole comm only where a tree marks it"
cat > "$tmp/whole.json" <<'JSON'
{"collective=bcast": {"comm_type=intra": {"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_binomial": {"whole_comm=1": {}}},
                                          "comm_hierarchy=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}
JSON
MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$tmp/whole.json" \
    "$mpiexec" -n 4 "$hiertune" verify --case bcast:8192:whole_comm > "$tmp/v1" 2>&1 || { cat "$tmp/v1"; fail "whole_comm tree: verify failed"; }
grep -q "^verify bcast 8192 B: MPICH's algorithm ran on the whole comm (routed to the MPIR level), data ok: ok" "$tmp/v1" ||
    fail "whole_comm tree: $(cat "$tmp/v1")"
MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE= \
    "$mpiexec" -n 4 "$hiertune" verify --case bcast:8192:whole_comm > "$tmp/v2" 2>&1 && fail "no tree: whole_comm verified"
grep -q "^verify bcast 8192 B: routed 0..0 times per rank, hier 0 .*: FAILED" "$tmp/v2" || fail "no tree: $(cat "$tmp/v2")"

echo "== errors"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --db "$tmp/e.sqlite" --mpiexec "$tmp/none" 2> "$tmp/e1" &&
    fail "missing mpiexec accepted"
grep -q "^hiertune: error: no mpiexec at $tmp/none" "$tmp/e1" || fail "missing mpiexec: $(cat "$tmp/e1")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$tmp/none.json" --db "$tmp/e.sqlite" 2> "$tmp/e2" &&
    fail "missing stock accepted"
grep -q "^hiertune: error: cannot read JSON tree" "$tmp/e2" || fail "missing stock: $(cat "$tmp/e2")"
# --ch4-stock: a missing file, and an MPIR tree where MPICH's CH4 tree belongs, fail before any job
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --ch4-stock "$tmp/none.json" --db "$tmp/e.sqlite" \
    2> "$tmp/e2b" && fail "missing CH4 stock accepted"
grep -q "^hiertune: error: cannot read JSON tree" "$tmp/e2b" || fail "missing CH4 stock: $(cat "$tmp/e2b")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --ch4-stock "$stock" --db "$tmp/e.sqlite" \
    2> "$tmp/e2c" && fail "an MPIR tree as the CH4 stock accepted"
grep -q "^hiertune: error: --ch4-stock $stock: MPID_Init would refuse this tree" "$tmp/e2c" ||
    fail "MPIR tree as CH4 stock: $(cat "$tmp/e2c")"
[ ! -e "$tmp/e.sqlite" ] || fail "a refused --ch4-stock created the database"
(cd "$tmp" && "$hiertune" tune -n 4 --nodes 2 --allow-cliques -C alltoallw --stock "$stock" 2> "$tmp/e3") &&
    fail "alltoallw accepted"
grep -q "alltoallw not in {bcast,reduce,allreduce,allgather,gather,scatter,barrier,scan,exscan,reduce_scatter,reduce_scatter_block,allgatherv,alltoall,alltoallv,gatherv,scatterv,ibcast,ireduce,iallreduce,iallgather,igather,iscatter,ibarrier,iscan,iexscan,ireduce_scatter,ireduce_scatter_block,iallgatherv,ialltoall,ialltoallv,igatherv,iscatterv}" "$tmp/e3" ||
    fail "alltoallw: $(cat "$tmp/e3")"
"$hiertune" tune -n 4 --launcher "$mpiexec -n 4" --allow-cliques --config inter_algo=seg_chain --stock "$stock" \
    2> "$tmp/e4" && fail "seg_chain accepted without a launch of one rank per node"
grep -q "^hiertune: error: seg_\* inter-node submodules are costed by the analytic models: give --fit-launcher" \
    "$tmp/e4" || fail "seg_chain: $(cat "$tmp/e4")"
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
# tree-timing's own errors: cliques without the flag, one round, no tree file
"$hiertune" tree-timing --tree "$tree" -n 4 --nodes 2 --sizes 2K --mpiexec "$mpiexec" 2> "$tmp/e11" &&
    fail "tree-timing on cliques accepted"
grep -q "^hiertune: error: --nodes 2: emulated nodes share one host's cores" "$tmp/e11" || fail "tree-timing: $(cat "$tmp/e11")"
"$hiertune" tree-timing --tree "$tree" -n 4 --nodes 2 --sizes 2K --rounds 1 --allow-cliques 2> "$tmp/e12" &&
    fail "one round accepted"
grep -q "^hiertune: error: --rounds must be at least 2" "$tmp/e12" || fail "tree-timing rounds: $(cat "$tmp/e12")"
"$hiertune" tree-timing --tree "$tmp/none.json" -n 4 --nodes 2 --sizes 2K --allow-cliques --mpiexec "$mpiexec" \
    2> "$tmp/e13" && fail "missing tree accepted"
grep -q "^hiertune: error: cannot read JSON tree" "$tmp/e13" || fail "tree-timing tree: $(cat "$tmp/e13")"
"$hiertune" tune -n 4 --nodes 2 --allow-cliques --stock "$stock" --tree-rounds 1 2> "$tmp/e14" && fail "--tree-rounds 1 accepted"
grep -q "^hiertune: error: --tree-rounds must be at least 2" "$tmp/e14" || fail "tree rounds: $(cat "$tmp/e14")"
echo "PASS: mpi_tune"
