#!/usr/bin/env bash
# The site's tree as a site admin and a user meet it: after `hiertune install-tree`, an
# unchanged program whose environment names no tree runs what the installed tree says
# (the plugin's pvar counts hier bcasts); MPIR_CVAR_HIER_SITE_TREE=0, an empty
# MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE and a user's own tree leave it out; a tree
# measured on another MPICH, changed after its install, or not valid is refused on every
# rank with the reason, and the job runs on MPICH's built-in tree.  The CH4 tree beside
# the tree (TREE.ch4) is installed with it and loaded with it (MPIR_CVAR_DEBUG_SUMMARY's
# "MPID:" source), never over the user's choice, refused as the MPIR tree is.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/mpi_common.sh"
unset MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE MPICH_COLL_SELECTION_TUNING_JSON_FILE \
    MPIR_PARAM_COLL_SELECTION_TUNING_JSON_FILE MPIR_CVAR_HIER_SITE_TREE MPICH_HIER_SITE_TREE
ranks=4

site=$prefix/share/mpich-hier/tuning.json
# the other tests need the default path: this test leaves no site tree behind
[ ! -e "$site" ] || fail "a site tree is installed at $site already (remove it and its .record)"
trap 'rm -f "$site" "$site.record" "$site.ch4" "$site.ch4.record"; rm -rf "$tmp"' EXIT

"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/app" "$here/../../test/mpi/tuning_file/tree_smoke.c"

run() {  # run [VAR=VALUE...]: the unchanged program under mpiexec; output in $tmp/out
    local status=0
    env "$@" "$mpiexec" -n $ranks "$tmp/app" > "$tmp/out" 2>&1 || status=$?
    [ $status = 0 ] || fail "the job failed ($status) with $*: $(head -20 "$tmp/out")"
}
expect_hier() {  # expect_hier yes|no WHAT
    if [ "$1" = yes ]; then
        grep -qx "ok, hier bcasts: [1-9][0-9]*" "$tmp/out" || fail "$2: hier did not run: $(head -20 "$tmp/out")"
    else
        grep -qx "ok, hier bcasts: 0" "$tmp/out" || fail "$2: not MPICH's built-in choice: $(head -20 "$tmp/out")"
    fi
}
expect_quiet() {
    ! grep -q "mpich-hier:" "$tmp/out" || fail "$1: a message: $(head -20 "$tmp/out")"
}
expect_refused() {  # expect_refused WHAT MESSAGE: every rank says it, the job ran on stock
    local lines
    lines=$(grep -cF "mpich-hier: the site tree $site is refused: $2" "$tmp/out" || true)
    [ "$lines" = $ranks ] || fail "$1: $ranks ranks should say '$2', $lines did: $(head -20 "$tmp/out")"
    expect_hier no "$1"
}

echo "== no site tree: MPICH's built-in tree, silently"
run
expect_hier no "no site tree"
expect_quiet "no site tree"

install_expect() {  # install_expect WHAT LINE: install-tree of $tmp/tree.json says "installed LINE..."
    "$hiertune" install-tree "$tmp/tree.json" --machine test-vm > "$tmp/install" || fail "install-tree ($1): $(cat "$tmp/install")"
    grep -q "^installed $2" "$tmp/install" || fail "install-tree ($1) said: $(cat "$tmp/install")"
}

echo "== install-tree, then an unchanged program"
printf '%s' '{"collective=bcast": {"comm_type=intra": {"comm_hierarchy=parent": {"algorithm=MPIR_Bcast_intra_hier": {"segsize=1024": {}}}, "comm_hierarchy=any": {"algorithm=MPIR_Bcast_intra_binomial": {}}}}}' \
    > "$tmp/tree.json"
install_expect "a tree" "$site (MPICH 5.0.1, measured on test-vm"
cmp -s "$tmp/tree.json" "$site" || fail "the installed tree is not the given one"
run
expect_hier yes "the installed tree"
expect_quiet "the installed tree"
"$hiertune" show-tree -C bcast > "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"
grep -qx "site tree: $site" "$tmp/show" || fail "show-tree names no site tree: $(head "$tmp/show")"
grep -q "^measured on test-vm (not recorded) at .* with MPICH 5.0.1; installed " "$tmp/show" ||
    fail "show-tree shows no record: $(head "$tmp/show")"
