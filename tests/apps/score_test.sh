#!/usr/bin/env bash
# mlt score on predictions files, and the reports of the score and cv verbs: the values
# equal scikit-learn's (tests/fixtures/metrics/report.json "files", written with the
# CSV files beside it by scripts/fixtures/metrics_report.py) to 1e-12 relative (ratios
# of counts and short sums; see tests/lib/metrics_report_test.cpp), the refusals'
# statuses, and the several metrics of one cv run.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/metrics

# agree JSON CASE: mlt score's JSON against the fixture's values for CASE.
agree() {
  python3 - "$1" "$FIX/report.json" "$2" "${3:-proba}" <<'PY'
import json, sys
got = json.loads(sys.argv[1])
want = json.load(open(sys.argv[2]))["files"][sys.argv[3]]
def close(a, b, what):
    assert abs(a - b) <= 1e-12 * max(1, abs(b)), (what, a, b)
if sys.argv[4] == "regression":
    for m in ("mse", "rmse", "mae", "r2"):
        for j, t in enumerate("abc"):
            close(got["per_target"][t][m], want[m][j], m + " " + t)
    close(got["mse"], want["mse_all"], "mse")
    close(got["r2"], want["r2_all"], "r2")
    sys.exit(0)
suffix = "_decision" if sys.argv[4] == "decision" else ""
close(got["accuracy"], want["accuracy"], "accuracy")
close(got["f1_macro"], want["f1_macro"], "f1_macro")
close(got["roc_auc"], want["roc_auc" + suffix], "roc_auc")
close(got["average_precision"], want["average_precision" + suffix], "average_precision")
if not suffix:
    close(got["brier"], want["brier"], "brier")
    close(got["log_loss"], want["log_loss"], "log_loss")
else:
    assert "brier" not in got and "log_loss" not in got, got
rep = got["report"]
for cls, (p, r, f, s) in want["per_class"].items():
    row = rep["per_class"][cls]
    close(row["precision"], p, cls); close(row["recall"], r, cls); close(row["f1"], f, cls)
    assert row["support"] == s, (cls, row)
for avg, key in (("macro", "macro_avg"), ("weighted", "weighted_avg")):
    for i, m in enumerate(("precision", "recall", "f1")):
        close(rep[key][m], want[avg][i], avg + " " + m)
PY
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
check "logreg score = mlt score of its predictions" python3 -c '
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
for k in ("accuracy", "roc_auc", "average_precision", "brier", "log_loss"):
    assert abs(a[k] - b[k]) <= 1e-12, (k, a[k], b[k])
assert a["report"] == b["report"], (a["report"], b["report"])' "$from_model" "$out"
"$MLT" perceptron fit vv.csv --standardize -o vv.perceptron 2>/dev/null
run "$MLT" perceptron score vv.perceptron vv.csv --json
check "perceptron score: AUC from decision values, no Brier" python3 -c '
import json, sys; j = json.loads(sys.argv[1]); assert 0.5 < j["roc_auc"] <= 1 and "brier" not in j, j' "$out"
# Multi-target ridge: per target.
"$MLT" ridge fit "$DATA/diabetes.csv" --target s1,s2 -o two.ridge 2>/dev/null
run "$MLT" ridge score two.ridge "$DATA/diabetes.csv" --json
check "ridge, two targets: per-target metrics" python3 -c '
import json, sys; j = json.loads(sys.argv[1]); t = j["per_target"]
assert set(t) == {"s1", "s2"}, t
assert abs((t["s1"]["mse"] + t["s2"]["mse"]) / 2 - j["mse"]) <= 1e-12 * j["mse"], j' "$out"

# cv: several metrics, the first ranks, the others beside it.
run "$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 0.01,1,100 --score f1_macro,roc_auc,brier --json
check "cv: three metrics in JSON" python3 -c '
import json, sys; j = json.loads(sys.argv[1])
assert j["metric"] == "f1_macro" and j["metrics"] == ["f1_macro", "roc_auc", "brier"], j
for r in j["results"]:
    assert r["scores"]["f1_macro"]["mean"] == r["mean"], r
    assert 0.5 < r["scores"]["roc_auc"]["mean"] <= 1 and 0 <= r["scores"]["brier"]["mean"] < 1, r' "$out"
run "$MLT" logreg cv "$DATA/iris.csv" --standardize --lambda 0.01,1,100 --metric accuracy,log_loss
check "cv CSV: the other metrics' columns" test "$(head -1 <<<"$out")" = \
  "lambda,score,mean,std,folds,best,log_loss_mean,log_loss_std"
run "$MLT" ridge cv "$DATA/diabetes.csv" --target progression --lambda 0.1,1,10 --score r2,mse
plain=$out
run "$MLT" ridge cv "$DATA/diabetes.csv" --target progression --lambda 0.1,1,10 --score r2,mse --no-fast-path
check "cv: the fast path gives the same metrics" python3 -c '
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
python3 - "$FIX/report.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["ppca"]
for name in ("train", "test"):
    with open(name + ".csv", "w") as f:
        f.write("a,b,c,d,e\n" + "".join(",".join(repr(x) for x in row) + "\n" for row in p[name]))
PY
"$MLT" pca fit train.csv -k 2 -o two.pca 2>/dev/null
run "$MLT" pca score two.pca test.csv --json
want=$(python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["ppca"]["score"][1]))' "$FIX/report.json")
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
