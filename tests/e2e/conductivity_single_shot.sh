# [conductivity] expansion = single_shot: sigma_xx and sigma_yy(E) at T = 0 of a disordered graphene
# sheet (8 x 6 cells, Anderson W = 1, M = 64) from 2 ranks equal the Kubo-Greenwood sum over the
# moments that expansion = moments stores for the same deck (the same start vectors: exact trace
# and 4 random vectors; 1e-10), and, exact, the moments' Kubo-Bastin sigma within 2% of its largest value;
# matrix-free, the run is in real arithmetic (said in the summary and the output) and its exact trace
# equals that of arithmetic = complex on the same operator (1e-10); arithmetic = real with expansion = moments exits 2 naming why;
# checkpoints between start vectors and restarts (after the run's last checkpoint, after SIGTERM) bitwise
# equal to the run; the refusals of components, temperatures and frequencies that it does not compute,
# and of hamlet post (no moments to recompute from).
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
deck() { # NAME EXPANSION TRACE [EXTRA CONDUCTIVITY LINES]; STORAGE (assembled: the moments' CSR and phases)
  cat >"$1.ini" <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/graphene.lattice
nx = 8
ny = 6
nz = 1
boundary = periodic periodic open
storage = ${STORAGE:-assembled}
potential = disorder
disorder_w = 1
disorder_seed = 3
[solver]
method = conductivity
[kpm]
trace = $3
bounds = gershgorin
[conductivity]
expansion = $2
components = xx yy
energies = -2.5 2.5 11
moments = 64
${4:-}
INI
}
for trace in exact random; do
  extra=""
  [ "$trace" = random ] && extra=$'vectors = 4\nseed = 7'
  deck "mom_$trace" moments "$trace" "$extra"
  deck "ss_$trace" single_shot "$trace" "$extra"
  for name in "mom_$trace" "ss_$trace"; do
    run2 run "$name.ini" -o "$name.h5" --quiet >"$name.log" 2>&1 || fail "$name: $(cat "$name.log")"
  done
done
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - <<'PY' || fail "single shot differs from the moments' Greenwood sum"
import h5py, numpy as np, lattice_model as lm
def jackson(M):
    n, a = np.arange(M), np.pi / (M + 1)
    return ((M - n + 1) * np.cos(a * n) + np.sin(a * n) / np.tan(a)) / (M + 1)
for trace in ("exact", "random"):
    mom = h5py.File("mom_%s.h5" % trace, "r")["/conductivity"]
    ss = h5py.File("ss_%s.h5" % trace, "r")["/conductivity"]
    mu = lm.complex_array(mom["moments"][:])
    M, scale, shift, density = mu.shape[1], mom.attrs["scale"], mom.attrs["shift"], mom.attrs["density"]
    assert ss.attrs["expansion"].decode() == "single_shot" and "moments" not in ss
    assert abs(ss.attrs["scale"] - scale) < 1e-14 * scale and ss.attrs["density"] == density
    E = ss["energy"][:]
    x = scale * (E - shift)
    c = scale * np.where(np.arange(M) == 0, 1, 2)[:, None] * jackson(M)[:, None] * np.cos(np.outer(np.arange(M), np.arccos(x)))
    c /= np.pi * np.sqrt(1 - x**2)
    ref = np.array([2 * np.pi**2 * density * np.einsum("n,nm,m->", c[:, e], mu[k], c[:, e]).real
                    for k in range(2) for e in range(len(E))]).reshape(2, len(E))
    sigma, bastin = ss["sigma"][:, 0, :], mom["sigma"][:, 0, :]
    err, berr = np.abs(sigma - ref).max() / np.abs(ref).max(), np.abs(sigma - bastin).max() / np.abs(ref).max()
    print("%s trace: single shot off the moments' Greenwood sum by %.2g, off Kubo-Bastin by %.2g (largest %.3g)"
          % (trace, err, berr, np.abs(ref).max()))
    assert np.abs(ref).max() > 0.1 and err < 1e-10
    assert trace == "random" or berr < 0.02  # Bastin = Greenwood for exact, symmetric moments (not random ones)
    if trace == "random":
        assert np.all(ss["error"][:] > 0)
PY
# Real arithmetic: the matrix-free operator of real graphene (auto: real), exact trace, the same sigma
# as in complex arithmetic on that operator (whose Gershgorin interval is not the assembled matrix's).
for a in auto complex; do
  STORAGE=$'auto\narithmetic = '$a deck "ss_mf_$a" single_shot exact ""
  run2 run "ss_mf_$a.ini" -o "ss_mf_$a.h5" >"ss_mf_$a.log" 2>&1 || fail "single shot, matrix-free $a: $(cat "ss_mf_$a.log")"
