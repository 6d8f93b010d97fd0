#!/usr/bin/python3
"""The reference side of each benchmark job, one process per run, so that /usr/bin/time
measures it whole: read the CSV, fit, save the model (and predict where the job does),
as a user of scikit-learn, pandas, FAISS or NumPy would.

Usage: /usr/bin/python3 scripts/benchlib/peers.py JOB ARG...   (scripts/bench runs it)

Each job writes what the harness compares into the files it is given (a .npz of arrays,
a predictions CSV) and prints, as its last line on standard output, one JSON object of
what it measured by its own clock (the fit alone, a Lloyd iteration, a query), which the
harness keeps beside the end-to-end figures. Imports are inside each job: a job pays for
the libraries it uses, as the user's script would, and no more.
"""
import json
import pickle
import sys
import time


def say(**reported):
    print(json.dumps(reported, sort_keys=True))


def read_xy(path, target=-1, round_trip=False):
    import pandas as pd
    df = pd.read_csv(path, float_precision="round_trip" if round_trip else None)
    y = df.pop(df.columns[target]).to_numpy()
    return df.to_numpy(), y


def pca(data, out, k):
    import joblib
    import numpy as np
    import pandas as pd
    from sklearn.decomposition import PCA
    t0 = time.perf_counter()
    X = pd.read_csv(data).to_numpy()
    t1 = time.perf_counter()
    m = PCA(n_components=int(k)).fit(X)
    t2 = time.perf_counter()
    joblib.dump(m, out + ".joblib")
    np.savez(out, explained_variance=m.explained_variance_)
    say(read_s=t1 - t0, fit_s=t2 - t1)


def ridge(data, out, lam):
    import numpy as np
    from sklearn.linear_model import Ridge
    t0 = time.perf_counter()
    X, y = read_xy(data)
    t1 = time.perf_counter()
    m = Ridge(alpha=float(lam)).fit(X, y)
    t2 = time.perf_counter()
    with open(out + ".pickle", "wb") as f:
        pickle.dump(m, f)
    np.savez(out, coef=np.append(m.coef_, m.intercept_))
    say(read_s=t1 - t0, fit_s=t2 - t1)


def kmeans(data, out, k, max_iter, tol, init, seed):
    """KMeans(n_init=1, algorithm="lloyd"); its seeding and its Lloyd loop are wrapped
    with timers (scikit-learn reports neither)."""
    import numpy as np
    import pandas as pd
    import sklearn.cluster._kmeans as skm
    from sklearn.cluster import KMeans
    clock = {"seeding": 0.0, "lloyd": 0.0}
    lloyd = skm._kmeans_single_lloyd

    def timed_lloyd(*a, **kw):
        t = time.perf_counter()
        r = lloyd(*a, **kw)
        clock["lloyd"] += time.perf_counter() - t
        return r
    skm._kmeans_single_lloyd = timed_lloyd
    init_centroids = KMeans._init_centroids

    def timed_init(self, *a, **kw):
        t = time.perf_counter()
        r = init_centroids(self, *a, **kw)
        clock["seeding"] += time.perf_counter() - t
        return r
    KMeans._init_centroids = timed_init
    t0 = time.perf_counter()
    X = pd.read_csv(data, dtype=np.float64).to_numpy()
    t1 = time.perf_counter()
    start = "k-means++" if init == "-" else pd.read_csv(init, float_precision="round_trip").to_numpy()
    km = KMeans(n_clusters=int(k), init=start, n_init=1, max_iter=int(max_iter), tol=float(tol),
                random_state=int(seed), algorithm="lloyd").fit(X)
    t2 = time.perf_counter()
    with open(out + ".pickle", "wb") as f:
        pickle.dump(km, f)
    np.savez(out, centroids=km.cluster_centers_)
    # n_iter_ counts the assignment passes, the last (unchanged) one included.
    passes = max(int(km.n_iter_), 1)
    say(read_s=t1 - t0, fit_s=t2 - t1, seeding_s=clock["seeding"], lloyd_s=clock["lloyd"], passes=passes,
        per_pass_s=clock["lloyd"] / passes, inertia=float(km.inertia_))


