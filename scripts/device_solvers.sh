#!/bin/bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# On the lent GPU machine (the `device` tool, with `.debs` carried): build C + CUDA, run every GPU
# test (LOBPCG, IDR(s), dense, block kernels, KPM), compute-sanitizer memcheck on the solver GPU
# tests, the solver benchmarks next to their peers (CuPy, cuSOLVER) and a mixed CPU + GPU run.
#   run: bash scripts/device_solvers.sh [tests] [sanitize] [mixed] [e2e] [bench] [dense] [cpupeers] [fem] [unfused] [scalapack] [densegpu]
#        (none: tests sanitize mixed bench dense; carry: [".debs"])
# Logs go to $OUT/solver_logs.tgz. Keep the parts of one call inside its 10-minute limit.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
parts=" ${*:-tests sanitize mixed bench dense} "
want() { [[ $parts == *" $1 "* ]]; }
LOG=/tmp/solver_logs; rm -rf "$LOG"; mkdir -p "$LOG"   # everything, returned as one archive
trap 'tar czf "$OUT/solver_logs.tgz" -C /tmp solver_logs' EXIT
source scripts/device_unpack.sh .debs
if [ ! -x build-gpu/bin/hamlet ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
    >"$LOG/configure.log" 2>&1 || { tail -40 "$LOG/configure.log"; exit 1; }
fi
cmake --build build-gpu -j 16 >"$LOG/build.log" 2>&1 || { grep -E "error|Error" "$LOG/build.log" | head -40; exit 1; }
cd build-gpu || exit 1
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$LOG/gpu.txt"
if want tests; then
  ctest -L gpu --output-on-failure --timeout 300 2>&1 | tail -40 | tee "$LOG/ctest_gpu.log"
fi
if want sanitize; then
  for t in ${SANITIZE_TESTS:-test_mvec_block test_lobpcg_gpu test_idr_gpu test_dense_gpu}; do
    exe=$(find . -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || { echo "compute-sanitizer: no $t" | tee -a "$LOG/sanitizer.txt"; continue; }
    args=; case $t in test_mvec_block|test_mvec_internal) args=cuda ;; esac
    compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" $args >"$LOG/sanitizer_$t.log" 2>&1
    echo "compute-sanitizer memcheck $t: exit $?" | tee -a "$LOG/sanitizer.txt"
  done
  for t in ${RACECHECK_TESTS:-}; do # shared-memory reductions
    exe=$(find . -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || continue
    compute-sanitizer --tool racecheck --error-exitcode 9 "$exe" >"$LOG/racecheck_$t.log" 2>&1
    echo "compute-sanitizer racecheck $t: exit $?" | tee -a "$LOG/sanitizer.txt"
  done
  if [ -n "${SANITIZE_MPI2:-}" ]; then # two ranks on the GPU, the halo device to device (IPC) required
    exe=$(find . -name "$SANITIZE_MPI2" -type f -perm -u+x | head -1)
    HAMLET_HALO_PEER=1 timeout 280 $MPIEXEC -n 2 compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" \
      >"$LOG/sanitizer_mpi2_$SANITIZE_MPI2.log" 2>&1
    echo "compute-sanitizer memcheck 2 ranks $SANITIZE_MPI2 (IPC halo): exit $?" | tee -a "$LOG/sanitizer.txt"
  fi
fi
if want mixed; then
  # Mixed backend: rank 0 sees no GPU (CPU), rank 1 the GPU, GPU weight 4; moments equal a CPU run.
  sed -e 's/^backend = .*/backend = cpu/' ../inputs/ti_dos.ini > cpu.ini
  sed -e 's/^backend = .*/backend = mixed\ngpu_weight = 4/' ../inputs/ti_dos.ini > mixed.ini
  # shellcheck disable=SC2016 # the helper's text, expanded when it runs
  printf '#!/bin/bash\n[ "${PMI_RANK:-0}" = 0 ] && export CUDA_VISIBLE_DEVICES=\nexec "$@"\n' > hide_gpu_rank0.sh
  timeout 120 $MPIEXEC -n 2 ./bin/hamlet run cpu.ini -o cpu.h5 --quiet >/dev/null 2>&1
  timeout 120 $MPIEXEC -n 2 bash hide_gpu_rank0.sh ./bin/hamlet run mixed.ini -o mixed.h5 2>&1 | tee "$LOG/mixed.txt"
  ./bin/hamlet compare cpu.h5 mixed.h5 --rtol 1e-9 --atol 1e-11 --only /kpm/moments 2>&1 | tail -2 | tee -a "$LOG/mixed.txt"
  python3 -c "import h5py; f = h5py.File('mixed.h5'); print('mixed run backends:', f['/provenance'].attrs.get('backend'))" 2>&1 | tee -a "$LOG/mixed.txt"
fi
if want e2e; then
  # The default deck on 2 ranks with backend = cuda (both on the one GPU) against backend = cpu, at
  # E2E_VECTORS random vectors (32: the block copy, and the rows traversed in tiles cut for 32).
  v=${E2E_VECTORS:-32}
  sed -e 's/^backend = .*/backend = cpu/' -e "s/^vectors = [0-9]*/vectors = $v/" ../inputs/ti_dos.ini > cpu.ini
  sed -e 's/^backend = .*/backend = cuda/' -e "s/^vectors = [0-9]*/vectors = $v/" ../inputs/ti_dos.ini > cuda.ini
  timeout 120 $MPIEXEC -n 2 ./bin/hamlet run cpu.ini -o cpu.h5 --quiet >/dev/null 2>&1
  timeout 120 $MPIEXEC -n 2 ./bin/hamlet run cuda.ini -o cuda.h5 2>&1 | tail -8 | tee "$LOG/e2e.txt"
  ./bin/hamlet compare cpu.h5 cuda.h5 --only /kpm 2>&1 | tail -3 | tee -a "$LOG/e2e.txt"
fi
if want bench; then
  bash ../bench/peers/run_gpu_peers.sh . --out "$LOG/gpu_peers" 2>&1 | tee "$LOG/gpu_peers.txt" | tail -30
  ./bench/bench_idr --backend cuda --convdiff 172 --ti 200 100 40 --outer 100 2>&1 | tee "$LOG/bench_idr_gpu.txt" | tail -40
fi
if want cpupeers; then # CPU: hamlet's LOBPCG and IDR(s) next to SciPy and Eigen on the host's 16 cores
  bash ../bench/peers/run_cpu_peers.sh . --cores 16 --skip petsc,slepc --peer-iterations 30 --budget 230 \
    --out "$LOG/cpu_peers" 2>&1 | tee "$LOG/cpu_peers.txt" | tail -30
fi
if want fem; then # LOBPCG on the FEM pencil (10^6 unknowns) next to CuPy
  bash ../bench/peers/run_gpu_peers.sh . --parts fem --out "$LOG/gpu_peers_fem" 2>&1 | tee "$LOG/gpu_peers_fem.txt" | tail -12
fi
if want unfused; then # IDR(s): an unfused cuSPARSE + cuBLAS composition next to the fused solver, same run
  timeout 240 ./bench/bench_idr_unfused_gpu --convdiff 172 --ti 200 100 40 --outer 100 2>&1 | tee "$LOG/idr_unfused.txt" | tail -25
fi
if want scalapack; then # ScaLAPACK on the 16 host cores against LAPACK on one core (real, n = 4096)
  timeout 150 $MPIEXEC -n 16 ./bench/bench_dense --real 4096 2>&1 | tee "$LOG/bench_scalapack.txt" | tail -8
fi
if want densegpu; then # cuSOLVER at the large sizes, LAPACK skipped (hours there)
  timeout 240 $MPIEXEC -n 1 ./bench/bench_dense --gpu-only --real 16384 2>&1 | tee "$LOG/bench_dense_gpu_real.txt" | tail -4
  timeout 240 $MPIEXEC -n 1 ./bench/bench_dense --gpu-only --complex 8192 16384 2>&1 | tee "$LOG/bench_dense_gpu_complex.txt" | tail -8
fi
if want dense; then
  timeout 300 $MPIEXEC -n 1 ./bench/bench_dense 4096 8192 2>&1 | tee "$LOG/bench_dense.txt" | tail -30
fi
