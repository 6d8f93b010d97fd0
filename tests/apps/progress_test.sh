#!/usr/bin/env bash
# Progress of long work (apps/mlt/progress_display.hpp): --log-json writes the solvers'
# reports and the warnings as JSON lines on stderr, terminal or not, -q or not; on a
# terminal a status line is drawn and cleared (MLT_PROGRESS_AFTER=0 removes the
# one-second wait); otherwise stderr carries no progress at all.
source "$(dirname "$0")/lib.sh" "$@"

# 3,000 rows of two overlapping classes: the kernel SVM needs a few thousand SMO
# iterations, so it reports on the way (every 1,000) and not only at its end.
awk 'BEGIN { srand(3); print "a,b,c,y"; for (i = 0; i < 3000; i++) { a = rand(); b = rand(); c = rand();
  print a "," b "," c "," ((a + b + 1.5 * (rand() - 0.5) > 1) ? "yes" : "no") } }' > overlap.csv

# events FILE TASK: checks the JSON lines of FILE: every line that starts with "{" is a
# JSON object with the documented keys; TASK's reports have non-decreasing steps and
# fractions in [0, 1], and its last one is done with fraction 1. Prints their count.
events() {
  jq -R -n -r --arg task "$2" '
    def truthy: . != false and . != null and . != 0 and . != "" and . != [] and . != {};
    ["event", "task", "unit", "step", "total", "measure", "value", "fraction", "elapsed_s", "remaining_s", "done"] as $keys
    | [inputs | select(startswith("{")) | fromjson
       | if has("event") then . else error("no event: \(tojson)") end
       | select(.event == "progress")
       | if keys_unsorted == $keys then . else error("keys: \(tojson)") end
       | if has("task") then select(.task == $task) else error("no task: \(tojson)") end] as $reports
    | if $reports == [] then error("no report of \($task)") else . end
    | [$reports[].step] as $steps
    | if all($steps[]; type == "number") and $steps == ($steps | sort)
         and all($reports[]; .fraction == null or (0 <= .fraction and .fraction <= 1))
         and ($reports[-1] | (.done | truthy) and .fraction == 1)
      then $reports | length
      else error("reports of \($task): \($reports | tojson)") end' "$1"
}

expect_status 0 "kernel svm fit --log-json" "$MLT" --log-json svm fit overlap.csv --kernel rbf --gamma 1 -o m.svm
printf '%s\n' "$err" > svm.err
check "svm: reports along the way and a last one" test "$(events svm.err 'svm smo')" -ge 2
check "svm: the gap is the measure" grep -q '"measure":"gap"' svm.err
check "svm: the fit's summary is a note" grep -q '^{"event":"note","message":"svm: .* iterations' svm.err

expect_status 0 "logreg fit --log-json -q" "$MLT" --log-json -q logreg fit overlap.csv -o m.logreg
printf '%s\n' "$err" > logreg.err
check "logreg: Newton's iterations, under -q too" test "$(events logreg.err 'logreg newton')" -ge 1
check "logreg: -q silences everything else" test "$(grep -vc '^{' logreg.err)" -eq 0

expect_status 0 "kmeans fit --log-json" "$MLT" --log-json kmeans fit overlap.csv --ignore y -k 3 --seed 1 -o m.km
printf '%s\n' "$err" > km.err
check "kmeans: Lloyd's passes" test "$(events km.err 'kmeans lloyd')" -ge 1

expect_status 0 "cv --log-json" "$MLT" --log-json logreg cv overlap.csv --lambda 1e-3:1:4 --folds 3 --no-fast-path
printf '%s\n' "$err" > cv.err
check "cv: its fits are the reports" test "$(events cv.err cv)" -ge 1
check "cv: the last says 12 of 12" grep -q '"task":"cv","unit":"fit","step":12,"total":12,' cv.err
check "cv: no solver report after the cv's first" \
  test "$(sed -n '/"task":"cv"/,$p' cv.err | grep -c '"task":"logreg newton"')" -eq 0

expect_status 0 "notes under --log-json" "$MLT" --log-json ridge cv "$DATA/diabetes.csv" --lambda 1e3:1e5:3
check "... are JSON lines" jq -R -n -e '
  [inputs | select(startswith("{")) | fromjson
   | select((if has("event") then .event else error("no event: \(tojson)") end) == "note")]
  | length > 0 and (.[0].message | contains("smallest of the grid"))' <<<"$err" >/dev/null
check "... and only those: every line of stderr is JSON" test "$(grep -vc '^{' <<<"$err")" -eq 0
expect_status 0 "a library warning under --log-json" "$MLT" --log-json logreg fit overlap.csv --max-iter 1 -o w.logreg
check "... is a JSON warning" jq -R -n -e '
  [inputs | fromjson] | any(.[]; (if has("event") then .event else error("no event: \(tojson)") end) == "warning")' \
  <<<"$err" >/dev/null

expect_status 0 "no --log-json, not a terminal" "$MLT" svm fit overlap.csv --kernel rbf --gamma 1 -o m2.svm
check "no progress on stderr" test "$(grep -c 'smo\|^{' <<<"$err")" -eq 0

if script -qc true /dev/null >/dev/null 2>&1; then
  MLT_PROGRESS_AFTER=0 script -qc "'$MLT' svm fit overlap.csv --kernel rbf --gamma 1 -o m3.svm" /dev/null > tty.out
  check "terminal: the status line is drawn in place" grep -qa $'\r\033\[Kmlt: svm smo: iteration [0-9]*, gap ' tty.out
  check "terminal: ... and cleared before the summary" grep -qa $'\r\033\[Kmlt: svm: ' tty.out
  # Nothing before the threshold: one far above the fit's time, so that no machine's
  # speed (a sanitizer build under load takes seconds) decides the check.
  MLT_PROGRESS_AFTER=3600 script -qc "'$MLT' svm fit overlap.csv --kernel rbf --gamma 1 -o m4.svm" /dev/null > tty2.out
  check "terminal: nothing before the threshold" test "$(grep -ca 'svm smo' tty2.out)" -eq 0
  MLT_PROGRESS_AFTER=0 script -qc "'$MLT' -q svm fit overlap.csv --kernel rbf --gamma 1 -o m5.svm" /dev/null > tty3.out
  check "terminal: -q draws nothing" test ! -s tty3.out
else
  echo "skipped: the status line on a terminal (no pseudo-terminal here)" >&2
fi
finish
