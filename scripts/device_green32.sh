#!/bin/bash
# Issue 29, session 32, one GPU (`.debs` carried): which method for many energies, from the app
# (bench/multishift_green.sh: multi-shift IDR(s), the per-energy batches and KPM's Lorentz LDOS, each
# timed, each against the exact spectral sum of a 6 x 6 x 4 TI), on the GPU (TI 40 x 40 x 16; and KPM
# alone on the 3.2e6-orbital 200 x 100 x 40, whose multi-shift and per-energy runs bench_multishift
# times: scripts/device_multishift32.sh large) and on the host's 16 cores (TI 16 x 16 x 10, 2 ranks
# x 8 threads). Logs in $OUT (3 files).
#   run: bash scripts/device_green32.sh
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
export MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
status=0
table() { # table NAME ENV...
  local name=$1; shift
  env "$@" timeout 400 bash bench/multishift_green.sh build-gpu/bin/hamlet >"$OUT/green_$name.txt" 2>&1 || status=1
  echo "== $name ($*)"; tail -12 "$OUT/green_$name.txt"
}
table gpu NX=40 NY=40 NZ=16 BACKEND=cuda RANKS=1 BW=4150 OMP_NUM_THREADS=16
table gpu_large_kpm NX=200 NY=100 NZ=40 BACKEND=cuda RANKS=1 BW=4150 LARGE_METHODS=kpm OMP_NUM_THREADS=16
table cpu NX=16 NY=16 NZ=10 BACKEND=cpu RANKS=2 BW=40 OMP_NUM_THREADS=8
echo "done at $SECONDS s, status $status"
exit $status
