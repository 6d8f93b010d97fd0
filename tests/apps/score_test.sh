#!/usr/bin/env bash
# mlt score on predictions files, and the reports of the score and cv verbs: the values
# equal scikit-learn's (tests/fixtures/metrics/report.json "files", written with the
# CSV files beside it by scripts/fixtures/metrics_report.py) to 1e-12 relative (ratios
# of counts and short sums; see tests/lib/metrics_report_test.cpp), the refusals'
# statuses, and the several metrics of one cv run.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/metrics

# agree JSON CASE [MODE]: mlt score's JSON against the fixture's values for CASE: the
# same targets or classes (none missing, none extra), each with the fixture's values.
agree() {
  jq -n -e --argjson got "$1" --slurpfile fix "$FIX/report.json" --arg case "$2" --arg mode "${3:-proba}" '
    def close($a; $b): (($a - $b) | fabs) <= 1e-12 * ([1, ($b | fabs)] | max);
    ($fix[0].files[$case] // error("no case \($case)")) as $want
    | if $mode == "regression" then
        ($got.per_target | keys) == ["a", "b", "c"]
        and all(("mse", "rmse", "mae", "r2") as $m | ["a", "b", "c"] | to_entries[]
            | close($got.per_target[.value][$m]; $want[$m][.key]); .)
        and close($got.mse; $want.mse_all) and close($got.r2; $want.r2_all)
      else
        (if $mode == "decision" then "_decision" else "" end) as $suffix
        | close($got.accuracy; $want.accuracy) and close($got.f1_macro; $want.f1_macro)
          and close($got.roc_auc; $want["roc_auc" + $suffix])
          and close($got.average_precision; $want["average_precision" + $suffix])
          and (if $suffix == "" then close($got.brier; $want.brier) and close($got.log_loss; $want.log_loss)
               else ($got | (has("brier") or has("log_loss")) | not) end)
          and ($got.report.per_class | keys) == ($want.per_class | keys)
          and all($want.per_class | to_entries[];
                  .value as [$p, $r, $f, $s]
                  | (.key as $cls | $got.report.per_class[$cls] // error("no class \($cls)")) as $row
                  | (.value | length) == 4 and close($row.precision; $p) and close($row.recall; $r)
                    and close($row.f1; $f) and $row.support == $s)
          and all(["macro", "macro_avg"], ["weighted", "weighted_avg"]; . as [$avg, $key]
                  | all(["precision", "recall", "f1"] | to_entries[]; close($got.report[$key][.value]; $want[$avg][.key])))
      end' >/dev/null
}

# Three classes named in text, probabilities p_CLASS: every metric, one-vs-rest AUC.
run "$MLT" score "$FIX/pred_three.csv" --truth truth --pred pred --proba p_ant,p_bee,p_cat --json
check "three classes: = scikit-learn ($err)" agree "$out" pred_three
# Two classes: probabilities named after the classes, then the decision values.
run "$MLT" score "$FIX/pred_two.csv" --truth truth --pred pred --proba no,yes --json
check "two classes, probabilities: = scikit-learn ($err)" agree "$out" pred_two
run "$MLT" score "$FIX/pred_two.csv" --truth truth --pred pred --decision decision_yes --json
check "two classes, decision values: = scikit-learn ($err)" agree "$out" pred_two decision
# Columns by number; the text report.
run "$MLT" score "$FIX/pred_two.csv" --truth 1 --pred 2 --decision 5
check "columns by number: the same AUC" grep -q "^roc_auc " <<<"$out"
check "text: the classification report" grep -q "^classification report (zero_division=0)" <<<"$out"
check "text: macro and weighted averages" test "$(grep -c '^macro avg\|^weighted avg' <<<"$out")" = 2
check "text: the confusion matrix" grep -q "^confusion matrix" <<<"$out"
# Regression: numeric truth, several targets.
run "$MLT" score "$FIX/pred_reg.csv" --truth a,b,c --pred a_hat,b_hat,c_hat --json
check "regression, per target: = scikit-learn ($err)" agree "$out" pred_reg regression
run "$MLT" score "$FIX/pred_reg.csv" --truth a,b,c --pred a_hat,b_hat,c_hat
check "regression text: per-target lines" grep -q '^r2\[b\] ' <<<"$out"
# Numbers as classes only when asked.
printf 'y,p\n0,0\n1,1\n1,0\n0,0\n' > ints.csv
run "$MLT" score ints.csv --truth y --pred p
check "numeric truth: regression" grep -q "^mse 0.25$" <<<"$out"
run "$MLT" score ints.csv --truth y --pred p --classification
check "--classification: accuracy" grep -q "^accuracy 0.75$" <<<"$out"

# Refusals: usage errors (2) and bad data (65), nothing on standard output.
expect_error 2 'no column named "nope"' "unknown column" "$MLT" score "$FIX/pred_two.csv" --truth nope --pred pred
expect_error 2 "one column scores two classes" "decision with three classes" \
  "$MLT" score "$FIX/pred_three.csv" --truth truth --pred pred --decision p_ant
expect_error 2 'no column for class "cat"' "a class without probabilities" \
  "$MLT" score "$FIX/pred_three.csv" --truth truth --pred pred --proba p_ant,p_bee
expect_error 2 "one prediction per true column" "truth and pred of different lengths" \
  "$MLT" score "$FIX/pred_reg.csv" --truth a,b --pred a_hat
printf 'y,p\n1,2\n,3\n' > na.csv
expect_error 65 'na.csv:3: missing value in column "y"' "a missing truth" "$MLT" score na.csv --truth y --pred p
run "$MLT" score na.csv --truth y --pred p --na drop
check "--na drop skips the row" grep -q "^mse 1$" <<<"$out"
printf 'y,p,a,b\na,a,0.5,1.5\nb,b,0.5,-0.5\n' > badp.csv
expect_error 65 "outside \[0, 1\]" "a probability above 1" "$MLT" score badp.csv --truth y --pred p --proba a,b

# The score verbs: the same report from the model (logreg: probabilities; perceptron:
# decision values), as mlt score gives from its predictions.
grep -v setosa "$DATA/iris.csv" > vv.csv
"$MLT" logreg fit vv.csv --standardize -o vv.logreg 2>/dev/null
run "$MLT" logreg score vv.logreg vv.csv --json
from_model=$out
"$MLT" logreg predict vv.logreg vv.csv --keep species --proba -o pred.csv
run "$MLT" score pred.csv --truth input_species --pred species --proba versicolor,virginica --json
check "logreg score = mlt score of its predictions" jq -n -e --argjson a "$from_model" --argjson b "$out" '
  all("accuracy", "roc_auc", "average_precision", "brier", "log_loss"; (($a[.] - $b[.]) | fabs) <= 1e-12)
  and $a.report == $b.report' >/dev/null
"$MLT" perceptron fit vv.csv --standardize -o vv.perceptron 2>/dev/null
run "$MLT" perceptron score vv.perceptron vv.csv --json
check "perceptron score: AUC from decision values, no Brier" json_holds "$out" '
  0.5 < .roc_auc and .roc_auc <= 1 and (has("brier") | not)'
# Multi-target ridge: per target.
"$MLT" ridge fit "$DATA/diabetes.csv" --target s1,s2 -o two.ridge 2>/dev/null
run "$MLT" ridge score two.ridge "$DATA/diabetes.csv" --json
check "ridge, two targets: per-target metrics" json_holds "$out" '
  .per_target as $t
  | ($t | keys) == ["s1", "s2"] and ((($t.s1.mse + $t.s2.mse) / 2 - .mse) | fabs) <= 1e-12 * .mse'

# cv: several metrics, the first ranks, the others beside it.
run "$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 0.01,1,100 --score f1_macro,roc_auc,brier --json
check "cv: three metrics in JSON" json_holds "$out" '
  .metric == "f1_macro" and .metrics == ["f1_macro", "roc_auc", "brier"]
  and all(.results[]; .scores.f1_macro.mean == .mean
          and (.scores.roc_auc.mean | 0.5 < . and . <= 1) and (.scores.brier.mean | 0 <= . and . < 1))'
run "$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 0.01,1,100 --metric accuracy,log_loss
check "cv CSV: the other metrics' columns" test "$(head -1 <<<"$out")" = \
  "lambda,score,mean,std,folds,best,log_loss_mean,log_loss_std"
run "$MLT" ridge cv "$DATA/diabetes.csv" --target progression --lambda 0.1,1,10 --score r2,mse
plain=$out
run "$MLT" ridge cv "$DATA/diabetes.csv" --target progression --lambda 0.1,1,10 --score r2,mse --no-fast-path
check "cv: the fast path gives the same metrics" "$PYTHON" -c '
import sys
a = [l.split(",") for l in sys.argv[1].splitlines()[1:]]; b = [l.split(",") for l in sys.argv[2].splitlines()[1:]]
for x, y in zip(a, b):
    for i in (2, 3, 6, 7): assert abs(float(x[i]) - float(y[i])) <= 1e-9 * abs(float(y[i])), (x, y)' "$plain" "$out"
expect_error 2 'unknown metric "r2"; choose from accuracy.* \(r2 is a metric of another task\)' "a regression metric on a classifier" \
  "$MLT" logreg cv "$DATA/iris.csv" --score accuracy,r2
expect_error 2 'given twice' "a metric twice" "$MLT" logreg cv "$DATA/iris.csv" --score accuracy,accuracy
expect_error 2 "pairwise" "roc_auc of a one-vs-one svm" \
  "$MLT" svm cv "$DATA/iris.csv" --kernel rbf --lambda 0.01 --score roc_auc
# pca score: the log-likelihood of held-out rows = scikit-learn's PCA.score (1e-9, as
# tests/lib/metrics_ppca_test.cpp says why), the fixture's rows written as CSV.
for name in train test; do
  { echo a,b,c,d,e; jq -r --arg n "$name" '.ppca[$n][] | map(tostring) | join(",")' "$FIX/report.json"; } > "$name.csv"
done
"$MLT" pca fit train.csv -k 2 -o two.pca 2>/dev/null
run "$MLT" pca score two.pca test.csv --json
want=$(jq -r '.ppca.score[1]' "$FIX/report.json")
check "pca score: log_likelihood = scikit-learn's PCA.score ($want)" close_to "$(json_get "$out" log_likelihood)" "$want" 1e-9
# pca cv: the held-out log-likelihood by default; kmeans: silhouette, inertia beside it.
run "$MLT" pca cv "$DATA/iris.csv" --ignore species -k 1:4 --score log_likelihood,reconstruction_mse
check "pca cv: log_likelihood ranks, reconstruction_mse beside" test "$(head -1 <<<"$out")" = \
  "n_components,score,mean,std,folds,best,reconstruction_mse_mean,reconstruction_mse_std"
run "$MLT" pca cv "$DATA/iris.csv" --ignore species -k 1:4
check "pca cv: log_likelihood by default" test "$(sed -n 2p <<<"$out" | cut -d, -f2)" = log_likelihood
run "$MLT" kmeans cv "$DATA/iris.csv" --ignore species -k 2:6 --standardize
check "kmeans cv: silhouette ranks, inertia beside" test "$(head -1 <<<"$out")" = \
  "k,score,mean,std,folds,best,inertia_mean,inertia_std"
expect_error 2 "silhouette needs k >= 2" "kmeans cv silhouette with k = 1" \
  "$MLT" kmeans cv "$DATA/iris.csv" --ignore species -k 1:3
finish
