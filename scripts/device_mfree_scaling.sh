#!/bin/bash
# shellcheck disable=SC2086 # the option lists split into words on purpose
# The matrix-free lattice operator on every GPU of a lent multi-GPU machine (nvidia-h100-x2 and up,
# `.debs` carried), one MPI rank per GPU, the halo device to device:
#   tests   the matrix-free products on 2 and 3 ranks (TEST_RANKS="2 3 4" for others) against the
#           CPU reference (test_stencil_free cuda; HAMLET_HALO_PEER=1 requires the device-to-device
#           halo);
#   ctest   the 2-rank KPM, LOBPCG and IDR(s) GPU tests;
#   weak    the TI's KPM DOS (model = lattice, ti.lattice, storage = matrix_free) at 3.2e6 and
#           2.5e7 orbitals per GPU with R = 32 and 10^8 per GPU with R = 2, on 1, 2, 4, ... GPUs: the
#           steady time per vector-step from two moment counts, and the weak-scaling efficiency;
#   strong  the 2.7e7-orbital TI (300 x 150 x 150 sites), R = 32, on 1 .. P GPUs;
#   large   10^9 orbitals per GPU (500 x 500 x 1000 P sites), R = 2, a few moments: the largest TI
#           the node holds, time per moment and peak device memory per GPU.
#   run: bash scripts/device_mfree_scaling.sh [tests] [ctest] [weak] [strong] [large]   (none: all)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
parts=" ${*:-tests ctest weak strong large} "
want() { [[ $parts == *" $1 "* ]]; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh
nvidia-smi topo -m > "$OUT/topo.txt" 2>&1
GPUS=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
MPIEXEC=/opt/deps/usr/bin/mpiexec.hydra
APP=$PWD/build-gpu/bin/hamlet
LATTICE=$PWD/inputs/lattices/ti.lattice
status=0
if want tests; then
  exe=$(find build-gpu -name test_stencil_free -type f -perm -u+x | head -1)
  for n in ${TEST_RANKS:-2 3}; do
    HAMLET_HALO_PEER=1 OMP_NUM_THREADS=4 timeout 300 $MPIEXEC -n $n "$exe" cuda > "$OUT/stencil_free_cuda_np$n.txt" 2>&1
    code=$?; echo "test_stencil_free cuda on $n ranks ($GPUS GPUs): exit $code"; [ $code = 0 ] || status=1
  done
fi
if want ctest; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=gpu ctest -R 'test_(kpm|lobpcg|idr)_gpu|stencil_free_cuda|lattice' -L gpu \
    --output-on-failure --timeout 300 2>&1 | tail -8)
fi
W=/tmp/mfree; mkdir -p $W
deck() { # deck FILE NX NY NZ R M
  cat > "$1" <<INI
[run]
backend = cuda
[hamiltonian]
model = lattice
lattice_file = $LATTICE
nx = $2
ny = $3
nz = $4
boundary = periodic periodic periodic
storage = matrix_free
[kpm]
moments = $6
vectors = $5
INI
}
moments_s() { awk '/^  moments/ {print $7}' "$1" | head -1; } # seconds of the run summary's moments phase
run_case() { # run_case TAG P NX NY NZ R M: prints the moments phase in seconds
  deck "$W/$1.ini" "$3" "$4" "$5" "$6" "$7"
  HAMLET_HALO_PEER=1 OMP_NUM_THREADS=4 timeout 120 $MPIEXEC -n "$2" "$APP" run "$W/$1.ini" -o "$W/$1.h5" --quiet \
    > "$W/$1.txt" 2>&1 || { echo "FAILED: $1"; tail -5 "$W/$1.txt"; status=1; }
  moments_s "$W/$1.txt"
}
# steady us per vector-step from two moment counts (the first run's phase holds one-time work)
steady() { awk -v a="$1" -v b="$2" -v r="$3" -v d="$4" 'BEGIN {printf "%.1f", 1e6 * (b - a) / (r * d)}'; }
counts() { local p=1; while [ $p -le "$GPUS" ]; do echo $p; p=$((p * 2)); done; }
if want weak; then
  for cfg in "200 100 40 32 200 1000" "200 100 312 32 100 300" "500 500 100 2 100 500"; do
    read -r nx ny nz R M1 M2 <<<"$cfg"
    base=""
    for P in $(counts); do
      a=$(run_case "w${R}_${P}_a" $P $nx $ny $((nz * P)) $R $M1)
      b=$(run_case "w${R}_${P}_b" $P $nx $ny $((nz * P)) $R $M2)
      s=$(steady "$a" "$b" "$R" $(((M2 - M1) / 2)))
      [ -z "$base" ] && base=$s
      echo "weak R=$R: $P GPU(s), $nx x $ny x $((nz * P)) sites, moments phase $a / $b s (M = $M1 / $M2): $s us per vector-step, efficiency $(awk -v a="$base" -v b="$s" 'BEGIN {printf "%.1f%%", 100 * a / b}')" | tee -a "$OUT/weak.txt"
    done
  done
fi
if want strong; then # STRONG_COUNTS (default 1, 2, 4, ...) and STRONG_REPEAT (default 1; the fastest run counts)
  base=""
  for P in ${STRONG_COUNTS:-$(counts)}; do
    best=""
    for rep in $(seq "${STRONG_REPEAT:-1}"); do
      a=$(run_case "s_${P}_a$rep" $P 300 150 150 32 100)
      b=$(run_case "s_${P}_b$rep" $P 300 150 150 32 500)
      s=$(steady "$a" "$b" 32 200)
      echo "strong R=32: $P GPU(s), run $rep: $s us per vector-step" >> "$OUT/strong.txt"
      best=$(printf '%s\n' $best "$s" | sort -g | head -1)
    done
    [ -z "$base" ] && base=$best
    echo "strong R=32: $P GPU(s), 300 x 150 x 150 sites: $best us per vector-step, efficiency $(awk -v a="$base" -v b="$best" -v p=$P 'BEGIN {printf "%.1f%%", 100 * a / (b * p)}')" | tee -a "$OUT/strong.txt"
  done
fi
if want large; then
  P=$GPUS
  deck "$W/large.ini" 500 500 $((1000 * P)) 2 32
  ( while sleep 2; do nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits; done ) > "$W/mem.txt" &
  watcher=$!
  start=$SECONDS
  HAMLET_HALO_PEER=1 OMP_NUM_THREADS=4 $MPIEXEC -n $P "$APP" run "$W/large.ini" -o "$W/large.h5" > "$OUT/large.txt" 2>&1 ||
    { echo "FAILED: large"; status=1; }
  kill $watcher
  echo "large: $P GPU(s), 500 x 500 x $((1000 * P)) sites = $((P * 1000)) M orbitals, R = 2, M = 32: $((SECONDS - start)) s in all; peak device MiB per GPU $(sort -n "$W/mem.txt" | tail -1)" | tee -a "$OUT/large.txt"
  grep -E "moments  |build|memory|peak" "$OUT/large.txt" | head -12
fi
echo "done at $SECONDS s"
exit $status
