#!/bin/bash
# Issue 28 (conductivity) on the lent GPU machine (`.debs` carried, as for device_reliability.sh):
# the CUDA build with HAMLET_TEST_REQUIRE=gpu (a GPU test that skips fails); the conductivity GPU
# tests (exact-trace moments against dense eigenpairs on the device; sigma_xy of the 64 x 64
# Qi-Wu-Zhang model, M = 512, within 2%); compute-sanitizer memcheck on the exact test; the
# moment-matrix benchmark (N >= 10^7, M = 1024, R = 16 on the GPU; the CPU path at a smaller size
# on the host's 16 cores), each part against its bound.
#   run: bash scripts/device_conductivity.sh      STEPS="gpu sanitize bench" (default all)
#   BENCH_L (default 2237: N = 2 L^2 = 1.0e7), BENCH_M (1024), BENCH_R (2: timed per vector; 16 takes R x longer), ZGEMM_TFLOPS (cuBLAS's
#   measured FP64 rate to compare the Gram products with; default 60)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
export HAMLET_TEST_REQUIRE=gpu
if want gpu; then
  ctest -R "conductivity|velocity" --output-on-failure >"$OUT/ctest_conductivity.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|sigma_xy" "$OUT/ctest_conductivity.log" | head -30
fi
if want sanitize; then
  compute-sanitizer --tool memcheck --error-exitcode 9 ./linalg/tests/test_conductivity_exact cuda 5 \
    >"$OUT/memcheck_conductivity.log" 2>&1
  code=$?
  echo "memcheck test_conductivity_exact: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_conductivity.log"; }
fi
if want bench; then
  L=${BENCH_L:-2237}; M=${BENCH_M:-1024}; R=${BENCH_R:-2}; Z=${ZGEMM_TFLOPS:-60}
  ./bench/bench_conductivity --L "$L" --moments "$M" --vectors "$R" --cuda --zgemm "$Z" \
    2>&1 | tee "$OUT/bench_conductivity_gpu.txt" || status=1
  # the CPU path on the host's cores at a size that ends in minutes (one vector)
  OMP_NUM_THREADS=16 ./bench/bench_conductivity --L 512 --moments 256 --vectors 1 --bandwidth 200 --zgemm 1 \
    2>&1 | tee "$OUT/bench_conductivity_cpu.txt" || status=1
fi
echo "device_conductivity: exit $status at $SECONDS s"
exit "$status"
