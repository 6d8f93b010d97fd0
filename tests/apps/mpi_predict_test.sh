#!/usr/bin/env bash
# Prediction under MPI (issue #16): `mpirun -np N mlt <algo> predict` (and pca
# transform) on N = 1, 2, 3 ranks writes the single process's bytes, to -o or to
# standard output: each rank predicts its own byte range of DATA and rank 0 writes the
# parts in input order. kNN searches by shards of its training set instead, merged
# with the single search's tie rule (distance, then training row), so the neighbours,
# and every prediction, are the single process's: classification and regression,
# 1/d² weights, exact ties across shards, a kernel distance over several Gram blocks.
# A bad cell on one rank stops all with its file:line:column (65), nothing written;
# standard input is refused (2); a rank killed mid-run fails the job, with no output.
source "$(dirname "$0")/lib.sh" "$@"
# shellcheck source=mpi_run.sh disable=SC1091
source "$(dirname "$0")/mpi_run.sh"


# same_bytes NAME REF CMD...: CMD on 1, 2 and 3 ranks writes REF's bytes, with -o
# (appended to CMD) and, on 3 ranks, on standard output.
same_bytes() {
  local name=$1 ref=$2 np
  shift 2
  for np in 1 2 3; do
    run mpi $np "$@" -o "np$np.$name"
    check "$name -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
    check "$name -np $np: the single process's bytes" cmp -s "np$np.$name" "$ref"
  done
  run mpi 3 "$@"
  check "$name -np 3 to standard output: the single process's bytes (exit $rc; $err)" \
    test "$rc" -eq 0 -a "$out" = "$(cat "$ref")"
}

# The unsupervised and linear models, on data cut into 3 parts at rows of their own.
"$MLT" ridge fit "$DATA/diabetes.csv" -o d.ridge
"$MLT" ridge predict d.ridge "$DATA/diabetes.csv" -o ridge.ref
same_bytes ridge ridge.ref "$MLT" ridge predict d.ridge "$DATA/diabetes.csv"
"$MLT" logreg fit "$DATA/iris.csv" --target species -o i.logreg
"$MLT" logreg predict i.logreg "$DATA/iris.csv" --proba --keep species -o logreg.ref
same_bytes logreg logreg.ref "$MLT" logreg predict i.logreg "$DATA/iris.csv" --proba --keep species
"$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 -o i.km
"$MLT" kmeans predict i.km "$DATA/iris.csv" --distances -o kmeans.ref
same_bytes kmeans kmeans.ref "$MLT" kmeans predict i.km "$DATA/iris.csv" --distances
"$MLT" pca fit "$DATA/iris.csv" --ignore species -k 2 -o i.pca
"$MLT" pca transform i.pca "$DATA/iris.csv" -o pca.ref
same_bytes pca pca.ref "$MLT" pca transform i.pca "$DATA/iris.csv"
# Quoted cells spanning lines: the rank cuts fall between records, never inside one.
write_quoted_iris() {
  "$PYTHON" - "$DATA/iris.csv" >"$1" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
w = csv.writer(sys.stdout, lineterminator="\n")
w.writerow(rows[0] + ["note"])
for i, r in enumerate(rows[1:]):
    w.writerow(r + ["line one\n" * (i % 3) + 'a "quoted", comma'])
PY
}
write_quoted_iris quoted.csv
"$MLT" pca transform i.pca quoted.csv --keep note -o quoted.ref
same_bytes quoted quoted.ref "$MLT" pca transform i.pca quoted.csv --keep note

# Large enough that one process reads DATA in several chunks and a rank sends its part
# in several blocks (RankOrderedCsv::kBlock, 4 MiB): 600,000 rows.
"$PYTHON" -c '
import random
random.seed(5)
print("a,b,y")
for i in range(600000): print(f"{random.random():.6f},{i % 97},{i % 13}")' >big.csv
"$MLT" ridge fit big.csv -o big.ridge
"$MLT" ridge predict big.ridge big.csv -o big.ref
for np in 2 3; do
  expect_status 0 "big ridge predict -np $np" mpi $np "$MLT" ridge predict big.ridge big.csv -o big$np.pred
  check "big ridge predict -np $np: the single process's bytes" cmp -s big$np.pred big.ref
