#!/usr/bin/env bash
# mlt pca --kernel end to end: fit, transform, score, info, cv, refusals. Reference
# numbers: tests/fixtures/kernel_pca/*.json, scikit-learn's KernelPCA fitted on the
# even-numbered rows (scripts/fixtures/kernel_pca.py).
source "$(dirname "$0")/lib.sh" "$@"
FIX=$SRC/tests/fixtures/kernel_pca

"$PYTHON" - "$DATA/iris.csv" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
head, rows = lines[0], lines[1:]
open("train.csv", "w").write("\n".join([head] + rows[0::2]) + "\n")
open("test.csv", "w").write("\n".join([head] + rows[1::2]) + "\n")
PY

# scores equal to scikit-learn's up to sign: 1e-8 relative to max(1, |value|)
# (tests/lib/kernel_pca_test.cpp derives it).
same_scores() {  # CSV FIXTURE [TOLERANCE]
  "$PYTHON" - "$1" "$2" "${3:-1e-8}" <<'PY'
import json, sys
rows = [list(map(float, l.split(","))) for l in open(sys.argv[1]).read().splitlines()[1:]]
ref = json.load(open(sys.argv[2]))["scores_test"]
tol = float(sys.argv[3])
assert len(rows) == len(ref) and len(rows[0]) == len(ref[0]), (len(rows), len(ref))
for j in range(len(ref[0])):
    s = 1 if sum(r[j] * e[j] for r, e in zip(rows, ref)) >= 0 else -1
    for r, e in zip(rows, ref):
        assert abs(s * r[j] - e[j]) <= tol * max(1, abs(e[j])), (j, r[j], e[j])
PY
}

expect_status 0 "fit rbf" "$MLT" pca fit train.csv --ignore species --kernel rbf --gamma 0.5 --standardize -k 5 -o rbf.pca
run "$MLT" pca transform rbf.pca test.csv -o scores.csv
check "transform: pc1..pc5" test "$(head -1 scores.csv)" = "pc1,pc2,pc3,pc4,pc5"
check "transform: scikit-learn's KernelPCA scores (rbf)" same_scores scores.csv "$FIX/iris_rbf.json"

expect_status 0 "fit poly" "$MLT" pca fit train.csv --ignore species --kernel poly --gamma 0.2 --degree 3 --coef0 1 \
  --standardize -k 4 -o poly.pca
"$MLT" pca transform poly.pca test.csv -o poly.csv
check "transform: scikit-learn's KernelPCA scores (poly)" same_scores poly.csv "$FIX/iris_poly.json"

# score: no reconstruction in the input space; the feature-space error and ratio as the
# fixture's NumPy formulas.
run "$MLT" pca score rbf.pca test.csv --json
check "score: no reconstruction_mse for kernel PCA" json_holds "$out" 'has("reconstruction_mse") | not'
ref_pe=$(jq -r '.projection_error_test' "$FIX/iris_rbf.json")
ref_evr=$(jq -r '.explained_variance_ratio_test' "$FIX/iris_rbf.json")
check "score: projection_error ($ref_pe)" close_to "$(json_get "$out" projection_error)" "$ref_pe" 1e-8
check "score: explained_variance_ratio ($ref_evr)" close_to "$(json_get "$out" explained_variance_ratio)" "$ref_evr" 1e-8

# info: the kernel and its resolved parameters; only those that apply.
run "$MLT" info rbf.pca --json
check "info: kernel rbf, gamma 0.5, no degree" json_holds "$out" '
  .params | .kernel == "rbf" and .gamma == 0.5 and (has("degree") | not) and (has("solver") | not)'

