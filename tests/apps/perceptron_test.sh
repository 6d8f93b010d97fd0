#!/usr/bin/env bash
# mlt perceptron end to end: fit, info, predict, score, cv, refusals. Reference
# numbers: tests/fixtures/perceptron/reference.json, the lecture notes' loop in plain
# Python floats (scripts/fixtures/perceptron.py), which mlt follows operation for
# operation, so the counts are equal and the weights exact.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/perceptron

ref() {  # CASE KEY: a value of reference.json
  python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]]))' \
    "$FIX/reference.json" "$1" "$2"
}

# Separable: the notes' corrections, epochs, w and b, and Novikoff's bound above them.
expect_status 0 "fit separable" "$MLT" perceptron fit "$FIX/separable.csv" --target y -o s.perceptron
run "$MLT" info s.perceptron --json
check "corrections and epochs as the notes' loop" test \
  "$(python3 -c 'import json,sys; i=json.loads(sys.argv[1])["info"]; print(i["corrections"], i["epochs"], i["separated"])' "$out")" = \
  "$(ref separable corrections) $(ref separable epochs) True"
check "w and b exactly as the notes' loop" python3 - "$out" "$(ref separable w)" "$(ref separable b)" <<'PY'
import json, sys
h = json.loads(sys.argv[1])
w = h["matrices"]["coef"]["values"]
b = h["matrices"]["intercept"]["values"]
assert [row[0] for row in w] == json.loads(sys.argv[2]) or w == [json.loads(sys.argv[2])], w
assert b[0][0] == json.loads(sys.argv[3]), b
PY
check "Novikoff's bound holds" python3 -c '
import json, sys; i = json.loads(sys.argv[1])["info"]; assert i["corrections"] <= i["novikoff_bound"], i' "$out"
run "$MLT" perceptron score s.perceptron "$FIX/separable.csv"
check "a separated training set is scored perfectly" grep -qx "accuracy 1" <<<"$out"
run "$MLT" perceptron predict s.perceptron "$FIX/separable.csv"
check "predict: the label column" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = "y,$(($(wc -l <"$FIX/separable.csv") - 1))"
expect_error 2 "proba" "no probabilities: no --proba" "$MLT" perceptron predict s.perceptron "$FIX/separable.csv" --proba

# Not separable: the epochs run out, with a warning naming the last epoch's mistakes.
run "$MLT" perceptron fit "$FIX/nonseparable.csv" --target y --max-epochs "$(ref nonseparable max_epochs)" -o n.perceptron
check "not separable: a warning with the last epoch's mistakes" \
  grep -q "not separated.*$(ref nonseparable last_epoch_mistakes) mistakes in the last epoch" <<<"$err"
run "$MLT" info n.perceptron --json
check "not separable: the notes' corrections" test \
  "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["info"]["corrections"])' "$out")" = "$(ref nonseparable corrections)"

# Dual form with the linear kernel: the primal's predictions.
run "$MLT" perceptron fit "$FIX/separable.csv" --kernel linear -o d.perceptron
run "$MLT" perceptron predict d.perceptron "$FIX/separable.csv" -o dual.csv
"$MLT" perceptron predict s.perceptron "$FIX/separable.csv" -o primal.csv
check "dual linear = primal" cmp -s dual.csv primal.csv
run "$MLT" info d.perceptron
check "info shows the hardest samples in dual form" grep -q "hardest" <<<"$out"

# Iris, one-vs-rest: standardized, an rbf kernel separates every class.
run "$MLT" perceptron fit "$DATA/iris.csv" --standardize --kernel rbf --gamma 1 -o iris.perceptron
check "iris rbf: every class separated" test "$(grep -o 'separated after' <<<"$err" | wc -l)" -eq 3
run "$MLT" perceptron score iris.perceptron "$DATA/iris.csv" --json
check "iris rbf: training accuracy 1" test "$(json_get "$out" accuracy)" = 1.0

# cv: the fit's flags as grids; accuracy by default; no log loss without probabilities.
run "$MLT" perceptron cv "$DATA/iris.csv" --standardize --kernel rbf,linear --gamma 0.1,1 --max-epochs 50
check "cv: gamma crossed with rbf only" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = \
  "kernel,gamma,score,mean,std,folds,best,3"
expect_error 2 'unknown metric "log_loss"' "cv: no log_loss" "$MLT" perceptron cv "$DATA/iris.csv" --score log_loss

# Refusals as everywhere: parameters that do not apply, one class.
expect_error 2 "^mlt perceptron fit: error: --seed applies only with --shuffle$" "seed without shuffle" \
  "$MLT" perceptron fit "$FIX/separable.csv" --seed 3 -o x.perceptron
expect_error 2 "requires --kernel" "gamma without a kernel" "$MLT" perceptron fit "$FIX/separable.csv" --gamma 1 -o x.perceptron
head -3 "$FIX/separable.csv" > one_class.csv
expect_error 65 "class" "one class" "$MLT" perceptron fit one_class.csv -o x.perceptron
finish
