#!/bin/bash
# Issue 27, session 31, on the lent GPU machine (`.debs` carried): is test_stencil_free on 2 ranks
# sharing one GPU hung or only slow? (session 30: killed at 120 s, no output after the seed). Each
# run prints a line per trial with its seconds (HAMLET_TEST_PROGRESS), 4 OpenMP threads per rank.
#   site1   1 rank, the automatic choice (per-site kernel for these models): the time to compare;
#   site2   2 ranks, the automatic choice, 400 s limit;
#   small2  2 ranks, the few-orbital kernel forced with its one-rank rule lifted in a copy of the
#           source (build-gpu-small2): does the kernel itself hang or fail on 2 ranks?
# Logs: $OUT/stencil_<step>.log; a summary line per step on stdout.
#   run: bash scripts/device_stencil31.sh        (STEPS="site1 site2 small2" by default)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-site1 site2 small2}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra # the carried MPICH
build() { # build DIR: test_stencil_free only
  # shellcheck disable=SC2086 # the flag list splits into words on purpose
  cmake -S . -B "$1" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
    >"$OUT/build_$1.log" 2>&1 &&
    cmake --build "$1" -j "$(nproc)" --target test_stencil_free >>"$OUT/build_$1.log" 2>&1 ||
    { grep -E "error|Error" "$OUT/build_$1.log" | head -20; exit 1; }
  echo "built $1 at $SECONDS s"
}
status=0
run() { # run NAME RANKS LIMIT DIR [ENV...]
  local name=$1 ranks=$2 limit=$3 dir=$4; shift 4
  env HAMLET_TEST_REQUIRE=gpu HAMLET_TEST_PROGRESS=1 OMP_NUM_THREADS=4 "$@" timeout "$limit" \
    "$MPIEXEC" -n "$ranks" "$dir/linalg/tests/test_stencil_free" cuda >"$OUT/stencil_$name.log" 2>&1
  local code=$?
  echo "$name: exit $code at $SECONDS s; last: $(grep -E "done at" "$OUT/stencil_$name.log" | tail -1 | cut -c1-40,100-)"
  grep -m 3 -E "^FAIL|HAMLET_TEST_SEED" "$OUT/stencil_$name.log"
  [ "$code" -eq 0 ] || status=1
}
build build-gpu
want site1 && run site1 1 300 build-gpu
want site2 && run site2 2 400 build-gpu
if want small2; then
  cp -r gpu gpu.orig
  sed -i 's/if (E->first_slab != 0 || E->local_slabs != E->cells\[E->slow\]) return 0;//' gpu/stencil_small_plan.h
  grep -c "first_slab != 0" gpu/stencil_small_plan.h # 0: the one-rank rule is lifted
  build build-gpu-small2
  rm -rf gpu && mv gpu.orig gpu
  run small2 2 300 build-gpu-small2 HAMLET_STENCIL_KERNEL=small
fi
echo "done at $SECONDS s, status $status"
exit $status