def kmeans_faiss(data, out, k, niter, init, seed):
    """faiss.Kmeans, float32, exactly NITER Lloyd iterations (FAISS has no early stop),
    on every row: max_points_per_centroid above n turns its subsampling off."""
    import faiss
    import numpy as np
    import pandas as pd
    t0 = time.perf_counter()
    X = pd.read_csv(data, dtype=np.float32).to_numpy()
    t1 = time.perf_counter()
    n, d = X.shape
    niter = max(int(niter), 1)
    km = faiss.Kmeans(d, int(k), niter=niter, seed=int(seed), max_points_per_centroid=n + 1,
                      min_points_per_centroid=1, verbose=False)
    start = None if init == "-" else pd.read_csv(init, dtype=np.float32).to_numpy()
    km.train(X, init_centroids=start)
    t2 = time.perf_counter()
    np.savez(out, centroids=km.centroids.astype(np.float64))
    lloyd = km.iteration_stats[-1]["time"] if km.iteration_stats else 0.0
    say(read_s=t1 - t0, fit_s=t2 - t1, lloyd_s=lloyd, iterations=niter, per_pass_s=lloyd / niter,
        objective=float(km.obj[-1]))


def logreg(data, out, lam, multi):
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    t0 = time.perf_counter()
    X, y = read_xy(data)
    t1 = time.perf_counter()
    m = LogisticRegression(C=1 / float(lam), solver="lbfgs", max_iter=1000, multi_class=multi).fit(X, y)
    t2 = time.perf_counter()
    np.savez(out, coef=m.coef_, intercept=m.intercept_, classes=m.classes_)
    say(read_s=t1 - t0, fit_s=t2 - t1, iterations=int(np.max(m.n_iter_)))


def knn(algo, train, query, k, out):
    import pandas as pd
    from sklearn.neighbors import KNeighborsClassifier
    t0 = time.perf_counter()
    tr = pd.read_csv(train, float_precision="round_trip")
    q = pd.read_csv(query, float_precision="round_trip")
    X, y = tr.drop(columns="label").to_numpy(), tr["label"].to_numpy()
    t1 = time.perf_counter()
    model = KNeighborsClassifier(n_neighbors=int(k), algorithm=algo, n_jobs=-1).fit(X, y)
    t2 = time.perf_counter()
    pred = model.predict(q.drop(columns="label").to_numpy())
    t3 = time.perf_counter()
    pd.DataFrame({"label": pred}).to_csv(out, index=False)
    say(read_s=t1 - t0, fit_s=t2 - t1, predict_s=t3 - t2, per_query_s=(t3 - t2) / len(pred))


def knn_faiss(train, query, k, out):
    """Exact search, faiss.IndexFlatL2 on float32; the vote as scikit-learn's (the most
    frequent label among the k, the lowest label on a tie)."""
    import faiss
    import numpy as np
    import pandas as pd
    t0 = time.perf_counter()
    tr = pd.read_csv(train)
    q = pd.read_csv(query)
    X = np.ascontiguousarray(tr.drop(columns="label").to_numpy(dtype=np.float32))
    Q = np.ascontiguousarray(q.drop(columns="label").to_numpy(dtype=np.float32))
    classes, y = np.unique(tr["label"].to_numpy(), return_inverse=True)
    t1 = time.perf_counter()
    index = faiss.IndexFlatL2(X.shape[1])
    index.add(X)
    t2 = time.perf_counter()
    _, nb = index.search(Q, int(k))
    t3 = time.perf_counter()
    votes = np.zeros((len(Q), len(classes)), dtype=np.int64)
    np.add.at(votes, (np.repeat(np.arange(len(Q)), nb.shape[1]), y[nb].ravel()), 1)
    pd.DataFrame({"label": classes[votes.argmax(axis=1)]}).to_csv(out, index=False)
    say(read_s=t1 - t0, fit_s=t2 - t1, search_s=t3 - t2, per_query_s=(t3 - t2) / len(Q))


def krr(train, test, out, gamma, lam):
    import numpy as np
    from sklearn.kernel_ridge import KernelRidge
    t0 = time.perf_counter()
    X, y = read_xy(train, round_trip=True)
    t1 = time.perf_counter()
    m = KernelRidge(alpha=float(lam), kernel="rbf", gamma=float(gamma)).fit(X, y)
    t2 = time.perf_counter()
    with open(out + ".pickle", "wb") as f:
        pickle.dump(m, f)
    Xt, _ = read_xy(test, round_trip=True)
    np.savez(out, pred=m.predict(Xt))
    say(read_s=t1 - t0, fit_s=t2 - t1)


def linear_svc(data, tol, out):
    """LinearSVC(dual, hinge, C = 1): LIBLINEAR's -s 3 inside, bias as -B 1."""
    import numpy as np
    from sklearn.svm import LinearSVC
    X, y = read_xy(data)
    t = time.perf_counter()
    m = LinearSVC(dual=True, loss="hinge", C=1.0, tol=float(tol), max_iter=1000, intercept_scaling=1.0).fit(X, y)
    fit = time.perf_counter() - t
    np.savez(out, w=m.coef_.ravel(), b=m.intercept_[0])
    say(fit_s=fit, passes=int(m.n_iter_))


