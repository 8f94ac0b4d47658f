#!/usr/bin/env bash
# mpich-hier against the peers, on the emulated cluster (issue 34): one neutral benchmark
# (bench/peerbench.c) built against MPICH 5.0.1 with the plugin and against Debian's Open
# MPI 4.1.4, the same sizes, the same launch, every MPI told to give its core away while it
# waits (the nodes share this machine's cores).  Configurations:
#   hier        the plugin's hier algorithm of every collective, its default parameters
#   tuned       the tuned tree of the main job (build/tune/tree.json, ./quickstart tune)
#   mpich       MPICH 5.0.1 as shipped
#   mpich:*     the best MPICH 5.0.1 configuration per size: its algorithms forced on the
#               whole comm and its CH4 compositions (multi-leader included)
#   ompi        Open MPI as shipped (coll/tuned)
#   ompi:*      the best coll/tuned algorithm per size, forced (coll_tuned_use_dynamic_rules):
#               swept for alltoall only, which HAN has not (the others' Open MPI at its best
#               is HAN's sweep)
#   han         Open MPI's coll/han as shipped (coll_han_priority 100)
#   han:*       HAN at its best per size: its up/low modules, adapt's algorithms and the
#               segment sizes (the winning parameters are the name)
# Per layout: the three sweeps are screened first, a peerbench job per configuration, one
# repetition each, sizes up to SCREEN_MAX (MPICH's configurations are those `hiertune bench
# -a stock` and the compositions of bench/stock-sweep.sh name); then the final run: per collective, the fixed
# configurations and each sweep's winners (per size, and at SCREEN_MAX for the sizes above
# it) take turns, a job each, ROUNDS times; a figure is the median of all repetitions of a
# configuration (each the time per call, max over ranks).  The tables and plots come from
# bench/peers-table.py, the link bound from `hiertune link-bound`.
#
#   bench/peers.sh [--layouts 4x2,8x1,leaf,4x1] [--colls LIST] [--sizes LIST] [--large LAYOUTS]
#                  [--rounds R] [--reps N] [--burst B] [--out DIR]
# Layouts: bench/layouts.sh.  --burst: the links' token bucket (maint/emucluster up --burst; its default
# otherwise).
# Sizes above SCREEN_MAX (4 MiB) run on the --large layouts only (default 4x2; a 16 MiB
# call takes seconds at these rates).  Root; installs openmpi-bin and libopenmpi-dev when
# missing; needs the build (./quickstart check or compare).  Output: DIR (build/peers).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
emu=$root/maint/emucluster
hiertune=$root/tools/hiertune
tree=$root/build/tune/tree.json
layouts=4x2,8x1,leaf colls=bcast,reduce,allreduce,allgather,gather,scatter,barrier
sizes=8,1024,65536,1048576,4194304,16777216 large=4x2 rounds=2 reps=3 out=build/peers burst=
SCREEN_MAX=4194304
. bench/layouts.sh
# a job that runs longer is stopped and listed in LAYOUT/failed.txt (and the report; a
# rerun appends to it):
# 5.0.1's multi-leader allreduce composition at 8 B ran for minutes without finishing
SCREEN_TIMEOUT=180 FINAL_TIMEOUT=900
ALL_COLLS=(bcast reduce allreduce allgather gather scatter barrier scan exscan reduce_scatter_block reduce_scatter allgatherv
           alltoall alltoallv gatherv scatterv)

die() { echo "peers: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
        --layouts) layouts=${2:?}; shift 2 ;;
        --colls) colls=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --large) large=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --reps) reps=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --burst) burst=${2:?}; shift 2 ;;
        *) sed -n '/^#   bench/,/^# missing/p' "$0" | sed 's/^# \{0,1\}//' >&2; die "unknown option '$1'" ;;
    esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds $rounds: need a positive count"
