# method = marker end to end. (a) On an open 8 x 8 Qi-Wu-Zhang flake the marker
# of every cell equals the dense formula with the same Jackson-damped projector from numpy's eigh to
# 1e-10 (measured 1.4e-14), and the exact step projector's (mu mid-way in the level gap, M = 2048) to
# 5e-4 (measured 7.8e-5: the damped step converges algebraically in M, not exponentially); the sum
# over all cells is 0 to 0.01 (measured -1.1e-3; exactly 0 for the exact projector). (b) On 24 x 24
# flakes the central 4 x 4 cells are +-1 within 2% with opposite signs for u = 1 and u = -1, and 0 for
# u = 3. (a') With temperature = 0.003 (the Fermi projector, undamped, M = 9000) the marker equals the
# exact step projector's to 1e-8 in every cell and sums to 0 to 1e-8. (c) 1 and 3 ranks agree; a run
# killed after a checkpoint restarts (on 2 ranks, temperature kept) to the same values. (d) A magnetic
# TI slab (12 x 12 x 6, Zeeman 0.6 on both surfaces): the layer-resolved marker sums to +-1/2 over each half (measured 0.499 and 0.498), with equal signs for parallel
# (total 1) and opposite for antiparallel (total 0) fields. (e) Bad decks exit 2 with their message.
. "$(dirname "$0")/common.sh"
need_h5py
export OMP_NUM_THREADS=1 # small blocks: threads only wait for each other on a shared machine
SUPPORT="$SOURCE_DIR/tests/support"
qwz() { # qwz U FILE: the QWZ model with mass u (inputs/lattices/qwz.lattice has u = -1)
  sed -e "s/^onsite 0 -1/onsite 0 $1/" -e "s/^onsite 1  1/onsite 1 $(echo "$1" | awk '{print -$1}')/" \
    "$SOURCE_DIR/inputs/lattices/qwz.lattice" >"$2"
}
deck() { # deck NAME LATTICE N SITES MU MOMENTS [TEMPERATURE]
  cat >"$1.ini" <<INI
[hamiltonian]
model = lattice
lattice_file = $2
nx = $3
ny = $3
nz = 1
boundary = open open open
[solver]
method = marker
[marker]
sites = $4
mu = $5
moments = $6
temperature = ${7:-0}
INI
}
for u in 1 -1 3; do qwz "$u" "qwz$u.lattice"; done

# (a) 8 x 8, every cell, against the dense formula; mu in the middle of the level gap nearest 0
mu=$("$PYTHON" - "$SUPPORT" <<'PY'
import sys; sys.path.insert(0, sys.argv[1])
import numpy as np, lattice_model as lm
H, _ = lm.supercell(*lm.read_hamlet("qwz1.lattice"), (8, 8, 1), ("open",) * 3)
w = np.linalg.eigvalsh(H)
k = np.searchsorted(w, 0.0)
print(0.5 * (w[k - 1] + w[k]))
PY
) || fail "dense eigenvalues"
deck small qwz1.lattice 8 all "$mu" 2048
"$MPIEXEC" -n 1 "$HAMLET" run small.ini -o small.h5 --quiet >small.log 2>&1 || fail "8 x 8: $(cat small.log)"
"$PYTHON" - small.h5 "$SUPPORT" <<'PY' || fail "8 x 8 marker against the dense projector"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
import lattice_model as lm, chern_marker as cm
f = h5py.File(sys.argv[1], "r")
a = f["/marker"].attrs
C, sites = f["/marker/C"][:], f["/marker/sites"][:]
H, _ = lm.supercell(*lm.read_hamlet("qwz1.lattice"), (8, 8, 1), ("open",) * 3)
x, y = cm.flake_positions(8, 8, 1, 2)
mu, M, scale, shift = a["mu"], int(a["moments"]), a["scale"], a["shift"]
cell = (sites[:, 0] + 8 * sites[:, 1]).astype(int)
per_row = lambda m: m[2 * cell] + m[2 * cell + 1]
same = per_row(cm.marker(H, x, y, np.arange(len(H)), lambda w: cm.series_step(w, mu, M, scale, shift)))
exact = per_row(cm.marker(H, x, y, np.arange(len(H)), lambda w: (w < mu).astype(float)))
d_same, d_exact = np.abs(C - same).max(), np.abs(C - exact).max()
w = np.linalg.eigvalsh(H)
print("8 x 8: |C - dense same series| %.2e, |C - exact step| %.2e, level gap at mu %.3f, sum %.2e" %
      (d_same, d_exact, np.abs(w - mu).min(), C.sum()))
assert d_same < 1e-10, d_same
assert d_exact < 5e-4, d_exact
assert abs(exact.sum()) < 1e-10, exact.sum()  # the reference obeys the sum rule exactly
assert abs(C.sum()) < 0.01, C.sum()
PY

