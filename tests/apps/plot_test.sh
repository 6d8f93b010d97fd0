#!/usr/bin/env bash
# mlt plot end to end: every plot drawn from the shipped data to PNG, SVG and PDF, each
# file checked for what its format promises (PNG: signature and IHDR size; SVG: XML
# whose root has the requested width and height; PDF: header and page size in points),
# the text chart, --script (a script gnuplot runs by itself), and the refusals: missing
# or wrong model, no -o off a terminal, gnuplot missing or failing, with nothing
# half-written. Skipped (77) only where gnuplot is not installed.
source "$(dirname "$0")/lib.sh" "$@"
if ! command -v gnuplot >/dev/null; then
  echo "plot_test.sh: SKIP: gnuplot is not installed (scripts/install-deps installs gnuplot-nox)"
  exit 77
fi

# valid FILE WIDTH HEIGHT: FILE is a picture of its extension's format and that size.
valid() {
  "$PYTHON" - "$@" <<'PY'
import re, struct, sys
import xml.etree.ElementTree as ET
path, w, h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = open(path, "rb").read()
if path.endswith(".png"):
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "PNG signature"
    assert data[12:16] == b"IHDR", "IHDR first"
    assert struct.unpack(">II", data[16:24]) == (w, h), struct.unpack(">II", data[16:24])
    assert data[-8:-4] == b"IEND", "IEND last"
elif path.endswith(".svg"):
    root = ET.fromstring(data)
    assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
    assert (root.get("width"), root.get("height")) == (str(w), str(h)), (root.get("width"), root.get("height"))
elif path.endswith(".pdf"):
    assert data[:5] == b"%PDF-", "PDF header"
    assert data.rstrip().endswith(b"%%EOF"), "PDF trailer"
    box = re.search(rb"/MediaBox \[ *0 0 ([0-9.]+) ([0-9.]+) *\]", data)
    assert box and (float(box.group(1)), float(box.group(2))) == (w, h), box and box.groups()
else:
    sys.exit("unknown format " + path)
PY
}

# Models and reports from the shipped data.
expect_status 0 "pca fit" "$MLT" -q pca fit "$DATA/iris.csv" --ignore species --standardize -o iris.pca
expect_status 0 "kmeans fit" "$MLT" -q kmeans fit "$DATA/iris.csv" --ignore species -k 3 --standardize -o iris.km
expect_status 0 "logreg fit" "$MLT" -q logreg fit "$DATA/iris.csv" --standardize -o iris.logreg
expect_status 0 "svm fit on two features" "$MLT" -q svm fit "$DATA/iris.csv" --ignore sepal_length,sepal_width \
  --standardize --kernel rbf --gamma 1 -o petal.svm
expect_status 0 "krr fit on one feature" "$MLT" -q krr fit "$DATA/diabetes.csv" --ignore age,sex,bp,s1,s2,s3,s4,s5,s6 \
  --standardize --kernel rbf --gamma 0.5 --lambda 1 -o bmi.krr
expect_status 0 "smoother fit on one feature" "$MLT" -q smoother fit "$DATA/diabetes.csv" \
  --ignore age,sex,bp,s1,s2,s3,s4,s5,s6 --bandwidth 2 -o bmi.smoother
# Two classes (versicolor and virginica) on the sepals, where they overlap: a ROC curve
# that is not a square.
grep -v setosa "$DATA/iris.csv" >vv.csv
expect_status 0 "logreg fit, two classes" "$MLT" -q logreg fit vv.csv --ignore petal_length,petal_width --standardize \
  -o vv.logreg
expect_status 0 "knn fit, two classes" "$MLT" -q knn fit vv.csv --ignore petal_length,petal_width -k 7 -o vv.knn
expect_status 0 "cv over one parameter" sh -c "'$MLT' -q logreg cv '$DATA/iris.csv' --standardize --lambda 1e-4:1e2:7 --per-fold --json > cv1.json"
expect_status 0 "cv over two parameters" sh -c "'$MLT' -q knn cv '$DATA/wine.csv' --standardize -k 1:9:2 --weights uniform,distance --json > cv2.json"

