#!/bin/bash
# Issue 27's CPU target on the GPU machine's host cores (`.debs` carried, as device_stencil.sh): the
# fused KPM step of the matrix-free operator (bench_stencil --backend cpu) for ti, graphene and
# wannier30 at R = 2, 16, 32 on THREADS cores (default 16), each against the host's copy bandwidth
# measured in the same run (ratio = time / (48 R N bytes / bandwidth)); with build-base/src carried
# (`git archive main | tar -x -C build-base/src`), the same runs of that tree's bench alternate with
# this tree's, three rounds, so the before/after of the hop kinds (kernels_cpu_stencil.c: real-only
# and imaginary-only hops take one multiply-add, not two) and the prefetch share the host's state.
#   run: bash scripts/device_cpukinds.sh        (logs: $OUT/cpukinds_<tree>.txt, one line per R)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
THREADS=${THREADS:-16}
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
benches=(new:build-gpu/bench/bench_stencil)
if [ -d build-base/src ]; then
  # shellcheck disable=SC2086 # the flag list splits into words on purpose
  cmake -S build-base/src -B build-base/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHAMLET_CUDA=ON \
    $HAMLET_DEVICE_CMAKE_FLAGS >"$OUT/configure-base.log" 2>&1 &&
    cmake --build build-base/gpu -j "$(nproc)" --target bench_stencil >"$OUT/build-base.log" 2>&1 &&
    benches+=(base:build-base/gpu/bench/bench_stencil) || tail -20 "$OUT/build-base.log"
fi
status=0
for round in 1 2 3; do
  for b in "${benches[@]}"; do
    name=${b%%:*}; exe=${b#*:}
    for model in "ti 200 100 40" "graphene 2048 2048 1" "wannier30 128 128 64"; do
      read -r m nx ny nz <<<"$model"
      echo "round $round, $name, $m, $THREADS threads" >>"$OUT/cpukinds_$name.txt"
      OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES=cores "$exe" --backend cpu --model "$m" --nx "$nx" \
        --ny "$ny" --nz "$nz" --R 2,16,32 --steps 10 >>"$OUT/cpukinds_$name.txt" 2>&1 || status=1
    done
  done
done
# the best of the three rounds per tree, model and R: seconds per vector-step and ratio to the floor
for b in "${benches[@]}"; do
  name=${b%%:*}
  awk -v t="$name" '/^round/ {m = $4; sub(",", "", m)} /^R =/ {k = m " R=" $3; if (!(k in best) || $4 < best[k]) {best[k] = $4; r[k] = $NF}}
    END {for (k in best) printf "%s %s %.4g s ratio %s\n", t, k, best[k], r[k]}' "$OUT/cpukinds_$name.txt" | sort
done | tee "$OUT/cpukinds_best.txt"
exit $status
