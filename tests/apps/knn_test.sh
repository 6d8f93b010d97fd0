#!/usr/bin/env bash
# mlt knn end to end: fit, predict (labels, --proba, --neighbors), score, regression,
# brute force vs k-d tree, errors.
source "$(dirname "$0")/lib.sh" "$@"

# Classification with text labels: predictions are the labels themselves.
expect_status 0 "fit iris" "$MLT" knn fit "$DATA/iris.csv" --target species -k 5 -o iris.knn
check "model written" test -s iris.knn
run "$MLT" knn predict iris.knn "$DATA/iris.csv"
check "predict: header is the target's name" test "$(head -1 <<<"$out")" = "species"
check "predict: 150 rows" test "$(wc -l <<<"$out")" -eq 151
check "predict: label text round-trips" test "$(sed -n 2p <<<"$out")" = "setosa"
check "predict: only known labels" test -z "$(tail -n +2 <<<"$out" | grep -vxE 'setosa|versicolor|virginica')"

run "$MLT" knn predict iris.knn "$DATA/iris.csv" --proba
check "proba: header" test "$(head -1 <<<"$out")" = "species,setosa,versicolor,virginica"
check "proba: rows sum to 1, shares of 5 votes" "$PYTHON" -c "
import sys
for line in sys.stdin.read().split()[1:]:
    v = [float(x) for x in line.split(',')[1:]]
    assert abs(sum(v) - 1) < 1e-12 and all(abs(x * 5 - round(x * 5)) < 1e-12 for x in v), line
" <<<"$out"

# Model files. iris (600 values) stays all text; digits' training set (1797 x 64)
# is written as a binary section (model format 2).
check "iris model: format 2, all text" test "$(head -1 iris.knn)" = "mlt-model 2"
check "iris model: no binary section" test -z "$(grep -a '^binary ' iris.knn)"
expect_status 0 "fit digits" "$MLT" knn fit "$DATA/digits.csv" -k 3 -o digits.knn
check "digits model: the training set is a binary section" \
  test "$(grep -a '^binary \|^matrix ' digits.knn | cut -d' ' -f1-4)" = "$(printf 'binary train_X 1797 64\nmatrix train_y 1797 1')"
check "digits model: 1797 x 64 x 8 bytes of it" test "$(stat -c %s digits.knn)" -lt $((1797 * 64 * 8 + 60000))
run "$MLT" info digits.knn
check "info on a binary model" grep -qx "  train_X (1797x64)" <<<"$out"
check "info on a binary model: version" grep -qx "format_version: 2" <<<"$out"
# Loaded bit for bit: every training row finds itself (or an identical earlier row)
# at distance exactly 0.
run "$MLT" knn predict digits.knn "$DATA/digits.csv" --neighbors
check "binary model: each training row at distance 0 from itself" "$PYTHON" -c "
import sys
lines = sys.stdin.read().split()
assert len(lines) == 1798
for i, line in enumerate(lines[1:], start=1):
    f = line.split(',')
    assert int(f[1]) <= i and float(f[4]) == 0.0, line" <<<"$out"
# A version 1 model (all text, written by scripts/fixtures/model.py) predicts exactly
# what a model fitted now with the same settings does.
run "$MLT" knn predict "$SRC/tests/fixtures/model/iris_v1.knn" "$DATA/iris.csv" --neighbors --proba
v1_out=$out
run "$MLT" knn predict iris.knn "$DATA/iris.csv" --neighbors --proba
check "version 1 model: same neighbours, distances and votes as a fresh fit" test "$v1_out" = "$out"

# --neighbors comes from the prediction's own search: the same predictions as without.
run "$MLT" knn predict iris.knn "$DATA/iris.csv" --neighbors --proba
with_neighbors=$(cut -d, -f1-4 <<<"$out")
run "$MLT" knn predict iris.knn "$DATA/iris.csv" --proba
check "--neighbors: the predictions and probabilities of predict without it" test "$with_neighbors" = "$out"
# --neighbors: 1-based training rows and distances. Rows 102 and 143 of iris are the
# same flower: for either query both are at distance 0, the lower row first.
run "$MLT" knn predict iris.knn "$DATA/iris.csv" --neighbors
check "neighbors: header" test "$(head -1 <<<"$out")" = "species,neighbor1,neighbor2,neighbor3,neighbor4,neighbor5,distance1,distance2,distance3,distance4,distance5"
check "neighbors: row 143 -> 102 then 143 at distance 0" test "$(sed -n 144p <<<"$out" | cut -d, -f2,3,7,8)" = "102,143,0,0"
check "neighbors: row 102 -> 102 then 143" test "$(sed -n 103p <<<"$out" | cut -d, -f2,3,7,8)" = "102,143,0,0"
check "neighbors: distances non-decreasing" "$PYTHON" -c "
import sys
for line in sys.stdin.read().split()[1:]:
    d = [float(x) for x in line.split(',')[6:]]
    assert d == sorted(d), line
" <<<"$out"

# Brute force and k-d tree give byte-identical neighbours and distances.
for metric in euclidean manhattan chebyshev cosine; do
  "$MLT" knn fit "$DATA/wine.csv" --target cultivar -k 7 --standardize --metric $metric --algorithm brute -o brute.knn 2>/dev/null
  "$MLT" knn fit "$DATA/wine.csv" --target cultivar -k 7 --standardize --metric $metric --algorithm kdtree -o tree.knn 2>/dev/null
  "$MLT" knn predict brute.knn "$DATA/wine.csv" --neighbors --proba -o brute.csv
  "$MLT" knn predict tree.knn "$DATA/wine.csv" --neighbors --proba -o tree.csv
  check "brute = kdtree ($metric)" cmp -s brute.csv tree.csv
