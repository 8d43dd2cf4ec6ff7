# shellcheck shell=bash source-path=SCRIPTDIR
# What the deck and the files' headers decide is refused before any work: exit 2, the deck's file
# and line named (and the model file's where one is involved), and no output file written.
# shellcheck disable=SC1091 # common.sh is checked on its own
. "$(dirname "$0")/common.sh"
# refused NEEDLE... -- DECK: run DECK on 2 ranks; exit 2, every needle in stderr, no out.h5 (nor its .tmp).
refused() {
  local needles=()
  while [ "$1" != "--" ]; do needles+=("$1"); shift; done
  local deck=$2
  rm -f out.h5 out.h5.tmp
  run2 run "$deck" >out.txt 2>err.txt
  local got=$?
  [ "$got" -eq 2 ] || fail "$deck exited $got, expected 2: $(cat err.txt)"
  for n in "${needles[@]}"; do grep -qF -- "$n" err.txt || fail "$deck: stderr lacks '$n': $(cat err.txt)"; done
  if [ -e out.h5 ] || [ -e out.h5.tmp ]; then fail "$deck: refused, yet an output file was written"; fi
}
cp "$SOURCE_DIR/inputs/lattices/square.lattice" sq.lattice

# storage = matrix_free keeps no entries: method = dense and shift-and-invert's direct inner solves
# need them (the deck alone says so: refused at the storage line, naming the other key's line).
cat > mf_dense.ini <<'INI'
[run]
output = out.h5
[hamiltonian]
model = lattice
lattice_file = sq.lattice
nx = 8
ny = 8
nz = 1
storage = matrix_free
[solver]
method = dense
INI
refused "mf_dense.ini:9: [hamiltonian] storage = matrix_free with [solver] method = dense (line 11)" \
  "use storage = assembled" -- mf_dense.ini
sed 's/^method = dense$/method = lobpcg\nnev = 2\ntransform = shift_invert\nshift = 0.5/' mf_dense.ini > mf_si.ini
refused "mf_si.ini:9: [hamiltonian] storage = matrix_free with [solver] transform = shift_invert (line 13)" \
  "inner = auto" "inner = iterative" -- mf_si.ini
sed 's/^shift = 0.5$/shift = 0.5\ninner = direct/' mf_si.ini > mf_si_direct.ini
refused "mf_si_direct.ini:9:" "(line 13) and inner = direct" -- mf_si_direct.ini
# The same decks with storage = assembled run (the refusal is the storage's, not the model's).
sed 's/^storage = matrix_free$/storage = assembled/' mf_dense.ini > as_dense.ini
run2 run as_dense.ini --quiet >as.log 2>&1 || fail "storage = assembled with method = dense: $(cat as.log)"

# nev beyond what the matrix holds, from the deck's size (a lattice's cells x orbitals, the ti's 4
# orbitals per site, a Matrix Market size line): LOBPCG needs 3 x block <= N with block = nev +
# max(2, nev/4); Krylov-Schur nev < N. The largest nev the message allows does run.
cat > nev_lat.ini <<'INI'
[run]
output = out.h5
[hamiltonian]
model = lattice
lattice_file = sq.lattice
nx = 4
ny = 4
nz = 1
[solver]
method = lobpcg
nev = 20
INI
refused "nev_lat.ini:11: [solver] nev = 20" "N = 16 rows" "(from [hamiltonian] nx ny nz = 4 4 1" \
  "line 6)" "nev at most 3 here" -- nev_lat.ini
sed '/^nev = 20$/d' nev_lat.ini > nev_default.ini
refused "nev_default.ini:10: [solver] nev = 4 (the default)" "nev at most 3 here" -- nev_default.ini
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = ti\nnx = 2\nny = 2\nnz = 2\n[solver]\nmethod = lobpcg\nnev = 9\n' > nev_ti.ini
refused "nev_ti.ini:10: [solver] nev = 9" "N = 32 rows" "nev at most 8 here" -- nev_ti.ini
sed 's/^nev = 9$/nev = 8/' nev_ti.ini > nev_ti8.ini
run2 run nev_ti8.ini --quiet >ti8.log 2>&1; code=$?
[ "$code" -eq 0 ] || [ "$code" -eq 3 ] || fail "nev = 8 of 32 rows is allowed, yet it exited $code: $(cat ti8.log)"
{ printf '%%%%MatrixMarket matrix coordinate real symmetric\n10 10 10\n'
  for i in $(seq 1 10); do echo "$i $i $i"; done; } > diag.mtx
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = mtx\nmatrix = diag.mtx\n[solver]\nmethod = lobpcg\nnev = 2\n' > nev_mtx.ini
refused "nev_mtx.ini:8: [solver] nev = 2" "N = 10 rows (from [hamiltonian] matrix = diag.mtx: diag.mtx:2: the size line" \
  "nev at most 1 here" -- nev_mtx.ini
