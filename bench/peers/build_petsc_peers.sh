#!/bin/bash
# shellcheck disable=SC2086 # the flag lists split into words on purpose
# Build the PETSc / SLEPc peers (petsc_ksp, slepc_lobpcg) against Debian's libpetsc-real3.18 /
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
echo "built $out/petsc_ksp $out/slepc_lobpcg"
