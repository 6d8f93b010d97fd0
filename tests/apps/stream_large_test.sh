#!/usr/bin/env bash
# The large part of stream_test.sh (the full tier's: 200,000 rows, ~21 MB): predict and
# transform read their input 16 MiB at a time and write as they go, so it takes a file
# of more than one chunk: the same bytes as the file read whole, from a pipe too, and a
# late error naming its line in the whole file.
source "$(dirname "$0")/lib.sh" "$@"

# --- predict and transform read their input a chunk at a time and write as they go:
# the same bytes as the whole file read at once (--na drop reads it whole; with no
# missing cell it drops nothing). 200,000 rows, ~21 MB: more than one 16 MiB chunk.
awk 'BEGIN { srand(11); print "id,x1,x2,x3,x4,y,cls"
  for (i = 1; i <= 200000; i++) { a = rand(); b = rand(); c = rand(); d = rand()
    printf "r%d,%.15g,%.15g,%.15g,%.15g,%.6g,%s\n", i, a, b, c, d, a + 2 * b - c, (a + b > 1 ? "hi" : "lo") } }' >wide.csv
head -2001 wide.csv >wide-train.csv
check "the streamed input spans chunks (> 16 MiB)" test "$(wc -c <wide.csv)" -gt 16777216
"$MLT" ridge fit wide-train.csv --ignore id,cls --target y -o w.ridge 2>/dev/null
"$MLT" kmeans fit wide-train.csv --ignore id,cls,y -k 4 -o w.km 2>/dev/null
"$MLT" logreg fit wide-train.csv --ignore id,y --target cls -o w.logreg 2>/dev/null
"$MLT" knn fit wide-train.csv --ignore id,y --target cls -k 3 -o w.knn 2>/dev/null
same_streamed() {  # NAME ARGS...: the command streamed = read whole
  local name=$1; shift
  "$@" -o streamed.csv 2>/dev/null
  "$@" --na drop -o whole.csv 2>/dev/null
  check "$name: streamed output = whole-file output, byte for byte" cmp -s streamed.csv whole.csv
  check "$name: one row per input row" test "$(wc -l <streamed.csv)" -eq 200001
}
same_streamed "ridge predict --keep id" "$MLT" ridge predict w.ridge wide.csv --ignore cls --keep id
same_streamed "kmeans predict --distances" "$MLT" kmeans predict w.km wide.csv --ignore id,cls,y --distances
same_streamed "logreg predict --proba" "$MLT" logreg predict w.logreg wide.csv --ignore id,y --proba
same_streamed "knn predict --neighbors" "$MLT" knn predict w.knn wide.csv --ignore id,y --neighbors
"$MLT" pca fit wide-train.csv --ignore id,cls,y -k 2 -o w.pca 2>/dev/null
same_streamed "pca transform --reconstruct" "$MLT" pca transform w.pca wide.csv --ignore id,cls,y --reconstruct
"$MLT" ridge predict w.ridge wide.csv --ignore cls --keep id -o from-file.csv 2>/dev/null
sh -c "cat wide.csv | '$MLT' ridge predict w.ridge - --ignore cls --keep id" >from-pipe.csv 2>/dev/null
check "ridge predict from a pipe: the same bytes as from the file" cmp -s from-pipe.csv from-file.csv
# An error in a later chunk: its line in the whole file, status 65, and no output file
# (the rows before it were written to the temporary, which is removed).
{ cat wide.csv; echo "r200001,0.5,zz,0.5,0.5,1,hi"; } >late-pred.csv
expect_error 65 "late-pred.csv:200002:" "ridge predict: a late error names its line" \
  "$MLT" ridge predict w.ridge late-pred.csv --ignore id,cls -o late-pred.out
check "ridge predict: no output after a late error" test ! -e late-pred.out

finish