printf 'block = 4\n' >> nev_mtx.ini
refused "nev_mtx.ini:9: [solver] block = 4" "block at most 3" -- nev_mtx.ini
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = mtx\nmatrix = diag.mtx\n[solver]\nmethod = lobpcg\nnev = 10\ntransform = shift_invert\nshift = 0.5\n' > nev_ks.ini
refused "nev_ks.ini:8: [solver] nev = 10" "Krylov-Schur finds at most N - 1 = 9 eigenpairs" -- nev_ks.ini
sed 's/^nev = 10$/nev = 9/' nev_ks.ini > nev_ks9.ini
run2 run nev_ks9.ini --quiet >ks9.log 2>&1; code=$?
[ "$code" -eq 0 ] || [ "$code" -eq 3 ] || fail "nev = 9 of 10 rows by Krylov-Schur is allowed, yet it exited $code: $(cat ks9.log)"

# Sizes past the row limits, refused before anything is allocated: local rows are 32-bit (at most
# 2^31 - 2 per rank), and a lattice is split in whole slabs (nx x ny cells across z).
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = sq.lattice\nnx = 60000\nny = 60000\nnz = 60000\n' > huge.ini
refused "huge.ini:6: [hamiltonian] nx ny nz = 60000 60000 60000 cells of 1 orbital" "N = 2.16e+14 rows" \
  "blocks of 3.6e+09 rows" -- huge.ini
# 4 x 10000 x 10000 x 1250 = 5e11 rows on one rank: ceil(5e11 / (2^31 - 2)) = 233 ranks needed.
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = ti\nnx = 10000\nny = 10000\nnz = 1250\n' > rows.ini
rm -f out.h5
"$MPIEXEC" -n 1 "$HAMLET" run rows.ini >out.txt 2>err.txt; code=$?
[ "$code" -eq 2 ] || fail "5e11 rows on one rank exited $code, expected 2: $(cat err.txt)"
grep -qF "rows.ini:5: [hamiltonian] nx ny nz = 10000 10000 1250 sites of 4 orbitals (model = ti): N = 5e+11 rows; on 1 rank one rank would own 5e+11" err.txt &&
  grep -qF "use at least 233 ranks" err.txt || fail "5e11 rows on one rank: $(cat err.txt)"
[ -e out.h5 ] && fail "5e11 rows on one rank: refused, yet an output file was written"
refused "rows.ini:5:" "on 2 ranks one rank would own 2.5e+11" "use at least 233 ranks" -- rows.ini
# A Matrix Market header of 10^12 rows: refused from the size line alone (the line after it is
# no entry: it is never read).
printf '%%%%MatrixMarket matrix coordinate real general\n%% comment\n1000000000000 1000000000000 1\nnot an entry\n' > big.mtx
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = mtx\nmatrix = big.mtx\n[solver]\nmethod = lobpcg\n' > big.ini
refused "big.ini:5: [hamiltonian] matrix = big.mtx: big.mtx:3: the size line declares 1000000000000 x 1000000000000" \
  "on 2 ranks one rank would own 5e+11" -- big.ini

# Keys a model file does not take: lattice vectors beside a _tb.dat or hamlet's format (both give
# their own), Wannier centres beside hamlet's format (its orbital lines give the positions); refused
# at the key's line, naming the model file and its line, before the file is read.
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = sq.lattice\na1 = 1 0 0\nnx = 2\nny = 2\nnz = 1\n' > a1_hamlet.ini
refused "a1_hamlet.ini:6: [hamiltonian] a1 = 1 0 0: lattice vectors in the deck complete a Wannier90 seedname_hr.dat only" \
  "lattice_file = sq.lattice (line 5) is in hamlet's format" -- a1_hamlet.ini