# (a') the same flake with the Fermi projector at T = d / 30 (d = 0.09: the nearest level to mu) and
# M = 9000 >= 25 / (pi T scale): the exact step projector's marker to 1e-8 in every cell, sum 0 to 1e-8
deck smallT qwz1.lattice 8 all "$mu" 9000 0.003
"$MPIEXEC" -n 1 "$HAMLET" run smallT.ini -o smallT.h5 --quiet >smallT.log 2>&1 || fail "8 x 8, T > 0: $(cat smallT.log)"
"$PYTHON" - smallT.h5 "$SUPPORT" <<'PY' || fail "8 x 8 Fermi-projector marker against the exact projector"
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[2])
import lattice_model as lm, chern_marker as cm
f = h5py.File(sys.argv[1], "r")
a = f["/marker"].attrs
C, sites = f["/marker/C"][:], f["/marker/sites"][:]
assert a["temperature"] == 0.003 and a["projector"] in (b"fermi", "fermi"), (a["temperature"], a["projector"])
H, _ = lm.supercell(*lm.read_hamlet("qwz1.lattice"), (8, 8, 1), ("open",) * 3)
x, y = cm.flake_positions(8, 8, 1, 2)
cell = (sites[:, 0] + 8 * sites[:, 1]).astype(int)
exact = cm.marker(H, x, y, np.arange(len(H)), lambda w: (w < a["mu"]).astype(float))
d = np.abs(C - (exact[2 * cell] + exact[2 * cell + 1])).max()
print("8 x 8, T = %g, M = %d: |C - exact step| %.2e, sum %.2e" % (a["temperature"], a["moments"], d, C.sum()))
assert d < 1e-8, d
assert abs(C.sum()) < 1e-8, C.sum()
PY

# (b) 24 x 24: the bulk marker (the central 4 x 4 cells), its sign for u = +-1, 0 for u = 3
centre="10 10 0; 11 10 0; 12 10 0; 13 10 0; 10 11 0; 11 11 0; 12 11 0; 13 11 0; 10 12 0; 11 12 0; 12 12 0; 13 12 0; 10 13 0; 11 13 0; 12 13 0; 13 13 0"
for u in 1 -1 3; do
  deck "big$u" "qwz$u.lattice" 24 "$centre" 0 512
  "$MPIEXEC" -n 1 "$HAMLET" run "big$u.ini" -o "big$u.h5" --quiet >"big$u.log" 2>&1 || fail "24 x 24 u = $u: $(cat "big$u.log")"
done
"$PYTHON" - <<'PY' || fail "24 x 24 bulk markers"
import h5py, numpy as np
bulk = {}
for u in ("1", "-1", "3"):
    f = h5py.File("big%s.h5" % u, "r")
    C, s = f["/marker/C"][:], f["/marker/sites"][:]
    assert len(C) == 16 and np.all(np.abs(s[:, :2] - 11.5) < 2)
    bulk[u] = C
    print("u = %s: central cells %.4f to %.4f" % (u, C.min(), C.max()))
for u in ("1", "-1"):
    assert np.all(np.abs(np.abs(bulk[u]) - 1) < 0.02), bulk[u]
assert np.sign(bulk["1"][0]) == -np.sign(bulk["-1"][0])
assert np.all(np.abs(bulk["3"]) < 0.02), bulk["3"]
PY

# (c) 1 and 3 ranks, sites = line
deck line qwz-1.lattice 12 line 0 128
"$MPIEXEC" -n 1 "$HAMLET" run line.ini -o line1.h5 --quiet >line1.log 2>&1 || fail "1 rank: $(cat line1.log)"
"$MPIEXEC" -n 3 "$HAMLET" run line.ini -o line3.h5 --quiet >line3.log 2>&1 || fail "3 ranks: $(cat line3.log)"
"$HAMLET" compare line1.h5 line3.h5 --rtol 1e-10 --atol 1e-12 --only /marker/C,/marker/sites >cmp.txt ||
  fail "marker differs between 1 and 3 ranks: $(cat cmp.txt)"

# restart: killed after its first checkpoint (one batch of 16 cells), continued on 2 ranks; the
# projector is the Fermi one (T = 0.1), which the restart must keep: a Jackson step would differ
deck ckpt qwz-1.lattice 10 all 0 256 0.1
printf '[run]\ncheckpoint = ckpt_checkpoint.h5\ncheckpoint_every = 1\n' | cat - ckpt.ini >ckpt2.ini
"$MPIEXEC" -n 1 "$HAMLET" run ckpt2.ini -o full.h5 --quiet >full.log 2>&1 || fail "uninterrupted: $(cat full.log)"
rm -f ckpt_checkpoint.h5
HAMLET_TEST_STEP_DELAY_US=300000 setsid "$MPIEXEC" -n 1 "$HAMLET_TESTHOOKS" run ckpt2.ini -o killed.h5 --quiet >killed.log 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -e ckpt_checkpoint.h5 ] && break; sleep 0.1; done
sleep 0.3
kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
[ -e ckpt_checkpoint.h5 ] || fail "no checkpoint appeared before the kill"
[ -e killed.h5 ] && fail "the killed run finished before it was killed"
"$MPIEXEC" -n 2 "$HAMLET" restart ckpt_checkpoint.h5 -o restarted.h5 --quiet >restart.log 2>&1 || fail "restart: $(cat restart.log)"
"$HAMLET" compare full.h5 restarted.h5 --rtol 1e-10 --atol 1e-12 --only /marker/C >cmp.txt ||
  fail "restarted marker differs: $(cat cmp.txt)"
