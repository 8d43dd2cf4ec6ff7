#!/bin/bash
# Issue 26 on the lent GPU machine (`.debs` carried; build-base/src optional, see device_base_app.sh):
# the CUDA build with HAMLET_TEST_REQUIRE=gpu,h5py (a GPU test that skips fails), the GPU tests,
# compute-sanitizer memcheck on them, the CPU suite on the host's 16 cores, the cost of the
# per-step stop agreement (this tree against the base tree, same deck, alternating), and the 64-bit
# count checks of device_large_common.sh (a halo message of more than 2^31 doubles, ~65 GiB of host
# memory, and a gather of more than 2^31 entries).
#   run: bash scripts/device_reliability.sh        STEPS="gpu sanitize cpu stopcost halo" (default all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize cpu stopcost halo}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
# shellcheck source=scripts/device_large_common.sh
source scripts/device_large_common.sh
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
echo "built at $SECONDS s"
cd build-gpu || exit 1
status=0
if want gpu; then
  ctest -L gpu --output-on-failure >"$OUT/ctest_gpu.log" 2>&1 || status=1
  grep -E "tests passed|Failed|Skipped|Not Run" "$OUT/ctest_gpu.log" | head -20
fi
if want sanitize; then
  for t in $(ctest -L gpu -N | awk '/Test +#/ {print $3}'); do
    exe=$(find . -name "$t" -type f -perm -u+x | head -1)
    [ -n "$exe" ] || continue # MPI variants reuse their test's program
    compute-sanitizer --tool memcheck --error-exitcode 9 "$exe" >"/tmp/memcheck_$t.log" 2>&1
    code=$?
    echo "memcheck $t: exit $code" | tee -a "$OUT/sanitizer.txt"
    [ "$code" -eq 0 ] || { status=1; tail -20 "/tmp/memcheck_$t.log"; }
  done
fi
if want cpu; then
  # e2e_install_downstream needs the pkg-config and loader set-up of a Debian host: device_install.sh covers the GPU install
  ctest -LE "gpu|fortran" -E e2e_install_downstream -j 12 --timeout 1500 --output-on-failure >"$OUT/ctest_cpu.log" 2>&1 || status=1
  grep -E "tests passed|\(Failed\)|Timeout" "$OUT/ctest_cpu.log" | head -20
  echo "cpu suite done at $SECONDS s"
fi
if want stopcost; then
  # The stop agreement (one MPI_Allreduce of an int per step) against the tree before it: the KPM
  # moments phase of the default deck at R = 32 on the GPU, 1 and 2 ranks, alternating.
  cd .. || exit 1
  apps=(new:build-gpu/bin/hamlet)
  # shellcheck source=scripts/device_base_app.sh
  source scripts/device_base_app.sh
  add_base_app
  sed -e 's/^vectors = .*/vectors = 32/' -e 's/^moments = .*/moments = 2048/' -e 's/^checkpoint_every = .*/checkpoint_every = 0/' \
    inputs/ti_dos.ini >/tmp/stopcost.ini
  for ranks in 1 2; do
    for round in 1 2 3; do
      for a in "${apps[@]}"; do
        name=${a%%:*}; exe=${a#*:}
        OMP_NUM_THREADS=4 /opt/deps/usr/bin/mpiexec.hydra -n "$ranks" "$exe" run /tmp/stopcost.ini -o "/tmp/stopcost_$name.h5" --quiet \
          >"/tmp/stopcost_$name.log" 2>&1 || { cat "/tmp/stopcost_$name.log"; status=1; }
        line=$(grep -m1 "moments " "/tmp/stopcost_$name.log")
        echo "ranks $ranks round $round $name: $line" | tee -a "$OUT/stopcost.txt"
      done
    done
  done
  cd build-gpu || exit 1
fi
if want halo; then
  run_large_checks . "$OUT" || status=1
fi
echo "device_reliability: exit $status at $SECONDS s"
exit "$status"
