#!/usr/bin/env bash
# Leak check of the plugin: a dup/free loop (test/mpi/leak/hier_dup_free.c) under valgrind
# memcheck, 4 ranks on 2 emulated nodes, in several configurations of the plugin:
#   hier      MPI_Bcast/Reduce/Allreduce forced to hier, default submodules
#   hier-seg  hier with seg_* inter-node submodules (transport schedules, chunked)
#   hier-shm  hier with the device's shared-memory intra-node submodule
#   hier-levels  hier over emulated switch groups (one node each): the N-level steps'
#             own communicators, split per comm and freed with it
#   seg       the blocking segmented trees (seg_pipeline bcast, seg_binomial reduce)
# Each configuration runs the loop twice, N_SMALL and N_LARGE iterations, and fails when
#   - a rank's "definitely lost" + "indirectly lost" bytes grow from N_SMALL to N_LARGE
#     (MPICH's own constant leaks, e.g. hwloc's at MPI_Init, cancel out; no slack: the
#     loss of every run is the same to the byte, so any growth is a per-comm or per-call
#     leak);
#   - any loss record (of any kind, still reachable included) has a plugin frame in its
#     stack (function names matching MPII_Hier|_intra_hier|_intra_seg|hier_, and the
#     plugin's static functions, read from its objects in the MPICH build tree);
#   - valgrind reports any memory error (invalid read/write, uninitialised use, bad
#     free...): MPICH is clean under valgrind here, so every error counts; set
#     LEAK_CHECK_PLUGIN_ERRORS_ONLY=1 to count only errors with a plugin frame;
#   - a result is wrong or the plugin's pvars show that it did not run.
# Last, a self-check: the loop with -selfcheck-leak (64 bytes lost per iteration in a
# function named hier_selfcheck_leak) must be caught, by growth and by plugin frame.
# Exit 0 pass, 1 fail, 77 (skip) when valgrind is missing.
# Env: MPICH_HIER_PREFIX, MPICH_HIER_BUILDDIR, MPICH_HIER_SRCDIR (set by make check;
# default: the build/ of this checkout).  Logs stay in $MPICH_HIER_BUILDDIR/leak-check/.
set -euo pipefail

if ! command -v valgrind > /dev/null; then
    echo "SKIP: leak_check: valgrind is not installed"
    exit 77
fi

here=$(cd "$(dirname "$0")" && pwd)
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$here/../.." && pwd)}
prefix=${MPICH_HIER_PREFIX:-$srcdir/build/install}
builddir=${MPICH_HIER_BUILDDIR:-$srcdir/build}
work=$builddir/leak-check
n_small=${LEAK_CHECK_N_SMALL:-2}
n_large=${LEAK_CHECK_N_LARGE:-12}
ranks=4
fail() { echo "FAIL: leak_check: $*" >&2; exit 1; }

[ -x "$prefix/bin/mpiexec" ] || fail "no MPICH installed in $prefix: run make first"
command -v python3 > /dev/null || fail "python3 is needed to read the valgrind logs"

start=$SECONDS
rm -rf "$work"
mkdir -p "$work"
"$prefix/bin/mpicc" -g -Wall -o "$work/hier_dup_free" "$srcdir/test/mpi/leak/hier_dup_free.c" ||
    fail "cannot compile hier_dup_free.c"

# The plugin's static functions (not matched by the name pattern) from its objects in
# the MPICH build tree, kept only where the name is unique in libmpi: valgrind names a
# static function without its file.  MPICH's inline functions compiled into the plugin's
# objects (MPID*, MPIR_Request*) are MPICH's, not the plugin's.
objdir=$builddir/mpich-5.0.1/src/mpi/coll/hier/.libs
nm "$prefix/lib/libmpi.so" 2> /dev/null | awk 'NF == 3 {print $3}' | sort > "$work/libmpi-symbols" || true
# function names in valgrind stacks: is MPICH built with symbols (not stripped)?
if ! grep -qx MPII_Hier_get "$work/libmpi-symbols"; then
    echo "leak_check: note: libmpi has no symbol table: plugin frames cannot be named," \
        "the check rests on the growth of lost bytes"
