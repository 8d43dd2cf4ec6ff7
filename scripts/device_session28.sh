#!/bin/bash
# Session 28's work on the lent GPU machine (`.debs` carried; `.peers/kite/bundle` for `cond`), in
# parts that each fit one call:
#   check  every GPU test with HAMLET_TEST_REQUIRE=gpu,h5py (a skip fails), compute-sanitizer
#          memcheck on the IDR tests (the CUDA IDR kernels were refactored), then the multi-shift
#          IDR(s) benchmark on the GPU (issue 29: scripts/device_multishift.sh's `bench`, 200 s at most)
#   cond   the conductivity moments at N = 10^7, M = 1024, R = 16 on the GPU (issue 28), with
#          KITE's conductivity on graphene on the host's 16 cores at the same time (the GPU run keeps
#          one host thread busy beside KITE's 16: its figure is a little pessimistic) and hamlet's run of
#          the same graphene deck on the GPU afterwards
#   stencil  the matrix-free TI step on the tensor cores (gpu/stencil_mma_cuda.cu, issue 27): test_stencil_free
#          on the GPU with the automatic choice and with HAMLET_STENCIL_KERNEL=mma (every width from 8),
#          on 1 and 2 ranks, compute-sanitizer memcheck, then bench_stencil on the TI with the per-site
#          kernel and the tensor-core one in the same run
#   run: bash scripts/device_session28.sh check|cond|diag|stencil
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
part=${1:-check}
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
status=0
if [ "$part" = check ]; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py ctest -L gpu -j4 --timeout 300 --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
  for t in test_idr_multishift_gpu test_idr_gpu; do
    exe=$(find build-gpu -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || continue
    timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"$OUT/memcheck_$t.log" 2>&1
    code=$?
    echo "memcheck $t: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_$t.log"; }
  done
  echo "tests done at $SECONDS s"
  STEPS=bench bash scripts/device_multishift.sh 2>&1 | grep -vE "^(built|NVIDIA)" | tail -40 || status=1
fi
if [ "$part" = cond ]; then
  if [ -x .peers/kite/bundle/KITEx ]; then
    (STEPS=conductivity THREADS=16 BUDGET=420 KITE_TIMEOUT=300 bash scripts/device_kite.sh >"$OUT/kite_conductivity.log" 2>&1) &
    kite=$!
  fi
  for args in "--block 1" ""; do # single vectors, then the block chosen from free memory
    echo "== bench_conductivity --L 2237 --moments 1024 --vectors 16 $args --cuda ($SECONDS s)" |
      tee -a "$OUT/bench_conductivity.txt"
    # shellcheck disable=SC2086 # the arguments split into words on purpose
    timeout $((440 - SECONDS)) build-gpu/bench/bench_conductivity --L 2237 --moments 1024 --vectors 16 $args --cuda 2>&1 |
      tee -a "$OUT/bench_conductivity.txt" | tail -30
    [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; echo "bench_conductivity failed or ran past its time"; }
  done
  [ -n "${kite:-}" ] && { wait "$kite" || status=1; tail -30 "$OUT/kite_conductivity.log"; }
  STEPS=kite_pair timeout 90 bash scripts/device_conductivity2.sh 2>&1 | grep -E "moments|conductivity|s$" | tail -15
fi
if [ "$part" = diag ]; then
  # the conductivity benchmark's split at smaller N (to see where the N = 10^7 run's time goes), hamlet's
  # CPU conductivity on KITE's graphene deck (16 threads), the multi-shift benchmark at 40 x 40 x 16
  for L in 700 1400; do
    echo "== bench_conductivity --L $L --moments 1024 --vectors 2 --block 1 --cuda ($SECONDS s)"
    timeout 90 build-gpu/bench/bench_conductivity --L $L --moments 1024 --vectors 2 --block 1 --cuda 2>&1 | tail -3
  done
  printf '[run]\nbackend = cpu\noutput = %s/graphene_cpu.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 512\nny = 512\nnz = 1\nboundary = periodic periodic open\n[solver]\nmethod = conductivity\n[conductivity]\ncomponents = xx\nenergies = -1 1 5\nmoments = 1024\nvectors = 1\n' \
    "$OUT" "$PWD/inputs/lattices/graphene.lattice" >"$OUT/graphene_cpu.ini"
  OMP_NUM_THREADS=16 timeout 120 build-gpu/bin/hamlet run "$OUT/graphene_cpu.ini" 2>&1 | grep -E "moments|timing|parallel|memory"
  NX=40 NY=40 NZ=16 STEPS=bench bash scripts/device_multishift.sh 2>&1 | grep -vE "^(built|NVIDIA)" | tail -30 || status=1
fi
if [ "$part" = stencil ]; then
  exe=build-gpu/linalg/tests/test_stencil_free
  HAMLET_STENCIL_KERNEL=auto "$exe" cuda >"$OUT/stencil_free_auto.log" 2>&1 || status=1
  HAMLET_STENCIL_KERNEL=mma /opt/deps/usr/bin/mpiexec.hydra -n 2 "$exe" cuda >"$OUT/stencil_free_mma_2.log" 2>&1 || status=1
  echo "test_stencil_free cuda: auto $(tail -1 "$OUT/stencil_free_auto.log"); mma, 2 ranks: $(tail -1 "$OUT/stencil_free_mma_2.log")"
  HAMLET_STENCIL_KERNEL=mma timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_stencil_mma.log" 2>&1
  code=$?
  echo "memcheck test_stencil_free cuda (mma): exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -8 "$OUT/memcheck_stencil_mma.log"; }
  [ -n "${STENCIL_TESTS_ONLY:-}" ] && { echo "done at $SECONDS s, status $status"; exit $status; }
  for kernel in site mma; do
    echo "== bench_stencil TI, HAMLET_STENCIL_KERNEL=$kernel ($SECONDS s)"
    HAMLET_STENCIL_KERNEL=$kernel build-gpu/bench/bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R "${STENCIL_R:-8,16,32,64}" \
      --steps 50 | tee "$OUT/bench_ti_$kernel.txt" | grep -E "ratio|bandwidth" | head -12
  done
  echo "== bench_conductivity --L 2237 --moments 1024 --vectors 2 --block 1 --cuda ($SECONDS s)"
  timeout $((330 - SECONDS)) build-gpu/bench/bench_conductivity --L 2237 --moments 1024 --vectors 2 --block 1 --cuda 2>&1 | tail -3
fi
echo "done at $SECONDS s, status $status"
exit $status
