#!/usr/bin/env bash
# Conventions every command shares: help, version, usage errors, exit statuses,
# refusals of bad input files and model files (BAD-INPUTS.md A, B, C).
source "$(dirname "$0")/lib.sh" "$@"
IRIS=$DATA/iris.csv

# --help and --version go to stdout with status 0.
for cmd in "" "pca" "pca fit" "pca transform" "pca score" "split" "info"; do
  run "$MLT" $cmd --help
  check "mlt $cmd --help: status 0" test "$rc" -eq 0
  check "mlt $cmd --help: on stdout" test -n "$out"
done
run "$MLT" pca fit --help
check "fit --help shows an example" grep -q "Examples:" <<<"$out"
run "$MLT" --version
check "--version names the BLAS kernel" grep -qE "^BLAS: OpenBLAS .*kernel [A-Za-z0-9]+" <<<"$out"

# Usage errors: status 2, the problem named on stderr, nothing on stdout.
expect_error 2 "" "no subcommand" "$MLT"
expect_error 2 "nosuch" "unknown subcommand" "$MLT" nosuch
expect_error 2 "--bogus" "unknown flag" "$MLT" pca fit "$IRIS" -o m --bogus
expect_error 2 "data" "missing positional" "$MLT" pca fit -o m
expect_error 2 "extra" "extra positional" "$MLT" pca fit "$IRIS" extra -o m
# Errors a user can act on: the verbs of a command, the commands, the nearest flag.
expect_error 2 '^mlt pca: unknown verb "predict"; verbs: fit, transform, score, cv$' "unknown verb lists the verbs" \
  "$MLT" pca predict m "$IRIS"
expect_error 2 '^mlt pca: unknown verb "predict"' "unknown verb after a global flag" "$MLT" --threads 2 pca predict
expect_error 2 '^mlt pca: unknown verb "predict"' "unknown verb after a global flag and its value" "$MLT" -q --threads=2 pca predict
expect_status 0 "a global flag without a value is not taken for one" "$MLT" -q split "$IRIS" --seed 1 -o a.csv b.csv
expect_error 2 '^mlt: unknown command "nosuch"; commands: pca, kmeans, ' "unknown command lists the commands" "$MLT" nosuch
expect_error 2 'unexpected arguments --lamda 1; unknown flag --lamda: did you mean --lambda\?$' \
  "misspelt flag: in the order typed, with the nearest flag" "$MLT" ridge fit "$IRIS" --target petal_width --lamda 1 -o m
expect_error 2 'unknown flag --standardise: did you mean --standardize\?' "did you mean, for a flag with no value" \
  "$MLT" pca fit "$IRIS" --standardise -o m
expect_error 2 'unknown flag --zzzzzz$' "no suggestion when nothing is near" "$MLT" pca fit "$IRIS" --zzzzzz -o m
# The library names parameters (`na`, `no_header`); the command line says its flags.
printf 'a,b\n1,2\n,3\n' > na.csv
expect_error 65 'missing value "" in column "a" \(use --na drop to skip such rows\)$' "library parameter shown as its flag" \
  "$MLT" pca fit na.csv -o m
# Seeds are unsigned 64-bit everywhere, and refused the same way everywhere.
seed_error='--seed: a seed is a whole number from 0 to 18446744073709551615, got '
for bad in -1 99999999999999999999 0x10 1e3; do
  expect_error 2 "$seed_error$bad\$" "split --seed $bad" "$MLT" split "$IRIS" --seed "$bad" -o a.csv b.csv
  expect_error 2 "$seed_error$bad\$" "krr fit --seed $bad" "$MLT" krr fit "$IRIS" --target petal_width --seed "$bad" -o m
  expect_error 2 "$seed_error$bad\$" "kmeans fit --seed $bad" "$MLT" kmeans fit "$IRIS" -k 2 --seed "$bad" -o m
  expect_error 2 "--fold-seed: a seed is a whole number from 0 to 18446744073709551615, got $bad\$" \
    "ridge cv --fold-seed $bad" "$MLT" ridge cv "$IRIS" --target petal_width --fold-seed "$bad"
  expect_error 2 "$seed_error$bad\$" "krr cv --seed $bad (the fit's seed, in cv too)" \
    "$MLT" krr cv "$IRIS" --target petal_width --kernel rbf --nystrom 5 --seed "$bad"
  expect_error 2 "$seed_error$bad\$" "kmeans cv --seed $bad" "$MLT" kmeans cv "$IRIS" --ignore species -k 2 --seed "$bad"
