"""The benchmark cases, declared: what each job is, its data (a generator spec at full
and at quick size), the mlt command(s) and every reference's, how the answers are
compared and within what tolerance. scripts/bench runs them; nothing here runs anything.

Commands are strings split like a shell's words; in each word {NAME} is replaced by
  {mlt} {py} {peers}      the mlt binary, /usr/bin/python3, scripts/benchlib/peers.py
  {work}                  the run's own directory (outputs: model, out.npz, pred.csv)
  {kernel}                the OpenBLAS kernel mlt uses (mlt --version)
  {run} {seed}            the run's index, from 0, and from 1
  {ROLE} {ROLE.FILE}      a data set's CSV (ROLE alone: its first file), {ROLE.FILE.svm}
                          the same rows in LIBSVM's text
  {SIZE}                  a size of the case (n, p, k, ...), at full or quick size
  {KEY@TOOL}              what TOOL reported in this round (e.g. mlt's Lloyd iterations)
  {bare_read}             the bare conversion loop, built from bare_read.cpp
A data spec's value "{SIZE}" is that size.

Fairness, as the old scripts kept it: the same files for every tool, in the page cache;
equal stopping where the tools allow it (the same tolerance in the same units, or the
same number of iterations); scikit-learn run both with its OpenBLAS's own kernel and on
the kernel mlt uses (OPENBLAS_CORETYPE) where a BLAS call dominates; both sides on all
cores unless a tool can use only one, in which case mlt also runs on one thread.
"""
from dataclasses import dataclass, field

from . import compare as cmp


@dataclass
class Compare:
    metric: object                 # compare.py: metric(ctx, a, b) -> difference
    tol: float                     # within: difference <= tol
    against: str = None            # the baseline tool; None: the metric's own truth

    @property
    def what(self):
        return " ".join((self.metric.__doc__ or self.metric.__name__).split())


CASE = "case"  # a tool's compare: the case's


@dataclass
class Tool:
    name: str                      # unique in its case; the records' "tool"
    label: str                     # how the table names it
    steps: list                    # timed commands, in order
    kind: str = "ref"              # "mlt" or "ref"
    main: bool = False             # in the README table (mlt: the run the table shows)
    env: dict = field(default_factory=dict)  # VALUE None: unset
    after: list = field(default_factory=list)  # untimed commands whose output the check reads
    output: str = None             # what compare.load reads: mlt, npz, csv[:FILE], json, reported, ...
    compare: object = CASE         # CASE, a Compare, or None (not compared)
    report: dict = field(default_factory=dict)  # mlt: reported NAME -> dotted path in the model header
    max_runs: int = None           # run in the first rounds only (a slow reference)
    ranks: int = 1                 # > 1: under mpirun -np RANKS
    requires: str = None           # an executable on PATH, or $VAR: a variable set


@dataclass
class Case:
    name: str
    title: str                     # the table's row, formatted with the sizes
    description: str               # one line, for --list
    sizes: dict                    # {"full": {...}, "quick": {...}}
    data: dict                     # role -> generator spec
    tools: list
    compare: Compare = None
    table: bool = False
    notes: str = ""


# ---- tool helpers -------------------------------------------------------------------------

def mlt(*steps, name="mlt", label="mlt", main=True, output="mlt", **kw):
    return Tool(name, label, list(steps), kind="mlt", main=main, output=output, **kw)


def peer(args, name, label, main=False, output="npz", env=None, **kw):
    env = {"OPENBLAS_CORETYPE": None} if env is None else env
    return Tool(name, label, ["{py} {peers} " + args], main=main, output=output, env=env, **kw)


def sklearn(args, main=True, output="npz", **kw):
    """scikit-learn as it comes: its OpenBLAS picks its own kernel."""
    return peer(args, "scikit-learn", "scikit-learn", main=main, output=output, **kw)


def sklearn_on_mlt_kernel(args, output="npz", **kw):
    """scikit-learn on the OpenBLAS kernel mlt uses: the BLAS taken out of the ratio."""
    return peer(args, "scikit-learn, mlt's kernel", "scikit-learn on mlt's BLAS kernel", output=output,
                env={"OPENBLAS_CORETYPE": "{kernel}"}, **kw)


def sizes(full, quick):
    return {"full": full, "quick": quick}


# The data sets several cases share (the same spec: the same cached files).
REGRESSION = {"gen": "regression", "n": "{n}", "p": "{p}", "seed": 1}
LOGISTIC = {"gen": "logistic", "n": "{n}", "p": "{p}", "seed": 20261122}
BLOBS = {"gen": "blobs", "n": "{n}", "p": "{p}", "centers": 50, "seed": 0}

KMEANS_SIZES = sizes(dict(n=1_000_000, p=20, k=50), dict(n=10_000, p=20, k=50))
LOGREG_SIZES = sizes(dict(n=500_000, p=100, **{"lambda": 1.0}), dict(n=5_000, p=100, **{"lambda": 1.0}))
STREAM_SIZES = sizes(dict(n=1_000_000, p=100, n_large=4_000_000), dict(n=5_000, p=100, n_large=20_000))
MPI_SIZES = sizes(dict(n=1_000_000, p=100), dict(n=5_000, p=100))
MPI = "mpirun --allow-run-as-root"
# What mlt's model headers say of the fit, kept beside the times.
LOGREG_REPORT = {"iterations": "fitted.iterations", "cg_iterations": "fitted.cg_iterations"}
SVM_REPORT = {"iterations": "fitted.iterations", "duality_gap": "fitted.duality_gap",
              "support_vectors": "fitted.n_sv"}


