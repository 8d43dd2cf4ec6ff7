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

finish
