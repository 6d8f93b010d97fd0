"""How the benchmarks' answers are compared: readers of each tool's output (mlt's model
files, LIBLINEAR's and LIBSVM's, the peers' .npz, predictions and JSON) and the agreement
metrics the cases declare. Every metric is computed here, by the same NumPy code for
every tool, from what the tool wrote; none trusts a tool's own account of its answer.

A metric is called as metric(ctx, a, b): A the output of the tool being checked, B that
of the case's baseline tool in the same round (None where the metric computes its own
truth from the data), ctx the case's data sets (ctx.data[role]) and sizes (ctx.size).
It returns the measured difference, or (difference, details): the harness compares the
difference with the case's declared tolerance (within: difference <= tolerance).
"""
import csv
import json
import math
import os

import numpy as np


# ---- readers ----------------------------------------------------------------------------

def mlt_model(path):
    """An mlt model file: {"header": the JSON header, NAME: matrix, ...} (text and binary
    sections; binary ones are column-major little-endian doubles)."""
    with open(path, "rb") as f:
        data = f.read()
    pos = data.index(b"\n") + 1
    end = data.index(b"\n", pos)
    out = {"header": json.loads(data[pos:end])}
    pos = end + 1
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode()
        pos = end + 1
        if line == "end":
            return out
        kind, name, r, c = line.split()
        r, c = int(r), int(c)
        if kind == "matrix":
            rows = []
            for _ in range(r):
                end = data.index(b"\n", pos)
                rows.append([float(v) for v in data[pos:end].split()])
                pos = end + 1
            out[name] = np.array(rows, dtype=float).reshape(r, c)
        else:
            out[name] = np.frombuffer(data, dtype="<f8", count=r * c, offset=pos).reshape((r, c), order="F")
            pos += r * c * 8 + 1


def liblinear_model(path):
    """LIBLINEAR's model: coef (classes x features) and intercept, rows in the order of
    the sorted labels; a binary model's single w, which LIBLINEAR gives for its first
    label, turned to be for label 1."""
    lines = open(path).read().split("\n")
    labels = [int(v) for v in next(l for l in lines if l.startswith("label")).split()[1:]]
    k = lines.index("w")
    w = np.array([[float(v) for v in l.split()] for l in lines[k + 1:] if l.strip()])  # (p + 1) x nr_w
    if w.shape[1] == 1:
        s = 1 if labels[0] == 1 else -1
        return {"coef": s * w[:-1, 0][None, :], "intercept": s * w[-1:, 0], "classes": np.array([0, 1])}
    order = np.argsort(labels)
    return {"coef": w[:-1, order].T, "intercept": w[-1, order], "classes": np.array(sorted(labels))}


def libsvm_model(path, p):
    """LIBSVM's model: support vectors, their coefficients, and the intercept -rho, for
    the decision of label 1 (LIBSVM's is for the first label it saw)."""
    lines = open(path).read().split("\n")
    at = lines.index("SV")
    hdr = {l.split()[0]: l.split()[1:] for l in lines[:at]}
    labels = [int(v) for v in hdr["label"]]
    coef, S = [], []
    for l in lines[at + 1:]:
        if not l.strip():
            continue
        parts = l.split()
        coef.append(float(parts[0]))
        row = np.zeros(p)
        for kv in parts[1:]:
            i, v = kv.split(":")
            row[int(i) - 1] = float(v)
        S.append(row)
    s = 1 if labels[0] == 1 else -1
    return {"sv": np.array(S), "coef": s * np.array(coef), "b": -s * float(hdr["rho"][0])}


def read_csv_columns(path):
    """A CSV written by a tool: (header, rows as lists of strings)."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def load(output, run_dir):
    """What a tool's run left in RUN_DIR, by the kind of output its tool declares."""
    if output is None:
        return {}
    kind, _, arg = output.partition(":")
    if kind == "mlt":
        return mlt_model(os.path.join(run_dir, "model"))
    if kind == "npz":
        with np.load(os.path.join(run_dir, "out.npz")) as z:
            return {k: z[k] for k in z.files}
    if kind == "csv":  # predictions, scores: the file and its columns
        header, rows = read_csv_columns(os.path.join(run_dir, arg or "pred.csv"))
        return {"path": os.path.join(run_dir, arg or "pred.csv"), "header": header, "rows": rows}
    if kind == "json":
        with open(os.path.join(run_dir, "stdout")) as f:
            return json.loads(f.read())
    if kind == "liblinear":
        return liblinear_model(os.path.join(run_dir, "model"))
    if kind == "libsvm":
        return {"libsvm": os.path.join(run_dir, "model")}
    raise ValueError("unknown output kind " + output)


