#!/bin/bash
# Session 30 on a lent machine with 4 (or more) GPUs (`.debs` carried; issue 30, and a debug run for
# issue 27). Parts, in the order given:
#   stencil  the few-orbital stencil kernel of branch s29-stencil (its source carried as
#            build-stencil/src.tar.gz) built with line info: test_stencil_free cuda with the kernel
#            forced, and compute-sanitizer memcheck with backtraces (logs under $OUT/stencil)
#   mfree    scripts/device_mfree_scaling.sh weak strong
#   large    scripts/device_mfree_scaling.sh large: the largest matrix-free TI the node holds
#   p2p      bench/p2p_bandwidth.py: copy, peer and ring bandwidths, the model's link inputs
#   stored   scripts/device_scaling.sh weak: the stored-matrix TI KPM on 1, 2, 4 GPUs
#   solvers  scripts/device_solver_scaling.sh lobpcg idr
#   dense    scripts/device_solver_scaling.sh dense and scripts/device_scaling.sh mg
#   run: bash scripts/device_session30.sh stencil mfree p2p
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
status=0
for part in "$@"; do
  echo "=== $part at $SECONDS s"
  case $part in
  stencil)
    # shellcheck source=scripts/device_unpack.sh
    source scripts/device_unpack.sh .debs >/dev/null
    S=build-stencil; mkdir -p "$S/src" "$OUT/stencil"; tar -xzf "$S/src.tar.gz" -C "$S/src"
    # shellcheck disable=SC2086 # the flag list splits into words on purpose
    cmake -S "$S/src" -B "$S/gpu" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHAMLET_CUDA=ON \
      -DCMAKE_CUDA_FLAGS=-lineinfo $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/stencil/configure.log" 2>&1 &&
      cmake --build "$S/gpu" -j "$(nproc)" --target test_stencil_free >"$OUT/stencil/build.log" 2>&1 ||
      { tail -20 "$OUT/stencil/build.log"; status=1; continue; }
    exe=$(find "$S/gpu" -name test_stencil_free -type f -perm -u+x | head -1)
    HAMLET_STENCIL_KERNEL=small timeout 120 "$exe" cuda >"$OUT/stencil/forced.txt" 2>&1
    echo "forced small kernel: exit $?"; grep -v "^ok" "$OUT/stencil/forced.txt" | head -20
    HAMLET_STENCIL_KERNEL=small timeout 150 compute-sanitizer --tool memcheck --show-backtrace device \
      --print-limit 12 "$exe" cuda >"$OUT/stencil/memcheck.txt" 2>&1
    echo "memcheck: exit $?"; grep -m 12 -A 4 "Invalid" "$OUT/stencil/memcheck.txt"
    ;;
  mfree) bash scripts/device_mfree_scaling.sh weak strong || status=1 ;;
  large) bash scripts/device_mfree_scaling.sh large || status=1 ;;
  p2p) python3 bench/p2p_bandwidth.py 256 2>&1 | tee "$OUT/p2p.txt" ;;
  stored) bash scripts/device_scaling.sh weak || status=1 ;;
  solvers) bash scripts/device_solver_scaling.sh lobpcg idr || status=1 ;;
  dense) { bash scripts/device_solver_scaling.sh dense && bash scripts/device_scaling.sh mg; } || status=1 ;;
  *) echo "unknown part $part (allowed: stencil mfree large p2p stored solvers dense)"; status=1 ;;
  esac
done
echo "session30 done at $SECONDS s, status $status"
exit $status
