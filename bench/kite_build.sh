#!/bin/bash
# Build KITE's KITEx (github quantum-kite/kite, C++/OpenMP, LGPL-3) as a peer for the KPM benchmark
# into a self-contained bundle that runs on the GPU machine, which has no
# package registry:  .peers/kite/bundle/{KITEx, lib/, LICENSE.md, SOURCE}.
#   run (Debian 12, from the repository root):  bash bench/kite_build.sh
#   env:  KITE_SRC   a KITE checkout or bare git dir (default: the mirror below, else a git clone)
#         KITE_MARCH target ISA (default x86-64-v3: AVX2 + FMA, runs on any recent x86 server)
#         JOBS       parallel compiles (default 2)
# Serial HDF5 and Eigen come from Debian's .debs, unpacked under .peers/root (never installed:
# installing libhdf5-dev can switch the hdf5 alternatives and break hamlet's parallel-HDF5 build).
# HDF5 and its szip/aec filters are linked statically, libstdc++ too; libgomp travels in lib/
# (rpath $ORIGIN/lib). What stays dynamic is glibc (>= 2.34), libgcc_s and zlib, which every Linux
# with gcc has (libcurl and libcrypto are named for HDF5's S3 driver, which KITEx never pulls in,
# so they are not recorded as needed).
set -euo pipefail
cd "$(dirname "$0")/.."
PEERS=$PWD/.peers
KITE_COMMIT=560a4c9d86a9b34f153abcb402334a7fc2780585 # the snapshot read and verified (2026-11-25)
KITE_MARCH=${KITE_MARCH:-x86-64-v3}
JOBS=${JOBS:-2}
DEBS=(libhdf5-dev libhdf5-103-1 libhdf5-cpp-103-1 libhdf5-hl-100 libeigen3-dev libsz2 libaec0 libaec-dev)
SRC=$PEERS/kite/src
ROOT=$PEERS/root
OBJ=$PEERS/kite/obj
BUNDLE=$PEERS/kite/bundle
LIBDIR=$ROOT/usr/lib/x86_64-linux-gnu

# 1. KITE's sources at the pinned commit (only Src/ and the licence are needed for KITEx).
if [ ! -f "$SRC/Src/main.cpp" ]; then
  mkdir -p "$SRC"
  KITE_SRC=${KITE_SRC:-/work/.mirror/quantum-kite+kite/repo}
  if [ ! -d "$KITE_SRC" ]; then
    git clone --quiet https://github.com/quantum-kite/kite "$PEERS/kite/clone"
    KITE_SRC=$PEERS/kite/clone
  fi
  # (the local mirror lacks some docs/ images: git names them on stderr, the archive is complete)
  git -C "$KITE_SRC" archive "$KITE_COMMIT" Src LICENSE.md | tar -x -C "$SRC"
fi

# 2. Serial HDF5 (C and C++) and Eigen from Debian, unpacked, not installed.
if [ ! -f "$ROOT/usr/include/hdf5/serial/H5Cpp.h" ] || [ ! -d "$ROOT/usr/include/eigen3" ]; then
  mkdir -p "$PEERS/debs" "$ROOT"
  (cd "$PEERS/debs" && apt-get download "${DEBS[@]}")
  for deb in "$PEERS"/debs/*.deb; do dpkg -x "$deb" "$ROOT"; done
fi

# 3. Compile every translation unit (objects kept: a second run only relinks).
mkdir -p "$OBJ"
CXXFLAGS=(-std=gnu++17 -O3 "-march=$KITE_MARCH" -fopenmp -DCOMPILE_WAVEPACKET=1 -w
  -I"$SRC/Src" -I"$SRC/Src/Hamiltonian" -I"$SRC/Src/Tools" -I"$SRC/Src/Vector"
  -I"$SRC/Src/Simulation" -I"$SRC/Src/Lattice"
  -I"$ROOT/usr/include/hdf5/serial" -I"$ROOT/usr/include/eigen3")
compile_one() {
  local cpp=$1 obj
  obj=$OBJ/$(basename "$cpp" .cpp).o
  [ -f "$obj" ] && [ "$obj" -nt "$cpp" ] && return 0
  g++ "${CXXFLAGS[@]}" -c "$cpp" -o "$obj.tmp" && mv "$obj.tmp" "$obj"
}
pids=()
for cpp in "$SRC"/Src/*.cpp "$SRC"/Src/*/*.cpp; do
  compile_one "$cpp" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$JOBS" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid"; done

