# Kubo-Greenwood check of method = conductivity: sigma_xx of a 16 x 16 Anderson-disordered square
# lattice (W = 2, periodic), exact trace, M = 64, Jackson kernel, at k_B T = 0.2 on 13 chemical
# potentials, equals the Kubo-Greenwood value from dense eigenpairs,
#   sigma_xx(mu, T) = Int dE (-df/dE) 2 pi^2 (density / N) sum_kl |<k|v_x|l>|^2 d_J(E - E_k) d_J(E - E_l)  [e^2/h],
# with d_J the same M-term Jackson-damped Chebyshev delta (tests/support/conductivity_reference.py),
# to 2e-4 relative. Why that tolerance: for the symmetric xx component the Kubo-Bastin formula that
# hamlet evaluates reduces to Kubo-Greenwood term by term (the damped Chebyshev series of delta and
# of the principal part of G are Hilbert pairs), so only quadrature is left: hamlet's K = 4M nodes
# in arccos(e) and the reference's 3001-point energy grid (measured 2e-5..3e-5). At T = 0 the step
# f falls inside one of hamlet's quadrature cells; counting that cell by its occupied part (instead
# of 0 or 1 at its midpoint, which was 3.3% off here) measured 0.31%: checked to 1%.
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
cat >kg.ini <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/square.lattice
nx = 16
ny = 16
nz = 1
boundary = periodic periodic open
potential = disorder
disorder_w = 2
disorder_seed = 5
[solver]
method = conductivity
[kpm]
trace = exact
bounds = gershgorin
[conductivity]
components = xx
energies = -3 3 13
temperatures = 0.2 0
moments = 64
INI
"$MPIEXEC" -n 2 "$HAMLET" run kg.ini -o kg.h5 --quiet >kg.log 2>&1 || fail "run: $(cat kg.log)"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - kg.h5 "$SOURCE_DIR/inputs/lattices/square.lattice" <<'PY' ||
import sys, h5py, numpy as np
import lattice_model as lm, conductivity_reference as cr
g = h5py.File(sys.argv[1], "r")["/conductivity"]
no, blocks = lm.read_hamlet(sys.argv[2])
cells = (16, 16, 1)
H, _ = lm.supercell(no, blocks, cells, boundary=("periodic", "periodic", "open"), disorder_w=2, disorder_seed=5)
vx = cr.velocity(H, no, cells, np.eye(3), np.zeros((no, 3)), 0)
E, M, s, b = g["energy"][:], g["moments"].shape[1], g.attrs["scale"], g.attrs["shift"]
grid = np.linspace(b - 0.999 / s, b + 0.999 / s, 3001)
kg = cr.kubo_greenwood_xx(H, vx, grid, M, s, b, g.attrs["density"])
sigma = g["sigma"][0]  # [temperature][energy]
T = 0.2
trapz = getattr(np, "trapezoid", getattr(np, "trapz", None))  # NumPy 2 renamed it
ref_T = np.array([trapz(kg / (4 * T * np.cosh((grid - e) / (2 * T)) ** 2), grid) for e in E])
ref_0 = cr.kubo_greenwood_xx(H, vx, E, M, s, b, g.attrs["density"])
err_T = np.abs(sigma[0] - ref_T).max() / np.abs(ref_T).max()
err_0 = np.abs(sigma[1] - ref_0).max() / np.abs(ref_0).max()
print("sigma_xx vs Kubo-Greenwood: T = 0.2 relative error %.2e, T = 0 %.2e" % (err_T, err_0))
assert ref_T.min() > 1, ref_T  # a metal: sigma of order a few e^2/h
assert err_T < 2e-4, (sigma[0], ref_T)
assert err_0 < 0.01, (sigma[1], ref_0)
PY
  fail "sigma_xx differs from the Kubo-Greenwood reference"
finish