done

# kNN, classification: iris, 1/d² weights, standardized, with the vote shares and
# the neighbours' rows and distances.
"$MLT" knn fit "$DATA/iris.csv" --target species -k 5 --weights distance2 --standardize -o i.knn
"$MLT" knn predict i.knn "$DATA/iris.csv" --proba --neighbors -o knn.ref
same_bytes knn knn.ref "$MLT" knn predict i.knn "$DATA/iris.csv" --proba --neighbors
# Regression: diabetes, 1/d² weights, k-d tree and brute force.
for algo in kdtree brute; do
  "$MLT" knn fit "$DATA/diabetes.csv" --regression -k 7 --weights distance2 --algorithm $algo -o d.knn
  "$MLT" knn predict d.knn "$DATA/diabetes.csv" --neighbors -o knnr.ref
  same_bytes "knnr-$algo" knnr.ref "$MLT" knn predict d.knn "$DATA/diabetes.csv" --neighbors
done
# Ties (k = 3; 3 ranks hold rows 1-4, 5-8 and 9-12, 1-based): rows 2, 3 and 11 are
# the point (0,0); the query (1,0) is at distance 1 of them and of row 10; (4,4) at
# √2 of rows 1 and 12. The single search lists the lower row first (2, 3, 10 for
# (1,0)); so must the merge of the shards'.
"$PYTHON" - >tie.csv <<'PY'
pts = [(5, 5), (0, 0), (0, 0), (9, 9), (7, 1), (1, 7), (8, 8), (6, 2), (2, 6), (2, 0), (0, 0), (3, 3)]
print("x,y,label")
for i, (x, y) in enumerate(pts):
    print(f"{x},{y},{'ab'[i % 2]}")
PY
printf 'x,y\n0,0\n1,0\n4,4\n' >tieq.csv
"$MLT" knn fit tie.csv --target label -k 3 -o tie.knn
"$MLT" knn predict tie.knn tieq.csv --neighbors -o tie.ref
check "ties: the single search lists rows 2, 3, 11 for (0,0)" \
  test "$(sed -n 2p tie.ref | cut -d, -f2-4)" = "2,3,11"
same_bytes tie tie.ref "$MLT" knn predict tie.knn tieq.csv --neighbors
# A kernel distance over 2,500 training rows: two Gram blocks of the search, so the
# shards of 2 and 3 ranks are whole blocks (one rank gets none under -np 3).
"$PYTHON" -c '
import random
random.seed(7)
print("a,b,c,y")
for i in range(2500):
    a, b, c = (random.gauss(0, 1) for _ in range(3))
    print(f"{a:.5f},{b:.5f},{c:.5f},{a * b + c:.5f}")' >kern.csv
head -301 kern.csv >kernq.csv
"$MLT" knn fit kern.csv --regression -k 6 --weights distance --kernel rbf -o k.knn
"$MLT" knn predict k.knn kernq.csv --neighbors -o kern.ref
same_bytes kern kern.ref "$MLT" knn predict k.knn kernq.csv --neighbors

# A bad cell on line 1003 of 1004 (the last rank's part for ridge; read by every rank
# for knn): status 65, its file:line:column said once, nothing written, no temporary.
"$PYTHON" -c '
print("a,b,y")
for i in range(1000): print(f"{i},{i % 7},{2 * i}")
print("1,2,3")
print("4,oops,5")
print("6,7,8")' >late.csv
head -1002 late.csv >clean.csv
"$MLT" ridge fit clean.csv -o late.ridge
"$MLT" knn fit clean.csv --regression -k 3 -o late.knn
for algo in ridge knn; do
  run mpi 3 "$MLT" $algo predict late.$algo late.csv -o late.$algo.pred
  check "$algo: a late bad cell under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
  check "$algo: a late bad cell under -np 3: its file:line:column, once ($err)" \
    test "$(count "^mlt $algo predict: error: late.csv:1003:2: " "$err")" -eq 1
  check "$algo: a late bad cell under -np 3: nothing written" test -z "$(ls -A | grep late.$algo.pred)"
