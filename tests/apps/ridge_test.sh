#!/usr/bin/env bash
# mlt ridge end to end: fit, info, predict, score, several targets, errors.
# Reference numbers: scikit-learn 1.2.1, Ridge(alpha=0.1) on data/diabetes.csv
# (target progression), scored on the same data:
#   mse 2859.7052888408193, mae 43.277365918141534, r2 0.5177469143910708,
#   prediction of row 1 206.05940355720907.
source "$(dirname "$0")/lib.sh" "$@"

expect_status 0 "fit diabetes" "$MLT" ridge fit "$DATA/diabetes.csv" --target progression --lambda 0.1 -o d.ridge
check "model written" test -s d.ridge
run "$MLT" ridge score d.ridge "$DATA/diabetes.csv" --json
check "score mse" close_to "$(json_get "$out" mse)" 2859.7052888408193 1e-10
check "score mae" close_to "$(json_get "$out" mae)" 43.277365918141534 1e-10
check "score r2" close_to "$(json_get "$out" r2)" 0.5177469143910708 1e-10
check "score n_samples" test "$(json_get "$out" n_samples)" = 442
run "$MLT" ridge score d.ridge "$DATA/diabetes.csv"
check "score lines" test "$(cut -d' ' -f1 <<<"$out" | tr '\n' ' ')" = "mse rmse mae r2 "

run "$MLT" ridge predict d.ridge "$DATA/diabetes.csv"
printf '%s\n' "$out" > direct.csv
check "predict header" test "$(head -1 <<<"$out")" = "progression"
check "predict 442 rows" test "$(wc -l <<<"$out")" -eq 443
check "prediction of row 1" close_to "$(sed -n 2p <<<"$out")" 206.05940355720907 1e-10
run sh -c "cut -d, -f1-10 '$DATA/diabetes.csv' | '$MLT' ridge predict d.ridge - -o pred.csv"
check "predict from stdin without the target column" test "$rc" -eq 0
check "same predictions" cmp -s pred.csv direct.csv

# mlt info: coefficients by feature name, lambda, solver, condition estimate.
run "$MLT" info d.ridge
check "info: coefficients by name" grep -q '\["bmi",5.60696574' <<<"$out"
check "info: solver" grep -q 'solver: primal' <<<"$out"
check "info: condition" grep -q 'condition: [0-9]' <<<"$out"
check "info: lambda" grep -q 'lambda: 0.1' <<<"$out"

# Coefficients equal scikit-learn's (fixture) to 1e-8 relative, every solver.
for solver in primal dual svd; do
  expect_status 0 "fit --standardize --solver $solver" "$MLT" ridge fit "$DATA/diabetes.csv" --standardize \
    --lambda 10 --solver $solver -o s.ridge
  run "$MLT" info s.ridge --json
  check "standardized coefficients, $solver" jq -n -e --argjson h "$out" \
    --rawfile file "$SRC/tests/fixtures/ridge/lambda10_std.csv" '
    ($file | rtrimstr("\n") | split("\n") | map(tonumber)) as $want
    | ([$h.matrices.coef.values[][0]] + [$h.matrices.intercept.values[0][0]]) as $got
    | ($got | length) == ($want | length)
      and all(range($got | length); (($got[.] - $want[.]) | fabs) <= 1e-8 * ($want[.] | fabs))' >/dev/null
done

# Several targets: one prediction column each.
expect_status 0 "fit two targets" "$MLT" ridge fit "$DATA/diabetes.csv" --target progression,s5 -o two.ridge
run "$MLT" ridge predict two.ridge "$DATA/diabetes.csv"
check "two prediction columns" test "$(head -1 <<<"$out")" = "progression,s5"
run "$MLT" ridge score two.ridge "$DATA/diabetes.csv" --json
check "two-target score" test "$rc" -eq 0

# λ = 0 with a duplicated column: a warning naming the rank, finite coefficients.
awk -F, -v OFS=, '{ print $3, $0 }' "$DATA/diabetes.csv" | sed '1s/^bmi,/bmi2,/' > dup.csv
run "$MLT" ridge fit dup.csv --lambda 0 -o dup.ridge
check "lambda 0 duplicate column: exit 0" test "$rc" -eq 0
check "lambda 0 duplicate column: warning names the rank" grep -q "rank 10 < 11 features" <<<"$err"
run "$MLT" ridge predict dup.ridge dup.csv
check "lambda 0 duplicate column: finite predictions" bash -c '! grep -qiE "nan|inf" <<<"$1"' _ "$out"
check "lambda 0 duplicate column: same predictions as without" close_to "$(sed -n 2p <<<"$out")" \
  "$("$MLT" ridge fit "$DATA/diabetes.csv" --lambda 0 -o - | "$MLT" ridge predict - "$DATA/diabetes.csv" | sed -n 2p)" 1e-9

# Errors.
expect_error 2 "lambda" "negative lambda" "$MLT" ridge fit "$DATA/diabetes.csv" --lambda -1 -o x.ridge
expect_error 2 "solver" "unknown solver" "$MLT" ridge fit "$DATA/diabetes.csv" --solver lu -o x.ridge
expect_error 2 "no column named \"nope\"" "unknown target" "$MLT" ridge fit "$DATA/diabetes.csv" --target nope -o x.ridge
expect_error 65 "expected a number|not a number|non-numeric" "text target" "$MLT" ridge fit "$DATA/iris.csv" -o x.ridge
check "no model after failure" test ! -e x.ridge
expect_error 65 "bmi" "prediction data without a feature" sh -c "cut -d, -f1,2,4- '$DATA/diabetes.csv' | '$MLT' ridge predict d.ridge -"
"$MLT" pca fit "$DATA/diabetes.csv" -o d.pca 2>/dev/null
expect_error 65 "pca" "a model of another kind" "$MLT" ridge predict d.pca "$DATA/diabetes.csv"
# On a scratch copy: were the refusal broken, the shipped data/diabetes.csv stays intact.
cp "$DATA/diabetes.csv" diabetes-copy.csv
expect_error 2 "overwrite" "output is the input" "$MLT" ridge predict d.ridge diabetes-copy.csv -o diabetes-copy.csv
check "input intact after the refusal" cmp -s diabetes-copy.csv "$DATA/diabetes.csv"
finish
