#!/bin/bash
# (Session 33 removed the staged kernel's variants: this script runs as written only on main at
# 7a30c20, the commit bench/RESULTS.md names for it; scripts/device_session33.sh is its successor.)
# Issue 27, session 32, on the lent GPU machine (`.debs` carried): the staged TI kernel
# (gpu/stencil_staged_cuda.cu, chosen by HAMLET_STENCIL_KERNEL=staged), in parts chosen by STEPS:
#   check     test_stencil_free cuda with the variable set on 1 and 2 ranks (its TI-shaped trials
#             50-55 take the staged kernel at 1..16 vectors), test_stencil_real cuda on 2 ranks
#             (trials 24-27: the real arithmetic); HAMLET_TEST_REQUIRE=gpu (a skip fails);
#   memcheck  compute-sanitizer memcheck (trials 50-55) and racecheck (shared memory, the cp.async
#             ring; trials 50-51) of test_stencil_free cuda on 1 rank;
#   bench     bench_stencil, the TI 200 x 100 x 40 at R = 2, 4, 8, 16 and 500 x 500 x 1000 at R = 2,
#             the automatic choice (the per-site kernel) and staged, each line with its ratio to the
#             floor 48 R N / copy bandwidth of the same run; then one launch of each kernel at R = 2
#             on 200 x 100 x 40 under ncu (time, DRAM and L2 bytes, L1 wavefronts): the traffic count;
#             and the staged kernel's chunking (HAMLET_STENCIL_STAGED_BLOCKS 512, 2048, 4096; 1024 default).
# Logs under $OUT, a summary line per step on stdout. About 4-5 minutes with the build.
#   run: STEPS="check memcheck bench" bash scripts/device_staged32.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck bench}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra # the carried MPICH
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target test_stencil_free test_stencil_real bench_stencil >"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "built at $SECONDS s"
status=0
tests=build-gpu/linalg/tests
run_test() { # run_test NAME RANKS LIMIT EXE [ARGS...]: the staged kernel chosen
  local name=$1 ranks=$2 limit=$3; shift 3
  env HAMLET_STENCIL_KERNEL=staged HAMLET_TEST_REQUIRE=gpu HAMLET_TEST_PROGRESS=1 OMP_NUM_THREADS=4 timeout "$limit" \
    "$MPIEXEC" -n "$ranks" "$@" >"$OUT/check_$name.log" 2>&1
  local code=$?
  echo "$name: exit $code at $SECONDS s; $(grep -cE "done at" "$OUT/check_$name.log") trials reported"
  grep -m 5 -E "FAIL|HAMLET_TEST_SEED|error" "$OUT/check_$name.log"
  [ "$code" -eq 0 ] || status=1
}
if want check; then
  run_test free_np1 1 240 "$tests/test_stencil_free" cuda
  run_test free_np2 2 300 "$tests/test_stencil_free" cuda
  run_test real_np2 2 200 "$tests/test_stencil_real" cuda
  # the tests pass on the fallback too: does the staged kernel run in them? (trial 50, one launch)
  HAMLET_STENCIL_KERNEL=staged timeout 60 ncu -k "regex:stencil_staged_kernel" -c 1 --metrics gpu__time_duration.sum \
    "$tests/test_stencil_free" cuda 50 >"$OUT/check_launched.log" 2>&1
  echo "staged kernel launched by test_stencil_free: $(grep -c "stencil_staged_kernel" "$OUT/check_launched.log") line(s)"
  grep -q "stencil_staged_kernel" "$OUT/check_launched.log" || status=1
fi
if want memcheck; then
  for check in "memcheck 50-55" "racecheck 50-51"; do # racecheck follows every shared access: fewer trials
    read -r tool trials <<<"$check"
    HAMLET_STENCIL_KERNEL=staged OMP_NUM_THREADS=4 timeout 150 compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$tests/test_stencil_free" cuda "$trials" >"$OUT/${tool}_staged.log" 2>&1
    code=$?
    echo "$tool staged kernel, 1 rank, trials $trials: exit $code at $SECONDS s, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/${tool}_staged.log" | tr '\n' ' ')"
    [ "$code" -eq 0 ] || { status=1; grep -m 8 -E "Invalid|hazard|at .*stencil.*:[0-9]+" "$OUT/${tool}_staged.log"; }
  done
fi
if want bench; then
  bench=build-gpu/bench/bench_stencil
  for lattice in "200 100 40 2,4,8,16 20" "500 500 1000 2 5"; do
    read -r nx ny nz Rs steps <<<"$lattice"
    for kernel in auto staged; do # auto: the variable empty, as unset (the per-site kernel below R = 32)
      log="$OUT/bench_${nx}x${ny}x${nz}_$kernel.log"
      HAMLET_STENCIL_KERNEL=$([ "$kernel" = staged ] && echo staged) timeout 120 "$bench" --backend cuda \
        --nx "$nx" --ny "$ny" --nz "$nz" --R "$Rs" --steps "$steps" >"$log" 2>&1 || status=1
      grep -E "^R = " "$log" | sed "s/^/TI $nx x $ny x $nz $kernel: /"
    done
  done
  for blocks in 512 2048 4096; do # the chunking: fewer, longer chunks against more blocks (default 1024)
    log="$OUT/bench_200x100x40_staged_blocks$blocks.log"
    HAMLET_STENCIL_KERNEL=staged HAMLET_STENCIL_STAGED_BLOCKS=$blocks timeout 60 "$bench" --backend cuda \
      --nx 200 --ny 100 --nz 40 --R 2,8 --steps 20 >"$log" 2>&1 || status=1
    grep -E "^R = " "$log" | sed "s/^/TI 200 x 100 x 40 staged, $blocks blocks: /"
  done
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
  metrics=$metrics,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_lg_cmd_read.sum
  metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed.sum
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
  for kernel in site staged; do # one KPM step of each kernel at R = 2, after 3 launches
    HAMLET_STENCIL_KERNEL=$kernel timeout 120 ncu --clock-control none -k "regex:stencil_(site|staged)_kernel" -s 3 -c 1 \
      --metrics "$metrics" "$bench" --backend cuda --nx 200 --ny 100 --nz 40 --R 2 --steps 5 >"$OUT/ncu_$kernel.log" 2>&1 ||
      echo "ncu $kernel: exit $?"
    echo "ncu $kernel R = 2: $(grep -E "^ +[a-z].*__" "$OUT/ncu_$kernel.log" | awk '{print $1, $(NF-1), $NF}' | tr '\n' ';')"
  done
fi
echo "done at $SECONDS s, status $status"
exit $status
