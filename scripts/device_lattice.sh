#!/bin/bash
# Issue 27 (model = lattice through every method) on the lent GPU machine (`.debs` carried): the CUDA
# build, then the lattice end-to-end tests with backend auto (= cuda there: every rank sees the GPU):
# dense (cuSOLVER), LOBPCG, the KPM DOS and LDOS, IDR Green's functions and the vacancy subtraction
# against numpy, ti.lattice / _hr.dat against model = ti to 1e-12 on 1 and 3 ranks; then
# compute-sanitizer memcheck on one run of each lattice method.
#   run: bash scripts/device_lattice.sh     (logs under $OUT)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
(cd build-gpu && ctest -R "e2e_lattice|test_lattice|test_deck" -V >"$OUT/ctest_lattice.log" 2>&1) || status=1
grep -E "PASS|FAIL|tests passed|\(Failed\)" "$OUT/ctest_lattice.log" | head -60
# memcheck: each method once on the QWZ model with disorder and vacancies, backend cuda
lat=$PWD/inputs/lattices
model="[run]
backend = cuda
[hamiltonian]
model = lattice
lattice_file = $lat/qwz.lattice
nx = 6
ny = 5
nz = 1
boundary = periodic periodic open
potential = disorder
disorder_w = 0.5
vacancies = 0.1"
printf '%s\n[kpm]\nmoments = 32\nvectors = 8\n' "$model" >/tmp/lat_dos.ini
printf '%s\n[solver]\nmethod = kpm\n[kpm]\nmoments = 32\nldos_sites = 1 1 0\n' "$model" >/tmp/lat_ldos.ini
printf '%s\n[solver]\nmethod = lobpcg\nnev = 3\n' "$model" >/tmp/lat_lobpcg.ini
printf '%s\n[solver]\nmethod = dense\n' "$model" >/tmp/lat_dense.ini
printf '%s\n[solver]\nmethod = idr\nproblem = green\n[green]\neta = 0.1\nenergy_list = 0.5\nsites = 1 1 0\n' "$model" >/tmp/lat_green.ini
for m in dos ldos lobpcg dense green; do
  compute-sanitizer --tool memcheck --error-exitcode 9 build-gpu/bin/hamlet run "/tmp/lat_$m.ini" -o "/tmp/lat_$m.h5" \
    >"$OUT/memcheck_$m.log" 2>&1
  code=$?
  echo "memcheck lattice $m: exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_$m.log"; }
done
echo "device_lattice: exit $status at $SECONDS s"
exit "$status"
