#!/usr/bin/env bash
# The large part of pca_test.sh (the full tier's: 400,000 rows, 9 MB): the data's
# fingerprint is xxhsum -H2's, from a file (hashed through windows of 4 MiB on a thread
# of its own) and from a pipe (hashed as it is read ahead).
source "$(dirname "$0")/lib.sh" "$@"

awk 'BEGIN { print "a,b,c"; for (i = 0; i < 400000; i++) printf "%d.%d,%d,%.3f\n", i, i % 7, i % 1000, i / 9 }' > big.csv
xxh=$(xxhsum -H2 < big.csv | cut -d' ' -f1)
# same_hash MODEL HASH: the model's data_xxh128 is HASH, which is one (32 hex digits).
same_hash() { [[ $2 =~ ^[0-9a-f]{32}$ ]] && [ "$("$MLT" info "$1" --json | jq -r '.provenance.data_xxh128')" = "$2" ]; }
"$MLT" pca fit big.csv -k 1 -o big.pca
check "data_xxh128 of a file = xxhsum -H2" same_hash big.pca "$xxh"
"$MLT" pca fit - -k 1 -o big-piped.pca < <(cat big.csv)
check "data_xxh128 from a pipe = xxhsum -H2" same_hash big-piped.pca "$xxh"
finish
