#!/bin/bash
# (Session 33 removed the staged kernel's variants: this script runs as written only on main at
# 8c38a21, the commit bench/RESULTS.md names for it; scripts/device_session33.sh is its successor.)
# Issue 27, session 32 (second pass), on the lent GPU machine (`.debs` carried): the staged TI kernel's
# variants (gpu/stencil_staged_cuda.cu, HAMLET_STENCIL_STAGED_VARIANT with HAMLET_STENCIL_KERNEL=staged):
#   s4       the 4-slab ring, 7 directions unrolled (the default before s3c measured faster);
#   s3       a 3-slab ring, the slab below in registers: 3 blocks per SM at R = 1, 2, 2 at R = 8, 16;
#   s5       a 5-slab ring, two slabs in flight (R = 1, and 2 real; elsewhere s4 runs);
#   rolled   the 4-slab ring with the direction loop not unrolled (fewer registers);
#   cblocks  s4 with the summed blocks in the constant bank (no shared load per entry);
#   s3c      s3 with the directions unrolled and the blocks in the constant bank.
# Parts chosen by STEPS:
#   check     test_stencil_free cuda, trials 50-55 (the TI-shaped ones the staged kernel serves, at
#             1..16 vectors), per variant on 1 rank and the default on 2 ranks, one thread block per
#             tile (HAMLET_STENCIL_STAGED_BLOCKS=1: the ring turns over every slab of a run); and
#             test_stencil_real cuda (its trials 24-27, real arithmetic) per variant with 3 blocks;
#             HAMLET_TEST_REQUIRE=gpu (a skip fails);
#   memcheck  compute-sanitizer memcheck of each new variant (trials 50-52), racecheck of s3 and s5 (trial 50);
#   bench     bench_stencil, the TI 200 x 100 x 40 at R = 1, 2, 4, 8, 16 and 500 x 500 x 1000 at R = 2,
#             the per-site kernel (site), then the staged kernel's variants, each line with its ratio to
#             the floor 48 R N / copy bandwidth measured in the same run.
#             (bench_stencil --kernels: one process per lattice measures them all, after one setup);
#             then one R = 2 launch of each under ncu and the SASS instruction classes of each
#             variant's R = 2 complex KPM kernel (cuobjdump of the object built there).
# Logs under $OUT (8 files: gpu.txt build.log check.log memcheck.log bench.log ncu.log sass.log
# summary.txt); a line per step on stdout and one summary line per (lattice, R, kernel). About 5-6
# minutes with the build.
#   run: STEPS="check memcheck bench" bash scripts/device_staged32b.sh
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
  >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" --target test_stencil_free test_stencil_real bench_stencil >>"$OUT/build.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "built at $SECONDS s"
status=0
tests=build-gpu/linalg/tests
variants="s4 s3 s5 rolled cblocks s3c"
run_test() { # run_test VARIANT BLOCKS RANKS LIMIT EXE [ARGS...]: the staged kernel chosen, logged into check.log
  local variant=$1 blocks=$2 ranks=$3 limit=$4 name
  name=$(basename "$5")
  shift 4
  local log="$OUT/check_part.log"
  env HAMLET_STENCIL_KERNEL=staged HAMLET_STENCIL_STAGED_VARIANT="$variant" HAMLET_STENCIL_STAGED_BLOCKS="$blocks" \
    HAMLET_TEST_REQUIRE=gpu HAMLET_TEST_PROGRESS=1 OMP_NUM_THREADS=4 timeout "$limit" \
    "$MPIEXEC" -n "$ranks" "$@" >"$log" 2>&1
  local code=$?
  local line
  line="$name $variant, $ranks rank(s), blocks $blocks: exit $code at $SECONDS s; $(grep -cE "done at" "$log") trials reported"
  { echo "=== $line"; cat "$log"; } >>"$OUT/check.log"
  echo "$line"
  grep -m 5 -E "FAIL|HAMLET_TEST_SEED|error" "$log"
  [ "$code" -eq 0 ] || status=1
  rm -f "$log"
}
if want check; then
  for variant in $variants; do
    run_test "$variant" 1 1 120 "$tests/test_stencil_free" cuda 50-55
  done
  run_test s3c 1 2 150 "$tests/test_stencil_free" cuda 50-55
  for variant in $variants; do
    run_test "$variant" 3 1 120 "$tests/test_stencil_real" cuda
  done
