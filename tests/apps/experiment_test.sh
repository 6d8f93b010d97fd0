#!/usr/bin/env bash
# scripts/experiment/Makefile end to end: split -> cv sweep -> refit -> held-out score.
source "$(dirname "$0")/lib.sh" "$@"
EXP=$SRC/scripts/experiment
run make -s -C "$EXP" MLT="$MLT" OUT="$WORK/exp"
check "make runs the experiment (stderr: $err)" test "$rc" -eq 0
for f in train.csv test.csv sweep-logreg.csv sweep-knn.csv model.logreg model.knn score-logreg.json score-knn.json summary.txt; do
  check "experiment wrote $f" test -s "$WORK/exp/$f"
done
check "split: 25% held out, nothing lost" test "$(( $(wc -l < exp/train.csv) + $(wc -l < exp/test.csv) - 2 ))" -eq "$(( $(wc -l < "$DATA/wine.csv") - 1 ))"
check "sweeps: one row per grid point, one best" test "$(tail -n +2 exp/sweep-logreg.csv | wc -l),$(awk -F, '$NF == 1' exp/sweep-logreg.csv | wc -l),$(tail -n +2 exp/sweep-knn.csv | wc -l)" = "6,1,13"
best_k=$(awk -F, 'NR > 1 && $NF == 1 { print $1 }' exp/sweep-knn.csv)
run "$MLT" info exp/model.knn --json
check "refit uses the sweep's best k ($best_k)" test "$(jq -r '.params.k' <<<"$out")" = "$best_k"
check "held-out scores are on the 45 test rows and plausible" jq -e -s \
  'length == 2 and all(.[]; .n_samples == 45 and 0.85 <= .accuracy and .accuracy <= 1)' \
  "$WORK/exp/score-logreg.json" "$WORK/exp/score-knn.json" >/dev/null
check "summary: one line per model" test "$(cut -d' ' -f1 exp/summary.txt | tr '\n' ' ')" = "logreg knn "
run make -C "$EXP" MLT="$MLT" OUT="$WORK/exp"
check "a second make has nothing to do" grep -q "Nothing to be done\|is up to date" <<<"$out"
touch exp/sweep-knn.csv
run make -s -C "$EXP" MLT="$MLT" OUT="$WORK/exp" --dry-run
check "a newer knn sweep redoes only the knn refit, score and summary" test "$(grep -cE 'logreg (cv|fit|score)' <<<"$out"),$(grep -c 'knn fit' <<<"$out"),$(grep -c 'knn score' <<<"$out")" = "0,1,1"
# A stamp per setting: a changed setting redoes exactly the steps that use it.
run make -s -C "$EXP" MLT="$MLT" OUT="$WORK/exp" SEED=2 --dry-run
check "SEED=2 would re-split and rerun both sweeps" \
  test "$(grep -c ' split ' <<<"$out"),$(grep -c 'logreg cv' <<<"$out"),$(grep -c 'knn cv' <<<"$out")" = "1,1,1"
run make -s -C "$EXP" MLT="$MLT" OUT="$WORK/exp"  # back to the defaults (SEED=1 restamped)
check "back to the defaults: runs (exit $rc, stderr: $err)" test "$rc" -eq 0
logreg_before=$(stat -c %Y.%s exp/sweep-logreg.csv; sha256sum < exp/sweep-logreg.csv)
sleep 1  # so that a rewritten file would show a newer mtime
run make -C "$EXP" MLT="$MLT" OUT="$WORK/exp" KNN_K=1:9:2
check "KNN_K=1:9:2 runs (stderr: $err)" test "$rc" -eq 0
check "KNN_K=1:9:2: the knn sweep has the new grid" test "$(tail -n +2 exp/sweep-knn.csv | wc -l)" = 5
check "KNN_K=1:9:2: the logreg sweep is untouched (make ran: $(grep -cE 'logreg cv' <<<"$out") logreg cv)" \
  test "$(stat -c %Y.%s exp/sweep-logreg.csv; sha256sum < exp/sweep-logreg.csv)" = "$logreg_before"
run make -C "$EXP" MLT="$MLT" OUT="$WORK/exp" KNN_K=1:9:2
check "the same settings again: nothing to do" grep -q "Nothing to be done\|is up to date" <<<"$out"
finish