[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--reps $reps: need a positive count"
[[ $sizes =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--sizes $sizes: need bytes,bytes,..."
[ -z "$burst" ] || [[ $burst =~ ^[0-9]+(b|kb|mb)$ ]] || die "--burst $burst: need <number>b|kb|mb, e.g. 2kb"
for c in ${colls//,/ }; do
    [[ " ${ALL_COLLS[*]} " == *" $c "* ]] || die "--colls: '$c' is none of ${ALL_COLLS[*]}"
done
for l in ${layouts//,/ }; do
    bench_layout "$l" || die "--layouts: '$l' is none of $BENCH_LAYOUTS"
done

[ "$(id -u)" = 0 ] || die "the emulated cluster needs root (network, UTS namespaces); timings of one \
host's emulated cliques measure the scheduler, so there is no fallback"
[ -x build/install/bin/mpicc ] && [ -x "$hiertune" ] ||
    die "no build: run ./quickstart check (or ./quickstart compare --peers) first"
[ "$("$emu" status)" = down ] || die "a cluster is already up ($emu status); take it down first"
missing=()
command -v mpicc.openmpi > /dev/null && command -v mpirun.openmpi > /dev/null || missing+=(openmpi-bin libopenmpi-dev)
command -v gnuplot > /dev/null || missing+=(gnuplot-nox)
if [ ${#missing[@]} -gt 0 ]; then
    echo "peers: installing ${missing[*]}"
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
fi

mkdir -p "$out/bin"
build/install/bin/mpicc -O2 -o "$out/bin/peerbench-mpich" bench/peerbench.c
mpicc.openmpi -O2 -o "$out/bin/peerbench-openmpi" bench/peerbench.c
[ -f "$tree" ] || echo "peers: no tuned tree ($tree): the tuned column stays empty (./quickstart tune makes it)"
. bench/stock-sweep.sh

# ------------------------------------------------------------------ configurations

# MPICH's sweep of one collective, as peers.sh names its configurations (mpich:ALGORITHM,
# mpich:composition=N): what `hiertune bench` expands the specs of bench/stock-sweep.sh to
# (one rank, one tiny point: only the names are wanted); MPICH as shipped is left out, and
# so is alltoall(v)'s pairwise_sendrecv_replace: it takes MPI_IN_PLACE only, and forced on
# peerbench's call 5.0.1 silently runs its own selection instead
mpich_sweep() {
    local coll=$1
    # shellcheck disable=SC2046
    "$root/build/install/bin/mpiexec" -n 1 "$hiertune" bench --no-progress --csv --allow-cliques -x 0 -r 1 \
        -C "$coll" --sizes "$([ "$coll" = barrier ] && echo 0 || echo 8)" $(stock_sweep "$coll") |
        python3 -c '
import csv, re, sys
for row in csv.DictReader(sys.stdin):
    params = row["params"].strip()
    if row["algorithm"] == "pairwise_sendrecv_replace":
        continue
    if row["algorithm"] != "default":
        print("mpich:" + row["algorithm"])
    elif params:
        print("mpich:composition=" + re.fullmatch(r"MPIR_CVAR_[A-Z]+_COMPOSITION=(\d+)", params).group(1))'
}

# HAN's sweep of one collective: up module (libnbc, or adapt with one of its algorithms and
# 16 KiB segments), low module (tuned, sm), HAN's segment size where it has one
han_sweep() {
    local coll=$1 up seg
    case $coll in
        bcast | reduce)
            for up in libnbc adapt-binomial adapt-pipeline adapt-chain; do
                for seg in 16384 65536 262144; do echo "han:up=$up,low=tuned,seg=$seg"; done
            done
            echo "han:up=adapt-pipeline,low=sm,seg=65536" ;;
        allreduce)
            for up in libnbc adapt; do
                for seg in 16384 65536 262144; do echo "han:up=$up,low=tuned,seg=$seg"; done
            done
            echo "han:up=libnbc,low=sm,seg=65536" ;;
        allgather | gather | scatter)
            for up in libnbc adapt; do
                for low in tuned sm; do echo "han:up=$up,low=$low"; done
            done ;;
        # HAN's barrier has no parameter (`han` is all of it); HAN (Open MPI 4.1.4) has no
        # scan, exscan, reduce-scatter, allgatherv, alltoall(v), gatherv or scatterv (`han` is
        # Open MPI's tuned there; alltoall's tuned algorithms are ompi_sweep's)
        barrier | scan | exscan | reduce_scatter_block | reduce_scatter | allgatherv | alltoall | alltoallv | gatherv | \
            scatterv) ;;
    esac
}

# Open MPI's coll/tuned sweep of one collective (ompi:ALGORITHM): its algorithms forced,
# for alltoall only (`ompi_info --param coll tuned --level 9`: coll_tuned_alltoall_algorithm;
# 0 ignore is `ompi`, 5 two_proc runs on 2 ranks only and fails the call on more)
ompi_sweep() {
    case $1 in
        alltoall) printf 'ompi:%s\n' linear pairwise modified_bruck linear_sync ;;
    esac
}

# The environment of Open MPI tuned configuration $2 (ompi:ALGORITHM) for collective $1:
# the algorithm by its number in Open MPI 4.1.4 (a value it does not know it only warns of,
# and runs its own choice)
ompi_env() {
    local coll=$1 alg=${2#ompi:}
    local -A number=([alltoall:linear]=1 [alltoall:pairwise]=2 [alltoall:modified_bruck]=3 [alltoall:linear_sync]=4)
    [ -n "${number[$coll:$alg]:-}" ] || die "no coll/tuned $coll algorithm '$alg'"
    echo OMPI_MCA_coll_tuned_use_dynamic_rules=1
    echo "OMPI_MCA_coll_tuned_${coll}_algorithm=${number[$coll:$alg]}"
}

# The environment of HAN configuration $2 (han:up=...,low=...[,seg=...]) for collective $1
han_env() {
    local coll=$1 kv key value alg
    local -A adapt_algorithm=([binomial]=1 [in_order_binomial]=2 [binary]=3 [pipeline]=4 [chain]=5 [linear]=6)
    echo OMPI_MCA_coll_han_priority=100
    IFS=, read -r -a kv <<< "${2#han:}"
    for item in "${kv[@]}"; do
        key=${item%%=*} value=${item#*=}
        case $key in
            up)
                if [ "$value" = libnbc ]; then echo "OMPI_MCA_coll_han_${coll}_up_module=0"
                else
                    echo "OMPI_MCA_coll_han_${coll}_up_module=1"
                    alg=${value#adapt}
                    if [ -n "$alg" ]; then
                        echo "OMPI_MCA_coll_adapt_${coll}_algorithm=${adapt_algorithm[${alg#-}]}"
                        echo "OMPI_MCA_coll_adapt_${coll}_segment_size=16384"
                    fi
                fi ;;
            low) [ "$value" = sm ] && echo "OMPI_MCA_coll_han_${coll}_low_module=1" ||
                     echo "OMPI_MCA_coll_han_${coll}_low_module=0" ;;
            seg) echo "OMPI_MCA_coll_han_${coll}_segsize=$value" ;;
        esac
    done
}

# One peerbench job: configuration $1, collective $2, sizes $3, repetitions $4, at most $5
# seconds; its lines on stdout, each prefixed with the configuration.  A job that fails or
# runs out of time is listed in $dir/failed.txt and leaves the lines it printed.
run_config() {
    local name=$1 coll=$2 job_sizes=$3 job_reps=$4 limit=$5 mpi=mpich C=${2^^} c status
    local -a env=()
    case $name in
        hier) for c in "${ALL_COLLS[@]}"; do env+=("MPIR_CVAR_${c^^}_INTRA_ALGORITHM=hier"); done ;;
        tuned)  # the pair tune wrote: its CH4 tree where it picked a composition; the by_size
            # crossovers it measured, as an installed tree's record gives every job
            env+=("MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=$tree")
            if [ -f "$tree.ch4" ]; then env+=("MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE=$tree.ch4"); fi
            if [ -f "$tree.latency_bytes" ]; then env+=("MPIR_CVAR_HIER_LATENCY_BYTES=$(cat "$tree.latency_bytes")"); fi ;;
        mpich) ;;
        mpich:composition=*) env+=("MPIR_CVAR_${C}_COMPOSITION=${name#*=}") ;;
        mpich:*) env+=("MPIR_CVAR_${C}_DEVICE_COLLECTIVE=0" "MPIR_CVAR_${C}_INTRA_ALGORITHM=${name#mpich:}") ;;
        ompi) mpi=openmpi ;;
        ompi:*) mpi=openmpi; mapfile -t env < <(ompi_env "$coll" "$name") ;;
        han) mpi=openmpi env+=(OMPI_MCA_coll_han_priority=100) ;;
        han:*) mpi=openmpi; mapfile -t env < <(han_env "$coll" "$name") ;;
        *) die "unknown configuration $name" ;;
    esac
    local -a launch=("$emu" run --ppn "$ppn")
    [ "$mpi" = openmpi ] && launch+=(--openmpi)
    # Open MPI's rsh launcher warns that it cannot set the process group of the daemons it
    # starts (they run in their own namespaces), which says nothing about the job
    status=0
    timeout --signal=TERM "$limit" env "${env[@]}" "${launch[@]}" -- "$out/bin/peerbench-$mpi" -C "$coll" \
        -s "$job_sizes" -r "$job_reps" -x 0 2> >(grep -v 'plm:rsh: Warning: setpgid' >&2) |
        sed -n "2,\$s|^|$name,|p" || status=$?
    if [ "$status" = 124 ]; then
        echo "$name $coll $job_sizes ($phase): stopped after ${limit} s" >> "$dir/failed.txt"
    elif [ "$status" != 0 ]; then
        echo "$name $coll $job_sizes ($phase): exit status $status" >> "$dir/failed.txt"
    fi
    [ "$status" = 0 ] || echo "peers: $name $coll failed (status $status): listed in $dir/failed.txt" >&2
    return "$status"
}

