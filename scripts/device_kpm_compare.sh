#!/usr/bin/env bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# On the lent GPU (`.debs` and build-base carried, build-base/src = `git archive COMMIT`): bench_kpm_gpu
# from that tree ("base") and from this one ("new"), alternating, on the TI lattice 200 x 100 x 40; the
# KPM table's rows for each R.   RS=8,16,24,32 REPS=2 bash scripts/device_kpm_compare.sh
set -uo pipefail
source scripts/device_unpack.sh .debs >/dev/null
configure() {
  [ -f "$2/build.ninja" ] || cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON \
    $HAMLET_DEVICE_CMAKE_FLAGS >/tmp/configure.log 2>&1 || { tail -30 /tmp/configure.log; exit 1; }
}
configure . build-gpu
configure build-base/src build-base/gpu
(cmake --build build-base/gpu -j 8 --target bench_kpm_gpu >/tmp/build-base.log 2>&1 || tail -30 /tmp/build-base.log) &
cmake --build build-gpu -j 8 --target bench_kpm_gpu >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
wait
rows="^ +($(tr ',' '|' <<<"${RS:-8,16,24,32,64}")) "
for rep in $(seq 1 "${REPS:-2}"); do
  for tree in base:build-base/gpu new:build-gpu; do
    echo "== ${tree%%:*} (run $rep)"
    "${tree#*:}"/bench/bench_kpm_gpu --R "${RS:-8,16,24,32,64}" --steps "${STEPS:-20}" | grep -E "$rows|MISMATCH|FAIL|rror"
  done
done
