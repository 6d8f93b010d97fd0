"""The benchmarks' one data generator: every data set is a spec (a generator's name, its
shape, its seed), drawn by NumPy's seeded generator and written by one fast CSV writer
(csvwrite.c), cached under out/bench/data/ in a directory named by a hash of the spec.

Each generator returns the files of its data set (a training file and a query file, say)
as FileSpecs: a header, a printf format per column, and the rows as blocks of doubles
drawn in order from one seeded stream, so the same spec always gives the same bytes.
Beside each CSV the writer keeps the values as a reader parses them back from the text
(NAME.f64, raw doubles), which the agreement checks read instead of parsing CSV, and,
where LIBLINEAR or LIBSVM read the data, the same cells in their sparse text (NAME.svm).
"""
import hashlib
import json
import math
import os
import subprocess
from dataclasses import dataclass

import numpy as np

# Part of every cache key: a change to any generator below must bump it, so no cached
# file outlives the code that drew it.
GENERATOR_VERSION = 1
# Rows drawn per block; part of the stream's definition (a different block size draws
# the same distribution but other numbers).
BLOCK = 50_000

HERE = os.path.dirname(os.path.abspath(__file__))


@dataclass
class FileSpec:
    name: str
    header: list
    formats: list
    blocks: object = None          # iterable of (rows, columns) float64 arrays
    lines: object = None           # or: iterable of text lines (non-numeric data)
    svm_label: int = None          # write NAME.svm too, this column the label
    values: bool = True            # keep NAME.f64


def _blocks(n, draw):
    """Calls draw(m) for successive blocks of at most BLOCK rows, n rows in all."""
    for start in range(0, n, BLOCK):
        yield draw(min(BLOCK, n - start))


def names(prefix, p, first=1):
    return [f"{prefix}{j}" for j in range(first, first + p)]


# ---- generators -----------------------------------------------------------------------

def lowrank(n, p, seed, rank=10):
    """A rank-10 signal times 3 plus unit noise and a per-column offset in [-5, 5): the
    leading principal components are well defined."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((rank, p))
    offset = rng.uniform(-5, 5, p)
    draw = lambda m: rng.standard_normal((m, rank)) @ W * 3 + rng.standard_normal((m, p)) + offset
    return [FileSpec("data", names("x", p, 0), ["%.10g"] * p, _blocks(n, draw))]


def regression(n, p, seed, label=0, values=1):
    """x ~ N(0, 1), y = x·w + 3 + N(0, 1), w_j = (j mod 7) - 3; label=1 writes the class
    y > 3 (0 or 1) in place of y."""
    rng = np.random.default_rng(seed)
    w = (np.arange(p) % 7) - 3.0

    def draw(m):
        X = rng.standard_normal((m, p))
        y = X @ w + 3 + rng.standard_normal(m)
        return np.column_stack([X, (y > 3).astype(float) if label else y])
    return [FileSpec("data", names("x", p) + ["y"], ["%.10g"] * p + ["%d" if label else "%.10g"],
                     _blocks(n, draw), values=bool(values))]


def blobs(n, p, centers, seed):
    """Gaussian blobs as scikit-learn's make_blobs draws them: centres uniform in
    [-10, 10)^p, unit standard deviation."""
    rng = np.random.default_rng(seed)
    C = rng.uniform(-10, 10, (centers, p))
    draw = lambda m: C[rng.integers(0, centers, m)] + rng.standard_normal((m, p))
    return [FileSpec("data", names("x", p), ["%.10g"] * p, _blocks(n, draw))]


def kmeans_start(of, k, seed, load):
    """Greedy k-means++ centroids of the data set OF (scikit-learn's kmeans_plusplus:
    2 + ln k candidates per centre, the one that lowers the potential most kept): a start
    both sides of a k-means comparison share, so both run the same Lloyd iterations."""
    X = load(of, "data")
    rng = np.random.default_rng(seed)
    n, p = X.shape
    trials = 2 + int(math.log(k))
    xx = np.einsum("ij,ij->i", X, X)
    sq = lambda C: np.maximum(xx[:, None] - 2 * X @ C.T + np.einsum("ij,ij->i", C, C)[None, :], 0)
    centres = np.empty((k, p))
    centres[0] = X[rng.integers(n)]
    closest = sq(centres[:1])[:, 0]
    for c in range(1, k):
        picks = np.searchsorted(np.cumsum(closest), rng.random(trials) * closest.sum())
        picks = np.minimum(picks, n - 1)
        d = np.minimum(closest[:, None], sq(X[picks]))
        best = int(np.argmin(d.sum(axis=0)))
        centres[c] = X[picks[best]]
        closest = d[:, best]
    return [FileSpec("data", names("x", p), ["%.17g"] * p, [centres])]


def logistic(n, p, seed):
    """A logistic model with noise, so the classes overlap (no separable shortcut)."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(p) * 0.3

    def draw(m):
        X = rng.standard_normal((m, p))
        y = rng.random(m) < 1 / (1 + np.exp(-(X @ w + 0.5)))
        return np.column_stack([X, y])
    return [FileSpec("data", names("x", p) + ["y"], ["%.6f"] * p + ["%d"], _blocks(n, draw), svm_label=p)]


