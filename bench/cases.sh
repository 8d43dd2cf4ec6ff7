#!/bin/bash
# The named benchmark cases behind the figures of bench/README.md: each runs one benchmark driver of a
# build tree with the case's arguments and prints its measured figures next to their floor or peer.
#   bash bench/cases.sh BUILD_DIR CASE      (on a GPU machine: bash scripts/gpu_host.sh bench CASE)
#   bash bench/cases.sh BUILD_DIR list      the cases and what they measure
# ROUNDS=n repeats a case (default 1); THREADS sets the host threads of the CPU cases (default: all).
set -uo pipefail
build=${1:?build directory}
case_name=${2:?case name, or list}
bin=$build/bench
threads=${THREADS:-$(nproc)}
mpiexec=$(grep -E "^MPIEXEC_EXECUTABLE:" "$build/CMakeCache.txt" 2>/dev/null | cut -d= -f2)

# name | what it measures | command (relative to the build tree's bench/ folder)
cases=(
  "stencil-ti|matrix-free TI 200 x 100 x 40, KPM step at R = 1..32 against the copy bandwidth|bench_stencil --backend cuda --nx 200 --ny 100 --nz 40 --R 1,2,4,8,16,32 --steps 20"
  "stencil-ti-billion|matrix-free TI of 10^9 orbitals (500 x 500 x 1000), R = 2, one GPU|bench_stencil --backend cuda --nx 500 --ny 500 --nz 1000 --R 2 --steps 5"
  "stencil-graphene|matrix-free graphene 2048 x 2048, R = 8, 16, 32|bench_stencil --backend cuda --model graphene --nx 2048 --ny 2048 --nz 1 --R 8,16,32 --steps 20"
  "stencil-wannier30|matrix-free Wannier model of 38 hops per orbital, 128 x 128 x 64, R = 8, 16, 32|bench_stencil --backend cuda --model wannier30 --nx 128 --ny 128 --nz 64 --R 8,16,32 --steps 20"
  "stencil-ti-cpu|matrix-free TI 200 x 100 x 40 on the host's cores, R = 16|bench_stencil --backend cpu --nx 200 --ny 100 --nz 40 --R 16 --steps 10"
  "kpm-gpu|fused KPM SpMMV on the GPU (SELL and CSR) against cuSPARSE and the memory floor|bench_kpm_gpu"
  "kpm-cpu|fused KPM SpMMV on the host's cores against the STREAM-like copy|bench_kpm_cpu --nx 96 --ny 96 --nz 48 --steps 20"
  "spmm-gpu|SpMM of the TI matrix against cuSPARSE|bench_spmm_gpu"
  "dense|dense eigensolvers (LAPACK, cuSOLVER, ScaLAPACK) at n = 4096 and 8192|bench_dense 4096 8192"
  "lobpcg|LOBPCG on the TI, blocks of 4 to 32|bench_lobpcg"
  "idr|IDR(s) fused against unfused, convection-diffusion and TI|bench_idr"
  "idr-unfused-gpu|IDR(s) on the GPU against its cuBLAS/cuSPARSE composition|bench_idr_unfused_gpu"
  "conductivity-gpu|Kubo-Bastin moment matrix, N = 10^7, M = 1024 on the GPU|bench_conductivity --L 2237 --moments 1024 --vectors 2 --cuda --zgemm 60"
  "conductivity-cpu|Kubo-Bastin moment matrix on the host's cores|bench_conductivity --L 512 --moments 256 --vectors 1 --bandwidth 200 --zgemm 1"
  "multishift|multi-shift IDR Green's functions against one solve per energy|bench_multishift"
  "interior-gpu|ChebFD, about 100 pairs nearest 0 of a disordered TI slab, N = 2.56·10^6, one GPU|bench_interior --backend cuda --nx 200 --ny 200 --nz 16 --window 0.08"
  "interior-gpu-1e7|the same at N = 1.02·10^7 (about 18 minutes: run it outside a 10-minute call)|bench_interior --backend cuda --nx 400 --ny 400 --nz 16 --window 0.04"
)

if [ "$case_name" = list ]; then
  for c in "${cases[@]}"; do IFS='|' read -r name what _ <<<"$c"; printf '%-20s %s\n' "$name" "$what"; done
  printf '%-20s %s\n' large-halo "one halo message of more than 2^31 doubles and a gather past 2^31 bytes (~65 GiB host)"
  printf '%-20s %s\n' dense-distributed-gpu "hamlet's distributed dense solver on 1 and 2 GPU ranks (one device) next to cuSOLVER"
  printf '%-20s %s\n' kite "KITE's KITEx on the same lattices (bench/kite_run.sh; its bundle from bench/kite_build.sh)"
  exit 0
fi

run_case() {
  for _ in $(seq "${ROUNDS:-1}"); do
    # shellcheck disable=SC2086 # the case's argument list splits into words
    (cd "$bin" && OMP_NUM_THREADS=$threads ./$1) || return 1
  done
}

case $case_name in
  large-halo)
    [ -n "$mpiexec" ] || { echo "no MPIEXEC_EXECUTABLE in $build/CMakeCache.txt"; exit 1; }
    cmake --build "$build" --target large_halo large_gather >/dev/null || exit 1
    OMP_NUM_THREADS=8 "$mpiexec" -n 2 "$(find "$build" -name large_halo -type f -perm -u+x | head -1)" 17000000 &&
      "$mpiexec" -n 2 "$(find "$build" -name large_gather -type f -perm -u+x | head -1)" 2147483655
    exit
    ;;
  dense-distributed-gpu)
    [ -n "$mpiexec" ] || { echo "no MPIEXEC_EXECUTABLE in $build/CMakeCache.txt"; exit 1; }
    exe=$(find "$build" -name bench_dense -type f -perm -u+x | head -1)
    read -r -a real_sizes <<<"${SIZES_REAL:-4096 8192 16384}"
    read -r -a complex_sizes <<<"${SIZES_COMPLEX:-4096 8192}"
    for p in 1 2; do
      OMP_NUM_THREADS=$((threads / p)) "$mpiexec" -n $p "$exe" --distributed-gpu --real "${real_sizes[@]}" &&
        OMP_NUM_THREADS=$((threads / p)) "$mpiexec" -n $p "$exe" --distributed-gpu --complex "${complex_sizes[@]}" ||
        exit 1
    done
    exit
    ;;
  kite)
    exec bash "$(dirname "$0")/kite_run.sh"
    ;;
esac
for c in "${cases[@]}"; do
  IFS='|' read -r name _ command <<<"$c"
  [ "$name" = "$case_name" ] && { run_case "$command"; exit; }
done
echo "cases.sh: no case '$case_name'; run 'bash bench/cases.sh $build list' for the names" >&2
exit 2
