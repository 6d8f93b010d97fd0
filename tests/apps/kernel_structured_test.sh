#!/usr/bin/env bash
# Kernels on strings and graphs end to end (--kernel spectrum --kmer K, --kernel walk
# --walk-length N): a text or graph feature column is read only when such a kernel is
# asked for, encoded once (lib/mlt/kernel_strings.hpp, kernel_graphs.hpp), and every
# kernel method, its model file and cv work on it unchanged. Data: data/dna_motifs.csv
# and data/molecules.csv (scripts/make-structured-data): classes told apart by their
# k-mers or walks, not by their letter or label counts. The kernel values themselves
# are checked against the notes' formulas in tests/lib/kernel_structured_test.cpp.
source "$(dirname "$0")/lib.sh" "$@"

head -n 401 "$DATA/dna_motifs.csv" >train.csv
{ head -n 1 "$DATA/dna_motifs.csv"; tail -n 200 "$DATA/dna_motifs.csv"; } >test.csv

accuracy() { awk '$1 == "accuracy" { print $2 }' <<<"$out"; }

# The spectrum kernel separates the planted motifs (scikit-learn's linear SVC on the
# normalized 4-mer counts scores 1.0 on this split).
expect_status 0 "svm fit, spectrum" "$MLT" svm fit train.csv --ignore id --kernel spectrum --kmer 4 --normalize -o s.svm
run "$MLT" svm score s.svm test.csv
check "svm, normalized 4-mer spectrum: held-out accuracy >= 0.95 ($out)" awk -v a="$(accuracy)" 'BEGIN { exit !(a >= 0.95) }'

# The letter counts of the two classes have one distribution: a model on them is at
# chance (200 test rows: 0.5 +- 0.035; 0.65 is four standard deviations).
letters() {
  awk -F, 'NR == 1 { print "a,c,g,t,class"; next }
           { a = gsub(/A/, "A", $2); c = gsub(/C/, "C", $2); g = gsub(/G/, "G", $2); t = gsub(/T/, "T", $2)
             print a "," c "," g "," t "," $3 }' "$1"
}
letters train.csv >train_letters.csv
letters test.csv >test_letters.csv
"$MLT" svm fit train_letters.csv --kernel rbf --standardize -o l.svm 2>/dev/null
run "$MLT" svm score l.svm test_letters.csv
check "svm on letter counts: near chance ($out)" awk -v a="$(accuracy)" 'BEGIN { exit !(a < 0.65) }'

# The predictions of a saved model: one per row, --keep works.
run "$MLT" svm predict s.svm test.csv --keep id
check "predict: a header and 200 rows" test "$(wc -l <<<"$out")" -eq 201
check "predict keeps the id" grep -q "^id," <<<"$out"

# Every kernel method.
for cmd in "logreg" "perceptron" "knn"; do
  extra=""
  [ "$cmd" = knn ] && extra="-k 5"
  expect_status 0 "$cmd fit, spectrum" "$MLT" $cmd fit train.csv --ignore id --kernel spectrum --kmer 4 --normalize \
    $extra -o m.$cmd
  run "$MLT" $cmd score m.$cmd test.csv
  check "$cmd, spectrum: held-out accuracy >= 0.9 ($out)" awk -v a="$(accuracy)" 'BEGIN { exit !(a >= 0.9) }'
done
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,sequence,y"; next } { print $1, $2, ($3 == "bind") }' train.csv \
  >train_y.csv
awk -F, 'BEGIN { OFS = "," } NR == 1 { print "id,sequence,y"; next } { print $1, $2, ($3 == "bind") }' test.csv >test_y.csv
expect_status 0 "krr fit, spectrum" "$MLT" krr fit train_y.csv --ignore id --kernel spectrum --kmer 4 --normalize \
  --lambda 0.1 -o m.krr
run "$MLT" krr score m.krr test_y.csv
check "krr, spectrum: r2 > 0.5 ($out)" awk -v r="$(awk '$1 == "r2" { print $2 }' <<<"$out")" 'BEGIN { exit !(r > 0.5) }'
expect_status 0 "kernel PCA fit, spectrum" "$MLT" pca fit train.csv --ignore id,class --kernel spectrum --kmer 3 \
  --normalize -k 2 -o m.pca
