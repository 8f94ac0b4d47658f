#!/usr/bin/env bash
# The same hiertune tune on the same emulated nodes (4 x 2 ranks, 100 Mbit/s), launched
# two ways: hydra through emucluster's launcher, and as a Slurm batch job
# (maint/slurm-tune.sbatch, every job an srun step) on a real Slurm started on those nodes
# (emucluster up --slurm).  Prints each tune's validation report (picks against the
# exhaustive sweep, the tree against no tree) and its wall time.  Root.
#   bench/slurm-vs-launcher.sh [OUT]      (default OUT: build/slurm-vs-launcher)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$src/build/slurm-vs-launcher}
[ "$(id -u)" = 0 ] || { echo "slurm-vs-launcher: needs root (the emulated cluster)" >&2; exit 1; }
export EMUCLUSTER_PREFIX=mhv EMUCLUSTER_DIR=$out/state
emu=$src/maint/emucluster
args="-C bcast,allreduce --sizes 16K,256K,1M -s 16K,64K --config inter_algo=tsp_kary/tsp_ring,intra_algo=binomial"
rm -rf "$out/launcher" "$out/slurm"
mkdir -p "$out/launcher"
trap '"$emu" down --force > /dev/null 2>&1 || true' EXIT
"$emu" up --nodes 4 --slurm
export SLURM_CONF=$EMUCLUSTER_DIR/slurm/slurm.conf

start=$SECONDS
# shellcheck disable=SC2086
"$src/tools/hiertune" tune -n 8 --launcher "$emu run --ppn 2 --" $args --db "$out/launcher/tune.sqlite" \
    -o "$out/launcher/tree.json" --report "$out/launcher/report" > "$out/launcher.out" 2>&1
echo "== emulated launcher (hydra, emucluster run --ppn 2): $((SECONDS - start)) s"
sed -n '/^== tune step 7\/7/,$p' "$out/launcher.out" | grep -v '^#'

start=$SECONDS
TUNE_OUT=$out/slurm TUNE_INSTALL=0 TUNE_ARGS=$args MPICH_HIER_SRC=$src HIERTUNE=$src/tools/hiertune \
    sbatch -W -N 4 --ntasks-per-node=2 -o "$out/slurm.out" "$src/maint/slurm-tune.sbatch" > /dev/null
echo "== Slurm batch job (sbatch -N 4 --ntasks-per-node=2 maint/slurm-tune.sbatch): $((SECONDS - start)) s"
sed -n '/^== tune step 7\/7/,$p' "$out/slurm.out" | grep -v '^#'