def softmax(n, p, classes, seed):
    """K classes: a softmax model with Gumbel noise."""
    rng = np.random.default_rng(seed)
    W = rng.standard_normal((p, classes)) * 0.3

    def draw(m):
        X = rng.standard_normal((m, p))
        return np.column_stack([X, np.argmax(X @ W + rng.gumbel(size=(m, classes)), axis=1)])
    return [FileSpec("data", names("x", p) + ["y"], ["%.6f"] * p + ["%d"], _blocks(n, draw), svm_label=p)]


def clusters(n_train, n_query, p, classes, seed):
    """Gaussian clusters, one per class (labels c0, c1, ...), centres N(0, 2²): the
    training and the query rows from the same clusters."""
    rng = np.random.default_rng(seed)
    C = rng.normal(scale=2.0, size=(classes, p))

    def draw(m):
        y = rng.integers(0, classes, m)
        return np.column_stack([C[y] + rng.standard_normal((m, p)), y])
    header, formats = names("x", p, 0) + ["label"], ["%.17g"] * p + ["c%d"]
    return [FileSpec("train", header, formats, _blocks(n_train, draw)),
            FileSpec("query", header, formats, _blocks(n_query, draw))]


def krr(n, n_test, seed):
    """y = sin(2 x1) + x2 x3 + cos(3 x4)/2 + (x5 + ... + x10)/10 + N(0, 0.1²),
    x ~ U(-1, 1)^10: smooth, with a known noise floor."""
    rng = np.random.default_rng(seed)

    def draw(m):
        X = rng.uniform(-1, 1, size=(m, 10))
        y = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * np.cos(3 * X[:, 3]) + X[:, 4:].sum(axis=1) / 10
        return np.column_stack([X, y + 0.1 * rng.standard_normal(m)])
    header, formats = names("x", 10) + ["y"], ["%.17g"] * 11
    return [FileSpec("train", header, formats, _blocks(n, draw)),
            FileSpec("test", header, formats, _blocks(n_test, draw))]


def manifold(n, seed):
    """A curved 3-dimensional manifold in 20 dimensions plus noise, each column scaled to
    unit variance (so gamma = 0.05 is scikit-learn's default 1 / n_features)."""
    rng = np.random.default_rng(seed)
    z = rng.uniform(-2, 2, size=(n, 3))
    F = np.hstack([z, np.sin(2 * z), z ** 2 / 2])
    X = F @ rng.normal(size=(F.shape[1], 20)) + 0.3 * rng.normal(size=(n, 20))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return [FileSpec("data", names("x", 20, 0), ["%.6g"] * 20, [X])]


def bands(n, n_test, seed):
    """Two interleaved classes: the sign of a smooth non-linear function of the first 5
    of 20 standard normal features, a tenth of the labels flipped, so the classes overlap
    and many points are support vectors; the other 15 features are noise."""
    rng = np.random.default_rng(seed)

    def draw(m):
        X = rng.standard_normal((m, 20))
        f = np.sin(2 * X[:, 0]) + X[:, 1] * X[:, 2] + 0.5 * (X[:, 3] ** 2 - X[:, 4] ** 2)
        y = (f > 0).astype(int)
        flip = rng.random(m) < 0.10
        y[flip] = 1 - y[flip]
        return np.column_stack([X, y])
    header, formats = names("x", 20) + ["y"], ["%.6f"] * 20 + ["%d"]
    return [FileSpec("train", header, formats, _blocks(n, draw), svm_label=20),
            FileSpec("test", header, formats, _blocks(n_test, draw))]