# The linear kernel is PCA: the same scores as plain PCA, up to sign.
"$MLT" pca fit "$DATA/iris.csv" --ignore species -k 3 -o lin.pca
"$MLT" pca fit "$DATA/iris.csv" --ignore species -k 3 --kernel linear -o klin.pca
"$MLT" pca transform lin.pca "$DATA/iris.csv" -o lin.csv
"$MLT" pca transform klin.pca "$DATA/iris.csv" -o klin.csv
check "linear kernel = PCA (1e-9, up to sign)" "$PYTHON" - <<'PY'
a = [list(map(float, l.split(","))) for l in open("lin.csv").read().splitlines()[1:]]
b = [list(map(float, l.split(","))) for l in open("klin.csv").read().splitlines()[1:]]
for j in range(3):
    s = 1 if sum(x[j] * y[j] for x, y in zip(a, b)) >= 0 else -1
    assert all(abs(x[j] - s * y[j]) <= 1e-9 * max(1, abs(x[j])) for x, y in zip(a, b)), j
PY

# cv: grids of the kernel's parameters, scored by the projection error.
run "$MLT" pca cv "$DATA/iris.csv" --ignore species --standardize --kernel rbf --gamma 0.1,1 -k 2 --score projection_error
check "cv: two gammas" test "$(head -1 <<<"$out"),$(($(wc -l <<<"$out") - 1))" = "n_components,kernel,gamma,score,mean,std,folds,best,2"
expect_error 2 "give --score projection_error" "cv: kernel PCA has no reconstruction_mse" \
  "$MLT" pca cv "$DATA/iris.csv" --ignore species --kernel rbf -k 2

# Refusals.
expect_error 2 "reconstruct.*linear PCA" "--reconstruct with a kernel model" "$MLT" pca transform rbf.pca test.csv --reconstruct
expect_error 2 "degree applies to the poly kernel only" "--degree with rbf" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --degree 2 -o x.pca
expect_error 2 "requires --kernel" "--gamma without a kernel" "$MLT" pca fit train.csv --ignore species --gamma 1 -o x.pca
expect_error 2 "solver applies to linear PCA only" "--solver with a kernel" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --solver svd -o x.pca
expect_error 65 "only 4 eigenvalues of the centred kernel matrix are positive" "more components than the rank" \
  "$MLT" pca fit "$DATA/iris.csv" --ignore species --kernel linear -k 5 -o x.pca
check "nothing written on refusal" test ! -e x.pca
# An indefinite kernel: kernel PCA is defined on the positive spectrum, with a warning.
run "$MLT" pca fit "$DATA/iris.csv" --ignore species --kernel sigmoid -k 2 -o sig.pca
check "sigmoid kernel PCA fits (stderr: $err)" test "$rc" -eq 0
check "and warns that the centred kernel matrix is indefinite" grep -q "not positive semi-definite on these data" <<<"$err"
run "$MLT" pca fit "$DATA/iris.csv" --ignore species --kernel rbf -k 2 -o rbf.pca
check "no such warning for rbf" test "$(grep -c "not positive semi-definite" <<<"$err")" -eq 0

# Nyström (--nystrom M): scikit-learn's Nystroem + PCA on the landmarks `uniform` draws
# with seed 7 (scripts/fixtures/kernel_pca_nystrom.py reproduces the draw). Tolerance
# as tests/lib/kernel_pca_nystrom_test.cpp derives it, 10 κ M ε / gap = 10 · 714 · 20 ·
# 2.2e-16 / 0.0163 ≈ 2e-9.
NY=$FIX/nystrom_iris_rbf.json
expect_status 0 "fit rbf --nystrom 20" "$MLT" pca fit train.csv --ignore species --kernel rbf --gamma 0.5 --standardize \
  -k 4 --nystrom 20 --seed 7 -o ny.pca
check "fit: the summary names the Nyström features" grep -q "of the Nyström features (20 landmarks)" <<<"$err"
run "$MLT" pca transform ny.pca test.csv -o ny.csv
check "transform: scikit-learn's Nystroem + PCA scores" same_scores ny.csv "$NY" 2e-9
run "$MLT" pca score ny.pca test.csv --json
ref_pe=$(jq -r '.projection_error_test' "$NY")
check "score: projection_error in the true feature space ($ref_pe)" close_to "$(json_get "$out" projection_error)" "$ref_pe" 2e-9
run "$MLT" info ny.pca --json
check "info: nystrom 20, landmarks uniform, seed 7; the landmarks, map, mean and components stored" json_holds "$out" '
  (.params | .nystrom == 20 and .landmarks == "uniform" and .seed == 7 and (has("eigen_solver") | not))
  and (.fitted | .n_landmarks == 20 and .rank == 20 and .n_train == 75)
  and (.matrices | [.landmarks.rows, .landmarks.cols] == [20, 4] and (has("train") | not) and (has("alphas") | not)
       and [.nystrom_map.rows, .components.rows, .components.cols] == [20, 4, 20])'
