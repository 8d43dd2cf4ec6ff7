#!/bin/bash
# ThreadSanitizer on the CPU code: a C build (no CUDA, no Fortran) with -fsanitize=thread on the GPU
# machine's host (16 cores: CI's 2 are too slow for it), then the CPU tests; the _omp2/_omp3 variants
# run the OpenMP kernels and builders with several threads. Reports and the summary go to $OUT.
#   run: bash scripts/gpu_host.sh tsan [REGEX]   (REGEX narrows the ctest selection)
# GCC's libgomp is not instrumented: its thread pool is reused and its barriers are futexes TSan
# cannot see, so a shared variable the master writes before a parallel region and a worker reads in
# it is reported as a race (a 10-line OpenMP program shows it). Such reports (previous access by the
# main thread outside *_omp_fn*, location the master's stack) are false; a race with both accesses
# inside *_omp_fn* frames of one region is real. The summary groups reports by their top frames.
# A run without such false reports: scripts/tsan.sh on a build machine (clang-14 and LLVM's libomp,
# whose Archer tool tells TSan about OpenMP's synchronisation).
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/gpu_host_env.sh
source scripts/gpu_host_env.sh .debs >/dev/null
flags="-fsanitize=thread -fno-omit-frame-pointer -g"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHAMLET_CUDA=OFF \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=thread" \
  $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/tsan_configure.log" 2>&1 || { tail -40 "$OUT/tsan_configure.log"; exit 1; }
cmake --build build-tsan -j 16 >"$OUT/tsan_build.log" 2>&1 || { grep -E "error|Error" "$OUT/tsan_build.log" | head -40; exit 1; }
cd build-tsan || exit 1
# exitcode 66: a test with a report fails; each process writes its reports to its own log.
export HAMLET_TEST_REQUIRE=h5py # no CUDA in this build: the GPU tests are left out
export TSAN_OPTIONS="exitcode=66 halt_on_error=0 second_deadlock_stack=1 log_path=$OUT/tsan/report"
mkdir -p "$OUT/tsan"
ctest -LE "gpu|fortran" ${1:+-R "$1"} -j 8 --timeout 900 --output-on-failure >"$OUT/tsan_ctest.log" 2>&1
status=$?
tail -25 "$OUT/tsan_ctest.log"
reports=$(cat "$OUT"/tsan/report.* 2>/dev/null | grep -c "WARNING: ThreadSanitizer")
echo "ThreadSanitizer: $reports reports in $(find "$OUT/tsan" -name 'report.*' | wc -l) process logs (ctest exit $status)"
grep -h -A12 "WARNING: ThreadSanitizer" "$OUT"/tsan/report.* 2>/dev/null | grep -E "WARNING|#[0-2] " | sort | uniq -c | sort -rn | head -40
[ "$status" -eq 0 ] && [ "$reports" -eq 0 ]