# 4. Link: static HDF5 + filters, static libstdc++, rpath to the bundled libgomp. libgcc_s stays the
# host's (gcc 12's static unwinder needs glibc 2.35's _dl_find_object), and std::random_device's
# arc4random (glibc 2.36) is answered from getrandom (glibc 2.25), so KITEx runs on glibc >= 2.34.
cat >"$OBJ/arc4random.c" <<'C_SOURCE'
#include <stdint.h>
#include <sys/random.h>
/* std::random_device of a static libstdc++ (gcc 12) calls arc4random, new in glibc 2.36: this one
 * draws the same kernel entropy through getrandom, so KITEx also loads on older glibc. */
uint32_t arc4random(void) {
  uint32_t r = 0;
  while (getrandom(&r, sizeof r, 0) != (long)sizeof r) {}
  return r;
}
C_SOURCE
gcc -O2 -c "$OBJ/arc4random.c" -o "$OBJ/arc4random.o"
rm -rf "$BUNDLE"; mkdir -p "$BUNDLE/lib"
# shellcheck disable=SC2016 # $ORIGIN is for the loader, not the shell
# HDF5's C++ objects come first, whole: KITE's globals copy H5::PredType constants during static
# initialization, which runs in link order (with a shared libhdf5_cpp the library's ran first).
g++ -fopenmp -static-libstdc++ -Wl,-rpath,'$ORIGIN/lib' -o "$BUNDLE/KITEx" \
  -Wl,--whole-archive "$LIBDIR/hdf5/serial/libhdf5_cpp.a" -Wl,--no-whole-archive "$OBJ"/*.o \
  "$LIBDIR/hdf5/serial/libhdf5.a" "$LIBDIR/libsz.a" "$LIBDIR/libaec.a" \
  -l:libcurl.so.4 -l:libcrypto.so.3 -l:libz.so.1 -ldl -lm -lpthread
strip "$BUNDLE/KITEx"
cp -L "$(g++ -print-file-name=libgomp.so.1)" "$BUNDLE/lib/"
strip "$BUNDLE/lib/libgomp.so.1"
cp "$SRC/LICENSE.md" "$BUNDLE/LICENSE.md"
printf 'KITE %s (github.com/quantum-kite/kite), built %s with g++ %s -O3 -march=%s\n' \
  "$KITE_COMMIT" "$(date -u +%F)" "$(g++ -dumpfullversion)" "$KITE_MARCH" >"$BUNDLE/SOURCE"

# 5. Check: nothing unresolved, it starts, no glibc newer than 2.34 asked for, a bundle small enough to carry.
if ldd "$BUNDLE/KITEx" | grep -q "not found"; then ldd "$BUNDLE/KITEx"; exit 1; fi
code=0; "$BUNDLE/KITEx" >/dev/null 2>&1 || code=$? # no input: past static initialization, then exit 1
[ "$code" -eq 1 ] || { echo "KITEx without an input exited with $code (1 expected)"; exit 1; }
newest=$(objdump -T "$BUNDLE/KITEx" "$BUNDLE/lib/libgomp.so.1" | grep -o "GLIBC_2\.[0-9]*" | sort -uV | tail -1)
echo "newest glibc symbol version needed: $newest"
case $newest in GLIBC_2.3[5-9] | GLIBC_2.[4-9]?) echo "KITEx needs $newest: more than glibc 2.34"; exit 1 ;; esac
ldd "$BUNDLE/KITEx" | awk '{print "  " $1}'
du -sh "$BUNDLE"