def separable(n, p, margin, seed):
    """Linearly separable through the origin with a planted margin: rows closer than
    MARGIN to the hyperplane of a unit w* are redrawn, so both a perceptron with and one
    without an intercept can separate them, in more corrections than a few epochs make."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(p)
    w /= np.linalg.norm(w)

    def draw(m):
        rows = np.empty((0, p))
        while len(rows) < m:
            Z = rng.standard_normal((m, p))
            rows = np.vstack([rows, Z[np.abs(Z @ w) >= margin]])
        X = rows[:m]
        return np.column_stack([X, X @ w > 0])
    return [FileSpec("data", names("x", p) + ["y"], ["%.6f"] * p + ["%d"], _blocks(n, draw))]


def smooth(n_train, n_query, seed):
    """A smooth function of two of 10 standard normal features plus noise, bounded below
    by 2.5: positive, as KernelDensity's sample weights must be."""
    rng = np.random.default_rng(seed)

    def draw(m):
        X = rng.normal(size=(m, 10))
        return np.column_stack([X, 5 + np.sin(2 * X[:, 0]) + np.tanh(X[:, 1]) + 0.1 * rng.uniform(-1, 1, size=m)])
    header, formats = names("x", 10, 0) + ["y"], ["%.17g"] * 11
    return [FileSpec("train", header, formats, _blocks(n_train, draw)),
            FileSpec("query", header, formats, _blocks(n_query, draw))]


def dna(n, length, seed):
    """Random DNA sequences, one column."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("ACGT"))
    lines = ("".join(letters[rng.integers(0, 4, length)]) for _ in range(n))
    return [FileSpec("data", ["sequence"], None, lines=lines)]


def _fold_column(rng, n, folds):
    fold = np.empty(n)
    fold[rng.permutation(n)] = np.arange(n) % folds + 1
    return fold


def ridge_folds(n, p, folds, seed):
    """y = X w + N(0, 1), x ~ N(0, 1)^p, w ~ N(0, 1), and each row's fold (a seeded
    permutation cut into equal parts), so both sides of a cv use the same folds."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(p)
    fold = _fold_column(rng, n, folds)

    def rows():
        for start in range(0, n, BLOCK):
            m = min(BLOCK, n - start)
            X = rng.standard_normal((m, p))
            yield np.column_stack([X, X @ w + rng.standard_normal(m), fold[start:start + m]])
    return [FileSpec("data", names("x", p) + ["y", "fold"], ["%.17g"] * (p + 1) + ["%d"], rows())]


def classification_folds(n, p, informative, redundant, folds, seed, class_sep=0.8, flip=0.01):
    """Two classes as scikit-learn's make_classification draws them: two Gaussian
    clusters per class at vertices of a hypercube of side 2 class_sep in the informative
    features (each cluster a random linear map of N(0, I)), redundant features linear
    combinations of those, the rest noise, a share of labels flipped, rows and columns
    shuffled; and each row's fold."""
    rng = np.random.default_rng(seed)
    n_clusters = 4
    vertices = rng.permutation(2 ** informative)[:n_clusters]
    centroids = ((vertices[:, None] >> np.arange(informative)) & 1) * 2.0 - 1.0
    centroids *= class_sep
    X = np.empty((n, p))
    y = np.empty(n)
    cluster = np.arange(n) % n_clusters
    for c in range(n_clusters):
        rows = cluster == c
        A = rng.uniform(-1, 1, (informative, informative))
        X[rows, :informative] = rng.standard_normal((rows.sum(), informative)) @ A + centroids[c]
        y[rows] = c % 2
    B = rng.uniform(-1, 1, (informative, redundant))
    X[:, informative:informative + redundant] = X[:, :informative] @ B
    X[:, informative + redundant:] = rng.standard_normal((n, p - informative - redundant))
    flipped = rng.random(n) < flip
    y[flipped] = rng.integers(0, 2, flipped.sum())
    order = rng.permutation(n)
    X, y = X[order][:, rng.permutation(p)], y[order]
    fold = _fold_column(rng, n, folds)
    return [FileSpec("data", names("x", p) + ["y", "fold"], ["%.17g"] * p + ["%d", "%d"],
                     [np.column_stack([X, y, fold])])]