"$PYTHON" -c 'import h5py, sys; t = h5py.File(sys.argv[1], "r")["/marker"].attrs["temperature"]; sys.exit(0 if t == 0.1 else 1)' \
  restarted.h5 || fail "the restarted run lost [marker] temperature = 0.1"

# (d) magnetic TI slab: Zeeman on both surfaces, parallel and antiparallel, the marker per layer
for sign in parallel antiparallel; do
  cat >"ti_$sign.ini" <<INI
[hamiltonian]
model = lattice
lattice_file = $SOURCE_DIR/inputs/lattices/ti.lattice
nx = 12
ny = 12
nz = 6
boundary = open open open
zeeman = 0 0 0.6
zeeman_layers = both
zeeman_sign = $sign
[solver]
method = marker
[marker]
layers = all
moments = 512
INI
  "$MPIEXEC" -n 1 "$HAMLET" run "ti_$sign.ini" -o "ti_$sign.h5" --quiet >"ti_$sign.log" 2>&1 || fail "TI slab $sign: $(cat "ti_$sign.log")"
done
"$PYTHON" - <<'PY' || fail "layer-resolved marker of the magnetic TI slab"
import h5py, numpy as np
C = {s: h5py.File("ti_%s.h5" % s, "r")["/marker/C"][:] for s in ("parallel", "antiparallel")}
for s, c in C.items():
    print("%s: layers %s, bottom half %.3f, top half %.3f, total %.3f" % (s, np.round(c, 3), c[:3].sum(), c[3:].sum(), c.sum()))
p, a = C["parallel"], C["antiparallel"]
assert np.sign(p[:3].sum()) == np.sign(p[3:].sum()) and abs(abs(p.sum()) - 1) < 0.05, p
assert np.sign(a[:3].sum()) == -np.sign(a[3:].sum()) and abs(a.sum()) < 0.05, a
for c in (p, a):
    assert abs(abs(c[:3].sum()) - 0.5) < 0.05 and abs(abs(c[3:].sum()) - 0.5) < 0.05, c
PY

# hamlet plot draws a map (every cell of a flake) and a line (layers)
"$HAMLET" plot small.h5 -o map.png >/dev/null 2>&1 && [ -s map.png ] || fail "hamlet plot wrote no marker map"
"$HAMLET" plot ti_parallel.h5 -o layers.png >/dev/null 2>&1 && [ -s layers.png ] || fail "hamlet plot wrote no layer plot"

# (e) bad decks exit 2 with their message
expect2() { # deck-text message
  printf '%s\n' "$1" >bad.ini
  "$HAMLET" run bad.ini -o bad.h5 --quiet >bad.log 2>&1
  local code=$?
  [ "$code" -eq 2 ] || fail "exit $code, want 2 for: $1"
  grep -qF -- "$2" bad.log || fail "message lacks '$2': $(cat bad.log)"
}
base="[hamiltonian]
model = lattice
lattice_file = $PWD/qwz1.lattice
nx = 6
ny = 6
nz = 1"
expect2 "$base
boundary = open periodic open
[solver]
method = marker" "the Chern marker needs open boundaries along x and y"
expect2 "$base
[solver]
method = marker" "boundary = periodic periodic periodic"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
sites = 1 2" "must be cells 'x y z; x y z; ...'"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
sites = 1 2 7" "cell 1 (1 2 7) is outside the 6 x 6 x 1 cells"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
sites = line
layers = 0" "give one of them"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
layers = 3" "layer 3 is outside 0 to 0"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
moments = 7" "[marker] moments = 7"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
mu = x" "[marker] mu = x"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
temperature = -0.01" "[marker] temperature = -0.01"
expect2 "$base
boundary = open open open
[solver]
method = marker
[marker]
temperature = hot" "[marker] temperature = hot"
expect2 "[hamiltonian]
model = fem
ex = 2
ey = 2
ez = 2
[solver]
method = marker" "the Chern marker needs a lattice's positions"
expect2 "$base
boundary = open open periodic
zeeman = 0 0 1
zeeman_layers = top
[solver]
method = marker" "needs a slab: boundary open along z"
expect2 "$base
boundary = open open open
zeeman_layers = sides" "[hamiltonian] zeeman_layers = sides"
expect2 "$base
boundary = open open open
zeeman_layers = both
vacancies = 0.1" "not with ldos_sites, problem = green, spectral, evolution or vacancies"
finish
