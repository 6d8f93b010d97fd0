#!/usr/bin/env bash
# mlt perceptron end to end: fit, info, predict, score, cv, refusals. Reference
# numbers: tests/fixtures/perceptron/reference.json, the lecture notes' loop in plain
# Python floats (scripts/fixtures/perceptron.py), which mlt follows operation for
# operation, so the counts are equal and the weights exact.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/perceptron

ref() {  # CASE KEY: a value of reference.json
  jq -c --arg c "$1" --arg k "$2" '.[$c] | if has($k) then .[$k] else error("no \($c).\($k)") end' "$FIX/reference.json"
}

# Separable: the notes' corrections, epochs, w and b, and Novikoff's bound above them.
expect_status 0 "fit separable" "$MLT" perceptron fit "$FIX/separable.csv" --target y -o s.perceptron
run "$MLT" info s.perceptron --json
check "corrections and epochs as the notes' loop" test \
  "$(jq -r '.info | "\(.corrections) \(.epochs) \(.separated)"' <<<"$out")" = \
  "$(ref separable corrections) $(ref separable epochs) true"
check "w and b exactly as the notes' loop" jq -n -e --argjson h "$out" --argjson w "$(ref separable w)" --argjson b "$(ref separable b)" '
  $h.matrices.coef.values as $coef
  | ([$coef[][0]] == $w or $coef == [$w]) and $h.matrices.intercept.values[0][0] == $b' >/dev/null
check "Novikoff's bound holds" json_holds "$out" '.info | (.corrections | type) == "number" and .corrections <= .novikoff_bound'
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
  "$(jq -r '.info.corrections' <<<"$out")" = "$(ref nonseparable corrections)"

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
check "iris rbf: training accuracy 1" json_holds "$out" '.accuracy == 1'

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
