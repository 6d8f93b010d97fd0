#!/usr/bin/env bash
# --kernel precomputed end to end (mlt/kernel_precomputed.hpp): fit on a Gram matrix,
# predict from kernel values against the training rows, cv on the Gram matrix, and the
# refusals; and the smoother's kernel distance on strings and graphs. Reference numbers:
# tests/fixtures/precomputed/ (scikit-learn's KernelRidge, SVC and a NumPy smoother on
# the spectrum kernel; scripts/fixtures/precomputed.py).
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/precomputed

# max |a - b| / max(1, max |b|) over the numeric cells of two CSV files (same shape, the
# header skipped), against a bound.
within() {  # A.csv B.csv BOUND [FIRST-COLUMN]
  "$PYTHON" - "$@" <<'PY'
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[1:]
b = list(csv.reader(open(sys.argv[2])))[1:]
first = int(sys.argv[4]) if len(sys.argv) > 4 else 0
assert len(a) == len(b) and len(a) > 0, (len(a), len(b))
worst = scale = 0.0
for ra, rb in zip(a, b):
    for x, y in zip(ra[first:], rb[first:]):
        worst, scale = max(worst, abs(float(x) - float(y))), max(scale, abs(float(y)))
assert worst / max(1.0, scale) <= float(sys.argv[3]), (worst, scale)
PY
}
reference_csv() {  # KEY COLUMN OUT: a list of reference.json as a one-column CSV
  jq -r --arg k "$1" --arg col "$2" '$col, .[$k].predict[]' "$FIX/reference.json" > "$3"
}

# krr against KernelRidge(kernel="precomputed"), alpha 0.1, no intercept. Tolerance as
# tests/lib/kernel_precomputed_test.cpp derives it: 10 κ(K + λI) n ε = 10 · 213 · 80 ·
# 2.2e-16 ≈ 3.8e-11 relative.
expect_status 0 "krr fit on a Gram matrix" "$MLT" krr fit "$FIX/krr_train.csv" --kernel precomputed --lambda 0.1 \
  --no-intercept -o k.krr
run "$MLT" krr predict k.krr "$FIX/krr_test.csv" -o pre.csv
reference_csv krr y sk.csv
check "krr: scikit-learn's KernelRidge(kernel=precomputed) predictions" within pre.csv sk.csv 3.8e-11
run "$MLT" info k.krr --json
check "info: the kernel is precomputed" json_holds "$out" '.kernel.type == "precomputed"'

# The same model as the rbf kernel itself (gamma 0.5) on the rows the Gram matrix came
# from. The CSV's %.17g values are exactly scikit-learn's rbf_kernel, which differs
# from mlt's own rbf entries by a few ulps (each sums ‖a‖² − 2a·b + ‖b‖² in its own
# order: |δk| <= 4ε γ(‖a‖² + ‖b‖²) ≈ 4 · 2.2e-16 · 0.5 · 14 ≈ 6e-15 for these rows,
# ‖x‖² <= 3 · 1.5²); the predictions then move by at most κ(K + λI) n max|δk| ≈ 213 ·
# 80 · 6e-15 ≈ 1e-10 relative, plus the solve's own 3.8e-11: 2e-10.
"$MLT" krr fit "$SRC/tests/fixtures/krr/train.csv" --kernel rbf --gamma 0.5 --lambda 0.1 --no-intercept -o r.krr
"$MLT" krr predict r.krr "$SRC/tests/fixtures/krr/test.csv" -o rbf.csv
check "krr: precomputed rbf values = the rbf kernel" within pre.csv rbf.csv 2e-10
# cv on the Gram matrix: each fold's rows carry their training indices, so a fold's
# model reads its sub-matrix; the scores equal the rbf kernel's cv (same folds, the
# same seed) to the same 2e-10 (an mse is a mean of squared differences of such values).
run "$MLT" krr cv "$FIX/krr_train.csv" --kernel precomputed --lambda 0.01,0.1,1 --no-intercept
pre_cv=$(cut -d, -f4 <<<"$out")
run "$MLT" krr cv "$SRC/tests/fixtures/krr/train.csv" --kernel rbf --gamma 0.5 --lambda 0.01,0.1,1 --no-intercept
rbf_cv=$(cut -d, -f5 <<<"$out")
check "krr cv: precomputed = rbf" test "$(paste -d' ' <(tail -n +2 <<<"$pre_cv") <(tail -n +2 <<<"$rbf_cv") |
  awk '{ d = $1 - $2; if (d < 0) d = -d; if (d > 2e-10 * ($2 < 1 ? 1 : $2)) bad++ } END { print bad + 0 }')" = 0

