#!/bin/bash
# Memory per orbital and time per moment of hamlet's KPM DOS on graphene (against KITE):
# matrix-free storage in complex arithmetic, in real arithmetic, and real with [kpm] block = 1, each
# on NX x NY cells and on a small lattice (SMALL cells), so that the bytes per orbital come both as
# peak RSS / N (the kernel's ru_maxrss, as bench/kite_run.sh measures KITE) and as (peak - peak
# of the small run) / (N - N small) from hamlet's own "memory host peak" line: the fixed ~200 MiB of
# MPI, HDF5 and libraries drop out of the second (ru_maxrss of the small run carries a transient of
# about 70 MB that hamlet's own peak does not see, so the difference uses the latter). Seconds per moment per orbital = the summary's
# "moments" time / (M R N) (Chebyshev doubling: M/2 steps per vector). Bounds from Gershgorin (a
# Lanczos start would hold its own vectors). One rank, THREADS OpenMP threads.
#   bash bench/real_memory.sh            env: HAMLET=build/bin/hamlet NX=2048 NY=2048 M=512 R=2
#                                             THREADS=2 SMALL="64 64" CONFIGS="complex real real_b1"
# Prints one markdown row per configuration; logs in $OUT (default /tmp/real_memory).
set -euo pipefail
cd "$(dirname "$0")/.."
HAMLET=${HAMLET:-build/bin/hamlet}
NX=${NX:-2048}
NY=${NY:-2048}
M=${M:-512}
R=${R:-2}
THREADS=${THREADS:-2}
SMALL=${SMALL:-64 64}
CONFIGS=${CONFIGS:-complex real real_b1}
OUT=${OUT:-/tmp/real_memory}
mkdir -p "$OUT"
LAT=$PWD/inputs/lattices/graphene.lattice

# deck NAME NX NY ARITHMETIC [BLOCK]
deck() {
  printf '[run]\nbackend = cpu\n[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = %s\nny = %s\nnz = 1\n' "$LAT" "$2" "$3"
  printf 'boundary = periodic periodic open\n'
  printf 'storage = matrix_free\narithmetic = %s\n[solver]\nmethod = kpm\n[kpm]\nmoments = %s\nvectors = %s\n' "$4" "$M" "$R"
  printf 'seed = 1\nbounds = gershgorin\n'
  [ -z "${5:-}" ] || printf 'block = %s\n' "$5"
}

# run NAME NX NY ARITHMETIC [BLOCK]: prints "peak_kib moments_seconds cpu_seconds own_peak_mib" (cpu:
# the whole process's user + system time, which a shared host's load disturbs less than the wall time)
run() {
  local name=$1
  deck "$@" >"$OUT/$name.ini"
  rm -f "$OUT/$name.h5"
  local timer=(/usr/bin/time -f "%M %U %S" -o "$OUT/$name.rss")
  [ -x /usr/bin/time ] || timer=() # no GNU time (the GPU machine): hamlet's own peak, no CPU time
  OMP_NUM_THREADS=$THREADS "${timer[@]}" "$HAMLET" run "$OUT/$name.ini" -o "$OUT/$name.h5" \
    >"$OUT/$name.log" 2>&1 || { echo "FAIL $name: $(tail -3 "$OUT/$name.log")" >&2; return 1; }
  local seconds own kib user sys
  seconds=$(sed -n 's/^ *moments .*vectors: \([0-9.]*\) s.*/\1/p' "$OUT/$name.log")
  own=$(sed -n 's/^ *memory *host peak [0-9.]* to \([0-9.]*\) MiB.*/\1/p' "$OUT/$name.log")
  if [ -x /usr/bin/time ]; then
    read -r kib user sys <"$OUT/$name.rss"
  else
    kib=$(awk -v m="$own" 'BEGIN { printf "%d", m * 1024 }') user=nan sys=0
  fi
  echo "$kib $seconds $(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }') $own"
}

read -r SX SY <<<"$SMALL"
orbitals=$((2 * NX * NY))
small_orbitals=$((2 * SX * SY))
echo "graphene $NX x $NY (N = $orbitals), M = $M, R = $R, $THREADS threads, $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| hamlet | moments (s, wall) | s per moment per orbital | process CPU (s) | peak RSS / N (B) | (peak - peak at $SX x $SY) / N (B) |"
echo "|---|---|---|---|---|---|"
for c in $CONFIGS; do
  case $c in
    complex) args=(complex) ;;
    real) args=(real) ;;
    real_b1) args=(real 1) ;;
    *) echo "unknown configuration $c" >&2; exit 2 ;;
  esac
  read -r _ _ _ small_mib < <(run "${c}_small" "$SX" "$SY" "${args[@]}")
  read -r kib seconds cpu mib < <(run "$c" "$NX" "$NY" "${args[@]}")
  awk -v c="$c" -v kib="$kib" -v smib="$small_mib" -v mib="$mib" -v s="$seconds" -v n="$orbitals" \
    -v sn="$small_orbitals" -v m="$M" -v r="$R" -v cpu="$cpu" 'BEGIN { printf "| %s | %.2f | %.3g | %.1f | %.1f | %.1f |\n",
      c, s, s / (m * r * n), cpu, kib * 1024 / n, (mib - smib) * 1048576 / (n - sn) }'
done
