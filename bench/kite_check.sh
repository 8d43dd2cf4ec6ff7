#!/bin/bash
# KITE peer: bench/kite_input.py's models, exact moments and input files, and KITEx's
# moments against the exact Bloch ones on small lattices.
#   bash bench/kite_check.sh selftest   no KITE needed: the models against hamlet's NumPy TI and the
#                                       analytic bands, exact moments against dense diagonalization
#   bash bench/kite_check.sh kite       KITEx ($KITEX, default .peers/kite/bundle/KITEx from
#                                       bench/kite_build.sh) on graphene and the TI; skipped (77) without it
# Exact checks: SEED=deterministic (graphene, 2D only in KITE) gives <0|T_n(H)|0> of one orbital and
# SEED=ones the k = 0 state's moments, both to 1e-9; random vectors give the DOS moments within
# 6 standard deviations of the trace estimate (sqrt(2 / (N R)) each).
mode=${1:?selftest or kite}
SOURCE_DIR=${SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
# shellcheck source=tests/e2e/common.sh
source "$SOURCE_DIR/tests/e2e/common.sh"
need_h5py
KI=("$PYTHON" "$SOURCE_DIR/bench/kite_input.py")

if [ "$mode" = selftest ]; then
  "${KI[@]}" selftest --support "$SOURCE_DIR/tests/support" --lattices "$SOURCE_DIR/inputs/lattices" --workdir "$WORK" ||
    fail "kite_input.py selftest"
  # Bad requests: a lattice KITE cannot tile, a TI with two cell counts, an odd moment count, and
  # a check of a file KITEx never ran on; each exits 2 with a message saying what is allowed.
  out=$("${KI[@]}" write graphene --cells 20 20 -o bad.h5 2>&1); code=$?
  [ "$code" -eq 2 ] && [[ "$out" == *"multiples of 8"* ]] || fail "20 x 20 cells on 16 threads: exit $code, '$out'"
  out=$("${KI[@]}" write ti --cells 16 16 -o bad.h5 2>&1); code=$?
  [ "$code" -eq 2 ] && [[ "$out" == *"needs 3 cell counts"* ]] || fail "TI with 2 cell counts: exit $code, '$out'"
  out=$("${KI[@]}" write graphene --cells 16 16 --threads 1 --moments 63 -o bad.h5 2>&1); code=$?
  [ "$code" -eq 2 ] && [[ "$out" == *"moments must be even"* ]] || fail "63 moments: exit $code, '$out'"
  "${KI[@]}" write ti --cells 8 8 8 --threads 1 -o notrun.h5 >/dev/null || fail "writing notrun.h5"
  out=$("${KI[@]}" check notrun.h5 2>&1); code=$?
  [ "$code" -eq 2 ] && [[ "$out" == *"did KITEx run on it?"* ]] || fail "check of a file KITEx did not run: exit $code, '$out'"
  finish
fi

KITEX=${KITEX:-$SOURCE_DIR/.peers/kite/bundle/KITEx}
need kite "no KITEx at $KITEX (bash bench/kite_build.sh builds it)" test -x "$KITEX"
# run_kite NAME SEED: KITEx on NAME.h5 with the SEED given ('' = unset: random vectors)
run_kite() {
  local name=$1 seed=$2
  if [ -n "$seed" ]; then
    SEED=$seed "$KITEX" "$name.h5" >"$name.log" 2>&1
  else
    env -u SEED "$KITEX" "$name.h5" >"$name.log" 2>&1
  fi || { fail "KITEx on $name.h5 (SEED='$seed'): exit $?"; tail -5 "$name.log"; return 1; }
}
# check NAME MODEL CELLS... -- WRITE_ARGS : write, run with the seed of the mode, compare
check() {
  local name=$1 kind=$2 seed=$3; shift 3
  "${KI[@]}" write "$@" -o "$name.h5" >/dev/null || { fail "writing $name.h5"; return; }
  run_kite "$name" "$seed" || return
  "${KI[@]}" check "$name.h5" --mode "$kind" || fail "$name: KITE's moments differ from the exact ones"
}
check g_site site deterministic graphene --cells 32 32 --moments 96 --randoms 1 --threads 4
check g_ones ones ones graphene --cells 32 16 --moments 64 --randoms 1 --threads 2
check g_complex_site site deterministic graphene --cells 16 32 --moments 64 --randoms 1 --threads 2 --complex
check g_random random '' graphene --cells 64 64 --moments 128 --randoms 4 --threads 4
check ti_ones ones ones ti --cells 16 16 8 --moments 64 --randoms 1 --threads 4
check ti_random random '' ti --cells 32 16 16 --moments 128 --randoms 2 --threads 4
check ti_m_random random '' ti --cells 16 16 16 --moments 96 --randoms 3 --threads 2 --m -1 --t 0.8
# The timed runner of bench/kite_run.sh on a tiny lattice: one table row (its times are noise at this size).
"${KI[@]}" bench graphene --cells 32 32 --moments 48 --moments0 16 --randoms 1 --threads 2 --kitex "$KITEX" \
  --name smoke --workdir "$WORK" --logdir "$WORK" --table table.md >bench.log 2>&1 || { fail "bench runner"; cat bench.log; }
grep -Eq '^\| KITE .*\| graphene 32x32 \| 2048 \| 48 \| 1 \|' table.md || { fail "bench runner's row"; cat bench.log; }
finish
