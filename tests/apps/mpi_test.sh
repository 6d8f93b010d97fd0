#!/usr/bin/env bash
# Data-parallel fits under MPI (issue #16, part 1): `mpirun -np 1, 2, 3 mlt ridge fit`
# and `pca fit` give the single-process model to the tolerance of a different
# summation order (the bounds of tests/apps/stream_test.sh, derived in
# tests/lib/stream_fit_test.cpp: the ranks' scatters are merged by the same Chan
# update as a stream's chunks, so only the order of the sums changes); -np 1 is the
# single-process run itself, byte for byte; only rank 0 speaks and writes; a bad cell
# in the last third of a file under -np 3 stops every rank with its file:line:column
# and status 65, no model written; shards (--shards) read alone and per rank give the
# same model; cv over ranks reports what one process reports, byte for byte; commands
# not yet distributed, and standard input, are refused (status 2). Predict under
# ranks: mpi_predict_test.sh.
source "$(dirname "$0")/lib.sh" "$@"

# shellcheck source=mpi_run.sh disable=SC1091
source "$(dirname "$0")/mpi_run.sh"
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"


# Ridge on diabetes: in memory (primal), then on 1, 2 and 3 ranks.
# -np 1 runs in a directory of its own, so that the command line the model records
# (-o m.ridge) is the single-process run's.
expect_status 0 "ridge in memory" "$MLT" ridge fit "$DATA/diabetes.csv" -o mem.ridge
"$MLT" ridge fit "$DATA/diabetes.csv" -o m.ridge
mkdir np1 && cd np1 && run mpi 1 "$MLT" ridge fit "$DATA/diabetes.csv" -o m.ridge && cd "$WORK"
check "ridge -np 1: ran (exit $rc)" test "$rc" -eq 0
check "ridge -np 1: the single-process model file, byte for byte" cmp -s np1/m.ridge m.ridge
for np in 2 3; do
  run mpi $np "$MLT" --timings ridge fit "$DATA/diabetes.csv" --chunk-size 2K -o np$np.ridge
  check "ridge -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
  check "ridge -np $np: one report, from rank 0" test "$(count "streamed 442 rows in [0-9]+ chunks on $np ranks" "$err")" -eq 1
  check "ridge -np $np: nothing on standard output" test -z "$out"
  check "ridge -np $np = in memory" same_ridge np$np.ridge mem.ridge
done
expect_status 0 "ridge --standardize in memory" "$MLT" ridge fit "$DATA/diabetes.csv" --standardize -o mstd.ridge
expect_status 0 "ridge --standardize -np 3" mpi 3 "$MLT" ridge fit "$DATA/diabetes.csv" --standardize -o np3std.ridge
check "ridge --standardize -np 3 = in memory" same_ridge np3std.ridge mstd.ridge
"$MLT" ridge predict mem.ridge "$DATA/diabetes.csv" -o mem.pred
"$MLT" ridge predict np3.ridge "$DATA/diabetes.csv" -o np3.pred
check "ridge -np 3: predicts as many rows" test "$(wc -l <np3.pred)" -eq "$(wc -l <mem.pred)"

# PCA on iris: the in-memory covariance solver against 1, 2 and 3 ranks.
expect_status 0 "pca in memory" "$MLT" pca fit "$DATA/iris.csv" --ignore species --solver covariance -o mem.pca
"$MLT" pca fit "$DATA/iris.csv" --ignore species --solver covariance -o m.pca
cd np1 && run mpi 1 "$MLT" pca fit "$DATA/iris.csv" --ignore species --solver covariance -o m.pca && cd "$WORK"
check "pca -np 1: ran (exit $rc)" test "$rc" -eq 0
check "pca -np 1: the single-process model file, byte for byte" cmp -s np1/m.pca m.pca
for np in 2 3; do
  expect_status 0 "pca -np $np" mpi $np "$MLT" pca fit "$DATA/iris.csv" --ignore species --chunk-size 256 -o np$np.pca
  check "pca -np $np = in memory" same_pca np$np.pca mem.pca "$DATA/iris.csv"
done
run "$MLT" pca transform np3.pca "$DATA/iris.csv"
check "pca -np 3: the model transforms" test "$rc" -eq 0 -a "$(wc -l <<<"$out")" -eq 151

# Quoted cells spanning lines: cuts are placed by quote parity, never inside a field.
write_quoted_iris quoted.csv
expect_status 0 "pca quoted -np 3" mpi 3 "$MLT" pca fit quoted.csv --ignore species,note --chunk-size 64 -o q3.pca
check "quoted multi-line cells split between 3 ranks: the same model" same_pca q3.pca mem.pca "$DATA/iris.csv"

# A bad cell on line 1003 of 1004, in the last rank's part: every rank stops with its
# file:line:column, said once (rank 0 speaks), status 65, no model.
"$PYTHON" -c '
print("a,b,y")
for i in range(1000): print(f"{i},{i % 7},{2 * i}")
print("1,2,3")
print("4,oops,5")
print("6,7,8")' >late.csv
run mpi 3 "$MLT" ridge fit late.csv -o late.ridge
check "a late bad cell under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
check "a late bad cell under -np 3: its file:line:column, once ($err)" \
  test "$(count "^mlt ridge fit: error: late.csv:1003:2: " "$err")" -eq 1
check "a late bad cell under -np 3: no model written" test ! -e late.ridge
check "a late bad cell under -np 3: no temporary left" test -z "$(ls -A | grep -i late.ridge)"
# A file with a header only: the reader's message, from the whole file.
printf 'a,b,y\n' >empty.csv
run mpi 3 "$MLT" ridge fit empty.csv -o empty.ridge
check "a header only under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
check "a header only under -np 3: the reader's message ($err)" \
  test "$(count "empty.csv: no data rows \(only a header\)" "$err")" -eq 1

