#!/usr/bin/env bash
# mlt kmeans end to end: fit, predict, score, info, determinism, errors.
# Reference values: scikit-learn 1.2.1 (tests/fixtures/kmeans/reference.json, made by
# scripts/fixtures/kmeans.py).
source "$(dirname "$0")/lib.sh" "$@"
REF=$SRC/tests/fixtures/kmeans/reference.json
ref() { jq -r --arg c "$1" --arg k "$2" '.[$c] | if has($k) then .[$k] else error("no \($c).\($k)") end' "$REF"; }
info_get() { jq -r --arg k "$1" '.info | if has($k) then .[$k] else error("no info.\($k)") end'; }

expect_status 0 "fit iris" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --n-init 10 -o iris.km
check "model written" test -s iris.km
check "fit reports energy and sizes" grep -q "kmeans: k=3, energy .* cluster sizes" <<<"$err"

# mlt info: k, seeding, iterations, final energy, cluster sizes.
run "$MLT" info iris.km
for field in "k: 3" "seeding: kmeans++" "iterations: " "energy: " "cluster_sizes: \[" "restarts: 10"; do
  check "info shows $field" grep -q "$field" <<<"$out"
done
run "$MLT" info iris.km --json
info=$out
check "energy = scikit-learn's inertia (1e-6 relative)" close_to "$(info_get energy <<<"$info")" "$(ref iris inertia)" 1e-6
check "cluster sizes sum to 150" test "$(jq '.info.cluster_sizes | add' <<<"$info")" -eq 150

# predict: a 1-based cluster column, optionally the distances.
run "$MLT" kmeans predict iris.km "$DATA/iris.csv"
check "predict: header" test "$(head -1 <<<"$out")" = "cluster"
check "predict: 150 rows" test "$(wc -l <<<"$out")" -eq 151
check "predict: clusters 1..3" test "$(tail -n +2 <<<"$out" | sort -u | tr '\n' ' ')" = "1 2 3 "
run "$MLT" kmeans predict iris.km "$DATA/iris.csv" --distances -o dist.csv
check "--distances: header" test "$(head -1 dist.csv)" = "cluster,distance_1,distance_2,distance_3"
check "--distances: the cluster is the nearest" "$PYTHON" -c "
import csv, sys
rows = list(csv.DictReader(open('dist.csv')))
ok = all(int(r['cluster']) == 1 + min(range(3), key=lambda l: float(r['distance_%d' % (l + 1)])) for r in rows)
sys.exit(0 if ok and len(rows) == 150 else 1)"

# score against scikit-learn's values for the same (optimal) clustering.
run "$MLT" kmeans score iris.km "$DATA/iris.csv" --labels species --json
check "score: exit 0" test "$rc" -eq 0
check "score: inertia" close_to "$(json_get "$out" inertia)" "$(ref iris inertia)" 1e-9
check "score: silhouette" close_to "$(json_get "$out" silhouette)" "$(ref iris silhouette)" 1e-9
check "score: ari" close_to "$(json_get "$out" ari)" "$(ref iris ari_species)" 1e-12
check "score: nmi" close_to "$(json_get "$out" nmi)" "$(ref iris nmi_species)" 1e-12
run "$MLT" kmeans score iris.km "$DATA/iris.csv"
check "score text: inertia and silhouette, no ari without --labels" \
  test "$(cut -d' ' -f1 <<<"$out" | tr '\n' ' ')" = "inertia silhouette "

# --standardize, against scikit-learn on StandardScaler data.
expect_status 0 "fit wine standardized" "$MLT" kmeans fit "$DATA/wine.csv" --ignore cultivar -k 3 --n-init 10 --standardize -o wine.km
run "$MLT" kmeans score wine.km "$DATA/wine.csv" --labels cultivar --json
check "wine: inertia" close_to "$(json_get "$out" inertia)" "$(ref wine_standardized inertia)" 1e-6
check "wine: silhouette" close_to "$(json_get "$out" silhouette)" "$(ref wine_standardized silhouette)" 1e-9
check "wine: ari" close_to "$(json_get "$out" ari)" "$(ref wine_standardized ari_target)" 1e-12

# Determinism: same seed, same bytes; any thread count, the same model (the
# provenance line records the command, so compare everything else).
"$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --n-init 10 -o again.km 2>/dev/null
check "same seed: identical models" test "$(grep -v '^{' iris.km | sed '$d')" = "$(grep -v '^{' again.km | sed '$d')"
for t in 1 2 3; do
  "$MLT" --threads $t kmeans fit "$DATA/digits.csv" --ignore digit -k 10 --n-init 3 --init random -o digits$t.km 2>/dev/null
done
check "threads 1 = threads 2" test "$(grep -v '^{' digits1.km | sed '$d')" = "$(grep -v '^{' digits2.km | sed '$d')"
check "threads 1 = threads 3" test "$(grep -v '^{' digits1.km | sed '$d')" = "$(grep -v '^{' digits3.km | sed '$d')"
"$MLT" kmeans fit "$DATA/digits.csv" --ignore digit -k 10 --n-init 3 --init random --seed 7 -o digits-seed7.km 2>/dev/null
check "another seed, another model" test "$(grep -v '^{' digits1.km | sed '$d')" != "$(grep -v '^{' digits-seed7.km | sed '$d')"
expect_status 0 "farthest seeding" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 4 --init farthest -o far.km