def mpi_case(name, what, fit, compare, data=REGRESSION, extra=()):
    """A fit alone and on 2 MPI ranks (each rank's peak memory: what a machine of a
    cluster would need), the two models compared."""
    return Case(
        name, f"{what} on 2 MPI ranks, {{n:,}} × {{p}}",
        f"mlt {fit.split(' {')[0]} alone and under {MPI} -np 2: wall, memory per rank, the models compared",
        MPI_SIZES, {"data": data},
        [mlt(f"{{mlt}} {fit} -o {{work}}/model", name="mlt, 1 rank", label="mlt, 1 rank"),
         mlt(f"{{mlt}} {fit} -o {{work}}/model", name="mlt, 2 ranks", label="mlt, 2 ranks", main=False, ranks=2),
         *extra],
        compare, notes="On one machine two ranks share its cores: the wall time shows the cost of the split and "
                       "of the messages, not a speed-up.")


# ---- the cases ------------------------------------------------------------------------------

CASES = [
    Case("pca", "PCA, {n:,} × {p}, {k} components",
         "mlt pca fit -k 10 vs scikit-learn PCA (pandas read, fit, joblib dump), end to end",
         sizes(dict(n=1_000_000, p=50, k=10), dict(n=10_000, p=50, k=10)),
         {"data": {"gen": "lowrank", "n": "{n}", "p": "{p}", "seed": 0}},
         [mlt("{mlt} pca fit {data} -k {k} -o {work}/model --timings"),
          sklearn("pca {data} {work}/out {k}"),
          sklearn_on_mlt_kernel("pca {data} {work}/out {k}")],
         Compare(cmp.matrices("explained_variance"), 1e-6, "scikit-learn"), table=True),

    Case("ridge", "ridge, {n:,} × {p}",
         "mlt ridge fit vs scikit-learn Ridge (read, fit, pickle), lambda 1, end to end",
         sizes(dict(n=1_000_000, p=100, **{"lambda": 1.0}), dict(n=10_000, p=100, **{"lambda": 1.0})),
         {"data": REGRESSION},
         [mlt("{mlt} ridge fit {data} --lambda {lambda} -o {work}/model --timings"),
          sklearn("ridge {data} {work}/out {lambda}"),
          sklearn_on_mlt_kernel("ridge {data} {work}/out {lambda}")],
         Compare(cmp.ridge_coef, 1e-8, "scikit-learn"), table=True),

    Case("kmeans", "k-means, {n:,} × {p}, k = {k}, from the same start",
         "mlt kmeans fit vs scikit-learn KMeans and FAISS from the same k-means++ centroids, to the same "
         "inertia; per Lloyd iteration",
         KMEANS_SIZES,
         {"data": BLOBS, "start": {"gen": "kmeans_start", "of": BLOBS, "k": "{k}", "seed": 1}},
         [mlt("{mlt} --timings kmeans fit {data} --centroids {start} --n-init 1 --tol 0 --max-iter 300 "
              "-o {work}/model", report={"iterations": "info.iterations", "energy": "info.energy"}),
          sklearn("kmeans {data} {work}/out {k} 300 0 {start} 0"),
          sklearn_on_mlt_kernel("kmeans {data} {work}/out {k} 300 0 {start} 0"),
          peer("kmeans-faiss {data} {work}/out {k} {iterations@mlt} {start} 0", "FAISS", "FAISS", main=True,
               compare=Compare(cmp.kmeans_inertia, 1e-4, "scikit-learn"))],
         Compare(cmp.kmeans_inertia, 1e-9, "scikit-learn"), table=True,
         notes="tol 0 on both sides: run until no assignment changes (mlt's --tol and scikit-learn's tol are "
               "otherwise in different units). FAISS has no early stop: it runs exactly mlt's Lloyd iterations, "
               "float32, on every row (max_points_per_centroid above n). Per pass: Lloyd seconds / passes "
               "(mlt: iterations + 1; scikit-learn: n_iter_; FAISS: its iterations)."),

    Case("kmeans-seeded", "k-means, {n:,} × {p}, k = {k}, each side seeding itself",
         "mlt kmeans fit vs scikit-learn KMeans, each seeding itself (k-means++, seed = run), n_init 1, tol 0",
         KMEANS_SIZES, {"data": BLOBS},
         [mlt("{mlt} --timings kmeans fit {data} -k {k} --seed {seed} --n-init 1 --tol 0 --max-iter 300 "
              "-o {work}/model", report={"iterations": "info.iterations", "energy": "info.energy"}),
          sklearn("kmeans {data} {work}/out {k} 300 0 - {seed}"),
          sklearn_on_mlt_kernel("kmeans {data} {work}/out {k} 300 0 - {seed}")],
         Compare(cmp.kmeans_inertia, 2.0, "mlt"),
         notes="One k-means++ seeding may or may not find every blob, on either side: a single seed compares "
               "luck, not algorithms, so the runs use seeds 1, 2, ... and the tolerance only rules out a broken "
               "fit (an inertia more than three times mlt's). FAISS, which has no k-means++ seeding, is in the "
               "kmeans case, from the shared start."),

    Case("logreg", "logistic regression, binary, {n:,} × {p}",
         "mlt logreg fit vs LIBLINEAR -s 0 and scikit-learn LogisticRegression lbfgs, lambda 1 (C = 1), "
         "objectives compared",
         LOGREG_SIZES, {"data": LOGISTIC},
         [mlt("{mlt} logreg fit {data} --target y --lambda {lambda} -o {work}/model --timings", report=LOGREG_REPORT),
          Tool("liblinear", "LIBLINEAR -s 0", ["liblinear-train -s 0 -c 1 -B 1 -q {data.data.svm} {work}/model"],
               main=True, output="liblinear", compare=Compare(cmp.logreg_objective("multinomial"), 1e-3,
                                                               "scikit-learn")),
          sklearn("logreg {data} {work}/out {lambda} auto"),
          sklearn_on_mlt_kernel("logreg {data} {work}/out {lambda} auto")],
         Compare(cmp.logreg_objective("multinomial"), 1e-6, "scikit-learn"), table=True,
         notes="Every objective is evaluated by the same NumPy code from the saved weights. LIBLINEAR's -B 1 "
               "bias is penalized in its own objective, so its optimum differs slightly from this one: a looser "
               "tolerance."),

    Case("logreg-multi", "logistic regression, {classes} classes, {n:,} × {p}",
         "mlt logreg fit multinomial vs scikit-learn multinomial lbfgs; mlt --multiclass ovr vs LIBLINEAR -s 0",
         sizes(dict(n=200_000, p=50, classes=10, **{"lambda": 1.0}),
               dict(n=10_000, p=50, classes=10, **{"lambda": 1.0})),
         {"data": {"gen": "softmax", "n": "{n}", "p": "{p}", "classes": "{classes}", "seed": 20261122}},
         [mlt("{mlt} logreg fit {data} --target y --lambda {lambda} -o {work}/model --timings", report=LOGREG_REPORT),
          mlt("{mlt} logreg fit {data} --target y --lambda {lambda} --multiclass ovr -o {work}/model --timings",
              report=LOGREG_REPORT, name="mlt ovr", label="mlt --multiclass ovr", main=False,
              compare=Compare(cmp.logreg_objective("ovr"), 1e-6, "mlt ovr")),
          sklearn("logreg {data} {work}/out {lambda} multinomial"),
          sklearn_on_mlt_kernel("logreg {data} {work}/out {lambda} multinomial"),
          Tool("liblinear", "LIBLINEAR -s 0 (one-vs-rest)",
               ["liblinear-train -s 0 -c 1 -B 1 -q {data.data.svm} {work}/model"], output="liblinear",
               compare=Compare(cmp.logreg_objective("ovr"), 1e-3, "mlt ovr"))],
         Compare(cmp.logreg_objective("multinomial"), 1e-6, "scikit-learn"), table=True,
         notes="LIBLINEAR's -s 0 is one-vs-rest for more than two classes: it is compared with mlt's ovr fit, "
               "in the one-vs-rest objective."),

    Case("knn", "kNN, {n_train:,} × {p}, {n_query:,} queries, k = {k}",
         "mlt knn fit + predict vs scikit-learn KNeighborsClassifier (brute, kd_tree) and FAISS IndexFlatL2, "
         "predictions compared",
         sizes(dict(n_train=100_000, n_query=10_000, p=64, k=10), dict(n_train=5_000, n_query=500, p=64, k=10)),
         {"data": {"gen": "clusters", "n_train": "{n_train}", "n_query": "{n_query}", "p": "{p}", "classes": 10,
                   "seed": 20261122}},
         [mlt("{mlt} --timings knn fit {data.train} --target label -k {k} -o {work}/model",
              "{mlt} knn predict {work}/model {data.query} -o {work}/pred.csv", output="csv"),
          sklearn("knn brute {data.train} {data.query} {k} {work}/pred.csv", output="csv"),
          sklearn_on_mlt_kernel("knn brute {data.train} {data.query} {k} {work}/pred.csv", output="csv"),
          peer("knn-faiss {data.train} {data.query} {k} {work}/pred.csv", "FAISS", "FAISS IndexFlatL2",
               main=True, output="csv"),
          peer("knn kd_tree {data.train} {data.query} {k} {work}/pred.csv", "scikit-learn kd_tree",
               "scikit-learn kd_tree", output="csv", max_runs=1)],
         Compare(cmp.prediction_mismatch, 2e-3, "scikit-learn"), table=True,
         notes="n_jobs=-1: scikit-learn on both cores, as mlt. A vote can tie; mlt breaks a tie by the smaller "
               "summed distance, scikit-learn and the FAISS vote here by the lower label, hence a tolerance above "
               "0. scikit-learn's kd_tree at 64 dimensions is slow: it runs in the first round only."),

    Case("knn-lowdim", "kNN, {n_train:,} × {p}, {n_query:,} queries, k = {k}, k-d tree",
         "mlt knn k-d tree vs mlt brute force (identical output) and scikit-learn kd_tree at 3 dimensions",
         sizes(dict(n_train=200_000, n_query=20_000, p=3, k=10), dict(n_train=20_000, n_query=2_000, p=3, k=10)),
         {"data": {"gen": "clusters", "n_train": "{n_train}", "n_query": "{n_query}", "p": "{p}", "classes": 10,
                   "seed": 20261122}},
         [mlt("{mlt} --timings knn fit {data.train} --target label -k {k} --algorithm kdtree -o {work}/model",
              "{mlt} knn predict {work}/model {data.query} --neighbors -o {work}/pred.csv", output="csv"),
          mlt("{mlt} --timings knn fit {data.train} --target label -k {k} --algorithm brute -o {work}/model",
              "{mlt} knn predict {work}/model {data.query} --neighbors -o {work}/pred.csv", output="csv",
              name="mlt brute", label="mlt --algorithm brute", main=False,
              compare=Compare(cmp.same_bytes, 0, "mlt")),
          sklearn("knn kd_tree {data.train} {data.query} {k} {work}/pred.csv", output="csv")],
         Compare(cmp.untied_mismatch, 0, "mlt"),
         notes="The tree must win over brute force at 3 dimensions, with the same neighbours."),

    Case("krr", "kernel ridge, RBF, exact, n = {n:,}",
         "mlt krr fit (exact, rbf, no intercept) + predict vs scikit-learn KernelRidge, predictions compared",
         sizes(dict(n=20_000, n_test=10_000, gamma=0.1, **{"lambda": 0.1}),
               dict(n=2_000, n_test=1_000, gamma=0.1, **{"lambda": 0.1})),
         {"data": {"gen": "krr", "n": "{n}", "n_test": "{n_test}", "seed": 1}},
         [mlt("{mlt} --timings krr fit {data.train} --kernel rbf --gamma {gamma} --lambda {lambda} --no-intercept "
              "-o {work}/model", "{mlt} krr predict {work}/model {data.test} -o {work}/pred.csv", output="csv"),
          sklearn("krr {data.train} {data.test} {work}/out {gamma} {lambda}"),
          sklearn_on_mlt_kernel("krr {data.train} {data.test} {work}/out {gamma} {lambda}")],
         Compare(cmp.predictions_rel(1.0), 1e-6, "scikit-learn"), table=True,
         notes="--no-intercept: KernelRidge's model. Both read, fit, save and predict the held-out rows."),

    Case("krr-nystrom", "kernel ridge, Nyström M = {m:,}, n = {n:,}",
         "mlt krr fit --nystrom (uniform and kmeans++ landmarks) vs the exact fit: held-out RMSE",
         sizes(dict(n=20_000, n_test=10_000, m=2_000, gamma=0.1, **{"lambda": 0.1}),
               dict(n=2_000, n_test=1_000, m=500, gamma=0.1, **{"lambda": 0.1})),
         {"data": {"gen": "krr", "n": "{n}", "n_test": "{n_test}", "seed": 1}},
         [mlt("{mlt} --timings krr fit {data.train} --kernel rbf --gamma {gamma} --lambda {lambda} --no-intercept "
              "-o {work}/model", name="mlt exact", label="mlt, exact", output="csv",
              after=["{mlt} krr predict {work}/model {data.test} -o {work}/pred.csv"]),
          mlt("{mlt} --timings krr fit {data.train} --kernel rbf --gamma {gamma} --lambda {lambda} --no-intercept "
              "--nystrom {m} -o {work}/model", name="mlt nystrom", label="mlt --nystrom", main=False, output="csv",
              after=["{mlt} krr predict {work}/model {data.test} -o {work}/pred.csv"]),
          mlt("{mlt} --timings krr fit {data.train} --kernel rbf --gamma {gamma} --lambda {lambda} --no-intercept "
              "--nystrom {m} --landmarks kmeans++ -o {work}/model", name="mlt nystrom kmeans++",
              label="mlt --nystrom --landmarks kmeans++", main=False, output="csv",
              after=["{mlt} krr predict {work}/model {data.test} -o {work}/pred.csv"])],
         Compare(cmp.rmse_against, 0.05, "mlt exact")),

    Case("krr-nystrom-large", "kernel ridge, Nyström M = {m:,}, n = {n:,}",
         "mlt krr fit --nystrom at a size the exact fit cannot hold: fit time, held-out RMSE against the noise",
         sizes(dict(n=1_000_000, n_test=10_000, m=2_000, gamma=0.1, noise=0.1, **{"lambda": 0.1}),
               dict(n=10_000, n_test=1_000, m=500, gamma=0.1, noise=0.1, **{"lambda": 0.1})),
         {"data": {"gen": "krr", "n": "{n}", "n_test": "{n_test}", "seed": 3}},
         [mlt("{mlt} --timings krr fit {data.train} --kernel rbf --gamma {gamma} --lambda {lambda} --no-intercept "
              "--nystrom {m} -o {work}/model", output="csv",
              after=["{mlt} krr predict {work}/model {data.test} -o {work}/pred.csv"])],
         Compare(cmp.rmse_over_noise, 1.0),
         notes="The tolerance only rules out a broken fit (an RMSE above twice the noise the generator planted): "
               "lambda is fixed, so at small n the penalty, not the approximation, sets the RMSE."),

    Case("svm-linear", "linear SVM, hinge, {n:,} × {p}",
         "mlt svm fit vs LIBLINEAR -s 3 and scikit-learn LinearSVC at the same stopping test, objectives "
         "against mlt's certified lower bound",
         LOGREG_SIZES, {"data": LOGISTIC},
         [mlt("{mlt} --timings svm fit {data} --target y --lambda 1 --tol 0.1 -o {work}/model", report=SVM_REPORT,
              name="mlt --tol 0.1", label="mlt --tol 0.1", compare=Compare(cmp.svm_objective, 1e-2, "mlt")),
          mlt("{mlt} --timings svm fit {data} --target y --lambda 1 -o {work}/model", main=False,
              report=SVM_REPORT),
          Tool("liblinear", "LIBLINEAR -s 3", ["liblinear-train -s 3 -c 1 -B 1 -e 0.1 {data.data.svm} {work}/model"],
               main=True, output="liblinear", compare=Compare(cmp.svm_objective, 1e-2, "mlt")),
          Tool("liblinear read", "LIBLINEAR -s 3 -e 1e9 (its read)",
               ["liblinear-train -s 3 -c 1 -B 1 -e 1e9 {data.data.svm} {work}/model"], compare=None),
          peer("linear-svc {data} 0.1 {work}/out", "scikit-learn", "scikit-learn LinearSVC",
               compare=Compare(cmp.svm_objective, 1e-2, "mlt"))],
         Compare(cmp.svm_objective, 1e-4, "mlt"), table=True,
         notes="The same data as logreg. Intercept as LIBLINEAR's -B 1 (a regularized bias, which mlt's linear SVM "
               "solves). Every solver stops when max PG - min PG of the dual's projected gradients is <= tol: mlt "
               "--tol 0.1, liblinear -e 0.1, LinearSVC tol=0.1 (mlt also requires each |PG| <= tol); mlt at its "
               "default tol gives the optimum's lower bound. liblinear-train cannot report its fit alone: its run "
               "with -e 1e9 stops after one pass, an estimate of its read."),

    Case("svm-rbf", "kernel SVM, RBF, {n:,} × {p}",
         "mlt svm fit --kernel rbf (all cores, and one thread) vs LIBSVM svm-train and scikit-learn SVC, "
         "decision values on held-out rows",
         sizes(dict(n=20_000, n_test=5_000, p=20, gamma=0.05), dict(n=2_000, n_test=1_000, p=20, gamma=0.05)),
         {"data": {"gen": "bands", "n": "{n}", "n_test": "{n_test}", "seed": 20261123}},
         [mlt("{mlt} --timings svm fit {data.train} --target y --kernel rbf --gamma {gamma} --lambda 1 --tol 1e-3 "
              "--cache-mb 200 -o {work}/model", report=SVM_REPORT),
          mlt("{mlt} --timings --threads 1 svm fit {data.train} --target y --kernel rbf --gamma {gamma} --lambda 1 "
              "--tol 1e-3 --cache-mb 200 -o {work}/model", name="mlt 1 thread", label="mlt --threads 1",
              main=False),
          Tool("libsvm", "LIBSVM", ["svm-train -t 2 -c 1 -g {gamma} -e 1e-3 -m 200 -h 1 {data.train.svm} "
                                    "{work}/model"], main=True, output="libsvm"),
          peer("svc {data.train} {work}/out {gamma}", "scikit-learn", "scikit-learn SVC")],
         Compare(cmp.svm_decision, 1e-2, "scikit-learn"), table=True,
         notes="C = 1, gamma = 1/p (scikit-learn's 'scale' on unit-variance data), tol 1e-3 (LIBSVM's eps), "
               "200 MB kernel cache, shrinking on. LIBSVM uses one core: mlt also runs on one thread."),

    Case("kpca", "kernel PCA, RBF, n = {n:,}, 10 components",
         "mlt pca fit --kernel rbf (auto and dense eigensolver) vs scikit-learn KernelPCA dense and arpack, "
         "scores compared",
         sizes(dict(n=10_000, gamma=0.05), dict(n=600, gamma=0.05)),
         {"data": {"gen": "manifold", "n": "{n}", "seed": 0}},
         [mlt("{mlt} pca fit {data} --kernel rbf --gamma {gamma} -k 10 -o {work}/model --timings", output="csv",
              after=["{mlt} pca transform {work}/model {data} -o {work}/pred.csv"]),
          mlt("{mlt} pca fit {data} --kernel rbf --gamma {gamma} -k 10 --eigen-solver dense -o {work}/model "
              "--timings", name="mlt dense", label="mlt --eigen-solver dense", main=False, output="csv",
              after=["{mlt} pca transform {work}/model {data} -o {work}/pred.csv"]),
          peer("kpca {data} dense {gamma} {work}/out", "scikit-learn dense", "scikit-learn KernelPCA dense"),
          peer("kpca {data} arpack {gamma} {work}/out", "scikit-learn arpack", "scikit-learn KernelPCA arpack",
               main=True)],
         Compare(cmp.scores_up_to_sign, 1e-6, "scikit-learn dense"), table=True),

    Case("kpca-large", "kernel PCA, RBF, n = {n:,}, 10 components",
         "kpca at twice the rows: the dense solvers (O(n³)) in the first round only",
         sizes(dict(n=20_000, gamma=0.05), dict(n=800, gamma=0.05)),
         {"data": {"gen": "manifold", "n": "{n}", "seed": 0}},
         [mlt("{mlt} pca fit {data} --kernel rbf --gamma {gamma} -k 10 -o {work}/model --timings", output="csv",
              after=["{mlt} pca transform {work}/model {data} -o {work}/pred.csv"]),
          mlt("{mlt} pca fit {data} --kernel rbf --gamma {gamma} -k 10 --eigen-solver dense -o {work}/model "
              "--timings", name="mlt dense", label="mlt --eigen-solver dense", main=False, output="csv",
              after=["{mlt} pca transform {work}/model {data} -o {work}/pred.csv"], max_runs=1),
          peer("kpca {data} dense {gamma} {work}/out", "scikit-learn dense", "scikit-learn KernelPCA dense",
               max_runs=1),
          peer("kpca {data} arpack {gamma} {work}/out", "scikit-learn arpack", "scikit-learn KernelPCA arpack",
               main=True)],
         Compare(cmp.scores_up_to_sign, 1e-6, "scikit-learn arpack")),

    Case("perceptron", "perceptron, {n:,} × {p}, {epochs} epochs",
         "mlt perceptron fit --no-intercept vs scikit-learn Perceptron, same epochs and order: the same weights",
         sizes(dict(n=1_000_000, p=50, epochs=10), dict(n=10_000, p=50, epochs=10)),
         {"data": {"gen": "separable", "n": "{n}", "p": "{p}", "margin": 0.02, "seed": 20261123}},
         [mlt("{mlt} --timings perceptron fit {data} --target y --no-intercept --max-epochs {epochs} "
              "-o {work}/model", report={"epochs": "info.epochs", "corrections": "info.corrections"}),
          mlt("{mlt} perceptron fit {data} --target y --no-intercept --max-epochs 1 -o {work}/model",
              name="mlt 1 epoch", label="mlt, one epoch", main=False, compare=None),
          peer("perceptron {data} {epochs} 0 {work}/out", "scikit-learn", "scikit-learn Perceptron", main=True)],
         Compare(cmp.perceptron_weights, 1e-9, "scikit-learn"), table=True,
         notes="Fewer epochs than either needs to separate the data, so both run them all; data order (mlt's "
               "default, scikit-learn shuffle=False), eta 1: the same update w += y x on each mistake. mlt's fit "
               "CPU time: this run's less the one-epoch run's, over epochs - 1."),

    Case("perceptron-intercept", "perceptron with intercept, {n:,} × {p}, {epochs} epochs",
         "mlt perceptron fit (b += y R²) vs scikit-learn Perceptron(fit_intercept=True) (b += y): training error",
         sizes(dict(n=1_000_000, p=50, epochs=10), dict(n=10_000, p=50, epochs=10)),
         {"data": {"gen": "separable", "n": "{n}", "p": "{p}", "margin": 0.02, "seed": 20261123}},
         [mlt("{mlt} --timings perceptron fit {data} --target y --max-epochs {epochs} -o {work}/model",
              report={"epochs": "info.epochs", "corrections": "info.corrections"}),
          mlt("{mlt} perceptron fit {data} --target y --max-epochs 1 -o {work}/model",
              name="mlt 1 epoch", label="mlt, one epoch", main=False, compare=None),
          peer("perceptron {data} {epochs} 1 {work}/out", "scikit-learn", "scikit-learn Perceptron", main=True)],
         Compare(cmp.training_error, 0.02, "scikit-learn"),
         notes="The same work per sample, different bias updates, so different mistakes."),

    Case("smoother", "kernel smoother, {n_train:,} × 10, {n_query:,} queries",
         "mlt smoother fit + predict (Gaussian window) vs a blocked NumPy implementation and scikit-learn "
         "KernelDensity x 2",
         sizes(dict(n_train=100_000, n_query=10_000, h=1), dict(n_train=2_000, n_query=200, h=1)),
         {"data": {"gen": "smooth", "n_train": "{n_train}", "n_query": "{n_query}", "seed": 20261124}},
         [mlt("{mlt} --timings smoother fit {data.train} --target y --bandwidth {h} -o {work}/model",
              "{mlt} smoother predict {work}/model {data.query} -o {work}/pred.csv", output="csv"),
          peer("smoother-numpy {data.train} {data.query} {h} {work}/out", "NumPy", "NumPy, blocked", main=True),
          peer("smoother-kde {data.train} {data.query} {h} {work}/out", "scikit-learn",
               "scikit-learn KernelDensity x 2", compare=Compare(cmp.predictions_rel(0.0), 1e-6, "NumPy"))],
         Compare(cmp.predictions_rel(0.0), 1e-8, "NumPy"), table=True,
         notes="h = 1 in unit-variance features: each query's window weighs dozens of rows."),

    Case("spectrum", "spectrum kernel, {n:,} sequences × {length:,}, k = {kmer}",
         "mlt pca fit --kernel spectrum (end to end) vs scikit-learn CountVectorizer + sparse X Xᵀ (the Gram "
         "matrix alone)",
         sizes(dict(n=5_000, length=1_000, kmer=5), dict(n=400, length=200, kmer=5)),
         {"data": {"gen": "dna", "n": "{n}", "length": "{length}", "seed": 0}},
         [mlt("{mlt} pca fit {data} --kernel spectrum --kmer {kmer} -k 2 -o {work}/model --timings", output="csv",
              after=["{mlt} pca transform {work}/model {data} -o {work}/pred.csv"]),
          peer("spectrum {data} {kmer}", "scikit-learn", "scikit-learn CountVectorizer + X Xᵀ", main=True,
               output="reported")],
         Compare(cmp.spectrum_scores, 1e-6),
         table=True,
         notes="mlt has no command that prints a Gram matrix alone: it is timed on one the Gram matrix dominates "
               "(encode, Gram matrix, centring, two eigenvectors, write the model with its strings)."),

    Case("cv-ridge", "ridge cv, {n:,} × {p}, {lambdas} lambdas × {folds} folds",
         "mlt ridge cv vs scikit-learn GridSearchCV(Ridge) and RidgeCV on the same folds, mean scores compared",
         sizes(dict(n=200_000, p=100, folds=10, lambdas=50), dict(n=1_000, p=100, folds=10, lambdas=5)),
         {"data": {"gen": "ridge_folds", "n": "{n}", "p": "{p}", "folds": "{folds}", "seed": 7}},
         [mlt("{mlt} ridge cv {data} --target y --folds-from fold --lambda 1e-3:1e3:{lambdas} --json",
              output="json"),
          peer("cv grid-ridge {data} {lambdas}", "scikit-learn", "scikit-learn GridSearchCV", main=True, output="json"),
          peer("cv ridgecv-folds {data} {lambdas}", "scikit-learn RidgeCV", "scikit-learn RidgeCV(cv=folds)",
               output="json")],
         Compare(cmp.cv_scores(False), 1e-6, "mlt"), table=True,
         notes="The folds are the data's fold column (mlt --folds-from, scikit-learn PredefinedSplit). "
               "n_jobs=None: GridSearchCV's n_jobs=2 would run two BLAS-threaded fits at once on two cores."),

    Case("cv-ridge-loo", "ridge leave-one-out, {n:,} × {p}, {lambdas} lambdas",
         "mlt ridge cv --loo vs scikit-learn RidgeCV() (closed-form leave-one-out), mean scores compared",
         sizes(dict(n=200_000, p=100, folds=10, lambdas=50), dict(n=1_000, p=100, folds=10, lambdas=5)),
         {"data": {"gen": "ridge_folds", "n": "{n}", "p": "{p}", "folds": "{folds}", "seed": 7}},
         [mlt("{mlt} ridge cv {data} --target y --ignore fold --loo --lambda 1e-3:1e3:{lambdas} --json",
              output="json"),
          peer("cv ridgecv-loo {data} {lambdas}", "scikit-learn", "scikit-learn RidgeCV()", main=True, output="json")],
         Compare(cmp.cv_scores(False), 1e-6, "mlt")),

    Case("cv-knn", "knn cv, {n:,} × {p}, k = 1..{kmax} × {folds} folds",
         "mlt knn cv vs scikit-learn GridSearchCV(KNeighborsClassifier) on the same folds, accuracies compared",
         sizes(dict(n=20_000, p=30, folds=5, kmax=50), dict(n=600, p=30, folds=5, kmax=6)),
         {"data": {"gen": "classification_folds", "n": "{n}", "p": "{p}", "informative": 12, "redundant": 6,
                   "folds": "{folds}", "seed": 7}},
         [mlt("{mlt} knn cv {data} --target y --folds-from fold -k 1:{kmax} --json", output="json"),
          peer("cv grid-knn {data} {kmax}", "scikit-learn", "scikit-learn GridSearchCV", main=True, output="json")],
         Compare(cmp.cv_scores(True), 1e-12, "mlt")),

    Case("read", "CSV read alone, {n:,} × {p}",
         "mlt's CSV reader (file, one thread, pipes) vs pandas.read_csv, a bare conversion loop and the hashes",
         sizes(dict(n=1_000_000, p=50), dict(n=10_000, p=50)),
         {"data": {"gen": "reader", "n": "{n}", "p": "{p}", "seed": 0}},
         [mlt("{mlt} pca fit {data} -k 1 -o {work}/model --timings"),
          mlt("{mlt} --threads 1 pca fit {data} -k 1 -o {work}/model --timings", name="mlt 1 thread",
              label="mlt --threads 1", main=False),
          mlt("sh -c 'cat {data} | {mlt} pca fit - -k 1 -o {work}/model --timings'", name="mlt pipe cat",
              label="mlt from a pipe (cat)", main=False),
          mlt("sh -c 'pv -q {data} | {mlt} pca fit - -k 1 -o {work}/model --timings'", name="mlt pipe pv",
              label="mlt from a pipe (pv)", main=False, requires="pv"),
          mlt("{mlt_before} pca fit {data} -k 1 -o {work}/model --timings", name="MLT_BEFORE",
              label="MLT_BEFORE", main=False, requires="$MLT_BEFORE"),
          peer("read {data} default", "pandas", "pandas.read_csv", main=True, output="reported",
               compare=Compare(cmp.cell_sum, 1e-12)),
          peer("read {data} round_trip", "pandas round_trip", "pandas.read_csv round_trip", output="reported",
               compare=Compare(cmp.cell_sum, 1e-12)),
          Tool("bare loop", "bare from_chars loops", ["{bare_read} {data}"], output="reported",
               compare=Compare(cmp.cell_sum, 1e-12)),
          Tool("xxhsum", "xxhsum -H2 (XXH3-128)", ["xxhsum -H2 {data}"], compare=None),
          Tool("sha256", "openssl dgst -sha256", ["openssl dgst -sha256 {data}"], compare=None)],
         Compare(cmp.matrices("explained_variance"), 1e-9, "mlt"), table=True,
         notes="mlt's own clock (--timings, 'time: read') gives the read alone; the record's wall time is the "
               "whole pca fit -k 1. The bare loops convert the file already in memory, no checks: a floor."),

    Case("stream-ridge", "ridge --stream, {n:,} and {n_large:,} × {p}",
         "mlt ridge fit in memory vs --stream (the same model) and --stream on a file of 4x the rows: memory",
         STREAM_SIZES,
         {"data": REGRESSION, "large": {"gen": "regression", "n": "{n_large}", "p": "{p}", "seed": 2, "values": 0}},
         [mlt("{mlt} ridge fit {data} --solver primal -o {work}/model", name="mlt in memory",
              label="mlt, in memory"),
          mlt("{mlt} ridge fit {data} --stream -o {work}/model", name="mlt --stream", label="mlt --stream",
              main=False),
          mlt("{mlt} ridge fit {large} --stream -o {work}/model", name="mlt --stream, 4x",
              label="mlt --stream, 4x rows", main=False, compare=None)],
         Compare(cmp.matrices("coef", "intercept"), 1e-9, "mlt in memory")),

    Case("stream-pca", "pca --stream, {n:,} and {n_large:,} × {p}",
         "mlt pca fit -k 10 in memory (covariance) vs --stream and --stream on 4x the rows: memory",
         STREAM_SIZES,
         {"data": REGRESSION, "large": {"gen": "regression", "n": "{n_large}", "p": "{p}", "seed": 2, "values": 0}},
         [mlt("{mlt} pca fit {data} -k 10 --solver covariance -o {work}/model", name="mlt in memory",
              label="mlt, in memory"),
          mlt("{mlt} pca fit {data} -k 10 --stream -o {work}/model", name="mlt --stream", label="mlt --stream",
              main=False),
          mlt("{mlt} pca fit {large} -k 10 --stream -o {work}/model", name="mlt --stream, 4x",
              label="mlt --stream, 4x rows", main=False, compare=None)],
         Compare(cmp.pca_rows, 1e-9, "mlt in memory")),

    Case("stream-kmeans", "k-means --stream, {n:,} and {n_large:,} × {p}, k = 5",
         "mlt kmeans fit -k 5 in memory vs --stream (a pass per Lloyd iteration; the same model bit for bit)",
         STREAM_SIZES,
         {"data": REGRESSION, "large": {"gen": "regression", "n": "{n_large}", "p": "{p}", "seed": 2, "values": 0}},
         [mlt("{mlt} --timings kmeans fit {data} --ignore y -k 5 --max-iter 5 -o {work}/model",
              name="mlt in memory", label="mlt, in memory"),
          mlt("{mlt} --timings kmeans fit {data} --ignore y -k 5 --max-iter 5 --stream -o {work}/model",
              name="mlt --stream", label="mlt --stream", main=False),
          mlt("{mlt} --timings kmeans fit {large} --ignore y -k 5 --max-iter 5 --stream -o {work}/model",
              name="mlt --stream, 4x", label="mlt --stream, 4x rows", main=False, compare=None)],
         Compare(cmp.identical("centroids"), 0, "mlt in memory")),

    mpi_case("mpi-pca", "PCA", "pca fit {data} --ignore y -k 10", Compare(cmp.pca_rows, 1e-9, "mlt, 1 rank")),
    mpi_case("mpi-ridge", "ridge", "ridge fit {data}", Compare(cmp.matrices("coef", "intercept"), 1e-9, "mlt, 1 rank")),
    mpi_case("mpi-kmeans", "k-means||, k = 20", "kmeans fit {data} --ignore y -k 20 --init kmeans|| --max-iter 10 "
             "--seed 1", Compare(cmp.kmeans_rows, 1e-9, "mlt, 1 rank")),
    mpi_case("mpi-logreg", "logistic regression", "logreg fit {data} --standardize",
             Compare(cmp.matrices("coef", "intercept"), 1e-8, "mlt, 1 rank"),
             data={"gen": "regression", "n": "{n}", "p": "{p}", "seed": 1, "label": 1},
             extra=[mlt("{mlt} --timings logreg fit {data} --standardize --stream -o {work}/model",
                        name="mlt --stream", label="mlt --stream", main=False)]),

    Case("floor-blas", "BLAS floor, DGEMM {size}³ and XᵀX of {n:,} × {p}",
         "NumPy on mlt's OpenBLAS kernel: DGEMM's rate and one syrk of the ridge and pca shapes (a floor)",
         sizes(dict(size=4000, n=1_000_000, p=100), dict(size=1000, n=20_000, p=100)),
         {},
         [peer("blas {n} {p} {size}", "NumPy", "NumPy DGEMM and syrk", output="reported", compare=None,
               env={"OPENBLAS_CORETYPE": "{kernel}"})]),
]

BY_NAME = {c.name: c for c in CASES}
assert len(BY_NAME) == len(CASES), "case names must be unique"
for _c in CASES:
    assert len({t.name for t in _c.tools}) == len(_c.tools), _c.name
assert sum(c.table for c in CASES) <= 15, "the README's table has at most 15 rows"