done

# score: the classification report, and JSON with the confusion matrix by class.
run "$MLT" knn score iris.knn "$DATA/iris.csv"
check "score: accuracy line" grep -qE '^accuracy 0\.9[0-9]*$' <<<"$out"
check "score: confusion matrix with class names" grep -q '^virginica' <<<"$out"
run "$MLT" knn score iris.knn "$DATA/iris.csv" --json
check "score json: classes" json_holds "$out" '.classes == ["setosa", "versicolor", "virginica"]'
check "score json: log_loss finite" json_holds "$out" '.log_loss | type == "number" and (isinfinite or isnan | not)'

# k = 1 on its own training set with distance weights: every row is its own neighbour.
expect_status 0 "fit k=1 distance" "$MLT" knn fit "$DATA/iris.csv" -k 1 --weights distance -o one.knn
run "$MLT" knn score one.knn "$DATA/iris.csv" --json
check "k=1 on the training set: accuracy 1 (duplicates share a label)" json_holds "$out" '.accuracy == 1'

# Regression: mean of the neighbours' targets, scored as ridge is.
expect_status 0 "fit regression" "$MLT" knn fit "$DATA/diabetes.csv" --regression -k 10 --standardize -o diab.knn
run "$MLT" knn predict diab.knn "$DATA/diabetes.csv"
check "regression: header is the target" test "$(head -1 <<<"$out")" = "progression"
run "$MLT" knn score diab.knn "$DATA/diabetes.csv" --json
check "regression score: mse, rmse, mae, r2" json_holds "$out" '
  ((pow(.rmse; 2) - .mse) | fabs) < 1e-6 * .mse and 0 < .r2 and .r2 < 1 and .mae > 0'
# First row by hand: the mean target of its 10 nearest neighbours (from --neighbors).
run "$MLT" knn predict diab.knn "$DATA/diabetes.csv" --neighbors
check "regression: prediction = mean of the neighbours' targets" "$PYTHON" -c "
import csv,sys
rows = list(csv.reader(open('$DATA/diabetes.csv')))[1:]
line = sys.stdin.read().split()[1].split(',')
pred, nb = float(line[0]), [int(x) for x in line[1:11]]
mean = sum(float(rows[i - 1][-1]) for i in nb) / 10
assert abs(pred - mean) < 1e-9 * mean, (pred, mean)
" <<<"$out"

# Kernel-induced distance: rbf is monotone in the Euclidean distance, so the
# neighbours are the Euclidean ones (standardized wine has no near ties at k = 7).
"$MLT" knn fit "$DATA/wine.csv" --target cultivar -k 7 --standardize -o euclid.knn 2>/dev/null
expect_status 0 "fit --kernel rbf" "$MLT" knn fit "$DATA/wine.csv" --target cultivar -k 7 --standardize --kernel rbf --gamma 0.1 -o rbf.knn
"$MLT" knn predict euclid.knn "$DATA/wine.csv" --neighbors | cut -d, -f1-8 > euclid.csv
"$MLT" knn predict rbf.knn "$DATA/wine.csv" --neighbors | cut -d, -f1-8 > rbf.csv
check "rbf kernel neighbours = euclidean neighbours" cmp -s euclid.csv rbf.csv
expect_error 2 "kernel" "--gamma without --kernel" "$MLT" knn fit "$DATA/iris.csv" --gamma 1 -o x.knn
expect_error 2 "k-d tree needs a metric" "kernel with kdtree" "$MLT" knn fit "$DATA/iris.csv" --kernel rbf --algorithm kdtree -o x.knn

# Errors.
expect_error 65 "k=500 > 150 training samples" "k larger than the training set" "$MLT" knn fit "$DATA/iris.csv" -k 500 -o x.knn
check "no model after failure" test ! -e x.knn
expect_error 2 "n-neighbors" "k = 0" "$MLT" knn fit "$DATA/iris.csv" -k 0 -o x.knn
expect_error 2 "weights" "unknown weights" "$MLT" knn fit "$DATA/iris.csv" --weights inverse -o x.knn
expect_error 2 "metric" "unknown metric" "$MLT" knn fit "$DATA/iris.csv" --metric hamming -o x.knn
expect_error 2 "--proba needs a classifier" "proba of a regressor" "$MLT" knn predict diab.knn "$DATA/diabetes.csv" --proba
expect_error 65 "labels look continuous" "continuous target given to the classifier" "$MLT" knn fit "$DATA/diabetes.csv" --target bmi -o x.knn
expect_error 65 "model is|expected knn|kind" "a model of another kind" "$MLT" knn predict <("$MLT" pca fit "$DATA/iris.csv" --ignore species -o - 2>/dev/null) "$DATA/iris.csv"
printf 'a,b,species\n1,2,setosa\n' > narrow.csv
expect_error 65 "sepal_length" "missing feature column" "$MLT" knn predict iris.knn narrow.csv
# The kernel distance needs a positive semi-definite kernel: sigmoid is refused.
expect_error 2 "sigmoid kernel is not positive semi-definite.*distance" "knn --kernel sigmoid refused" \
  "$MLT" knn fit "$DATA/iris.csv" --kernel sigmoid -o sig.knn
check "no model" test ! -e sig.knn
finish