run "$MLT" pca transform m.pca test.csv --ignore class --keep id
check "kernel PCA transform: 200 rows of id and 2 components" \
  test "$(tail -n +2 <<<"$out" | awk -F, 'NF == 3' | wc -l)" -eq 200

# cv over k, and --refit saves a model that predicts.
expect_status 0 "svm cv over kmer" "$MLT" svm cv train.csv --ignore id --kernel spectrum --kmer 2,4 --normalize \
  --folds 3 --refit -o cv.svm
check "cv's report names both k" grep -q "kmer" <<<"$out"
expect_status 0 "the refit model predicts" "$MLT" svm predict cv.svm test.csv

# Refusals.
expect_error 65 "train.csv:2:2: expected a number" "no string kernel: the text column is not a number" \
  "$MLT" svm fit train.csv --ignore id --kernel rbf -o x.svm
expect_error 65 "expected a number" "plain PCA refuses text" "$MLT" pca fit train.csv --ignore id,class -o x.pca
expect_error 2 "standardize.*spectrum" "--standardize with a string kernel" \
  "$MLT" svm fit train.csv --ignore id --kernel spectrum --standardize -o x.svm
expect_error 2 "one feature column.*2.*id, sequence" "two feature columns" \
  "$MLT" svm fit train.csv --kernel spectrum -o x.svm
expect_error 2 "kmer" "--kmer 9" "$MLT" svm fit train.csv --ignore id --kernel spectrum --kmer 9 -o x.svm
expect_error 2 "--kmer applies to the spectrum kernel only" "--kmer with rbf" \
  "$MLT" svm fit train.csv --ignore id --kernel rbf --kmer 3 -o x.svm
expect_error 2 "different data" "a cv grid mixing numeric and string kernels" \
  "$MLT" svm cv train.csv --ignore id --kernel rbf,spectrum
check "no model after failures" test ! -e x.svm -a ! -e x.pca

# Graphs: the walk kernel tells the O-C-N chain from O-N-C.
expect_status 0 "svm cv, walk kernel" "$MLT" svm cv "$DATA/molecules.csv" --ignore id --kernel walk --walk-length 2 \
  --normalize --folds 4 --json
check "svm, walk kernel of length 2: cv accuracy >= 0.9 ($out)" \
  json_holds "$out" '.best.mean >= 0.9'
expect_status 0 "krr fit, walk kernel" "$MLT" knn fit "$DATA/molecules.csv" --ignore id --kernel walk -k 3 -o m.knn
run "$MLT" knn predict m.knn "$DATA/molecules.csv"
check "knn predicts every graph" test "$(wc -l <<<"$out")" -eq 161
printf 'id,graph,class\nm1,C O|0-1,a\nm2,C O N|0-1 1-5,b\n' >bad.csv
expect_error 65 "bad.csv:3:2: offset 13 of the graph .*vertex 5 does not exist" "a graph's parse error names line, column, offset" \
  "$MLT" svm fit bad.csv --ignore id --kernel walk -o x.svm

# mlt info counts the input as given: one text or graph column, or the kernel values of
# a precomputed row; the encoded width is shown beside it, as what it is.
"$MLT" -q knn fit "$DATA/dna_motifs.csv" --ignore id --target class --kernel spectrum -k 3 -o info.knn
run "$MLT" info info.knn
check "info: features (1 text column (spectrum kernel))" grep -q "^features (1 text column (spectrum kernel)): " <<<"$out"
check "info: fitted n_features is 1 (the text column)" grep -q "^  n_features: 1$" <<<"$out"
run "$MLT" info info.knn --json
check "info --json: n_features 1, the encoded width apart" json_holds "$out" '
  .fitted | .n_features == 1 and .encoded_width > 1 and .input == "1 text column (spectrum kernel)"'
"$MLT" -q pca fit "$DATA/molecules.csv" --ignore id,class --kernel walk -k 2 -o info.pca
run "$MLT" info info.pca
check "info: features (1 graph column (walk kernel))" grep -q "^features (1 graph column (walk kernel)): " <<<"$out"
"$MLT" -q krr fit "$SRC/tests/fixtures/precomputed/krr_train.csv" --kernel precomputed -o info.krr
run "$MLT" info info.krr --json
check "info --json: a precomputed model reads 80 kernel values" json_holds "$out" '
  .fitted | .n_features == 80 and .encoded_width == 81
  and .input == "kernel values against 80 training rows (precomputed kernel)"'
finish
