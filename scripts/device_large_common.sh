#!/bin/bash
# Sourced by device_large_halo.sh and device_reliability.sh (the GPU machine's host, 128 GiB; no
# GPU needed): the 64-bit count checks that need more memory than CI has.
#   large_halo:   one halo message of more than 2^31 doubles on 2 ranks (~65 GiB), checked against exact sums;
#   large_gather: hm_mpi_gatherv_large (the dense gather's MPI_Gatherv_c) of 2^31 + 7 bytes from one
#                 rank, the total past INT_MAX too (~4.3 GiB), every byte checked.
# run_large_checks BUILD_DIR OUT_DIR: returns non-zero when either fails; logs in OUT_DIR.
run_large_checks() {
  local build=$1 out=$2 status=0 code exe
  free -g | head -2 | tee "$out/memory.txt"
  exe=$(find "$build" -name large_halo -type f -perm -u+x | head -1)
  OMP_NUM_THREADS=8 /usr/bin/time -v /opt/deps/usr/bin/mpiexec.hydra -n 2 "$exe" 17000000 >"$out/large_halo.txt" 2>&1
  code=$?
  grep -vE "^\s+(Page|Socket|Signals|Swaps|File system|Average|Exit status|Voluntary|Involuntary|Minor|Major|Percent)" \
    "$out/large_halo.txt" | tail -20
  echo "large_halo: exit $code" | tee -a "$out/large_halo.txt"
  [ "$code" -eq 0 ] || status=1
  exe=$(find "$build" -name large_gather -type f -perm -u+x | head -1)
  /usr/bin/time -v /opt/deps/usr/bin/mpiexec.hydra -n 2 "$exe" 2147483655 >"$out/large_gather.txt" 2>&1
  code=$?
  grep -E "gathered|PASSED|FAILED|FAIL|Maximum resident|Elapsed" "$out/large_gather.txt"
  echo "large_gather: exit $code" | tee -a "$out/large_gather.txt"
  [ "$code" -eq 0 ] || status=1
  return "$status"
}