done
expect_status 0 "the largest seed is accepted" "$MLT" split "$IRIS" --seed 18446744073709551615 -o a.csv b.csv
expect_error 2 "components" "k not a number" "$MLT" pca fit "$IRIS" -k 3x -o m
expect_error 2 "components" "k negative" "$MLT" pca fit "$IRIS" -k -2 -o m
expect_error 2 "variance" "variance nan" "$MLT" pca fit "$IRIS" --variance nan -o m
expect_error 2 "variance" "variance abc" "$MLT" pca fit "$IRIS" --variance abc -o m
expect_error 2 "seed" "seed 1e99" "$MLT" split "$IRIS" --seed 1e99 -o a.csv b.csv
expect_error 2 "threads" "threads 0" "$MLT" pca fit "$IRIS" --ignore species --threads 0 -o m
expect_error 2 "no column named \"nope\"; columns are: sepal_length" "unknown column" \
  "$MLT" pca fit "$IRIS" --ignore nope -o m
check "usage error writes no stdout" test -z "$out"

# Output equal to an input is refused, also through ./ and a symlink.
cp "$IRIS" iris.csv
ln -s iris.csv link.csv
before=$(sha256sum iris.csv)
expect_error 2 "refusing to overwrite input" "output is the input" "$MLT" pca fit iris.csv --ignore species -o ./iris.csv
expect_error 2 "refusing to overwrite input" "output is a link to the input" "$MLT" pca fit iris.csv --ignore species -o link.csv
check "input unchanged" test "$(sha256sum iris.csv)" = "$before"

# Inputs that cannot be opened: 66.
expect_error 66 "missing.csv: cannot open" "missing data file" "$MLT" pca fit missing.csv -o m
expect_error 66 "is a directory" "data is a directory" "$MLT" pca fit . -o m
expect_status 0 "fit a model" "$MLT" pca fit iris.csv --ignore species -k 2 -o good.pca
expect_error 66 "missing.pca: cannot open" "missing model" "$MLT" pca transform missing.pca iris.csv
expect_error 66 "is a directory" "model is a directory" "$MLT" pca transform . iris.csv
if [ "$(id -u)" -ne 0 ]; then
  cp good.pca locked.pca && chmod 000 locked.pca
  expect_error 66 "Permission denied" "unreadable model" "$MLT" pca transform locked.pca iris.csv
fi

# Bad model files: 65, with the reason.
: > empty.pca
expect_error 65 "empty file, not an mlt model" "empty model" "$MLT" pca transform empty.pca iris.csv
expect_error 65 "not an mlt model \(bad magic\)" "a CSV as a model" "$MLT" pca transform iris.csv iris.csv
head -c 200 good.pca > cut.pca
expect_error 65 "truncated" "truncated model" "$MLT" pca transform cut.pca iris.csv
"$PYTHON" - <<'PY'
data = bytearray(open("good.pca", "rb").read())
pos = data.index(b"matrix components") + 30
data[pos] ^= 0x04
open("flipped.pca", "wb").write(data)
PY
expect_error 65 "checksum mismatch" "flipped byte" "$MLT" pca transform flipped.pca iris.csv
{ cat good.pca; echo junk; } > trailing.pca
expect_error 65 "trailing data" "trailing garbage" "$MLT" pca transform trailing.pca iris.csv
sed '1s/mlt-model 2/mlt-model 7/' good.pca > future.pca
expect_error 65 "model format version 7 is not supported \(this mlt reads versions 1 to 2\); upgrade mlt" \
  "future version" "$MLT" pca transform future.pca iris.csv
# Version 1 files (all text, before binary sections) still load: a kNN model written
# by scripts/fixtures/model.py from the format's description.
V1=$SRC/tests/fixtures/model/iris_v1.knn
run "$MLT" info "$V1"
check "info on a version 1 model: status 0" test "$rc" -eq 0
check "info on a version 1 model: kind and version" test "$(head -2 <<<"$out")" = "$(printf 'kind: knn\nformat_version: 1')"
check "info on a version 1 model: its matrices" grep -qx "  train_X (150x4)" <<<"$out"
run "$MLT" info "$V1" --json
check "info --json on a version 1 model" test "$(jq -r '"\(.format_version) \(.matrices.train_y.rows)"' <<<"$out")" = "1 150"
# A model of another kind: fake one with a valid checksum.
"$PYTHON" - <<'PY'
import hashlib
text = open("good.pca").read()
body = text[: text.rindex("sha256 ")].replace('"kind":"pca"', '"kind":"kmeans"')
open("other.pca", "w").write(body + "sha256 " + hashlib.sha256(body.encode()).hexdigest() + "\n")
PY
expect_error 65 "model is kmeans, expected pca" "wrong kind" "$MLT" pca transform other.pca iris.csv

