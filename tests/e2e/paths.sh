# shellcheck shell=bash source-path=SCRIPTDIR
# Files are never overwritten by accident: an output or checkpoint that is an input (deck, matrix,
# mass file, a lattice model file in hamlet's or Wannier90's format, its centres, the _wsvec.dat
# beside a Wannier90 file; by name, symbolic or hard link, -o, restart) is refused with exit 2
# before any work, naming the deck key and line;
# a missing or unwritable directory is refused at once; a stale .tmp is removed (and said); a
# restart continues the checkpoint it was given, never another run's.
# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "$0")/common.sh"
expect() { # expect CODE NEEDLE -- command...
  local code=$1 needle=$2; shift 3
  "$@" >out.txt 2>err.txt; local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, expected $code: $(cat err.txt)"
  grep -qF -- "$needle" err.txt out.txt || fail "'$*': output lacks '$needle': $(cat err.txt out.txt)"
}
cat > deck.ini <<'INI'
[run]
output = run.h5
checkpoint = ckpt.h5
checkpoint_every = 4
[hamiltonian]
model = ti
nx = 4
ny = 4
nz = 4
[kpm]
moments = 64
vectors = 2
INI
cp deck.ini deck.orig
expect 2 "the deck and the output (-o) are the same file, deck.ini" -- run2 run deck.ini -o deck.ini
expect 2 "the output (-o) and the checkpoint ([run] checkpoint, deck.ini:3) are the same file, ckpt.h5" -- run2 run deck.ini -o ckpt.h5
expect 2 "the output (-o) and the checkpoint ([run] checkpoint, deck.ini:3) are the same file, ./ckpt.h5 = ckpt.h5" -- run2 run deck.ini -o ./ckpt.h5
ln -s deck.ini soft.h5
expect 2 "the deck and the output (-o) are the same file, deck.ini = soft.h5" -- run2 run deck.ini -o soft.h5
ln deck.ini hard.h5
expect 2 "the deck and the output (-o) are the same file, deck.ini = hard.h5" -- run2 run deck.ini -o hard.h5
sed 's/^checkpoint = ckpt.h5$/checkpoint = ck.ini/' deck.ini > ck.ini
cp ck.ini ck.orig
expect 2 "the deck and the checkpoint ([run] checkpoint, ck.ini:3) are the same file, ck.ini" -- run2 run ck.ini -o other.h5
if ! cmp -s deck.ini deck.orig || ! cmp -s ck.ini ck.orig; then fail "a refused run changed the deck"; fi
# Matrix Market inputs: the matrix and the mass file are inputs too.
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 2.0\n2 2 3.0\n' > a.mtx
cp a.mtx a.orig
printf '[run]\noutput = a.mtx\n[hamiltonian]\nmodel = mtx\nmatrix = a.mtx\n[solver]\nmethod = dense\n' > mtx.ini
expect 2 "the input [hamiltonian] matrix (mtx.ini:5) and the output ([run] output, mtx.ini:2) are the same file, a.mtx" -- run2 run mtx.ini
printf '%%%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1.0\n2 2 1.0\n' > b.mtx
printf '[run]\noutput = m.h5\n[hamiltonian]\nmodel = mtx\nmatrix = a.mtx\nmass = b.mtx\n[solver]\nmethod = dense\n' > mass.ini
expect 2 "the input [hamiltonian] mass (mass.ini:6) and the output (-o) are the same file, b.mtx" -- run2 run mass.ini -o b.mtx
cmp -s a.mtx a.orig || fail "a refused run changed the matrix file"
sed 's/^mass = b.mtx$/mass = a.mtx/' mass.ini > mass2.ini
run2 run mass2.ini --quiet >mass.log 2>&1 || fail "matrix and mass from one file are allowed: $(cat mass.log)"
# Lattice models: every input file of the deck (hamlet's format; a Wannier90 _hr.dat, its centres
# and the _wsvec.dat beside it) as the output or the checkpoint, by name, through a symbolic and a
# hard link: exit 2 naming the deck key and line, and the file byte for byte as it was.
cp "$SOURCE_DIR/inputs/lattices/square.lattice" sq.lattice
cat > sq_hr.dat <<'DAT'
 square lattice, one orbital, t = -1
