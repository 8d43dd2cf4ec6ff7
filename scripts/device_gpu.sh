#!/bin/bash
# Quicker variant of device.sh for GPU kernel work on the lent GPU machine (`.debs` carried): builds
# only the library, the GPU tests and the GPU benchmarks, runs those tests, then the benchmarks.
#   run: bash scripts/device_gpu.sh
# Environment knobs:
#   SANITIZE=1          also run compute-sanitizer memcheck and racecheck on the GPU test programs
#   KPM_ARGS="..."      arguments of bench_kpm_gpu (default: none, i.e. the 200 x 100 x 40 lattice)
#   KPM_LARGE_ARGS=".." a second bench_kpm_gpu run (e.g. a lattice filling half the GPU's memory)
#   SPMM_ARGS="..."     arguments of bench_spmm_gpu; SPMM=0 skips it
#   NCU="regex"        Nsight Compute sections of 2 kernels (mangled names) in a short bench_kpm_gpu run
#   NCU_EXTRA="..."     more ncu arguments (e.g. "--section InstructionStats"); NCU_R: its R (32)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source scripts/device_unpack.sh .debs
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag lists are meant to split into words
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
tests="test_gpu_probe test_cuda_kernels test_block_cuda test_kpm_gpu"
# shellcheck disable=SC2086 # the flag lists are meant to split into words
cmake --build build-gpu -j 16 --target $tests bench_kpm_gpu bench_spmm_gpu >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
cd build-gpu || exit 1
echo "built at $SECONDS s"
ctest -R "^(test_gpu_probe|test_cuda_kernels|test_block_cuda|test_kpm_gpu|test_kpm_gpu_mpi2|bench_kpm_gpu_smoke|bench_spmm_gpu_smoke)$" \
  --output-on-failure 2>&1 | tee "$OUT/ctest_gpu.log" | tail -15
if [ "${SANITIZE:-0}" = 1 ]; then
  for t in $tests; do
    exe=$(find . -name "$t" -type f -perm -u+x | head -1)
    for tool in memcheck racecheck; do
      compute-sanitizer --tool $tool --error-exitcode 9 "$exe" >"$OUT/sanitizer_${t}_$tool.log" 2>&1
      echo "compute-sanitizer $tool $t: exit $?" | tee -a "$OUT/sanitizer.txt"
    done
  done
fi
# shellcheck disable=SC2086 # the flag lists are meant to split into words
./bench/bench_kpm_gpu ${KPM_ARGS:-} > "$OUT/bench_kpm_gpu.txt" 2>&1
echo "bench_kpm_gpu exit $?"; grep -v "^  (cuSPARSE" "$OUT/bench_kpm_gpu.txt" | tail -60
if [ "${SPMM:-1}" = 1 ]; then
  # shellcheck disable=SC2086 # the flag lists are meant to split into words
  ./bench/bench_spmm_gpu ${SPMM_ARGS:-} > "$OUT/bench_spmm_gpu.txt" 2>&1
  echo "bench_spmm_gpu exit $?"; tail -30 "$OUT/bench_spmm_gpu.txt"
fi
if [ -n "${KPM_LARGE_ARGS:-}" ]; then
  # shellcheck disable=SC2086 # the flag lists are meant to split into words
  ./bench/bench_kpm_gpu $KPM_LARGE_ARGS > "$OUT/bench_kpm_gpu_large.txt" 2>&1
  echo "bench_kpm_gpu (large) exit $?"; tail -25 "$OUT/bench_kpm_gpu_large.txt"
fi
# NCU="regex": Nsight Compute on the first 2 kernels whose mangled names match, in a short KPM run
if [ -n "${NCU:-}" ]; then
  # shellcheck disable=SC2086 # the flag lists are meant to split into words
  ncu --kernel-name-base mangled -k "regex:$NCU" -c 2 --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats ${NCU_EXTRA:-} \
    ./bench/bench_kpm_gpu --R ${NCU_R:-32} --steps 2 > "$OUT/ncu.txt" 2>&1
  echo "ncu exit $?"; grep -E "^  [a-z_]+.*\(|Throughput|Hit Rate|Achieved Occupancy|Registers|Duration|Mem Busy|Max Bandwidth|Issue|Ipc|Pipe|Executed Instructions|Warp Cycles|Eligible|No Eligible" "$OUT/ncu.txt" | head -80
fi
# at most 8 files come back from the device tool: the logs travel as one archive
(cd "$OUT" && tar czf logs.tgz ./*.log 2>/dev/null; rm -f ./*.log)
echo "done at $SECONDS s"
