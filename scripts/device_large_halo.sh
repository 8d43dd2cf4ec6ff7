#!/bin/bash
# On the GPU machine's host (no GPU needed; ~65 GiB, a few minutes): one halo message of more than
# 2^31 doubles on 2 ranks (linalg/tests/large_halo.c), checked against the exact sums.
#   run: bash scripts/device_large_halo.sh        (carry: [".debs"])
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck disable=SC1091 # unpacks the carried .debs; read it there
source scripts/device_unpack.sh .debs
# shellcheck disable=SC2086 # the flags are several words
cmake -S . -B build-large -G Ninja -DCMAKE_BUILD_TYPE=Release $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-large -j 16 --target large_halo >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
free -g | tee "$OUT/memory.txt"
exe=$(find build-large -name large_halo -type f -perm -u+x | head -1)
OMP_NUM_THREADS=8 /usr/bin/time -v /opt/deps/usr/bin/mpiexec.hydra -n 2 "$exe" 17000000 2>&1 | tee "$OUT/large_halo.txt"
status=${PIPESTATUS[0]}
echo "large_halo: exit $status" | tee -a "$OUT/large_halo.txt"
exit "$status"
