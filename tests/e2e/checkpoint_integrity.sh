# Checkpoint integrity and bitwise restarts: a restart on the same rank count ends
# bitwise equal to the uninterrupted run for KPM DOS, KPM LDOS, LOBPCG (standard and generalized)
# and IDR(s); a flipped bit in a stored vector, an edited /input and a zero LOBPCG block are refused.
# The last checkpoint an uninterrupted run leaves is the state a run killed after it would restart
# from, so the restarts below are deterministic (kill_restart*.sh cover the kill itself).
. "$(dirname "$0")/common.sh"
need_h5py
cat > kpm.ini <<'INI'
[run]
checkpoint = kpm_ckpt.h5
checkpoint_every = 10
[hamiltonian]
model = ti
nx = 8
ny = 8
nz = 6
boundary = periodic periodic open
potential = disorder
disorder_w = 1.0
[kpm]
moments = 200
vectors = 4
INI
cat > ldos.ini <<'INI'
[run]
checkpoint = ldos_ckpt.h5
checkpoint_every = 8
[hamiltonian]
model = ti
nx = 8
ny = 8
nz = 6
boundary = periodic periodic open
[kpm]
moments = 96
energies = 31
emin = -3
emax = 3
ldos_sites = 4 4 0; 4 4 3
INI
cat > lobpcg.ini <<'INI'
[run]
checkpoint = lobpcg_ckpt.h5
checkpoint_every = 3
[hamiltonian]
model = ti
nx = 6
ny = 6
nz = 4
[solver]
method = lobpcg
nev = 3
tol = 1e-8
maxit = 300
INI
cat > gen.ini <<'INI'
[run]
checkpoint = gen_ckpt.h5
checkpoint_every = 2
[hamiltonian]
model = fem
ex = 6
ey = 6
ez = 6
potential = harmonic
lx = 8
ly = 8
lz = 8
[solver]
method = lobpcg
nev = 4
tol = 1e-9
maxit = 400
INI
cat > idr.ini <<'INI'
[run]
checkpoint = idr_ckpt.h5
checkpoint_every = 1
[hamiltonian]
model = convdiff
n = 10
beta_x = 20
beta_y = 40
beta_z = 80
[solver]
method = idr
s = 2
tol = 1e-10
maxit = 3000
vectors = yes
INI
# bitwise CASE NPROCS: run, restart from the run's last checkpoint, compare with zero tolerance.
bitwise() {
  local c=$1 n=$2
  rm -f "${c}_ckpt.h5"
  "$MPIEXEC" -n "$n" "$HAMLET" run "$c.ini" -o "${c}_full$n.h5" --quiet >"$c.log" 2>&1 || fail "$c on $n: $(cat "$c.log")"
  [ -e "${c}_ckpt.h5" ] || { fail "$c on $n ranks wrote no checkpoint"; return; }
  cp "${c}_ckpt.h5" "${c}_saved$n.h5"
  "$MPIEXEC" -n "$n" "$HAMLET" restart "${c}_saved$n.h5" -o "${c}_re$n.h5" --quiet >"$c.log" 2>&1 ||
    fail "$c restart on $n: $(cat "$c.log")"
  "$HAMLET" compare "${c}_full$n.h5" "${c}_re$n.h5" --rtol 0 --atol 0 >cmp.txt 2>&1 ||
    fail "$c on $n ranks: the restart is not bitwise: $(cat cmp.txt)"
}
for c in kpm ldos lobpcg gen idr; do for n in 1 2; do bitwise "$c" "$n"; done; done

# refused CKPT PATTERN: a restart of CKPT is refused as a bad input (exit 2, not 1: no failure during
# a run) naming PATTERN.
refused() {
  "$MPIEXEC" -n 2 "$HAMLET" restart "$1" -o refused.h5 --quiet >refused.log 2>&1
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$1: a restart exited $rc; expected 2 (a refused input) naming $2: $(cat refused.log)"
  grep -q "$2" refused.log || fail "$1: the refusal does not name '$2': $(cat refused.log)"
  [ -e refused.h5 ] && fail "$1: a refused restart wrote its output"
  rm -f refused.h5
}
# One low bit of one stored value flipped on disk (h5py would recompute the checksum).
flip() { # flip FILE DATASET
  "$PYTHON" -c "import h5py, sys
with h5py.File(sys.argv[1], 'r') as f: off = f[sys.argv[2]].id.get_chunk_info(0).byte_offset + 8 * 5
with open(sys.argv[1], 'r+b') as g:
    g.seek(off); b = g.read(1); g.seek(off); g.write(bytes([b[0] ^ 1]))" "$@"
}
cp kpm_saved2.h5 bad_vec.h5 && flip bad_vec.h5 v_prev && refused bad_vec.h5 "'v_prev'.*Fletcher32"
cp kpm_saved2.h5 bad_mom.h5 && flip bad_mom.h5 moment_sums && refused bad_mom.h5 "'moment_sums'.*Fletcher32"
cp idr_saved2.h5 bad_idr.h5 && flip bad_idr.h5 block0 && refused bad_idr.h5 "'block0'.*Fletcher32"
# The deck text edited (same N): another Hamiltonian.
edit() { # edit FILE OLD NEW
  "$PYTHON" -c "import h5py, numpy as np, sys
f = h5py.File(sys.argv[1], 'r+'); t = f['input'][()].decode()
assert sys.argv[2] in t, 'no ' + sys.argv[2]
del f['input']; f['input'] = np.bytes_(t.replace(sys.argv[2], sys.argv[3]))" "$@"
}
for change in "disorder_w = 1.0|disorder_w = 1.5" "nz = 6|nz = 6
m = 1.5" "nz = 6|nz = 6
t = 1.1" "boundary = periodic periodic open|boundary = periodic open open"; do
  cp kpm_saved2.h5 edited.h5
  edit edited.h5 "${change%%|*}" "${change#*|}" || fail "could not edit the deck ($change)"
  refused edited.h5 "belongs to another Hamiltonian"
done
# A zero LOBPCG block (checksums rewritten by h5py: only the block check can catch it).
cp lobpcg_saved2.h5 zero.h5
"$PYTHON" -c "import h5py; f = h5py.File('zero.h5', 'r+'); f['block0'][...] = 0; f['block1'][...] = 0"
refused zero.h5 "not orthonormal"
finish
