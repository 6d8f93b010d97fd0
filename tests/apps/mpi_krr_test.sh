#!/usr/bin/env bash
# The Nyström krr fit over MPI ranks (issue #16): `mpirun -np 1, 2, 3 mlt krr fit
# --nystrom M` gives the single-process model, -np 1 byte for byte (it is the
# single-process run), -np 2 and 3 with the same landmark rows and predictions within
# the bound tests/lib/krr_test.cpp derives for a different order of the sums
# (same_krr, same_model.sh); only rank 0 speaks and writes; a bad cell in the last
# rank's part stops every rank with its file:line:column (status 65, no model); what
# needs every row at once (exact krr, kmeans++ landmarks) is refused on every rank
# alike, said once (status 2).
source "$(dirname "$0")/lib.sh" "$@"

# shellcheck source=mpi_run.sh disable=SC1091
source "$(dirname "$0")/mpi_run.sh"
# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"


"$PYTHON" - >smooth.csv <<'PY'
import math, random
random.seed(5)
print("x1,x2,x3,x4,y")
for i in range(600):
    x = [random.uniform(-2, 2) for _ in range(4)]
    y = math.sin(2 * x[0]) + x[1] ** 2 - x[2] * x[3] + random.gauss(0, 0.1)
    print(",".join(repr(v) for v in x + [y]))
PY
ny=(--kernel rbf --gamma 0.5 --lambda 0.1 --nystrom 40 --seed 11)
expect_status 0 "krr in memory" "$MLT" krr fit smooth.csv "${ny[@]}" -o mem.krr
# -np 1 in a directory of its own, so that the command line the model records
# (-o m.krr) is the single-process run's.
"$MLT" krr fit "$WORK/smooth.csv" "${ny[@]}" -o m.krr
mkdir np1 && cd np1 && run mpi 1 "$MLT" krr fit "$WORK/smooth.csv" "${ny[@]}" -o m.krr && cd "$WORK"
check "krr -np 1: ran (exit $rc)" test "$rc" -eq 0
check "krr -np 1: the single-process model file, byte for byte" cmp -s np1/m.krr m.krr
for np in 2 3; do
  run mpi $np "$MLT" --timings krr fit smooth.csv "${ny[@]}" --chunk-size 2K -o np$np.krr
  check "krr -np $np: ran (exit $rc; $err)" test "$rc" -eq 0
  check "krr -np $np: one report, from rank 0 ($err)" test "$(count "(streamed|held) 600 rows in [0-9]+ chunks.* on $np ranks" "$err")" -eq 1
  check "krr -np $np: nothing on standard output" test -z "$out"
  check "krr -np $np = in memory (same landmarks, predictions within the bound)" same_krr np$np.krr mem.krr smooth.csv 1
done
"$MLT" krr fit smooth.csv "${ny[@]}" --no-intercept -o mem0.krr
expect_status 0 "krr --no-intercept -np 3" mpi 3 "$MLT" krr fit smooth.csv "${ny[@]}" --no-intercept -o np3_0.krr
check "krr --no-intercept -np 3 = in memory" same_krr np3_0.krr mem0.krr smooth.csv 1
expect_status 0 "krr --standardize -np 3" mpi 3 "$MLT" krr fit smooth.csv "${ny[@]}" --standardize -o np3std.krr
run "$MLT" krr predict np3std.krr smooth.csv
check "krr --standardize -np 3: 600 finite predictions" bash -c \
  '[ "$(wc -l <<<"$1")" -eq 601 ] && ! grep -qiE "nan|inf" <<<"$1"' _ "$out"

# A bad cell on line 1003 of 1004, in the last rank's part: every rank stops with its
# file:line:column, said once, status 65, no model.
"$PYTHON" -c '
import math
print("a,b,y")
for i in range(1000): print(f"{i % 13},{i % 7},{math.sin(i)}")
print("1,2,3")
print("4,oops,5")
print("6,7,8")' >late.csv
run mpi 3 "$MLT" krr fit late.csv --kernel rbf --nystrom 20 -o late.krr
check "a late bad cell under -np 3: status 65 (exit $rc)" test "$rc" -eq 65
check "a late bad cell under -np 3: its file:line:column, once ($err)" \
  test "$(count "^mlt krr fit: error: late.csv:1003:2: " "$err")" -eq 1
check "a late bad cell under -np 3: no model written" test ! -e late.krr

# What needs every row at once is refused on every rank alike, said once.
run mpi 2 "$MLT" krr fit smooth.csv --kernel rbf -o x.krr
check "exact krr -np 2: status 2 (exit $rc)" test "$rc" -eq 2
check "exact krr -np 2: says why, once ($err)" test "$(count "exact kernel ridge needs all the rows in memory" "$err")" -eq 1
run mpi 2 "$MLT" krr fit smooth.csv "${ny[@]}" --landmarks kmeans++ -o x.krr
check "kmeans++ landmarks -np 2: status 2 (exit $rc)" test "$rc" -eq 2
check "kmeans++ landmarks -np 2: says why, once ($err)" test "$(count "landmarks kmeans\+\+ chooses" "$err")" -eq 1
check "no model after the refusals" test ! -e x.krr

finish
