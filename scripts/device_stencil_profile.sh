#!/bin/bash
# Where the matrix-free TI step's time goes on the lent GPU (`.debs` carried): builds build-gpu,
# prints the per-site kernels' registers and shared memory, then Nsight Compute's speed-of-light,
# memory, occupancy and warp-state sections for the fused KPM step at each R of PROFILE_R (default
# "2 32") on 200 x 100 x 40 TI sites, and the plain bench_stencil figures of the same build.
#   run: bash scripts/device_stencil_profile.sh     (carry: [".debs"])
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
cd build-gpu || exit 1
lib=$(find . -name 'libhamlet*.a' -o -name 'libhamlet*.so' | head -1)
cuobjdump --dump-resource-usage "$lib" 2>/dev/null | grep -A1 -E "stencil.*kernel" | grep -E "Function|REG" | head -20
./bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R 2,8,32 --steps 50 | tee "$OUT/bench_ti.txt"
for r in ${PROFILE_R:-2 32}; do
  ncu --clock-control none -k "regex:stencil" -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats \
    --section SchedulerStats ./bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R "$r" --steps 1 \
    >"$OUT/ncu_R$r.txt" 2>&1
  echo "== ncu R=$r exit $?"
  grep -E "^  [a-zA-Z_].*\(|Throughput|Hit Rate|Achieved Occupancy|Theoretical Occupancy|Registers Per|Duration|Mem Busy|Max Bandwidth|Issued Ipc|Warp Cycles Per Issued|No Eligible|Block Limit|L1/TEX Cache|L2 Cache|DRAM" "$OUT/ncu_R$r.txt" | head -60
done
echo "done at $SECONDS s"
