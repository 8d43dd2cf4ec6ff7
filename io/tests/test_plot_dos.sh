#!/bin/bash
# tools/plot_dos.py: draws a PNG from a result file; a file without /dos is a clear error.
# Usage: test_plot_dos.sh plot_dos.py result.h5
# Skipped without h5py or matplotlib; failed then where HAMLET_TEST_REQUIRE names them.
set -u
script=$1 result=$2
py=${HAMLET_TEST_PYTHON:-/usr/bin/python3}
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck source=tests/e2e/need.sh
. "$HAMLET_SOURCE_DIR/tests/e2e/need.sh"
need h5py "no h5py for $py" python_has h5py
need matplotlib "no matplotlib for $py" python_has matplotlib

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
