#!/usr/bin/env bash
# k-means over MPI ranks (issue #16): `mpirun -np 1, 2, 3 mlt kmeans fit --init kmeans||`
# on iris, standardized wine and digits against the single-process fit:
# - -np 1 is the single-process run itself, byte for byte;
# - the seeding is the same for any number of ranks: the rows its centres were (info
#   seed_rows) are the single process's;
# - the labels `predict` gives are the same, byte for byte, and so are the iterations
#   and cluster sizes; the centroids are within the bound of a different summation
#   order, 2 γ(n_l) Σᵢ|xᵢⱼ| / n_l in the working space (lib/mlt/kmeans.hpp derives it);
#   and every row's margin (its two nearest centroids) is wider than what centroids
#   moved within that bound could close, so the same labels are no luck;
# - --centroids FILE over ranks, and with --stream on one process;
# - a bad cell in the last rank's part stops every rank with its file:line:column,
#   status 65, no model; a sequential seeding over ranks is refused (status 2).
source "$(dirname "$0")/lib.sh" "$@"
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"

# shellcheck source=mpi_run.sh disable=SC1091
source "$(dirname "$0")/mpi_run.sh"

# close_centroids A B DATA IGNORE: A's working centroids within the summation bound of
# B's (B: the single-process model), with the labels of B (predict) and B's centring
# (and scaling); and every row's margin wide enough for the labels to hold.
close_centroids() {
  "$MLT" kmeans predict "$2" "$3" -o labels.csv >/dev/null 2>&1 || return 1
  "$PYTHON" - "$(model_json "$1")" "$(model_json "$2")" "$3" "$4" labels.csv <<'PY'
import csv, json, math, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
ignore = set(sys.argv[4].split(","))
rows = list(csv.reader(open(sys.argv[3])))
keep = [j for j, name in enumerate(rows[0]) if name not in ignore]
X = [[float(r[j]) for j in keep] for r in rows[1:]]
labels = [int(r[0]) - 1 for r in list(csv.reader(open(sys.argv[5])))[1:]]
m = b["matrices"]
if "scaler_mean" in m:
    shift, scale = m["scaler_mean"]["values"][0], m["scaler_scale"]["values"][0]
else:
    shift, scale = m["mean"]["values"][0], [1.0] * len(keep)
W = [[(x - s) / c for x, s, c in zip(row, shift, scale)] for row in X]
Ca, Cb = a["matrices"]["working_centroids"]["values"], b["matrices"]["working_centroids"]["values"]
eps = 2.0 ** -52
k, p = len(Cb), len(Cb[0])
bound = []
for l in range(k):
    members = [w for w, y in zip(W, labels) if y == l]
    n = len(members)
    gamma = n * eps / (1 - n * eps)
    bound.append([2 * gamma * sum(abs(w[j]) for w in members) / n for j in range(p)])
    for j in range(p):
        # The working space is recomputed here with Python's rounding: a few ulps of
        # slack on each |x| (rounding of (x - shift) / scale) are far inside γ's factor 2.
        assert abs(Ca[l][j] - Cb[l][j]) <= bound[l][j], (l, j, Ca[l][j] - Cb[l][j], bound[l][j])
# Margins: moving centroid l by at most |b_l| changes ‖w − c_l‖² by at most
# 2 ‖w − c_l‖ |b_l| + |b_l|²; the nearest stays nearest if the gap to every other
# centroid exceeds the sum of both changes.
norm_b = [math.sqrt(sum(v * v for v in bl)) for bl in bound]
for w, y in zip(W, labels):
    d = [math.sqrt(sum((wj - cj) ** 2 for wj, cj in zip(w, c))) for c in Cb]
    for l in range(k):
        if l == y:
            continue
        slack = 2 * d[y] * norm_b[y] + norm_b[y] ** 2 + 2 * d[l] * norm_b[l] + norm_b[l] ** 2
        assert d[l] ** 2 - d[y] ** 2 > slack, (y, l, d[l] ** 2 - d[y] ** 2, slack)
PY
}

