#!/bin/bash
# Session 31 (issue 27, the KITE memory target) on the lent GPU machine (`.debs` carried, and
# `.peers/kite/bundle` for the KITE step): the CUDA build, the real-arithmetic matrix-free operator's
# GPU tests (test_stencil_real_cuda*, with the complex ones it must not disturb: test_stencil_free_cuda*,
# test_cuda_kernels for the random phases' column offset, test_kpm_gpu*, test_kpm_block_cuda: KPM in passes), memcheck on
# them, then graphene's KPM DOS in complex, real and real block = 1 arithmetic on the H100 (device
# peak per orbital and s per moment per orbital from hamlet's summary) and on the 16 host cores
# (bench/real_memory.sh), and KITE on the same host cores (scripts/device_kite.sh).
#   run: bash scripts/device_real.sh     STEPS="gpu sanitize bench_gpu bench_cpu kite" (default all)
#   env: NX=4096 NY=4096 M=1024 R=2 THREADS=16
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench_gpu bench_cpu kite}
NX=${NX:-4096}
NY=${NY:-4096}
M=${M:-1024}
R=${R:-2}
THREADS=${THREADS:-16}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "built at $SECONDS s"
status=0
TESTS="test_stencil_real|test_stencil_free_cuda|test_cuda_kernels|test_kpm_gpu|test_kpm_block"
if want gpu; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu ctest -L gpu -R "$TESTS" --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
fi
if want sanitize; then
  for t in test_stencil_real test_cuda_kernels; do
    exe=$(find build-gpu -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || continue
    compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" cuda >"$OUT/memcheck_$t.log" 2>&1
    code=$?
    echo "memcheck $t: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_$t.log"; }
  done
fi
if want bench_gpu; then
  # the device's peak and the moments' time from the summary of each run
  for c in complex real real_b1; do
    arith=${c%_b1}
    {
      printf '[run]\nbackend = cuda\n[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = %s\nny = %s\nnz = 1\n' \
        "$PWD/inputs/lattices/graphene.lattice" "$NX" "$NY"
      printf 'boundary = periodic periodic open\nstorage = matrix_free\narithmetic = %s\n[solver]\nmethod = kpm\n' "$arith"
      printf '[kpm]\nmoments = %s\nvectors = %s\nbounds = gershgorin\n' "$M" "$R"
      [ "$c" = real_b1 ] && printf 'block = 1\n'
    } >"/tmp/real_gpu_$c.ini"
    build-gpu/bin/hamlet run "/tmp/real_gpu_$c.ini" -o "/tmp/real_gpu_$c.h5" >"$OUT/gpu_$c.log" 2>&1 || status=1
    echo "GPU graphene $NX x $NY $c: $(grep -E "^ *(moments|memory|per orbital) " "$OUT/gpu_$c.log" | tr -s ' ' | tr '\n' ';')" |
      tee -a "$OUT/bench_gpu.txt"
  done
fi
if want bench_cpu; then
  OUT=$OUT/cpu HAMLET=build-gpu/bin/hamlet NX=$NX NY=$NY M=$M R=$R THREADS=$THREADS bash bench/real_memory.sh |
    tee "$OUT/bench_cpu.txt" || status=1
fi
if want kite; then
  OUT=$OUT/kite THREADS=$THREADS M=$M M0=64 R=$R GRAPHENE="$NX $NY" STEPS=graphene bash scripts/device_kite.sh |
    tail -6 | tee "$OUT/kite.txt" || status=1
fi
echo "device_real: exit $status at $SECONDS s"
exit "$status"
