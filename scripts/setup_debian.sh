#!/bin/bash
# Install the Debian 12 packages hamlet needs (run as root) and point mpicc/mpiexec at MPICH.
# Debian's ScaLAPACK pulls in Open MPI, whose alternatives would otherwise own mpicc and mpiexec.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
  build-essential gfortran cmake pkg-config \
  mpich libmpich-dev libhdf5-mpich-dev hdf5-tools libscalapack-mpich-dev \
  libfftw3-dev libopenblas-dev liblapacke-dev libinih-dev libsuitesparse-dev \
  python3-numpy python3-scipy python3-h5py-serial python3-h5py python3-matplotlib shellcheck >/dev/null
update-alternatives --set mpi /usr/bin/mpicc.mpich >/dev/null
update-alternatives --set mpirun /usr/bin/mpirun.mpich >/dev/null
