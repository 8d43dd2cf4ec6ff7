#!/bin/bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# Sourced by the device scripts for a before/after in one session: where build-base/src holds an
# older source tree (`git archive COMMIT | tar -x -C build-base/src`, carried), build its program
# into build-base/gpu and add it to the array `apps` as base:PATH (logs into $OUT). Without that
# tree, apps stays as it is.
add_base_app() {
  [ -d build-base/src ] || return 0
  cmake -S build-base/src -B build-base/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON \
    $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/configure-base.log" 2>&1 &&
    cmake --build build-base/gpu -j "$(nproc)" --target hamlet_app >"$OUT/build-base.log" 2>&1 &&
    apps+=(base:build-base/gpu/bin/hamlet) || tail -20 "$OUT/build-base.log"
}
