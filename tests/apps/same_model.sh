# Model comparisons and data shared by the streaming and MPI tests (sourced after lib.sh,
# whose $PYTHON runs the heredocs below): a model fitted another way (streamed, on several
# ranks) against the in-memory one, within the bounds tests/lib/stream_fit_test.cpp derives
# (only the summation order differs).

# model_json MODEL: `mlt info --json` of a model.
model_json() { "$MLT" info "$1" --json; }

# same_json A B FILTER: jq's FILTER on `mlt info --json` of models A and B: both calls
# succeed, both results are something (neither empty nor null), and they are the same.
# Not test "$(...)" = "$(...)", which two failed calls (both empty) would pass.
same_json() {
  local model value values=()
  for model in "$1" "$2"; do
    if ! value=$(model_json "$model" | jq -c "$3") || [ -z "$value" ] || [ "$value" = null ]; then
      echo "same_json: $model: no $3 (${value:-nothing})" >&2
      return 1
    fi
    values+=("$value")
  done
  [ "${values[0]}" = "${values[1]}" ] || { echo "same_json: $1 and $2 differ in $3" >&2; return 1; }
}

# same_ridge A B: coefficients and intercepts within 4 n ε κ (relative to the largest).
same_ridge() {
  "$PYTHON" - "$(model_json "$1")" "$(model_json "$2")" <<'PY'
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
n = b["provenance"]["data_rows"]
kappa = float(b["fitted"]["condition"])
bound = 4 * n * 2.220446049250313e-16 * kappa
for m in ("coef", "intercept"):
    x = [v for row in a["matrices"][m]["values"] for v in row]
    y = [v for row in b["matrices"][m]["values"] for v in row]
    scale = max(abs(v) for v in y)
    err = max(abs(p - q) for p, q in zip(x, y)) / scale
    assert err <= bound, (m, err, bound)
assert a["provenance"]["data_rows"] == n
PY
}

# same_pca A B DATA: A's axes and variances within the bound of B's (B in memory):
# δ = 2 n ε (Σⱼ sdⱼ √n)² on the scatter, axes within 2 δ / gap, variances δ / (n − 1).
same_pca() {
  "$PYTHON" - "$(model_json "$1")" "$(model_json "$2")" "$3" <<'PY'
import csv, json, math, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
rows = [[float(v) for v in r[:4]] for r in list(csv.reader(open(sys.argv[3])))[1:]]
n = len(rows)
sd_sqrt_n = 0.0
for j in range(4):
    m = sum(r[j] for r in rows) / n
    sd_sqrt_n += math.sqrt(sum((r[j] - m) ** 2 for r in rows))
delta = 2 * n * 2.220446049250313e-16 * sd_sqrt_n ** 2
Ca, Cb = (m["matrices"]["components"]["values"] for m in (a, b))
ev = [s[0] ** 2 for s in b["matrices"]["singular_values"]["values"]]
for k in range(len(Cb)):
    gap = min([abs(ev[k] - ev[l]) for l in range(len(ev)) if l != k] + [ev[k]])
    err = max(abs(x - y) for x, y in zip(Ca[k], Cb[k]))
    assert err <= 2 * delta / gap, (k, err, 2 * delta / gap)
va = [v[0] for v in a["matrices"]["explained_variance"]["values"]]
vb = [v[0] for v in b["matrices"]["explained_variance"]["values"]]
assert max(abs(x - y) for x, y in zip(va, vb)) <= delta / (n - 1)
assert a["provenance"]["data_rows"] == n
PY
}

# write_quoted_iris FILE: iris with a quoted text column "note" whose cells hold 0 to 2
# line breaks, quotes and a comma: chunk and rank cuts must never fall inside one.
write_quoted_iris() {
  "$PYTHON" - "$DATA/iris.csv" >"$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(rows[0] + ["note"])
for i, r in enumerate(rows[1:]):
    w.writerow(r + ["line one\nline two, \"quoted\"\n" * (i % 3)])
PY
}

# same_logreg A B DATA [SLACK]: logistic models A (streamed, on several ranks) and B (in
# memory) on DATA's rows. Each fit is proven within its proba_bound of the optimum's
# probabilities (LogRegParams::tol), so theirs differ by at most the sum, times SLACK
# (λ/μ where the intercepts make μ < λ; 1 by default), plus the rounding of the two
# sums' orders: at most 2 R² n ε c_max / (L λ) (tests/lib/logreg_test.cpp), below 1e-9
# for the sets here (R² <= 450, n <= 569, λ >= 0.1, c_max 1). The predicted labels are
# the same, and no row of B is within twice that bound of a tie (so they must be).
same_logreg() {
  "$MLT" logreg predict "$1" "$3" --proba -o same_a.csv &&
    "$MLT" logreg predict "$2" "$3" --proba -o same_b.csv &&
    "$PYTHON" - "$(model_json "$1")" "$(model_json "$2")" "${4:-1}" <<'PY'
import csv, json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
slack = float(sys.argv[3])
eps = (a["fitted"]["proba_bound"] + b["fitted"]["proba_bound"]) * slack + 1e-9
pa, pb = (list(csv.reader(open(f))) for f in ("same_a.csv", "same_b.csv"))
assert pa[0] == pb[0] and len(pa) == len(pb), (pa[0], pb[0], len(pa), len(pb))
worst = 0.0
for ra, rb in zip(pa[1:], pb[1:]):
    assert ra[0] == rb[0], ("labels differ", ra, rb)
    p = sorted((float(v) for v in rb[1:]), reverse=True)
    assert p[0] - p[1] > 2 * eps, ("a row of B near a tie", rb)
    worst = max(worst, max(abs(float(x) - float(y)) for x, y in zip(ra[1:], rb[1:])))
assert worst <= eps, (worst, eps)
assert a["provenance"]["data_rows"] == b["provenance"]["data_rows"]
PY
}

