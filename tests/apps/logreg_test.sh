#!/usr/bin/env bash
# mlt logreg end to end: fit, predict (labels and probabilities), score, info, errors.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/logreg

expect_status 0 "fit iris on species" "$MLT" logreg fit "$DATA/iris.csv" --target species --standardize -o iris.lr
check "model written" test -s iris.lr

# Text labels round-trip: the prediction column is named after the target and holds label text.
run "$MLT" logreg predict iris.lr "$DATA/iris.csv"
check "predict: header is the target" test "$(head -1 <<<"$out")" = "species"
check "predict: first row is setosa" test "$(sed -n 2p <<<"$out")" = "setosa"
check "predict: 150 rows" test "$(wc -l <<<"$out")" -eq 151

run "$MLT" logreg predict iris.lr "$DATA/iris.csv" --proba -o pred.csv
check "predict --proba: exit 0" test "$rc" -eq 0
check "predict --proba: one column per class" test "$(head -1 pred.csv)" = "species,setosa,versicolor,virginica"
check "predict --proba: rows sum to 1" python3 -c "
import csv, sys
rows = list(csv.reader(open('pred.csv')))[1:]
sys.exit(0 if all(abs(sum(float(v) for v in r[1:]) - 1) < 1e-12 for r in rows) else 1)"

# The feature columns are found by name: the target column need not be there.
cut -d, -f1-4 "$DATA/iris.csv" > features.csv
run "$MLT" logreg predict iris.lr features.csv
check "predict without the target column" test "$(sed -n 2p <<<"$out")" = "setosa"

# Probabilities equal scikit-learn's (fixture by scripts/fixtures/logreg.py) to 1e-5.
expect_status 0 "fit wine fixture" "$MLT" logreg fit "$FIX/wine_multinomial_data.csv" --standardize --tol 1e-10 -o wine.lr
run "$MLT" logreg predict wine.lr "$FIX/wine_multinomial_data.csv" --proba -o wine_pred.csv
check "wine probabilities equal scikit-learn's to 1e-5" python3 -c "
import csv, sys
ours = list(csv.reader(open('wine_pred.csv')))
ref = list(csv.reader(open('$FIX/wine_multinomial_proba.csv')))
assert ours[0][1:] == ref[0], (ours[0], ref[0])
d = max(abs(float(a) - float(b)) for o, r in zip(ours[1:], ref[1:]) for a, b in zip(o[1:], r))
sys.exit(0 if d < 1e-5 and len(ours) == len(ref) else 1)"

run "$MLT" logreg score iris.lr "$DATA/iris.csv"
check "score: accuracy line" grep -q "^accuracy 0.97333" <<<"$out"
check "score: balanced_accuracy, f1_macro, log_loss" test "$(grep -cE '^(balanced_accuracy|f1_macro|log_loss) ' <<<"$out")" -eq 3
check "score: confusion matrix with class names" grep -qE "^virginica +0 +1 +49$" <<<"$out"
run "$MLT" logreg score iris.lr "$DATA/iris.csv" --json
check "score --json: log_loss" close_to "$(json_get "$out" log_loss)" 0.1295424 1e-5
check "score --json: confusion matrix" test "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["confusion_matrix"][1])' "$out")" = "[0, 47, 3]"

run "$MLT" info iris.lr
check "info: classes" grep -q "^classes: setosa, versicolor, virginica" <<<"$out"
check "info: iterations" grep -qE "^  iterations: [0-9]+" <<<"$out"
check "info: objective" grep -qE "^  objective: 31\.37" <<<"$out"
check "info: gradient norm" grep -qE "^  gradient_norm: " <<<"$out"
check "info: coefficients by class and feature" grep -qE "^ +virginica +-1\.8[0-9]* +0\.48[0-9]* +-0\.79[0-9]* +2\.29[0-9]* +2\.63" <<<"$out"

