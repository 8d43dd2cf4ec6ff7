#!/bin/bash
# Session 30's one-GPU call (`.debs` carried): the few-orbital stencil kernel (issue 27,
# scripts/device_stencil30.sh: its tests, memcheck and bench; its build has -lineinfo), then in the
# same build the multi-shift IDR(s) GPU test and benchmark (issue 29) and Krylov-Schur's multiplets
# test on CUDA (issue 32). At most 8 files under $OUT (the device's limit).
#   run: bash scripts/device_session30b.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT/st"
status=0
OUT=$OUT/st bash scripts/device_stencil30.sh || status=1
source scripts/device_unpack.sh .debs >/dev/null
cmake --build build-gpu -j 16 --target test_idr_multishift_gpu bench_multishift test_krylov_schur_multiplets \
  >>"$OUT/st/build.log" 2>&1 || { grep -E "error|Error" "$OUT/st/build.log" | head -20; exit 1; }
(cd build-gpu && HAMLET_TEST_REQUIRE=gpu timeout 200 ctest -R "test_idr_multishift_gpu|test_krylov_schur_multiplets_cuda" \
  --output-on-failure >"$OUT/ctest.log" 2>&1) || status=1
grep -E "Test +#|tests passed|copies found" "$OUT/ctest.log" | head -20
OMP_NUM_THREADS=16 timeout 150 build-gpu/bench/bench_multishift --backend cuda --copy-mib 1024 --ti 40 40 16 \
  --energies 101 --rhs-per-solve 0 --per-energy-every 10 >"$OUT/bench_multishift.txt" 2>&1 || status=1
grep -vE "^(energy|  bound)" "$OUT/bench_multishift.txt" | cut -c1-200 | tail -25
echo "session30b done at $SECONDS s, status $status"
exit $status
