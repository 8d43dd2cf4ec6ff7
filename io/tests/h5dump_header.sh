#!/bin/bash
# The result file is readable by the standard HDF5 tools: h5dump -H lists its groups. Skipped (77)
# without h5dump (Debian's hdf5-tools), failed then where HAMLET_TEST_REQUIRE names h5dump.
# Usage: h5dump_header.sh result.h5
set -u
# shellcheck source=tests/e2e/need.sh
. "$HAMLET_SOURCE_DIR/tests/e2e/need.sh"
need h5dump "no h5dump (Debian: hdf5-tools)" commands_exist h5dump
h5dump -H "$1" >h5dump_header.txt 2>&1 || { echo "FAIL: h5dump -H $1 exited $?: $(head -5 h5dump_header.txt)"; exit 1; }
grep -q 'GROUP "dos"' h5dump_header.txt || { echo "FAIL: h5dump -H $1 lists no /dos group"; exit 1; }
echo PASSED
