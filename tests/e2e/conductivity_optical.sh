# The optical conductivity from a deck ([conductivity] frequencies, eta): on an 8 x 8 disordered
# graphene flake (exact trace, M = 512) /conductivity/sigma_omega [component][T][mu][omega][re, im]
# equals the Kubo formula of numpy eigenpairs, sigma_ab(omega) = (i / omega) [Pi(omega) - Pi(0)] with
# Lorentzian broadening eta (the kernel's broadening is the expansion's error, falling as 1/M^2: 5% at
# M = 256, 1.6% at 512; within 3% of the largest |sigma_xx|, xy too: time-reversal symmetric, it is
# small); hamlet post reproduces it, recomputes it on new frequencies and eta as a run with
# them does, and refuses --eta without frequencies; a DC-only deck writes no sigma_omega;
# hamlet plot draws it.
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
deck() { # deck NAME MOMENTS FREQUENCY-LINES
  cat >"$1.ini" <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/graphene.lattice
nx = 8
ny = 8
nz = 1
boundary = periodic periodic open
potential = disorder
disorder_w = 1
disorder_seed = 3
[solver]
method = conductivity
[kpm]
trace = exact
bounds = gershgorin
[conductivity]
components = xx xy
energies = -0.6 0.4 2
temperatures = 0.1
moments = $2
$3
INI
}
deck run 512 $'frequencies = 0.2 4 20\neta = 0.15'
"$MPIEXEC" -n 1 "$HAMLET" run run.ini -o run.h5 --quiet >run.log 2>&1 || fail "run: $(cat run.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - run.h5 "$SOURCE_DIR/inputs/lattices/graphene.lattice" <<'PY' ||
import sys, h5py, numpy as np
import lattice_model as lm, conductivity_reference as cr
g = h5py.File(sys.argv[1], "r")["/conductivity"]
so, w = g["sigma_omega"][:], g["frequency"][:]
assert so.shape == (2, 1, 2, 20, 2), so.shape
assert g["sigma"].attrs["unit"] == g["sigma_omega"].attrs["unit"]
eta, density, T = g.attrs["eta"], g.attrs["density"], g["temperature"][0]
cells = (8, 8, 1)
no, blocks = lm.read_hamlet(sys.argv[2])
H, _ = lm.supercell(no, blocks, cells, boundary=("periodic", "periodic", "open"), disorder_w=1, disorder_seed=3)
cell, pos = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]], [[0.5, 0.5 / 3**0.5, 0], [1.0, 1 / 3**0.5, 0]]
E, U = np.linalg.eigh(H)
v = [U.conj().T @ cr.velocity(H, no, cells, cell, pos, a) @ U for a in (0, 1)]
N = len(H)
for e, mu in enumerate(g["energy"][:]):
    scale = None
    f = 1 / (1 + np.exp((E - mu) / T))
    df, dE = f[:, None] - f[None, :], E[:, None] - E[None, :]  # [k, l]: f_k - f_l, E_k - E_l
    for c, (a, b) in enumerate([(0, 0), (0, 1)]):
        weight = df * v[b] * v[a].T  # (f_k - f_l) (v_b)_kl (v_a)_lk
        Pi = lambda om: (weight / (om + dE + 1j * eta)).sum()
        ref = np.array([1j / om * (Pi(om) - Pi(0)) for om in w]) * 2 * np.pi * density / N
        got = so[c, 0, e, :, 0] + 1j * so[c, 0, e, :, 1]
        scale = scale or np.abs(ref).max()  # xx's
        err = np.abs(got - ref).max() / scale
        print(f"mu {mu:g} component {'xx xy'.split()[c]}: largest |sigma| {np.abs(ref).max():.4f}, off numpy by {err:.4f}"
              " of the largest |sigma_xx|")
        assert err < 0.03 and scale > 0.1, (mu, c, err)
PY
  fail "sigma_omega differs from the numpy Kubo formula"
"$HAMLET" post run.h5 -o same.h5 >post.log 2>&1 || fail "post: $(cat post.log)"
"$HAMLET" compare run.h5 same.h5 --rtol 1e-12 --atol 1e-14 --only /conductivity/sigma_omega,/conductivity/frequency >cmp.txt ||
  fail "post with the run's own frequencies differs from the run: $(cat cmp.txt)"
deck new 512 $'frequencies = 0.5 1.5 3\neta = 0.3'
"$MPIEXEC" -n 1 "$HAMLET" run new.ini -o new.h5 --quiet >new.log 2>&1 || fail "run with new frequencies: $(cat new.log)"
"$HAMLET" post run.h5 --frequencies 0.5 1.5 3 --eta 0.3 -o posted.h5 >post.log 2>&1 || fail "post --frequencies: $(cat post.log)"
grep -qF "sigma(omega) at 3 frequencies (eta = 0.3)" post.log || fail "post's summary: $(cat post.log)"
"$HAMLET" compare new.h5 posted.h5 --rtol 1e-12 --atol 1e-14 --only /conductivity/sigma_omega,/conductivity/frequency \
  >cmp.txt || fail "post --frequencies --eta differs from a run with them: $(cat cmp.txt)"
deck dc 16 ""
"$MPIEXEC" -n 1 "$HAMLET" run dc.ini -o dc.h5 --quiet >dc.log 2>&1 || fail "DC run: $(cat dc.log)"
"$PYTHON" -c "import h5py; g = h5py.File('dc.h5', 'r')['/conductivity']; assert 'sigma_omega' not in g and 'frequency' not in g" ||
  fail "a deck without frequencies wrote sigma_omega"
"$HAMLET" post dc.h5 --eta 0.1 -o x.h5 >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] && grep -qF -- "--eta is the optical sigma's broadening" bad.log || fail "post --eta alone: exit $code, $(cat bad.log)"
"$HAMLET" post dc.h5 --frequencies 0 1 3 >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] && grep -qF -- "--frequencies needs wmin wmax count: 0 < wmin" bad.log ||
  fail "post --frequencies 0 1 3: exit $code, $(cat bad.log)"
if "$PYTHON" -c "import matplotlib" 2>/dev/null; then
  "$HAMLET" plot run.h5 -o optical.png >plot.log 2>&1 && [ -s optical.png ] || fail "hamlet plot: $(cat plot.log)"
fi
finish
