#!/usr/bin/env bash
# Streaming fits (--stream, --memory, --chunk-size) end to end: the streamed model
# equals the in-memory one (k-means: bit for bit, tests/lib/stream_kmeans_test.cpp) to
# the tolerance derived in tests/lib/stream_fit_test.cpp
# (4 n ε κ for ridge, κ the condition the model records; pca's axes against the
# in-memory covariance solver to 2 δ / gap, δ = 2 n ε (Σⱼ sdⱼ √n)²); many chunks, a
# quoted field spanning lines across chunk boundaries, standard input, the automatic
# switch past --memory, a late error naming its line in the whole file, refusals.
# Predict and transform over a file of more than one 16 MiB chunk: stream_large_test.sh
# (the full tier's).
source "$(dirname "$0")/lib.sh" "$@"

# shellcheck source=same_model.sh disable=SC1091
source "$(dirname "$0")/same_model.sh"

# Ridge on diabetes: in memory (primal), then streamed in chunks of 1 KiB and 100 bytes.
expect_status 0 "ridge in memory" "$MLT" ridge fit "$DATA/diabetes.csv" --solver primal -o mem.ridge
run "$MLT" --timings ridge fit "$DATA/diabetes.csv" --stream --chunk-size 1K -o s1k.ridge
check "ridge --stream: ran (exit $rc)" test "$rc" -eq 0
check "ridge --stream: many chunks" grep -qE "streamed 442 rows in [1-9][0-9] chunks" <<<"$err"
check "ridge --stream 1K = in memory" same_ridge s1k.ridge mem.ridge
check "ridge --stream: the same data_xxh128 as in memory" same_json s1k.ridge mem.ridge .provenance.data_xxh128
expect_status 0 "ridge --stream 100 bytes" "$MLT" ridge fit "$DATA/diabetes.csv" --stream --chunk-size 100 -o s100.ridge
check "ridge --stream 100 bytes = in memory" same_ridge s100.ridge mem.ridge
expect_status 0 "ridge --standardize --stream" "$MLT" ridge fit "$DATA/diabetes.csv" --standardize --stream --chunk-size 2K -o sstd.ridge
expect_status 0 "ridge --standardize in memory" "$MLT" ridge fit "$DATA/diabetes.csv" --standardize --solver primal -o mstd.ridge
check "ridge --standardize --stream = in memory" same_ridge sstd.ridge mstd.ridge

# Standard input: pca and ridge read their data once, so a pipe streams too; the
# chunks are the same bytes, so the model is the same bits as the file's.
cat "$DATA/diabetes.csv" | "$MLT" ridge fit - --stream --chunk-size 1K -o stdin.ridge
check "ridge --stream from stdin: the file's coefficients, bit for bit" same_json stdin.ridge s1k.ridge .matrices

# --memory: streams past the budget (16 bytes a cell), not below it. diabetes.csv has
# 4,873 cells of 3.8 bytes (18.6 KB: a need of ~78 KB): 40K streams, 100K does not,
# where the first rule (8 bytes per byte of file: 149 KB) streamed both.
run "$MLT" --timings ridge fit "$DATA/diabetes.csv" --memory 40K -o auto.ridge
check "--memory 40K: a file needing ~78 KB streams" grep -q "streamed 442 rows" <<<"$err"
run "$MLT" --timings ridge fit "$DATA/diabetes.csv" --memory 100K -o auto100.ridge
check "--memory 100K: read in memory" test "$rc" -eq 0 -a -z "$(grep streamed <<<"$err")"
run "$MLT" --timings ridge fit "$DATA/diabetes.csv" --memory 1G -o auto2.ridge
check "--memory 1G: read in memory" test "$rc" -eq 0 -a -z "$(grep streamed <<<"$err")"
expect_error 2 "--memory: expected a size" "--memory refuses a bad size" "$MLT" ridge fit "$DATA/diabetes.csv" --memory lots -o x.ridge
expect_error 2 "--chunk-size applies to a streamed fit" "--chunk-size alone is refused" \
  "$MLT" ridge fit "$DATA/diabetes.csv" --chunk-size 1K -o x.ridge
expect_error 2 "--chunk-size: expected a size" "--chunk-size refuses 0" "$MLT" ridge fit "$DATA/diabetes.csv" --stream --chunk-size 0 -o x.ridge

# PCA on iris: streamed in 64-byte chunks against the in-memory covariance solver.
expect_status 0 "pca in memory" "$MLT" pca fit "$DATA/iris.csv" --ignore species --solver covariance -o mem.pca
expect_status 0 "pca --stream" "$MLT" pca fit "$DATA/iris.csv" --ignore species --stream --chunk-size 64 -o s.pca
check "pca --stream = in memory" same_pca s.pca mem.pca "$DATA/iris.csv"
run "$MLT" pca transform s.pca "$DATA/iris.csv"
check "pca: the streamed model transforms" test "$rc" -eq 0 -a "$(wc -l <<<"$out")" -eq 151

