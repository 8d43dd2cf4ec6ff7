#!/bin/bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# On the lent H100 (`.debs` carried): the large-lattice deck's phases (336 x 200 x 100, R = 32,
# 20 moments, 16 threads), from this tree and, where build-base/src holds an older tree (see
# device_base_app.sh), from that one too, in one session: how long the build, bounds and moments
# phases take on the host side of a GPU run.
#   run: bash scripts/device_build_time.sh   (after a build of build-gpu, e.g. device_solvers.sh tests)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source scripts/device_unpack.sh .debs >/dev/null
if [ ! -f build-gpu/build.ninja ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
    >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
fi
cmake --build build-gpu -j 16 --target hamlet_app >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
source scripts/device_base_app.sh
apps=(new:build-gpu/bin/hamlet)
add_base_app
sed -e 's/^backend = .*/backend = cuda/' -e 's/^vectors = [0-9]*/vectors = 32/' -e 's/^moments = [0-9]*/moments = 20/' \
  -e 's/^nx = .*/nx = 336/' -e 's/^ny = .*/ny = 200/' -e 's/^nz = .*/nz = 100/' \
  -e 's/^boundary = .*/boundary = periodic periodic periodic/' -e 's/^bounds = .*/bounds = gershgorin/' \
  inputs/ti_dos.ini >/tmp/large.ini
for run in ${RUNS:-1 2}; do
  for app in "${apps[@]}"; do
    echo "== ${app%%:*} (run $run)"
    OMP_NUM_THREADS=16 ${app#*:} run /tmp/large.ini -o /tmp/large_${app%%:*}.h5 --quiet | grep -E 'moments  |timing'
  done
done
[ ${#apps[@]} = 2 ] && build-gpu/bin/hamlet compare /tmp/large_new.h5 /tmp/large_base.h5 --rtol 0 --atol 0 --only /kpm 2>&1 | tail -1