1
5
    1    1    1    1    1
 0  0  0  1  1   0.0  0.0
 1  0  0  1  1  -1.0  0.0
-1  0  0  1  1  -1.0  0.0
 0  1  0  1  1  -1.0  0.0
 0 -1  0  1  1  -1.0  0.0
DAT
printf '1\n centres\nX 0.0 0.0 0.0\n' > sq_centres.xyz
{ echo '## written by hand with use_ws_distance=.true.'; for R in '0 0 0' '1 0 0' '-1 0 0' '0 1 0' '0 -1 0'; do
    printf '%s 1 1\n1\n0 0 0\n' "$R"; done; } > sq_wsvec.dat
lattice_deck() { # lattice_deck FILE EXTRA-LINE
  printf '[run]\noutput = lat.h5\ncheckpoint_every = 4\n[hamiltonian]\nmodel = lattice\nlattice_file = %s\n' "$1"
  printf 'nx = 4\nny = 4\nnz = 1\nboundary = periodic periodic open\n%s\n[kpm]\nmoments = 16\nvectors = 1\n' "$2"
}
lattice_deck sq.lattice '' > lat_hamlet.ini
lattice_deck sq_hr.dat 'centres = sq_centres.xyz' > lat_w90.ini
for f in sq.lattice sq_hr.dat sq_centres.xyz sq_wsvec.dat; do cp "$f" "$f.orig"; done
for case in "lat_hamlet.ini sq.lattice input [hamiltonian] lattice_file (lat_hamlet.ini:6)" \
            "lat_w90.ini sq_hr.dat input [hamiltonian] lattice_file (lat_w90.ini:6)" \
            "lat_w90.ini sq_centres.xyz input [hamiltonian] centres (lat_w90.ini:11)" \
            "lat_w90.ini sq_wsvec.dat input Wannier90 _wsvec.dat beside [hamiltonian] lattice_file (lat_w90.ini:6)"; do
  read -r deck file role <<<"$case"
  ln -sf "$file" "soft_$file.h5"
  ln -f "$file" "hard_$file.h5"
  for target in "$file" "soft_$file.h5" "hard_$file.h5"; do
    expect 2 "the $role and the output (-o) are the same file" -- run2 run "$deck" -o "$target"
  done
  for target in "$file" "soft_$file.h5"; do
    sed "s|^output = lat.h5\$|output = $target|" "$deck" > as_output.ini
    expect 2 "and the output ([run] output, as_output.ini:2) are the same file" -- run2 run as_output.ini
    grep -qF "${role/$deck/as_output.ini}" err.txt || fail "output = $target: the message lacks '$role': $(cat err.txt)"
    sed "s|^checkpoint_every = 4\$|checkpoint = $target\ncheckpoint_every = 4|" "$deck" > as_ckpt.ini
    expect 2 "and the checkpoint ([run] checkpoint, as_ckpt.ini:3) are the same file" -- run2 run as_ckpt.ini
  done
  cmp -s "$file" "$file.orig" || fail "a refused run changed $file"
done
[ ! -e lat.h5 ] || fail "a refused run wrote lat.h5"
# The start state of [evolution] start = file PATH, named inside the start's text, is protected too.
{ printf '%%%%MatrixMarket matrix array real general\n16 1\n'; for _ in $(seq 16); do echo 1; done; } > st.mtx
cp st.mtx st.orig
ln -sf st.mtx soft_st.h5
printf '[hamiltonian]\nmodel = lattice\nlattice_file = sq.lattice\nnx = 4\nny = 4\nnz = 1\n[solver]\nmethod = evolution\n[evolution]\nstart = file st.mtx\nsteps = 2\n' > ev.ini
for target in st.mtx soft_st.h5; do
  expect 2 "the input [evolution] start (ev.ini:10) and the output (-o) are the same file" -- run2 run ev.ini -o "$target"