# predict/score never touch the model file.
stamp=$(stat -c '%Y %s' good.pca; sha256sum good.pca)
run "$MLT" pca transform good.pca iris.csv
run "$MLT" pca score good.pca iris.csv
check "model unchanged by use" test "$(stat -c '%Y %s' good.pca; sha256sum good.pca)" = "$stamp"

# Data that does not match the model: 65 naming both widths, or the missing column.
cut -d, -f1-3 iris.csv > narrow.csv
expect_error 65 "no column named \"petal_width\"" "missing feature column" "$MLT" pca transform good.pca narrow.csv
tail -n +2 narrow.csv > narrow-noheader.csv
expect_error 65 "model trained on 4 features, input has 3" "width by count" \
  "$MLT" pca transform good.pca narrow-noheader.csv --no-header
# Extra columns and another column order are fine: columns are matched by name.
"$PYTHON" - <<'PY'
import csv
rows = list(csv.reader(open("iris.csv")))
with open("shuffled.csv", "w", newline="") as f:
    w = csv.writer(f)
    for r in rows:
        w.writerow(["id"] + [r[3], r[0], r[4], r[2], r[1]] if r[0] == "sepal_length" else [len(r)] + [r[3], r[0], r[4], r[2], r[1]])
PY
run "$MLT" pca transform good.pca shuffled.csv
a=$out
run "$MLT" pca transform good.pca iris.csv
check "columns matched by name, extra columns ignored" test "$a" = "$out"

# Header present but --no-header, and the reverse.
expect_error 65 "is line 1 a header\? then drop --no-header" "header read as data" \
  "$MLT" pca fit iris.csv --no-header --ignore 5 -o m
tail -n +2 iris.csv | cut -d, -f1-4 > noheader.csv
# Data read as a header: a warning suggesting --no-header, not a refusal (numeric
# column names are legal; hardening_test.sh checks the warning).
expect_status 0 "data read as header: a warning" "$MLT" pca fit noheader.csv -o m
expect_status 0 "--no-header" "$MLT" pca fit noheader.csv --no-header -o nh.pca

# A TSV read with the wrong delimiter.
tr ',' '\t' < iris.csv > iris.tsv
expect_status 0 "TSV detected" "$MLT" pca fit iris.tsv --ignore species -o tsv.pca
expect_error 65 "only 1 column found: wrong --delimiter\?" "TSV with --delimiter ," \
  "$MLT" pca fit iris.tsv --delimiter , -o m
expect_error 2 "--delimiter: expected , ; or tab, not \"x\"" "--delimiter x" "$MLT" pca fit iris.tsv --delimiter x -o m
run "$MLT" pca fit iris.tsv --ignore species --delimiter tab -o m-tab -q
check "--delimiter tab reads the TSV" test "$rc" -eq 0
run "$MLT" pca fit --help
check "--delimiter help names tab, not a tab character" grep -q -- "--delimiter TEXT:{, ; tab}" <<<"$out"

# Locale does not change numbers read or written.
# Every command's --help shows a cv example, and the examples on shipped data run as
# shown: status 0 and no warning (a best value on the grid's edge, a fit that did not
# converge) to puzzle the user who copies them.
for cmd in pca kmeans ridge krr logreg knn svm perceptron smoother; do
  run "$MLT" $cmd --help
  examples=$(grep -E "^ +mlt $cmd cv " <<<"$out")
  check "mlt $cmd --help shows a cv example" test -n "$examples"
  while read -r line; do
    [ -n "$line" ] || continue
    read -ra words <<<"${line#mlt }"
    run "$MLT" "${words[@]//data\//$DATA/}"
    check "help example runs: $line" test "$rc" -eq 0
    check "help example warns nothing: $line: $err" test -z "$(grep -E 'widen the grid|warning' <<<"$err")"
  done <<<"$examples"
done

if locale -a 2>/dev/null | grep -qi '^de_DE'; then
  LC_ALL=de_DE.UTF-8 "$MLT" pca fit iris.csv --ignore species -k 2 -o de.pca
  check "model identical under de_DE" test "$(sed 2d de.pca | sed '$d')" = "$(sed 2d good.pca | sed '$d')"
fi
finish
