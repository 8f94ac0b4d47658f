#!/usr/bin/env bash
# emucluster life cycle: up is idempotent and refuses a different cluster or a busy one;
# a second run is refused while one runs; kill -9 of a run leaves nothing behind after
# the next run; down removes exactly what up made; a failed up removes what it made.
source "$(dirname "$0")/common.sh"

[ "$("$emucluster" status)" = down ] || fail "status before up is not 'down'"
[ -z "$(made_objects)" ] || fail "objects of prefix $EMUCLUSTER_PREFIX exist before the test: $(made_objects)"

# a link of someone else's is never adopted nor removed
ip link add "$EMUCLUSTER_PREFIX-n1" type bridge
"$emucluster" up --nodes 3 --rate 100mbit 2> "$tmp/err" && fail "up adopted a foreign interface"
grep -q "not this cluster's" "$tmp/err" || fail "no message naming the foreign interface: $(cat "$tmp/err")"
ip link show "$EMUCLUSTER_PREFIX-n1" > /dev/null || fail "the foreign interface was removed"
ip link del "$EMUCLUSTER_PREFIX-n1"
[ -z "$(made_objects)" ] || fail "a refused up left $(made_objects)"

# bad input: one line, exit 1, nothing made
for bad in "--nodes 1" "--rate fast" "--burst 1kb" "--leaf-size 2" "--subnet 8.8.8.0/24" "--bogus" \
    "--leaf-order cyclic" "--leaf-size 2 --uplink-rate 50mbit --leaf-order zigzag"; do
    # shellcheck disable=SC2086
    "$emucluster" up $bad 2> "$tmp/err" && fail "up $bad accepted"
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "up $bad: not one error line: $(cat "$tmp/err")"
done
[ -z "$(made_objects)" ] || fail "refused ups left $(made_objects)"

"$emucluster" up --nodes 3 --rate 100mbit
objects=$(made_objects)
# 3 namespaces, 3 host-side links, the bridge
[ "$(printf '%s\n' "$objects" | grep -c '^netns ')" = 3 ] || fail "expected 3 namespaces: $objects"
printf '%s\n' "$objects" | grep -qx "link $EMUCLUSTER_PREFIX-sw" || fail "no bridge: $objects"
grep -q '^state: up' <<< "$("$emucluster" status)" || fail "status does not say up"
for i in 0 1 2; do
    grep -q 'tbf.*rate 100Mbit' <<< "$(ip netns exec "$EMUCLUSTER_PREFIX-n$i" tc qdisc show dev eth0)" ||
        fail "no 100Mbit tbf on node $i's eth0"
    grep -q 'tbf.*rate 100Mbit' <<< "$(tc qdisc show dev "$EMUCLUSTER_PREFIX-n$i")" ||
        fail "no 100Mbit tbf on node $i's switch port"
done

# idempotent; a different cluster refused while one is up
"$emucluster" up --nodes 3 --rate 100mbit 2> "$tmp/err" || fail "second identical up failed: $(cat "$tmp/err")"
grep -q "already up" "$tmp/err" || fail "second up did not say 'already up'"
[ "$(made_objects)" = "$objects" ] || fail "second up changed the objects"
"$emucluster" up --nodes 2 2> "$tmp/err" && fail "up of another cluster accepted while one is up"
grep -q "down first" "$tmp/err" || fail "no 'down first': $(cat "$tmp/err")"

# a running job holds the cluster
"$emucluster" run --ppn 1 -- sleep 600 &
run_pid=$!
job_started() { [ -n "$(ip netns pids "$EMUCLUSTER_PREFIX-n2" 2> /dev/null)" ]; }
wait_for 60 "the job did not start on node 2" job_started
grep -q '^job: pid' <<< "$("$emucluster" status)" || fail "status does not show the job"
"$emucluster" run --ppn 1 -- true 2> "$tmp/err" && fail "second run accepted while one runs"
grep -q busy "$tmp/err" || fail "second run: no 'busy': $(cat "$tmp/err")"
"$emucluster" up --nodes 3 --rate 100mbit 2> "$tmp/err" && fail "up accepted while a job runs"
"$emucluster" down 2> "$tmp/err" && fail "down accepted while a job runs"
grep -q -- --force "$tmp/err" || fail "down: no hint at --force: $(cat "$tmp/err")"

# kill -9 of the run: its job is left running, the next run kills it and runs
kill -KILL "$run_pid"
wait "$run_pid" 2> /dev/null || true
job_started || fail "expected the killed run's job to be left running (test premise)"
out=$("$emucluster" run --ppn 1 -- echo ran 2> "$tmp/err") || fail "run after kill -9 failed: $(cat "$tmp/err")"
[ "$(printf '%s\n' "$out" | grep -c '^ran$')" = 3 ] || fail "run after kill -9: expected 3 'ran' lines, got: $out"
grep -q "killing" "$tmp/err" || fail "the leftover job was not reported killed: $(cat "$tmp/err")"
for i in 0 1 2; do
    [ -z "$(ip netns pids "$EMUCLUSTER_PREFIX-n$i")" ] || fail "processes left in node $i after the run"
done

# SIGTERM to a run stops its job
"$emucluster" run --ppn 2 -- sleep 600 &
run_pid=$!
wait_for 60 "the second job did not start" job_started
kill -TERM "$run_pid"
wait "$run_pid" && fail "a terminated run exited 0"
for i in 0 1 2; do
    [ -z "$(ip netns pids "$EMUCLUSTER_PREFIX-n$i")" ] || fail "processes left in node $i after SIGTERM"
done

# the job's exit status is the run's
"$emucluster" run --ppn 1 -- sh -c 'exit 3' && fail "a failing job's run exited 0"

"$emucluster" down
[ -z "$(made_objects)" ] || fail "down left $(made_objects)"
[ "$("$emucluster" status)" = down ] || fail "status after down is not 'down'"
"$emucluster" down 2> "$tmp/err" || fail "a second down failed"

# an up that fails half-way (here: tc fails on its 4th call, after the first node is
# made) removes what it made, and only that
ip link add "$EMUCLUSTER_PREFIX-x" type bridge
mkdir -p "$tmp/bin"
cat > "$tmp/bin/tc" << EOT
#!/bin/sh
n=\$(cat "$tmp/tc-calls" 2> /dev/null || echo 0)
echo \$((n + 1)) > "$tmp/tc-calls"
[ "\$n" -lt 3 ] || { echo "tc: injected failure" >&2; exit 1; }
exec $(command -v tc) "\$@"
EOT
chmod +x "$tmp/bin/tc"
PATH=$tmp/bin:$PATH "$emucluster" up --nodes 3 --rate 10mbit --subnet 10.213.7.0/24 2> "$tmp/err" &&
    fail "up succeeded although tc failed"
grep -q "removing what it made" "$tmp/err" || fail "failed up did not clean up: $(cat "$tmp/err")"
[ "$(made_objects)" = "link $EMUCLUSTER_PREFIX-x" ] || fail "failed up left $(made_objects)"
ip link del "$EMUCLUSTER_PREFIX-x"
[ "$("$emucluster" status)" = down ] || fail "status after a failed up is not 'down'"
echo "PASS: emucluster life cycle"
