#!/bin/bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# Per-kernel profile of GPU IDR(s) on the lent GPU machine (`.debs` carried): bench_idr at the given
# s on the convection-diffusion matrix (and a tiny TI lattice), then Nsight Compute's per-kernel
# summary (time, DRAM bytes) of a short run of the same.
#   run: S=1,2 bash scripts/device_idr_profile.sh      (build-gpu is configured if needed)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source scripts/device_unpack.sh .debs
if [ ! -f build-gpu/CMakeCache.txt ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
    >"$OUT/configure_idr.log" 2>&1 || { tail -40 "$OUT/configure_idr.log"; exit 1; }
fi
cmake --build build-gpu -j 16 --target bench_idr >"$OUT/build_idr.log" 2>&1 ||
  { grep -E "error|Error" "$OUT/build_idr.log" | head -40; exit 1; }
cd build-gpu || exit 1
S=${S:-1,2}
./bench/bench_idr --backend cuda --convdiff 172 --ti ${TI:-200 100 40} --outer 100 --s "$S" --batch-outer 0 \
  | tee "$OUT/bench_idr_s.txt"
for s in ${S//,/ }; do
  ncu --print-summary per-kernel --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    ./bench/bench_idr --backend cuda --convdiff 172 --ti 2 2 2 --outer 4 --s $s --batch-outer 0 --copy-mib 64 \
    > "$OUT/ncu_idr_s$s.txt" 2>&1
  echo "ncu s=$s exit $?"
  grep -E "^  [a-zA-Z_].*\(|gpu__time_duration.sum|dram__bytes_(read|write).sum" "$OUT/ncu_idr_s$s.txt" | head -80
done