def reader(n, p, seed):
    """5 N(0, 1) plus a per-column offset in [-5, 5), short decimals: the read alone."""
    rng = np.random.default_rng(seed)
    offset = rng.uniform(-5, 5, p)
    draw = lambda m: 5 * rng.standard_normal((m, p)) + offset
    return [FileSpec("data", names("x", p, 0), ["%.6g"] * p, _blocks(n, draw))]


GENERATORS = {f.__name__: f for f in (lowrank, regression, blobs, kmeans_start, logistic, softmax, clusters, krr,
                                      manifold, bands, separable, smooth, dna, ridge_folds, classification_folds,
                                      reader)}


# ---- the cache --------------------------------------------------------------------------

class DataSet:
    """The files of one generated spec: path(name), svm(name), values(name)."""

    def __init__(self, directory, meta):
        self.dir = directory
        self.meta = meta

    def path(self, name="data"):
        return os.path.join(self.dir, name + ".csv")

    def svm(self, name="data"):
        return os.path.join(self.dir, name + ".svm")

    def values(self, name="data"):
        """The cells as parsed back from the CSV text, (rows, columns), memory-mapped."""
        f = self.meta["files"][name]
        return np.memmap(os.path.join(self.dir, name + ".f64"), dtype=np.float64, mode="r",
                         shape=(f["rows"], len(f["header"])))

    def files(self):
        return sorted(self.meta["files"])

    def paths(self):
        out = []
        for name, f in sorted(self.meta["files"].items()):
            out.append(self.path(name))
            if f.get("svm"):
                out.append(self.svm(name))
        return out


def key(spec):
    text = json.dumps({"spec": spec, "version": GENERATOR_VERSION}, sort_keys=True)
    return spec["gen"] + "-" + hashlib.sha1(text.encode()).hexdigest()[:12]


def _writer(root):
    src = os.path.join(HERE, "csvwrite.c")
    exe = os.path.join(root, "bin", "csvwrite")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(src):
        os.makedirs(os.path.dirname(exe), exist_ok=True)
        subprocess.run(["cc", "-O2", "-o", exe + ".tmp", src], check=True)
        os.replace(exe + ".tmp", exe)
    return exe


def generate(spec, root, log=print):
    """The DataSet of SPEC under ROOT/data/, drawn and written unless already there
    (meta.json is written last: a directory without it is an interrupted run's)."""
    directory = os.path.join(root, "data", key(spec))
    meta_path = os.path.join(directory, "meta.json")
    if os.path.exists(meta_path):
        with open(meta_path) as f:
            return DataSet(directory, json.load(f))
    os.makedirs(directory, exist_ok=True)
    params = {k: v for k, v in spec.items() if k != "gen"}
    if spec["gen"] == "kmeans_start":
        params["load"] = lambda of, name: np.array(generate(of, root, log).values(name))
    log(f"generating {directory} ({json.dumps(spec, sort_keys=True)})")
    meta = {"spec": spec, "version": GENERATOR_VERSION, "files": {}}
    for fs in GENERATORS[spec["gen"]](**params):
        path = os.path.join(directory, fs.name + ".csv")
        rows = 0
        if fs.lines is not None:
            with open(path + ".tmp", "w") as f:
                f.write(",".join(fs.header) + "\n")
                for line in fs.lines:
                    f.write(line + "\n")
                    rows += 1
        else:
            cmd = [_writer(root), ",".join(fs.header), "|".join(fs.formats), path + ".tmp"]
            if fs.svm_label is not None:
                cmd += ["--svm", str(fs.svm_label), os.path.join(directory, fs.name + ".svm")]
            if fs.values:
                cmd += ["--values", os.path.join(directory, fs.name + ".f64")]
            w = subprocess.Popen(cmd, stdin=subprocess.PIPE)
            for block in fs.blocks:
                block = np.ascontiguousarray(block, dtype=np.float64)
                assert block.shape[1] == len(fs.header)
                w.stdin.write(block.tobytes())
                rows += len(block)
            w.stdin.close()
            if w.wait() != 0:
                raise RuntimeError(f"csvwrite failed on {path}")
        os.replace(path + ".tmp", path)
        meta["files"][fs.name] = {"header": fs.header, "rows": rows, "bytes": os.path.getsize(path),
                                  "svm": fs.svm_label is not None, "values": fs.values and fs.lines is None}
    with open(meta_path + ".tmp", "w") as f:
        json.dump(meta, f, sort_keys=True, indent=1)
    os.replace(meta_path + ".tmp", meta_path)
    return DataSet(directory, meta)
