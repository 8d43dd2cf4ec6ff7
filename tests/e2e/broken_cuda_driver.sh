# shellcheck shell=bash
# A broken CUDA driver is a failure, not "no GPU": with a driver that loads but fails every call
# (tests/support/broken_cuda_driver.c, found first through LD_LIBRARY_PATH, so this runs the same
# with or without a GPU), every GPU test program and GPU benchmark smoke run fails and says the
# device query failed; none skips (77). With no device visible at all (CUDA_VISIBLE_DEVICES=""
# where a driver is installed, no driver here) each one skips, or fails where HAMLET_TEST_REQUIRE
# names gpu.
#   broken_cuda_driver.sh DRIVER_DIR PROGRAM...
. "$(dirname "$0")/common.sh"
driver_dir=$1; shift
[ -e "$driver_dir/libcuda.so.1" ] || { echo "FAIL: no $driver_dir/libcuda.so.1"; exit 1; }
options() { # the smoke test's options of a program, by its name
  case $(basename "$1") in
    bench_kpm_gpu) echo "--nx 16 --ny 16 --nz 8 --steps 3" ;;
    bench_spmm_gpu) echo "--ti 8 8 4 --L 10 --k 1,4" ;;
    bench_idr_unfused_gpu) echo "--check --convdiff 20 --ti 6 6 4 --s 2" ;;
    bench_dense_mg) echo "--real 64" ;;
    bench_dense) echo "64" ;;
    bench_stencil) echo "--backend cuda --nx 8 --ny 8 --nz 8 --R 1 --steps 1" ;;
    *) echo "" ;;
  esac
}
for program in "$@"; do
  name=$(basename "$program")
  read -r -a opts <<<"$(options "$program")"
  LD_LIBRARY_PATH="$driver_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" HAMLET_TEST_REQUIRE="" \
    timeout 120 "$MPIEXEC" -n 1 "$program" "${opts[@]}" >"$name.broken.log" 2>&1
  code=$?
  if [ "$code" -eq 0 ] || [ "$code" -eq 77 ]; then
    fail "$name on a broken driver exited $code, expected a failure (not a pass, not a skip): $(tail -5 "$name.broken.log")"
  fi
  grep -q "device query failed" "$name.broken.log" ||
    fail "$name on a broken driver does not say the device query failed: $(tail -5 "$name.broken.log")"
  # No device visible: a skip, or a failure naming the requirement where gpu is required.
  [ "$name" = bench_dense ] && continue # a CPU benchmark: its cuSOLVER part is left out without a GPU
  CUDA_VISIBLE_DEVICES="" HAMLET_TEST_REQUIRE="" timeout 120 "$MPIEXEC" -n 1 "$program" "${opts[@]}" >"$name.none.log" 2>&1
  code=$?
  [ "$code" -eq 77 ] || fail "$name with no device visible exited $code, expected 77 (a skip): $(tail -5 "$name.none.log")"
  CUDA_VISIBLE_DEVICES="" HAMLET_TEST_REQUIRE=h5py,gpu timeout 120 "$MPIEXEC" -n 1 "$program" "${opts[@]}" >"$name.required.log" 2>&1
  code=$?
  [ "$code" -eq 1 ] && grep -q "HAMLET_TEST_REQUIRE=h5py,gpu requires the GPU" "$name.required.log" ||
    fail "$name with no device visible but the GPU required exited $code, expected 1 naming it: $(tail -5 "$name.required.log")"
done
finish
