#!/usr/bin/env bash
# mlt smoother end to end: fit, predict, score, info, cv, refusals. Reference numbers:
# tests/fixtures/smoother/*.json, a plain NumPy transcription of the notes' formula
# trained on the even-numbered rows (scripts/fixtures/smoother.py).
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/smoother

"$PYTHON" - "$DATA/iris.csv" "$DATA/diabetes.csv" <<'PY'
import sys
for name, path in (("iris", sys.argv[1]), ("diabetes", sys.argv[2])):
    lines = open(path).read().splitlines()
    open(name + "-train.csv", "w").write("\n".join([lines[0]] + lines[1:][0::2]) + "\n")
    open(name + "-test.csv", "w").write("\n".join([lines[0]] + lines[1:][1::2]) + "\n")
PY

# CSV's numeric columns from FIRST (1-based) equal the fixture's KEY to 1e-12 relative
# to max(1, |value|) (tests/lib/smoother_test.cpp derives it).
same_values() {  # CSV FIRST FIXTURE KEY
  "$PYTHON" - "$@" <<'PY'
import json, sys
rows = [l.split(",")[int(sys.argv[2]) - 1:] for l in open(sys.argv[1]).read().splitlines()[1:]]
ref = json.load(open(sys.argv[3]))[sys.argv[4]]
assert len(rows) == len(ref), (len(rows), len(ref))
for r, e in zip(rows, ref):
    assert len(r) == len(e), (r, e)
    for a, b in zip(map(float, r), e):
        assert abs(a - b) <= 1e-12 * max(1, abs(b)), (a, b)
PY
}

# Regression, box window: ten test rows have an empty window, predicted as the mean.
expect_status 0 "fit diabetes box" "$MLT" smoother fit diabetes-train.csv --standardize --window box --bandwidth 2.5 -o box.smoother
run "$MLT" smoother predict box.smoother diabetes-test.csv -o box.csv
check "predict: the NumPy transcription's values" same_values box.csv 1 "$FIX/diabetes_box.json" predictions
check "predict: the empty windows counted on stderr" grep -q "^mlt: smoother: 10 of 221 rows had no training row" <<<"$err"
run "$MLT" smoother score box.smoother diabetes-test.csv --json
check "score --json: n_empty_windows 10" test "$(json_get "$out" n_empty_windows)" = 10
check "score --json: mse of the predictions" "$PYTHON" - "$out" "$FIX/diabetes_box.json" diabetes-test.csv <<'PY'
import json, sys
s = json.loads(sys.argv[1]); ref = json.load(open(sys.argv[2]))["predictions"]
y = [float(l.split(",")[-1]) for l in open(sys.argv[3]).read().splitlines()[1:]]
mse = sum((a - b[0]) ** 2 for a, b in zip(y, ref)) / len(y)
assert abs(s["mse"] - mse) <= 1e-10 * mse, (s["mse"], mse)
PY

expect_status 0 "fit diabetes gaussian" "$MLT" smoother fit diabetes-train.csv --standardize --bandwidth 1.5 -o g.smoother
"$MLT" smoother predict g.smoother diabetes-test.csv -o g.csv
check "gaussian (the default window): the NumPy values" same_values g.csv 1 "$FIX/diabetes_gaussian.json" predictions

# Classification: the plug-in classifier's probabilities and labels.
expect_status 0 "fit iris classifier" "$MLT" smoother fit iris-train.csv --classification --standardize \
  --window epanechnikov --bandwidth 1 -o iris.smoother
run "$MLT" smoother predict iris.smoother iris-test.csv --proba -o proba.csv
check "predict --proba: species,setosa,versicolor,virginica" test "$(head -1 proba.csv)" = "species,setosa,versicolor,virginica"
check "predict --proba: the NumPy weighted class frequencies" same_values proba.csv 2 "$FIX/iris_epanechnikov.json" predictions
run "$MLT" smoother score iris.smoother iris-test.csv --json
check "score --json: accuracy and n_empty_windows" json_holds "$out" '
  .n_empty_windows == 3 and 0.8 < .accuracy and .accuracy <= 1'
run "$MLT" info iris.smoother --json
check "info: the window and bandwidth" json_holds "$out" '
  .params | .window == "epanechnikov" and .bandwidth == 1 and .classification == true'

# cv: leave-one-out in closed form gives what refitting without each row gives.
run "$MLT" smoother cv diabetes-train.csv --bandwidth 20,40,80 --window box,epanechnikov,gaussian --loo
fast=$out
check "cv --loo: nine grid points" test "$(($(wc -l <<<"$fast") - 1))" -eq 9
run "$MLT" smoother cv diabetes-train.csv --bandwidth 20,40,80 --window box,epanechnikov,gaussian --loo --no-fast-path
check "cv --loo: closed form = refits" test "$fast" = "$out"
run "$MLT" smoother cv "$DATA/iris.csv" --classification --standardize --bandwidth 0.5:4:4 --folds 5
check "cv --classification: four bandwidths by accuracy" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = \
  "bandwidth,score,mean,std,folds,best,4"
run "$MLT" smoother cv "$DATA/iris.csv" --classification --bandwidth 0.5,1 --loo
fast=$out
run "$MLT" smoother cv "$DATA/iris.csv" --classification --bandwidth 0.5,1 --loo --no-fast-path
check "cv --classification --loo: closed form = refits" test "$fast" = "$out"

# Refusals.
expect_error 2 "bandwidth" "no --bandwidth" "$MLT" smoother fit diabetes-train.csv -o x.smoother
expect_error 2 "bandwidth" "--bandwidth 0" "$MLT" smoother fit diabetes-train.csv --bandwidth 0 -o x.smoother
expect_error 2 "window" "unknown window" "$MLT" smoother fit diabetes-train.csv --bandwidth 1 --window triangle -o x.smoother
expect_error 2 "proba" "--proba with a regression model" "$MLT" smoother predict box.smoother diabetes-test.csv --proba
expect_error 2 "one --target" "classification takes one target" \
  "$MLT" smoother fit diabetes-train.csv --classification --bandwidth 1 --target age,sex -o x.smoother
check "nothing written on refusal" test ! -e x.smoother
finish
