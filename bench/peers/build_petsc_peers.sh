#!/bin/bash
# shellcheck disable=SC2086 # the flag lists split into words on purpose
# Build the PETSc / SLEPc peers (petsc_ksp, slepc_lobpcg, slepc_shift_invert[_complex]) against Debian's libpetsc-real3.18 /
# libslepc-real3.18 and Open MPI unpacked (dpkg -x, never installed) under a prefix, so that no
# MPI alternative of the machine changes (see README.md).
#   bash bench/peers/build_petsc_peers.sh OUTDIR [PREFIX=/opt/peers]
set -euo pipefail
out=${1:?output folder}; P=${2:-/opt/peers}
here=$(cd "$(dirname "$0")" && pwd)
L=$P/usr/lib/x86_64-linux-gnu
PETSC=$P/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-real
SLEPC=$P/usr/lib/slepcdir/slepc3.18/x86_64-linux-gnu-real
mkdir -p "$out"
flags="-O2 -I$PETSC/include -I$SLEPC/include -I$L/openmpi/include"
libs="-L$SLEPC/lib -L$PETSC/lib -L$L/openmpi/lib -L$L -Wl,-rpath-link,$L -Wl,--allow-shlib-undefined"
gcc $flags "$here/petsc_ksp.c" -o "$out/petsc_ksp" $libs -lpetsc_real -lmpi -lm
gcc $flags "$here/slepc_lobpcg.c" -o "$out/slepc_lobpcg" $libs -lslepc_real -lpetsc_real -lmpi -lm
gcc $flags -Wall -Wextra "$here/slepc_shift_invert.c" -o "$out/slepc_shift_invert" $libs -lslepc_real -lpetsc_real -lmpi -lm
built="$out/petsc_ksp $out/slepc_lobpcg $out/slepc_shift_invert"
# the complex Hermitian case needs the complex scalar build (libpetsc-complex3.18 / libslepc-complex3.18,
# in peers_packages_complex.txt); built only where they were unpacked
PETSC_C=$P/usr/lib/petscdir/petsc3.18/x86_64-linux-gnu-complex
SLEPC_C=$P/usr/lib/slepcdir/slepc3.18/x86_64-linux-gnu-complex
if [ -d "$SLEPC_C/include" ]; then
  gcc -O2 -Wall -Wextra -I"$PETSC_C/include" -I"$SLEPC_C/include" -I"$L/openmpi/include" "$here/slepc_shift_invert.c" \
      -o "$out/slepc_shift_invert_complex" -L"$SLEPC_C/lib" -L"$PETSC_C/lib" -L"$L/openmpi/lib" -L"$L" \
      -Wl,-rpath-link,"$L" -Wl,--allow-shlib-undefined -lslepc_complex -lpetsc_complex -lmpi -lm
  built="$built $out/slepc_shift_invert_complex"
fi
echo "built $built"