# Binary, one-vs-rest, class weights, kernels.
expect_status 0 "fit binary" "$MLT" logreg fit "$FIX/iris_setosa_data.csv" --lambda 0.1 --standardize -o setosa.lr
run "$MLT" info setosa.lr
check "binary: one coefficient row for the positive class" grep -qE "^ +setosa +-3\.91" <<<"$out"
expect_status 0 "fit ovr balanced" "$MLT" logreg fit "$DATA/wine.csv" --multiclass ovr --class-weight balanced -o ovr.lr --standardize
run "$MLT" logreg predict ovr.lr "$DATA/wine.csv" --proba
check "ovr predicts wine classes" test "$(sed -n 2p <<<"$out" | cut -d, -f1)" = "c1"
for k in rbf poly laplacian sigmoid; do
  expect_status 0 "fit kernel $k" "$MLT" logreg fit "$DATA/iris.csv" --kernel $k --standardize -o k_$k.lr
  run "$MLT" logreg score k_$k.lr "$DATA/iris.csv" --json
  check "kernel $k: scores" test "$rc" -eq 0
done
run "$MLT" logreg score k_rbf.lr "$DATA/iris.csv" --json
check "rbf kernel fits iris" awk -v a="$(json_get "$out" accuracy)" 'BEGIN { exit !(a > 0.95) }'
expect_status 0 "fit --sigma" "$MLT" logreg fit "$DATA/iris.csv" --kernel rbf --sigma 1 -o sigma.lr
run "$MLT" info sigma.lr --json
check "sigma 1 gives gamma 0.5" test "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["kernel"]["gamma"])' "$out")" = "0.5"

# lambda = 0 on separable classes: exit 0, a warning, finite probabilities.
printf 'x1,x2,y\n0,0,a\n1,0,a\n0,1,a\n5,5,b\n6,5,b\n5,6,b\n' > sep.csv
run "$MLT" logreg fit sep.csv --lambda 0 --max-iter 30 -o sep.lr
check "separable: exit 0" test "$rc" -eq 0
check "separable: warning" grep -q "perfectly separated" <<<"$err"
run "$MLT" logreg predict sep.lr sep.csv --proba
check "separable: no nan or inf" test -z "$(grep -iE 'nan|inf' <<<"$out")"

# Errors.
printf 'x,y\n1,a\n2,a\n3,a\n' > one.csv
expect_error 65 "only one class" "single class" "$MLT" logreg fit one.csv -o x.lr
check "no model after failure" test ! -e x.lr
printf 'x,y\n1,0.5\n2,1.5\n3,2.25\n' > cont.csv
expect_error 65 "look continuous" "continuous labels" "$MLT" logreg fit cont.csv -o x.lr
expect_error 2 "lambda" "negative lambda" "$MLT" logreg fit "$DATA/iris.csv" --lambda -1 -o x.lr
expect_error 2 "multiclass" "unknown multiclass" "$MLT" logreg fit "$DATA/iris.csv" --multiclass foo -o x.lr
expect_error 2 "max-iter" "max-iter 0" "$MLT" logreg fit "$DATA/iris.csv" --max-iter 0 -o x.lr
expect_error 2 "excludes" "gamma and sigma" "$MLT" logreg fit "$DATA/iris.csv" --kernel rbf --gamma 1 --sigma 1 -o x.lr
expect_error 2 "requires --kernel" "kernel flag without --kernel" "$MLT" logreg fit "$DATA/iris.csv" --gamma 1 -o x.lr
expect_error 2 "kernel" "unknown kernel" "$MLT" logreg fit "$DATA/iris.csv" --kernel cubic -o x.lr
expect_status 0 "pca model" "$MLT" pca fit "$DATA/iris.csv" --ignore species -o iris.pca
expect_error 65 "pca" "model of another kind" "$MLT" logreg predict iris.pca "$DATA/iris.csv"
expect_error 65 "model trained on 4 features, input has 3" "wrong width" "$MLT" logreg predict iris.lr <(cut -d, -f1-3 "$DATA/iris.csv" | tail -n +2) --no-header
expect_error 65 "unknown|not a class|unseen|\"rose\"" "unseen label in score" "$MLT" logreg score iris.lr <(sed 's/,setosa$/,rose/' "$DATA/iris.csv")
sha=$(sha256sum iris.lr)
run "$MLT" logreg predict iris.lr "$DATA/iris.csv" -o iris.lr
check "refuses to overwrite the model" test "$rc" -eq 2
check "model unchanged" test "$(sha256sum iris.lr)" = "$sha"
finish
