#!/usr/bin/env bash
# A database sweep killed with SIGKILL mid-way and rerun with the same command
# loses no point and stores none twice.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"

planned=34  # 2 algorithms x 17 sizes

# Hydra starts its proxy and every rank in sessions of their own, so the whole
# job is mpiexec's process tree, not its process group.
job_pids() {  # job_pids PID: PID and its descendants
    echo "$1"
    local child
    for child in $(ps -o pid= --ppid "$1"); do job_pids "$child"; done
}

# Starts the sweep, kills the whole job with SIGKILL once 3 points are stored;
# sets `before` to the points that survived.  Every point runs to the
# repetition cap REPS (the precision is unreachable).
kill_mid_sweep() {
    local reps=$1 count=0 launcher pids alive pid
    db=$tmp/killed-$reps.sqlite
    sweep=(--db "$db" -a binomial -a hier -m 1:64K -x 1 --min-reps "$reps" -i "$reps" --precision 0.001
           --no-progress --allow-cliques)
    "$mpiexec" -n 4 "$hiertune" bench "${sweep[@]}" > "$tmp/out1" 2>&1 &
    launcher=$!
    for _ in $(seq 1 2400); do  # poll every 0.05 s, 120 s at most
        count=$(db_rows "$db" | grep -c . || true)
        [ "$count" -ge 3 ] && break
        kill -0 "$launcher" 2>/dev/null || break
        sleep 0.05
    done
    [ "$count" -ge 3 ] || { cat "$tmp/out1"; fail "no 3 points stored after 120 s"; }
    pids=$(job_pids "$launcher")
    kill -9 $pids 2>/dev/null || true
    for _ in $(seq 1 200); do  # until every process of the job is gone (10 s)
        alive=0
        for pid in $pids; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.05
    done
    [ $alive = 0 ] || fail "processes of the killed job still alive: $pids"
    wait "$launcher" 2>/dev/null || true
    before=$(db_rows "$db" | grep -c . || true)
}

echo "== start the sweep, kill -9 the job once some points are stored"
# A fast machine may finish a short sweep before the kill lands: lengthen it.
for reps in 6 60 600; do
    kill_mid_sweep $reps
    [ "$before" -lt $planned ] && break
    echo "(the sweep with $reps repetitions per point finished before the kill; longer)"
done
[ "$before" -lt $planned ] || fail "every sweep finished before it was killed"
"$hiertune" db check --db "$db" | grep -q ': ok$' || fail "database damaged by the kill"

echo "== rerun the same command"
"$mpiexec" -n 4 "$hiertune" bench "${sweep[@]}" > "$tmp/out2" 2> "$tmp/err2" || { cat "$tmp/err2"; fail "resume failed"; }
grep -q "$before of $planned points already stored, $((planned - before)) to measure" "$tmp/err2" ||
    { cat "$tmp/err2"; fail "resume did not skip the stored points"; }
check_db "$db" $planned
after=$(db_rows "$db" | grep -c .)
[ "$(grep -c '^[0-9]' "$tmp/out2")" = $planned ] || fail "the rerun does not print every point"

echo "points before kill: $before, after resume: $after"
echo "PASS: mpi_bench_kill_resume"