grep -q "^MPI_Init loads it" "$tmp/show" || fail "show-tree: $(head "$tmp/show")"
grep -q "MPIR_Bcast_intra_hier" "$tmp/show" || fail "show-tree shows not the tree: $(cat "$tmp/show")"

echo "== the coverage file (tune's, beside the tree) goes with it; show-tree names each row's source"
python3 - "$tmp/tree.json" <<'PY'
import json, sys
digest = 0xcbf29ce484222325
for byte in open(sys.argv[1], "rb").read():  # measure_db.hpp tree_digest: FNV-1a, 64 bits
    digest = ((digest ^ byte) * 0x100000001b3) % (1 << 64)
ranges = [{"collective": "bcast", "first_bytes": 1024, "last_bytes": 65536, "source": "model", "choice": "segsize=1024"}]
json.dump({"tree_digest": "%016x" % digest,
           "positions": [{"comm_size": 4, "ppn": 2, "shape": "2x2", "predicted": False, "ranges": ranges}]},
          open(sys.argv[1] + ".coverage", "w"))
PY
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm > /dev/null || fail "install-tree with a coverage file"
cmp -s "$tmp/tree.json.coverage" "$site.coverage" || fail "the coverage file was not installed beside the tree"
"$hiertune" show-tree -C bcast --comm-sizes 4,64 --ppn 2 > "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"
grep -Eq "^bcast +4 +2 +0\.\.[0-9]+ +model +MPIR_Bcast_intra_hier" "$tmp/show" ||
    fail "show-tree names no source from the coverage file: $(cat "$tmp/show")"
grep -Eq "^bcast +64 +2 .* stock \(not tuned\) " "$tmp/show" || fail "an untuned comm size: $(cat "$tmp/show")"
rm "$tmp/tree.json.coverage"
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm > /dev/null || fail "install-tree without coverage"
[ ! -e "$site.coverage" ] || fail "the earlier tree's coverage file stayed"

echo "== the CH4 tree beside it goes with it; MPID_Init loads it with the site tree"
printf '%s' '{"collective=allreduce": {"comm_type=intra": {"comm_size=node_comm_size": {"composition=MPIDI_Allreduce_intra_composition_gamma": {}}, "comm_size=any": {"composition=MPIDI_Allreduce_intra_composition_beta": {}}}}}' \
    > "$tmp/tree.json.ch4"
install_expect "with a CH4 tree" "$site.ch4 (its CH4 tree"
cmp -s "$tmp/tree.json.ch4" "$site.ch4" || fail "the installed CH4 tree is not the given one"
grep -q '"tree_digest": "fnv1a64:' "$site.ch4.record" || fail "no record of the CH4 tree: $(cat "$site.ch4.record")"
expect_source() {  # expect_source SOURCE WHAT: MPID_Init's CH4 tree
    grep -qx "MPID: $1" "$tmp/out" || fail "$2: the CH4 tree is not $1: $(grep "^MPI[RD]:" "$tmp/out")"
}
run MPIR_CVAR_DEBUG_SUMMARY=1
expect_source "$site.ch4" "installed with the site tree"
expect_hier yes "the site tree with its CH4 tree"
expect_quiet "the site tree with its CH4 tree"
"$hiertune" show-tree -C bcast > "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"
grep -q "^site CH4 tree: $site.ch4 " "$tmp/show" || fail "show-tree names no CH4 tree: $(head "$tmp/show")"
grep -q "^MPID_Init loads it with the site tree" "$tmp/show" || fail "show-tree: $(head "$tmp/show")"
# never over the user's choice: a CH4 tree named (even empty), the site's trees off, the
# user's own MPIR tree (the pair is one tuning)
printf '%s' '{"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}}' > "$tmp/user.json"
for setting in MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE= MPIR_CVAR_HIER_SITE_TREE=0 \
    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$tmp/user.json"; do
    run MPIR_CVAR_DEBUG_SUMMARY=1 "$setting"
    expect_source MPIDI_coll_generic_json "$setting"
    expect_quiet "$setting"