def svc(data, out, gamma):
    import numpy as np
    from sklearn.svm import SVC
    X, y = read_xy(data)
    t = time.perf_counter()
    m = SVC(kernel="rbf", C=1.0, gamma=float(gamma), tol=1e-3, cache_size=200, shrinking=True).fit(X, y)
    fit = time.perf_counter() - t
    np.savez(out, support=m.support_, sv=X[m.support_], coef=m.dual_coef_.ravel(), b=m.intercept_[0])
    say(fit_s=fit, support_vectors=int(len(m.support_)))


def kpca(data, solver, gamma, out):
    import joblib
    import numpy as np
    import pandas as pd
    from sklearn.decomposition import KernelPCA
    t0 = time.perf_counter()
    X = pd.read_csv(data).to_numpy()
    t1 = time.perf_counter()
    m = KernelPCA(n_components=10, kernel="rbf", gamma=float(gamma), eigen_solver=solver, random_state=0)
    Z = m.fit_transform(X)
    t2 = time.perf_counter()
    joblib.dump(m, out + ".joblib")
    np.savez(out, scores=Z)
    say(read_s=t1 - t0, fit_s=t2 - t1)


def perceptron(data, epochs, intercept, out):
    import numpy as np
    from sklearn.linear_model import Perceptron
    X, y = read_xy(data)
    t, c = time.perf_counter(), time.process_time()
    m = Perceptron(fit_intercept=intercept == "1", max_iter=int(epochs), tol=None, shuffle=False, eta0=1.0).fit(X, y)
    fit, fit_cpu = time.perf_counter() - t, time.process_time() - c
    np.savez(out, coef=m.coef_.ravel(), intercept=m.intercept_)
    say(fit_s=fit, fit_cpu_s=fit_cpu, epochs=int(m.n_iter_), epochs_per_s=int(m.n_iter_) / fit)


def smoother_numpy(train, query, h, out):
    """r(x) = Σ W(z) y / Σ W(z), W(z) = exp(-‖z‖²), z = (x − Xᵢ)/h, blocked over 500
    queries, each block's squared distances by one BLAS product and its weights taken
    relative to the block row's smallest distance, as mlt takes them."""
    import numpy as np
    import pandas as pd
    h = float(h)
    T = pd.read_csv(train, float_precision="round_trip").to_numpy()
    Q = pd.read_csv(query, float_precision="round_trip").to_numpy()[:, :-1]
    X, y = T[:, :-1], T[:, -1]
    xx = np.einsum("ij,ij->i", X, X)
    pred = np.empty(len(Q))
    for r in range(0, len(Q), 500):
        B = Q[r:r + 500]
        d2 = np.einsum("ij,ij->i", B, B)[:, None] + xx[None, :] - 2.0 * (B @ X.T)
        W = np.exp(-(d2 - d2.min(axis=1, keepdims=True)) / h ** 2)
        pred[r:r + 500] = (W @ y) / W.sum(axis=1)
    np.savez(out, pred=pred)
    say()


def smoother_kde(train, query, h, out):
    """Two KernelDensity fits: exp(-d²/h²) is its gaussian kernel with bandwidth
    b = h/√2, one weighted by the (positive) targets and one not, so
    r(x) = exp(log p_y(x) − log p_1(x)) · Σy / n. The tree with atol = rtol = 0: exact."""
    import numpy as np
    import pandas as pd
    from sklearn.neighbors import KernelDensity
    h = float(h)
    T = pd.read_csv(train, float_precision="round_trip").to_numpy()
    Q = pd.read_csv(query, float_precision="round_trip").to_numpy()[:, :-1]
    X, y = T[:, :-1], T[:, -1]
    b = h / np.sqrt(2.0)
    weighted = KernelDensity(kernel="gaussian", bandwidth=b, atol=0, rtol=0).fit(X, sample_weight=y)
    plain = KernelDensity(kernel="gaussian", bandwidth=b, atol=0, rtol=0).fit(X)
    pred = np.exp(weighted.score_samples(Q) - plain.score_samples(Q)) * y.sum() / len(y)
    np.savez(out, pred=pred)
    say()


def spectrum(data, kmer):
    """The spectrum kernel's Gram matrix: k-mer counts (CountVectorizer over characters),
    then the sparse product X Xᵀ, made dense. Nothing is saved: the Gram matrix is the
    job, and the harness checks mlt's scores on its own count of the k-mers."""
    import numpy as np
    import pandas as pd
    from sklearn.feature_extraction.text import CountVectorizer
    t0 = time.perf_counter()
    seqs = pd.read_csv(data)["sequence"].tolist()
    t1 = time.perf_counter()
    k = int(kmer)
    X = CountVectorizer(analyzer="char", ngram_range=(k, k), lowercase=False, dtype=np.float64).fit_transform(seqs)
    K = (X @ X.T).toarray()
    t2 = time.perf_counter()
    say(read_s=t1 - t0, gram_s=t2 - t1, trace=float(np.trace(K)))


