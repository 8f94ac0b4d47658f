#!/bin/bash
# on the device machine, from the repo root: overlap of the hier schedules beside MPICH's own
D=$PWD/.devcarry
export LD_LIBRARY_PATH=$D/lib:$D/install/lib PATH=$D/bin:$D/install/bin:$PATH
export EMUCLUSTER_MPIEXEC=$D/install/bin/mpiexec
{ nproc; head -2 /etc/os-release; ldd --version | head -1; uname -r; } > $OUT/env.txt 2>&1
$D/hiertune --help > /dev/null 2>> $OUT/env.txt && echo hiertune-runs >> $OUT/env.txt
mode=emu
if ! maint/emucluster up --nodes 4 --rate 100mbit > $OUT/emu-up.txt 2>&1; then mode=cliques; fi
echo "mode $mode" >> $OUT/env.txt
common=(-a tsp_hier -a default --comp 30000:240000 --comp-points 4 -r 7 --json)
for setting in plain async; do
  if [ $mode = emu ]; then
    env=(); [ $setting = async ] && env=(--env MPIR_CVAR_ASYNC_PROGRESS=1)
    timeout 250 maint/emucluster run --ppn 2 "${env[@]}" -- $D/hiertune overlap -O ibcast,iallreduce,iallgather -m 256K:256K "${common[@]}" > $OUT/overlap-$setting.json 2> $OUT/overlap-$setting.err
  else
    ev=(); [ $setting = async ] && ev=(-genv MPIR_CVAR_ASYNC_PROGRESS 1)
    timeout 250 mpiexec -n 8 -bind-to core:2 -genv MPIR_CVAR_NUM_CLIQUES 4 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 -genv FI_PROVIDER tcp -genv FI_TCP_IFACE lo "${ev[@]}" $D/hiertune overlap --allow-cliques -O ibcast,iallreduce,iallgather -m 256K:256K "${common[@]}" > $OUT/overlap-$setting.json 2> $OUT/overlap-$setting.err
  fi
  echo "$setting rc $?" >> $OUT/env.txt
done
[ $mode = emu ] && maint/emucluster down >> $OUT/emu-up.txt 2>&1
true
