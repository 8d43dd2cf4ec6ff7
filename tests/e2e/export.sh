# hamlet export DECK -o H.mtx writes the Hamiltonian the deck builds:
# - a disordered graphene sheet with vacancies, matrix-free in the deck: equal entry by entry (1e-14)
#   to the supercell NumPy builds from the same lattice file, disorder and vacancy seeds
#   (tests/support/lattice_model.py); the same file from 1 and 2 ranks;
# - the FEM box, a generalized problem: H.mtx and H_mass.mtx, whose generalized eigenvalues (SciPy)
#   equal those of method = dense on the same deck (1e-10 relative);
# - --velocity x,y: the velocities v_x, v_y of the sheet equal NumPy's (vel_vx.mtx, vel_vy.mtx);
# - refusals (exit 2, nothing written): -o not a .mtx name, a bad --velocity, --velocity without a
#   lattice, -o or the mass export on an input file.
. "$(dirname "$0")/common.sh"
need_h5py
need scipy "no scipy for $PYTHON" python_has scipy
export OMP_NUM_THREADS=1
cat >sheet.ini <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/graphene.lattice
nx = 7
ny = 5
nz = 1
boundary = periodic open open
storage = matrix_free
potential = disorder
disorder_w = 1.5
disorder_seed = 9
vacancies = 0.1
vacancy_seed = 4
[solver]
method = kpm
INI
for np in 1 2; do
  "$MPIEXEC" -n "$np" "$HAMLET" export sheet.ini -o "sheet$np.mtx" >"export$np.log" 2>&1 ||
    fail "export on $np ranks: exit $? $(cat "export$np.log")"
done
cmp -s sheet1.mtx sheet2.mtx || fail "the files exported from 1 and 2 ranks differ"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$SOURCE_DIR/inputs/lattices/graphene.lattice" <<'PY' ||
import sys, numpy as np, scipy.io
import lattice_model as lm
no, blocks = lm.read_hamlet(sys.argv[1])
H, _ = lm.supercell(no, blocks, (7, 5, 1), boundary=("periodic", "open", "open"), disorder_w=1.5, disorder_seed=9,
                    vacancies=0.1, vacancy_seed=4)
A = scipy.io.mmread("sheet1.mtx").toarray()
err = np.abs(A - H).max()
print("exported H against NumPy's supercell: max |difference| %.2g, %d entries" % (err, np.count_nonzero(A)))
assert A.shape == H.shape and err < 1e-14
PY
  fail "the exported lattice Hamiltonian differs from NumPy's"
# --velocity x,y: v_a = i[H, X_a] equal to NumPy's from the same supercell (nearest images, 1e-14)
"$MPIEXEC" -n 2 "$HAMLET" export sheet.ini -o vel.mtx --velocity x,y >vel.log 2>&1 || fail "export --velocity: $(cat vel.log)"
[ ! -e vel_vz.mtx ] || fail "--velocity x,y wrote v_z"
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$SOURCE_DIR/inputs/lattices/graphene.lattice" <<'PY' ||
import sys, numpy as np, scipy.io
import lattice_model as lm, conductivity_reference as cr
no, blocks = lm.read_hamlet(sys.argv[1])
H, _ = lm.supercell(no, blocks, (7, 5, 1), boundary=("periodic", "open", "open"), disorder_w=1.5, disorder_seed=9,
                    vacancies=0.1, vacancy_seed=4)
cell = [[1, 0, 0], [0.5, 3**0.5 / 2, 0], [0, 0, 1]]
pos = [[0.5, 0.5 / 3**0.5, 0], [1.0, 1 / 3**0.5, 0]]
for a, name in enumerate("xy"):
    V = scipy.io.mmread("vel_v%s.mtx" % name).toarray()
    ref = cr.velocity(H, no, (7, 5, 1), cell, pos, a)
    err = np.abs(V - ref).max()
    print("exported v_%s against NumPy's: %.2g (largest entry %.2g)" % (name, err, np.abs(ref).max()))
    assert err < 1e-14 and np.abs(ref).max() > 0.1
PY
  fail "the exported velocities differ from NumPy's"
sed 's/^output = .*$/output = box.h5/' "$SOURCE_DIR/inputs/fem_box_dense.ini" | sed 's/^ex = 6$/ex = 4/; s/^ey = 6$/ey = 4/; s/^ez = 6$/ez = 4/' >box.ini
"$MPIEXEC" -n 2 "$HAMLET" export box.ini -o box.mtx >box_export.log 2>&1 || fail "export of the FEM box: $(cat box_export.log)"
[ -s box_mass.mtx ] || fail "no box_mass.mtx: $(cat box_export.log)"
"$MPIEXEC" -n 2 "$HAMLET" run box.ini --quiet >box.log 2>&1 || fail "the FEM box: $(cat box.log)"
"$PYTHON" - <<'PY' || fail "the exported FEM pencil differs from the dense solve's"
import h5py, numpy as np, scipy.io, scipy.linalg
K, M = (scipy.io.mmread(f).toarray().real for f in ("box.mtx", "box_mass.mtx"))
w = scipy.linalg.eigh(K, M, eigvals_only=True)
v = np.sort(h5py.File("box.h5", "r")["/eigen/values"][:])
err = np.abs(w - v).max() / np.abs(v).max()
print("generalized eigenvalues of the exported pencil against method = dense: %.2g relative, N = %d" % (err, len(w)))
assert len(w) == len(v) and err < 1e-10
PY
refused() { # EXPECTED_MESSAGE -- ARGS...
  local want=$1
  shift 2
  "$HAMLET" export "$@" >refused.log 2>&1
  code=$?
  [ "$code" -eq 2 ] && grep -qF -- "$want" refused.log || fail "hamlet export $*: exit $code, want 2 with '$want': $(cat refused.log)"
}
refused "name ends in .mtx" -- sheet.ini -o sheet.h5
refused "name ends in .mtx" -- sheet.ini
refused "--velocity w: a list of x, y, z" -- sheet.ini -o w.mtx --velocity w
refused "--velocity needs lattice cells and positions: model = ti or lattice" -- box.ini -o boxv.mtx --velocity x
cp box.mtx K.mtx
cp box_mass.mtx M_mass.mtx
printf '[hamiltonian]\nmodel = mtx\nmatrix = K.mtx\nmass = M_mass.mtx\n[solver]\nmethod = dense\n' >pencil.ini
cp K.mtx K.orig
refused "the input [hamiltonian] matrix (pencil.ini:3) and the output (-o) are the same file" -- pencil.ini -o K.mtx
refused "and the mass matrix's export (-o's name with _mass) are the same file" -- pencil.ini -o M.mtx
cmp -s K.mtx K.orig && cmp -s M_mass.mtx box_mass.mtx || fail "a refused export changed an input"
finish
