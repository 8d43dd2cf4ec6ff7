#!/bin/bash
# shellcheck disable=SC2046,SC2086 # the package lists split into names on purpose
# Here (a Debian 12 machine with the registry): download what the peers need on the GPU machine,
# which reaches no registry.
# - libeigen3-dev (headers only) into .debs, next to hamlet's own packages (scripts/gpu_host_env.sh
#   unpacks every .deb there into /opt/deps: Eigen lands in /opt/deps/usr/include/eigen3).
# - Debian's PETSc 3.18 / SLEPc 3.18 (real) with their Open MPI and every library they load
#   (peers_packages.txt, about 40 MiB) into .debs-peers: .debs (about 39 MiB) and these do not fit
#   one device call's 64 MiB carry together, so they travel in a second call (README.md).
# .debs-peers is added to .git/info/exclude (ignored, never committed, allowed in `carry`).
# --complex also downloads the complex-scalar PETSc / SLEPc (peers_packages_complex.txt, about 19 MiB;
# then .debs-peers alone is about 57 MiB, still one device call's carry).
#   bash bench/peers/fetch_debs.sh [--complex]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/bench/peers
mkdir -p "$root/.debs" "$root/.debs-peers"
# (in a git worktree .git is a file: the exclude list lives in the common git directory)
info=$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo "$root/.git")/info
mkdir -p "$info"
grep -qx '/.debs-peers/' "$info/exclude" 2>/dev/null || echo '/.debs-peers/' >>"$info/exclude"
(cd "$root/.debs" && ls libeigen3-dev_*.deb >/dev/null 2>&1 || apt-get download libeigen3-dev)
cd "$root/.debs-peers"
lists="$here/peers_packages.txt"
[ "${1:-}" = --complex ] && lists="$lists $here/peers_packages_complex.txt"
apt-get download $(cat $lists | grep -v '^#') 2>&1 | grep -v "unsandboxed" || true
echo ".debs-peers: $(find . -maxdepth 1 -name "*.deb" | wc -l) packages, $(du -sh . | cut -f1)"
