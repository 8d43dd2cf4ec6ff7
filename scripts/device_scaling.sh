#!/bin/bash
# shellcheck disable=SC2086 # $HAMLET_DEVICE_CMAKE_FLAGS and the option lists split into words on purpose
# On a lent machine with several GPUs (nvidia-h100-x2 and up, `.debs` carried): build, run the GPU
# tests, a weak-scaling run of the KPM with the stored TI matrix (200 x 100 x 40 sites per GPU,
# R = 32) on 1, 2, 4, ... GPUs (one rank per GPU) with the halo device to device and, for
# comparison, through host buffers, and the dense cusolverMg benchmark (all GPUs against one).
#   run: bash scripts/device_scaling.sh [tests] [weak] [mg]   (none: all three)
# With an older source tree in build-base/src (scripts/device_base_app.sh), weak also builds and
# runs it, for a before/after in one session, and compares the moments of the two 2-GPU runs bit
# for bit.
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
parts=" ${*:-tests weak mg} "
want() { [[ $parts == *" $1 "* ]]; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
counts() { local p=1; while [ $p -le "$GPUS" ]; do echo $p; p=$((p * 2)); done; }
if want tests; then
  (cd build-gpu && ctest -R 'test_(kpm|lobpcg|idr)_gpu' --output-on-failure --timeout 200 2>&1 | tail -12)
fi
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
if want weak; then
  W=/tmp/weak; mkdir -p $W # the runs' files stay here; $OUT gets one log (few files come back)
  source scripts/device_base_app.sh
  apps=(new:build-gpu/bin/hamlet)
  add_base_app
  # Two moment counts per case: the `moments` phase of the shorter run includes one-time work (the
  # block copy is made by the first KPM step), so the steady step time is the difference of the two.
  # WEAK_MOMENTS (default "200 3000") sets them, WEAK_REPEAT (default 2) the runs of each case; the
  # figure takes each case's fastest run.
  read -r M1 M2 <<<"${WEAK_MOMENTS:-200 3000}"
  for rep in $(seq ${WEAK_REPEAT:-2}); do
    for P in $(counts); do
      for M in $M1 $M2; do
        cat > "$W/weak${P}_m$M.ini" <<INI
[run]
backend = cuda
[hamiltonian]
model = ti
nx = 200
ny = 100
nz = $((40 * P))
boundary = periodic periodic periodic
[kpm]
moments = $M
vectors = 32
INI
        for app in "${apps[@]}"; do
          for mode in 1 0; do # the halo device to device, then through page-locked host buffers
            [ $P = 1 ] && [ $mode = 0 ] && continue
            [ $mode = 0 ] && { [ $M = $M2 ] || [ ${app%%:*} = base ] || [ $rep != 1 ]; } && continue
            tag=${app%%:*}_${P}_m${M}_peer${mode}_r$rep
            echo "== ${app%%:*}: $P GPU(s), $M moments, HAMLET_HALO_PEER=$mode (run $rep)" | tee -a "$OUT/weak.txt"
            HAMLET_HALO_PEER=$mode OMP_NUM_THREADS=8 timeout 120 $MPIEXEC -n $P ${app#*:} run "$W/weak${P}_m$M.ini" \
              -o "$W/$tag.h5" --quiet | tee "$W/$tag.txt" | grep -E 'moments  |timing' | tee -a "$OUT/weak.txt"
          done
        done
      done
    done
  done
  fastest() { awk '/^  moments/ {print $7}' "$@" | sort -g | head -1; } # seconds of the moments phase
  step() { # steady us per vector per step from the two moment counts: step APP P MODE
    local a b
    a=$(fastest "$W/$1_$2_m${M1}_peer$3"_r*.txt)
    b=$(fastest "$W/$1_$2_m${M2}_peer$3"_r*.txt)
    awk -v a="$a" -v b="$b" -v d=$(((M2 - M1) / 2)) 'BEGIN {printf "%.1f", 1e6 * (b - a) / (32 * d)}'
  }
  for app in "${apps[@]}"; do
    a=${app%%:*}; s1=$(step $a 1 1)
    for P in $(counts); do
      sp=$(step $a $P 1)
      echo "$a: steady us per vector-step on $P GPU(s), device to device: $sp" \
        "(weak-scaling efficiency $(awk -v a=$s1 -v b=$sp 'BEGIN {printf "%.1f%%", 100 * a / b}'))" | tee -a "$OUT/weak.txt"
    done
  done
  if [ ${#apps[@]} = 2 ]; then
    echo "== moments of the 2-GPU runs, new against base (no tolerance)" | tee -a "$OUT/weak.txt"
    build-gpu/bin/hamlet compare "$W/new_2_m${M1}_peer1_r1.h5" "$W/base_2_m${M1}_peer1_r1.h5" --rtol 0 --atol 0 \
      --only /kpm/moments 2>&1 | tail -2 | tee -a "$OUT/weak.txt"
  fi
fi
if want mg; then # cusolverMg on all GPUs against one (bench_dense_mg prints both)
  exe=$(find build-gpu -name bench_dense_mg -type f | head -1)
  timeout 280 "$exe" --real --gpus "$GPUS" 8192 16384 2>&1 | tee "$OUT/dense_mg_real.txt" | grep -v '^# '
  timeout 280 "$exe" --complex --gpus "$GPUS" 8192 16384 2>&1 | tee "$OUT/dense_mg_complex.txt" | grep -v '^# '
fi
