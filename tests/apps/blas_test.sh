#!/usr/bin/env bash
# The BLAS kernel mlt selects gives the generic kernel's results to rounding.
source "$(dirname "$0")/lib.sh" "$@"

run env -u OPENBLAS_CORETYPE "$MLT" --version
selected=$(sed -n 's/.*kernel \([A-Za-z0-9]*\),.*/\1/p' <<<"$out")
run env OPENBLAS_CORETYPE=Prescott "$MLT" --version
check "OPENBLAS_CORETYPE set by the user is respected" grep -q "kernel Prescott" <<<"$out"
if grep -qw avx2 /proc/cpuinfo; then
  check "an AVX2/AVX-512 processor runs a matching kernel, not Prescott (got $selected)" \
    test "$selected" != "Prescott" -a -n "$selected"
fi

# digits: 1797 x 64, through the SVD and through the scatter matrix (BLAS-3 heavy).
for solver in svd covariance; do
  env -u OPENBLAS_CORETYPE "$MLT" pca fit "$DATA/digits.csv" --ignore digit -k 10 --solver $solver -o best.pca
  env OPENBLAS_CORETYPE=Prescott "$MLT" pca fit "$DATA/digits.csv" --ignore digit -k 10 --solver $solver -o generic.pca
  env -u OPENBLAS_CORETYPE "$MLT" pca transform best.pca "$DATA/digits.csv" -o best.csv
  env OPENBLAS_CORETYPE=Prescott "$MLT" pca transform generic.pca "$DATA/digits.csv" -o generic.csv
  check "$solver: $selected and Prescott kernels agree to 1e-12 relative" "$PYTHON" - <<'PY'
import csv, sys
a = [[float(x) for x in r] for r in list(csv.reader(open("best.csv")))[1:]]
b = [[float(x) for x in r] for r in list(csv.reader(open("generic.csv")))[1:]]
scale = max(abs(x) for r in b for x in r)
err = max(abs(x - y) for ra, rb in zip(a, b) for x, y in zip(ra, rb)) / scale
print("max relative difference %.3g" % err)
sys.exit(0 if err <= 1e-12 else 1)
PY
done
finish
