#!/bin/bash
# ThreadSanitizer on the CPU code with LLVM's OpenMP runtime, on a build machine (Debian 12 with
# clang-14 and libomp-14-dev; CI's machine has them). GCC's libgomp is not instrumented, so TSan
# cannot see its barriers and reports false races (`scripts/gpu_host.sh tsan` shows them);
# LLVM's libomp ships Archer (libarcher.so, loaded through OMP_TOOL_LIBRARIES), which tells TSan
# about OpenMP's barriers, reductions, locks and tasks, so every report left is a real race.
#   bash scripts/tsan.sh            the CPU tests (no GPU, no Fortran); each test sets its threads:
#                                   the _omp2/_omp3 variants and test_cpu_kernels run 2-3 threads
#   TESTS='_omp[23]$|^test_cpu_kernels$' bash scripts/tsan.sh     those only;  JOBS=n tests at once
# Reports go to $OUT/tsan (one log per process) and a summary to stdout; exit 0 when no test failed
# and no report was written.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=$(realpath -m "${OUT:-build-tsan-clang/out}") # absolute: the tests run in the build folder
mkdir -p "$OUT/tsan"
rm -f "$OUT"/tsan/report.*
archer=$(ls /usr/lib/llvm-14/lib/libarcher.so 2>/dev/null)
command -v clang-14 >/dev/null && [ -n "$archer" ] || {
  echo "needs clang-14 and libomp-14-dev (Debian 12: apt-get install clang-14 libomp-14-dev)"
  exit 1
}
# glibc 2.36's complex.h defines CMPLX for GCC only: clang gets the same builtin from a header
# included first (complex.h then leaves it alone)
mkdir -p build-tsan-clang
printf '%s\n' '#define CMPLX(x, y) __builtin_complex((double)(x), (double)(y))' >build-tsan-clang/clang_cmplx.h
flags="-fsanitize=thread -fno-omit-frame-pointer -g -include $PWD/build-tsan-clang/clang_cmplx.h"
# FC=false: no Fortran (gfortran's objects would link GCC's TSan runtime next to clang's); no CUDA
FC=false cmake -S . -B build-tsan-clang -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHAMLET_CUDA=OFF \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  -DMPI_C_COMPILER=mpicc.mpich -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
grep -q "OpenMP_C_FLAGS:STRING=-fopenmp=libomp" build-tsan-clang/CMakeCache.txt ||
  { echo "CMake did not take LLVM's OpenMP (-fopenmp=libomp): see $OUT/configure.log"; exit 1; }
cmake --build build-tsan-clang -j "${BUILD_JOBS:-2}" >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
cd build-tsan-clang || exit 1
# ignore_noninstrumented_modules: accesses inside libomp, MPICH, HDF5, OpenBLAS are not checked
# (those libraries are not built with TSan); exitcode 66: a process with a report fails its test.
export OMP_TOOL_LIBRARIES=$archer
export TSAN_OPTIONS="exitcode=66 halt_on_error=0 ignore_noninstrumented_modules=1 second_deadlock_stack=1 log_path=$OUT/tsan/report"
ctest -LE "gpu|fortran" ${TESTS:+-R "$TESTS"} -j "${JOBS:-1}" --timeout 1800 --output-on-failure \
  >"$OUT/ctest.log" 2>&1
status=$?
tail -25 "$OUT/ctest.log"
reports=$(cat "$OUT"/tsan/report.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer")
echo "ThreadSanitizer (clang-14, libomp + Archer): $reports reports in" \
  "$(find "$OUT/tsan" -name 'report.*' | wc -l) process logs (ctest exit $status)"
grep -h -A12 "WARNING: ThreadSanitizer" "$OUT"/tsan/report.* 2>/dev/null | grep -E "WARNING|#[0-2] " |
  sort | uniq -c | sort -rn | head -40
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
