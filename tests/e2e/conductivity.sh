# method = conductivity end to end: exact-trace moments of a small TI slab equal on 1 and 3 ranks
# (1e-12; Gershgorin bounds, the same on any rank count, where Lanczos's differ in the 14th digit) and satisfy mu_nm = mu_mn* symmetries of Tr[v_x T_n v_x T_m] (real, symmetric for xx);
# hamlet post with the run's own grid reproduces sigma and error exactly, with a new grid, temperatures
# and kernel writes their shapes to -o (the input untouched) and, without -o, replaces the file;
# bad post arguments and a file without /conductivity exit 2 with their messages.
. "$(dirname "$0")/common.sh"
need_h5py
cat >exact.ini <<'INI'
[hamiltonian]
model = ti
nx = 3
ny = 3
nz = 2
boundary = periodic periodic open
potential = disorder
disorder_w = 1
[solver]
method = conductivity
[kpm]
trace = exact
bounds = gershgorin
[conductivity]
components = xx xy
energies = -2 2 9
temperatures = 0 0.1
moments = 16
chunk = 8
INI
"$MPIEXEC" -n 1 "$HAMLET" run exact.ini -o one.h5 --quiet >one.log 2>&1 || fail "1 rank: $(cat one.log)"
"$MPIEXEC" -n 3 "$HAMLET" run exact.ini -o three.h5 --quiet >three.log 2>&1 || fail "3 ranks: $(cat three.log)"
"$HAMLET" compare one.h5 three.h5 --rtol 1e-10 --atol 1e-12 --only /conductivity/moments,/conductivity/sigma >cmp.txt ||
  fail "exact moments differ between 1 and 3 ranks: $(cat cmp.txt)"
"$PYTHON" - one.h5 <<'PY' || fail "exact-trace moment symmetries"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
mu = f["/conductivity/moments"][:]
xx = mu[0, :, :, 0] + 1j * mu[0, :, :, 1]
# Tr[v T_n v T_m] is real and symmetric in n, m for a = b
assert np.abs(xx.imag).max() < 1e-12 * np.abs(xx).max(), np.abs(xx.imag).max()
assert np.abs(xx - xx.T).max() < 1e-12 * np.abs(xx).max()
assert xx[0, 0].real > 0
assert np.all(f["/conductivity/error"][:] == 0), "exact trace: no stochastic error"
PY
cp one.h5 keep.h5
"$HAMLET" post one.h5 -o same.h5 >post.log 2>&1 || fail "post: $(cat post.log)"
"$HAMLET" compare one.h5 same.h5 --only /conductivity/sigma,/conductivity/error >cmp.txt ||
  fail "post with the run's grid differs from the run: $(cat cmp.txt)"
"$HAMLET" post one.h5 --energies -1 1 5 --temperatures 0,0.2,0.4 --kernel lorentz --lambda 3 -o new.h5 >post.log 2>&1 ||
  fail "post with a new grid: $(cat post.log)"
"$PYTHON" - new.h5 <<'PY' || fail "post's new grid"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f["/conductivity/sigma"].shape == (2, 3, 5), f["/conductivity/sigma"].shape
assert list(f["/conductivity/temperature"][:]) == [0, 0.2, 0.4]
k = f["/conductivity"].attrs["kernel"]
assert (k.decode() if isinstance(k, bytes) else k) == "lorentz"
PY
cmp -s one.h5 keep.h5 || fail "post -o changed its input"
"$HAMLET" post one.h5 --energies -1 1 3 >post.log 2>&1 || fail "post in place: $(cat post.log)"
"$PYTHON" -c "import h5py; assert h5py.File('one.h5', 'r')['/conductivity/sigma'].shape == (2, 2, 3)" ||
  fail "post in place did not replace sigma"
expect2() { # arguments..., then the message
  local msg=${*: -1}
  "$HAMLET" post "${@:1:$#-1}" >bad.log 2>&1
  local code=$?
  [ "$code" -eq 2 ] || fail "post ${*:1:$#-1}: exit $code, want 2"
  grep -qF -- "$msg" bad.log || fail "post ${*:1:$#-1}: message lacks '$msg': $(cat bad.log)"
}
expect2 keep.h5 --kernel foo "--kernel foo: allowed are jackson and lorentz"
expect2 keep.h5 --energies 1 -1 5 "--energies needs Emin Emax count"
expect2 keep.h5 --temperatures 0,-1 "--temperatures 0,-1: 1 to 64 numbers >= 0"
expect2 keep.h5 --lambda 0 "--lambda must be a number > 0"
expect2 "no result file given"
expect2 exact.ini "is not an HDF5 file"
"$MPIEXEC" -n 1 "$HAMLET" run "$SOURCE_DIR/tests/decks/good/minimal.ini" -o dos.h5 --quiet >dos.log 2>&1 || fail "dos run: $(cat dos.log)"
expect2 dos.h5 "has no /conductivity group"
finish