# Shards (--shards): diabetes cut into three files, each with the header. Alone they
# stream in order; under 2 and 3 ranks each rank reads its own run of them: the
# in-memory model to the summation-order tolerance (same_ridge). A shard with other
# columns stops the fit with both names (65); a pattern matching nothing is a usage
# error (2), as is an empty list.
{
  head -1 "$DATA/diabetes.csv" >shard-1.csv
  cp shard-1.csv shard-2.csv
  cp shard-1.csv shard-3.csv
  tail -n +2 "$DATA/diabetes.csv" | sed -n '1,150p' >>shard-1.csv
  tail -n +2 "$DATA/diabetes.csv" | sed -n '151,300p' >>shard-2.csv
  tail -n +2 "$DATA/diabetes.csv" | sed -n '301,$p' >>shard-3.csv
}
expect_status 0 "ridge --shards alone" "$MLT" ridge fit --shards 'shard-*.csv' -o sh1.ridge
check "ridge --shards alone = in memory" same_ridge sh1.ridge mem.ridge
printf 'shard-1.csv\nshard-2.csv\nshard-3.csv\n' >shards.list
for np in 2 3; do
  run mpi $np "$MLT" --timings ridge fit --shards 'shard-*.csv' -o sh$np.ridge
  check "ridge --shards -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
  check "ridge --shards -np $np: 442 rows on $np ranks" \
    test "$(count "streamed 442 rows in [0-9]+ chunks on $np ranks" "$err")" -eq 1
  check "ridge --shards -np $np = in memory" same_ridge sh$np.ridge mem.ridge
  expect_status 0 "ridge --shards @list -np $np" mpi $np "$MLT" ridge fit --shards @shards.list -o shl$np.ridge
  check "ridge --shards @list -np $np = in memory" same_ridge shl$np.ridge mem.ridge
done
check "the model records the pattern as its source" grep -q '"data_file":"shard-\*.csv"' sh2.ridge
printf 'a,b,c\n1,2,3\n' >odd-2.csv
cp shard-1.csv odd-1.csv
run mpi 2 "$MLT" ridge fit --shards 'odd-*.csv' -o odd.ridge
check "a shard with other columns: status 65 (exit $rc)" test "$rc" -eq 65
check "a shard with other columns: names it and the first ($err)" \
  test "$(count "^mlt ridge fit: error: odd-2.csv: columns a, b differ from odd-1.csv's" "$err")" -eq 1
check "a shard with other columns: no model" test ! -e odd.ridge
run "$MLT" ridge fit --shards 'none-*.csv' -o none.ridge
check "a pattern matching nothing: status 2 (exit $rc; $err)" test "$rc" -eq 2
check "a pattern matching nothing: says so" test "$(count "no file matches \"none-\*.csv\"" "$err")" -eq 1
printf '\n' >empty.list
run "$MLT" ridge fit --shards @empty.list -o none.ridge
check "an empty list of shards: status 2, says so (exit $rc; $err)" \
  test "$rc" -eq 2 -a "$(count "empty.list: the list of shards names no file" "$err")" -eq 1

# cv over ranks: every rank reads the file and runs its contiguous run of the (fold,
# grid point) tasks; the scores are gathered, so the report is the single-process one
# byte for byte (a task's scores are the same bits on whichever rank computes them).
# The fast paths (ridge's λ path, logreg's warm starts) and the plain scorer alike.
cv_same() {
  local name=$1
  shift
  run "$MLT" "$@"
  local want=$out
  check "$name alone: ran (exit $rc; $err)" test "$rc" -eq 0
  for np in 2 3; do
    run mpi $np "$MLT" "$@"
    check "$name -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
    check "$name -np $np: the single-process report, byte for byte" test "$out" = "$want"
  done
}
cv_same "ridge cv" ridge cv "$DATA/diabetes.csv" --lambda 0.01,0.1,1,10 --folds 5 --json
cv_same "ridge cv, no fast path" ridge cv "$DATA/diabetes.csv" --lambda 0.1,1 --solver dual --folds 4
cv_same "logreg cv" logreg cv "$DATA/iris.csv" --lambda 0.01,0.1,1 --folds 3 --json
cv_same "kmeans cv" kmeans cv "$DATA/iris.csv" --ignore species -k 2:4 --folds 3 --seed 7
run mpi 3 "$MLT" ridge cv late.csv --lambda 1,2 --folds 3
check "cv with a bad cell under -np 3: status 65, said once (exit $rc; $err)" \
  test "$rc" -eq 65 -a "$(count "late.csv:1003:2: " "$err")" -eq 1
run mpi 2 "$MLT" ridge cv - --lambda 1 <"$DATA/diabetes.csv"
check "cv from standard input under -np 2: refused (exit $rc; $err)" test "$rc" -eq 2

# What is not distributed yet is refused, not run once per rank; so is standard input.
run mpi 2 "$MLT" perceptron fit "$DATA/iris.csv" -o x.perceptron
check "perceptron fit -np 2: status 2 (exit $rc)" test "$rc" -eq 2
check "perceptron fit -np 2: says what is distributed, once ($err)" \
  test "$(count "^mlt perceptron fit: error: under MPI \(2 ranks\) only cv \(.*kmeans.*\), fit \([a-z, ]*pca, ridge\), predict \(.*\) run distributed" "$err")" -eq 1
check "perceptron fit -np 2: nothing written" test ! -e x.perceptron
run mpi 2 "$MLT" ridge fit - -o x.ridge <"$DATA/diabetes.csv"
check "standard input under -np 2: refused (exit $rc)" test "$rc" -eq 2
check "standard input under -np 2: says why ($err)" test "$(count "standard input cannot be split" "$err")" -eq 1

finish
