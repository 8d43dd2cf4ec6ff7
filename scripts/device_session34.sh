#!/bin/bash
# Issue 27, session 34, one GPU (`.debs` carried): the box kernel (gpu/stencil_box_cuda.cu) for cells of
# 1 or 2 orbitals whose hops stay within one cell, against the few-orbital kernel it replaces.
#   check     build build-gpu (this tree); the stencil GPU tests (ctest -L gpu -R stencil), then
#             test_stencil_free cuda trials 30-49 with the box kernel and one thread block per tile on 2 ranks
#   memcheck  compute-sanitizer memcheck of test_stencil_free cuda 30-49 with the box kernel, racecheck of 34
#   bench     bench_stencil graphene 2048 x 2048 and wannier30 128 x 128 x 64 at R = 8, 16, 32: the
#             few-orbital kernel (small) and the box kernel in one process, BENCH_ROUNDS times
#   ncu       one R = 32 KPM launch of the box kernel on each model: time, DRAM bytes, warp
#             instructions, issue activity, shared wavefronts, occupancy, spills (NCU_SECTIONS=1: stalls)
#   sweep     the TI's staged kernel at R = 2 (N = 10^9: 500 x 500 x 1000) and R = 1..32 (200 x 100 x 40)
#             with each VAR=VALUE item of SWEEP set (e.g. HAMLET_STENCIL_STAGED_CHUNK=24: slabs per chunk;
#             HAMLET_STENCIL_STAGED_BLOCKS=1024: thread blocks a launch aims at; gpu/staged_chunks.cuh)
#   gpu       every GPU test (ctest -L gpu, a skip fails)
# Logs in $OUT; a summary on stdout.   run: STEPS="check memcheck bench ncu" bash scripts/device_session34.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck bench ncu}
BENCH_ROUNDS=${BENCH_ROUNDS:-2}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
status=0
# shellcheck source=scripts/device_build_tree.sh
source scripts/device_build_tree.sh
if want gpu; then build_tree . build-gpu all || exit 1
else build_tree . build-gpu test_stencil_free test_stencil_real bench_stencil || exit 1; fi
tests=build-gpu/linalg/tests
mpiexec=$(grep -E "^MPIEXEC_EXECUTABLE:" build-gpu/CMakeCache.txt | cut -d= -f2)
if want check; then
  (cd build-gpu && timeout 400 ctest -L gpu -R stencil -j4 --output-on-failure >"$OUT/ctest.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Timeout|Not Run" "$OUT/ctest.log" | head -10
  HAMLET_STENCIL_KERNEL=box HAMLET_STENCIL_STAGED_BLOCKS=1 OMP_NUM_THREADS=4 timeout 200 "$mpiexec" -n 2 \
    "$tests/test_stencil_free" cuda 30-49 >"$OUT/check2.log" 2>&1
  echo "test_stencil_free cuda 30-49, box, 2 ranks, one block per tile: exit $?"
fi
if want memcheck; then
  : >"$OUT/memcheck.log"
  for tool in "memcheck 30-49" "racecheck 34"; do
    read -r name trials <<<"$tool"
    HAMLET_STENCIL_KERNEL=box OMP_NUM_THREADS=4 timeout 300 compute-sanitizer --tool "$name" --error-exitcode 9 \
      "$tests/test_stencil_free" cuda "$trials" >>"$OUT/memcheck.log" 2>&1
    code=$?
    echo "$name test_stencil_free cuda $trials: exit $code, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" | tail -1)"
    [ "$code" -eq 0 ] || status=1
  done
fi
models=("graphene 2048 2048 1" "wannier30 128 128 64")
if want bench; then
  for r in $(seq "$BENCH_ROUNDS"); do
    for m in "${models[@]}"; do
      read -r model nx ny nz <<<"$m"
      log="$OUT/bench_part.log"
      timeout 240 build-gpu/bench/bench_stencil --backend cuda --model "$model" --nx "$nx" --ny "$ny" --nz "$nz" \
        --R "${BENCH_R:-8,16,32}" --steps 20 --kernels "${BENCH_KERNELS:-small,box}" >"$log" 2>&1 || status=1
      { echo "=== round $r $model at $SECONDS s"; cat "$log"; } >>"$OUT/bench.log"
      grep -E "copy|^R = " "$log" | sed "s/^/round $r $model: /" | cut -c1-200
      rm -f "$log"
    done
  done
fi
if want ncu; then
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,launch__registers_per_thread,launch__occupancy_limit_shared_mem
  metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active,lts__t_bytes.sum,smsp__inst_executed_pipe_fp64.sum
  for m in "${models[@]}"; do
    read -r model nx ny nz <<<"$m"
    timeout 150 ncu --clock-control none -k "regex:stencil_box_kernel" -c 1 --metrics "$metrics" \
      build-gpu/bench/bench_stencil --backend cuda --model "$model" --nx "$nx" --ny "$ny" --nz "$nz" --R 32 --steps 2 \
      --kernels box >"$OUT/ncu_$model.log" 2>&1 || echo "ncu: exit $?"
    grep -E "__|launch" "$OUT/ncu_$model.log" | awk -v m="$model" '{print m, $1, $(NF-1), $NF}' | cut -c1-160
    if [ -n "${NCU_SECTIONS:-}" ]; then
      timeout 150 ncu --clock-control none -k "regex:stencil_box_kernel" -c 1 --section WarpStateStats \
        --section SchedulerStats --print-details all build-gpu/bench/bench_stencil --backend cuda --model "$model" \
        --nx "$nx" --ny "$ny" --nz "$nz" --R 32 --steps 2 --kernels box >"$OUT/ncu_sections_$model.log" 2>&1
      grep -iE "stall|Warp Cycles|Issued Ipc|Eligible|Active Warps" "$OUT/ncu_sections_$model.log" | cut -c1-300 | head -30
    fi
  done
fi
if want sweep; then
  for lattice in "500 500 1000 2 5" "200 100 40 1,2,4,8,16,32 20"; do
    read -r nx ny nz Rs steps <<<"$lattice"
    for item in ${SWEEP:-HAMLET_STENCIL_STAGED_CHUNK=24}; do
      env "$item" timeout 240 build-gpu/bench/bench_stencil --backend cuda --nx "$nx" --ny "$ny" --nz "$nz" --R "$Rs" \
        --steps "$steps" >"$OUT/sweep_part.log" 2>&1 || status=1
      cat "$OUT/sweep_part.log" >>"$OUT/sweep.log"
      grep -E "^R = " "$OUT/sweep_part.log" | sed "s/^/TI $nx x $ny x $nz, $item: /" | cut -c1-200
    done
  done
  rm -f "$OUT/sweep_part.log"
fi
if want gpu; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py OMP_NUM_THREADS=2 timeout 500 ctest -L gpu -j4 --timeout 300 \
    --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
fi
echo "done at $SECONDS s, status $status"
exit $status
