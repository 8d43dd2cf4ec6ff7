# shellcheck shell=bash
# Bad input on 2 and 3 ranks: every run exits 2 and every failing rank's message is printed, in
# each of 6 repetitions (HAMLET_ERROR_REPEATS overrides): before the ranks agreed on the exit, one
# rank's MPI_Abort killed the others before they printed in about 1 run of 10, so the 48 runs of the
# repeated cases miss such a race with probability 0.9^48 < 0.01 per CI run. Each run is ~0.7 s of
# start-up (1.7 s on 3 ranks sharing 2 cores).
# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "$0")/common.sh"
need_h5py
REPEATS=${HAMLET_ERROR_REPEATS:-6}
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1.0\n2 x 1.0\n3 3 1.0\n' > bad.mtx
printf '[run]\noutput = m.h5\n[hamiltonian]\nmodel = mtx\nmatrix = bad.mtx\n[solver]\nmethod = dense\n' > malformed.ini
sed 's/bad.mtx/no_such.mtx/' malformed.ini > missing.ini
printf '[run]\noutput = d.h5\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n[kpm]\nmoments = 7\n' > baddeck.ini
# A checkpoint that does not match the run its deck describes: n_global edited.
printf '[run]\noutput = k.h5\ncheckpoint = k_ckpt.h5\ncheckpoint_every = 4\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n[kpm]\nmoments = 64\nvectors = 2\n' > kpm.ini
run2 run kpm.ini --quiet >kpm.log 2>&1 || fail "making a checkpoint: $(cat kpm.log)"
"$PYTHON" -c "import h5py; h5py.File('k_ckpt.h5', 'r+').attrs['n_global'] = 12345" || fail "editing the checkpoint"
check() { # check RANKS PER_RANK NEEDLE -- command...: exit 2, NEEDLE printed PER_RANK (1: every rank, 0: once)
  local n=$1 per_rank=$2 needle=$3; shift 4
  local want=1 r i
  [ "$per_rank" -eq 1 ] && want=$n
  for i in $(seq 1 "$REPEATS"); do
    "$MPIEXEC" -n "$n" "$@" >out.txt 2>err.txt
    local code=$?
    local got
    got=$(grep -cF -- "$needle" err.txt)
    if [ "$code" -ne 2 ] || [ "$got" -ne "$want" ]; then
      fail "run $i on $n ranks of '$*': exit $code (expected 2), '$needle' printed $got times (expected $want): $(cat err.txt)"
      return
    fi
    if [ "$per_rank" -eq 1 ]; then
      for r in $(seq 0 $((n - 1))); do
        grep -qF "hamlet: rank $r failed" err.txt || { fail "run $i on $n ranks of '$*': rank $r said nothing: $(cat err.txt)"; return; }
      done
    fi
  done
}
for n in 2 3; do
  check "$n" 1 "bad.mtx:4: column index 'x' is not an integer" -- "$HAMLET" run malformed.ini
  check "$n" 1 "cannot open Matrix Market file no_such.mtx" -- "$HAMLET" run missing.ini
  check "$n" 0 "baddeck.ini:9" -- "$HAMLET" run baddeck.ini
  check "$n" 1 "n_global = 12345" -- "$HAMLET" restart k_ckpt.h5 -o k2.h5
done
# The other bad input files exit 2 as well (once each): a missing grid file, a malformed
# right-hand side, a file given to restart that is no checkpoint, a result file given to restart.
REPEATS=1
printf '[run]\noutput = g.h5\n[hamiltonian]\nmodel = fem\nex = 4\ney = 4\nez = 4\npotential = grid\ngrid_file = no_such_grid.h5\ngrid_dataset = V\n[solver]\nmethod = dense\n' > grid.ini
check 2 1 "cannot read 'no_such_grid.h5'" -- "$HAMLET" run grid.ini
printf '%%%%MatrixMarket matrix array real general\n64 1\n1.0\nnan?\n' > rhs.mtx
printf '[run]\noutput = r.h5\n[hamiltonian]\nmodel = convdiff\nn = 4\neps = 1\n[solver]\nmethod = idr\nproblem = linear\n[rhs]\nkind = file\nfile = rhs.mtx\n' > rhs.ini
check 2 1 "rhs.mtx:4: value 'nan?' is not a number" -- "$HAMLET" run rhs.ini
check 2 0 "is not an HDF5 file" -- "$HAMLET" restart kpm.ini -o k3.h5
check 2 0 "is not a hamlet" -- "$HAMLET" restart k.h5 -o k3.h5
[ -e m.h5 ] || [ -e d.h5 ] || [ -e k2.h5 ] || [ -e g.h5 ] || [ -e r.h5 ] || [ -e k3.h5 ] && fail "a refused run wrote a result"
finish
