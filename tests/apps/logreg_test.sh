#!/usr/bin/env bash
# mlt logreg end to end: fit, predict (labels and probabilities), score, info, errors.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/logreg

# --tol 1e-10: the fit reaches the optimum, so the numbers below can be compared with
# scikit-learn's (tests/fixtures/logreg/iris_multinomial_*, lambda 1, standardized)
# whatever the default stopping tolerance.
expect_status 0 "fit iris on species" "$MLT" logreg fit "$DATA/iris.csv" --target species --standardize --tol 1e-10 -o iris.lr
check "model written" test -s iris.lr

# Text labels round-trip: the prediction column is named after the target and holds label text.
run "$MLT" logreg predict iris.lr "$DATA/iris.csv"
check "predict: header is the target" test "$(head -1 <<<"$out")" = "species"
check "predict: first row is setosa" test "$(sed -n 2p <<<"$out")" = "setosa"
check "predict: 150 rows" test "$(wc -l <<<"$out")" -eq 151

run "$MLT" logreg predict iris.lr "$DATA/iris.csv" --proba -o pred.csv
check "predict --proba: exit 0" test "$rc" -eq 0
check "predict --proba: one column per class" test "$(head -1 pred.csv)" = "species,setosa,versicolor,virginica"
check "predict --proba: rows sum to 1" "$PYTHON" -c "
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
check "wine probabilities equal scikit-learn's to 1e-5" "$PYTHON" -c "
import csv, sys
ours = list(csv.reader(open('wine_pred.csv')))
ref = list(csv.reader(open('$FIX/wine_multinomial_proba.csv')))
assert ours[0][1:] == ref[0], (ours[0], ref[0])
d = max(abs(float(a) - float(b)) for o, r in zip(ours[1:], ref[1:]) for a, b in zip(o[1:], r))
sys.exit(0 if d < 1e-5 and len(ours) == len(ref) else 1)"

# Training scores, objective and coefficients as scikit-learn's at the same lambda
# (iris_multinomial_scores.json and iris_multinomial_coef.csv, made by
# scripts/fixtures/logreg.py): accuracy and confusion matrix exactly, log_loss, the
# objective and the coefficients to 1e-6 (relative, absolute below 1, as close_to).
SCORES=$FIX/iris_multinomial_scores.json
ref() { jq -r --arg k "$1" 'if has($k) then .[$k] else error("no \($k)") end' "$SCORES"; }
run "$MLT" logreg score iris.lr "$DATA/iris.csv"
check "score: accuracy line as scikit-learn's ($(ref accuracy))" close_to "$(awk '$1 == "accuracy" { print $2 }' <<<"$out")" "$(ref accuracy)" 1e-12
check "score: balanced_accuracy, f1_macro, log_loss" test "$(grep -cE '^(balanced_accuracy|f1_macro|log_loss) ' <<<"$out")" -eq 3
virginica_row=$(jq -r '.confusion_matrix[2] | map(tostring) | join(" ")' "$SCORES")
check "score: confusion matrix with class names (virginica: $virginica_row)" grep -qE "^virginica +${virginica_row// / +}$" <<<"$out"
run "$MLT" logreg score iris.lr "$DATA/iris.csv" --json
check "score --json: log_loss as scikit-learn's ($(ref log_loss))" close_to "$(json_get "$out" log_loss)" "$(ref log_loss)" 1e-6
check "score --json: confusion matrix as scikit-learn's" jq -n -e --argjson got "$out" --slurpfile want "$SCORES" \
  '$got.confusion_matrix == $want[0].confusion_matrix and ($want[0] | has("confusion_matrix"))' >/dev/null

run "$MLT" info iris.lr
check "info: classes" grep -q "^classes: setosa, versicolor, virginica" <<<"$out"
check "info: iterations" grep -qE "^  iterations: [0-9]+" <<<"$out"
check "info: objective as scikit-learn's optimum ($(ref objective))" close_to "$(awk '$1 == "objective:" { print $2 }' <<<"$out")" "$(ref objective)" 1e-6
check "info: gradient norm" grep -qE "^  gradient_norm: " <<<"$out"
# coef_row CLASS CSV ROW: the info table's row for CLASS equals row ROW of a fixture's
# coefficient file (intercept, then one per feature) to 1e-6.
coef_row() {
  "$PYTHON" - "$1" "$2" "$3" "$out" <<'PY'
import sys
cls, path, row, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
want = [float(v) for v in open(path).read().split("\n")[row].split(",")]
got = [line.split()[1:] for line in text.splitlines() if line.split()[:1] == [cls]]
assert len(got) == 1, got
got = [float(v) for v in got[0]]
sys.exit(0 if len(got) == len(want) and all(abs(a - b) <= 1e-6 * max(1, abs(b)) for a, b in zip(got, want)) else 1)
PY
}
check "info: coefficients by class and feature (virginica) as scikit-learn's" coef_row virginica "$FIX/iris_multinomial_coef.csv" 2
check "info: coefficients (setosa) as scikit-learn's" coef_row setosa "$FIX/iris_multinomial_coef.csv" 0