# ---- helpers ----------------------------------------------------------------------------

def rel(a, b):
    """max |a - b| / max |b|: a difference relative to the answer's scale, so small
    entries of a large answer do not dominate it."""
    a, b = np.asarray(a, float).ravel(), np.asarray(b, float).ravel()
    if a.shape != b.shape:
        return math.inf
    scale = np.abs(b).max() if b.size else 0.0
    return float(np.abs(a - b).max() / scale) if scale > 0 else float(np.abs(a - b).max())


def column(o, name=None):
    """A tool's numeric column: a .npz array, or a CSV's first (or named) column."""
    if "rows" in o:
        j = o["header"].index(name) if name else 0
        return np.array([float(r[j]) for r in o["rows"]])
    return np.asarray(o[name or "pred"], float).ravel()


def labels(o):
    return [r[0] for r in o["rows"]]


def features(ctx, role, model):
    """The data set's columns an mlt model was fitted on (its header's feature names)."""
    ds = ctx.data[role]
    header = ds.meta["files"]["data"]["header"]
    return [header.index(f) for f in model["header"]["data"]["features"]]


def blocked(X, f, block=100_000):
    """f over row blocks of X, concatenated: keeps the n x k temporaries small."""
    return np.concatenate([f(np.asarray(X[i:i + block])) for i in range(0, len(X), block)])


def nearest(X, C):
    """Each row's squared distance to its nearest centroid, and that centroid."""
    cc = np.einsum("ij,ij->i", C, C)

    def f(B):
        d = np.einsum("ij,ij->i", B, B)[:, None] - 2 * B @ C.T + cc[None, :]
        j = d.argmin(axis=1)
        return np.column_stack([np.maximum(d[np.arange(len(B)), j], 0), j])
    r = blocked(X, f)
    return r[:, 0], r[:, 1].astype(int)


# ---- metrics ----------------------------------------------------------------------------

def matrices(*names):
    """max |a - b| / max |b| over the named arrays (mlt models' matrices or a peer's
    arrays of the same names), e.g. ridge's coef and intercept together."""
    def metric(ctx, a, b):
        return rel(np.concatenate([np.ravel(a[n]) for n in names]), np.concatenate([np.ravel(b[n]) for n in names]))
    metric.__doc__ = "max |a - b| / max |b| of " + " and ".join(names)
    return metric


def ridge_coef(ctx, a, b):
    """coefficients and intercept, max |a - b| / max |b|"""
    v = lambda o: np.append(np.ravel(o["coef"]), np.ravel(o["intercept"])) if "intercept" in o else o["coef"]
    return rel(v(a), v(b))


def identical(*names):
    def metric(ctx, a, b):
        return float(np.abs(np.concatenate([np.ravel(a[n]) for n in names]) -
                            np.concatenate([np.ravel(b[n]) for n in names])).max())
    metric.__doc__ = "max |a - b| of " + " and ".join(names) + " (0: identical)"
    return metric


def kmeans_inertia(ctx, a, b):
    """inertia of each tool's centroids on the data, (I - I_base) / I_base"""
    X = ctx.data["data"].values()
    inertia = lambda o: float(nearest(X, np.asarray(o["centroids"], float))[0].sum())
    ia, ib = inertia(a), inertia(b)
    return (ia - ib) / ib, {"inertia": ia}


def kmeans_rows(ctx, a, b):
    """centroids, max |a - b| / max |b|, and the nearest centroid of the first 10,000
    rows (any label that differs fails)"""
    ds = ctx.data["data"]
    cols = features(ctx, "data", a)
    X = np.asarray(ds.values()[:10_000])[:, cols]
    da, la = nearest(X, a["centroids"])
    db, lb = nearest(X, b["centroids"])
    differ = int((la != lb).sum())
    return (rel(a["centroids"], b["centroids"]) if differ == 0 else math.inf), {"labels_differing": differ}


