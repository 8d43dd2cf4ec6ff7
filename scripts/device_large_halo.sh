#!/bin/bash
# On the GPU machine's host (no GPU needed; ~65 GiB, a few minutes): the 64-bit count checks of
# scripts/device_large_common.sh (a halo message of more than 2^31 doubles, a gather of more than
# 2^31 entries), on 2 ranks, checked against exact values.
#   run: bash scripts/device_large_halo.sh        (carry: [".debs"])
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck disable=SC1091 # unpacks the carried .debs; read it there
source scripts/device_unpack.sh .debs
# shellcheck source=scripts/device_large_common.sh
source scripts/device_large_common.sh
# shellcheck disable=SC2086 # the flags are several words
cmake -S . -B build-large -G Ninja -DCMAKE_BUILD_TYPE=Release $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-large -j 16 --target large_halo large_gather >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
run_large_checks build-large "$OUT"
status=$?
echo "device_large_halo: exit $status"
exit "$status"
