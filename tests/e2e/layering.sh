# Layering: physics/ and io/ reach linalg's objects through the public accessors. The compiler
# enforces it (objects.h stops with an #error where HAMLET_ABOVE_LINALG is defined, which
# cmake/Layering.cmake sets for every physics/ and io/ source of the library); this test checks
# that the guard fires, that linalg itself still compiles against objects.h, and that no source
# of physics/ or io/ names objects.h or halo.h (which includes it).
# Arguments: the C compiler, then include directories (MPI's).
set -u
cc=$1
shift
flags=(-std=c11 -fsyntax-only -I"$SOURCE_DIR/include" -I"$SOURCE_DIR/linalg/core")
for dir in "$@"; do flags+=(-I"$dir"); done
work=$(mktemp -d "${TMPDIR:-/tmp}/hamlet-layering.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
printf '#include "objects.h"\nint probe(void) { return (int)sizeof(struct hm_context_s); }\n' > "$work/probe.c"
"$cc" "${flags[@]}" "$work/probe.c" >"$work/linalg.log" 2>&1 || fail "objects.h does not compile for linalg: $(cat "$work/linalg.log")"
if "$cc" "${flags[@]}" -DHAMLET_ABOVE_LINALG "$work/probe.c" >"$work/above.log" 2>&1; then
  fail "objects.h compiled with HAMLET_ABOVE_LINALG defined"
fi
grep -q "physics/ and io/ must not include linalg's objects.h" "$work/above.log" || fail "no layering message: $(cat "$work/above.log")"
# (their white-box tests under */tests/ may look inside)
found=$(find "$SOURCE_DIR/physics" "$SOURCE_DIR/io" -name '*.[ch]' -not -path '*/tests/*' -print0 |
  xargs -0 grep -lE '#include "(objects|halo)\.h"')
[ -z "$found" ] || fail "physics/ or io/ sources include linalg's objects: $found"
grep -q 'HAMLET_ABOVE_LINALG' "$SOURCE_DIR/cmake/Layering.cmake" || fail "cmake/Layering.cmake no longer sets the guard"
if [ "$failures" -eq 0 ]; then echo PASSED; exit 0; fi
echo "FAILED ($failures)"
exit 1
