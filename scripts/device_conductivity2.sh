#!/bin/bash
# Issue 28 section 2 leftovers on the lent GPU machine (`.debs` carried, as device_conductivity.sh):
#   gpu       the CUDA build's conductivity tests with HAMLET_TEST_REQUIRE=gpu,h5py (a GPU test that
#             skips fails): exact moments with blocked recursions against dense eigenpairs on the
#             device, QWZ sigma_xy, and the e2e tests (restart bit for bit, lattice models,
#             Kubo-Greenwood) on the auto backend, which is cuda there (blocks chosen from free memory)
#   sanitize  compute-sanitizer memcheck on test_conductivity_exact (blocks of 16 and 8 on the device)
#   bench     bench_conductivity at N = 2 L^2 >= 10^7, M = 1024, R = 16 on the GPU: per vector, the
#             Chebyshev part against the block step's floor (B start vectors a step: the block chosen
#             from free memory, printed), the Gram part against the ZGEMM rate of hm_mvec_gram
#             (cuBLAS) measured in the same run; then the same size with --block 1 (single vectors)
#             and a size where a block of 16 holds all M moments (BLOCK_L, M = 256, --block 16 vs 1)
#   kite_pair hamlet's method = conductivity on graphene BENCH_GRAPHENE cells (the lattice, M and R
#             of scripts/device_kite.sh's conductivity step), xx, GPU: its moments time per vector
#   run: bash scripts/device_conductivity2.sh      STEPS="gpu sanitize bench kite_pair" (default all)
#   env: BENCH_L (2237: N = 1.0e7), BENCH_M (1024), BENCH_R (16), BLOCK_L (500), BENCH_GRAPHENE ("512 512"),
#        COND_M (1024), COND_R (1)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-gpu sanitize bench kite_pair}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
cd build-gpu || exit 1
status=0
export HAMLET_TEST_REQUIRE=gpu,h5py
if want gpu; then
  ctest -R "conductivity|velocity" --output-on-failure >"$OUT/ctest_conductivity2.log" 2>&1 || status=1
  grep -E "Test +#|tests passed|sigma_xy|Kubo-Greenwood|differ" "$OUT/ctest_conductivity2.log" | head -40
fi
if want sanitize; then
  compute-sanitizer --tool memcheck --error-exitcode 9 ./linalg/tests/test_conductivity_exact cuda 5 \
    >"$OUT/memcheck_conductivity2.log" 2>&1
  code=$?
  echo "memcheck test_conductivity_exact (blocked): exit $code" | tee -a "$OUT/sanitizer.txt"
  [ "$code" -eq 0 ] || { status=1; tail -20 "$OUT/memcheck_conductivity2.log"; }
fi
if want bench; then
  L=${BENCH_L:-2237}; M=${BENCH_M:-1024}; R=${BENCH_R:-16}; BL=${BLOCK_L:-500}
  for args in "--L $L --moments $M --vectors $R" "--L $L --moments $M --vectors 2 --block 1" \
    "--L $BL --moments 256 --vectors 16 --block 16" "--L $BL --moments 256 --vectors 16 --block 1"; do
    echo "== bench_conductivity $args --cuda ($SECONDS s)" | tee -a "$OUT/bench_conductivity2.txt"
    # shellcheck disable=SC2086 # the arguments split into words on purpose
    timeout 560 ./bench/bench_conductivity $args --cuda 2>&1 | tee -a "$OUT/bench_conductivity2.txt" || status=1
  done
fi
if want kite_pair; then
  read -r gx gy <<<"${BENCH_GRAPHENE:-512 512}"
  cat >"$OUT/graphene_conductivity.ini" <<INI
[run]
backend = cuda
output = $OUT/graphene_conductivity.h5
[hamiltonian]
model = lattice
lattice_file = $PWD/../inputs/lattices/graphene.lattice
nx = $gx
ny = $gy
nz = 1
boundary = periodic periodic open
[solver]
method = conductivity
[conductivity]
components = xx
energies = -1 1 5
moments = ${COND_M:-1024}
vectors = ${COND_R:-1}
INI
  timeout 560 ./bin/hamlet run "$OUT/graphene_conductivity.ini" 2>&1 | tee "$OUT/graphene_conductivity.txt" || status=1
fi
echo "device_conductivity2: exit $status at $SECONDS s"
exit "$status"