# Every plot, in every format, at a stated size.
plots=(
  "scree iris.pca"
  "pca iris.pca $DATA/iris.csv --labels species"
  "pca iris.pca $DATA/iris.csv"
  "cv cv1.json"
  "cv cv2.json"
  "cv cv2.json --curves"
  "confusion iris.logreg $DATA/iris.csv"
  "confusion iris.logreg $DATA/iris.csv --normalize"
  "kmeans iris.km $DATA/iris.csv"
  "fit bmi.krr $DATA/diabetes.csv"
  "fit bmi.smoother $DATA/diabetes.csv"
  "regions petal.svm $DATA/iris.csv --grid 60"
  "roc vv.logreg vv.csv"
  "pr vv.logreg vv.csv"
  "roc vv.knn vv.csv --positive versicolor"
  "pr iris.logreg $DATA/iris.csv --positive virginica"
)
i=0
for p in "${plots[@]}"; do
  i=$((i + 1))
  read -r -a args <<<"$p"
  for ext in png svg pdf; do
    expect_status 0 "plot $p -> .$ext" "$MLT" plot "${args[@]}" -o "p$i.$ext" --size 640x400
    check "plot $p: a valid .$ext of 640x400" valid "p$i.$ext" 640 400
  done
done
expect_status 0 "the default size" "$MLT" plot scree iris.pca -o default.png
check "800x600 by default" valid default.png 800 600

# The text chart: to a .txt file, or to a pipe with --format txt, of the stated size.
expect_status 0 "text chart to a file" "$MLT" plot confusion iris.logreg "$DATA/iris.csv" -o chart.txt --size 70x20
check "the text chart has the title" grep -q "confusion matrix: iris.logreg" chart.txt
# (gnuplot starts the chart with a form feed, not a column.)
check "the text chart is 70 x 20" test "$(tr -d '\f' <chart.txt | awk '{ if (length($0) > m) m = length($0) } END { print m "x" NR }')" = 70x20
run "$MLT" plot scree iris.pca --format txt
check "--format txt writes the chart to standard output" grep -q "PCA scree plot" <<<"$out"

# --script: the whole script, which gnuplot runs by itself into the -o file.
run "$MLT" plot cv cv1.json -o from-script.png --size 320x200 --script
check "--script prints a script" grep -q '^set terminal pngcairo size 320,200' <<<"$out"
check "--script does not draw" test ! -e from-script.png
printf '%s\n' "$out" >plot.gp
check "gnuplot runs the script alone" gnuplot plot.gp
check "the script's picture is valid" valid from-script.png 320 200

# Refusals, each with its status and nothing written.
expect_error 66 "iris.missing" "missing model" "$MLT" plot scree iris.missing -o x.png
expect_error 65 "model is kmeans, expected pca" "scree of a kmeans model" "$MLT" plot scree iris.km -o x.png
expect_error 65 "needs a classifier.*this model is pca" "confusion of a pca model" \
  "$MLT" plot confusion iris.pca "$DATA/iris.csv" -o x.png
expect_error 65 "regression model.*this model is logreg" "fit of a classifier" \
  "$MLT" plot fit iris.logreg "$DATA/iris.csv" -o x.png
expect_error 2 "plane of two features; this model has 4" "regions of a 4-feature model" \
  "$MLT" plot regions iris.logreg "$DATA/iris.csv" -o x.png
expect_error 2 "one feature; this model has" "fit of a many-feature model" \
  sh -c "'$MLT' -q ridge fit '$DATA/diabetes.csv' -o all.ridge && '$MLT' plot fit all.ridge '$DATA/diabetes.csv' -o x.png"
# A precomputed kernel's rows are kernel values (plus each row's index), a string
# kernel's one text column: no plane or line of numeric features to draw over.
PRE=$SRC/tests/fixtures/precomputed
expect_error 2 "one numeric feature; this model reads kernel values against 80 training rows \(precomputed kernel\)" \
  "fit of a precomputed-kernel model" \
  sh -c "'$MLT' -q knn fit '$PRE/krr_train.csv' --regression --kernel precomputed -k 3 -o pre.knn && '$MLT' plot fit pre.knn '$PRE/krr_train.csv' -o x.png"
expect_error 2 "two numeric features; this model reads 1 text column \(spectrum kernel\)" \
  "regions of a string-kernel model" \
  sh -c "'$MLT' -q knn fit '$DATA/dna_motifs.csv' --ignore id --target class --kernel spectrum -k 3 -o dna.knn && '$MLT' plot regions dna.knn '$DATA/dna_motifs.csv' -o x.png"
