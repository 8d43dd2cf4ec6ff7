#!/bin/bash
# Sourced by the scripts/device_*.sh runs on the GPU machine (`.debs` carried): unpack the carried
# Debian packages, print the GPU, and build the CUDA tree in build-gpu (logs under $OUT); stops the
# calling script where configure or build fails.
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "built at $SECONDS s"
