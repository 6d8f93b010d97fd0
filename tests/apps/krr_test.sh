#!/usr/bin/env bash
# mlt krr end to end: fit, info, predict, score, Nyström, the memory check, errors.
# Reference predictions: tests/fixtures/krr (scripts/fixtures/krr.py): scikit-learn's
# KernelRidge, which has no intercept (--no-intercept), and with mlt's default
# intercept NumPy's solve of the bordered system and scikit-learn's Ridge.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/krr

# predictions within 1e-6 of a fixture file (one value per line, no header)
same_as_fixture() {
  python3 -c "
import sys
got = [float(l) for l in open(sys.argv[1]).read().split()[1:]]
want = [float(l) for l in open(sys.argv[2])]
sys.exit(0 if len(got) == len(want) and all(abs(a - b) <= 1e-6 * max(1, abs(b)) for a, b in zip(got, want)) else 1)
" "$1" "$2"
}

expect_status 0 "fit rbf" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --gamma 0.5 --lambda 0.1 --no-intercept -o rbf.krr
expect_status 0 "predict rbf" "$MLT" krr predict rbf.krr "$FIX/test.csv" -o rbf.csv
check "rbf predictions equal scikit-learn's" same_as_fixture rbf.csv "$FIX/rbf.csv"
check "prediction header is the target" test "$(head -1 rbf.csv)" = "y"
expect_status 0 "fit laplacian" "$MLT" krr fit "$FIX/train.csv" --kernel laplacian --gamma 0.3 --lambda 0.1 --no-intercept -o lap.krr
"$MLT" krr predict lap.krr "$FIX/test.csv" -o lap.csv
check "laplacian predictions equal scikit-learn's" same_as_fixture lap.csv "$FIX/laplacian.csv"
expect_status 0 "fit exponential" "$MLT" krr fit "$FIX/train.csv" --kernel exponential --sigma 0.8 --lambda 0.1 --no-intercept \
  -o exp.krr
"$MLT" krr predict exp.krr "$FIX/test.csv" -o exp.csv
check "exponential predictions equal the precomputed-kernel reference" same_as_fixture exp.csv "$FIX/exponential.csv"

# The intercept (the default): the bordered system, and the linear kernel is ridge.
"$MLT" krr fit "$FIX/train.csv" --kernel rbf --gamma 0.5 --lambda 0.1 -o rbf_b.krr
"$MLT" krr predict rbf_b.krr "$FIX/test.csv" -o rbf_b.csv
check "rbf with an intercept equals the bordered system" same_as_fixture rbf_b.csv "$FIX/intercept_rbf.csv"
"$MLT" krr fit "$FIX/train.csv" --kernel linear --lambda 0.5 -o lin_b.krr
"$MLT" krr predict lin_b.krr "$FIX/test.csv" -o lin_b.csv
check "the linear kernel with an intercept equals scikit-learn's Ridge" same_as_fixture lin_b.csv "$FIX/intercept_ridge.csv"
"$MLT" ridge fit "$SRC/data/diabetes.csv" --standardize --lambda 1 -o d.ridge
"$MLT" krr fit "$SRC/data/diabetes.csv" --standardize --kernel linear --lambda 1 -o d.krr
run "$MLT" krr score d.krr "$SRC/data/diabetes.csv" --json
krr_r2=$out
run "$MLT" ridge score d.ridge "$SRC/data/diabetes.csv" --json
check "diabetes: krr linear has ridge's r2 (the issue's -3.4 was the missing intercept)" python3 -c "
import json, sys
a, b = json.loads(sys.argv[1])['r2'], json.loads(sys.argv[2])['r2']
sys.exit(0 if abs(a - b) <= 1e-9 and a > 0.5 else 1)" "$krr_r2" "$out"
run "$MLT" info rbf_b.krr
check "info: the intercept is a parameter" grep -q 'fit_intercept: true' <<<"$out"

