#!/bin/bash
# On a lent machine with 2 GPUs (nvidia-h200-x2, `.debs` carried): build, run the GPU tests on one
# and two ranks (one rank per GPU), a weak-scaling run of the KPM (the TI lattice 200 x 100 x 40 per
# GPU) with the halo device to device and, for comparison, through host buffers, and the dense
# cusolverMg benchmark (2 GPUs against one).
#   run: bash scripts/device_scaling.sh [tests] [weak] [mg]   (none: all three)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
parts=" ${*:-tests weak mg} "
want() { [[ $parts == *" $1 "* ]]; }
source scripts/device_unpack.sh .debs
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
nvidia-smi topo -m | tee "$OUT/topo.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON \
  $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/configure.log" 2>&1 &&
  cmake --build build-gpu -j 32 --target hamlet_app test_kpm_gpu test_lobpcg_gpu test_idr_gpu bench_dense_mg \
    >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
if want tests; then
  (cd build-gpu && ctest -R 'test_(kpm|lobpcg|idr)_gpu' --output-on-failure --timeout 200 2>&1 | tail -12)
fi
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
if want weak; then
  for P in 1 2; do
    cat > "$OUT/weak$P.ini" <<INI
[run]
backend = cuda
output = $OUT/weak$P.h5
[hamiltonian]
model = ti
nx = 200
ny = 100
nz = $((40 * P))
boundary = periodic periodic periodic
[kpm]
moments = 200
vectors = 32
INI
    for mode in 1 0; do # the halo device to device, then through page-locked host buffers
      [ $P = 1 ] && [ $mode = 0 ] && continue
      echo "== $P GPU(s), HAMLET_HALO_PEER=$mode"
      HAMLET_HALO_PEER=$mode OMP_NUM_THREADS=8 $MPIEXEC -n $P build-gpu/bin/hamlet run "$OUT/weak$P.ini" --quiet |
        tee "$OUT/weak${P}_peer$mode.txt" | tail -12
    done
  done
fi
if want mg; then
  exe=$(find build-gpu -name bench_dense_mg -type f | head -1)
  timeout 280 "$exe" --real 8192 16384 2>&1 | tee "$OUT/dense_mg_real.txt" | grep -v '^# '
  timeout 280 "$exe" --complex 8192 16384 2>&1 | tee "$OUT/dense_mg_complex.txt" | grep -v '^# '
fi