# svm: SVC(kernel="precomputed")'s predictions on the held-out rows (its decision values
# are tests/lib's; the predictions are certain there, every |f| above its bound).
expect_status 0 "svm fit on a Gram matrix" "$MLT" svm fit "$FIX/svc_train.csv" --target y --kernel precomputed \
  --lambda 1 --tol 1e-6 -o s.svm
run "$MLT" svm predict s.svm "$FIX/svc_test.csv"
check "svm: SVC(kernel=precomputed)'s predictions" test "$(tail -n +2 <<<"$out" | tr '\n' ' ')" = \
  "$(jq -r '.svc.predict | map(tostring) | join(" ")' "$FIX/reference.json") "
# Every classifier's cv on the Gram matrix equals its cv on the rbf kernel (accuracies:
# counts of the same predictions).
for cmd in "svm --lambda 1" "logreg --lambda 0.1" "perceptron --max-epochs 20" "knn -k 3 --weights distance"; do
  set -- $cmd
  run "$MLT" "$1" cv "$FIX/svc_train.csv" --target y --kernel precomputed "${@:2}"
  pre=$(tail -1 <<<"$out" | awk -F, '{ print $(NF-3) }')
  run "$MLT" "$1" cv "$SRC/tests/fixtures/svm_kernel/iris_rbf_train.csv" --target y --kernel rbf --gamma 0.5 "${@:2}"
  check "$1 cv: precomputed = rbf" test "$pre" = "$(tail -1 <<<"$out" | awk -F, '{ print $(NF-3) }')"
done
# kernel PCA: cv's projection error, and transform of new rows.
run "$MLT" pca cv "$FIX/krr_train.csv" --ignore y --kernel precomputed --components 2,4 --score projection_error
check "pca cv on a Gram matrix" test "$(($(wc -l <<<"$out") - 1))" -eq 2
expect_status 0 "pca fit on a Gram matrix" "$MLT" pca fit "$FIX/krr_train.csv" --ignore y --kernel precomputed \
  --components 4 -o p.pca
expect_status 0 "pca transform of new rows" "$MLT" pca transform p.pca "$FIX/krr_test.csv" --ignore y -o z.csv
check "pca transform: 40 rows of 4 scores" test "$(tail -n +2 z.csv | awk -F, '{ print NF }' | sort -u),$(($(wc -l <z.csv) - 1))" = "4,40"

# Refusals: the training matrix must be square and symmetric (65, the data's fault),
# predict needs one value per training row (65); normalize and standardize do not
# apply (2); knn and the smoother need k(x, x) of a new row, which no row gives (65).
expect_error 65 "40 rows need 40 feature columns, and there are 80" "non-square Gram matrix" \
  "$MLT" krr fit "$FIX/krr_test.csv" --kernel precomputed -o x.krr
check "non-square: no model written" test ! -e x.krr
awk -F, -v OFS=, 'NR == 4 { $2 = $2 + 0.5 } { print }' "$FIX/krr_train.csv" > asym.csv
expect_error 65 "not symmetric: K\(3, 2\) = .* but K\(2, 3\) = " "asymmetric Gram matrix" \
  "$MLT" krr fit asym.csv --kernel precomputed -o x.krr
tail -n +2 "$FIX/svc_test.csv" > wide.csv  # by position: with a header, the model's columns k1..k80 by name
expect_error 65 "model trained on 80 features, input has 113" "predict: wrong width" \
  "$MLT" krr predict k.krr wide.csv --no-header
# With a header the columns are matched by name, and a row must hold exactly one value
# per training row: a column the model does not have is refused (65, naming the file
# and its header line), not silently cut, as a missing one is.
"$PYTHON" - "$FIX/krr_test.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
with open("extra.csv", "w", newline="") as f:
    w = csv.writer(f)
    for i, r in enumerate(rows):
        w.writerow(r[:-1] + (["k81"] if i == 0 else ["0.5"]) + r[-1:])
with open("fewer.csv", "w", newline="") as f:
    w = csv.writer(f)
    for r in rows:
        w.writerow(r[:-2] + r[-1:])
PY
expect_error 65 'extra.csv:1: column "k81" is not one of the model.s 80 kernel columns' "predict: an extra named column" \
  "$MLT" krr predict k.krr extra.csv
# Standard input too: the reader's own header, not a second read of the file.
expect_error 65 '<stdin>:1: column "k81" is not one of the model.s 80 kernel columns' \
  "predict: an extra named column on standard input" sh -c '"$0" krr predict k.krr - < extra.csv' "$MLT"
