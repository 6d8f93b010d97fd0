#!/usr/bin/env bash
# predict and transform outputs that join back to their input: --keep copies input
# columns (an id, the true label) in front, verbatim; with --na drop and nothing kept,
# a "line" column says which input line each output row comes from. Expected outputs
# are the input's own cells (written here by awk from the input), not mlt's.
source "$(dirname "$0")/lib.sh" "$@"

# iris with an id column, one row missing a value (line 4) and one quoted label.
{
  echo 'id,sepal_length,sepal_width,petal_length,petal_width,species'
  tail -n +2 "$DATA/iris.csv" | awk -F, 'NR % 25 == 1 { printf "r%d,%s\n", NR, $0 }'
} > q.csv
sed -i '4s/^\(r[0-9]*\),[^,]*,/\1,,/' q.csv
sed -i '5s/,\([a-z]*\)$/,"\1"/' q.csv
expect_status 0 "fit logreg" "$MLT" logreg fit "$DATA/iris.csv" --standardize -o iris.logreg -q
expect_status 0 "fit ridge" "$MLT" ridge fit "$DATA/diabetes.csv" -o diab.ridge -q
expect_status 0 "fit knn" "$MLT" knn fit "$DATA/iris.csv" -k 5 -o iris.knn -q
expect_status 0 "fit kmeans" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 -o iris.km -q
expect_status 0 "fit pca" "$MLT" pca fit "$DATA/iris.csv" --ignore species -k 2 -o iris.pca -q

# The kept cells, as awk reads them from the input (rows with every value present).
awk -F, 'NR > 1 && $2 != "" { gsub(/"/, "", $6); print $1 "," $6 }' q.csv > kept.expected

# Classifier: id and the true label, the true label renamed beside the prediction.
expect_status 0 "logreg predict --keep" "$MLT" logreg predict iris.logreg q.csv --keep id,species --na drop -o p.csv
check "logreg: header" test "$(head -1 p.csv)" = "id,input_species,species"
check "logreg: kept cells verbatim, one row per kept input row" \
  test "$(tail -n +2 p.csv | cut -d, -f1,2)" = "$(cat kept.expected)"
# Task-polymorphic (knn), k-means and PCA: the same columns in front.
for cmd in "knn predict iris.knn" "kmeans predict iris.km" "pca transform iris.pca"; do
  run $MLT $cmd q.csv --keep id,species --na drop
  check "$cmd: kept cells in front" test "$(tail -n +2 <<<"$out" | cut -d, -f1,2)" = "$(cat kept.expected)"
done
run "$MLT" pca transform iris.pca q.csv --keep species --na drop
check "pca: header" test "$(head -1 <<<"$out")" = "species,pc1,pc2"
# Columns given by number.
run "$MLT" logreg predict iris.logreg q.csv --keep 1 --na drop
check "by number" test "$(tail -n +2 <<<"$out" | cut -d, -f1)" = "$(cut -d, -f1 kept.expected)"

# Nothing kept, rows dropped: the input line of each output row.
run "$MLT" logreg predict iris.logreg q.csv --na drop
check "dropped rows: a line column" test "$(head -1 <<<"$out")" = "line,species"
check "dropped rows: the input lines but 4" test "$(tail -n +2 <<<"$out" | cut -d, -f1 | tr '\n' ' ')" = "2 3 5 6 7 "
# Nothing dropped, nothing kept: the output as before.
run "$MLT" logreg predict iris.logreg "$DATA/iris.csv"
check "no drop: predictions only" test "$(head -1 <<<"$out")" = "species"

# Regression: the id with the targets.
awk -F, 'NR == 1 { print "id," $0 } NR > 1 && NR <= 6 { print "d" NR "," $0 }' "$DATA/diabetes.csv" > d.csv
run "$MLT" ridge predict diab.ridge d.csv --keep id
check "ridge: header" test "$(head -1 <<<"$out")" = "id,progression"
check "ridge: ids" test "$(tail -n +2 <<<"$out" | cut -d, -f1 | tr '\n' ' ')" = "d2 d3 d4 d5 d6 "

# Refusals: a feature cannot be kept (status 2, nothing written); an unknown column.
expect_error 2 "--keep petal_width: the model reads it as a feature" "keep a feature" \
  "$MLT" logreg predict iris.logreg q.csv --keep petal_width --na drop -o refused.csv
check "nothing written" test ! -e refused.csv
expect_status 2 "keep an unknown column" "$MLT" logreg predict iris.logreg q.csv --keep nope --na drop

finish
