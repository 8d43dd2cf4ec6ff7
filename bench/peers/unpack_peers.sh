#!/bin/bash
# Unpack the peers' Debian packages (from bench/peers/fetch_debs.sh) under a prefix without
# installing them (dpkg -x: no maintainer scripts, so no MPI alternative changes), and export
# what running PETSc / SLEPc with Open MPI from there needs. Safe to source again on a warm machine.
#   source bench/peers/unpack_peers.sh [DEBS_DIR=.debs-peers] [PREFIX=/opt/peers]
peers_debs=${1:-.debs-peers}
PEERS_PREFIX=${2:-/opt/peers}
if ls "$peers_debs"/*.deb >/dev/null 2>&1; then
  rm -rf "$PEERS_PREFIX"; mkdir -p "$PEERS_PREFIX"
  for f in "$peers_debs"/*.deb; do dpkg -x "$f" "$PEERS_PREFIX"; done
fi
# Eigen (headers only) travels in .debs; unpack it here too when hamlet's unpack did not run
_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ ! -d /opt/deps/usr/include/eigen3 ] && [ ! -d /usr/include/eigen3 ] && [ ! -d "$PEERS_PREFIX/usr/include/eigen3" ]; then
  for f in "$_root"/.debs/libeigen3-dev_*.deb; do [ -f "$f" ] && dpkg -x "$f" "$PEERS_PREFIX"; done
fi
export PEERS_PREFIX
# For the PETSc / SLEPc programs only (hamlet's own runs keep MPICH's environment): Open MPI
# relocated to the prefix, BLAS / LAPACK and the rest from hamlet's /opt/deps when it is there.
_pl=$PEERS_PREFIX/usr/lib/x86_64-linux-gnu
_dl=/opt/deps/usr/lib/x86_64-linux-gnu
# (libnl-3, which Open MPI's netlink plugin loads, is in /opt/deps/lib, not /opt/deps/usr/lib)
export PEERS_LD_LIBRARY_PATH=$_pl:$_pl/openmpi/lib:$_dl/openblas-pthread:$_dl:/opt/deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Relocated Open MPI: OPAL_PREFIX, and Debian's /etc/openmpi defaults read from the prefix. PMIx
# (its plugins and help files) relocates through its own variables: its libdir is absolute.
# Then: one node, no ssh, no UCX / verbs probing, shared memory without kernel-assisted copies
# (these work in sandboxes such as gVisor; PEERS_BTL=self,tcp and PEERS_BIND=none are the
# runner's fallbacks), root allowed, more ranks than cores allowed
_px=$_pl/pmix2
export PEERS_MPIEXEC="env OPAL_PREFIX=$PEERS_PREFIX/usr OPAL_SYSCONFDIR=$PEERS_PREFIX/etc/openmpi \
PMIX_PREFIX=$_px PMIX_LIBDIR=$_px/lib PMIX_DATADIR=$_px/share PMIX_DATAROOTDIR=$_px/share \
OMPI_MCA_plm=isolated OMPI_MCA_btl=${PEERS_BTL:-self,vader} \
OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx \
OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
LD_LIBRARY_PATH=$PEERS_LD_LIBRARY_PATH $PEERS_PREFIX/usr/bin/mpiexec.openmpi --bind-to ${PEERS_BIND:-core}"
unset _pl _dl _px _root
