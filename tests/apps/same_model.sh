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
