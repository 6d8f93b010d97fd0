#!/usr/bin/env bash
# --normalize, the normalized kernel k(x,x') / sqrt(k(x,x) k(x',x')), end to end: every
# kernel method takes it from the one kernel declaration (kernel.hpp). References:
# tests/fixtures/kernel_normalize (scripts/fixtures/kernel_normalize.py): scikit-learn's
# KernelRidge and KNeighborsRegressor on the normalized kernel passed precomputed.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/kernel_normalize
KRR=$SRC/tests/fixtures/krr

# predictions (after a header line) within TOL of a fixture file (one value per line)
same_as() {  # CSV FIXTURE TOL
  "$PYTHON" -c "
import sys
got = [float(l) for l in open(sys.argv[1]).read().split()[1:]]
want = [float(l) for l in open(sys.argv[2])]
tol = float(sys.argv[3])
sys.exit(0 if len(got) == len(want) and all(abs(a - b) <= tol * max(1, abs(b)) for a, b in zip(got, want)) else 1)
" "$@"
}

# krr: 1e-9, the tolerance of the unbordered solve (tests/lib/krr_test.cpp) with room.
expect_status 0 "krr fit --normalize" "$MLT" krr fit "$KRR/train.csv" --kernel poly --gamma 0.5 --degree 3 --coef0 1 \
  --lambda 0.1 --no-intercept --normalize -o n.krr
"$MLT" krr predict n.krr "$KRR/test.csv" -o n.csv
check "krr, normalized poly: scikit-learn's KernelRidge on the precomputed kernel" same_as n.csv "$FIX/krr_poly.csv" 1e-9
run "$MLT" info n.krr
check "info shows normalize" grep -q "normalize: true" <<<"$out"
"$MLT" krr fit "$KRR/train.csv" --kernel poly --gamma 0.5 --lambda 0.1 --no-intercept -o plain.krr
"$MLT" krr predict plain.krr "$KRR/test.csv" -o plain.csv
check "without --normalize the predictions differ" test "$(md5sum <n.csv)" != "$(md5sum <plain.csv)"

# knn: the kernel-induced distance of the normalized linear kernel, sqrt(2 - 2 cos).
expect_status 0 "knn fit --normalize" "$MLT" knn fit "$KRR/train.csv" --regression -k 5 --kernel linear --normalize \
  -o n.knn
"$MLT" knn predict n.knn "$KRR/test.csv" -o knn.csv
check "knn, cosine kernel distance: scikit-learn's on the precomputed distance" same_as knn.csv "$FIX/knn_cosine.csv" 1e-12

# Every kernel method takes the flag; cv keeps it in every grid point.
for cmd in "svm fit $DATA/iris.csv --kernel linear" "logreg fit $DATA/iris.csv --kernel poly --lambda 1" \
  "perceptron fit $DATA/iris.csv --kernel linear" "pca fit $DATA/iris.csv --ignore species -k 2 --kernel linear"; do
  # shellcheck disable=SC2086  # cmd: the words of a command line
  expect_status 0 "mlt $cmd --normalize" "$MLT" $cmd --normalize -o m.model
  run "$MLT" info m.model
  check "mlt $cmd: the model records normalize" grep -q "normalize: true" <<<"$out"
done
run "$MLT" krr cv "$KRR/train.csv" --kernel linear,poly --normalize --lambda 0.1,1 --folds 3 --json
check "krr cv --normalize runs ($err)" test "$rc" -eq 0

expect_error 2 "normalize applies to the linear, poly, spectrum and walk kernels only" "--normalize with rbf is refused" \
  "$MLT" krr fit "$KRR/train.csv" --kernel rbf --normalize -o x.krr
expect_error 2 "kernel" "--normalize without a kernel is refused" "$MLT" svm fit "$DATA/iris.csv" --normalize -o x.svm
printf 'a,b,y\n1,2,1\n0,0,2\n3,1,3\n' >zero.csv
expect_error 65 "needs k\(x, x\) > 0.*all-zero row" "a zero row under the normalized linear kernel" \
  "$MLT" krr fit zero.csv --kernel linear --normalize -o x.krr
check "no model after failures" test ! -e x.krr -a ! -e x.svm
finish