printf 'not read: refused from the deck\n' > model_tb.dat
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = model_tb.dat\na3 = 0 0 4\nnx = 2\nny = 2\nnz = 1\n' > a3_tb.ini
refused "a3_tb.ini:6: [hamiltonian] a3 = 0 0 4:" "lattice_file = model_tb.dat (line 5) is a Wannier90 seedname_tb.dat" \
  -- a3_tb.ini
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\ncentres = c.xyz\nlattice_file = sq.lattice\nnx = 2\nny = 2\nnz = 1\n' > centres.ini
refused "centres.ini:5: [hamiltonian] centres = c.xyz: Wannier centres apply to Wannier90 files" \
  "lattice_file = sq.lattice (line 6) is in hamlet's format" -- centres.ini
# A model file that is empty, blank or a directory says so (not "no 'orbital' line").
: > empty.lattice
printf ' \n\n' > blank.lattice
mkdir -p folder.lattice
for m in empty.lattice:"is empty (0 bytes)" blank.lattice:"holds only blanks" folder.lattice:"is a directory, not a model file"; do
  printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = %s\nnx = 2\nny = 2\nnz = 1\n' "${m%%:*}" > model.ini
  refused "model.ini:5: [hamiltonian] lattice_file = ${m%%:*}: refused (see below)" "${m%%:*}: ${m#*:}" -- model.ini
done

# Host memory, from the deck and the headers before any allocation: the rows of the largest rank
# need their stored entries (12 bytes each at the least) and two vectors. HAMLET_DENSE_MEMORY_LIMIT
# caps what a rank may take: 4 MB. 400 x 400 cells of the square lattice on 2 ranks: 8e4 rows x (4 x
# 12 + 32) B = 6.1 MiB assembled is refused; matrix-free, 8e4 x 32 B = 2.4 MiB runs.
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = sq.lattice\nnx = 400\nny = 400\nnz = 1
storage = assembled\n[kpm]\nmoments = 16\nvectors = 1\n' > memory.ini
export HAMLET_DENSE_MEMORY_LIMIT=4000000
refused "memory.ini:6: [hamiltonian] nx ny nz = 400 400 1 cells of 1 orbital (sq.lattice): one rank's 8e+04 rows need" \
  "at least 6.10 MiB of host memory (the matrix's entries and two vectors), but 3.81 MiB is available" \
  "storage = matrix_free" -- memory.ini
sed 's/^storage = assembled$/storage = matrix_free/' memory.ini > memory_free.ini
run2 run memory_free.ini --quiet >free.log 2>&1 || fail "the matrix-free operator within the limit was refused: $(cat free.log)"
# A Matrix Market header of 10^7 rows and 10^8 entries: 5e6 rows per rank x (10 x 12 + 32) B.
printf '%%%%MatrixMarket matrix coordinate real general\n10000000 10000000 100000000\n1 1 1\n' > wide.mtx
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = mtx\nmatrix = wide.mtx\n' > wide.ini
refused "wide.ini:5: [hamiltonian] matrix = wide.mtx: wide.mtx:2: the size line declares 10000000 x 10000000" \
  "one rank's 5e+06 rows need at least 724.79 MiB" "use more nodes, or a smaller model" -- wide.ini
unset HAMLET_DENSE_MEMORY_LIMIT

# The matrix-free operator's GPU kernel is one deck key: with assembled storage it is refused, an
# unknown word is refused with the allowed ones, and on the CPU a forced kernel runs (no effect there).
printf '[run]\noutput = out.h5\n[hamiltonian]\nmodel = lattice\nlattice_file = sq.lattice\nnx = 8\nny = 8\nnz = 1
storage = assembled\ngpu_kernel = box\n[kpm]\nmoments = 16\n' > kernel.ini
refused "kernel.ini:10: [hamiltonian] gpu_kernel = box with storage = assembled (line 9)" -- kernel.ini
sed 's/^gpu_kernel = box$/gpu_kernel = fastest/; s/^storage = assembled$/storage = matrix_free/' kernel.ini > kernel_word.ini
refused "kernel_word.ini:10:" "fastest" "auto, staged, box, mma, small, site" -- kernel_word.ini
sed 's/^storage = assembled$/storage = matrix_free/' kernel.ini > kernel_free.ini
run2 run kernel_free.ini --quiet >kernel.log 2>&1 || fail "gpu_kernel = box, matrix-free, on the CPU: $(cat kernel.log)"
if have h5py "no h5py for the attribute check" python_has "h5py, numpy"; then
  "$PYTHON" -c "import h5py,sys; v=h5py.File('out.h5','r')['hamiltonian'].attrs['gpu_kernel']
sys.exit(0 if (v.decode() if isinstance(v, bytes) else str(v)) == 'box' else 1)" || fail "/hamiltonian gpu_kernel is not box"
fi

finish