# write_quoted_labels FILE: iris with every cell quoted, labels holding quotes and a
# comma ('Iris "setosa", a species'), and a text column "note" whose cells hold 0 to 2 line
# breaks: chunk and rank cuts must never fall inside one, and the labels stay whole.
write_quoted_labels() {
  "$PYTHON" - "$DATA/iris.csv" >"$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n", quoting=csv.QUOTE_ALL)
w.writerow(rows[0] + ["note"])
for i, r in enumerate(rows[1:]):
    w.writerow(r[:4] + ['Iris "%s", a species' % r[4], "one\ntwo, \"three\"\n" * (i % 3)])
PY
}

# same_krr A B DATA T: Nyström krr models A and B (B in memory, the rbf kernel, without
# --standardize) predict DATA's rows (its last T columns the targets) within the bound
# tests/lib/krr_test.cpp derives for two fits that differ only in the rounding of their
# sums (prediction_bound there, transcribed): the sums' order, the features' blocks and
# each model's own Cholesky solve and prediction.
# NumPy: $PYTHON (lib.sh), the system python3 that scripts/install-deps provides with it.
same_krr() {
  "$MLT" krr predict "$1" "$3" -o "$WORK/.same_krr_a" || return 1
  "$MLT" krr predict "$2" "$3" -o "$WORK/.same_krr_b" || return 1
  "$PYTHON" - "$(model_json "$2")" "$3" "$4" "$WORK/.same_krr_a" "$WORK/.same_krr_b" <<'PY'
import json, sys
import numpy as np
m = json.loads(sys.argv[1])
t = int(sys.argv[3])
data = np.loadtxt(sys.argv[2], delimiter=",", skiprows=1, ndmin=2)
X, Y = data[:, :-t], data[:, -t:]
pa = np.loadtxt(sys.argv[4], delimiter=",", skiprows=1, ndmin=2)
pb = np.loadtxt(sys.argv[5], delimiter=",", skiprows=1, ndmin=2)
assert m["kernel"]["type"] == "rbf" and not m["params"]["standardize"]
eps = np.finfo(float).eps
gamma, lam, jitter = m["params"]["gamma"], m["params"]["lambda"], m["fitted"]["jitter"]
Z = np.array(m["matrices"]["basis"]["values"])
beta = np.array(m["matrices"]["coef"]["values"])
n, p = X.shape
M = Z.shape[0]
def gram(A, B):
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * np.maximum(d, 0))
L = np.linalg.cholesky(gram(Z, Z) + jitter * np.eye(M))
Linv = np.linalg.inv(L)
Phi = (Linv @ gram(Z, X)).T
Yc = Y.copy()
if m["params"]["fit_intercept"]:
    Phi -= Phi.mean(0)
    Yc -= Y.mean(0)
k_max = 1.0
r2 = max((X * X).sum(1).max(), (Z * Z).sum(1).max())
eta = np.linalg.norm(Linv, "fro") * (np.sqrt(M) * gamma * 4 * (p + 2) * eps * r2 + M * eps * np.sqrt(M) * k_max)
A = Phi.T @ Phi
a_norm, phi_f = np.linalg.norm(A, 2), np.linalg.norm(Phi, "fro")
s_lambda = np.linalg.eigvalsh(A).min() + lam
gn = (n + 2) * eps
E = 2 * (gn * phi_f ** 2 + 2 * np.sqrt(a_norm) * np.sqrt(n) * eta + M * (M + 1) * eps * (a_norm + lam))
assert E < s_lambda / 2, (E, s_lambda)
for j in range(t):
    yc = np.linalg.norm(Yc[:, j])
    e = 2 * (gn * phi_f * yc + np.sqrt(n) * eta * yc)
    w = np.linalg.norm(L.T @ beta[:, j])
    dw = (e + E * w) / (s_lambda - E)
    db = 2 * gn * np.abs(Y[:, j]).max() + np.sqrt(k_max) * dw + 2 * (gn * np.sqrt(k_max) + eta) * w
    rounding = 2 * M * eps * np.sqrt(M) * k_max * np.linalg.norm(beta[:, j])
    bound = (np.sqrt(k_max) + eta) * dw + db + rounding
    diff = np.abs(pa[:, j] - pb[:, j]).max()
    assert pa.shape == pb.shape and diff <= bound, (j, diff, bound)
    print(f"target {j + 1}: max difference {diff:.3g}, bound {bound:.3g}", file=sys.stderr)
PY
}