done
# refused on every rank when changed after its install; the site tree still loads
cp "$site.ch4" "$tmp/ch4"
printf ' ' >> "$site.ch4"
run MPIR_CVAR_DEBUG_SUMMARY=1
lines=$(grep -cF "mpich-hier: the site's CH4 tree $site.ch4 is refused: it changed after it was installed" "$tmp/out" || true)
[ "$lines" = $ranks ] || fail "a changed CH4 tree: $ranks ranks should refuse it, $lines did: $(head -20 "$tmp/out")"
lines=$(grep -c "mpich-hier: the site's CH4 tree .*; this job uses MPICH's built-in CH4 selection$" "$tmp/out" || true)
[ "$lines" = $ranks ] || fail "a changed CH4 tree: $ranks ranks should say what the job uses, $lines did"
expect_source MPIDI_coll_generic_json "a changed CH4 tree"
expect_hier yes "the site tree beside a refused CH4 tree"
"$hiertune" show-tree > "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"
grep -q "^MPID_Init refuses it" "$tmp/show" || fail "show-tree of a changed CH4 tree: $(cat "$tmp/show")"
cp "$tmp/ch4" "$site.ch4"
# a CH4 tree MPID_Init would refuse is not installed, nor its MPIR tree: the node-first
# reduce composition without a commutative op guard
cp "$tmp/tree.json" "$tmp/bad.json"
printf '%s' '{"collective=reduce": {"comm_type=intra": {"comm_hierarchy=parent": {"composition=MPIDI_Reduce_intra_composition_alpha": {}}}}}' \
    > "$tmp/bad.json.ch4"
if "$hiertune" install-tree "$tmp/bad.json" > "$tmp/install" 2>&1; then fail "a bad CH4 tree was installed"; fi
grep -q "bad.json.ch4: MPI_Init would refuse this tree, not installed: .*is_commutative=yes" "$tmp/install" ||
    fail "install-tree of a bad CH4 tree said: $(cat "$tmp/install")"
cmp -s "$tmp/ch4" "$site.ch4" || fail "the installed CH4 tree changed"
# a tree without one removes the earlier tree's
rm "$tmp/tree.json.ch4"
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm > /dev/null || fail "install-tree without a CH4 tree"
[ ! -e "$site.ch4" ] && [ ! -e "$site.ch4.record" ] || fail "the earlier tree's CH4 tree stayed"
run MPIR_CVAR_DEBUG_SUMMARY=1
expect_source MPIDI_coll_generic_json "no CH4 tree installed"

echo "== the record's latency_bytes: the by_size crossovers of every job that loads the tree"
"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/by_size" "$here/../../test/mpi/tuning_file/by_size_smoke.c"
by_size() {  # by_size latency|bandwidth [VAR=VALUE...]: an 8 KiB hier allreduce on 4 nodes of 1
    local want="ok, by_size latency steps: [1-9][0-9]*, bandwidth steps: 0" status=0
    [ "$1" = latency ] || want="ok, by_size latency steps: 0, bandwidth steps: [1-9][0-9]*"
    shift
    env MPIR_CVAR_NUM_CLIQUES=4 MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=hier "$@" "$mpiexec" -n 4 "$tmp/by_size" \
        > "$tmp/out" 2>&1 || status=$?
    [ $status = 0 ] && grep -qx "$want" "$tmp/out" || fail "by_size $*: wanted '$want': $(head -20 "$tmp/out")"
}
by_size latency   # the tree's record names none: the plugin's 8192, recursive doubling
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm --latency-bytes 1 > "$tmp/install" ||
    fail "install-tree --latency-bytes: $(cat "$tmp/install")"
