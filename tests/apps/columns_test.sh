#!/usr/bin/env bash
# Real-world columns end to end: --categorical (one-hot), --unknown-category,
# --na mean|median|most-frequent, stored in the model and applied by predict, score,
# info and cv; the refusals. Reference numbers: tests/fixtures/columns/reference.json,
# scikit-learn's ColumnTransformer + SimpleImputer + OneHotEncoder, then Ridge and the
# optimum of the same L2 logistic loss (scripts/fixtures/columns.py).
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/columns
ENC=(--categorical city,plan)

# compare CSV-COLUMN REFERENCE-KEY STRATEGY TOL FILE: the predictions in FILE's column
# equal reference.json's, each to TOL * max(1, |reference|).
compare() {
  "$PYTHON" - "$FIX/reference.json" "$1" "$2" "$3" "$4" "$5" <<'PY'
import csv, json, sys
ref, column, key, strategy, tol, path = sys.argv[1:]
want = json.load(open(ref))[strategy][key]
got = [float(r[column]) for r in csv.DictReader(open(path))]
assert len(got) == len(want), (len(got), len(want))
bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if abs(g - w) > float(tol) * max(1.0, abs(w))]
assert not bad, bad
PY
}
# ridge_tol STRATEGY: 1000 kappa u, kappa the reference's ridge_kappa for STRATEGY.
ridge_tol() { jq -r --arg s "$1" '1000 * .[$s].ridge_kappa * pow(2; -53)' "$FIX/reference.json"; }

for na in mean median most-frequent; do
  # Ridge: two backward-stable solves of the same centred system (X_c^T X_c + I) w =
  # X_c^T y differ by about kappa u in w; with |x| <= 80 and |y| ~ 20 a prediction
  # moves by less than 1000 kappa u relative (kappa ~ 2e4 here: 2e-9).
  tol=$(ridge_tol $na)
  expect_status 0 "ridge fit --na $na" "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label "${ENC[@]}" \
    --na $na --lambda 1 -o r_$na.ridge
  run "$MLT" ridge predict r_$na.ridge "$FIX/new.csv" -o r_$na.csv
  check "ridge --na $na: predict exits 0 ($err)" test "$rc" -eq 0
  check "ridge --na $na: predictions as scikit-learn's to $tol" compare y ridge_new $na "$tol" r_$na.csv
  # Logistic regression, --tol 1e-10: mlt's stopping test proves each probability
  # within 1e-10 of the optimum's; the reference optimum's gradient is below 1e-12,
  # which with |x| <= 80 moves a probability by less than 1e-10: 1e-9 in all.
  expect_status 0 "logreg fit --na $na" "$MLT" logreg fit "$FIX/train.csv" --target label --ignore y "${ENC[@]}" \
    --na $na --lambda 1 --tol 1e-10 -o l_$na.logreg
  run "$MLT" logreg predict l_$na.logreg "$FIX/new.csv" --proba -o l_$na.csv
  check "logreg --na $na: probabilities as the reference optimum's to 1e-9" compare yes logreg_yes_new $na 1e-9 l_$na.csv
done

# Unknown category: the default stops with the file:line:column, the value and the
# known categories (data error, 65); zero encodes it as all zeros (scikit-learn's
# handle_unknown='ignore'), its predictions as scikit-learn's.
expect_error 65 "unknown.csv:4:2: unknown category \"Oslo\" in column \"city\"; the model knows Brest, Lyon, Nice, Paris" \
  "unknown category: error" "$MLT" ridge predict r_mean.ridge "$FIX/unknown.csv"
check "unknown category: nothing written" test ! -e bad.csv
"$MLT" ridge predict r_mean.ridge "$FIX/unknown.csv" -o bad.csv 2>/dev/null
check "unknown category: no output file left" test ! -e bad.csv
tol=$(ridge_tol mean)
expect_status 0 "fit --unknown-category zero" "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label "${ENC[@]}" \
  --na mean --unknown-category zero --lambda 1 -o z.ridge