# kmeans|| (its centres on separated blobs and its rank independence are tested in
# tests/lib/kmeans/ and tests/apps/mpi_kmeans_test.sh): the model names the rows it
# seeded from, and its other name gives the same model.
expect_status 0 "kmeans|| seeding" "$MLT" kmeans fit "$DATA/digits.csv" --ignore digit -k 10 --init 'kmeans||' -o par.km
run "$MLT" info par.km --json
check "kmeans||: info seeding" test "$(info_get seeding <<<"$out")" = "kmeans||"
check "kmeans||: 10 seed rows, distinct, within 1..1797" json_holds "$out" '
  .info.seed_rows | length == 10 and (unique | length) == 10 and all(.[]; 1 <= . and . <= 1797)'
"$MLT" kmeans fit "$DATA/digits.csv" --ignore digit -k 10 --init kmeans-parallel -o par2.km 2>/dev/null
check "kmeans-parallel = kmeans||" test "$(grep -v '^{' par.km | sed '$d')" = "$(grep -v '^{' par2.km | sed '$d')"
expect_status 0 "kmeans|| --local-trials" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --init 'kmeans||' \
  --local-trials 1 -o par3.km
expect_error 2 "applies to the kmeans\+\+ and kmeans\|\| seedings only" "--local-trials with farthest" \
  "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 3 --init farthest --local-trials 2 -o x.km

# --centroids: Lloyd from given centroids (scikit-learn's optimum: nothing moves).
{
  echo sepal_length,sepal_width,petal_length,petal_width
  jq -r '.iris.centers[] | map(tostring) | join(",")' "$REF"
} >start.csv
expect_status 0 "fit --centroids" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species --centroids start.csv -o start.km
run "$MLT" info start.km --json
check "--centroids: k from the file" test "$(jq -r '.fitted.k' <<<"$out")" = 3
check "--centroids: energy = scikit-learn's inertia" close_to "$(info_get energy <<<"$out")" "$(ref iris inertia)" 1e-12
check "--centroids: converged at once" test "$(info_get iterations <<<"$out")" -eq 1
expect_error 2 "but start.csv has 3 centroids" "-k against --centroids" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 4 --centroids start.csv -o x.km

# Pipes.
run sh -c "cat '$DATA/iris.csv' | '$MLT' kmeans fit - --ignore species -k 3 --n-init 10 -o piped.km"
check "fit from stdin" test "$(grep -v '^{' piped.km | sed '$d')" = "$(grep -v '^{' iris.km | sed '$d')"
run sh -c "cat iris.km | '$MLT' kmeans predict - '$DATA/iris.csv' | head -1"
check "model from a pipe" test "$out" = "cluster"

# One cluster: scores without a silhouette (undefined), and a note saying so.
expect_status 0 "fit k=1" "$MLT" kmeans fit "$DATA/iris.csv" --ignore species -k 1 -o one.km
run "$MLT" kmeans score one.km "$DATA/iris.csv"
check "k=1: inertia only" test "$(cut -d' ' -f1 <<<"$out")" = "inertia"
check "k=1: note on the silhouette" grep -q "no silhouette" <<<"$err"

# Errors.
printf 'a,b\n1,2\n1,2\n3,4\n1,2\n3,4\n' >dups.csv
expect_error 65 "k=3 > 2 distinct rows" "k above the distinct rows" "$MLT" kmeans fit dups.csv -k 3 -o x.km
check "no model after failure" test ! -e x.km
expect_error 65 "k=6 > n_samples=5" "k above the rows" "$MLT" kmeans fit dups.csv -k 6 -o x.km
expect_error 2 "clusters" "k = 0" "$MLT" kmeans fit dups.csv -k 0 -o x.km
expect_error 2 "--tol" "negative tol" "$MLT" kmeans fit dups.csv -k 2 --tol -1 -o x.km
expect_error 2 "--init" "unknown seeding" "$MLT" kmeans fit dups.csv -k 2 --init best -o x.km
expect_error 2 "--seed" "negative seed" "$MLT" kmeans fit dups.csv -k 2 --seed -1 -o x.km
expect_error 2 "--seed" "seed 1e99" "$MLT" kmeans fit dups.csv -k 2 --seed 1e99 -o x.km
expect_status 2 "k is required" "$MLT" kmeans fit dups.csv -o x.km
expect_error 65 "expected a number in column \"species\"" "text feature column" "$MLT" kmeans fit "$DATA/iris.csv" -k 3 -o x.km
"$MLT" pca fit "$DATA/iris.csv" --ignore species -k 2 -o iris.pca 2>/dev/null
expect_error 65 "pca" "a model of another kind" "$MLT" kmeans predict iris.pca "$DATA/iris.csv"
tail -n +2 dups.csv >no-header.csv
expect_error 65 "model trained on 4 features, input has 2" "wrong width" "$MLT" kmeans predict iris.km --no-header no-header.csv
# On a scratch copy: were the refusal broken, the shipped data/iris.csv stays intact.
cp "$DATA/iris.csv" iris-copy.csv
expect_error 2 "refusing to overwrite" "output over the input" "$MLT" kmeans predict iris.km iris-copy.csv -o iris-copy.csv
check "input intact after the refusal" cmp -s iris-copy.csv "$DATA/iris.csv"
before=$(sha256sum iris.km)
"$MLT" kmeans score iris.km "$DATA/iris.csv" >/dev/null
check "score leaves the model unchanged" test "$before" = "$(sha256sum iris.km)"
# --centroids with fill values: the centroid file is read whole (its cells are not
# filled); with one-hot columns it cannot list points in the encoded space: refused.
printf 'a,b\n1,2\n,3\n5,\n7,8\n9,9\n' > holes.csv
printf 'a,b\n1,2\n8,8\n' > two.csv
expect_status 0 "--centroids with --na mean" "$MLT" kmeans fit holes.csv --na mean --centroids two.csv -o holes.km
expect_error 2 "not with --categorical" "--centroids with --categorical refused" \
  "$MLT" kmeans fit holes.csv --categorical a --centroids two.csv -o holes.km
finish
