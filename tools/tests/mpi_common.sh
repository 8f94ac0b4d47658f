# Shared setup of the hiertune MPI tests (sourced).
# Env: MPICH_HIER_PREFIX (set by make check), HIERTUNE (default ./tools/hiertune).
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=${MPICH_HIER_PREFIX:-}
[ -n "$prefix" ] || fail "MPICH_HIER_PREFIX is not set (make check sets it to the MPICH prefix)"
mpiexec=$prefix/bin/mpiexec
# No MPICH, no test: a failure that says so, never a silent skip.
[ -x "$mpiexec" ] || fail "no $mpiexec: build and install MPICH first (make)"
hiertune=${HIERTUNE:-$PWD/tools/hiertune}
[ -x "$hiertune" ] || fail "no hiertune at $hiertune (make builds it; or set HIERTUNE)"

# Emulated nodes talking tcp over loopback; hydra kills a job that hangs.
# The measuring commands refuse cliques without --allow-cliques: these tests
# check correctness, not timings.
. "$(dirname "${BASH_SOURCE[0]}")/../../test/launch-env.sh"
export MPIR_CVAR_NUM_CLIQUES=2
export MPIEXEC_TIMEOUT=${MPIEXEC_TIMEOUT:-240}

# MPICH's stock MPIR tree (generate's and tune's --stock).
stock_tree() {
    local stock=${MPICH_GENERIC_JSON:-${MPICH_HIER_BUILDDIR:-}/mpich-5.0.1/maint/tuning/coll/mpir/generic.json}
    [ -r "$stock" ] || fail "no MPICH generic.json at '$stock' (set MPICH_GENERIC_JSON or MPICH_HIER_BUILDDIR)"
    printf '%s\n' "$stock"
}

# sql_rows DB QUERY: the rows of a query, a row's fields joined by ':', the rows by ' '.
sql_rows() {
    python3 - "$1" "$2" << 'PY'
import sqlite3, sys
rows = sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchall()
print(" ".join(":".join(str(field) for field in row) for row in rows))
PY
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/hiertune-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Low caps: correctness, not precision, is under test here.
fast=(-x 1 --min-reps 3 -i 8 --max-time 2 --no-progress)

bench() {  # bench NRANKS ARGS...: hiertune bench --allow-cliques under mpiexec
    local n=$1
    shift
    "$mpiexec" -n "$n" "$hiertune" bench --allow-cliques "$@"
}

# Points of the database as CSV rows without the header (none if unreadable).
db_rows() { "$hiertune" db points --db "$1" --csv 2>/dev/null | tail -n +2 || true; }

# Checks that the database holds exactly EXPECTED points, each key once,
# every value sane (min <= ci_lo <= median <= ci_hi <= max, median > 0, n > 0),
# all in one job.
check_db() {
    local db=$1 expected=$2 rows
    rows=$(db_rows "$db")
    local count dup jobs
    count=$(printf '%s\n' "$rows" | grep -c . || true)
    [ "$count" = "$expected" ] || fail "$db holds $count points, expected $expected"
    # job,collective,size,algorithm,params,median,ci_lo,ci_hi,min,max,mean,n,...
    dup=$(printf '%s\n' "$rows" | cut -d, -f2-5 | sort | uniq -d)
    [ -z "$dup" ] || fail "points stored twice: $dup"
    printf '%s\n' "$rows" | awk -F, '
        !($9 <= $7 && $7 <= $6 && $6 <= $8 && $8 <= $10 && $6 > 0 && $12 > 0) {
            print "FAIL: insane point: " $0 > "/dev/stderr"; bad = 1 }
        END { exit bad }' || fail "insane values in $db"
    jobs=$(printf '%s\n' "$rows" | cut -d, -f1 | sort -u | wc -l)
    [ "$jobs" = 1 ] || fail "$db holds $jobs jobs, expected 1"
}
