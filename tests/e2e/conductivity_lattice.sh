# method = conductivity for model = lattice: the exact-trace moments Tr[v_a T_n v_b T_m] / N of QWZ
# (inputs/lattices/qwz.lattice) and of the Haldane model (honeycomb: oblique lattice vectors,
# orbitals off the cell origin) equal dense references built in numpy from the formulas (velocity
# i[H, X] with nearest-image displacements, eigenpairs; 1e-12); matrix-free storage on 2 ranks
# equals assembled on 1; the TI of inputs/lattices/ti.lattice gives model = ti's moments (1e-12);
# sigma_xy in the gap of QWZ and Haldane is +-1 e^2/h (the built-in QWZ stencil test's value) within
# 2% and 6% (12 x 12 cells, M = 192: the Bastin series' truncation error; it shrinks with M).
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
LAT=$SOURCE_DIR/inputs/lattices
deck() { # deck NAME MODEL-LINES CELLS MOMENTS COMPONENTS [EXTRA-HAMILTONIAN-LINE]
  printf '[hamiltonian]\n%s\n%s\n%s\n[solver]\nmethod = conductivity\n[kpm]\ntrace = exact\nbounds = gershgorin\n' \
    "$2" "$3" "${6:-}" >"$1.ini"
  printf '[conductivity]\ncomponents = %s\nenergies = -0.2 0.2 3\nmoments = %s\n' "$5" "$4" >>"$1.ini"
}
SMALL=$'nx = 6\nny = 6\nnz = 1\nboundary = periodic periodic open'
for m in qwz haldane; do
  deck "$m" "model = lattice"$'\n'"lattice_file = $LAT/$m.lattice" "$SMALL" 32 "xx xy"
  "$MPIEXEC" -n 1 "$HAMLET" run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
  deck "${m}_mf" "model = lattice"$'\n'"lattice_file = $LAT/$m.lattice" "$SMALL" 32 "xx xy" "storage = matrix_free"
  "$MPIEXEC" -n 2 "$HAMLET" run "${m}_mf.ini" -o "${m}_mf.h5" --quiet >"$m.log" 2>&1 || fail "$m matrix-free: $(cat "$m.log")"
  "$HAMLET" compare "$m.h5" "${m}_mf.h5" --rtol 1e-12 --atol 1e-13 --only /conductivity/moments >cmp.txt ||
    fail "$m: matrix-free on 2 ranks differs from assembled on 1: $(tail -2 cmp.txt)"
done
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$LAT/haldane.lattice" <<'PY' || fail "moments differ from the dense references"
import sys, h5py, numpy as np
import lattice_model as lm, conductivity_reference as cr
cells, bc = (6, 6, 1), ("periodic", "periodic", "open")
sx, sy, sz = np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.diag([1.0, -1.0])
qwz = {(0, 0, 0): -sz, (1, 0, 0): sz / 2 - 1j * sx / 2, (0, 1, 0): sz / 2 - 1j * sy / 2}  # u = -1
qwz.update({(-1, 0, 0): qwz[1, 0, 0].conj().T, (0, -1, 0): qwz[0, 1, 0].conj().T})
no, haldane = lm.read_hamlet(sys.argv[1])
models = {"qwz": (2, qwz, np.eye(3), np.zeros((2, 3))),
          "haldane": (no, haldane, [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]],
                      [[0.5, 0.5 / 3**0.5, 0], [1.0, 1 / 3**0.5, 0]])}
for name, (orbitals, blocks, cell, pos) in models.items():
    g = h5py.File(name + ".h5", "r")["/conductivity"]
    mu = lm.complex_array(g["moments"][:])
    H, _ = lm.supercell(orbitals, blocks, cells, boundary=bc)
    v = [cr.velocity(H, orbitals, cells, cell, pos, a) for a in (0, 1)]
    for k, (va, vb) in enumerate([(v[0], v[0]), (v[0], v[1])]):
        ref = cr.moments(H, va, vb, mu.shape[1], g.attrs["scale"], g.attrs["shift"])
        err = np.abs(ref - mu[k]).max() / np.abs(ref).max()
        print(name, "xx xy".split()[k], "moments differ from numpy by", err)
        assert err < 1e-12, (name, k, err)
PY
# The TI from its lattice file: model = ti's moments.
TI=$'nx = 3\nny = 3\nnz = 2\nboundary = periodic periodic open'
deck ti_model "model = ti" "$TI" 16 "xx xy zz"
deck ti_file "model = lattice"$'\n'"lattice_file = $LAT/ti.lattice" "$TI" 16 "xx xy zz"
for m in ti_model ti_file; do
  "$MPIEXEC" -n 2 "$HAMLET" run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
done
"$HAMLET" compare ti_model.h5 ti_file.h5 --rtol 1e-12 --atol 1e-12 --only /conductivity/moments,/conductivity/sigma >cmp.txt ||
  fail "ti.lattice differs from model = ti: $(tail -2 cmp.txt)"
# sigma_xy = +-1 e^2/h in the gap.
BIG=$'nx = 12\nny = 12\nnz = 1\nboundary = periodic periodic open'
for m in qwz:0.02 haldane:0.06; do
  name=${m%%:*}
  deck "${name}_big" "model = lattice"$'\n'"lattice_file = $LAT/$name.lattice" "$BIG" 192 xy
  "$MPIEXEC" -n 1 "$HAMLET" run "${name}_big.ini" -o "${name}_big.h5" --quiet >big.log 2>&1 || fail "$name 12 x 12: $(cat big.log)"
  "$PYTHON" -c "import h5py, sys; s = h5py.File(sys.argv[1], 'r')['/conductivity/sigma'][:].ravel(); print(sys.argv[1], s)
assert (abs(abs(s) - 1) < float(sys.argv[2])).all(), s" "${name}_big.h5" "${m#*:}" || fail "$name: sigma_xy is not +-1 in the gap"
done
finish
