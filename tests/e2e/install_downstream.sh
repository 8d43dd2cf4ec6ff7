# shellcheck shell=bash
# `cmake --install` into a temporary prefix, moved elsewhere afterwards (the tree must be
# relocatable), then the downstream examples built from the installed copy, both with
# find_package(hamlet) and with pkg-config, each run on 2 ranks: nothing may come from the source or
# build tree. Arguments: BUILD_DIR FORTRAN(ON/OFF) CUDA(ON/OFF).
. "$(dirname "$0")/common.sh"
BUILD=$1 FORTRAN=$2 CUDA=$3
need toolchain "no cc, pkg-config, make or readelf" commands_exist cc pkg-config make readelf
[ "$FORTRAN" = ON ] && need toolchain "no gfortran" commands_exist gfortran
unset LD_LIBRARY_PATH
# Anything that names the source or the build tree is a leak.
leaks() { grep -lE "$SOURCE_DIR|$BUILD" "$@" 2>/dev/null; }
# Does the program (or library) load libhamlet.so from the prefix?
loads_from_prefix() {
  local lib
  lib=$(ldd "$1" | awk '/libhamlet\.so/ { print $3; exit }')
  [ -n "$lib" ] && [[ $(realpath "$lib") == "$LIB"/* ]]
}

cmake --install "$BUILD" --prefix "$WORK/stage" >install.log 2>&1 || { cat install.log; fail "cmake --install"; finish; }
mv "$WORK/stage" "$WORK/prefix"
PREFIX=$WORK/prefix
LIB=$PREFIX/lib
for f in bin/hamlet include/hamlet.h lib/libhamlet.a lib/cmake/hamlet/hamletConfig.cmake \
         lib/cmake/hamlet/hamletConfigVersion.cmake lib/cmake/hamlet/hamletTargets.cmake \
         lib/pkgconfig/hamlet.pc share/hamlet/inputs/ti_dos.ini share/hamlet/plot_dos.py \
         share/hamlet/examples/downstream/c/ti_dos_lobpcg.c; do
  [ -e "$PREFIX/$f" ] || fail "not installed: $f"
done
headers=$(find "$SOURCE_DIR/include/hamlet" -name '*.h' | wc -l)
[ "$(find "$PREFIX/include/hamlet" -maxdepth 1 -name '*.h' | wc -l)" -eq "$headers" ] || fail "not all $headers headers installed"
# shared library: the soname carries the ABI version; the static one holds the same objects
soname=$(readelf -d "$LIB/libhamlet.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[[ $soname =~ ^libhamlet\.so\.[0-9]+$ ]] || fail "libhamlet.so has soname '$soname', expected libhamlet.so.<ABI>"
[ -e "$LIB/$soname" ] || fail "$soname is not installed"
ar t "$LIB/libhamlet.a" | grep -q '^kpm\.c\.o$' || fail "libhamlet.a lacks kpm.c.o"
if [ "$CUDA" = ON ]; then
  ar t "$LIB/libhamlet.a" | grep -q '^kernels_cuda\.cu\.o$' || fail "libhamlet.a lacks the CUDA objects"
  readelf -d "$LIB/libhamlet.so" | grep -q 'libcudart' || fail "libhamlet.so does not need libcudart"
fi
readelf -h "$LIB/libhamlet.a" 2>/dev/null | grep -q 'REL (Relocatable' || fail "libhamlet.a has no relocatable objects"
if [ "$FORTRAN" = ON ]; then
  for f in include/hamlet/fortran/hamlet.mod lib/libhamlet_fortran.a lib/cmake/hamlet/hamletFortranTargets.cmake \
           lib/pkgconfig/hamlet-fortran.pc; do
    [ -e "$PREFIX/$f" ] || fail "not installed: $f"
  done
  [ -e "$LIB/libhamlet_fortran.$soname" ] || [ -e "$LIB/${soname/libhamlet/libhamlet_fortran}" ] || fail "libhamlet_fortran has no versioned shared library"
fi
leaks "$PREFIX"/lib/cmake/hamlet/*.cmake "$PREFIX"/lib/pkgconfig/*.pc && fail "the CMake package or pkg-config files name the build or source tree"

# the installed program holds the library's objects itself (it uses internal functions, which
# libhamlet.so does not export) and runs a small deck on 2 ranks
ldd "$PREFIX/bin/hamlet" | grep -q libhamlet && fail "bin/hamlet loads a libhamlet.so: $(ldd "$PREFIX/bin/hamlet" | grep hamlet)"
"$PREFIX/bin/hamlet" --version | grep -q '^hamlet 0' || fail "installed hamlet --version"
printf '[run]\noutput = small.h5\nbackend = cpu\n[hamiltonian]\nmodel = ti\nnx = 4\nny = 4\nnz = 4\n[kpm]\nmoments = 32\nvectors = 2\n' >small.ini
"$MPIEXEC" -n 2 "$PREFIX/bin/hamlet" run small.ini --quiet >run.log 2>&1 || fail "installed hamlet run: $(cat run.log)"
# `hamlet plot` of an installed hamlet runs the installed script, not the source tree's: a stand-in
# there writes what it was given
cp "$PREFIX/share/hamlet/plot_dos.py" plot_dos.saved
printf 'import sys
open(sys.argv[sys.argv.index("-o") + 1], "w").write("installed " + sys.argv[1])
' \
  >"$PREFIX/share/hamlet/plot_dos.py"
"$PREFIX/bin/hamlet" plot small.h5 -o plot.txt >plot.log 2>&1 || fail "installed hamlet plot: $(cat plot.log)"
[ "$(cat plot.txt 2>/dev/null)" = "installed small.h5" ] || fail "installed hamlet plot did not run the installed script"
cp plot_dos.saved "$PREFIX/share/hamlet/plot_dos.py"
# and the installed script itself, with the modules it imports from beside it
"$PREFIX/bin/hamlet" plot small.h5 -o small.png >plot.log 2>&1 && [ -s small.png ] ||
  fail "installed hamlet plot of a DOS: $(cat plot.log)"

# the examples, copied from the prefix
cp -r "$PREFIX/share/hamlet/examples/downstream" src
chmod -R u+w src
export PKG_CONFIG_PATH=$LIB/pkgconfig
langs=c
[ "$FORTRAN" = ON ] && langs="c fortran"
for lang in $langs; do
  exe=ti_dos_lobpcg_${lang:0:1}
  # find_package(hamlet)
  if cmake -S "src/$lang" -B "cmake-$lang" -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_BUILD_TYPE=Release \
       >"cmake-$lang.log" 2>&1 && cmake --build "cmake-$lang" -- VERBOSE=1 >>"cmake-$lang.log" 2>&1; then
    grep -q -- "$PREFIX/include" "cmake-$lang.log" || fail "$lang (CMake): no include path under the prefix"
    leaks "cmake-$lang.log" "cmake-$lang/CMakeCache.txt" && fail "$lang (CMake): the build names the source or build tree"
    cp "cmake-$lang/$exe" "$exe-cmake"
  else
    fail "$lang: CMake build against the prefix: $(tail -20 "cmake-$lang.log")"
  fi
  # the static library too (C only): same objects, usage requirements of their own
  if [ "$lang" = c ]; then
    if cmake -S src/c -B static-c -DCMAKE_PREFIX_PATH="$PREFIX" -DLINK_STATIC=ON >static-c.log 2>&1 &&
       cmake --build static-c >>static-c.log 2>&1; then
      ldd "static-c/$exe" | grep -q libhamlet && fail "c (CMake, LINK_STATIC): the program still needs libhamlet.so"
      cp "static-c/$exe" "$exe-static"
    else
      fail "c: static CMake build against the prefix: $(tail -20 static-c.log)"
    fi
  fi
  # pkg-config
  if make -C "src/$lang" >"make-$lang.log" 2>&1; then
    grep -q -- "-L$PREFIX/" "make-$lang.log" || fail "$lang (make): no library path under the prefix"
    leaks "make-$lang.log" && fail "$lang (make): the build names the source or build tree"
    cp "src/$lang/$exe" "$exe-make"
  else
    fail "$lang: pkg-config build against the prefix: $(tail -20 "make-$lang.log")"
  fi
  for how in cmake make static; do
    [ -x "$exe-$how" ] || continue
    [ "$how" = static ] || loads_from_prefix "$exe-$how" || fail "$exe-$how does not load $LIB/libhamlet.so"
    # exit 0 means every LOBPCG eigenvalue matched 2 - 2 cos(j pi / (N + 1)) to 1e-8
    "$MPIEXEC" -n 2 "./$exe-$how" "$lang-$how.h5" >"run-$lang-$how.log" 2>&1 ||
      fail "$exe-$how on 2 ranks: $(cat "run-$lang-$how.log")"
    grep -q "5 of 5 converged" "run-$lang-$how.log" || fail "$exe-$how: LOBPCG did not report 5 of 5 converged"
  done
done

# C and Fortran (and both builds of each) computed the same DOS of the same slab
cmp_h5() { "$PREFIX/bin/hamlet" compare "$1" "$2" --only /hamiltonian,/kpm,/dos --rtol 1e-10 --atol 1e-12 >cmp.log 2>&1 ||
  fail "$1 and $2 differ: $(grep -v '^PASS' cmp.log | head -5)"
  grep -q "PASS  /kpm/moments " cmp.log || fail "$1 and $2: /kpm/moments was not compared"; }
cmp_h5 c-cmake.h5 c-make.h5
cmp_h5 c-cmake.h5 c-static.h5
if [ "$FORTRAN" = ON ]; then
  cmp_h5 c-cmake.h5 fortran-cmake.h5
  cmp_h5 fortran-cmake.h5 fortran-make.h5
fi
# an independent check of the DOS: it integrates to the number of states (8 x 8 x 4 sites, 4 orbitals)
if have h5py "no h5py/numpy for $PYTHON: the DOS integral check" python_has "h5py, numpy"; then
  "$PYTHON" - c-cmake.h5 <<'PY' || fail "the DOS does not integrate to 1024 states"
import sys, h5py, numpy as np
with h5py.File(sys.argv[1]) as f:
    e, rho = f["/dos/energy"][()], f["/dos/rho"][()]
total = getattr(np, "trapezoid", getattr(np, "trapz", None))(rho, e)
print("DOS integral", total)
sys.exit(0 if abs(total - 1024) < 0.02 * 1024 else 1)
PY
fi
finish