# Binary, one-vs-rest, class weights, kernels.
expect_status 0 "fit binary" "$MLT" logreg fit "$FIX/iris_setosa_data.csv" --lambda 0.1 --standardize --tol 1e-10 -o setosa.lr
run "$MLT" info setosa.lr
check "binary: one coefficient row, for the positive class" test "$(grep -cE '^ +(setosa|other) ' <<<"$out")" -eq 1
check "binary: the positive class's coefficients as scikit-learn's (iris_setosa_coef.csv)" coef_row setosa "$FIX/iris_setosa_coef.csv" 0
expect_status 0 "fit ovr balanced" "$MLT" logreg fit "$DATA/wine.csv" --multiclass ovr --class-weight balanced -o ovr.lr --standardize
run "$MLT" logreg predict ovr.lr "$DATA/wine.csv" --proba
check "ovr predicts wine classes" test "$(sed -n 2p <<<"$out" | cut -d, -f1)" = "c1"
# Kernel logistic regression at mlt's defaults (lambda 1, gamma 1/4, degree 3, coef0 1),
# the probabilities equal those of the reference optimum of the same objective
# (iris_multinomial_<kernel>_proba.csv: scikit-learn's Gram matrices, SciPy's exact
# Newton trust region; scripts/fixtures/logreg.py) to 1e-6.
for k in rbf poly laplacian; do
  expect_status 0 "fit kernel $k" "$MLT" logreg fit "$DATA/iris.csv" --kernel $k --standardize --tol 1e-10 -o k_$k.lr
  run "$MLT" logreg predict k_$k.lr "$DATA/iris.csv" --proba -o k_$k.csv
  check "kernel $k: probabilities as the reference optimum's to 1e-6" "$PYTHON" -c "
import csv, sys
ours = list(csv.reader(open('k_$k.csv')))
ref = list(csv.reader(open('$FIX/iris_multinomial_${k}_proba.csv')))
assert ours[0][1:] == ref[0] and len(ours) == len(ref), (ours[0], ref[0])
sys.exit(0 if max(abs(float(a) - float(b)) for o, r in zip(ours[1:], ref[1:]) for a, b in zip(o[1:], r)) < 1e-6 else 1)"
done
# The sigmoid kernel is refused: its Gram matrix on iris is indefinite (smallest
# eigenvalue -10.4, iris_sigmoid_gram.json), so the penalty q'Kq and the objective are
# unbounded below for every lambda: there is no optimum to find. So is poly with
# coef0 < 0, not positive semi-definite in general.
expect_error 2 "sigmoid kernel is not positive semi-definite.*unbounded below" "kernel sigmoid refused" \
  "$MLT" logreg fit "$DATA/iris.csv" --kernel sigmoid --standardize -o k_sigmoid.lr
expect_error 2 "coef0 < 0 is not positive semi-definite" "poly with a negative coef0 refused" \
  "$MLT" logreg fit "$DATA/iris.csv" --kernel poly --coef0 -1 -o k_sigmoid.lr
expect_error 2 "sigmoid kernel is not positive semi-definite" "and in a cv grid" \
  "$MLT" logreg cv "$DATA/iris.csv" --kernel rbf,sigmoid --folds 3