def pca_rows(ctx, a, b):
    """scores of the first 10,000 rows, (x - mean) Vᵀ, max |a - b| / max |b|: the
    components through what they do"""
    ds = ctx.data["data"]
    X = np.asarray(ds.values()[:10_000])[:, features(ctx, "data", a)]
    score = lambda o: (X - o["mean"].ravel()) @ o["components"].T
    return rel(score(a), score(b)), {"explained_variance": rel(a["explained_variance"], b["explained_variance"])}


def _logreg_objective(X, y, coef, intercept, classes, lam, scheme):
    """sum_i loss_i + (lambda/2) ||W||², intercepts unpenalized; y mapped to the tool's
    class order."""
    index = {float(c): i for i, c in enumerate(classes)}
    yi = np.array([index[float(v)] for v in y]) if len(classes) > 2 else (y == float(classes[1])).astype(float)

    def binary(t, w, b):
        s = X @ w + b
        return np.sum(np.logaddexp(0, s) - t * s) + 0.5 * lam * w @ w
    if coef.shape[0] == 1:
        return binary(yi, coef[0], intercept[0])
    if scheme == "ovr":
        return sum(binary((yi == k).astype(float), coef[k], intercept[k]) for k in range(coef.shape[0]))
    S = X @ coef.T + intercept
    mx = S.max(axis=1, keepdims=True)
    lse = mx[:, 0] + np.log(np.exp(S - mx).sum(axis=1))
    return np.sum(lse - S[np.arange(len(yi)), yi]) + 0.5 * lam * np.sum(coef * coef)


def logreg_objective(scheme):
    def metric(ctx, a, b):
        V = np.asarray(ctx.data["data"].values())
        X, y = V[:, :-1], V[:, -1]
        lam = ctx.size["lambda"]

        def obj(o):
            if "header" in o:  # mlt: its classes as it names them
                classes = [float(c) for c in o["header"]["data"]["classes"]]
            else:
                classes = list(o["classes"])
            coef = np.atleast_2d(o["coef"])
            return _logreg_objective(X, y, coef, np.ravel(o["intercept"]), classes, lam, scheme)
        oa, ob = obj(a), obj(b)
        return (oa - ob) / abs(ob), {"objective": oa}
    metric.__doc__ = (f"objective sum loss + (lambda/2)||W||² ({scheme}), evaluated on each tool's weights, "
                      "(P - P_base) / |P_base| (negative: lower than the baseline's)")
    return metric


def svm_objective(ctx, a, b):
    """primal objective ½(‖w‖² + b²) + C Σ hinge on each tool's weights, against the
    baseline mlt's certified lower bound P* >= P_mlt - gap_mlt: (P - lower) / lower"""
    V = np.asarray(ctx.data["data"].values())
    X, t = V[:, :-1], np.where(V[:, -1] == 1, 1.0, -1.0)
    if "coef" in a:
        w, bias = np.ravel(a["coef"]), float(np.ravel(a["intercept"])[0])
    else:
        w, bias = np.ravel(a["w"]), float(a["b"])
    P = 0.5 * (w @ w + bias * bias) + np.maximum(0, 1 - t * (X @ w + bias)).sum()
    fitted = b["header"]["fitted"]
    lower = fitted["objective"] - fitted["duality_gap"]
    return (P - lower) / lower, {"objective": P, "lower_bound": lower}


