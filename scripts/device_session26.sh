#!/bin/bash
# Session 26's GPU checks in one device call (`.debs` carried): the CUDA build once, every gpu-labelled
# test with HAMLET_TEST_REQUIRE=gpu,h5py, compute-sanitizer memcheck on the new GPU tests
# (matrix-free stencil, multi-shift IDR, conductivity, LOBPCG), issue 32's hard LOBPCG cases and
# shift-and-invert with the CUDA backend, the lattice methods on the GPU, and short benchmarks of
# multi-shift IDR and the conductivity moments. Each topic's own script holds the longer runs.
#   run: bash scripts/device_session26.sh      STEPS="gpu sanitize eigen lattice bench" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize eigen lattice bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
export HAMLET_TEST_REQUIRE=gpu,h5py MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
status=0
cd build-gpu || exit 1
if want gpu; then
  ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*|Not Run" "$OUT/ctest_gpu.log" | head -20
  echo "gpu tests done at $SECONDS s"
fi
memcheck() { # name, then the command
  local name=$1; shift
  compute-sanitizer --tool memcheck --error-exitcode 9 "$@" >"$OUT/memcheck_$name.log" 2>&1
  local code=$?
  echo "memcheck $name: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -15 "$OUT/memcheck_$name.log"; }
}
exe() { find . -name "$1" -type f -perm -u+x | head -1; }
if want sanitize; then
  memcheck stencil "$(exe test_stencil_free)" cuda
  memcheck multishift "$(exe test_idr_multishift_gpu)"
  memcheck conductivity "$(exe test_conductivity_exact)" cuda
  memcheck lobpcg "$(exe test_lobpcg_gpu)"
  echo "sanitizer done at $SECONDS s"
fi
if want eigen; then
  HAMLET_TEST_BACKEND=cuda timeout 150 ctest -R "e2e_lobpcg_hard|e2e_shift_invert" --output-on-failure \
    >"$OUT/eigen_cuda.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/eigen_cuda.log" | head
fi
if want lattice; then
  HAMLET_TEST_BACKEND=cuda timeout 120 ctest -R "e2e_lattice" --output-on-failure >"$OUT/lattice_cuda.log" 2>&1 || status=1
  grep -E "tests passed|Failed|\*\*\*" "$OUT/lattice_cuda.log" | head
fi
cd .. || exit 1
if want bench; then
  NX=60 NY=60 NZ=20 RANKS=1 BW=2985 OMP_NUM_THREADS=16 BACKEND=cuda timeout 100 \
    bash bench/multishift_green.sh build-gpu/bin/hamlet >"$OUT/bench_multishift_gpu.txt" 2>&1 || status=1
  tail -12 "$OUT/bench_multishift_gpu.txt"
  timeout 60 ./build-gpu/bench/bench_conductivity --L 1000 --moments 512 --vectors 2 --cuda --zgemm 60 \
    >"$OUT/bench_conductivity_gpu.txt" 2>&1 || status=1
  tail -8 "$OUT/bench_conductivity_gpu.txt"
fi
echo "done at $SECONDS s, status $status"
exit $status
