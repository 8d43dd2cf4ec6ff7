#!/bin/bash
# Issue 27, session 33, one GPU (`.debs` and `.device` carried): the staged TI kernel with the TI's
# entry kinds compiled in and its copy addresses planned once per thread, against main before it.
#   check     build build-gpu (this tree); the stencil GPU tests (ctest -L gpu -R stencil), then
#             test_stencil_free cuda trials 50-57 with one thread block per tile on 2 ranks
#   memcheck  compute-sanitizer memcheck of test_stencil_free cuda 50-57 (the TI-kinded trials 56, 57
#             included), racecheck of trial 56
#   ab        build-gpu-old from .device/old.tar (`git archive <main before> -o .device/old.tar`) and
#             bench_stencil TI 200 x 100 x 40 at R = 1..16 and 500 x 500 x 1000 (N = 10^9) at R = 2:
#             old staged (s3c) / new staged (TI kinds) / new staged:generic (NEW_KERNELS), AB_ROUNDS times
#   ncu       one R = 2 KPM launch of the new kernel, both paths: time, DRAM bytes, warp instructions,
#             occupancy, local (spill) sectors; SASS instruction classes of the R = 2 KPM kernels
#   gpu       every GPU test (ctest -L gpu, a skip fails)
# (The CPU step on the host's cores: scripts/device_cpukinds.sh.)
# Logs in $OUT (at most 8 files come back); a summary on stdout.
#   run: STEPS="check memcheck ab ncu" bash scripts/device_session33.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-check memcheck ab ncu}
AB_ROUNDS=${AB_ROUNDS:-2}
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
if want check; then
  (cd build-gpu && timeout 400 ctest -L gpu -R stencil -j4 --output-on-failure >"$OUT/ctest.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Timeout|Not Run" "$OUT/ctest.log" | head -10
  mpiexec=$(grep -E "^MPIEXEC_EXECUTABLE:" build-gpu/CMakeCache.txt | cut -d= -f2)
  HAMLET_STENCIL_STAGED_BLOCKS=1 OMP_NUM_THREADS=4 timeout 200 "$mpiexec" -n 2 "$tests/test_stencil_free" cuda 50-57 \
    >"$OUT/check2.log" 2>&1
  echo "test_stencil_free cuda 50-57, 2 ranks, one block per tile: exit $?"
fi
if want memcheck; then
  : >"$OUT/memcheck.log"
  for tool in "memcheck 50-57" "racecheck 56"; do
    read -r name trials <<<"$tool"
    OMP_NUM_THREADS=4 timeout 300 compute-sanitizer --tool "$name" --error-exitcode 9 "$tests/test_stencil_free" cuda \
      "$trials" >>"$OUT/memcheck.log" 2>&1
    code=$?
    echo "$name test_stencil_free cuda $trials: exit $code, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/memcheck.log" | tail -1)"
    [ "$code" -eq 0 ] || status=1
  done
fi
if want ab; then
  mkdir -p old-src && tar -xf .device/old.tar -C old-src && build_tree old-src build-gpu-old bench_stencil || exit 1
  for r in $(seq "$AB_ROUNDS"); do
    for lattice in "200 100 40 ${AB_R:-1,2,4,8,16,32} 20" "500 500 1000 2 5"; do
      read -r nx ny nz Rs steps <<<"$lattice"
      for v in old ${NEW_ENVS:-new}; do # NEW_ENVS: VAR=VALUE items, each a run of the new build with it set
        dir=build-gpu kernels=${NEW_KERNELS:-staged,staged:generic}
        [ "$v" = old ] && dir=build-gpu-old kernels=staged
        log="$OUT/bench_part.log"
        case $v in *=*) export "${v?}" ;; esac
        timeout 240 "$dir/bench/bench_stencil" --backend cuda --nx "$nx" --ny "$ny" --nz "$nz" --R "$Rs" \
          --steps "$steps" --kernels "$kernels" >"$log" 2>&1 || status=1
        { echo "=== round $r $v $nx x $ny x $nz at $SECONDS s"; cat "$log"; } >>"$OUT/bench.log"
        grep -E "copy|^R = " "$log" | sed "s/^/round $r $v TI $nx x $ny x $nz: /" | cut -c1-200
        rm -f "$log"
        case $v in *=*) unset "${v%%=*}" ;; esac
      done
    done
  done
fi
if want ncu; then
  bench=build-gpu/bench/bench_stencil
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,launch__registers_per_thread,launch__occupancy_limit_shared_mem
  metrics=$metrics,smsp__issue_active.avg.pct_of_peak_sustained_active
  if [ -n "${NCU_SECTIONS:-}" ]; then # the opcode mix and the warp stalls of one R = $NCU_R launch per kernel
    for k in ${NCU_KERNELS:-staged}; do
      timeout 150 ncu --clock-control none -k "regex:stencil_staged_kernel" -s 2 -c 1 --section InstructionStats \
        --section WarpStateStats --section SchedulerStats --print-details all --metrics sass__inst_executed_per_opcode \
        --print-metric-instances values "$bench" --backend cuda --nx 200 --ny 100 --nz 40 --R "${NCU_R:-2}" \
        --steps 2 --kernels "$k" >"$OUT/ncu_sections_$k.log" 2>&1 || echo "ncu sections: exit $?"
      grep -iE "opcode|stall|Warp Cycles|Issued Ipc|Executed Ipc|Eligible|Active Warps" "$OUT/ncu_sections_$k.log" | cut -c1-400 | head -40
    done
  fi
  timeout 150 ncu --clock-control none -k "regex:stencil_staged_kernel" -c 6 --metrics "$metrics" \
    "$bench" --backend cuda --nx 200 --ny 100 --nz 40 --R 2 --steps 2 --kernels "${NCU_KERNELS:-staged,staged:generic}" >"$OUT/ncu.log" 2>&1 ||
    echo "ncu: exit $?"
  grep -E "stencil_staged_kernel|__" "$OUT/ncu.log" | sed -E 's/.*stencil_staged_kernel<([^>]*)>.*/kernel <\1>/' |
    awk '{print $1, $NF}' | paste -sd' ' | sed 's/kernel /\n/g' | tail -n +2 | cut -c1-400
  object=$(find build-gpu -name "stencil_staged_cuda.cu.o" | head -1)
  if command -v cuobjdump >/dev/null && [ -n "$object" ]; then
    cuobjdump --dump-sass "$object" >"$OUT/sass.log" 2>&1
    awk '/Function : / { name = $3; next }
         name ~ /Lb1ELb1ELi2E/ && /\/\*[0-9a-f]{4}\*\// { op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op); n[name]++; c[name, op]++ }
         END { for (k in n) printf "sass %s: %d instructions, DFMA %d, LDS %d, STL %d, LDL %d, BRA %d, BAR %d, LDGSTS %d\n",
               k, n[k], c[k, "DFMA"], c[k, "LDS"], c[k, "STL"], c[k, "LDL"], c[k, "BRA"], c[k, "BAR"], c[k, "LDGSTS"] }' \
      "$OUT/sass.log" | sed 's/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*stencil_cuda_cu_[0-9a-f]*//' | cut -c1-220
  fi
fi
if want gpu; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu,h5py OMP_NUM_THREADS=2 timeout 500 ctest -L gpu -j4 --timeout 300 \
    --output-on-failure >"$OUT/ctest_gpu.log" 2>&1) || status=1
  grep -E "tests passed|\(Failed\)|Skipped|Not Run|Timeout" "$OUT/ctest_gpu.log" | head -20
fi
echo "done at $SECONDS s, status $status"
exit $status
