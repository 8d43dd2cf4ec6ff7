#!/bin/bash
# hamlet's side of the KITE comparison (issue 27 s4) on the GPU machine: the KPM DOS of graphene and
# of the TI lattice (inputs/lattices/*.lattice) with M moments and R random vectors, through the CPU
# path on the host's cores (matrix-free and assembled) and the matrix-free operator on the H100;
# prints seconds per moment per orbital (the moment loop over M moments of R vectors, divided by R,
# M and N, as scripts/device_kite.sh reports KITE's) and peak bytes per orbital. `.debs` carried.
#   run: bash scripts/device_lattice_peers.sh     env: M=1024 R=2 GRAPHENE="2048 2048" TI="128 128 128" THREADS=16
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
M=${M:-1024}; R=${R:-2}; THREADS=${THREADS:-16}
GRAPHENE=${GRAPHENE:-2048 2048}; TI=${TI:-128 128 128}
# shellcheck source=scripts/device_unpack.sh
source scripts/device_unpack.sh .debs >/dev/null
# shellcheck disable=SC2086 # the flag list splits into words on purpose
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON $HAMLET_DEVICE_CMAKE_FLAGS \
  >"$OUT/configure.log" 2>&1 || { tail -40 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j 16 --target hamlet_app >"$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
HAMLET=$PWD/build-gpu/bin/hamlet
# one lattice: name, lattice file, nx ny nz, boundary, orbitals per cell, backend, storage
run_one() {
  local name=$1 file=$2 nx=$3 ny=$4 nz=$5 boundary=$6 orbitals=$7 backend=$8 storage=$9
  local deck=$OUT/$name-$backend-$storage.ini log=$OUT/$name-$backend-$storage.log
  cat >"$deck" <<DECK
[run]
backend = $backend
output = $OUT/$name-$backend-$storage.h5
[hamiltonian]
model = lattice
lattice_file = $PWD/inputs/lattices/$file
nx = $nx
ny = $ny
nz = $nz
boundary = $boundary
storage = $storage
[kpm]
moments = $M
vectors = $R
seed = 1
DECK
  OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close "$HAMLET" run "$deck" >"$log" 2>&1 || { echo "$name $backend $storage failed"; tail -5 "$log"; return; }
  local n=$((nx * ny * nz * orbitals))
  awk -v n="$n" -v m="$M" -v r="$R" -v tag="$name $backend $storage" '
    /^  moments / { split($0, a, ": "); split(a[2], b, " "); t = b[1] }
    /^  memory / { for (i = 1; i <= NF; i++) { if ($i == "peak" && $(i+1) ~ /^[0-9]/) host = $(i+1); if ($i == "to") host = $(i+1); if ($i == "up") dev = $(i+2) } }
    END { printf "| %s | N = %d | %.4g s | %.3g s per moment per orbital | host %.1f B/orbital | device %.1f B/orbital |\n",
          tag, n, t, t / (m * r * n) , host * 1048576 / n, dev * 1048576 / n }' "$log" | tee -a "$OUT/hamlet_table.md"
}
read -r gx gy <<<"$GRAPHENE"
read -r tx ty tz <<<"$TI"
for backend_storage in "cpu matrix_free" "cpu assembled" "cuda matrix_free"; do
  read -r backend storage <<<"$backend_storage"
  run_one graphene graphene.lattice "$gx" "$gy" 1 "periodic periodic open" 2 "$backend" "$storage"
  run_one ti ti.lattice "$tx" "$ty" "$tz" "periodic periodic periodic" 4 "$backend" "$storage"
done