done
grep -q "exact trace, 11 energies, real arithmetic" ss_mf_auto.log || fail "the summary does not say real: $(cat ss_mf_auto.log)"
"$PYTHON" - <<'PY' || fail "real arithmetic differs from complex"
import h5py, numpy as np
real, cplx = h5py.File("ss_mf_auto.h5", "r"), h5py.File("ss_mf_complex.h5", "r")
assert real["/hamiltonian"].attrs["arithmetic"].decode() == "real", real["/hamiltonian"].attrs["arithmetic"]
a, b = real["/conductivity/sigma"][:], cplx["/conductivity/sigma"][:]
err = np.abs(a - b).max() / np.abs(b).max()
print("real arithmetic off complex by %.2g" % err)
assert np.abs(b).max() > 0.1 and err < 1e-10
PY
STORAGE=$'matrix_free\narithmetic = real' deck moments_real moments exact ""
code=0
"$HAMLET" run moments_real.ini -o moments_real.h5 --quiet >moments_real.log 2>&1 || code=$?
[ "$code" -eq 2 ] && grep -qF "expansion = single_shot (charge current) run in real arithmetic" moments_real.log &&
  [ ! -e moments_real.h5 ] || fail "arithmetic = real with the moments: exit $code: $(cat moments_real.log)"
# Checkpoints between start vectors: the restart from the last one ends bitwise equal to the run; SIGTERM
# stops a slowed run with exit 4 and a checkpoint whose restart is bitwise equal too.
deck ckpt single_shot random $'vectors = 4\nseed = 7'
printf '[run]\ncheckpoint = ckpt_state.h5\ncheckpoint_every = 3\n' >>ckpt.ini
run2 run ckpt.ini -o ckpt_full.h5 --quiet >ckpt.log 2>&1 || fail "single shot with checkpoints: $(cat ckpt.log)"
"$HAMLET" compare ss_random.h5 ckpt_full.h5 --rtol 0 --atol 0 --only /conductivity/sigma >cmp.txt 2>&1 ||
  fail "checkpoints changed the single shot's sigma: $(cat cmp.txt)"
cp ckpt_state.h5 ckpt_saved.h5
"$PYTHON" -c "import h5py; v = h5py.File('ckpt_saved.h5', 'r')['scalars'][:]; assert tuple(v[6:8]) == (1, 2), v[6:8]" ||
  fail "the last checkpoint is not after start vector 2 of component yy"
run2 restart ckpt_saved.h5 -o ckpt_re.h5 --quiet >re.log 2>&1 || fail "restart of a single shot: $(cat re.log)"
"$HAMLET" compare ckpt_full.h5 ckpt_re.h5 --rtol 0 --atol 0 --only /conductivity >cmp.txt 2>&1 ||
  fail "the single shot's restart is not bitwise: $(cat cmp.txt)"
ranks_of() {
  local proxy
  for proxy in $(pgrep -P "$1"); do pgrep -P "$proxy"; done
}
rm -f ckpt_state.h5 step.done
HAMLET_TEST_STEP_FILE=step.done HAMLET_TEST_STEP_DELAY_US=500000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run ckpt.ini \
  -o stopped.h5 --quiet >stop.log 2>&1 &
pid=$!
code=0
wait_step step.done "$pid"
# shellcheck disable=SC2046 # one pid per word
kill -TERM $(ranks_of "$pid")
wait "$pid" || code=$?
[ "$code" -eq 4 ] && grep -q "stopped by SIGTERM after .* start vectors of component" stop.log ||
  fail "SIGTERM: exit $code, want 4 and the message: $(cat stop.log)"
[ -e stopped.h5 ] && fail "the run finished before the signal: slow it down more"
run2 restart ckpt_state.h5 -o stop_re.h5 --quiet >re.log 2>&1 || fail "restart after SIGTERM: $(cat re.log)"
"$HAMLET" compare ckpt_full.h5 stop_re.h5 --rtol 0 --atol 0 --only /conductivity >cmp.txt 2>&1 ||
  fail "the restart after SIGTERM is not bitwise: $(cat cmp.txt)"
"$HAMLET" post ss_exact.h5 --energies -1 1 3 -o post.h5 >post.log 2>&1
[ $? -eq 2 ] && grep -qF "holds a single-shot sigma" post.log && [ ! -e post.h5 ] || fail "post of a single shot: $(cat post.log)"
refused() { # NAME COMPONENTS EXTRA-LINES EXPECTED
  deck "$1" single_shot random "$3"
  sed -i "s/^components = xx yy$/components = $2/" "$1.ini"
  "$HAMLET" run "$1.ini" --quiet >"$1.log" 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$4" "$1.log" || fail "$1: exit $code, want 2 with '$4': $(cat "$1.log")"
}
refused offdiag "xx xy" "" "expansion = single_shot: components must be xx, yy or zz"
refused warm xx "temperatures = 0.1" "temperatures must be 0"
refused optical xx "frequencies = 0.1 1 4" "no frequencies"
finish
