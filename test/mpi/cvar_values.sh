#!/usr/bin/env bash
# Invalid CVAR values as a user meets them: every CVAR the plugin defines, and MPICH's
# algorithm and composition CVARs a user sets with it, given a value it does not accept
# (an unknown name, not a number, below its minimum, above its maximum, past INT_MAX)
# end MPI_Init on every rank with one line naming the variable, the value and what it
# accepts; the job exits non-zero, by no signal, without hanging.  MPI_T writes of such
# values return an error and leave the variable as it was (cvar_values/cvar_mpit.c).
# The list of CVARs and what they accept is read from their MPI_T info blocks.
# Env: MPICH_HIER_PREFIX, MPICH_HIER_SRCDIR (set by make check).
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
here=$(cd "$(dirname "$0")" && pwd)
srcdir=${MPICH_HIER_SRCDIR:-$(cd "$here/../.." && pwd)}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cvar-values.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/cvar_smoke" "$here/cvar_values/cvar_smoke.c"
"$prefix/bin/mpicc" -O2 -Wall -o "$tmp/cvar_mpit" "$here/cvar_values/cvar_mpit.c"
. "$here/../launch-env.sh"
export MPIEXEC_TIMEOUT=60
ranks=2
checked=0

# refused VAR=VALUE... -- LINE...: a job with these variables stops in MPI_Init; each
# LINE is printed by every rank, and nothing else names a variable.  The job is
# cvar_smoke, or $prog (cvar_mpit: MPI_T_init_thread reads the variables first).
refused() {
    local env=() status=0
    while [ "$1" != -- ]; do env+=("$1"); shift; done
    shift
    env "${env[@]}" "$prefix/bin/mpiexec" -n $ranks "$tmp/${prog:-cvar_smoke}" > "$tmp/out" 2>&1 ||
        status=$?
    local what="${env[*]}"
    [ $status != 0 ] || fail "$what: the job ran: $(head -5 "$tmp/out")"
    [ $status -lt 128 ] || fail "$what: exit status $status (a signal?): $(head -20 "$tmp/out")"
    # Once one rank aborts, mpiexec kills the others: that SIGKILL is the launcher's
    # cleanup, not a crash, and a killed rank may not have printed its lines yet.
    local cleanup='EXIT STRING: Killed \(signal 9\)' printers=$ranks
    if grep -q '^Abort(' "$tmp/out" && grep -qE "$cleanup" "$tmp/out"; then printers=1-$ranks; fi
    ! grep -vE "$cleanup" "$tmp/out" |
        grep -qiE 'signal|segmentation|assert|core dumped|timeout|cvar_smoke: ran|cvar_mpit: ' ||
        fail "$what: a crash, hang or run: $(head -20 "$tmp/out")"
    local line n total=0
    for line in "$@"; do
        n=$(grep -cxF "$line" "$tmp/out" || true)
        in_range "$n" $printers || fail "$what: $printers ranks should print
  $line
$n did: $(head -20 "$tmp/out")"
        total=$((total + n))
        checked=$((checked + 1))
    done
    n=$(grep -c 'is invalid: it accepts\|^mpich-hier: MPIR_CVAR' "$tmp/out" || true)
    [ "$n" = $total ] || fail "$what: $total lines expected, $n: $(head -20 "$tmp/out")"
}

in_range() {  # N SPEC: SPEC is a count or LOW-HIGH
    local lo=${2%-*} hi=${2#*-}
    [ "$1" -ge "$lo" ] && [ "$1" -le "$hi" ]
}

accepts_int() {  # MIN MAX ('-': none)
    local min=$1 max=$2
    [ "$min" = - ] && min=-2147483648
    [ "$max" = - ] && max=2147483647
    echo "an integer from $min to $max"
}

# The plugin's CVARs, all of one kind of mistake in one job.
python3 "$here/cvar_values/cvar_list.py" "$srcdir" > "$tmp/cvars"
unknown=() unknown_lines=() below=() below_lines=() over=() over_lines=()
int_mpit=() enum_mpit=()
while read -r name type min max items; do
    case $type in
        enum)
            unknown+=("$name=bogus")
            unknown_lines+=("MPICH: $name=bogus is invalid: it accepts ${items// /, }")
            set -- $items
            enum_mpit+=("$name:-1,$#:$(($# - 1))") ;;
        int)
            unknown+=("$name=12abc")
            unknown_lines+=("MPICH: $name=12abc is invalid: it accepts $(accepts_int "$min" "$max")")
            over+=("$name=99999999999")
            over_lines+=("MPICH: $name=99999999999 is invalid: it accepts $(accepts_int "$min" "$max")")
            if [ "$min" != - ]; then
                below+=("$name=$((min - 1))")
                below_lines+=("MPICH: $name=$((min - 1)) is invalid: it accepts $(accepts_int "$min" "$max")")
                int_mpit+=("$name:$((min - 1)),-2147483648:$min")
            fi ;;
        boolean)
            unknown+=("$name=maybe")
            unknown_lines+=("MPICH: $name=maybe is invalid: it accepts a boolean (1, 0, yes, no, true, false, on, off)") ;;
        string) ;;  # any string; the files they name: below
        *) fail "$name: a CVAR type this test does not know: $type" ;;
    esac