run "$MLT" info rbf.krr
check "info: kernel" grep -q 'kernel: rbf' <<<"$out"
check "info: gamma" grep -q 'gamma: 0.5' <<<"$out"
check "info: n_train" grep -q 'n_train: 80' <<<"$out"
check "info: exact" grep -q 'method: exact' <<<"$out"

run "$MLT" krr score rbf.krr "$FIX/test.csv" --json
check "score has r2" python3 -c "import json,sys; d=json.loads(sys.argv[1]); sys.exit(0 if 0.5 < d['r2'] <= 1 and d['n_samples'] == 40 else 1)" "$out"

# Nyström: all rows as landmarks is the exact fit; fewer gives a model of M rows.
expect_status 0 "fit nystrom M=n" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --gamma 0.5 --lambda 0.1 --nystrom 80 --no-intercept \
  -o ny80.krr
"$MLT" krr predict ny80.krr "$FIX/test.csv" -o ny80.csv
check "Nyström with M = n equals scikit-learn's exact KRR" same_as_fixture ny80.csv "$FIX/rbf.csv"
expect_status 0 "fit nystrom kmeans++" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --sigma 1 --nystrom 20 \
  --landmarks kmeans++ --seed 3 -o ny20.krr
run "$MLT" info ny20.krr
check "info: landmarks" grep -q 'landmarks: kmeans++' <<<"$out"
check "info: 20 basis rows" grep -q 'n_basis: 20' <<<"$out"
"$MLT" krr fit "$FIX/train.csv" --kernel rbf --sigma 1 --nystrom 20 --landmarks kmeans++ --seed 3 -o again.krr
check "same seed, same model" test "$(grep -v -e '^{' -e '^sha256' again.krr)" = "$(grep -v -e '^{' -e '^sha256' ny20.krr)"

# The exact solve refuses what cannot fit, before allocating, and says why.
awk 'BEGIN { srand(1); print "a,b,y"; for (i = 0; i < 100000; i++) print rand() "," rand() "," rand() }' > big.csv
expect_error 65 "100000 x 100000 kernel matrix \(74\.5 GiB\).*--nystrom" "exact fit too large" \
  "$MLT" krr fit big.csv --kernel rbf -o big.krr
check "no model after failure" test ! -e big.krr
expect_status 0 "the same data with --nystrom" "$MLT" krr fit big.csv --kernel rbf --nystrom 50 -o big.krr

# λ = 0 with duplicate rows: Cholesky fails, least squares with a warning, never NaN.
{ cat "$FIX/train.csv"; sed -n 2,11p "$FIX/train.csv"; } > dup.csv
run "$MLT" krr fit dup.csv --kernel rbf --gamma 0.5 --lambda 0 -o dup.krr
check "lambda 0 duplicates: exit 0" test "$rc" -eq 0
check "lambda 0 duplicates: warning" grep -q "least-squares" <<<"$err"
run "$MLT" krr predict dup.krr "$FIX/test.csv"
check "lambda 0 duplicates: finite predictions" bash -c '! grep -qiE "nan|inf" <<<"$1"' _ "$out"

# Errors.
expect_error 2 "kernel" "unknown kernel" "$MLT" krr fit "$FIX/train.csv" --kernel cosine -o x.krr
expect_error 2 "kernel is required" "no kernel" "$MLT" krr fit "$FIX/train.csv" -o x.krr
expect_error 2 "excludes" "gamma and sigma" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --gamma 1 --sigma 1 -o x.krr
expect_error 2 "landmarks" "unknown landmarks" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --nystrom 5 --landmarks grid -o x.krr
expect_error 65 "nystrom M=81 > n_samples=80" "too many landmarks" "$MLT" krr fit "$FIX/train.csv" --kernel rbf --nystrom 81 -o x.krr
expect_error 65 "trained on 3 features, input has 2" "wrong width" sh -c "tail -n +2 '$FIX/test.csv' | cut -d, -f1,2 | '$MLT' krr predict rbf.krr - --no-header"
check "no model after failures" test ! -e x.krr
finish
