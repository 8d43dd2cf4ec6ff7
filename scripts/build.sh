#!/bin/bash
# Configure and build hamlet into ./build (Release, MPICH named explicitly).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B "${BUILD_DIR:-build}" -DCMAKE_BUILD_TYPE=Release \
  -DMPI_C_COMPILER=mpicc.mpich -DMPI_Fortran_COMPILER=mpifort.mpich \
  -DMPIEXEC_EXECUTABLE=/usr/bin/mpiexec.mpich "$@"
cmake --build "${BUILD_DIR:-build}" -j "$(nproc)"
