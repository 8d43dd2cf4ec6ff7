#!/bin/bash
# On a lent machine with 2 GPUs (nvidia-h200-x2, `.debs` carried): build, run the GPU tests with
# one rank per GPU, and a weak-scaling run of the KPM (the TI lattice 200 x 100 x 40 per GPU).
#   run: bash scripts/device_scaling.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source scripts/device_unpack.sh .debs
nvidia-smi --query-gpu=name,memory.total --format=csv | tee "$OUT/gpu.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/configure.log" 2>&1 &&
  cmake --build build-gpu -j 32 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
(cd build-gpu && ctest -L gpu --output-on-failure 2>&1 | tail -8)
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
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
  OMP_NUM_THREADS=8 $MPIEXEC -n $P build-gpu/bin/hamlet run "$OUT/weak$P.ini" --quiet | tee "$OUT/weak$P.txt"
done
