#!/bin/bash
# Session 30 on a lent machine with 4 (or more) GPUs (`.debs` carried; issue 30). Parts, in the
# order given (at most 8 files come back from $OUT: run a few parts per call, write the call's
# output to a file under $OUT rather than through a pipe that a timeout would lose):
#   mfree    scripts/device_mfree_scaling.sh weak strong
#   large    scripts/device_mfree_scaling.sh large: the largest matrix-free TI the node holds
#   p2p      bench/p2p_bandwidth.py: copy, peer and ring bandwidths, the model's link inputs
#   stored   scripts/device_scaling.sh weak: the stored-matrix TI KPM on 1, 2, 4 GPUs
#   solvers  scripts/device_solver_scaling.sh lobpcg idr
#   dense    scripts/device_solver_scaling.sh dense and scripts/device_scaling.sh mg
#   run: bash scripts/device_session30.sh p2p mfree large stored > $OUT/session.txt 2>&1
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
status=0
for part in "$@"; do
  echo "=== $part at $SECONDS s"
  case $part in
  mfree) bash scripts/device_mfree_scaling.sh weak strong || status=1 ;;
  large) bash scripts/device_mfree_scaling.sh large || status=1 ;;
  p2p) python3 bench/p2p_bandwidth.py 256 2>&1 | tee "$OUT/p2p.txt" ;;
  stored) bash scripts/device_scaling.sh weak || status=1 ;;
  solvers) bash scripts/device_solver_scaling.sh lobpcg idr || status=1 ;;
  dense) { bash scripts/device_solver_scaling.sh dense && bash scripts/device_scaling.sh mg; } || status=1 ;;
  *) echo "unknown part $part (allowed: mfree large p2p stored solvers dense)"; status=1 ;;
  esac
done
echo "session30 done at $SECONDS s, status $status"
exit $status
