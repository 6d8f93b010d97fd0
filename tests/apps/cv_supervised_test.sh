#!/usr/bin/env bash
# mlt logreg cv and mlt knn cv end to end: grids, reports, --refit, --oof, errors.
# Shared cv behaviour (folds, seeds, --jobs, report layout) is tested through
# mlt pca cv in cv_test.sh; here what the supervised wiring adds.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/cv
IRIS=$FIX/iris_folds.csv

# rows REPORT: data rows of a CSV report.
rows() { tail -n +2 <<<"$1" | wc -l; }

# --- logreg cv ---------------------------------------------------------------------
run "$MLT" logreg cv "$DATA/iris.csv" --target species --standardize --lambda 1e-2:1e2:5
check "logreg cv runs" test "$rc" -eq 0
check "logreg cv header" test "$(head -1 <<<"$out")" = "lambda,metric,mean,std,folds,best"
check "logreg cv: one row per lambda" test "$(rows "$out")" -eq 5
check "logreg cv: default metric accuracy, one best row" test "$(awk -F, 'NR > 1 && $2 == "accuracy" { n++ } NR > 1 && $6 == 1 { b++ } END { print n, b }' <<<"$out")" = "5 1"
run "$MLT" logreg cv "$DATA/iris.csv" --target species --standardize --lambda 0.01,1 --metric log_loss --json
check "logreg cv --metric log_loss: lower is better" python3 -c '
import json, sys; j = json.loads(sys.argv[1])
assert j["metric"] == "log_loss"
m = [r["mean"] for r in j["results"]]
assert j["best"] == j["results"][m.index(min(m))], j' "$out"
run "$MLT" logreg cv "$DATA/iris.csv" --target species --standardize --kernel rbf,linear --gamma 0.1,1 --lambda 0.1
check "logreg cv kernel grid: kernel x gamma x lambda" test "$(head -1 <<<"$out"),$(rows "$out")" = "lambda,kernel,gamma,metric,mean,std,folds,best,4"
expect_error 2 "gamma.*requires.*kernel|kernel.*required" "--gamma without --kernel" "$MLT" logreg cv "$DATA/iris.csv" --gamma 1
expect_error 2 "unknown metric \"mse\"; choose from accuracy, balanced_accuracy, f1_macro, log_loss" "logreg --metric mse" "$MLT" logreg cv "$DATA/iris.csv" --metric mse
expect_error 2 "lambda" "--lambda -1" "$MLT" logreg cv "$DATA/iris.csv" --lambda=-1,1
expect_error 2 "multiclass" "--multiclass bogus" "$MLT" logreg cv "$DATA/iris.csv" --multiclass bogus

# --refit: the best lambda on all rows = mlt logreg fit with it.
expect_status 0 "logreg --refit" "$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 100,0.1 --seed 3 --refit -o best.logreg
best=$(awk -F, '$6 == 1 { print $1 }' <<<"$("$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 100,0.1 --seed 3)")
"$MLT" -q logreg fit "$DATA/iris.csv" --standardize --lambda "$best" -o direct.logreg
check "logreg refit model predicts as logreg fit with the best lambda" test "$("$MLT" logreg predict best.logreg "$DATA/iris.csv" --proba)" = "$("$MLT" logreg predict direct.logreg "$DATA/iris.csv" --proba)"

# --oof: class and probabilities per row from the model that did not see it.
expect_status 0 "logreg --oof" "$MLT" logreg cv "$IRIS" --target species --folds-from fold --standardize --lambda 1 --per-fold --json --oof oof.csv
report=$out
check "logreg oof header" test "$(head -1 oof.csv)" = "row,fold,species,p_setosa,p_versicolor,p_virginica"
check "logreg oof: fold accuracies = the report's" python3 - "$report" "$IRIS" <<'PY'
import csv, json, sys
rep = json.loads(sys.argv[1]); data = list(csv.DictReader(open(sys.argv[2]))); oof = list(csv.DictReader(open("oof.csv")))
assert len(oof) == 150
right = [0] * 5; n = [0] * 5
for d, o in zip(data, oof):
    assert o["fold"] == d["fold"]
    p = [float(o[c]) for c in ("p_setosa", "p_versicolor", "p_virginica")]
    assert abs(sum(p) - 1) < 1e-12
    f = int(d["fold"]); n[f] += 1; right[f] += o["species"] == d["species"]
assert [r / m for r, m in zip(right, n)] == rep["best"]["fold_scores"], (right, rep["best"])
PY

# --- knn cv ------------------------------------------------------------------------
run "$MLT" knn cv "$DATA/iris.csv" -k 1:9:2 --weights uniform,distance --seed 5
check "knn cv runs" test "$rc" -eq 0
check "knn cv header" test "$(head -1 <<<"$out")" = "k,weights,metric,mean,std,folds,best"
check "knn cv: k x weights rows" test "$(rows "$out")" -eq 10
check "knn cv: k varies slowest" test "$(awk -F, 'NR > 1 { printf "%s%s ", $1, substr($2, 1, 1) }' <<<"$out")" = "1u 1d 3u 3d 5u 5d 7u 7d 9u 9d "
a=$out
run "$MLT" knn cv "$DATA/iris.csv" -k 1:9:2 --weights uniform,distance --seed 5 --jobs 2 --threads 2
check "knn cv --jobs 2 = --jobs 1" test "$out" = "$a"
run "$MLT" knn cv "$DATA/iris.csv" --standardize -k 3 --distance euclidean,manhattan,cosine --metric f1_macro
check "knn cv --distance grid" test "$(head -1 <<<"$out"),$(rows "$out")" = "k,distance,metric,mean,std,folds,best,3"
expect_error 2 "n-neighbors: must be a whole number >= 1, got 0" "knn -k 0" "$MLT" knn cv "$DATA/iris.csv" -k 0,1
expect_error 2 "distance" "knn --distance bogus" "$MLT" knn cv "$DATA/iris.csv" --distance bogus
expect_error 2 "weights" "knn --weights bogus" "$MLT" knn cv "$DATA/iris.csv" --weights uniform,bogus
head -21 "$DATA/iris.csv" | tail -n +2 > tiny_body.csv
{ head -1 "$DATA/iris.csv"; cat tiny_body.csv; sed 's/setosa/versicolor/' tiny_body.csv; } > tiny.csv
expect_error 65 "k" "knn k larger than a training fold" "$MLT" knn cv tiny.csv -k 1,39 --refit -o x.knn
check "no model after a failed sweep" test ! -e x.knn

expect_status 0 "knn --refit" "$MLT" knn cv "$DATA/iris.csv" -k 1:15 --standardize --seed 2 --refit -o best.knn
run "$MLT" info best.knn --json
refit_k=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["params"]["k"])' "$out")
best=$(awk -F, '$6 == 1 { print $1 }' <<<"$("$MLT" knn cv "$DATA/iris.csv" -k 1:15 --standardize --seed 2)")
check "knn refit keeps the best k ($refit_k vs $best)" test "$refit_k" = "$best"
"$MLT" -q knn fit "$DATA/iris.csv" -k "$best" --standardize -o direct.knn
check "knn refit model predicts as knn fit with the best k" test "$("$MLT" knn predict best.knn "$DATA/iris.csv" --proba)" = "$("$MLT" knn predict direct.knn "$DATA/iris.csv" --proba)"

finish