# fit_case NAME DATA IGNORE FLAGS...: single process, -np 1, 2 and 3, compared, seeded
# by $INIT (kmeans|| unless set).
fit_case() {
  local name=$1 data=$2 ignore=$3
  shift 3
  expect_status 0 "$name: one process" "$MLT" kmeans fit "$data" --ignore "$ignore" --init "${INIT:-kmeans||}" "$@" -o "$name.km"
  # -np 1 in a directory of its own, so that the command line the model records
  # (-o NAME.km) is the single-process run's.
  mkdir -p np1 && cd np1 && run mpi 1 "$MLT" kmeans fit "$data" --ignore "$ignore" --init "${INIT:-kmeans||}" "$@" -o "$name.km" &&
    cd "$WORK"
  check "$name -np 1: ran (exit $rc)" test "$rc" -eq 0
  check "$name -np 1: the single-process model file, byte for byte" cmp -s "np1/$name.km" "$name.km"
  "$MLT" kmeans predict "$name.km" "$data" -o "$name.pred"
  for np in 2 3; do
    run mpi $np "$MLT" --timings kmeans fit "$data" --ignore "$ignore" --init "${INIT:-kmeans||}" "$@" --chunk-size 1K \
      -o "$name-np$np.km"
    check "$name -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
    check "$name -np $np: one report, from rank 0" \
      test "$(grep -cE "^mlt: kmeans: k=" <<<"$err")" -eq 1
    check "$name -np $np: the seeding's rows are the single process's" \
      same_json "$name-np$np.km" "$name.km" .info.seed_rows
    check "$name -np $np: the same iterations" same_json "$name-np$np.km" "$name.km" .info.iterations
    check "$name -np $np: the same cluster sizes" same_json "$name-np$np.km" "$name.km" .info.cluster_sizes
    "$MLT" kmeans predict "$name-np$np.km" "$data" -o "$name-np$np.pred"
    check "$name -np $np: the same labels from predict, byte for byte" cmp -s "$name-np$np.pred" "$name.pred"
    # (Not on digits: `mlt info --json` leaves out the values of its 64-column
    # matrices; tests/lib/kmeans/ranks_test.cpp holds the bound in process.)
    [ "${name%-pp}" = digits ] || check "$name -np $np: centroids within the summation bound, margins wider" \
      close_centroids "$name-np$np.km" "$name.km" "$data" "$ignore"
  done
}

fit_case iris "$DATA/iris.csv" species -k 3
fit_case wine "$DATA/wine.csv" cultivar -k 3 --standardize --n-init 3
fit_case digits "$DATA/digits.csv" digit -k 10
# k-means++, the default seeding, over ranks: the same rows as one process (exact sums).
INIT=kmeans++ fit_case iris-pp "$DATA/iris.csv" species -k 3
INIT=kmeans++ fit_case digits-pp "$DATA/digits.csv" digit -k 10 --n-init 2

# Given centroids: rows 1, 51 and 101 of iris, nudged.
"$PYTHON" - "$DATA/iris.csv" >start.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(rows[0][:4])
for i in (1, 51, 101):
    w.writerow([float(v) + 0.25 for v in rows[i][:4]])
PY
expect_status 0 "--centroids: one process" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species --centroids start.csv -o c.km
"$MLT" kmeans predict c.km "$DATA/iris.csv" -o c.pred
expect_status 0 "--centroids --stream" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species --centroids start.csv \
  --stream --chunk-size 300 -o cs.km
"$MLT" kmeans predict cs.km "$DATA/iris.csv" --distances -o cs.dist
"$MLT" kmeans predict c.km "$DATA/iris.csv" --distances -o c.dist
check "--centroids --stream: the in-memory predictions and distances, byte for byte" cmp -s cs.dist c.dist
run mpi 3 "$MLT" kmeans fit "$DATA/iris.csv" --ignore species --centroids start.csv --chunk-size 500 -o c3.km
check "--centroids -np 3: ran (exit $rc; $err)" test "$rc" -eq 0
"$MLT" kmeans predict c3.km "$DATA/iris.csv" -o c3.pred
check "--centroids -np 3: the same labels" cmp -s c3.pred c.pred
check "--centroids -np 3: centroids within the bound" close_centroids c3.km c.km "$DATA/iris.csv" species

# A bad cell on line 1003 of 1004, in the last rank's part.
"$PYTHON" -c '
print("a,b")
for i in range(1000): print(f"{i % 13},{i % 7}")
print("1,2")
print("4,oops")
print("6,7")' >late.csv
run mpi 3 "$MLT" kmeans fit late.csv -k 3 --init 'kmeans||' -o late.km
check "a late bad cell under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
check "a late bad cell under -np 3: its file:line:column, once ($err)" \
  test "$(grep -cE "^mlt kmeans fit: error: late.csv:1003:2: " <<<"$err")" -eq 1
check "a late bad cell under -np 3: no model written" test ! -e late.km

# Farthest-first follows one row after another: refused over ranks, naming the others.
run mpi 2 "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --init farthest -o far.km
check "farthest -np 2: status 2 (exit $rc)" test "$rc" -eq 2
check "farthest -np 2: names kmeans++ and kmeans||, once ($err)" test "$(grep -c "kmeans++ or kmeans||" <<<"$err")" -eq 1
check "farthest -np 2: nothing written" test ! -e far.km

finish
