#!/usr/bin/env bash
# Where MPIR_CVAR_CH4_POLLS_BEFORE_YIELD (patch 05) acts, and that its default is stock:
# 2 ranks on one node, one waiting 0.3 s in MPI_Recv (netmod progress wait) or in
# MPI_Bcast (the POSIX release_gather spin) while the other computes.  strace counts the
# waiting ranks' 1 us sleeps (the patch's; MPICH's own sleeps are longer):
#   default, 2 ranks with 2 cores or more      none (stock behaviour)
#   default, both ranks bound to one core      some (oversubscription detected)
#   0 with both ranks on one core              none
#   100 with 2 cores                           some
# Env: MPICH_HIER_PREFIX (set by make check).  SKIP without strace or ptrace.
set -euo pipefail
prefix=${MPICH_HIER_PREFIX:?}
fail() { echo "FAIL: progress_yield: $*" >&2; exit 1; }
command -v strace > /dev/null || { echo "SKIP: progress_yield: no strace"; exit 77; }
strace -qq -e trace=none true 2> /dev/null || { echo "SKIP: progress_yield: ptrace not allowed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/progress-yield.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$prefix/bin/mpicc" -O2 -o "$tmp/waits" "$(dirname "$0")/progress_yield/waits.c"
export FI_PROVIDER=tcp FI_TCP_IFACE=lo MPIEXEC_TIMEOUT=60
unset MPIR_CVAR_CH4_POLLS_BEFORE_YIELD

sleeps() {  # sleeps WAIT [CVAR_VALUE|-] [taskset CPU...]: the patch's sleeps in one job
    local wait=$1 value=$2
    shift 2
    local env=()
    [ "$value" = - ] || env=(MPIR_CVAR_CH4_POLLS_BEFORE_YIELD="$value")
    env "${env[@]}" "$@" strace -f -qq -e trace=nanosleep,clock_nanosleep -o "$tmp/trace" \
        "$prefix/bin/mpiexec" -n 2 "$tmp/waits" "$wait" > "$tmp/out" 2>&1 ||
        fail "$wait job failed: $(head -5 "$tmp/out")"
    grep -c 'tv_nsec=1000}' "$tmp/trace" || true
}

for wait in recv bcast; do
    if [ "$(nproc)" -ge 2 ]; then
        n=$(sleeps $wait -)
        [ "$n" = 0 ] || fail "$wait: $n sleeps by default with a core per rank (stock: none)"
        n=$(sleeps $wait 100)
        [ "$n" -gt 0 ] || fail "$wait: no sleep with the CVAR at 100"
        echo "$wait: default with $(nproc) cores: 0 sleeps; CVAR 100: $n"
    fi
    n=$(sleeps $wait - taskset -c 0)
    [ "$n" -gt 0 ] || fail "$wait: no sleep by default with both ranks on one core"
    m=$(sleeps $wait 0 taskset -c 0)
    [ "$m" = 0 ] || fail "$wait: $m sleeps with the CVAR at 0"
    echo "$wait: both ranks on one core: default $n sleeps, CVAR 0: none"
done
echo "PASS: progress_yield"
