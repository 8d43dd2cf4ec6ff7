#!/bin/bash
# Issue 27 section 2 on the lent GPU machine (`.debs` carried, as device_reliability.sh): the CUDA
# build, the GPU tests (test_stencil_free_cuda: the matrix-free operator on the GPU against the CPU
# reference CSR of fresh random descriptions, R = 1, 4, 32), compute-sanitizer memcheck on it, and
# bench_stencil: the TI's fused KPM step per vector-step next to 48 R N / copy bandwidth (same run)
# at R = 2, 8, 32 on 200 x 100 x 40 sites and at R = 2 on 500 x 500 x 1000 sites (N = 10^9
# orbitals), with the build time and the peak device memory.
#   run: bash scripts/device_stencil.sh        STEPS="gpu sanitize bench billion" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench billion}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
if want gpu; then
  HAMLET_TEST_REQUIRE=gpu ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
fi
if want sanitize; then
  exe=$(find . -name test_stencil_free -type f -perm -u+x | head -1)
  compute-sanitizer --tool memcheck --leak-check full --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_stencil.log" 2>&1
  code=$?
  echo "memcheck test_stencil_free cuda: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_stencil.log"; }
fi
if want bench; then
  ./bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R 2,8,32 --steps 50 | tee "$OUT/bench_ti.txt" || status=1
  OMP_NUM_THREADS=16 ./bench/bench_stencil --backend cpu --nx 200 --ny 100 --nz 40 --R 16 --steps 10 | tee "$OUT/bench_ti_cpu.txt" || status=1
fi
if want billion; then
  ./bench/bench_stencil --backend cuda --nx 500 --ny 500 --nz 1000 --R 2 --steps 10 | tee "$OUT/bench_billion.txt" || status=1
  nvidia-smi --query-gpu=memory.used --format=csv,noheader | tee -a "$OUT/bench_billion.txt"
fi
exit $status