fi
: > "$work/plugin-functions"
if ls "$objdir"/*.o > /dev/null 2>&1; then
    nm "$objdir"/*.o | awk '$2 ~ /^[tT]$/ {print $3}' | sort -u |
        grep -Ev '^(MPID|MPIR_Request)' | while read -r f; do
            [ "$(grep -cxF -- "$f" "$work/libmpi-symbols")" = 1 ] && echo "$f"
        done > "$work/plugin-functions" || true
else
    echo "leak_check: note: no plugin objects in $objdir: plugin frames by name pattern only"
fi

cat > "$work/analyze.py" <<'PY'
"""Read the per-rank valgrind logs of two runs (small N, large N) of one configuration.
Prints the figures and the problems; last line: VERDICT growth=G plugin_records=P errors=E.
Exit status 0 when G, P and E are all 0."""
import glob, os, re, sys

PATTERN = re.compile(r'MPII_Hier|_intra_hier|_intra_seg|hier_')
plugin_names = set(l.strip() for l in open(sys.argv[1]) if l.strip())
name, small_dir, large_dir, errors_plugin_only = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] == '1'

LEAK = re.compile(r'^([\d,]+)(?: \(([\d,]+) direct, ([\d,]+) indirect\))? bytes in ([\d,]+) '
                  r'blocks are (definitely lost|indirectly lost|possibly lost|still reachable) '
                  r'in loss record')
FRAME = re.compile(r'^\s*(?:at|by) 0x[0-9A-Fa-f]+: (.*)$')
SUMMARY = re.compile(r'^\s*(definitely lost|indirectly lost|possibly lost|still reachable): '
                     r'([\d,]+) bytes')
META = ('Memcheck,', 'Copyright', 'Using Valgrind', 'Command:', 'Parent PID', 'HEAP SUMMARY',
        'LEAK SUMMARY', 'For lists', 'For counts', 'ERROR SUMMARY', 'Reachable blocks',
        'To see them', 'All heap blocks')

def num(s):
    return int(s.replace(',', ''))

def func(frame_text):
    # "MPII_Hier_get (in /path/libmpi.so)" / "main (file.c:12)" / "???"
    return frame_text.split(' (')[0].strip()

def is_plugin(f):
    return bool(PATTERN.search(f)) or f in plugin_names

def read_log(path):
    blocks, cur = [], []
    for line in open(path, errors='replace'):
        m = re.match(r'^==\d+== ?(.*)$', line.rstrip('\n'))
        if not m:
            continue
        text = m.group(1)
        if text.strip() == '':
            if cur:
                blocks.append(cur)
            cur = []
        else:
            cur.append(text)
    if cur:
        blocks.append(cur)
    res = {'lost': {}, 'leaks': [], 'errors': [], 'finished': False}
    for b in blocks:
        if any(l.startswith('ERROR SUMMARY') for l in b):
            res['finished'] = True
        for l in b:
            s = SUMMARY.match(l)
            if s:
                res['lost'][s.group(1)] = num(s.group(2))
            if 'All heap blocks were freed' in l:
                res['lost'] = {'definitely lost': 0, 'indirectly lost': 0, 'possibly lost': 0,
                               'still reachable': 0}
        frames = [func(FRAME.match(l).group(1)) for l in b if FRAME.match(l)]
        if LEAK.match(b[0]):
            res['leaks'].append((b, frames))
        elif b[0].lstrip().startswith(META):
            continue
        elif frames:
            res['errors'].append((b, frames))
    return res

def read_run(d):
    runs = {}
    for path in glob.glob(os.path.join(d, 'vg.*.log')):
        rank = int(re.search(r'vg\.(\d+)\.log$', path).group(1))
        runs[rank] = read_log(path)
    return runs

small, large = read_run(small_dir), read_run(large_dir)
problems, growth, plugin_records, errors = [], 0, 0, 0
for label, run in (('small', small), ('large', large)):
    if not run:
        problems.append('%s run: no valgrind logs' % label)
    for rank, r in sorted(run.items()):
        if not r['finished'] or 'definitely lost' not in r['lost']:
            problems.append('%s run, rank %d: valgrind did not finish its report' % (label, rank))
        for b, frames in r['leaks']:
            hit = [f for f in frames if is_plugin(f)]
            if hit:
                plugin_records += 1
                problems.append('%s run, rank %d: loss record with plugin frame %s:\n    %s'
                                % (label, rank, hit[0], '\n    '.join(b)))
        for b, frames in r['errors']:
            hit = [f for f in frames if is_plugin(f)]
            if hit or not errors_plugin_only:
                errors += 1
                problems.append('%s run, rank %d: valgrind error%s:\n    %s'
                                % (label, rank, ' in plugin frame ' + hit[0] if hit else '',
                                   '\n    '.join(b)))

def lost(r):
    return r['lost'].get('definitely lost', 0) + r['lost'].get('indirectly lost', 0)

figures = []
for rank in sorted(set(small) | set(large)):
    if rank not in small or rank not in large:
        problems.append('rank %d: missing from one run' % rank)
        continue
    a, b = lost(small[rank]), lost(large[rank])
    figures.append('%d->%d' % (a, b))
    if b > a:
        growth += 1
        problems.append('rank %d: definitely+indirectly lost grew from %d to %d bytes '
                        '(%+d) between the small and the large run'
                        % (rank, a, b, b - a))
for p in problems:
    print('  ' + p)
print('%-9s lost bytes (definite+indirect) per rank, small->large N: %s; '
      'plugin loss records: %d; valgrind errors: %d; %s'
      % (name, ' '.join(figures), plugin_records, errors, 'ok' if not problems else 'PROBLEMS'))
print('VERDICT growth=%d plugin_records=%d errors=%d other=%d'
      % (growth, plugin_records, errors,
         len(problems) - growth - plugin_records - errors))
sys.exit(1 if problems else 0)
PY

. "$(dirname "$0")/../launch-env.sh"
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-180}
export MPIR_CVAR_NUM_CLIQUES=2
# a few KiB per call: several segments (hier 1 KiB, seg trees 1000 B)
export MPIR_CVAR_BCAST_HIER_SEGSIZE=1024 MPIR_CVAR_REDUCE_HIER_SEGSIZE=1024 \
    MPIR_CVAR_ALLREDUCE_HIER_SEGSIZE=1024 MPIR_CVAR_BCAST_SEG_SEGSIZE=1000 \
    MPIR_CVAR_REDUCE_SEG_SEGSIZE=1000
HIER="MPIR_CVAR_BCAST_INTRA_ALGORITHM=hier MPIR_CVAR_REDUCE_INTRA_ALGORITHM=hier
    MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM=hier"
HIER_PVARS="-expect coll_hier_bcast_hier_count -expect coll_hier_reduce_hier_count
    -expect coll_hier_allreduce_hier_count"

# run DIR N ENV ARGS: the loop under valgrind, one log per rank in DIR
run() {
    local dir=$1 n=$2 envs=$3 args=$4 status=0
    mkdir -p "$dir"
    # shellcheck disable=SC2086
    env $envs "$prefix/bin/mpiexec" -n $ranks \
        valgrind --leak-check=full --show-leak-kinds=all --num-callers=40 \
        --errors-for-leak-kinds=none --log-file="$dir/vg.%q{PMI_RANK}.log" \
        "$work/hier_dup_free" "$n" $args > "$dir/out" 2>&1 || status=$?
    if [ $status != 0 ]; then
        # the job itself failed: a wrong result, a missing pvar, a crash or a hang
        echo "  job of $n iterations in $dir failed (exit $status):" >&2
        grep -v '^hwloc x86 backend\|^May be reenabled\|^and reloading them' "$dir/out" |
            head -20 | sed 's/^/    /' >&2
        return 1
    fi
}

# check NAME ENV ARGS: one configuration, small and large N; status 1 on failure
check() {
    local name=$1 envs=$2 args=$3 t0=$SECONDS
    run "$work/$name/small" "$n_small" "$envs" "$args" || return 1
    run "$work/$name/large" "$n_large" "$envs" "$args" || return 1
    python3 "$work/analyze.py" "$work/plugin-functions" "$name" "$work/$name/small" \
        "$work/$name/large" "${LEAK_CHECK_PLUGIN_ERRORS_ONLY:-0}" > "$work/$name/verdict" ||
        { cat "$work/$name/verdict"; return 1; }
    sed '$d' "$work/$name/verdict" | sed "s/\$/ ($((SECONDS - t0)) s)/"
}

echo "leak_check: $ranks ranks on 2 emulated nodes under valgrind, N=$n_small and N=$n_large," \
    "logs in $work"
failed=0
hier_ok=1
check hier "$HIER" "$HIER_PVARS" || { failed=1; hier_ok=0; }
check hier-seg "$HIER MPIR_CVAR_BCAST_HIER_INTER_ALGORITHM=seg_binary
    MPIR_CVAR_REDUCE_HIER_INTER_ALGORITHM=seg_chain
    MPIR_CVAR_ALLREDUCE_HIER_INTER_ALGORITHM=seg_binomial
    MPIR_CVAR_BCAST_HIER_INTER_CHUNK_SIZE=256 MPIR_CVAR_REDUCE_HIER_INTER_CHUNK_SIZE=256
    MPIR_CVAR_ALLREDUCE_HIER_INTER_CHUNK_SIZE=256 MPIR_CVAR_BCAST_SEG_WINDOW=2
    MPIR_CVAR_REDUCE_SEG_WINDOW=2" "$HIER_PVARS" || failed=1
check hier-shm "$HIER MPIR_CVAR_BCAST_HIER_INTRA_ALGORITHM=shm
    MPIR_CVAR_REDUCE_HIER_INTRA_ALGORITHM=shm MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM=shm" \
    "$HIER_PVARS" || failed=1
check hier-levels "$HIER MPIR_CVAR_HIER_EMULATE_SWITCH_NODES=1" "$HIER_PVARS" || failed=1
check seg "MPIR_CVAR_BCAST_INTRA_ALGORITHM=seg_pipeline MPIR_CVAR_REDUCE_INTRA_ALGORITHM=seg_binomial" \
    "-expect coll_hier_bcast_seg_pipeline_count -expect coll_hier_reduce_seg_binomial_count" ||
    failed=1

# Self-check: the planted leak (64 B per iteration in hier_selfcheck_leak) against the
# hier configuration's small run must show as growth on every rank and as plugin loss
# records, and as nothing else.
t0=$SECONDS
sc=$work/selfcheck
if [ $hier_ok = 0 ]; then
    echo "leak_check: self-check not run: it compares with the hier configuration, which failed" >&2
elif run "$sc/large" "$n_large" "$HIER" "$HIER_PVARS -selfcheck-leak"; then
    verdict=0
    python3 "$work/analyze.py" "$work/plugin-functions" selfcheck "$work/hier/small" "$sc/large" \
        "${LEAK_CHECK_PLUGIN_ERRORS_ONLY:-0}" > "$sc/verdict" || verdict=$?
    if [ $verdict = 0 ]; then
        echo "FAIL: leak_check: self-check: a planted leak of 64 B per iteration was not seen" >&2
        failed=1
    elif ! grep -qx "VERDICT growth=$ranks plugin_records=[1-9][0-9]* errors=0 other=0" "$sc/verdict"; then
        echo "FAIL: leak_check: self-check: not the expected findings for the planted leak:" >&2
        cat "$sc/verdict" >&2
        failed=1
    else
        grew=$(grep -o 'grew from [0-9]* to [0-9]* bytes ([+0-9]*)' "$sc/verdict" | sed -n 1p)
        echo "selfcheck planted leak of 64 B x $n_large iterations caught on all $ranks ranks" \
            "(rank 0 $grew), $(tail -1 "$sc/verdict" | sed 's/.*plugin_records=\([0-9]*\).*/\1/')" \
            "loss records in hier_selfcheck_leak ($((SECONDS - t0)) s)"
    fi
else
    echo "FAIL: leak_check: self-check: the job failed" >&2
    failed=1
fi

echo "leak_check: $((SECONDS - start)) s"
if [ $failed = 0 ]; then
    echo "PASS: leak check"
else
    echo "FAIL: leak check (logs in $work)" >&2
fi
exit $failed
