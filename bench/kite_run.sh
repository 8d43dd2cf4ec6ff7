#!/bin/bash
# KITE (github quantum-kite/kite, KITEx: C++/OpenMP, matrix-free tiles) as hamlet's KPM peer on the
# GPU machine's host cores: its DOS moments on graphene and hamlet's TI, M and R fixed, seconds per
# moment per orbital and peak bytes per orbital, as rows for bench/README.md.
# Needs no hamlet build and no GPU; the same lattices through hamlet's CPU path run elsewhere.
#   build the bundle here first:  bash bench/kite_build.sh        (.peers/kite/bundle, 8.4 MiB)
#   run (with .peers/kite/bundle in the tree):  bash bench/kite_run.sh
#   env: THREADS=16  M=1024  M0=64  R=2  GRAPHENE="4096 4096"  TI="256 256 128"  KITE_TIMEOUT=400 (s a run)
#        BUDGET=560 (s in all)  GRAPHENE_FALLBACK="2048 2048"  TI_FALLBACK="128 128 128" (where the first won't fit)
#        STEPS="check graphene ti"  (add graphene_complex: graphene in complex arithmetic as well;
#        conductivity: KITE's conductivity_dc (full spectrum, M x M moments of COND_DIRECTION) and
#        singleshot_conductivity_dc on graphene COND_CELLS (default "512 512") with COND_M (1024) and
#        COND_R (1) moments and vectors, one run each, to set beside hamlet's run of the same deck;
#        COND_CALCS names which of the two (both), COND_ENERGIES the single shot's energies "0 0.5 1")
# Each lattice runs KITEx twice, with M0 and M moments (same R): the moment loop's time is the
# difference (reading, allocation and random vectors drop out); peak RSS is the M run's (wait4).
# KITEx runs prod(divisions) = THREADS OpenMP threads whatever OMP_NUM_THREADS says; the thread grid
# is the most compact one with every side a multiple of 8 x its divisions (bench/kite_input.py).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
THREADS=${THREADS:-16}
M=${M:-1024}
M0=${M0:-64}
R=${R:-2}
GRAPHENE=${GRAPHENE:-4096 4096}
TI=${TI:-256 256 128}
GRAPHENE_FALLBACK=${GRAPHENE_FALLBACK:-2048 2048} # used where the first size would not fit the budget
TI_FALLBACK=${TI_FALLBACK:-128 128 128}
STEPS=${STEPS:-check graphene ti}
KITE_TIMEOUT=${KITE_TIMEOUT:-400} # seconds one KITEx run may take
BUDGET=${BUDGET:-560}             # seconds for the whole script (a device command may run 600)
KITEX=${KITEX:-$PWD/.peers/kite/bundle/KITEx}
# The GPU machine's python3 on PATH has numpy and h5py (its /usr/bin/python3 has no h5py).
PYTHON=${HAMLET_TEST_PYTHON:-$(command -v python3)}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
WORK=$(mktemp -d /tmp/kite.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

[ -x "$KITEX" ] || { echo "no KITEx at $KITEX: build it with bench/kite_build.sh and carry .peers/kite/bundle"; exit 1; }
if ldd "$KITEX" | grep "not found"; then echo "KITEx misses the libraries above on this machine"; exit 1; fi
{
  cat "$(dirname "$KITEX")/SOURCE"
  lscpu | grep -E "^(Model name|Socket|Core|Thread|NUMA node\(s\)|L3)" || true
  echo "nproc $(nproc); THREADS $THREADS M $M M0 $M0 R $R"
} | tee "$OUT/kite_host.txt"

status=0
if want check; then
  # KITE's moments against the exact Bloch ones on small lattices (the test bench_kite_exact).
  KITEX=$KITEX HAMLET_TEST_PYTHON=$PYTHON HAMLET_TEST_REQUIRE=h5py bash bench/kite_check.sh kite \
    >"$OUT/kite_check.log" 2>&1 || status=1
  grep -E "^(ok|FAIL|PASSED|FAILED|no KITEx)" "$OUT/kite_check.log" || true
fi

TABLE=$OUT/kite_table.md
"$PYTHON" -c 'import sys; sys.path.insert(0, "bench"); import kite_input; print(kite_input.TABLE_HEADER)' >"$TABLE"
bench() {
  local name=$1 model=$2 cells=$3 left code; shift 3
  left=$((BUDGET - SECONDS))
  [ "$left" -gt 20 ] || { echo "SKIPPED: $name (the ${BUDGET} s budget is spent)"; status=1; return; }
  [ "$left" -lt "$KITE_TIMEOUT" ] || left=$KITE_TIMEOUT
  echo "== $name: $model $cells, M $M (minus M0 $M0), R $R, $THREADS threads ($SECONDS s)"
  # shellcheck disable=SC2086 # the cell counts split into words on purpose
  "$PYTHON" bench/kite_input.py bench "$model" --cells $cells --moments "$M" --moments0 "$M0" --randoms "$R" \
    --threads "$THREADS" --kitex "$KITEX" --name "$name" --workdir "$WORK" --logdir "$OUT" --table "$TABLE" \
    --timeout "$left" "$@" || code=$?
  case ${code:-0} in
    0) ;;
    3) return 3 ;; # would not fit in the time left: the caller may try fewer cells
    *) echo "FAIL: $name"; status=1 ;;
  esac
}
# A lattice too large for the time left (exit 3, judged from the M0 run) is retried at the fallback size.
want graphene && { bench graphene graphene "$GRAPHENE" || bench graphene graphene "$GRAPHENE_FALLBACK" || status=1; }
want graphene_complex && { bench graphene_complex graphene "$GRAPHENE" --complex || status=1; }
want ti && { bench ti ti "$TI" || bench ti ti "$TI_FALLBACK" || status=1; }
if want conductivity; then
  for calc in ${COND_CALCS:-conductivity_dc singleshot}; do
    left=$((BUDGET - SECONDS))
    [ "$left" -gt 20 ] || { echo "SKIPPED: conductivity $calc (the ${BUDGET} s budget is spent)"; status=1; continue; }
    [ "$left" -lt "$KITE_TIMEOUT" ] || left=$KITE_TIMEOUT
    echo "== graphene ${COND_CELLS:-512 512} $calc ${COND_DIRECTION:-xx}: M ${COND_M:-1024}, R ${COND_R:-1} ($SECONDS s)"
    # shellcheck disable=SC2086 # the cell counts split into words on purpose
    "$PYTHON" bench/kite_input.py bench graphene --cells ${COND_CELLS:-512 512} --moments "${COND_M:-1024}" \
      --randoms "${COND_R:-1}" --threads "$THREADS" --kitex "$KITEX" --name graphene_cond --workdir "$WORK" \
      --logdir "$OUT" --table "$OUT/kite_conductivity.md" --timeout "$left" --calc "$calc" \
      --direction "${COND_DIRECTION:-xx}" --energies ${COND_ENERGIES:-0 0.5 1} --gamma 0.02 ||
      { echo "FAIL: conductivity $calc"; status=1; }
  done
fi
echo
echo "KITE $(cut -d' ' -f2 "$(dirname "$KITEX")/SOURCE"), $(date -u +%F), $(lscpu | sed -n 's/^Model name: *//p' | head -1):"
cat "$TABLE"
echo "device_kite: exit $status at $SECONDS s"
exit "$status"