grep -q "by_size crossovers: alpha/beta 1 bytes" "$tmp/install" || fail "install-tree said: $(cat "$tmp/install")"
by_size bandwidth   # links whose start-up is worth a byte: the ring
by_size latency MPIR_CVAR_HIER_LATENCY_BYTES=8192   # the job's own CVAR overrides the site's
expect_quiet "a record with latency_bytes"
"$hiertune" show-tree > "$tmp/show" || fail "show-tree: $(cat "$tmp/show")"
grep -q "^by_size crossovers: alpha/beta 1 bytes, as measured" "$tmp/show" || fail "show-tree: $(head "$tmp/show")"
# tune's TREE.latency_bytes beside the tree is installed with it
echo 2 > "$tmp/tree.json.latency_bytes"
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm > /dev/null || fail "install-tree with TREE.latency_bytes"
grep -q '"latency_bytes": 2' "$site.record" || fail "no latency_bytes 2 in the record: $(cat "$site.record")"
rm "$tmp/tree.json.latency_bytes"
"$hiertune" install-tree "$tmp/tree.json" --machine test-vm > /dev/null || fail "install-tree"

echo "== switched off, or the user's own choice"
run MPIR_CVAR_HIER_SITE_TREE=0
expect_hier no "MPIR_CVAR_HIER_SITE_TREE=0"
expect_quiet "MPIR_CVAR_HIER_SITE_TREE=0"
run MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=
expect_hier no "an empty MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"
expect_quiet "an empty MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE"
printf '%s' '{"collective=bcast": {"algorithm=MPIR_Bcast_intra_binomial": {}}}' > "$tmp/user.json"
run MPICH_COLL_SELECTION_TUNING_JSON_FILE="$tmp/user.json"
expect_hier no "the user's tree (MPICH_ alias)"
# a tree installed elsewhere, named by the CVAR
"$hiertune" install-tree "$tmp/tree.json" --prefix "$tmp/elsewhere" > /dev/null
run MPIR_CVAR_HIER_SITE_TREE="$tmp/elsewhere/share/mpich-hier/tuning.json"
expect_hier yes "a site tree elsewhere"

echo "== refused: another MPICH, changed after install, not valid, no record"
cp "$site.record" "$tmp/record"
sed -i 's/"mpich_version": "5.0.1"/"mpich_version": "4.0.2"/' "$site.record"
run
expect_refused "stale" "it was measured on MPICH 4.0.2, this is MPICH 5.0.1: tune again"
"$hiertune" show-tree > "$tmp/show" || fail "show-tree of a stale tree: $(cat "$tmp/show")"
grep -q "^refused: it was measured on MPICH 4.0.2" "$tmp/show" || fail "show-tree: $(head "$tmp/show")"
grep -q "^MPI_Init refuses it" "$tmp/show" || fail "show-tree: $(head "$tmp/show")"
python3 - "$tmp/record" "$site.record" <<'PY'
import json, sys
record = json.load(open(sys.argv[1]))
record["latency_bytes"] = -1
json.dump(record, open(sys.argv[2], "w"))
PY
run
expect_refused "latency_bytes -1" "its record $site.record: latency_bytes is not an integer > 0"
cp "$tmp/record" "$site.record"
head -c 40 "$tmp/tree.json" > "$site"
run
expect_refused "truncated" "it changed after it was installed"
# a corrupt tree whose record vouches for it (installed by hand): the tree check says why
digest=$(python3 - "$site" <<'PY'
import sys
h = 0xcbf29ce484222325
for b in open(sys.argv[1], 'rb').read():
    h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
print('fnv1a64:%016x' % h)
PY
)
sed -i "s/\"tree_digest\": \"[^\"]*\"/\"tree_digest\": \"$digest\"/" "$site.record"
run
[ "$(grep -c "mpich-hier: the site tree $site: not valid JSON: the file ends inside a value" "$tmp/out")" = $ranks ] ||
    fail "corrupt: $(head -20 "$tmp/out")"
expect_refused "corrupt" "it is not a valid tree (the problems above)"
rm "$site.record"
cp "$tmp/tree.json" "$site"
run
expect_refused "no record" "its record $site.record cannot be read"

echo "PASS: mpi_site_tree"
