#!/bin/bash
# Sourced by scripts/device_*.sh on the GPU machine after device_unpack.sh: build_tree SRC DIR TARGETS...
# configures DIR from the source tree SRC once (CUDA on, Release, $HAMLET_DEVICE_CMAKE_FLAGS), then
# builds TARGETS, its log in $OUT/build_<dir>.log; returns 1 (with the errors) where either fails. Two
# trees side by side (this one and an archived main) give A/B timings on one machine.
build_tree() {
  local src=$1 dir=$2; shift 2
  local log
  log="$OUT/build_$(basename "$dir").log"
  if [ ! -f "$dir/CMakeCache.txt" ]; then
    # shellcheck disable=SC2086 # the flag list splits into words on purpose
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
      >"$log" 2>&1 || { tail -20 "$log"; return 1; }
  fi
  cmake --build "$dir" -j "$(nproc)" --target "$@" >>"$log" 2>&1 || { grep -E "error|Error" "$log" | head -20; return 1; }
  echo "built $dir at $SECONDS s"
}
