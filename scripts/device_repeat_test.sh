#!/usr/bin/env bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# On the lent GPU (`.debs` carried): one test program run N times with fresh seeds, from this tree and,
# where build-base/src holds another tree (`git archive COMMIT | tar -x -C build-base/src`, carried),
# from that one too; prints each failure's seed and FAIL lines, then the counts. Finds flaky tests.
#   TEST=test_block_cuda N=40 bash scripts/device_repeat_test.sh
set -uo pipefail
test=${TEST:-test_block_cuda}
runs=${N:-40}
source scripts/device_unpack.sh .debs >/dev/null
configure() {
  [ -f "$2/build.ninja" ] || cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON \
    $HAMLET_DEVICE_CMAKE_FLAGS >/tmp/configure.log 2>&1 || { tail -30 /tmp/configure.log; exit 1; }
}
trees=(new:build-gpu)
configure . build-gpu
cmake --build build-gpu -j 16 --target "$test" >/tmp/build.log 2>&1 || { grep -E "error" /tmp/build.log | head; exit 1; }
if [ -d build-base/src ]; then
  configure build-base/src build-base/gpu
  cmake --build build-base/gpu -j 16 --target "$test" >/tmp/build-base.log 2>&1 && trees+=(base:build-base/gpu)
fi
for tree in "${trees[@]}"; do
  exe=$(find "${tree#*:}" -name "$test" -type f -perm -u+x | head -1)
  fails=0
  for _ in $(seq 1 "$runs"); do
    "$exe" >/tmp/repeat.log 2>&1 || { fails=$((fails + 1)); grep -E "SEED|FAIL" /tmp/repeat.log | head -5; }
  done
  echo "== ${tree%%:*}: $test failed $fails of $runs runs"
done