# Screens configuration $1 of collective $2 at sizes $3: a job that fails is retried size by
# size for the sizes it printed no line of (5.0.1's multi-leader allreduce composition
# slows down call after call: alone from 1 MiB it runs at the link's pace)
screen_config() {
    local config=$1 coll=$2 screen=$3 lines size
    lines=$(run_config "$config" "$coll" "$screen" 1 "$SCREEN_TIMEOUT") && { echo "$lines"; return; }
    [ -z "$lines" ] || echo "$lines"
    for size in ${screen//,/ }; do
        grep -q "^$config,[^,]*,$coll,$size," <<< "$lines" ||
            run_config "$config" "$coll" "$size" 1 "$SCREEN_TIMEOUT" || true
    done
}

# ------------------------------------------------------------------ layouts

# sizes of collective $1 up to $2 bytes (barrier: 0), comma-separated; the reduce-scatters'
# only where the ranks' blocks are whole MPI_INTs
sizes_upto() {
    local coll=$1 max=$2 s list=() unit=1
    [ "$coll" = barrier ] && { echo 0; return; }
    case $coll in reduce_scatter*) unit=$((4 * ranks)) ;; esac
    for s in ${sizes//,/ }; do [ "$s" -le "$max" ] && [ $((s % unit)) = 0 ] && list+=("$s"); done
    (IFS=,; echo "${list[*]}")
}

declare -A sweep_configs
for coll in ${colls//,/ }; do
    sweep_configs[mpich-$coll]=$(mpich_sweep "$coll")
    sweep_configs[han-$coll]=$(han_sweep "$coll")
    sweep_configs[ompi-$coll]=$(ompi_sweep "$coll")
done

trap '"$emu" down --force > /dev/null 2>&1 || true' EXIT
for layout in ${layouts//,/ }; do
    bench_layout "$layout"
    dir=$out/$layout
    mkdir -p "$dir"
    "$emu" up "${up[@]}" ${burst:+--burst "$burst"} >&2
    status=$("$emu" status | sed -n 1p)
    ranks=$(( ppn * $(sed -n 's/^emucluster: \([0-9]*\) nodes.*/\1/p' <<< "$status") ))
    max=$SCREEN_MAX
    [[ ,$large, == *,$layout,* ]] && max=$((1 << 40))
    {
        echo "layout=$layout"
        echo "cluster=$status"
        echo "ppn=$ppn"
        echo "ranks=$ranks"
        printf 'up=%s\n' "${up[*]}"
        echo "date=$(date -u +%FT%TZ)"
        echo "rounds=$rounds rounds of $reps repetitions"
    } > "$dir/layout.txt"
    echo "== $layout: $status" >&2

    # screening: a job per configuration of each sweep (none where it is empty: Open MPI's
    # tuned one but for alltoall); a rerun keeps the screenings that finished (remove DIR to
    # screen afresh)
    for coll in ${colls//,/ }; do
        screen=$(sizes_upto "$coll" "$SCREEN_MAX")
        for family in mpich han ompi; do
            [ -n "${sweep_configs[$family-$coll]}" ] || continue
            file=$dir/screen-$family-$coll.csv
            [ -f "$file" ] && [ "$(sed -n 1p "$file.sizes" 2> /dev/null)" = "$screen" ] && continue
            echo "-- screening $coll: ${sweep_configs[$family-$coll]//$'\n'/ }" >&2
            : > "$file.part"
            phase=screening
            for config in ${sweep_configs[$family-$coll]}; do
                screen_config "$config" "$coll" "$screen" >> "$file.part"
            done
            mv "$file.part" "$file"
            echo "$screen" > "$file.sizes"
        done
    done

    # the final run: fixed configurations and the sweeps' winners in turns
    : > "$dir/final.csv"
    phase=final
    for ((round = 1; round <= rounds; round++)); do
        for coll in ${colls//,/ }; do
            final=$(sizes_upto "$coll" "$max")
            # "CONFIG SIZES": every final size for the fixed ones, a winner where it won
            jobs=("hier $final" "mpich $final" "ompi $final" "han $final")
            [ -f "$tree" ] && jobs+=("tuned $final")
            mapfile -t -O ${#jobs[@]} jobs < <(python3 bench/peers-table.py winners "$dir" "$coll" "$final")
            echo "-- round $round $coll: ${jobs[*]}" >&2
            for job in "${jobs[@]}"; do
                run_config "${job% *}" "$coll" "${job#* }" "$reps" "$FINAL_TIMEOUT" >> "$dir/final.csv" || true
            done
        done
    done
    "$emu" down >&2
done

python3 bench/peers-table.py report "$out" --hiertune "$hiertune" ${layouts//,/ }