check "no model" test ! -e k_sigmoid.lr
expect_status 0 "fit --sigma" "$MLT" logreg fit "$DATA/iris.csv" --kernel rbf --sigma 1 -o sigma.lr
run "$MLT" info sigma.lr --json
check "sigma 1 gives gamma 0.5" json_holds "$out" '.kernel.gamma == 0.5'

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
# Streamed fits (--stream, --memory, --chunk-size): the in-memory model's training
# probabilities within the sum of both fits' proven bounds, and the same labels
# (same_logreg, tests/apps/same_model.sh; derived in tests/lib/logreg_test.cpp).
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"
expect_status 0 "iris in memory" "$MLT" logreg fit "$DATA/iris.csv" --standardize -o mem.lr
run "$MLT" --timings logreg fit "$DATA/iris.csv" --standardize --stream --chunk-size 256 -o s.lr
check "--stream: ran (exit $rc; $err)" test "$rc" -eq 0
check "--stream: many chunks, the passes said ($err)" grep -qE "streamed 150 rows in [1-9][0-9] chunks.*[0-9]+ passes" <<<"$err"
check "--stream = in memory (multinomial)" same_logreg s.lr mem.lr "$DATA/iris.csv"
check "--stream: the same data_xxh128 as in memory" same_json s.lr mem.lr .provenance.data_xxh128
expect_status 0 "breast cancer in memory" "$MLT" logreg fit "$FIX/breast_cancer_data.csv" --target diagnosis --lambda 0.1 \
  --standardize -o bc.lr
expect_status 0 "breast cancer --stream" "$MLT" logreg fit "$FIX/breast_cancer_data.csv" --target diagnosis --lambda 0.1 \
  --standardize --stream --chunk-size 4K -o bcs.lr
check "--stream = in memory (binary)" same_logreg bcs.lr bc.lr "$FIX/breast_cancer_data.csv"
expect_status 0 "iris unstandardized --stream" "$MLT" logreg fit "$DATA/iris.csv" --lambda 0.1 --stream --chunk-size 1K -o raw_s.lr
expect_status 0 "iris unstandardized in memory" "$MLT" logreg fit "$DATA/iris.csv" --lambda 0.1 -o raw.lr
check "--stream = in memory (unstandardized)" same_logreg raw_s.lr raw.lr "$DATA/iris.csv"
# --memory: iris needs ~48 KB in memory (3,000 cells of 16 bytes at most).
run "$MLT" --timings logreg fit "$DATA/iris.csv" --standardize --memory 10K -o auto.lr
check "--memory 10K: streams ($err)" grep -q "streamed 150 rows" <<<"$err"
check "--memory 10K = in memory" same_logreg auto.lr mem.lr "$DATA/iris.csv"
run "$MLT" --timings logreg fit "$DATA/iris.csv" --standardize --memory 1G -o auto1g.lr
check "--memory 1G: in memory" test "$rc" -eq 0 -a -z "$(grep streamed <<<"$err")"
check "--memory 1G: the in-memory model, bit for bit" same_json auto1g.lr mem.lr .matrices
# Quoted labels (quotes and a comma inside) and a text column whose cells span lines,
# cut by 64-byte chunks everywhere: the same classes, text and model.
write_quoted_labels quoted.csv
expect_status 0 "quoted labels in memory" "$MLT" logreg fit quoted.csv --target species --ignore note --standardize -o qm.lr
expect_status 0 "quoted labels --stream" "$MLT" logreg fit quoted.csv --target species --ignore note --standardize \
  --stream --chunk-size 64 -o qs.lr
check "quoted labels --stream: the same classes" same_json qs.lr qm.lr .data.classes
check "quoted labels --stream = in memory" same_logreg qs.lr qm.lr quoted.csv
run "$MLT" logreg predict qs.lr quoted.csv
check "quoted labels: predicted as their text" test "$(sed -n 2p <<<"$out")" = '"Iris ""setosa"", a species"'
# Refusals: a kernel (its Gram matrix needs the rows), standard input (read once, and
# the fit makes many passes); a late bad cell names its line in the whole file.
expect_error 2 "kernel logistic regression needs the training rows in memory" "--stream with a kernel" \
  "$MLT" logreg fit "$DATA/iris.csv" --kernel rbf --stream -o x.lr
run "$MLT" logreg fit - --stream -o x.lr <"$DATA/iris.csv"
check "--stream from standard input: refused (exit $rc; $err)" test "$rc" -eq 2 -a ! -e x.lr
{ cat "$DATA/iris.csv"; echo "5.0,oops,1.4,0.2,setosa"; } >late.csv
expect_error 65 "late.csv:152:2" "--stream: a late bad cell names its line" "$MLT" logreg fit late.csv --stream --chunk-size 1K -o x.lr
check "no model after a failed streamed fit" test ! -e x.lr

finish
