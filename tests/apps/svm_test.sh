#!/usr/bin/env bash
# mlt svm end to end: fit, info, predict (--decision, --proba), score, cv, refusals. Reference
# numbers: tests/fixtures/svm/reference.json (LIBLINEAR and LinearSVC, certified
# optimal by a dual lower bound; scripts/fixtures/svm.py). The unit tests
# (tests/lib/svm_test.cpp) compare every case; here one case goes through the
# command line, with the objective compared at the same 1e-6 relative.
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/svm

# The first case of reference.json (standardized breast cancer, λ = 1, hinge, with
# intercept): mlt's objective is λ times LIBLINEAR's scale, and equals the
# certified optimum to 1e-6 relative.
expect_status 0 "fit cancer" "$MLT" svm fit "$FIX/cancer_std.csv" --target y --lambda 1 --max-iter 100000 -o c.svm
check "fit: one summary line with the duality gap" grep -q "svm: .* iterations, objective .*, duality gap" <<<"$err"
run "$MLT" info c.svm --json
check "info: objective equals the certified optimum to 1e-6" jq -n -e --argjson h "$out" --slurpfile fix "$FIX/reference.json" '
  def truthy: . != false and . != null and . != 0 and . != "" and . != [] and . != {};
  ([$fix[0].cases[] | select(.data == "cancer_std" and .lambda == 1.0 and .loss == "hinge" and (.fit_intercept | truthy))][0]
   // error("no reference case")).outputs[0].dual_lower_bound as $lower
  | $h.fitted as $f
  | $h.params.loss == "hinge" and $h.params.lambda == 1
    and ($f.converged | truthy) and ($f.duality_gap | type) == "number" and $f.duality_gap <= 1e-6 * $f.objective
    and (($f.objective - $lower) | fabs) <= 1e-6 * $lower' >/dev/null
run "$MLT" info c.svm
check "info: iterations, objective and duality gap in text" \
  test "$(grep -cE '^  (iterations|objective|duality_gap):' <<<"$out")" -eq 3

# predict: labels, and --decision with the second class's decision value.
run "$MLT" svm predict c.svm "$FIX/cancer_std.csv" --decision
check "predict --decision: y,decision_1" test "$(head -1 <<<"$out")" = "y,decision_1"
check "predict --decision: the label is 1 exactly where the decision value is > 0" \
  awk -F, 'NR > 1 { if (($1 == 1) != ($2 > 0)) bad = 1 } END { exit bad }' <<<"$out"
run "$MLT" svm predict c.svm "$FIX/cancer_std.csv"
check "predict: one label column" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = "y,569"
expect_error 2 "proba" "no probabilities: no --proba" "$MLT" svm predict c.svm "$FIX/cancer_std.csv" --proba

# score: accuracy and friends; no log loss without probabilities.
run "$MLT" svm score c.svm "$FIX/cancer_std.csv" --json
check "score --json: accuracy above 0.97 on its training set" json_holds "$out" '.accuracy > 0.97 and (has("log_loss") | not)'

# Iris, text labels, one-vs-rest: one decision column per class, named after it.
run "$MLT" svm fit "$DATA/iris.csv" --standardize --lambda 0.01 --loss squared_hinge -o iris.svm
check "iris: fitted" test "$rc" -eq 0
run "$MLT" svm predict iris.svm "$DATA/iris.csv" --decision
check "iris --decision: a column per class" test "$(head -1 <<<"$out")" = \
  "species,decision_setosa,decision_versicolor,decision_virginica"
run "$MLT" info iris.svm --json
check "iris: three binary problems, each with its gap" json_holds "$out" '
  .fitted | .n_outputs == 3 and (.per_output | length) == 3
  and all(.per_output[]; (.duality_gap | type) == "number" and .duality_gap <= 1e-6 * .objective)'

# The same model whatever --threads.
"$MLT" --threads 1 svm fit "$DATA/iris.csv" --standardize -o t1.svm 2>/dev/null
"$MLT" --threads 2 svm fit "$DATA/iris.csv" --standardize -o t2.svm 2>/dev/null
check "--threads 1 and 2: the same predictions" cmp -s \
  <("$MLT" svm predict t1.svm "$DATA/iris.csv" --decision) <("$MLT" svm predict t2.svm "$DATA/iris.csv" --decision)

# cv: grids over lambda and the loss from the declaration; accuracy by default.
run "$MLT" svm cv "$DATA/iris.csv" --standardize --lambda 0.01,1 --loss hinge,squared_hinge
check "cv: lambda x loss grid" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = \
  "lambda,loss,score,mean,std,folds,best,4"
expect_error 2 "fit it with --probability" "cv: log_loss needs --probability" \
  "$MLT" svm cv "$DATA/iris.csv" --score log_loss

# The kernel SVM (SMO), one-vs-one: the svm_kernel fixture's iris_rbf through the
# command line at SVC's tol, decision values within the per-pair bound the unit test
# derives (tests/lib/svm_test.cpp: lambda(x) (2 eps + phi)), the same support vectors.
KFIX=$SRC/tests/fixtures/svm_kernel
expect_status 0 "fit kernel rbf" "$MLT" svm fit "$KFIX/iris_rbf_train.csv" --target y --kernel rbf --gamma 0.5 \
  --lambda 1 --tol 1e-6 -o k.svm
check "kernel fit: summary says one-vs-one" grep -q "support vectors (one-vs-one, 3 problems)" <<<"$err"
run "$MLT" svm predict k.svm "$KFIX/iris_rbf_test.csv" --decision
check "kernel --decision: a column per pair, in LIBSVM's order" test "$(head -1 <<<"$out")" = \
  "y,decision_0.0_1.0,decision_0.0_2.0,decision_1.0_2.0"
check "kernel --decision: SVC's decision values and predictions" "$PYTHON" - "$out" "$KFIX/reference.json" <<'PY'
import csv, io, json, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
ref = json.load(open(sys.argv[2]))["cases"]["iris_rbf"]
eps, slack = 1e-6, 1e-9 * ref["scale"]
names = ["decision_0.0_1.0", "decision_0.0_2.0", "decision_1.0_2.0"]
for t, r in enumerate(rows):
    for q, name in enumerate(names):
        pr = ref["pairs"][q]
        bound = pr["lambda"][t] * (2 * eps + pr["phi"]) + slack
        assert abs(float(r[name]) - ref["decision"][t][q]) <= bound, (t, q)
    assert float(r["y"]) == ref["predict"][t], t
PY
run "$MLT" info k.svm --json
check "kernel info: dual form, SVC's support vectors per class, a gap per pair" \
  jq -n -e --argjson h "$out" --slurpfile fix "$KFIX/reference.json" '
    def truthy: . != false and . != null and . != 0 and . != "" and . != [] and . != {};
    $h.fitted as $f | ($fix[0].cases.iris_rbf // error("no reference case")) as $ref
    | $f.form == "dual" and $f.n_outputs == 3
      and ($ref | has("n_support")) and $f.n_sv_per_class == $ref.n_support
      and ($f.per_output | length) == 3
      and all($f.per_output[]; (.converged | truthy) and (.violation | type) == "number" and .violation <= 1e-6)
      and all($f.per_output[]; -1e-12 <= .duality_gap and .duality_gap <= 1e-4 * .objective)' >/dev/null
run "$MLT" info k.svm
check "kernel info in text: one item per pair, a field a line" test "$(grep -c '^    - converged: true$' <<<"$out")" -eq 3 -a \
  "$(grep -c '^      duality_gap: ' <<<"$out")" -eq 3
run "$MLT" svm score k.svm "$KFIX/iris_rbf_test.csv" --json
check "kernel score: accuracy as SVC's predictions give it" json_holds "$out" '.accuracy >= 0.9'
"$MLT" --threads 1 svm fit "$DATA/iris.csv" --standardize --kernel poly --degree 2 -o kt1.svm 2>/dev/null
"$MLT" --threads 2 svm fit "$DATA/iris.csv" --standardize --kernel poly --degree 2 -o kt2.svm 2>/dev/null
check "kernel --threads 1 and 2: the same decision values" cmp -s \
  <("$MLT" svm predict kt1.svm "$DATA/iris.csv" --decision) <("$MLT" svm predict kt2.svm "$DATA/iris.csv" --decision)
run "$MLT" svm fit "$DATA/iris.csv" --standardize --kernel rbf --multiclass ovr --class-weight balanced -o kovr.svm
run "$MLT" svm predict kovr.svm "$DATA/iris.csv" --decision
check "kernel ovr: a column per class" test "$(head -1 <<<"$out")" = \
  "species,decision_setosa,decision_versicolor,decision_virginica"
run "$MLT" svm cv "$DATA/iris.csv" --standardize --kernel rbf --gamma 0.1,1 --lambda 0.01,1
check "kernel cv: lambda x gamma grid" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = \
  "lambda,kernel,gamma,score,mean,std,folds,best,4"

# Probabilities (--probability): Platt's sigmoids on internal 5-fold CV decision
# values. The unit tests (tests/lib/svm/platt_test.cpp) compare the sigmoid and the
# coupling with scikit-learn and NumPy; here: the columns, each row in [0, 1] and
# summing to 1 within K ulps (p / sum(p), K roundings; printed with 17 digits, so the
# CSV's sum is within 3 ulps more), argmax agreeing with predict on most rows (not all:
# Platt's probabilities need not follow the votes, as LIBSVM documents), the same
# bytes for the same seed and other probabilities for another (other inner folds).
cat > proba_check.py <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
classes = rows[0][1:]
K = len(classes)
agree = 0
for r in rows[1:]:
    p = [float(v) for v in r[1:]]
    assert len(p) == K and all(0.0 <= v <= 1.0 for v in p), r
    assert abs(sum(p) - 1.0) <= (K + 3) * 2.3e-16, (r, sum(p) - 1.0)
    agree += classes[max(range(K), key=lambda k: p[k])] == r[0]
assert agree >= 0.9 * (len(rows) - 1), agree
PY
expect_status 0 "fit kernel --probability" "$MLT" svm fit "$DATA/iris.csv" --standardize --kernel rbf --probability -o p.svm
"$MLT" svm predict p.svm "$DATA/iris.csv" --proba -o p.csv
check "kernel --proba: one column per class" test "$(head -1 p.csv)" = "species,setosa,versicolor,virginica"
check "kernel --proba: rows in [0, 1] summing to 1; argmax agrees with predict on most rows" "$PYTHON" proba_check.py p.csv
"$MLT" svm fit "$DATA/iris.csv" --standardize --kernel rbf --probability -o p2.svm 2>/dev/null
"$MLT" svm predict p2.svm "$DATA/iris.csv" --proba -o p2.csv
check "the same seed: the same probabilities, byte for byte" cmp -s p.csv p2.csv
"$MLT" svm fit "$DATA/iris.csv" --standardize --kernel rbf --probability --seed 7 -o p7.svm 2>/dev/null
"$MLT" svm predict p7.svm "$DATA/iris.csv" --proba -o p7.csv
check "another seed: other inner folds, other probabilities" bash -c '! cmp -s p.csv p7.csv'
check "another seed: the same SVM (same decision values)" cmp -s \
  <("$MLT" svm predict p.svm "$DATA/iris.csv" --decision) <("$MLT" svm predict p7.svm "$DATA/iris.csv" --decision)
run "$MLT" info p.svm --json
check "info: sigmoid_a, sigmoid_b per pair" json_holds "$out" '
  .params.probability == true and .params.seed == 42
  and all(.fitted.per_output[]; (.sigmoid_a | type) == "number" and .sigmoid_a < 0)'
run "$MLT" svm score p.svm "$DATA/iris.csv" --json
check "score: log loss with probabilities" json_holds "$out" '0 < .log_loss and .log_loss < 0.5'
"$MLT" svm fit "$DATA/iris.csv" --standardize --probability -o pl.svm 2>/dev/null
"$MLT" svm predict pl.svm "$DATA/iris.csv" --proba -o pl.csv
check "linear one-vs-rest --proba: rows in [0, 1] summing to 1" "$PYTHON" proba_check.py pl.csv
"$MLT" svm fit "$FIX/cancer_std.csv" --target y --probability -o pc.svm 2>/dev/null
run "$MLT" svm predict pc.svm "$FIX/cancer_std.csv" --proba --decision
check "binary --proba --decision: y,0,1,decision_1" test "$(head -1 <<<"$out")" = "y,0,1,decision_1"
check "binary --proba: p0 = 1 - p1, and p1 increases with the decision value" "$PYTHON" -c '
import csv, io, sys
rows = [[float(v) for v in r] for r in list(csv.reader(io.StringIO(sys.argv[1])))[1:]]
assert all(r[1] == 1.0 - r[2] for r in rows)
rows.sort(key=lambda r: r[3])
assert all(a[2] <= b[2] for a, b in zip(rows, rows[1:]))' "$out"
run "$MLT" svm cv "$DATA/iris.csv" --standardize --probability --lambda 0.1,1 --score log_loss --oof oof.csv
check "cv --probability: log_loss, and --oof with probabilities" test "$rc,$(head -1 oof.csv)" = \
  "0,row,fold,input_species,species,p_setosa,p_versicolor,p_virginica"
expect_error 2 "--seed" "--seed with a kernel and no --probability" \
  "$MLT" svm fit "$DATA/iris.csv" --kernel rbf --seed 3 -o x.svm
printf 'x,y\n0,a\n1,a\n2,a\n3,b\n' > single.csv
expect_error 65 "at least 2 training rows" "--probability with a one-row class" \
  "$MLT" svm fit single.csv --probability -o x.svm

# cv's fast path with a kernel: the λ values of a split share one Gram matrix
# (Svm::fit_lambda_path); the models are the plain path's exactly, so the report,
# fold by fold, is the same bytes as with --no-fast-path (ovo: the pairs' parts of it;
# ovr, a kernel grid and the log loss of --probability too).
for flags in "--kernel rbf --gamma 0.1,1" "--kernel rbf,poly --multiclass ovr" "--kernel rbf --probability --score log_loss"; do
  # shellcheck disable=SC2086  # flags: several words
  "$MLT" svm cv "$DATA/iris.csv" --standardize $flags --lambda 1e-3:1:4 --per-fold --json > fast.json 2>/dev/null
  # shellcheck disable=SC2086
  "$MLT" svm cv "$DATA/iris.csv" --standardize $flags --lambda 1e-3:1:4 --per-fold --json --no-fast-path > plain.json 2>/dev/null
  check "cv $flags: the shared Gram matrix gives the plain path's report" cmp -s fast.json plain.json
done

# Refusals: bad flags and values (usage, 2), one class (data, 65), nothing written.
expect_error 2 "lambda" "lambda 0" "$MLT" svm fit "$DATA/iris.csv" --lambda 0 -o x.svm
expect_error 2 "loss" "unknown loss" "$MLT" svm fit "$DATA/iris.csv" --loss logistic -o x.svm
expect_error 2 "multiclass" "ovo is not the linear SVM's" "$MLT" svm fit "$DATA/iris.csv" --multiclass ovo -o x.svm
expect_error 2 "did you mean --lambda" "misspelt flag" "$MLT" svm fit "$DATA/iris.csv" --lamda 1 -o x.svm
expect_error 2 "squared_hinge has no kernel form" "squared hinge with a kernel" \
  "$MLT" svm fit "$DATA/iris.csv" --kernel rbf --loss squared_hinge -o x.svm
expect_error 2 "always fits its intercept" "no intercept with a kernel" "$MLT" svm fit "$DATA/iris.csv" --kernel rbf --no-intercept -o x.svm
expect_error 2 "--degree" "--degree without poly" "$MLT" svm fit "$DATA/iris.csv" --kernel rbf --degree 2 -o x.svm
expect_error 2 "--cache-mb" "--cache-mb without a kernel" "$MLT" svm fit "$DATA/iris.csv" --cache-mb 10 -o x.svm
expect_error 2 "--max-iter" "--max-iter with a kernel (SMO keeps LIBSVM's bound)" \
  "$MLT" svm fit "$DATA/iris.csv" --kernel rbf --max-iter 10 -o x.svm
head -3 "$DATA/iris.csv" > one_class.csv
expect_error 65 "only one class" "one class" "$MLT" svm fit one_class.csv -o x.svm
check "nothing written after a refusal" test ! -e x.svm
finish