done
cmp -s st.mtx st.orig || fail "a refused run changed st.mtx"
run2 run ev.ini -o ev.h5 --quiet >ok.log 2>&1 || fail "ev.ini does not run: $(cat ok.log)"
# The same decks run where nothing collides (the refusals above were about the files alone).
for deck in lat_hamlet.ini lat_w90.ini; do
  run2 run "$deck" --quiet >ok.log 2>&1 || fail "$deck does not run: $(cat ok.log)"
done
# Directories: missing, not a directory, not writable: exit 2 at once, naming the directory.
printf '[run]\noutput = big.h5\n[hamiltonian]\nmodel = ti\nnx = 96\nny = 96\nnz = 96\n[kpm]\nmoments = 4096\n' > big.ini
start=$SECONDS
expect 2 "cannot write the output (-o) nowhere/x.h5: directory 'nowhere': No such file or directory" -- run2 run big.ini -o nowhere/x.h5
[ $((SECONDS - start)) -le 5 ] || fail "a missing output directory took $((SECONDS - start)) s to refuse"
expect 2 "'deck.ini' is not a directory" -- run2 run big.ini -o deck.ini/x.h5
sed 's/^checkpoint = ckpt.h5$/checkpoint = gone\/ckpt.h5/' deck.ini > gone.ini
expect 2 "cannot write the checkpoint ([run] checkpoint, gone.ini:3) gone/ckpt.h5: directory 'gone'" -- run2 run gone.ini
if [ "$(id -u)" -ne 0 ]; then # root writes anywhere: the check is made by creating a file
  mkdir ro && chmod a-w ro
  expect 2 "directory 'ro': Permission denied" -- run2 run deck.ini -o ro/x.h5
fi
# A .tmp left by a killed run is removed when the next run of that output starts.
echo junk > run.h5.tmp
echo junk > ckpt.h5.tmp
run2 run deck.ini >stale.log 2>&1 || fail "run with stale .tmp files: $(cat stale.log)"
grep -qF "removed 'run.h5.tmp', left by an earlier run" stale.log || fail "the removal of run.h5.tmp was not said: $(cat stale.log)"
grep -qF "removed 'ckpt.h5.tmp'" stale.log || fail "the removal of ckpt.h5.tmp was not said"
[ -e run.h5.tmp ] || [ -e ckpt.h5.tmp ] && fail "stale .tmp files are still there"
if [ ! -e run.h5 ] || [ ! -e ckpt.h5 ]; then fail "the run wrote no output or checkpoint"; fi
# restart X -o X would replace the checkpoint it reads.
expect 2 "the output (-o) and the checkpoint given to restart are the same file, ckpt.h5" -- run2 restart ckpt.h5 -o ckpt.h5
expect 2 "the output (-o) and the checkpoint given to restart are the same file" -- run2 restart ckpt.h5 -o ./ckpt.h5
# A restart of a copied checkpoint writes its checkpoints to the copy, never to the original's path.
sed -e 's/^moments = 64$/moments = 2000/' -e 's/^checkpoint_every = 4$/checkpoint_every = 50/' deck.ini > slow.ini
rm -f ckpt.h5
HAMLET_TEST_STEP_DELAY_US=20000 setsid "$MPIEXEC" -n 2 "$HAMLET_TESTHOOKS" run slow.ini --quiet >killed.log 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -e ckpt.h5 ] && break; sleep 0.1; done
kill -KILL -- -"$pid" 2>/dev/null; wait "$pid" 2>/dev/null
if [ -e ckpt.h5 ]; then
  mv ckpt.h5 copy.h5
  echo original > ckpt.h5
  run2 restart copy.h5 -o restarted.h5 >restart.log 2>&1 || fail "restart of a copy: $(cat restart.log)"
  [ "$(cat ckpt.h5)" = original ] || fail "the restart of copy.h5 wrote over the original's checkpoint path"
  grep -qE "checkpoints +[0-9]+ written to copy.h5" restart.log || fail "the restart did not checkpoint to copy.h5: $(cat restart.log)"
else
  fail "no checkpoint appeared before the kill: $(cat killed.log)"
fi
finish
