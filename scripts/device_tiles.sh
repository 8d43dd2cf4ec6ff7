#!/usr/bin/env bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# The TI traversal's tiles cut for the block width (hm_ti_params.block_width) against 16 x 16, on the
# lent GPU: bench_kpm_gpu at each width R with --block-width 0 and R; rows of the KPM table and the
# tile line. Run in build-gpu (scripts/device_quick.sh bench_kpm_gpu bash ../scripts/device_tiles.sh).
#   WIDTHS="8 16 32 64" LARGE=1 (also 336 x 200 x 100 at R = 32) STEPS=20
set -uo pipefail
steps=${STEPS:-20}
for R in ${WIDTHS:-8 16 32 64}; do
  for w in 0 $R; do
    echo "== R = $R, --block-width $w"
    ./bench/bench_kpm_gpu --R $R --steps $steps --block-width $w | grep -E "^rows traversed|^ +$R |MISMATCH|FAIL|rror"
  done
done
if [ "${LARGE:-1}" = 1 ]; then
  for w in 0 32; do
    echo "== large 336 x 200 x 100, R = 32, --block-width $w"
    ./bench/bench_kpm_gpu --nx 336 --ny 200 --nz 100 --R 32 --steps 10 --block-width $w |
      grep -E "^rows traversed|^ +32 |MISMATCH|FAIL|rror"
  done
fi
# SWEEP_LARGE=1: the block step's launch shapes on the large lattice at R = 32 (fastest first)
if [ "${SWEEP_LARGE:-0}" = 1 ]; then
  echo "== large 336 x 200 x 100, R = 32, launch shapes"
  ./bench/bench_kpm_gpu --nx 336 --ny 200 --nz 100 --R 32 --steps 10 --block-width 32 --block-sweep 32 |
    grep -E "us per vector-step" | sort -t: -k2 -n | head -6
fi
