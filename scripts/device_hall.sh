#!/bin/bash
# The half-quantized surface Hall plateau (issue 28 section 2) at a size beyond the CPU's minutes,
# on the lent GPU machine (`.debs` carried, as device_conductivity2.sh):
#   test  e2e_hall_plateau on the CUDA build (HAMLET_TEST_REQUIRE=h5py): sheet units, the folded
#         slab, the deck's plateau with both signs on the auto backend (cuda there)
#   run   inputs/ti_hall_plateau.ini with backend = cuda at HALL_L x HALL_L x 6 cells, M = HALL_M,
#         R = HALL_R, Bz = +0.6 and -0.6 on the top layer -> $OUT/hall_plus.h5, $OUT/hall_minus.h5,
#         the plateau values (|mu| <= 0.1 and the odd part over |mu| <= 0.5) in $OUT/hall_plateau.txt,
#         and $OUT/hall_plateau.png where the machine's python has matplotlib (else draw it here:
#         /usr/bin/python3 scripts/plot_hall.py hall_plus.h5 hall_minus.h5 -o docs/hall_plateau.png)
#   run: bash scripts/device_hall.sh        STEPS="test run" (default both)
#   env: HALL_L (128: N = 393216), HALL_M (512), HALL_R (16)
set -uo pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
STEPS=${STEPS:-test run}
want() { case " $STEPS " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/device_build.sh
source scripts/device_build.sh # unpack the carried packages, build build-gpu
status=0
if want test; then
  (cd build-gpu && HAMLET_TEST_REQUIRE=h5py ctest -R e2e_hall_plateau --output-on-failure) \
    >"$OUT/ctest_hall.log" 2>&1 || status=1
  grep -E "sigma_xy|odd part|tests passed|FAIL" "$OUT/ctest_hall.log" | head -20
fi
if want run; then
  L=${HALL_L:-128}; M=${HALL_M:-512}; R=${HALL_R:-16}
  for sign in plus minus; do
    bz=0.6; [ "$sign" = minus ] && bz=-0.6
    sed -e "s/^backend = .*/backend = cuda/" -e "s#^output = .*#output = $OUT/hall_$sign.h5#" \
      -e "s#^lattice_file = .*#lattice_file = $PWD/inputs/lattices/ti.lattice#" \
      -e "s/^nx = .*/nx = $L/" -e "s/^ny = .*/ny = $L/" -e "s/^zeeman = .*/zeeman = 0 0 $bz/" \
      -e "s/^moments = .*/moments = $M/" -e "s/^vectors = .*/vectors = $R/" \
      inputs/ti_hall_plateau.ini >"$OUT/hall_$sign.ini"
    echo "== hall_$sign: $L x $L x 6, M = $M, R = $R, Bz = $bz ($SECONDS s)" | tee -a "$OUT/hall_plateau.txt"
    timeout 560 ./build-gpu/bin/hamlet run "$OUT/hall_$sign.ini" 2>&1 | tee -a "$OUT/hall_plateau.txt" || status=1
  done
  "$HAMLET_TEST_PYTHON" - "$OUT" <<'PY' 2>&1 | tee -a "$OUT/hall_plateau.txt" || status=1
import sys, h5py, numpy as np
g = {m: h5py.File(f"{sys.argv[1]}/hall_{m}.h5", "r")["/conductivity"] for m in ("plus", "minus")}
E = g["plus"]["energy"][:]
s = {m: c["sigma"][0, 0] for m, c in g.items()}
for m, c in g.items():
    w = np.abs(E) <= 0.1
    print("%s: sigma_xy for |mu| <= 0.1 = %.4f +- %.4f %s" % (m, s[m][w].mean(), c["error"][0, 0][w].mean(), c.attrs["unit"]))
odd, gap = (s["plus"] - s["minus"]) / 2, np.abs(E) <= 0.5
print("odd part for |mu| <= 0.5: mean %.4f, %.4f .. %.4f" % (odd[gap].mean(), odd[gap].min(), odd[gap].max()))
PY
  if "$HAMLET_TEST_PYTHON" -c "import matplotlib" 2>/dev/null; then
    "$HAMLET_TEST_PYTHON" scripts/plot_hall.py "$OUT/hall_plus.h5" "$OUT/hall_minus.h5" -o "$OUT/hall_plateau.png" || status=1
  else
    echo "no matplotlib here: draw docs/hall_plateau.png from hall_plus.h5 and hall_minus.h5 on the CPU machine"
  fi
fi
echo "device_hall: exit $status at $SECONDS s"
exit "$status"
