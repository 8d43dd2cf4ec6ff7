# The Hall conductance of slabs (open along z), sheet units and the half-quantized surface plateau:
# (a) units: nz decoupled Qi-Wu-Zhang layers (inputs/lattices/qwz.lattice has no hops along z) as an
#     open slab give nz times one layer's sigma_xy (exact trace, 1e-7), i.e. +-nz e^2/h within 5%,
#     in e^2/h (whole slab); periodic along z the same layers give one layer's value in e^2/(h a);
# (b) a TI slab folded into one cell (zeeman_layers = top, zeeman 0) gives the unfolded slab's
#     moments and sigma (exact trace, 1e-10): the folded cell's velocities and density are the slab's;
# (c) inputs/ti_hall_plateau.ini (Zeeman on the top layer only) and the same deck with -Bz: sigma_xy
#     for mu at the bottom surface's Dirac point, inside the top surface's gap, is +1/2 and -1/2 e^2/h
#     (12% and 3 standard errors at this size: 24 x 24 x 6, M = 256, R = 8), and its part odd in Bz
#     is within 4% of the reference over the top gap (|mu| <= 0.5): sigma_xy from the Bloch states'
#     Berry curvature on the same k points (numpy, no broadening), 1/2 to 1e-3; hamlet plot and
#     tools/plot_hall.py draw it;
# (d) zeeman_layers with conductivity and a z boundary other than open exits 2 with its message.
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1
LAT=$SOURCE_DIR/inputs/lattices
deck() { # deck NAME LATTICE NX NZ BOUNDARY-Z MOMENTS COMPONENTS [EXTRA-HAMILTONIAN-LINES]
  printf '[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = %s\nny = %s\nnz = %s\n' "$LAT/$2" "$3" "$3" "$4" >"$1.ini"
  printf 'boundary = periodic periodic %s\n%s\n[solver]\nmethod = conductivity\n[kpm]\ntrace = exact\n' "$5" "${8:-}" >>"$1.ini"
  printf 'bounds = gershgorin\n[conductivity]\ncomponents = %s\nenergies = -0.2 0.2 3\nmoments = %s\n' "$7" "$6" >>"$1.ini"
}
# (a) QWZ layers
deck layer1 qwz.lattice 8 1 open 128 xy
deck stack2 qwz.lattice 8 2 open 128 xy
deck bulk2 qwz.lattice 8 2 periodic 128 xy
for m in layer1 stack2 bulk2; do
  run2 run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
done
"$PYTHON" - <<'PY' || fail "a stack of QWZ layers: sheet conductance and units"
import h5py, numpy as np
g = {m: h5py.File(m + ".h5", "r")["/conductivity"] for m in ("layer1", "stack2", "bulk2")}
text = lambda v: v.decode() if isinstance(v, bytes) else str(v)
units = {m: text(c.attrs["unit"]) for m, c in g.items()}
print(units)
assert units == {"layer1": "e^2/h (per layer)", "stack2": "e^2/h (whole slab)", "bulk2": "e^2/(h a)"}, units
s = {m: c["sigma"][:] for m, c in g.items()}
print("sigma_xy: one layer", s["layer1"][0, 0], "slab of 2", s["stack2"][0, 0], "periodic z", s["bulk2"][0, 0])
assert np.abs(s["stack2"] - 2 * s["layer1"]).max() < 1e-7 * np.abs(s["layer1"]).max(), "slab != 2 layers"
assert np.abs(s["bulk2"] - s["layer1"]).max() < 1e-7 * np.abs(s["layer1"]).max(), "per volume != per layer (a = 1)"
assert (np.abs(np.abs(s["stack2"]) - 2) < 0.1).all(), s["stack2"]  # 8 x 8 cells, M = 128: 4% truncation
PY
# (b) the folded TI slab equals the unfolded one
deck ti_cells ti.lattice 4 3 open 32 "xx xy"
deck ti_folded ti.lattice 4 3 open 32 "xx xy" $'zeeman = 0 0 0\nzeeman_layers = top'
for m in ti_cells ti_folded; do
  run2 run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
done
"$HAMLET" compare ti_cells.h5 ti_folded.h5 --rtol 1e-10 --atol 1e-12 \
  --only /conductivity/moments,/conductivity/sigma >cmp.txt || fail "the folded slab differs: $(tail -2 cmp.txt)"
# (c) the half-quantized plateau, both signs of the top layer's exchange field
sed 's/^zeeman = 0 0 0.6/zeeman = 0 0 -0.6/' "$SOURCE_DIR/inputs/ti_hall_plateau.ini" >minus.ini
grep -q "^zeeman = 0 0 -0.6" minus.ini || fail "the deck's zeeman line changed: update this test"
cp "$SOURCE_DIR/inputs/ti_hall_plateau.ini" plus.ini
for m in plus minus; do
  sed -i "s#^lattice_file = .*#lattice_file = $LAT/ti.lattice#" "$m.ini"
  run2 run "$m.ini" -o "$m.h5" --quiet >"$m.log" 2>&1 || fail "$m: $(cat "$m.log")"