expect_error 65 "iris.pca: not JSON; plot cv reads the report of mlt <algo> cv --json" "cv of a model file" "$MLT" plot cv iris.pca -o x.png
expect_error 2 "standard output is not a terminal: give -o" "no -o off a terminal" "$MLT" plot scree iris.pca
expect_error 2 "cannot tell the format of x.gif" "unknown extension" "$MLT" plot scree iris.pca -o x.gif
expect_error 2 "does not match" "--format against the name" "$MLT" plot scree iris.pca -o x.png --format pdf
expect_error 2 "WIDTHxHEIGHT" "bad --size" "$MLT" plot scree iris.pca -o x.png --size 800
expect_error 2 "3 classes: name the one.*--positive" "roc of three classes" \
  "$MLT" plot roc iris.logreg "$DATA/iris.csv" -o x.png
expect_error 2 "no score of class virginica alone.*--probability" "roc of a one-vs-one svm without probabilities" \
  "$MLT" plot roc petal.svm "$DATA/iris.csv" --positive virginica -o x.png
expect_error 2 "--positive setosa: not a class of this model \(classes: versicolor, virginica\)" "unknown class" \
  "$MLT" plot pr vv.logreg vv.csv --positive setosa -o x.png
run "$MLT" plot roc vv.logreg vv.csv -o x.png --script
# 0.7922: scikit-learn's roc_auc_score of the virginica column of mlt logreg predict --proba
# on vv.csv (computed once by hand; the metric itself is tested on fixtures in
# tests/lib/metrics_curves_test.cpp).
check "the ROC title gives the AUC" \
  grep -q "^set title '.*(AUC 0.7922)'" <<<"$out"
expect_error 2 "--x nope: the report has no parameter" "unknown cv parameter" "$MLT" plot cv cv1.json --x nope -o x.png
printf '{"metric":"accuracy","results":[{"params":{},"mean":"x","std":0}]}' >bad.json
expect_error 65 "bad.json: not an mlt cv report" "cv of other JSON" "$MLT" plot cv bad.json -o x.png
check "no refusal wrote a file" test ! -e x.png

# gnuplot missing: status 69, and a previous file stays as it was.
cp default.png keep.png
expect_error 69 "gnuplot is not installed" "gnuplot missing" env PATH=/nonexistent "$MLT" plot scree iris.pca -o keep.png
check "gnuplot missing: the previous file is untouched" cmp -s default.png keep.png
# gnuplot failing after writing part of a picture: status 70 and nothing half-written.
mkdir fake
printf '#!/bin/sh\nprintf "\\211PNG partial"\necho "line 3: something went wrong" >&2\nexit 1\n' >fake/gnuplot
chmod +x fake/gnuplot
expect_error 70 "gnuplot failed \(status 1\): line 3: something went wrong" "gnuplot failing" \
  env PATH="$WORK/fake:$PATH" "$MLT" plot scree iris.pca -o broken.png