done
printf 'a,b\n' >empty.csv
run mpi 3 "$MLT" ridge predict late.ridge empty.csv -o empty.pred
check "a header only under -np 3: the reader's message, status 65 ($rc: $err)" \
  test "$rc" -eq 65 -a "$(count "empty.csv: no data rows \(only a header\)" "$err")" -eq 1 -a ! -e empty.pred

# Standard input cannot be split (nor read by every rank).
for algo in ridge knn; do
  model=late.$algo
  run mpi 2 "$MLT" $algo predict $model - -o x.pred <late.csv
  check "$algo: standard input under -np 2: refused (exit $rc)" test "$rc" -eq 2 -a ! -e x.pred
  check "$algo: standard input under -np 2: says why, once ($err)" test "$(count "standard input" "$err")" -eq 1
done
run mpi 2 "$MLT" ridge predict d.ridge "$DATA/diabetes.csv" --na drop
check "--na drop under -np 2: refused (exit $rc; $err)" test "$rc" -eq 2

# A rank killed mid-run (SIGKILL: no handler runs) fails the job within the timeout,
# leaves no output, and mpirun says which rank died. The run is long by its size (a
# brute-force search of 20,000 queries in 20,000 rows of 16 dimensions), and rank 1
# is killed once rank 0 has opened its temporary output (MPI is up, the search on).
# mpirun then ends the other ranks with SIGTERM, whose handler removes rank 0's
# temporary, and SIGKILL after odls_base_sigkill_timeout seconds (1 by default): 10
# here, so that a loaded machine cannot turn the removal into a race (a rank that is
# SIGKILLed leaves a hidden .OUT.tmp-* file, which the next run writing OUT removes).
"$PYTHON" -c '
import random
random.seed(11)
print(",".join(f"x{j}" for j in range(16)) + ",y")
for i in range(20000): print(",".join(f"{random.random():.4f}" for _ in range(17)))' >slow.csv
"$MLT" knn fit slow.csv --regression -k 5 --algorithm brute -o slow.knn
timeout 120 mpirun --oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
  --mca odls_base_sigkill_timeout 10 -np 3 "$MLT" knn predict slow.knn slow.csv -o slow.pred >kill.out 2>kill.err &
job=$!
# rank_pid R: the pid of rank R among this job's processes (timeout > mpirun > ranks).
rank_pid() {
  local p c
  for p in $(pgrep -P "$job"); do
    for c in $(pgrep -P "$p"); do
      tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" && echo "$c"
    done
  done
}
victim=
for _ in $(seq 600); do  # up to 60 s
  if ls -A | grep -q '^\.slow\.pred\.tmp-'; then victim=$(rank_pid 1); fi
  [ -n "$victim" ] && break
  sleep 0.1
done
check "killed rank: rank 1 found mid-run" test -n "$victim"
[ -n "$victim" ] && kill -9 "$victim"
wait "$job"
rc=$?
err=$(cat kill.err)
check "killed rank: mpirun failed without hanging (exit $rc; 124 is the timeout)" test "$rc" -ne 0 -a "$rc" -ne 124
check "killed rank: no output" test ! -e slow.pred
check "killed rank: mpirun says rank 1 died of signal 9 ($err)" \
  grep -qE "rank 1 .*(signal 9|Killed)" kill.err
sleep 1
check "killed rank: no temporary left ($(ls -A | grep tmp))" test -z "$(ls -A | grep '^\.slow\.pred\.tmp-')"

finish
