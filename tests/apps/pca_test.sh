#!/usr/bin/env bash
# mlt pca end to end: fit, transform, reconstruct, score, pipelines.
source "$(dirname "$0")/lib.sh" "$@"

expect_status 0 "fit iris" "$MLT" pca fit "$DATA/iris.csv" --ignore species -k 2 -o iris.pca
check "model written" test -s iris.pca
run "$MLT" pca transform iris.pca "$DATA/iris.csv"
check "transform: header pc1,pc2" test "$(head -1 <<<"$out")" = "pc1,pc2"
check "transform: 150 rows" test "$(wc -l <<<"$out")" -eq 151

# Reconstruction from all components is the data itself.
expect_status 0 "fit all components" "$MLT" pca fit "$DATA/iris.csv" --ignore species -o full.pca
run "$MLT" pca transform full.pca "$DATA/iris.csv" --reconstruct
first=$(sed -n 2p <<<"$out")
check "full reconstruction of row 1" "$PYTHON" -c "
import sys; v=[float(x) for x in '$first'.split(',')]; w=[5.1,3.5,1.4,0.2]
sys.exit(0 if all(abs(a-b) < 1e-12 for a,b in zip(v,w)) else 1)"

# stdin in, stdout out, both ways.
run sh -c "cat '$DATA/iris.csv' | '$MLT' pca fit - --ignore species -k 2 -o piped.pca"
check "fit from stdin" test "$rc" -eq 0
check "same model from stdin except provenance" test "$(grep -v '^{' piped.pca | sed '$d')" = "$(grep -v '^{' iris.pca | sed '$d')"
run sh -c "'$MLT' pca transform iris.pca - < '$DATA/iris.csv' | head -1"
check "transform from stdin" test "$out" = "pc1,pc2"
run sh -c "cat iris.pca | '$MLT' pca score - '$DATA/iris.csv' --json"
check "model from a pipe" test "$rc" -eq 0

# The data's fingerprint is xxhsum -H2's (over a file of several 4 MiB windows, and from
# a pipe: pca_large_test.sh, the full tier's).
# same_hash MODEL HASH: the model's data_xxh128 is HASH, which is one (32 hex digits).
same_hash() { [[ $2 =~ ^[0-9a-f]{32}$ ]] && [ "$("$MLT" info "$1" --json | jq -r '.provenance.data_xxh128')" = "$2" ]; }
check "data_xxh128 of iris = xxhsum -H2" same_hash iris.pca "$(xxhsum -H2 < "$DATA/iris.csv" | cut -d' ' -f1)"

# --variance picks the fewest components explaining more than the fraction.
expect_status 0 "fit --variance" "$MLT" pca fit "$DATA/iris.csv" --ignore species --variance 0.95 -o var.pca
run "$MLT" info var.pca --json
check "0.95 of iris needs 2 components" test "$(jq -r '.fitted.n_components' <<<"$out")" = 2

# The scores of iris.pca (k = 2) on its training data equal scikit-learn's to 1e-9
# (close_to: relative, absolute below 1): tests/fixtures/pca/scores.json, made by
# scripts/fixtures/pca.py.
run "$MLT" pca score iris.pca "$DATA/iris.csv" --json
ref=$(jq -r '.iris_k2 | "\(.reconstruction_mse) \(.explained_variance_ratio)"' "$SRC/tests/fixtures/pca/scores.json")
check "score: reconstruction_mse as scikit-learn (${ref% *})" close_to "$(json_get "$out" reconstruction_mse)" "${ref% *}" 1e-9
check "score: explained_variance_ratio as scikit-learn (${ref#* })" close_to "$(json_get "$out" explained_variance_ratio)" "${ref#* }" 1e-9

# Usage and data errors.
expect_error 65 "n_components=5 > min" "k larger than the data" "$MLT" pca fit "$DATA/iris.csv" --ignore species -k 5 -o x.pca
check "no model after failure" test ! -e x.pca
expect_error 2 "components" "k = 0" "$MLT" pca fit "$DATA/iris.csv" -k 0 -o x.pca
expect_error 2 "variance" "variance out of range" "$MLT" pca fit "$DATA/iris.csv" --variance 1.5 -o x.pca
expect_error 65 "expected a number in column \"species\"" "text feature column" "$MLT" pca fit "$DATA/iris.csv" -o x.pca
finish