fi
if want memcheck; then
  # memcheck each new variant; racecheck (it follows every shared access: one trial) where the ring's
  # barriers changed (s3: the results through the plane's slot; s5: two copies in flight)
  for check in "memcheck s3 50-52" "memcheck s5 50-52" "memcheck rolled 50-52" "memcheck cblocks 50-52" \
    "memcheck s3c 50-52" "racecheck s3 50" "racecheck s5 50"; do
    read -r tool variant trials <<<"$check"
    log="$OUT/memcheck_part.log"
    HAMLET_STENCIL_KERNEL=staged HAMLET_STENCIL_STAGED_VARIANT=$variant HAMLET_STENCIL_STAGED_BLOCKS=1 OMP_NUM_THREADS=4 \
      timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$tests/test_stencil_free" cuda "$trials" >"$log" 2>&1
    code=$?
    line="$tool $variant, 1 rank, trials $trials: exit $code at $SECONDS s, $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$log" | tr '\n' ' ')"
    { echo "=== $line"; cat "$log"; } >>"$OUT/memcheck.log"
    echo "$line"
    [ "$code" -eq 0 ] || { status=1; grep -m 8 -E "Invalid|hazard|at .*stencil.*:[0-9]+" "$log"; }
    rm -f "$log"
  done
fi
if want bench; then
  bench=build-gpu/bench/bench_stencil
  kernels=site,staged:s4,staged:s3,staged:s5,staged:rolled,staged:cblocks,staged:s3c # s5: at R = 1 only (complex)
  for lattice in "200 100 40 1,2,4,8,16 20" "500 500 1000 2 5"; do
    read -r nx ny nz Rs steps <<<"$lattice"
    log="$OUT/bench_part.log" # one process: one setup of the lattice for every kernel
    timeout 240 "$bench" --backend cuda --nx "$nx" --ny "$ny" --nz "$nz" --R "$Rs" --steps "$steps" \
      --kernels "$kernels" >"$log" 2>&1 || status=1
    { echo "=== $nx x $ny x $nz at $SECONDS s"; cat "$log"; } >>"$OUT/bench.log"
    grep -E "^R = " "$log" | sed "s/^/TI $nx x $ny x $nz: /" | tee -a "$OUT/summary.txt"
    rm -f "$log"
  done
  # one KPM launch of each kernel at R = 2 under ncu (the last of 3 per kernel): time, DRAM bytes,
  # warp instructions, active warps, shared wavefronts, local (spill) sectors
  metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
  metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  metrics=$metrics,l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum,launch__registers_per_thread,launch__occupancy_limit_shared_mem
  timeout 150 ncu --clock-control none -k "regex:stencil_(site|staged)_kernel" -c 21 --metrics "$metrics" \
    "$bench" --backend cuda --nx 200 --ny 100 --nz 40 --R 2 --steps 2 --kernels "$kernels" >"$OUT/ncu.log" 2>&1 ||
    echo "ncu: exit $?"
  awk '/stencil_(site|staged)_kernel/ { match($0, /stencil_(site|staged)_kernel(<[^>]*>)?/); name = substr($0, RSTART, RLENGTH)
                                         gsub(/ /, "", name); line[name] = ""; next }
       name != "" && /__/ { line[name] = line[name] " " $1 " " $(NF); }
       END { for (n in line) print "ncu R = 2 " n ":" line[n] }' "$OUT/ncu.log" | sort | tee -a "$OUT/summary.txt"
  # instruction classes of the R = 2 complex KPM kernels (the sm_90 code built here)
  object=$(find build-gpu -name "stencil_staged_cuda.cu.o" | head -1)
  if command -v cuobjdump >/dev/null && [ -n "$object" ]; then
    cuobjdump --dump-sass "$object" >"$OUT/sass.log" 2>&1
    awk '/Function : / { name = $3; next }
         name ~ /Lb1ELb1ELi2E/ && /\/\*[0-9a-f]{4}\*\// { op = $2; if (op ~ /^@/) op = $3; sub(/\..*/, "", op); n[name]++; c[name, op]++ }
         END { for (k in n) printf "sass %s: %d instructions, DFMA %d, LDS %d, STL %d, LDL %d, BRA %d, BAR %d, LDGSTS %d\n",
               k, n[k], c[k, "DFMA"], c[k, "LDS"], c[k, "STL"], c[k, "LDL"], c[k, "BRA"], c[k, "BAR"], c[k, "LDGSTS"] }' \
      "$OUT/sass.log" | tee -a "$OUT/summary.txt"
  fi
fi
echo "done at $SECONDS s, status $status" | tee -a "$OUT/summary.txt"
exit $status
