# Model comparisons and data shared by the streaming and MPI tests (sourced after lib.sh): a
# model fitted another way (streamed, on several ranks) against the in-memory one,
# within the bounds tests/lib/stream_fit_test.cpp derives (only the summation order
# differs).

# model_json MODEL: `mlt info --json` of a model.
model_json() { "$MLT" info "$1" --json; }

# same_ridge A B: coefficients and intercepts within 4 n ε κ (relative to the largest).
same_ridge() {
  python3 - "$(model_json "$1")" "$(model_json "$2")" <<'PY'
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
  python3 - "$(model_json "$1")" "$(model_json "$2")" "$3" <<'PY'
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
  python3 - "$DATA/iris.csv" >"$1" <<'PY'
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
    python3 - "$(model_json "$1")" "$(model_json "$2")" "${4:-1}" <<'PY'
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
  python3 - "$DATA/iris.csv" >"$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n", quoting=csv.QUOTE_ALL)
w.writerow(rows[0] + ["note"])
for i, r in enumerate(rows[1:]):
    w.writerow(r[:4] + ['Iris "%s", a species' % r[4], "one\ntwo, \"three\"\n" * (i % 3)])
PY
}