done < "$tmp/cvars"
[ ${#unknown[@]} -ge 50 ] || fail "only ${#unknown[@]} plugin CVARs listed: $(cat "$tmp/cvars")"
refused "${unknown[@]}" -- "${unknown_lines[@]}"
refused "${below[@]}" -- "${below_lines[@]}"
refused "${over[@]}" -- "${over_lines[@]}"

# One variable alone: one line per rank (the issue's cases).
refused MPIR_CVAR_BCAST_HIER_SEGSIZE=-5 -- \
    "MPICH: MPIR_CVAR_BCAST_HIER_SEGSIZE=-5 is invalid: it accepts an integer from 0 to 2147483647"
refused MPIR_CVAR_BCAST_HIER_SEGSIZE=abc -- \
    "MPICH: MPIR_CVAR_BCAST_HIER_SEGSIZE=abc is invalid: it accepts an integer from 0 to 2147483647"
refused MPIR_CVAR_HIER_LEVELS=bogus -- \
    "MPICH: MPIR_CVAR_HIER_LEVELS=bogus is invalid: it accepts $(sed -n 's/^MPIR_CVAR_HIER_LEVELS enum - - //p' "$tmp/cvars" | sed 's/ /, /g')"
refused MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM=shmm -- \
    "MPICH: MPIR_CVAR_ALLREDUCE_HIER_INTRA_ALGORITHM=shmm is invalid: it accepts auto, binomial, shm, by_size"

# MPICH's algorithm CVARs, with the plugin's items; the blocking and non-blocking names.
# items_of VAR: the items MPICH says VAR accepts (MPICH's lists, the plugin's added)
items_of() {
    env "$1=bogus" "$prefix/bin/mpiexec" -n 1 "$tmp/cvar_smoke" 2>&1 |
        sed -n "s/^MPICH: $1=bogus is invalid: it accepts //p" || true
}
bcast_items=$(items_of MPIR_CVAR_BCAST_INTRA_ALGORITHM)
case ", $bcast_items," in *", binomial, "*", hier, "*", seg_binomial,"*) ;;
    *) fail "MPIR_CVAR_BCAST_INTRA_ALGORITHM's items: '$bcast_items'" ;; esac
refused MPIR_CVAR_BCAST_INTRA_ALGORITHM=bogus -- \
    "MPICH: MPIR_CVAR_BCAST_INTRA_ALGORITHM=bogus is invalid: it accepts $bcast_items"
refused MPIR_CVAR_BCAST_INTRA_ALGORITHM=tsp_hier -- \
    "MPICH: MPIR_CVAR_BCAST_INTRA_ALGORITHM=tsp_hier is invalid: it accepts $bcast_items (tsp_hier is the non-blocking name; the blocking one is hier)"
# MPI_T_init_thread before MPI_Init: MPI_Init must not run on (stock 5.0.1 left the
# variables after the invalid one unset and crashed in MPIR_pmi_init)
prog=cvar_mpit refused MPIR_CVAR_BCAST_INTRA_ALGORITHM=bogus MPIR_CVAR_BCAST_HIER_SEGSIZE=abc -- \
    "MPICH: MPIR_CVAR_BCAST_INTRA_ALGORITHM=bogus is invalid: it accepts $bcast_items" \
    "MPICH: MPIR_CVAR_BCAST_HIER_SEGSIZE=abc is invalid: it accepts an integer from 0 to 2147483647"
