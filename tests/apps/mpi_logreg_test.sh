#!/usr/bin/env bash
# Logistic regression over MPI ranks (issue #16): `mpirun -np 1, 2, 3 mlt logreg fit`.
# -np 1 is the single-process run itself, byte for byte (in memory and --stream); on 2
# and 3 ranks the model gives the in-memory model's training probabilities within the
# sum of the two fits' proven bounds (same_logreg in same_model.sh, derived in
# tests/lib/logreg_test.cpp: only the order of the sums of f, ∇f and H v changes) and the
# same labels; multinomial (iris), one-vs-rest balanced (wine) and binary (penguins' sex,
# with rows dropped for missing values); quoted labels split between ranks; a bad cell
# in the last rank's part stops every rank with its file:line:column, status 65, no
# model; kernels are refused.
source "$(dirname "$0")/lib.sh" "$@"

# shellcheck source=mpi_run.sh disable=SC1091
source "$(dirname "$0")/mpi_run.sh"
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"


# Iris, multinomial, standardized. -np 1 runs in a directory of its own, so that the
# command line the model records (-o m.logreg) is the single-process run's.
mkdir np1
for mode in "" "--stream"; do
  name=m${mode:+-stream}
  "$MLT" logreg fit "$DATA/iris.csv" --standardize $mode -o $name.logreg
  cd np1 && run mpi 1 "$MLT" logreg fit "$DATA/iris.csv" --standardize $mode -o $name.logreg && cd "$WORK"
  check "iris -np 1 ${mode:-in memory}: ran (exit $rc; $err)" test "$rc" -eq 0
  check "iris -np 1 ${mode:-in memory}: the single-process model file, byte for byte" cmp -s np1/$name.logreg $name.logreg
done
for np in 2 3; do
  run mpi $np "$MLT" --timings logreg fit "$DATA/iris.csv" --standardize --chunk-size 512 -o np$np.logreg
  check "iris -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
  check "iris -np $np: one report, from rank 0" test "$(count "(streamed|held) 150 rows in [0-9]+ chunks?.* on $np ranks" "$err")" -eq 1
  check "iris -np $np: nothing on standard output" test -z "$out"
  check "iris -np $np = in memory (probabilities within both bounds, same labels)" \
    same_logreg np$np.logreg m.logreg "$DATA/iris.csv"
  expect_status 0 "iris --stream -np $np" mpi $np "$MLT" logreg fit "$DATA/iris.csv" --standardize --stream \
    --chunk-size 300 -o snp$np.logreg
  check "iris --stream -np $np = in memory" same_logreg snp$np.logreg m.logreg "$DATA/iris.csv"
done

# Wine, one-vs-rest with balanced class weights, on 3 ranks. Under ovr the normalization
# σ_k / Σ_j σ_j can amplify the binary problems' bounds by (K - 1) / Σ_j σ_j
# (LogRegParams::tol): that factor, the largest over the rows, from the in-memory
# model's own scores (coefficients of `mlt info --json`), is same_logreg's SLACK.
"$MLT" logreg fit "$DATA/wine.csv" --standardize --multiclass ovr --class-weight balanced -o wine.logreg
expect_status 0 "wine ovr balanced -np 3" mpi 3 "$MLT" logreg fit "$DATA/wine.csv" --standardize --multiclass ovr \
  --class-weight balanced --chunk-size 1K -o wine3.logreg
amplify=$("$PYTHON" - "$(model_json wine.logreg)" "$DATA/wine.csv" <<'PY'
import csv, json, math, sys
m = json.loads(sys.argv[1])["matrices"]
W, b = m["coef"]["values"], [r[0] for r in m["intercept"]["values"]]
mean, scale = m["scaler_mean"]["values"][0], m["scaler_scale"]["values"][0]
worst = 0.0
for r in list(csv.reader(open(sys.argv[2])))[1:]:
    z = [(float(v) - mu) / sd for v, mu, sd in zip(r[:-1], mean, scale)]
    sig = sum(1 / (1 + math.exp(-(sum(w * x for w, x in zip(Wk, z)) + bk))) for Wk, bk in zip(W, b))
    worst = max(worst, (len(W) - 1) / sig)
print(max(1.0, worst))
PY
)
check "wine ovr -np 3 = in memory (bounds times (K - 1) / Σσ <= $amplify)" \
  same_logreg wine3.logreg wine.logreg "$DATA/wine.csv" "$amplify"

# Penguins' sex, binary, features the four measurements; 11 rows with NA are dropped,
# on whichever rank holds them.
"$MLT" logreg fit "$DATA/penguins.csv" --target sex --ignore species,island --na drop --standardize --lambda 0.1 -o peng.logreg 2>/dev/null
cd np1 && run mpi 1 "$MLT" logreg fit "$DATA/penguins.csv" --target sex --ignore species,island --na drop --standardize \
  --lambda 0.1 -o peng.logreg && cd "$WORK"
check "penguins -np 1: the single-process model file, byte for byte" cmp -s np1/peng.logreg peng.logreg
grep -v ',NA' "$DATA/penguins.csv" >peng-complete.csv  # the rows compared: those fitted
for np in 2 3; do
  run mpi $np "$MLT" logreg fit "$DATA/penguins.csv" --target sex --ignore species,island --na drop --standardize --lambda 0.1 \
    --chunk-size 700 -o peng$np.logreg
  check "penguins -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
  check "penguins -np $np: the dropped rows said once ($err)" test "$(count "dropped 11 rows" "$err")" -eq 1
  check "penguins -np $np = in memory" same_logreg peng$np.logreg peng.logreg peng-complete.csv
done

# Quoted labels and a quoted text column whose cells span lines, cut between 3 ranks and
# in 64-byte chunks: the same classes and model.
write_quoted_labels quoted.csv
"$MLT" logreg fit quoted.csv --target species --ignore note --standardize -o qm.logreg
expect_status 0 "quoted labels -np 3" mpi 3 "$MLT" logreg fit quoted.csv --target species --ignore note --standardize \
  --chunk-size 64 -o q3.logreg
check "quoted labels -np 3: the same classes" same_json q3.logreg qm.logreg .data.classes
check "quoted labels -np 3 = in memory" same_logreg q3.logreg qm.logreg quoted.csv

# A bad cell on line 1003 of 1004, in the last rank's part: every rank stops with its
# file:line:column, said once, status 65, no model.
"$PYTHON" - >late.csv <<'PY'
print("a,b,y")
for i in range(1000):
    print(f"{i % 13},{i % 7},{'yes' if (i * 7919) % 11 > 4 else 'no'}")
print("1,2,yes")
print("4,oops,no")
print("6,7,yes")
PY
run mpi 3 "$MLT" logreg fit late.csv -o late.logreg
check "a late bad cell under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
check "a late bad cell under -np 3: its file:line:column, once ($err)" \
  test "$(count "^mlt logreg fit: error: late.csv:1003:2: " "$err")" -eq 1
check "a late bad cell under -np 3: no model written" test ! -e late.logreg
check "a late bad cell under -np 3: no temporary left" test -z "$(ls -A | grep -i late.logreg)"

# Kernels need the rows in memory: refused on every rank alike, said once.
run mpi 2 "$MLT" logreg fit "$DATA/iris.csv" --kernel rbf -o k.logreg
check "kernel -np 2: status 2 (exit $rc)" test "$rc" -eq 2
check "kernel -np 2: says why, once ($err)" test "$(count "kernel logistic regression needs the training rows in memory" "$err")" -eq 1
check "kernel -np 2: no model" test ! -e k.logreg

finish