expect_error 65 'no column named "k80"' "predict: a missing column" "$MLT" krr predict k.krr fewer.csv
expect_status 0 "predict: the extra column skipped with --ignore" "$MLT" krr predict k.krr extra.csv --ignore k81 -o ign.csv
check "and the predictions are the file's without it" cmp -s ign.csv pre.csv
expect_error 2 "normalize" "normalize refused" "$MLT" krr fit "$FIX/krr_train.csv" --kernel precomputed --normalize -o x.krr
expect_error 2 "standardize does not apply to the precomputed kernel" "standardize refused" \
  "$MLT" krr fit "$FIX/krr_train.csv" --kernel precomputed --standardize -o x.krr
run "$MLT" knn fit "$FIX/svc_train.csv" --target y --kernel precomputed -k 3 -o n.knn
# The fit summary counts what the user gave (113 kernel values per row), not the
# encoded row's width (the training index in front makes 114).
check "knn fit: the summary says kernel values, not 114 features ($err)" \
  grep -q "knn: 113 training samples, kernel values against 113 training rows (precomputed kernel), brute search" <<<"$err"
expect_error 65 "needs k\(x, x\).*not a training row" "knn predict of new rows" "$MLT" knn predict n.knn "$FIX/svc_test.csv"
"$MLT" smoother fit "$FIX/krr_train.csv" --kernel precomputed --bandwidth 0.5 -o pre.smoother
expect_error 65 "needs k\(x, x\).*not a training row" "smoother predict of new rows" \
  "$MLT" smoother predict pre.smoother "$FIX/krr_test.csv"

# The smoother on strings (spectrum kernel): the NumPy transcription's class
# probabilities, to the 1e-11 that tests/lib/kernel_precomputed_test.cpp derives.
expect_status 0 "smoother fit on strings" "$MLT" smoother fit "$FIX/smoother_train.csv" --target class --classification \
  --kernel spectrum --kmer 4 --normalize --window epanechnikov --bandwidth 1.1 -o dna.smoother
run "$MLT" smoother predict dna.smoother "$FIX/smoother_test.csv" --proba -o proba.csv
jq -r '"p_bind,p_none", (.smoother.cases.k4_normalized_epanechnikov.proba_test[] | map(tostring) | join(","))' \
  "$FIX/reference.json" > ref.csv
check "smoother spectrum: the notes' formula" within <(cut -d, -f2- proba.csv) ref.csv 1e-11
# cv --loo in closed form (one grid over the bandwidth) = refits.
run "$MLT" smoother cv "$FIX/smoother_train.csv" --target class --classification --kernel spectrum --kmer 3 --normalize \
  --window box --bandwidth 0.8,0.9 --loo
fast=$out
run "$MLT" smoother cv "$FIX/smoother_train.csv" --target class --classification --kernel spectrum --kmer 3 --normalize \
  --window box --bandwidth 0.8,0.9 --loo --no-fast-path
check "smoother cv --loo on strings: closed form = refits" test "$fast" = "$out"
# A grid over the kernel itself is cross-validated by refits (the closed form varies the
# window of one kernel's distances).
run "$MLT" smoother cv "$FIX/smoother_train.csv" --target class --classification --kernel spectrum --kmer 3,4 \
  --normalize --bandwidth 0.9 --loo
check "smoother cv over kmer" test "$(($(wc -l <<<"$out") - 1))" -eq 2
# Graphs (walk kernel): fit, predict, cv.
expect_status 0 "smoother fit on graphs" "$MLT" smoother fit "$DATA/molecules.csv" --ignore id --target class \
  --classification --kernel walk --walk-length 2 --normalize --bandwidth 0.6 -o mol.smoother
run "$MLT" smoother score mol.smoother "$DATA/molecules.csv" --ignore id
check "smoother on graphs: scored" grep -q "^accuracy" <<<"$out"
# The default (no kernel) stays the Euclidean smoother: rbf's feature-space distance is
# another one, so the two differ.
"$MLT" smoother fit "$SRC/tests/fixtures/krr/train.csv" --bandwidth 0.5 -o e.smoother
"$MLT" smoother fit "$SRC/tests/fixtures/krr/train.csv" --kernel rbf --gamma 0.5 --bandwidth 0.5 -o k.smoother
check "a kernel changes the smoother's distance" test "$("$MLT" smoother predict e.smoother "$SRC/tests/fixtures/krr/test.csv" | md5sum)" != \
  "$("$MLT" smoother predict k.smoother "$SRC/tests/fixtures/krr/test.csv" | md5sum)"
finish