ibcast_items=$(items_of MPIR_CVAR_IBCAST_INTRA_ALGORITHM)
case ", $ibcast_items," in *", tsp_hier,"*) ;;
    *) fail "MPIR_CVAR_IBCAST_INTRA_ALGORITHM's items: '$ibcast_items'" ;; esac
refused MPIR_CVAR_NUM_CLIQUES=2 MPIR_CVAR_IBCAST_INTRA_ALGORITHM=hier -- \
    "MPICH: MPIR_CVAR_IBCAST_INTRA_ALGORITHM=hier is invalid: it accepts $ibcast_items (hier is the blocking name; the non-blocking one is tsp_hier)"
algos=() algo_count=0
# every collective of the grammar, blocking and non-blocking
for coll in $(python3 -c "import sys; sys.path.insert(0, '$srcdir/test/mpi'); import hier_grammar
print(' '.join(c.upper() for c in hier_grammar.load('$srcdir').collectives))"); do
    algos+=("MPIR_CVAR_${coll}_INTRA_ALGORITHM=bogus" "MPIR_CVAR_I${coll}_INTRA_ALGORITHM=bogus")
done
env "${algos[@]}" "$prefix/bin/mpiexec" -n $ranks "$tmp/cvar_smoke" > "$tmp/out" 2>&1 || true
for a in "${algos[@]}"; do
    n=$(grep -c "^MPICH: $a is invalid: it accepts auto, " "$tmp/out" || true)
    [ "$n" = $ranks ] || fail "$a: $ranks lines expected, $n: $(head -20 "$tmp/out")"
    algo_count=$((algo_count + 1))
done

# MPICH's compositions: 0 (auto) to the last one CH4 implements.
declare -A last=([BARRIER]=2 [BCAST]=4 [ALLREDUCE]=4 [ALLGATHER]=2 [ALLTOALL]=2 [REDUCE]=3)
comps=() comp_lines=() comp_mpit=()
for coll in "${!last[@]}"; do
    v=MPIR_CVAR_${coll}_COMPOSITION
    comps+=("$v=$((last[$coll] + 1))")
    comp_lines+=("MPICH: $v=$((last[$coll] + 1)) is invalid: it accepts an integer from 0 to ${last[$coll]}")
    comp_mpit+=("$v:-1,$((last[$coll] + 1)):${last[$coll]}")
done
refused "${comps[@]}" -- "${comp_lines[@]}"
refused MPIR_CVAR_REDUCE_COMPOSITION=-1 -- \
    "MPICH: MPIR_CVAR_REDUCE_COMPOSITION=-1 is invalid: it accepts an integer from 0 to 3"

# The topology file: read at MPI_Init.
refused MPIR_CVAR_HIER_TOPOLOGY_FILE="$tmp/none" -- \
    "mpich-hier: MPIR_CVAR_HIER_TOPOLOGY_FILE=$tmp/none cannot be read (No such file or directory): it accepts a readable file of lines \"HOST SWITCH...\""
printf 'node1 s1\nnode2\n' > "$tmp/topo"
refused MPIR_CVAR_HIER_TOPOLOGY_FILE="$tmp/topo" -- \
    "mpich-hier: MPIR_CVAR_HIER_TOPOLOGY_FILE=$tmp/topo: line 2 is malformed: it accepts lines \"HOST SWITCH...\" (at most 8 switches, no '.' in a name), each host once"

# MPI_T writes: refused ones leave the variable, the job goes on.
"$prefix/bin/mpiexec" -n $ranks "$tmp/cvar_mpit" "${enum_mpit[@]}" "${int_mpit[@]}" "${comp_mpit[@]}" \
    MPIR_CVAR_BCAST_INTRA_ALGORITHM:-1,1000:0 MPIR_CVAR_IBCAST_INTRA_ALGORITHM:-1,1000:0 \
    > "$tmp/out" 2>&1 || fail "MPI_T writes: $(head -20 "$tmp/out")"
grep -q '^cvar_mpit: [0-9]* writes checked$' "$tmp/out" || fail "MPI_T writes: $(cat "$tmp/out")"

echo "cvar_values: $checked refusals checked (each on $ranks ranks), $algo_count algorithm CVARs, $(sed -n 's/^cvar_mpit: //p' "$tmp/out") through MPI_T"
