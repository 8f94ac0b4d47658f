#!/usr/bin/env bash
# Issue 17's link probe: how concurrent transfers share the links of the emulated cluster
# of bench/analytic-validate.sh (100 Mbit/s, 2 KB bucket; one rank on each of 3 nodes).
# As root, nothing else running:   bench/link-probe.sh [SIZE...]
# Prints per pattern (bench/link-probe.c) and size each rank's median time in us; the time
# of one transfer of SIZE on the link (80 ns/B) is in the last column.
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(8192 16384 32768 65536 262144)
mkdir -p build
build/install/bin/mpicc -O2 -o build/link-probe bench/link-probe.c
maint/emucluster up --nodes 3 --rate 100mbit --burst 2kb >&2
trap 'maint/emucluster down >&2' EXIT
for pattern in one swap fanout fanin relay ring ringall; do
    for n in "${sizes[@]}"; do
        line=$(maint/emucluster run --ppn 1 -- build/link-probe "$pattern" "$n" 2>/dev/null)
        echo "$line  link $((n * 80 / 1000))"
    done
done
