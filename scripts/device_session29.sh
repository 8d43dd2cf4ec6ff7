#!/bin/bash
# What session 28 left for the GPU machine (`.debs` carried), in parts that each fit one call:
#   check    every GPU test with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails; new in session 28:
#            test_stencil_free_cuda_mma, test_marker_exact_cuda, test_idr_shell_gpu, and the spectral
#            and marker GPU checks), then compute-sanitizer memcheck on the new GPU code: the
#            tensor-core matrix-free step (forced at every width), the block copy (its dot sums now
#            shared), the Fermi projector, the A(k, E) reconstruction
#   stencil  bench_stencil on the TI, graphene and wannier30 with both matrix-free kernels, and the
#            N = 10^9 TI (issue 27)
#   cond     the conductivity moments at N = 10^7, M = 1024, R = 16 on the GPU alone (issue 28)
#   multishift  multi-shift IDR(s) on the GPU with all 8 site orbitals in one solve (the app's default
#            rhs_per_solve = 0: 8 columns per seed step; session 28 measured 1 column per step: 0.83x)
#            on the 40 x 40 x 16 TI, then the 3.2e6-orbital TI with 2 per solve (issue 29)
#   Then: `bash scripts/device_idr_shell.sh` (the CUDA IDR(s) inner solve, issue 32) and
#   `bash scripts/device_hall.sh` (the Hall plateau at 128 x 128 on the GPU).
#   run: bash scripts/device_session29.sh check|stencil|cond|multishift
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
part=${1:-check}
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
memcheck() { # memcheck NAME COMMAND...: compute-sanitizer memcheck, 120 s at most
  local name=$1; shift
  timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$@" >"$OUT/memcheck_$name.log" 2>&1
  local code=$?
  echo "memcheck $name: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_$name.log"; }
}
if [ "$part" = check ]; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -L gpu -j4 --timeout 300 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
  HAMLET_STENCIL_KERNEL=mma memcheck stencil_mma build-gpu/linalg/tests/test_stencil_free cuda
  memcheck block_cuda "$(find build-gpu -name test_block_cuda -type f -perm -u+x | head -1)"
  memcheck marker_exact build-gpu/linalg/tests/test_marker_exact cuda
  memcheck spectral build-gpu/linalg/tests/test_spectral_start cuda
fi
if [ "$part" = stencil ]; then
  for kernel in site mma; do
    echo "== HAMLET_STENCIL_KERNEL=$kernel"
    HAMLET_STENCIL_KERNEL=$kernel build-gpu/bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R 2,8,16,32,64 \
      --steps 50 | tee "$OUT/bench_ti_$kernel.txt" | grep -E "ratio|bandwidth"
  done
  build-gpu/bench/bench_stencil --backend cuda --model graphene --nx 4096 --ny 2048 --nz 1 --R 32 --steps 20 | grep -E "ratio|bandwidth"
  build-gpu/bench/bench_stencil --backend cuda --model wannier30 --nx 160 --ny 160 --nz 64 --R 32 --steps 20 | grep -E "ratio|bandwidth"
  build-gpu/bench/bench_stencil --backend cuda --nx 500 --ny 500 --nz 1000 --R 2 --steps 5 | grep -E "ratio|bandwidth"
fi
if [ "$part" = cond ]; then
  timeout 500 build-gpu/bench/bench_conductivity --L 2237 --moments 1024 --vectors 16 --block 1 --cuda 2>&1 | tail -3
  [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "bench_conductivity failed or ran past 500 s"; }
fi
if [ "$part" = multishift ]; then
  NX=40 NY=40 NZ=16 RHS=0 STEPS=bench timeout 250 bash scripts/device_multishift.sh 2>&1 | grep -vE "^(built|NVIDIA)" | tail -14
  RHS=2 PER_EVERY=20 STEPS=bench timeout 300 bash scripts/device_multishift.sh 2>&1 | grep -vE "^(built|NVIDIA)" | tail -14
fi
echo "done at $SECONDS s, status $status"
exit $status
