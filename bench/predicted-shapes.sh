#!/usr/bin/env bash
# The predicted shapes of ./quickstart tune timed where they run (issue 46): the tuned
# tree (build/tune/tree.json) picks for NODES x 1 from the analytic models alone
# (tune --predict-shapes: more nodes than tune's allocation of 4); this brings up the
# emulated cluster with NODES nodes, shows what the tree selects there and where each
# choice comes from (show-tree, the coverage file beside the tree), and times the tree as
# loaded against no tree at NODES x 1 (hiertune tree-timing: alternating jobs, ROUNDS).
#
#   bench/predicted-shapes.sh [--nodes N] [--sizes MIN:MAX] [--rounds R] [--tree FILE] [--out DIR]
# Defaults: 8 nodes, 16K:1M (the smallest size the models are fitted at upward), 3 rounds,
# build/tune/tree.json, build/predicted-Nx1.  Root (the emulated cluster).
set -euo pipefail
cd "$(dirname "$0")/.."
emu=maint/emucluster
nodes=8 sizes=16K:1M rounds=3 tree=build/tune/tree.json out=
die() { echo "predicted-shapes: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
        --nodes) nodes=${2:?}; shift 2 ;;
        --sizes) sizes=${2:?}; shift 2 ;;
        --rounds) rounds=${2:?}; shift 2 ;;
        --tree) tree=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        *) sed -n '/^#   bench/,/^# Defaults/p' "$0" | sed 's/^# \{0,1\}//' >&2; die "unknown option '$1'" ;;
    esac
done
[ -f "$tree" ] || die "no tree $tree: run ./quickstart tune first"
[ "$(id -u)" = 0 ] || die "needs root (the emulated cluster)"
out=${out:-build/predicted-${nodes}x1}
mkdir -p "$out"
[ "$($emu status)" = down ] || die "a cluster is already up ($emu status); take it down first"
trap '$emu down --force >/dev/null 2>&1 || true' EXIT
$emu up --nodes "$nodes" ${EMUCLUSTER_RATE:+--rate "$EMUCLUSTER_RATE"}
echo "== what the tree selects at $nodes x 1, and where each choice comes from"
tools/hiertune show-tree "$tree" -C bcast,reduce --comm-sizes "$nodes" --ppn 1 | tee "$out/show-tree.txt"
echo "== the tree as loaded against no tree at $nodes x 1"
tools/hiertune tree-timing --tree "$tree" -n "$nodes" -C bcast,reduce -m "$sizes" --rounds "$rounds" \
    --launcher "$emu run --ppn 1 --" | tee "$out/tree-timing.txt"
