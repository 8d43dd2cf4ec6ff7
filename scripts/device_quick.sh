#!/usr/bin/env bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# A quick experiment on the lent GPU machine: configure build-gpu where the machine is fresh, build
# the named targets, then run the rest of the arguments as a command in build-gpu.
#   bash scripts/device_quick.sh "bench_kpm_gpu test_block_cuda" ./bench/bench_kpm_gpu --R 32
set -uo pipefail
targets=$1
shift
source scripts/device_unpack.sh .debs >/dev/null
if [ ! -f build-gpu/build.ninja ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
    >/tmp/configure.log 2>&1 || { tail -40 /tmp/configure.log; exit 1; }
fi
cmake --build build-gpu -j 16 --target $targets >/tmp/build.log 2>&1 || { grep -E "error|Error" /tmp/build.log | head -40; exit 1; }
cd build-gpu && "$@"
