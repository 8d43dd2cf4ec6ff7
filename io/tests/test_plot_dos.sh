#!/bin/bash
# tools/plot_dos.py: draws a PNG from a result file; a file without /dos is a clear error.
# Usage: test_plot_dos.sh plot_dos.py result.h5   (exit 77 = skipped: no h5py/matplotlib)
set -u
script=$1 result=$2
py=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*"; exit 1; }
if ! "$py" -c "import h5py" 2>/dev/null; then
  case ",${HAMLET_TEST_REQUIRE:-}," in *,h5py,*) fail "no h5py for $py, but HAMLET_TEST_REQUIRE requires it" ;; esac
  echo "no h5py for $py: skipped"; exit 77
fi
"$py" -c "import matplotlib" 2>/dev/null || { echo "no matplotlib for $py: skipped"; exit 77; }

rm -f plot_dos_test.png
"$py" "$script" "$result" -o plot_dos_test.png || fail "plot_dos.py exited $?"
[ -s plot_dos_test.png ] || fail "no plot_dos_test.png written"
head -c 8 plot_dos_test.png | od -An -c | grep -q "P   N   G" || fail "plot_dos_test.png is not a PNG"

"$py" -c "import h5py; h5py.File('plot_no_dos.h5', 'w').create_dataset('input', data=b'x')"
msg=$("$py" "$script" plot_no_dos.h5 -o plot_no_dos.png 2>&1) && fail "a file without /dos was accepted"
echo "$msg" | grep -q "has no /dos group" || fail "unclear message for a file without /dos: $msg"
[ ! -e plot_no_dos.png ] || fail "an image was written for a file without /dos"
msg=$("$py" "$script" no_such_file.h5 2>&1) && fail "a missing file was accepted"
echo "$msg" | grep -q "cannot open 'no_such_file.h5'" || fail "unclear message for a missing file: $msg"
echo PASSED