run "$MLT" ridge predict z.ridge "$FIX/unknown.csv" -o z.csv
check "zero: predictions as scikit-learn's (handle_unknown='ignore')" compare y ridge_unknown mean "$tol" z.csv

# info shows the encoding: categories per column, the fill values, the policy.
run "$MLT" info r_median.ridge
check "info: the input columns" grep -q "^features (4): age, city, income, plan" <<<"$out"
check "info: categories of city" grep -q "city: categories (4) Brest, Lyon, Nice, Paris; fill Nice" <<<"$out"
check "info: the median of income" grep -q "income: number; fill 3.7$" <<<"$out"
check "info: the unknown-category policy" grep -q "unknown categories: error" <<<"$out"
# --json: every column in order, with its categories and fill: the numbers' means (to
# 1e-12, relative) and the categories' most frequent value (plan has no missing cell;
# its fill is still the most frequent, basic).
read -r age_mean income_mean < <("$PYTHON" -c "
import csv
rows = list(csv.DictReader(open('$FIX/train.csv')))
def mean(c):
    v = [float(r[c]) for r in rows if r[c] not in ('', 'NA')]
    return sum(v) / len(v)
print(repr(mean('age')), repr(mean('income')))")
run "$MLT" info z.ridge --json
check "info --json: the encoding in the header" jq -n -e --argjson age "$age_mean" --argjson income "$income_mean" '
  def close($a; $b): ($a | type) == "number" and (($a - $b) | fabs) <= 1e-12 * ([1, ($b | fabs)] | max);
  input | .data.encoding
  | .impute == "mean" and .unknown_category == "zero" and (.columns | length) == 4
    and (.columns[0] | keys == ["fill", "name"] and .name == "age" and close(.fill; $age))
    and .columns[1] == {"name": "city", "categories": ["Brest", "Lyon", "Nice", "Paris"], "fill": "Nice"}
    and (.columns[2] | keys == ["fill", "name"] and .name == "income" and close(.fill; $income))
    and .columns[3] == {"name": "plan", "categories": ["basic", "free", "pro"], "fill": "basic"}' <<<"$out" >/dev/null

# Score applies the encoding too; --na drop at predict still drops the rows with a
# missing cell (and says which lines were kept).
run "$MLT" ridge score r_mean.ridge "$FIX/new.csv"
check "score with an encoding: exit 0 ($err)" test "$rc" -eq 0
run "$MLT" ridge predict r_mean.ridge "$FIX/new.csv" --na drop
check "predict --na drop: the rows without a missing cell, with their line" test \
  "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = "line,y,$("$PYTHON" -c "
import csv; print(sum(1 for r in csv.DictReader(open('$FIX/new.csv')) if all(r[c] not in ('', 'NA') for c in ('age','city','income','plan'))))")"
expect_error 2 "--na median: the model fills missing cells with its training mean values" "another strategy at predict" \
  "$MLT" ridge predict r_mean.ridge "$FIX/new.csv" --na median

# Without imputation a missing cell is an error, as before; with --categorical only,
# a missing category too. A target is never filled: a missing one stops the fit.
expect_error 65 "missing value" "categorical without --na: a missing cell" \
  "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label "${ENC[@]}" -o x.ridge
printf 'a,c,y\n1,red,2\n2,blue,\n3,red,4\n' >ty.csv
expect_error 65 "ty.csv:3:3: missing value" "a missing target is not imputed" \
  "$MLT" ridge fit ty.csv "${ENC[@]/city,plan/c}" --na mean -o x.ridge
expect_status 0 "a missing target under drop drops the row" "$MLT" ridge fit ty.csv --categorical c --na drop -o ty.ridge
printf 'a,b,y\n1,,2\n2,,3\n' >allna.csv
expect_error 65 "column \"b\" has no value" "a column entirely missing" \
  "$MLT" ridge fit allna.csv --na mean -o x.ridge

# Every algorithm through the data layer: a classifier, a clusterer, pca with
# --standardize after the encoding, knn, cv (encoded once on the whole file).
for cmd in "svm --target label --ignore y" "knn --target label --ignore y -k 3 --standardize" \
           "kmeans --ignore y,label -k 2" "pca --ignore y,label -k 2 --standardize" \
           "perceptron --target label --ignore y"; do
  set -- $cmd
  algo=$1
  shift
  expect_status 0 "$algo fit $* with --categorical and --na" "$MLT" $algo fit "$FIX/train.csv" "$@" "${ENC[@]}" \
    --na median -o m.model
  rm -f m.model
done
run "$MLT" logreg cv "$FIX/train.csv" --target label --ignore y "${ENC[@]}" --na mean --folds 3 --lambda 0.1,1
check "cv with an encoding: exit 0 ($err)" test "$rc" -eq 0
run "$MLT" pca fit "$FIX/train.csv" --ignore y,label "${ENC[@]}" --na mean -k 2 -o p.pca
run "$MLT" pca transform p.pca "$FIX/new.csv" --reconstruct
check "pca --reconstruct names the encoded columns" test "$(head -1 <<<"$out")" = \
  "age,city=Brest,city=Lyon,city=Nice,city=Paris,income,plan=basic,plan=free,plan=pro"

# Old model files (no encoding recorded) still load and predict as before.
run "$MLT" ridge fit "$DATA/diabetes.csv" -o plain.ridge
"$MLT" ridge predict plain.ridge "$DATA/diabetes.csv" -o plain.csv
check "a model without an encoding predicts as ever" test -s plain.csv
for f in "$SRC"/tests/fixtures/golden/*_v1.{kmeans,knn,krr,logreg,pca,ridge}; do
  [ -e "$f" ] || continue
  run "$MLT" info "$f"
  check "$(basename "$f") loads (no encoding)" test "$rc" -eq 0 -a -z "$(grep '^encoding' <<<"$out")"
done

# Refusals: an unknown column (usage, 2), a target as categorical, streaming, a
# kernel on strings, decision regions over one-hot columns.
expect_error 2 "no column named \"colour\"" "--categorical: an unknown name" \
  "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label --categorical colour -o x.ridge
expect_error 2 "cannot be categorical" "--categorical: the target" \
  "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label --categorical y -o x.ridge
expect_error 2 "--categorical: .*fit in memory" "--categorical with --stream" \
  "$MLT" ridge fit "$FIX/train.csv" --target y --ignore label "${ENC[@]}" --stream -o x.ridge
expect_error 2 "--na mean: .*use error or drop" "--na mean with --stream" \
  "$MLT" pca fit "$DATA/iris.csv" --ignore species --na mean --stream -k 2 -o x.pca
expect_error 2 "--categorical: a kernel on strings" "--categorical on a string kernel" \
  "$MLT" svm fit "$DATA/dna_motifs.csv" --ignore id --kernel spectrum --kmer 3 --categorical sequence -o x.svm
check "no model left by a refusal" test ! -e x.ridge -a ! -e x.pca -a ! -e x.svm
run "$MLT" logreg fit "$DATA/iris.csv" --target species --ignore sepal_width,petal_length,petal_width \
  --categorical sepal_length -o two.logreg
expect_error 2 "decision regions are drawn over two numeric features" "plot regions of a one-hot model" \
  "$MLT" plot regions two.logreg "$DATA/iris.csv" -o r.png

# The shipped penguins: text columns and missing cells, as in the README.
expect_status 0 "penguins: logreg with island and sex one-hot, missing cells imputed" \
  "$MLT" logreg fit "$DATA/penguins.csv" --target species --categorical island,sex --na median --standardize -o p.logreg
run "$MLT" logreg score p.logreg "$DATA/penguins.csv" --json
check "penguins: training accuracy above 0.95" json_holds "$out" '.accuracy > 0.95'

finish