def svm_decision(ctx, a, b):
    """decision values on the held-out rows from each model's support vectors,
    coefficients and intercept, max |f - f_base| / max |f_base|"""
    gamma = ctx.size["gamma"]
    T = np.asarray(ctx.data["data"].values("test"))
    Xt, yt = T[:, :-1], T[:, -1]

    def decision(o):
        if "libsvm" in o:
            o = libsvm_model(o["libsvm"], Xt.shape[1])
        if "support_vectors" in o:
            S, coef, bias = o["support_vectors"], o["dual_coef"].ravel(), float(o["intercept"].ravel()[0])
        else:
            S, coef, bias = o["sv"], np.ravel(o["coef"]), float(o["b"])
        ss = (S ** 2).sum(1)

        def f(B):
            d2 = (B ** 2).sum(1)[:, None] + ss[None, :] - 2 * B @ S.T
            return np.exp(-gamma * np.maximum(d2, 0)) @ coef + bias
        return blocked(Xt, f, 1000), len(S)
    def support(o):
        """The training rows that are support vectors: mlt's and scikit-learn's indices
        (from 0), LIBSVM's found by their values (the CSV's six decimals)."""
        if "libsvm" in o:
            X = np.asarray(ctx.data["data"].values("train"))[:, :-1]
            row = {tuple(np.round(r, 6)): i for i, r in enumerate(X)}
            return {row.get(tuple(np.round(r, 6)), -1) for r in libsvm_model(o["libsvm"], X.shape[1])["sv"]}
        return set(np.ravel(o["support"]).astype(int).tolist())
    fa, na = decision(a)
    fb, _ = decision(b)
    return (float(np.abs(fa - fb).max() / np.abs(fb).max()),
            {"support_vectors": na, "support_vectors_not_the_baselines": len(support(a) - support(b)),
             "baseline_support_vectors_missing": len(support(b) - support(a)),
             "test_accuracy": float(np.mean((fa > 0) == (yt == 1)))})


def prediction_mismatch(ctx, a, b):
    """share of the query rows whose predicted label differs"""
    la, lb = labels(a), labels(b)
    if len(la) != len(lb):
        return math.inf
    return sum(x != y for x, y in zip(la, lb)) / len(lb), {"rows": len(lb)}


def untied_mismatch(ctx, a, b):
    """predicted labels that differ from the baseline's where the baseline's neighbours'
    vote is not tied (mlt breaks a tie by the smaller summed distance, scikit-learn by
    the lower label: both right); the count of such rows"""
    train = np.asarray(ctx.data["data"].values("train"))[:, -1].astype(int)
    la, rows = labels(a), b["rows"]
    differ = untied = 0
    for mine, row in zip(la, rows):
        if mine == row[0]:
            continue
        differ += 1
        votes = np.bincount(train[[int(i) - 1 for i in row[1:11]]], minlength=100)
        cls = lambda s: int(s.lstrip("c"))
        untied += not (votes[cls(mine)] == votes[cls(row[0])] == votes.max())
    return float(untied), {"differing": differ}


def same_bytes(ctx, a, b):
    """the output files byte for byte (0: identical)"""
    with open(a["path"], "rb") as fa, open(b["path"], "rb") as fb:
        return float(fa.read() != fb.read())


def predictions_rel(floor):
    def metric(ctx, a, b):
        pa, pb = column(a), column(b)
        if pa.shape != pb.shape:
            return math.inf
        return float((np.abs(pa - pb) / np.maximum(floor, np.abs(pb))).max())
    metric.__doc__ = f"predictions, max |a - b| / max({floor:g}, |b|) row by row"
    return metric


def rmse_against(ctx, a, b):
    """held-out RMSE against the baseline's, RMSE / RMSE_base - 1"""
    y = np.asarray(ctx.data["data"].values("test"))[:, -1]
    rmse = lambda o: float(np.sqrt(np.mean((column(o) - y) ** 2)))
    ra, rb = rmse(a), rmse(b)
    return ra / rb - 1, {"rmse": ra}


def rmse_over_noise(ctx, a, b):
    """held-out RMSE against the noise floor the generator planted, RMSE / noise - 1"""
    y = np.asarray(ctx.data["data"].values("test"))[:, -1]
    r = float(np.sqrt(np.mean((column(a) - y) ** 2)))
    return r / ctx.size["noise"] - 1, {"rmse": r}


def scores_up_to_sign(ctx, a, b):
    """scores, each component up to sign, max |a - b| / max |b|"""
    sa = np.array([[float(v) for v in r] for r in a["rows"]]) if "rows" in a else a["scores"]
    sb = np.array([[float(v) for v in r] for r in b["rows"]]) if "rows" in b else b["scores"]
    if sa.shape != sb.shape:
        return math.inf
    sa = sa * np.sign(np.sum(sa * sb, axis=0))
    return rel(sa, sb)


