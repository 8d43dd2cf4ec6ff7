#!/bin/bash
# Every public C function (declared in include/hamlet.h and include/hamlet/*.h) has a Fortran
# binding in fortran/*.f90 (bind(C, name="...")), and every binding is called from a Fortran test,
# by its interface name or by the wrapper that drops the interface's _c.
set -uo pipefail
src=${SOURCE_DIR:?SOURCE_DIR is the source tree}
# declarations, comments stripped (a comment may name a function that is not declared)
c_functions=$(cat "$src"/include/hamlet.h "$src"/include/hamlet/*.h | perl -0pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' |
  grep -oE '\bhm_[a-z0-9_]+[[:space:]]*\(' | sed -E 's/[[:space:]]*\($//' | sort -u)
# bind(C, name="hm_x") with the interface's name on the same statement (continuation lines joined)
bindings=$(cat "$src"/fortran/*.f90 | perl -0pe 's/&[ \t]*\n[ \t]*&?//g' |
  grep -ioE '(function|subroutine)[[:space:]]+[a-z0-9_]+[[:space:]]*\([^)]*\)[^!]*bind[[:space:]]*\([[:space:]]*c[[:space:]]*,[[:space:]]*name[[:space:]]*=[[:space:]]*["'"'"']hm_[a-z0-9_]+' |
  perl -ne 'print lc("$2 $1\n") if /(?:function|subroutine)\s+(\w+).*name\s*=\s*["\x27](hm_\w+)/i' | sort -u)
[ -n "$c_functions" ] && [ -n "$bindings" ] || { echo "found no C functions or no bindings under $src"; exit 1; }
tests=$(cat "$src"/fortran/tests/*.f90 | tr '[:upper:]' '[:lower:]')
fail=0
for f in $c_functions; do
  names=$(awk -v f="$f" '$1 == f { print $2 }' <<<"$bindings")
  # A function taking or giving a C MPI_Comm is reached from Fortran through its _f twin (the
  # Fortran handle, MPI_Comm_f2c/c2f in C): the twin's bindings and test calls cover it.
  [ -z "$names" ] && grep -q 'MPI_Comm' <<<"$(grep -h "\b$f *(" "$src"/include/hamlet.h "$src"/include/hamlet/*.h)" &&
    names=$(awk -v f="${f}_f" '$1 == f { print $2 }' <<<"$bindings")
  if [ -z "$names" ]; then
    echo "MISSING: $f has no bind(C, name=\"$f\") in fortran/*.f90"
    fail=1
    continue
  fi
  used=0
  for n in $names; do
    grep -qE "\b(${n}|${n%_c})\b" <<<"$tests" && used=1
  done
  [ $used = 1 ] || { echo "UNTESTED: $f (Fortran $names) is not called in fortran/tests/*.f90"; fail=1; }
done
echo "$(wc -w <<<"$c_functions") public C functions, $(wc -l <<<"$bindings") bindings"
[ $fail = 0 ] && echo PASSED || exit 1
