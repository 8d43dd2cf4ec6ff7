# [evolution] transport = vac | both: the velocity auto-correlation form of the Kubo-Greenwood transport.
# - A clean ring of 600 sites (periodic: v_x commutes with H): C(E, t) is the same at every time to 1e-10
#   and equals <v_x^2>(E) (v_x T_n v_x = T_n v_x^2 vector by vector); D_vac = int_0^t C is C t, and twice
#   its trapezoid integral over the rows is the msd form's Delta X^2 of the same run to 1e-9 relative: the
#   trapezoid rule is exact for C constant and D linear in t (its error (dt^2 / 12) t max|C''| is zero
#   here), leaving only the propagator's accuracy (1e-12 per step) and rounding. 1 and 2 ranks agree.
# - transport = vac alone: the vac datasets with their shapes and units, no msd ones, the same values as
#   the both run's; hamlet post redoes them (same energies: unchanged; --energies: the new grid).
# - A bad transport value exits 2 naming the key and the allowed words.
. "$(dirname "$0")/common.sh"
need_h5py
LAT=$SOURCE_DIR/inputs/lattices
ring() { printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s/square.lattice\nnx = 600\nny = 1\nnz = 1\nboundary = periodic open open\n[solver]\nmethod = evolution\n[evolution]\nvectors = 4\nseed = 3\nmsd = x y\nmoments = 256\ndt = 2\nsteps = 12\nenergies = -1.5 1.5 5\n%s\n' "$LAT" "$2" >"$1.ini"; }
ring both 'transport = both'
ring vac 'transport = vac'
for c in both vac; do
  for np in 1 2; do
    "$MPIEXEC" -n "$np" "$HAMLET" run "$c.ini" -o "$c.$np.h5" >"$c.$np.log" 2>&1 || fail "$c on $np ranks: $(cat "$c.$np.log")"
  done
done
"$HAMLET" post vac.1.h5 -o vac_same.h5 >post.log 2>&1 || fail "hamlet post: $(cat post.log)"
"$HAMLET" post vac.1.h5 --energies -1 1 3 -o vac_three.h5 >post.log 2>&1 || fail "hamlet post --energies: $(cat post.log)"
"$PYTHON" - <<'PY' || fail "the velocity auto-correlation is wrong"
import h5py, numpy as np
ok = True
def check(good, what):
    global ok
    print("%s %s" % ("PASS" if good else "FAIL", what))
    ok &= bool(good)
for np_ in (1, 2):
    g = h5py.File("both.%d.h5" % np_, "r")["/evolution"]
    t, C, D, X, v2 = g["time"][:], g["vac"][0], g["vac_diffusivity"][0], g["msd"][0], g["velocity_squared"][0]
    drift = np.abs(C - C[0]).max() / np.abs(C).max()
    check(drift < 1e-10 and np.abs(C[0] - v2).max() < 1e-10 * np.abs(v2).max(),
          "%d ranks: C(E, t) constant in t (%.2g) and <v_x^2>(E)" % (np_, drift))
    twice = np.concatenate([[0 * D[0]], np.cumsum(np.diff(t)[:, None] * (D[1:] + D[:-1]), axis=0)])
    err = np.abs(twice - X).max() / np.abs(X).max()
    check(err < 1e-9, "%d ranks: 2 int_0^t D_vac = Delta X^2 (%.2g)" % (np_, err))
    check(np.abs(g["vac"][1]).max() == 0 and np.abs(g["vac_diffusivity"][1]).max() == 0, "no velocity along y")
    s = g["vac_sigma"][0][1:] / D[1:]
    check(np.abs(s - s[0]).max() < 1e-12 * np.abs(s).max(), "%d ranks: vac_sigma = e^2 rho(E) D_vac" % np_)
    sigma_msd = g["sigma"][0][1:] * 2 * t[1:, None] / X[1:]  # the msd form's e^2 rho(E)
    check(np.abs(s - sigma_msd).max() < 1e-10 * np.abs(s).max(), "%d ranks: sigma in the msd form's units" % np_)
a, b = (h5py.File("both.%d.h5" % n, "r")["/evolution/vac"][:] for n in (1, 2))
check(np.abs(a - b).max() <= 1e-10 * np.abs(a).max(), "1 and 2 ranks agree")
v = h5py.File("vac.1.h5", "r")["/evolution"]
nd, T, R, M, ne = 2, 13, 4, 256, 5
shapes = {"vac": (nd, T, ne), "vac_error": (nd, T, ne), "vac_diffusivity": (nd, T, ne),
          "vac_diffusivity_error": (nd, T, ne), "vac_sigma": (nd, T, ne), "vac_sigma_error": (nd, T, ne),
          "vac_moments": (nd, T, R, M), "start_moments": (R, M), "energy": (ne,), "dos": (ne,)}
units = {"vac": "(length x energy)^2 (hbar = 1)", "vac_diffusivity": "length^2 x energy (hbar = 1)",
         "vac_sigma": v.attrs["sigma_unit"].decode()}
check(all(v[k].shape == s for k, s in shapes.items()), "transport = vac: the datasets' shapes")
check(all(v[k].attrs["unit"].decode() == u and v[k + "_error"].attrs["unit"].decode() == u for k, u in units.items()),
      "transport = vac: units of the values and their errors")
check(not any(k in v for k in ("msd", "msd_moments", "sigma", "diffusivity")) and v.attrs["transport"] == b"vac",
      "transport = vac: no msd datasets")
check(np.abs(v["vac_error"][0][1:]).max() > 0, "errors from the spread of the vectors")
both = h5py.File("both.1.h5", "r")["/evolution"]
check(all(np.array_equal(v[k][:], both[k][:]) for k in units), "vac alone = vac of transport = both")
same, three = h5py.File("vac_same.h5", "r")["/evolution"], h5py.File("vac_three.h5", "r")["/evolution"]
d = max(np.abs(same[k][:] - v[k][:]).max() / np.abs(v[k][:]).max() for k in units)
check(d < 1e-12, "hamlet post on the same energies: unchanged (%.2g)" % d)
check(three["vac"].shape == (nd, T, 3) and np.allclose(three["energy"][:], [-1, 0, 1])
      and np.abs(three["vac"][0, :, 1] - v["vac"][0, :, 2]).max() < 1e-12 * np.abs(v["vac"][:]).max(),
      "hamlet post --energies: the new grid (E = 0 as before)")
raise SystemExit(0 if ok else 1)
PY
ring bad 'transport = velocity'
"$HAMLET" run bad.ini -o bad.h5 >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] && grep -qF "bad.ini:18: [evolution] transport = velocity: 'velocity' is not allowed; must be one of: msd, vac, both" bad.log ||
  fail "a bad transport: exit $code, want 2 naming the key and its words: $(cat bad.log)"
[ ! -e bad.h5 ] || fail "the bad deck wrote bad.h5"
finish