def _kmer_counts(ctx):
    """Each sequence's k-mer counts (4^k of them over ACGT): the spectrum kernel's
    features, whose Gram matrix X Xᵀ is the kernel's."""
    k = ctx.size["kmer"]
    with open(ctx.data["data"].path()) as f:
        seqs = [line.strip() for line in f][1:]
    code = np.zeros(256, dtype=np.int64)
    code[[ord("A"), ord("C"), ord("G"), ord("T")]] = [0, 1, 2, 3]
    X = np.zeros((len(seqs), 4 ** k))
    for i, s in enumerate(seqs):
        c = code[np.frombuffer(s.encode(), dtype=np.uint8)]
        idx = np.zeros(len(c) - k + 1, dtype=np.int64)
        for j in range(k):
            idx = idx * 4 + c[j:len(c) - k + 1 + j]
        X[i] = np.bincount(idx, minlength=4 ** k)
    return X


def spectrum_scores(ctx, a, b):
    """kernel PCA training scores against those of the k-mer counts made here (the
    centred Gram matrix's top eigenvectors, through the counts' centred covariance: the
    same scores), each component up to sign, max |a - b| / max |b|; the peer, which
    saves no scores: the trace of its Gram matrix against the counts'"""
    X = _kmer_counts(ctx)
    if "trace" in a:
        trace = float(np.sum(X * X))
        return abs(a["trace"] - trace) / trace
    Xc = X - X.mean(axis=0)
    vals, vecs = np.linalg.eigh(Xc.T @ Xc)
    top = np.argsort(vals)[::-1][:len(a["header"])]
    return scores_up_to_sign(ctx, a, {"scores": Xc @ vecs[:, top]})


def perceptron_weights(ctx, a, b):
    """weights, max |w - w_base| / max |w_base| (the same updates in the same order)"""
    return rel(a["coef"], b["coef"])


def training_error(ctx, a, b):
    """training error rate, |e - e_base| (different bias updates, so different mistakes:
    both must still nearly separate the data)"""
    V = np.asarray(ctx.data["data"].values())
    X, y = V[:, :-1], V[:, -1]
    err = lambda o: float(np.mean(((X @ np.ravel(o["coef"]) + float(np.ravel(o["intercept"])[0])) > 0) != (y == 1)))
    ea, eb = err(a), err(b)
    return abs(ea - eb), {"training_error": ea}


def _cv(o):
    """A grid search's mean scores in grid order and its best parameter: mlt's --json or
    the peer's {"best", "means"}."""
    if "results" in o:
        return [r["mean"] for r in o["results"]], list(o["best"]["params"].values())[0], \
            [list(r["params"].values())[0] for r in o["results"]]
    return o["means"], o["best"], None


def cv_scores(odd_only):
    def metric(ctx, a, b):
        ma, ba, _ = _cv(a)
        mb, bb, params = _cv(b)
        details = {"best": ba, "best_baseline": bb}
        if ma is None or mb is None:  # RidgeCV(cv=folds) keeps only its best
            return (0.0 if abs(ba - bb) <= 1e-12 * abs(bb) else math.inf), details
        pairs = [(x, y) for p, x, y in zip(params, ma, mb) if not odd_only or p % 2 == 1]
        if len(ma) != len(mb):
            return math.inf, details
        return max(abs(x - y) / max(abs(y), 1e-300) for x, y in pairs), details
    metric.__doc__ = ("mean score of every grid point" + (" at odd k (2 classes: even k can tie)" if odd_only else "")
                      + ", max |a - b| / |b|; the best alone where the peer keeps only that")
    return metric


def cell_sum(ctx, a, b):
    """the sum of every cell read, against the sum of the values as parsed here:
    |s - s_true| / sum |x|"""
    V = ctx.data["data"].values()
    true = float(blocked(V, lambda B: np.array([B.sum()])).sum())
    scale = float(blocked(V, lambda B: np.array([np.abs(B).sum()])).sum())
    return abs(a["sum"] - true) / scale


def blas_rate(ctx, a, b):
    """syrk's rate as a share of DGEMM's: a floor, reported, so any positive value passes"""
    return -a["syrk_gflops"] / a["dgemm_gflops"]
