#!/usr/bin/env bash
# mlt split: sizes, order, stratification, determinism, verbatim cells.
source "$(dirname "$0")/lib.sh" "$@"
IRIS=$DATA/iris.csv

expect_status 0 "split iris" "$MLT" split "$IRIS" --test 0.2 --seed 7 -o train.csv test.csv
check "train has 120 rows + header" test "$(wc -l < train.csv)" -eq 121
check "test has 30 rows + header" test "$(wc -l < test.csv)" -eq 31
check "same header" test "$(head -1 train.csv)" = "$(head -1 "$IRIS")"
check "rows are a partition of the input" test "$(tail -n +2 train.csv test.csv -q | sort | md5sum)" = "$(tail -n +2 "$IRIS" | sort | md5sum)"
check "original order kept within each part" "$PYTHON" - "$IRIS" <<'PY'
import sys
src = open(sys.argv[1]).read().splitlines()[1:]
for part in ("train.csv", "test.csv"):
    rows = iter(src)  # each part must be a subsequence of the input
    assert all(any(r == s for s in rows) for r in open(part).read().splitlines()[1:]), part
PY
expect_status 0 "same seed again" "$MLT" split "$IRIS" --test 0.2 --seed 7 -o train2.csv test2.csv
check "same seed, same split" cmp -s test.csv test2.csv
expect_status 0 "another seed" "$MLT" split "$IRIS" --test 0.2 --seed 8 -o train3.csv test3.csv
check "another seed, another split" sh -c "! cmp -s test.csv test3.csv"

expect_status 0 "stratified" "$MLT" split "$IRIS" --test 0.2 --stratify species -o s-train.csv s-test.csv
for cls in setosa versicolor virginica; do
  check "stratified: 10 $cls in test" test "$(grep -c ",$cls\$" s-test.csv)" -eq 10
done
expect_status 0 "count instead of fraction" "$MLT" split "$IRIS" --test 15 -o c-train.csv c-test.csv
check "15 test rows" test "$(wc -l < c-test.csv)" -eq 16

# Cells are copied verbatim; quoting survives; the delimiter is kept.
printf 'id;name;x\n1;"a;b";1.50\n2;c;NA\n3;"d ""q""";3\n4;e;4\n' > odd.csv
expect_status 0 "verbatim split" "$MLT" split odd.csv --test 2 -o o-train.csv o-test.csv
check "verbatim cells and delimiter" test "$(cat o-train.csv o-test.csv | grep -c -e '"a;b"' -e '1.50' -e 'NA' -e '"d ""q"""')" -eq 3

# On a scratch copy: were the refusal broken, the shipped data/iris.csv stays intact.
cp "$IRIS" iris-copy.csv
expect_error 2 "refusing to overwrite input" "output is input" "$MLT" split iris-copy.csv -o iris-copy.csv t.csv
check "input intact after the refusal" cmp -s iris-copy.csv "$IRIS"
expect_error 2 "must differ" "same two outputs" "$MLT" split "$IRIS" -o a.csv a.csv
expect_error 65 "leaves" "test share too large" "$MLT" split "$IRIS" --test 150 -o a.csv b.csv
expect_error 2 "no column named" "unknown stratify column" "$MLT" split "$IRIS" --stratify nope -o a.csv b.csv
finish