check "gnuplot failing: no file" test ! -e broken.png
check "gnuplot failing: no temporary left" test -z "$(find . -maxdepth 1 -name '*broken*')"
# A gnuplot that succeeds without drawing: an error, not an empty picture.
printf '#!/bin/sh\nexit 0\n' >fake/gnuplot
expect_error 70 "gnuplot drew nothing" "gnuplot drawing nothing" env PATH="$WORK/fake:$PATH" "$MLT" plot scree iris.pca -o empty.png
check "gnuplot drawing nothing: no file" test ! -e empty.png
# A ~/.gnuplot is not read: the picture is the script's alone.
mkdir home
echo 'an invalid command, which gnuplot would stop at' >home/.gnuplot
expect_status 0 "a ~/.gnuplot" env HOME="$WORK/home" "$MLT" plot scree iris.pca -o home.png --size 300x200
check "a ~/.gnuplot changes nothing" valid home.png 300 200
# No text ever runs as a command. gnuplot runs `...` in double-quoted strings and on its
# command line, expands @name, and runs system(), shell, load, call, "!cmd" and output
# names that start with '|'. Every text that reaches a script (class labels, column
# names, the target, file names, a cv report's metric, parameter names and values,
# --title, --positive) is here made of those characters, in every picture, as png,
# text chart and --script; a command in it would create the file pwned.
EVIL="\`touch pwned\`'@a \"\$b\" \\n;#!|<{^_}%s& system(\"touch pwned\") ') . system('touch pwned') . ('"
csv_cell() { printf '"%s"' "${1//\"/\"\"}"; }
mkdir evil
{
  printf '%s,%s,%s\n' "$(csv_cell "u $EVIL")" "$(csv_cell "v $EVIL")" "$(csv_cell "y $EVIL")"
  A="$(csv_cell "A $EVIL")" B="$(csv_cell "B $EVIL")" awk 'BEGIN { a = ENVIRON["A"]; b = ENVIRON["B"]; srand(3); for (i = 0; i < 60; i++) {
      c = i % 2; printf "%.3f,%.3f,%s\n", rand() + c, rand() - c, c ? a : b } }'
} >"evil/data \`touch pwned\`'@a.csv"
ED="evil/data \`touch pwned\`'@a.csv"
EM="evil/m \`touch pwned\`'@a"
expect_status 0 "fit on hostile text" "$MLT" -q logreg fit "$ED" --standardize -o "$EM.logreg"
expect_status 0 "pca fit on hostile text" "$MLT" -q pca fit "$ED" --ignore "y $EVIL" -o "$EM.pca"
expect_status 0 "kmeans fit on hostile text" "$MLT" -q kmeans fit "$ED" --ignore "y $EVIL" -k 2 -o "$EM.km"
expect_status 0 "krr fit on hostile text" "$MLT" -q krr fit "$ED" --ignore "y $EVIL" --target "v $EVIL" --kernel rbf --lambda 1 \
  -o "$EM.krr"
run "$MLT" -q logreg cv "$ED" --lambda 1e-3:1:3 --json
# The report's parameter (its name and each value) and metric renamed to hostile text.
printf '%s\n' "$out" | jq -c --arg p "lam $EVIL" --arg m "accuracy $EVIL" \
  '.metric = $m | (.results[], .best) |= (.params = {($p): ("v " + (.params.lambda | tostring) + $p)})' >evil/cv.json
check "a cv report with a hostile parameter name" grep -q 'lam `touch' evil/cv.json
hostile=(
  "confusion $EM.logreg	$ED"
  "regions $EM.logreg	$ED"
  "roc $EM.logreg	$ED"
  "pr $EM.logreg	$ED	--positive	A $EVIL"
  "pca $EM.pca	$ED	--labels	y $EVIL"
  "scree $EM.pca"
  "kmeans $EM.km	$ED"
  "fit $EM.krr	$ED"
  "cv evil/cv.json"
)
for h in "${hostile[@]}"; do
  IFS=$'\t' read -r -a args <<<"${h#* }"
  kind=${h%% *}
  expect_status 0 "plot $kind, hostile text -> png" "$MLT" plot "$kind" "${args[@]}" --title "T $EVIL"$'\n'"after a line break" \
    -o "evil/$kind.png"
  check "plot $kind, hostile text: a valid png" valid "evil/$kind.png" 800 600
  expect_status 0 "plot $kind, hostile text -> text chart" "$MLT" plot "$kind" "${args[@]}" --title "T $EVIL" \
    --format txt --size 200x40
  check "plot $kind: the title is drawn as written" grep -qF "T \`touch pwned\`'@a \"\$b\"" <<<"$out"
  expect_status 0 "plot $kind, hostile text -> --script" "$MLT" plot "$kind" "${args[@]}" -o "evil/s $kind'@.png" --script
  printf '%s\n' "$out" >"evil/$kind.gp"
  check "plot $kind: gnuplot runs the hostile script" gnuplot "evil/$kind.gp"
  check "plot $kind: the script's picture is where -o said" valid "evil/s $kind'@.png" 800 600
  check "plot $kind: nothing ran" test ! -e pwned
done
# An -o that gnuplot would take for a pipe is a file of that name.
expect_status 0 "--script with -o |name" "$MLT" plot scree iris.pca -o "|touch pwned.png" --script
printf '%s\n' "$out" >pipe.gp
check "-o |name: gnuplot writes the file |touch pwned.png" sh -c "gnuplot pipe.gp && test -s '|touch pwned.png'"
check "-o |name: nothing ran" test ! -e pwned.png
check "no hostile text ran" test ! -e pwned
finish