def cv(what, data, grid):
    """The grid searches of mlt ridge cv and knn cv (GRID lambdas log-spaced in
    [1e-3, 1e3], or k = 1..GRID), on the folds of the data's fold column
    (PredefinedSplit); prints the mean score of every grid point. n_jobs=None:
    GridSearchCV's n_jobs=2 would run two BLAS-threaded fits at once on two cores."""
    import numpy as np
    import pandas as pd
    from sklearn.model_selection import GridSearchCV, PredefinedSplit
    d = pd.read_csv(data, float_precision="round_trip")
    fold = d.pop("fold").to_numpy()
    y = d.pop("y").to_numpy()
    X = d.to_numpy()
    split = PredefinedSplit(fold)
    means = None
    if what in ("grid-ridge", "ridgecv-folds", "ridgecv-loo"):
        from sklearn.linear_model import Ridge, RidgeCV
        alphas = np.logspace(-3, 3, int(grid))
        if what == "grid-ridge":
            s = GridSearchCV(Ridge(), {"alpha": alphas}, cv=split, scoring="neg_mean_squared_error",
                             refit=False).fit(X, y)
            means = (-s.cv_results_["mean_test_score"]).tolist()
            best = float(s.best_params_["alpha"])
        elif what == "ridgecv-folds":
            s = RidgeCV(alphas=alphas, cv=split, scoring="neg_mean_squared_error").fit(X, y)
            best = float(s.alpha_)  # RidgeCV(cv=...) keeps only the best alpha
        else:
            s = RidgeCV(alphas=alphas, store_cv_values=True).fit(X, y)  # efficient leave-one-out
            means = s.cv_values_.mean(axis=0).tolist()
            best = float(s.alpha_)
    else:
        from sklearn.neighbors import KNeighborsClassifier
        s = GridSearchCV(KNeighborsClassifier(algorithm="brute"), {"n_neighbors": list(range(1, int(grid) + 1))},
                         cv=split, scoring="accuracy", refit=False).fit(X, y)
        means = s.cv_results_["mean_test_score"].tolist()
        best = int(s.best_params_["n_neighbors"])
    print(json.dumps({"best": best, "means": means}))


def read(data, precision):
    """pandas.read_csv to a matrix, C engine: "default" (not correctly rounded) or
    "round_trip" (correctly rounded)."""
    import pandas as pd
    t0 = time.perf_counter()
    X = pd.read_csv(data, float_precision=None if precision == "default" else precision).to_numpy()
    t = time.perf_counter() - t0
    say(read_s=t, sum=float(X.sum()))


def blas(n, p, size):
    """The BLAS floor a fit's Gram matrix is held to, on the OpenBLAS kernel of the
    environment: DGEMM of two SIZE x SIZE matrices, and one syrk, XᵀX of an N x P
    matrix (NumPy calls syrk for a matrix times its own transpose); medians of 3."""
    import statistics
    import numpy as np
    n, p, size = int(n), int(p), int(size)

    def median_seconds(f):
        ts = []
        for _ in range(3):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        return statistics.median(ts)
    rng = np.random.default_rng(0)
    square = rng.standard_normal((size, size))
    gemm_s = median_seconds(lambda: square @ square)
    square = None  # its memory back before the tall matrix
    X = np.asfortranarray(rng.standard_normal((n, p)))
    syrk_s = median_seconds(lambda: X.T @ X)
    say(dgemm_s=gemm_s, dgemm_gflops=2 * size ** 3 / gemm_s / 1e9, syrk_s=syrk_s,
        syrk_gflops=n * p * (p + 1) / syrk_s / 1e9)


JOBS = {"pca": pca, "ridge": ridge, "kmeans": kmeans, "kmeans-faiss": kmeans_faiss, "logreg": logreg, "knn": knn,
        "knn-faiss": knn_faiss, "krr": krr, "linear-svc": linear_svc, "svc": svc, "kpca": kpca,
        "perceptron": perceptron, "smoother-numpy": smoother_numpy, "smoother-kde": smoother_kde,
        "spectrum": spectrum, "cv": cv, "read": read, "blas": blas}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in JOBS:
        sys.exit("usage: peers.py JOB ARG...  (JOB: " + ", ".join(JOBS) + ")")
    JOBS[sys.argv[1]](*sys.argv[2:])
