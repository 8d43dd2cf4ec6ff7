#!/bin/bash
# On the lent GPU machine (the `device` tool, with `.debs` carried): unpack the Debian packages,
# build C + CUDA (no gfortran there), run the GPU tests, compute-sanitizer on them, the CPU tests
# that are quick, and the benchmarks; everything is logged to $OUT.
#   run: bash scripts/device.sh        (carry: [".debs"])
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
source scripts/device_unpack.sh .debs
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt"
# shellcheck disable=SC2086 # the flag lists are meant to split into words
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 >"$OUT/build.log" 2>&1 || { grep -E "error|Error" "$OUT/build.log" | head -40; exit 1; }
cd build-gpu || exit 1
ctest -L gpu --output-on-failure 2>&1 | tee "$OUT/ctest_gpu.log"
for t in $(ctest -L gpu -N | awk '/Test +#/ {print $3}'); do
  exe=$(find . -name "$t" -type f -perm -u+x | head -1)
  [ -n "$exe" ] || continue # MPI variants of a test reuse its executable
  for tool in memcheck racecheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 "$exe" >"$OUT/sanitizer_${t}_$tool.log" 2>&1
    echo "compute-sanitizer $tool $t: exit $?" | tee -a "$OUT/sanitizer.txt"
  done
done
ctest -LE "gpu|fortran" -j 8 --output-on-failure 2>&1 | tail -15 | tee "$OUT/ctest_cpu.log"
./bench/bench_kpm_gpu 2>&1 | tee "$OUT/bench_kpm_gpu.txt"
for th in 1 16; do
  OMP_NUM_THREADS=$th OMP_PROC_BIND=close ./bench/bench_kpm_cpu --nx 96 --ny 96 --nz 48 --steps 20 | tee "$OUT/bench_kpm_cpu_t$th.txt"
done
OMP_NUM_THREADS=8 /opt/deps/usr/bin/mpiexec.hydra -n 2 ./bin/hamlet run ../inputs/ti_dos.ini -o "$OUT/ti_dos.h5" --quiet | tee "$OUT/ti_dos_run.txt"
python3 -c "
import h5py, sys
f = h5py.File(sys.argv[1], 'r')
print('provenance backend:', f['/provenance'].attrs.get('backend'))
print('energy:', {k: v for k, v in f['/energy'].attrs.items() if k != 'description'})
for k in f['/energy']: print('  /energy/' + k, f['/energy/' + k][()])
" "$OUT/ti_dos.h5" 2>&1 | tee "$OUT/ti_dos_energy.txt"