# kmeans++ landmarks and another seed: other landmarks, still a model.
expect_status 0 "fit --landmarks kmeans++" "$MLT" pca fit train.csv --ignore species --kernel rbf -k 2 --nystrom 10 \
  --landmarks kmeans++ -o kpp.pca
# cv over M: the held-out projection error, one row per M.
run "$MLT" pca cv "$DATA/iris.csv" --ignore species --standardize --kernel rbf --gamma 0.5 -k 2 --nystrom 10,40 \
  --score projection_error
check "cv: a grid over --nystrom ($out)" test "$(head -1 <<<"$out" | cut -d, -f1-4),$(($(wc -l <<<"$out") - 1))" = \
  "n_components,kernel,gamma,nystrom,2"
# A precomputed Gram matrix: the landmarks are training rows, whose values every row
# carries. The same draw (same n, same seed) on the rbf Gram matrix of the rows gives
# the rbf kernel's own model, up to the few ulps between scikit-learn's rbf values and
# mlt's (6e-15, tests/apps/precomputed_test.sh) times the map's conditioning.
PRE=$SRC/tests/fixtures/precomputed
expect_status 0 "fit --kernel precomputed --nystrom" "$MLT" pca fit "$PRE/krr_train.csv" --ignore y \
  --kernel precomputed -k 3 --nystrom 30 -o pre.pca
"$MLT" pca transform pre.pca "$PRE/krr_test.csv" --ignore y -o pre.csv
"$MLT" pca fit "$SRC/tests/fixtures/krr/train.csv" --ignore y --kernel rbf --gamma 0.5 -k 3 --nystrom 30 -o rbf30.pca
"$MLT" pca transform rbf30.pca "$SRC/tests/fixtures/krr/test.csv" --ignore y -o rbf30.csv
check "precomputed Nyström = rbf Nyström (1e-8, up to sign)" "$PYTHON" - <<'PY'
a = [list(map(float, l.split(","))) for l in open("pre.csv").read().splitlines()[1:]]
b = [list(map(float, l.split(","))) for l in open("rbf30.csv").read().splitlines()[1:]]
assert len(a) == len(b) > 0
for j in range(3):
    s = 1 if sum(x[j] * y[j] for x, y in zip(a, b)) >= 0 else -1
    assert all(abs(x[j] - s * y[j]) <= 1e-8 * max(1, abs(y[j])) for x, y in zip(a, b)), j
PY
# Refusals.
expect_error 2 "nystrom applies to kernel PCA only" "--nystrom without a kernel" \
  "$MLT" pca fit train.csv --ignore species --nystrom 10 -o x.pca
expect_error 2 "landmarks applies only with --nystrom" "--landmarks without --nystrom" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --landmarks kmeans++ -o x.pca
expect_error 2 "seed applies only with --nystrom" "--seed without --nystrom" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --seed 3 -o x.pca
expect_error 2 "eigen-solver applies to exact kernel PCA only" "--eigen-solver with --nystrom" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --nystrom 10 --eigen-solver dense -o x.pca
expect_error 65 "nystrom M=76 > n_samples=75" "more landmarks than rows" \
  "$MLT" pca fit train.csv --ignore species --kernel rbf --nystrom 76 -o x.pca
expect_error 2 "not positive semi-definite" "--nystrom with the sigmoid kernel" \
  "$MLT" pca fit train.csv --ignore species --kernel sigmoid --nystrom 10 -o x.pca
expect_error 2 "use landmarks uniform" "kmeans++ landmarks on a Gram matrix" \
  "$MLT" pca fit "$PRE/krr_train.csv" --ignore y --kernel precomputed --nystrom 10 --landmarks kmeans++ -o x.pca
check "nothing written on refusal" test ! -e x.pca
finish