# A quoted text column whose cells span lines, cut by 16-byte chunks everywhere.
write_quoted_iris quoted.csv
expect_status 0 "pca quoted in memory" "$MLT" pca fit quoted.csv --ignore species,note --solver covariance -o qm.pca
expect_status 0 "pca quoted --stream" "$MLT" pca fit quoted.csv --ignore species,note --stream --chunk-size 16 -o qs.pca
check "quoted multi-line cells across chunks: the same model" same_pca qs.pca qm.pca "$DATA/iris.csv"
check "quoted: 150 rows read" test "$(model_json qs.pca | jq -r '.provenance.data_rows')" = 150

# A bad cell on line 1003 of 1004: the message names line 1003 of the file, not of
# its chunk, the status is 65 and no model is written.
"$PYTHON" -c '
print("a,b,y")
for i in range(1000): print(f"{i},{i % 7},{2 * i}")
print("1,2,3")
print("4,oops,5")
print("6,7,8")' >late.csv
expect_error 65 "late.csv:1003:2: " "a late error names its line in the whole file" \
  "$MLT" ridge fit late.csv --stream --chunk-size 50 -o late.ridge
check "no model written after the error" test ! -e late.ridge

# Refusals: what needs the rows in memory.
expect_error 2 "solver dual needs all the rows" "ridge --stream --solver dual" \
  "$MLT" ridge fit "$DATA/diabetes.csv" --stream --solver dual -o x.ridge
expect_error 2 "kernel PCA needs all the rows" "kernel pca --stream" \
  "$MLT" pca fit "$DATA/iris.csv" --ignore species --kernel rbf --stream -o x.pca
check "no model written after a refusal" test ! -e x.ridge -a ! -e x.pca

# k-means re-reads the file on every pass (exact Lloyd, k-means++ seeding one pass per
# centre) and gives the in-memory model bit for bit: every sum is made of the same
# values in the same order (tests/lib/stream_kmeans_test.cpp derives it), so the
# tolerance on the centroids is zero and the predictions are the same bytes.
expect_status 0 "kmeans in memory" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --n-init 3 -o mem.km
run "$MLT" --timings kmeans fit "$DATA/iris.csv" --ignore species -k 3 --n-init 3 --stream --chunk-size 100 -o s.km
check "kmeans --stream: ran (exit $rc)" test "$rc" -eq 0
check "kmeans --stream: many chunks, many passes" grep -qE "streamed 150 rows in [1-9][0-9] chunks, [1-9][0-9]+ passes" <<<"$err"
check "kmeans --stream: the in-memory centroids, bit for bit" same_json s.km mem.km .matrices
"$MLT" kmeans predict mem.km "$DATA/iris.csv" --distances -o mem.pred
"$MLT" kmeans predict s.km "$DATA/iris.csv" --distances -o s.pred
check "kmeans --stream: the same predictions and distances, byte for byte" cmp -s s.pred mem.pred
check "kmeans --stream: the same fit summary" same_json s.km mem.km .info
for init in random farthest; do
  "$MLT" kmeans fit "$DATA/wine.csv" --ignore cultivar -k 4 --init $init --standardize -o mem-$init.km 2>/dev/null
  expect_status 0 "kmeans --init $init --standardize --stream" \
    "$MLT" kmeans fit "$DATA/wine.csv" --ignore cultivar -k 4 --init $init --standardize --stream --chunk-size 1K -o s-$init.km
  check "kmeans --init $init --standardize --stream = in memory" same_json s-$init.km mem-$init.km .matrices
done
run "$MLT" --timings kmeans fit "$DATA/iris.csv" --ignore species -k 3 --n-init 3 --memory 1K -o auto.km
check "kmeans --memory 1K: a 4 KB file streams" grep -q "streamed 150 rows" <<<"$err"
check "kmeans --memory 1K: the in-memory model" same_json auto.km mem.km .matrices
# Standard input can be read once: refused, not spooled (a file larger than memory
# would go to disk behind the user's back); nothing written.
run sh -c "cat '$DATA/iris.csv' | '$MLT' kmeans fit - --ignore species -k 3 --stream -o x.km"
check "kmeans --stream from stdin: usage error" test "$rc" -eq 2
check "kmeans --stream from stdin: says why" grep -q "standard input can be read only once" <<<"$err"
run sh -c "cat '$DATA/iris.csv' | '$MLT' kmeans fit - --ignore species -k 3 --memory 1G -o x.km"
check "kmeans --memory from stdin: refused too" test "$rc" -eq 2
# --centroids streams too (tests/apps/mpi_kmeans_test.sh compares it with the
# in-memory fit); a file without the data's columns is refused as in memory.
expect_error 65 "mem.pred: no column named \"sepal_length\"" "kmeans --centroids --stream of a file without the columns" \
  "$MLT" kmeans fit "$DATA/iris.csv" --ignore species --centroids mem.pred --stream -o x.km
"$PYTHON" -c '
print("a,b")
for i in range(500): print(f"{i % 13},{i % 7}")
print("1,x")' >late-km.csv
expect_error 65 "late-km.csv:502:2: " "kmeans --stream: a late error names its line" \
  "$MLT" kmeans fit late-km.csv -k 3 --stream --chunk-size 64 -o late.km
check "kmeans: no model written after a refusal or an error" test ! -e x.km -a ! -e late.km

finish
