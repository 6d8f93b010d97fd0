#!/usr/bin/env bash
# mlt krr end to end: fit, info, predict, score, Nyström, the memory check, errors.
# Reference predictions: tests/fixtures/krr (scripts/fixtures/krr.py): scikit-learn's
# KernelRidge, which has no intercept (--no-intercept), and with mlt's default
# intercept NumPy's solve of the bordered system and scikit-learn's Ridge.
source "$(dirname "$0")/lib.sh" "$@"
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"
FIX=$SRC/tests/fixtures/krr

# predictions within 1e-6 of a fixture file (one value per line, no header)
same_as_fixture() {
  "$PYTHON" -c "
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
check "diabetes: krr linear has ridge's r2 (the issue's -3.4 was the missing intercept)" \
  jq -n -e --argjson a "$krr_r2" --argjson b "$out" '(($a.r2 - $b.r2) | fabs) <= 1e-9 and $a.r2 > 0.5' >/dev/null
run "$MLT" info rbf_b.krr
check "info: the intercept is a parameter" grep -q 'fit_intercept: true' <<<"$out"

run "$MLT" info rbf.krr
check "info: kernel" grep -q 'kernel: rbf' <<<"$out"
check "info: gamma" grep -q 'gamma: 0.5' <<<"$out"
check "info: n_train" grep -q 'n_train: 80' <<<"$out"
check "info: exact" grep -q 'method: exact' <<<"$out"

run "$MLT" krr score rbf.krr "$FIX/test.csv" --json
check "score has r2" json_holds "$out" '0.5 < .r2 and .r2 <= 1 and .n_samples == 40'

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
# --- Streamed (--stream, --memory): the Nyström fit in three passes over DATA ---------
# The model against the in-memory one: the same landmark rows, and predictions within
# the bound tests/lib/krr_test.cpp derives (same_krr, same_model.sh).
"$PYTHON" - >smooth.csv <<'PY'
import math, random
random.seed(5)
print("x1,x2,x3,x4,y1,y2")
for i in range(600):
    x = [random.uniform(-2, 2) for _ in range(4)]
    y1 = math.sin(2 * x[0]) + x[1] ** 2 - x[2] * x[3] + random.gauss(0, 0.1)
    y2 = 1000 + 5 * math.cos(x[1] + x[2]) + random.gauss(0, 0.1)
    print(",".join(repr(v) for v in x + [y1, y2]))
PY
ny=(--kernel rbf --gamma 0.5 --lambda 0.1 --nystrom 40 --seed 11)
expect_status 0 "nystrom in memory" "$MLT" krr fit smooth.csv "${ny[@]}" --target y1,y2 -o mem.krr
run "$MLT" --timings krr fit smooth.csv "${ny[@]}" --target y1,y2 --stream --chunk-size 1K -o s1k.krr
check "--stream: ran (exit $rc; $err)" test "$rc" -eq 0
check "--stream: read in chunks, three passes ($err)" grep -qE "streamed 600 rows in [1-9][0-9] chunks, 3 passes" <<<"$err"
check "--stream 1K = in memory (same landmarks, predictions within the bound)" same_krr s1k.krr mem.krr smooth.csv 2
check "--stream: the same basis rows, bit for bit" jq -n -e --argjson a "$(model_json s1k.krr)" --argjson b "$(model_json mem.krr)" \
  '$a.matrices.basis == $b.matrices.basis and $a.fitted.n_train == 600' >/dev/null
expect_status 0 "--stream --no-intercept" "$MLT" krr fit smooth.csv "${ny[@]}" --target y1 --no-intercept --stream \
  --chunk-size 300 -o s0.krr
"$MLT" krr fit smooth.csv "${ny[@]}" --target y1 --no-intercept -o mem0.krr
check "--stream --no-intercept = in memory" same_krr s0.krr mem0.krr smooth.csv 1
# --memory: smooth.csv has 4,200 cells (16 bytes each: ~67 KB): 10K streams, 1G does not.
run "$MLT" --timings krr fit smooth.csv "${ny[@]}" --target y1,y2 --memory 10K -o m10k.krr
check "--memory 10K: streams ($err)" grep -q "streamed 600 rows" <<<"$err"
run "$MLT" --timings krr fit smooth.csv "${ny[@]}" --target y1,y2 --memory 1G -o m1g.krr
check "--memory 1G: in memory ($err)" bash -c '! grep -q streamed <<<"$1"' _ "$err"
check "--memory 1G: the in-memory model" test "$(grep -v -e '^{' -e '^sha256' m1g.krr)" = "$(grep -v -e '^{' -e '^sha256' mem.krr)"
expect_status 0 "--stream --standardize" "$MLT" krr fit smooth.csv "${ny[@]}" --target y1 --standardize --stream -o sstd.krr
run "$MLT" krr predict sstd.krr smooth.csv
check "--stream --standardize: 600 finite predictions" bash -c \
  '[ "$(wc -l <<<"$1")" -eq 601 ] && ! grep -qiE "nan|inf" <<<"$1"' _ "$out"
# What needs every row at once is refused, with the reason.
expect_error 2 "exact kernel ridge needs all the rows in memory" "--stream without --nystrom" \
  "$MLT" krr fit smooth.csv --kernel rbf --target y1 --stream -o x.krr
expect_error 2 "landmarks kmeans\+\+ chooses each landmark by its distances to all the rows" "--stream kmeans++" \
  "$MLT" krr fit smooth.csv "${ny[@]}" --landmarks kmeans++ --target y1 --stream -o x.krr
run "$MLT" krr fit - "${ny[@]}" --target y1 --stream -o x.krr <smooth.csv
check "--stream from standard input: refused, three passes cannot re-read it (exit $rc; $err)" test "$rc" -eq 2
check "no model after the refusals" test ! -e x.krr

finish
