# shellcheck shell=bash
# `hamlet --version` prints the build configuration; `hamlet info` the backends compiled in, the GPUs
# each rank sees and the readable energy meters (a fake RAPL tree: one readable package zone, one
# that is not). Arguments: CUDA(ON/OFF) HDF5_VERSION, from the configuration.
. "$(dirname "$0")/common.sh"
CUDA=$1 HDF5_VERSION=$2
"$HAMLET" --version >version.txt 2>&1 || fail "hamlet --version exited non-zero"
line() { grep -E "^  $1 *:" version.txt; }
grep -qE '^hamlet [0-9]+\.[0-9]+\.[0-9]+ \(git ' version.txt || fail "--version: no 'hamlet X.Y.Z (git ...)' line"
if [ "$CUDA" = ON ]; then
  cuda_version=$(nvcc --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\),.*/\1/p')
  line CUDA | grep -q "on, CUDA ${cuda_version}" || fail "--version: CUDA line $(line CUDA), expected on, CUDA $cuda_version"
else
  line CUDA | grep -q ": off$" || fail "--version: CUDA line $(line CUDA), expected off"
fi
line HDF5 | grep -qF ": $HDF5_VERSION, parallel" || fail "--version: HDF5 line $(line HDF5), expected $HDF5_VERSION, parallel"
mpich=$(mpichversion 2>/dev/null | sed -n 's/^MPICH Version:[[:space:]]*//p')
[ -z "$mpich" ] || line MPI | grep -qE "MPICH Version: *$mpich" || fail "--version: MPI line $(line MPI), expected MPICH $mpich"
blas=$(line BLAS | sed 's/^.*: //')
[ -n "$blas" ] || fail "--version: no BLAS line"
for f in $blas; do [ ! -e "${f%%;*}" ] && [[ $f == /* ]] && fail "--version: BLAS $f does not exist"; done

# a fake RAPL tree: package-0 readable, package-1 without its counter
mkdir -p rapl/intel-rapl:0 rapl/intel-rapl:1
echo package-0 >rapl/intel-rapl:0/name; echo 262143328850 >rapl/intel-rapl:0/max_energy_range_uj
echo 1000 >rapl/intel-rapl:0/energy_uj
echo package-1 >rapl/intel-rapl:1/name; echo 262143328850 >rapl/intel-rapl:1/max_energy_range_uj
export HAMLET_RAPL_ROOT=$WORK/rapl HAMLET_NVML_LIB=$WORK/no_such_nvml.so
run2 info >info.txt 2>&1 || fail "hamlet info exited non-zero: $(cat info.txt)"
grep -q "^hamlet info: 2 ranks" info.txt || fail "info: no rank count"
if [ "$CUDA" = ON ]; then
  grep -q "^backends compiled in: cpu (OpenMP [0-9.]*), cuda (on, CUDA" info.txt || fail "info: backends line $(grep backends info.txt)"
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  [ "$(grep -c "GPUs: $gpus visible" info.txt)" -eq 2 ] || fail "info: each rank should see $gpus GPUs: $(grep GPUs info.txt)"
else
  grep -q "^backends compiled in: cpu (OpenMP [0-9.]*); cuda not compiled" info.txt || fail "info: backends line $(grep backends info.txt)"
fi
for r in 0 1; do grep -q "^rank $r on " info.txt || fail "info: no line for rank $r"; done
[ "$(grep -c "energy meters: 1 readable" info.txt)" -eq 2 ] || fail "info: each rank should read 1 meter: $(grep meters info.txt)"
grep -q "^    cpu package-0$" info.txt || fail "info: the readable zone package-0 is not listed"
grep -q "^    cpu package-1$" info.txt && fail "info: the unreadable zone package-1 is listed"
grep -q "no_such_nvml.so" info.txt || fail "info: the probe note does not say why NVML gave no meter"

# info takes no argument
run2 info extra >out.txt 2>err.txt; code=$?
[ "$code" -eq 2 ] || fail "hamlet info extra exited $code, expected 2"
grep -q "unexpected argument 'extra'" err.txt || fail "hamlet info extra: $(cat err.txt)"
finish
