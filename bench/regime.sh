#!/usr/bin/env bash
# The emulated cluster's regime check: is a link slow enough that the network, not the
# scheduler, decides large-message times?  For each case RATE:YIELD (link rate, and
# MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT with the throttle on; 0 = throttle off,
# ranks spin as in stock MPICH), 4 nodes x 2 ranks, it runs
# hiertune bench ROUNDS times (configurations in turns inside each run) and prints per
# (collective, size, configuration): the median of every round, their spread
# ((max - min) / min), the link bound and the ratio of the median of medians to it; then
# whether the ranking of the configurations was the same in every round.
#
#   bench/regime.sh [--cases 1gbit:100,100mbit:0,100mbit:100] [--burst 16kb] [--rounds 5] [--reps 9]
#                   [--sizes 1048576,4194304] [--colls bcast,allreduce] [--raw FILE]
# REGIME_RAW=FILE keeps the measurements; --raw FILE only analyses such a file.
#
# Needs root (maint/emucluster) and tools/hiertune (make); brings each cluster up and down itself
# (refuses to run while another cluster is up).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
emu=$here/maint/emucluster
hiertune=$here/tools/hiertune
cases=1gbit:100,100mbit:0,100mbit:100 burst=16kb rounds=5 reps=9 sizes=1048576,4194304 colls=bcast,allreduce
while [ $# -gt 0 ]; do
    case $1 in
        --cases) cases=$2; shift 2 ;;
        --burst) burst=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        --reps) reps=$2; shift 2 ;;
        --sizes) sizes=$2; shift 2 ;;
        --colls) colls=$2; shift 2 ;;
        --raw) REGIME_RAW=$2 analyse_only=1; shift 2 ;;
        *) echo "regime.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
analyse_only=${analyse_only:-0}
[ "$analyse_only" = 1 ] || [ -x "$hiertune" ] || { echo "regime.sh: no $hiertune (make)" >&2; exit 1; }
[ "$analyse_only" = 1 ] || [ "$("$emu" status)" = down ] || { echo "regime.sh: a cluster is up; take it down first" >&2; exit 1; }
# (--raw only analyses: it leaves any cluster alone)
[ "$analyse_only" = 1 ] || trap '"$emu" down --force > /dev/null 2>&1 || true' EXIT

# the configurations compared, named stock, hier, hier64K by their order: MPICH as shipped,
# hier with its defaults (16 KiB segments; tsp_ring for bcast, tsp_allreduce_ring for
# allreduce), hier with the first defaults (64 KiB segments, MPICH's own inter-node pick)
configs() {
    local c=${1^^}
    echo "-a default -a hier"
    echo "-a hier:MPIR_CVAR_${c}_HIER_SEGSIZE=65536,MPIR_CVAR_${c}_HIER_INTER_ALGORITHM=auto"
}

raw=${REGIME_RAW:-$(mktemp)}
[ "$analyse_only" = 1 ] && cases=""
for case in ${cases//,/ }; do
    rate=${case%%:*} yield=${case#*:}
    "$emu" down > /dev/null 2>&1
    "$emu" up --nodes 4 --rate "$rate" --burst "$burst" 2> /dev/null
    for coll in ${colls//,/ }; do
        for ((round = 1; round <= rounds; round++)); do
            # shellcheck disable=SC2046
            "$emu" run --ppn 2 --env MPIR_CVAR_CH4_PROGRESS_THROTTLE=$((yield > 0)) \
                --env MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT="$yield" -- \
                "$hiertune" bench --no-progress --csv -C "$coll" --sizes "$sizes" -x 3 -r "$reps" $(configs "$coll") |
                awk -F, -v rate="$rate/y$yield" -v coll="$coll" -v round="$round" '
                    NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; split("stock hier hier64K", names, " "); next }
                    { k = $col["size"] == size ? k + 1 : 1; size = $col["size"]
                      print rate, coll, size, names[k], round, $col["median_us"],
                            ("link_bound_us" in col ? $col["link_bound_us"] : 0) }'
        done
    done >> "$raw"
done
[ "$analyse_only" = 1 ] || "$emu" down > /dev/null 2>&1

printf '%-12s %-9s %9s %-8s %s %8s %10s %8s\n' rate coll bytes config "medians of the rounds (ms)" spread% "bound(ms)" "x bound"
awk '{ key = $1 " " $2 " " $3 " " $4; if (!(key in seen)) { order[++k] = key; seen[key] = 1 }
       t[key] = t[key] " " $6; bound[key] = $7 }
     END { for (i = 1; i <= k; i++) {
             key = order[i]; n = split(t[key], v, " "); lo = hi = v[1]
             for (j = 1; j <= n; j++) { if (v[j] < lo) lo = v[j]; if (v[j] > hi) hi = v[j]; s[j] = v[j] }
             for (a = 2; a <= n; a++) { x = s[a]; for (b = a - 1; b >= 1 && s[b] > x; b--) s[b + 1] = s[b]; s[b + 1] = x }
             med = n % 2 ? s[(n + 1) / 2] : (s[n / 2] + s[n / 2 + 1]) / 2
             line = ""; for (j = 1; j <= n; j++) line = line sprintf(" %8.1f", v[j] / 1000)
             split(key, f, " ")
             printf "%-12s %-9s %9s %-8s%s %8.1f %10.1f %8.2f\n", f[1], f[2], f[3], f[4], line,
                    (hi - lo) / lo * 100, bound[key] / 1000, (bound[key] > 0 ? med / bound[key] : 0) } }' "$raw"

# ranking stability: the order of the configurations by time, per round
echo
awk '{ key = $1 " " $2 " " $3 " " $5; t[key, $4] = $6; cfg[$4] = 1; keys[key] = 1 }
     END { for (key in keys) { r = ""; m = 0
             for (c in cfg) if ((key, c) in t) { a[++m] = t[key, c] " " c }
             for (x = 2; x <= m; x++) { y = a[x]; split(y, py, " ")
                 for (z = x - 1; z >= 1; z--) { split(a[z], pz, " "); if (pz[1] + 0 <= py[1] + 0) break; a[z + 1] = a[z] }
                 a[z + 1] = y }
             for (j = 1; j <= m; j++) { split(a[j], p, " "); r = r (j > 1 ? "<" : "") p[2] }
             split(key, f, " "); rank[f[1] " " f[2] " " f[3]] = rank[f[1] " " f[2] " " f[3]] " " r
             delete a } 
           for (k in rank) { n = split(rank[k], rr, " "); same = 1
             for (j = 2; j <= n; j++) if (rr[j] != rr[1]) same = 0
             if (same) printf "%s: ranking %s in all %d rounds\n", k, rr[1], n; else printf "%s: ranking NOT stable over %d rounds:%s\n", k, n, rank[k] } }' "$raw" | sort
[ -n "${REGIME_RAW:-}" ] || rm -f "$raw"