done
PYTHONPATH=$SOURCE_DIR/tests/support "$PYTHON" - "$LAT/ti.lattice" <<'PY' || fail "the half-quantized plateau"
import sys, h5py, numpy as np
import lattice_model as lm
g = {m: h5py.File(m + ".h5", "r")["/conductivity"] for m in ("plus", "minus")}
h = h5py.File("plus.h5", "r")["/hamiltonian"].attrs
L, nz, bz = int(h["nx"]), int(h["nz"]), h["zeeman_z"]

def hall_kspace(mus):
    """The reference: sigma_xy (e^2/h) of the same slab from Bloch states on the same L x L k points,
    T = 0, no broadening: (2 pi / L^2) sum_k sum_{E_n < mu} Berry curvature Omega_n(k), with
    H(k) = sum_R h(R) exp(i k.R) (hamlet's convention) and dH/dk_a = sum_R i R_a h(R) exp(i k.R)."""
    no, blocks = lm.read_hamlet(sys.argv[1])
    zeeman = np.zeros((no * nz, no * nz))
    zeeman[no * (nz - 1):, no * (nz - 1):] = bz * np.diag([1, -1, 1, -1])  # orbitals up, down, up, down
    total = np.zeros(len(mus))
    for kx in 2 * np.pi * np.arange(L) / L:
        for ky in 2 * np.pi * np.arange(L) / L:
            H, d = zeeman.astype(complex), [np.zeros_like(zeeman, complex) for _ in range(2)]
            for R, b in blocks.items():
                phase = np.exp(1j * (kx * R[0] + ky * R[1]))
                for l in range(nz):
                    if 0 <= l + R[2] < nz:
                        rows, cols = slice(no * l, no * l + no), slice(no * (l + R[2]), no * (l + R[2]) + no)
                        H[rows, cols] += phase * b
                        for a in range(2):
                            d[a][rows, cols] += 1j * R[a] * phase * b
            e, U = np.linalg.eigh(H)
            vx, vy = (U.conj().T @ da @ U for da in d)
            gap = e[:, None] - e[None, :]
            gap[np.abs(gap) < 1e-9] = np.inf  # degenerate pairs: their terms cancel among the occupied
            omega = -2 * np.imag(np.sum(vx * vy.T / gap**2, axis=1))
            total += [omega[e < mu].sum() for mu in mus]
    return total * 2 * np.pi / L**2

ref = hall_kspace([0.05, 0.3])
print("Bloch-state reference at mu = 0.05, 0.3:", ref)
assert np.abs(ref - 0.5 * np.sign(bz)).max() < 1e-3, ref
E = g["plus"]["energy"][:]
s = {m: c["sigma"][0, 0] for m, c in g.items()}
e = {m: c["error"][0, 0] for m, c in g.items()}
window = np.abs(E) <= 0.1  # inside the top gap, between the bottom cone's finite-size levels
for m, target in (("plus", 0.5), ("minus", -0.5)):
    mean, err = s[m][window].mean(), e[m][window].mean()
    print(m, "sigma_xy for |mu| <= 0.1: %.4f +- %.4f e^2/h" % (mean, err))
    assert abs(mean - target) < min(0.06, 3 * err + 0.01), (m, mean, err)
# Time reversal maps +Bz to -Bz and sigma_xy to -sigma_xy: the odd part is the Hall conductance, the
# even part the two runs' common stochastic error (same seed), large where the bottom cone has levels.
odd = (s["plus"] - s["minus"]) / 2
gap = np.abs(E) <= 0.5  # the top surface's gap is |mu| < 0.6 at the zone centre
print("odd part for |mu| <= 0.5: %.4f .. %.4f" % (odd[gap].min(), odd[gap].max()))
assert np.abs(odd[gap] - ref[0]).max() < 0.02, odd[gap]
PY
"$HAMLET" plot plus.h5 -o plus.png >/dev/null 2>&1 && [ -s plus.png ] || fail "hamlet plot wrote no conductivity plot"
"$PYTHON" "$SOURCE_DIR/tools/plot_hall.py" plus.h5 minus.h5 -o both.png >/dev/null 2>&1 && [ -s both.png ] ||
  fail "tools/plot_hall.py wrote no plot"
# (d) bad deck
printf '%s\n' "[hamiltonian]" "model = lattice" "lattice_file = $LAT/ti.lattice" "nx = 4" "ny = 4" "nz = 3" \
  "boundary = periodic periodic periodic" "zeeman = 0 0 0.6" "zeeman_layers = top" "[solver]" "method = conductivity" >bad.ini
"$HAMLET" run bad.ini -o bad.h5 --quiet >bad.log 2>&1
code=$?
[ "$code" -eq 2 ] || fail "exit $code, want 2 for zeeman_layers on a periodic z"
grep -qF "zeeman_layers = top needs a slab: boundary open along z" bad.log || fail "message: $(cat bad.log)"
finish
