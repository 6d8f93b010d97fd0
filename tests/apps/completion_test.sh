#!/usr/bin/env bash
# mlt completion bash: the generated script completes commands, verbs, flags, the
# choices of a flag and file names, as a user would press TAB; every command of `mlt
# --help` and every verb of each is offered. (zsh loads the same definitions through
# bashcompinit; zsh is not needed to test them.)
source "$(dirname "$0")/lib.sh" "$@"

expect_status 0 "completion bash" "$MLT" completion bash
printf '%s\n' "$out" > mlt.bash
check "the script parses" bash -n mlt.bash
expect_status 0 "completion zsh" "$MLT" completion zsh
check "zsh's loads bash's definitions" grep -q "bashcompinit" <<<"$out"
expect_status 2 "completion fish is refused" "$MLT" completion fish
touch data.csv model.knn

# complete WORDS...: what TAB offers after WORDS (the last word is the one being typed).
complete_words() {
  bash -c 'source ./mlt.bash; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _mlt; echo "${COMPREPLY[*]}"' \
    _ "$@"
}
commands=$("$MLT" --help | sed -n '/^Subcommands:/,/^$/{/^  [a-z]/{s/^  \([a-z]*\).*/\1/;p}}' | tr '\n' ' ')
check "every command is offered" test "$(complete_words mlt '') " = "$commands"
for c in pca knn svm; do
  verbs=$("$MLT" "$c" --help | sed -n '/^Subcommands:/,/^$/{/^  [a-z]/{s/^  \([a-z]*\).*/\1/;p}}' | tr '\n' ' ')
  check "$c: every verb is offered" test "$(complete_words mlt "$c" '') " = "$verbs"
done
check "a prefix" test "$(complete_words mlt p)" = "pca perceptron plot"
check "a flag" test "$(complete_words mlt pca fit data.csv --ker)" = "--kernel"
check "a flag's choices" test "$(complete_words mlt pca fit data.csv --kernel '')" = \
  "linear poly rbf laplacian exponential sigmoid spectrum walk precomputed"
check "choices after a global flag and its value" test "$(complete_words mlt --threads 2 svm fit x.csv --loss s)" = \
  "squared_hinge"
check "global flags too" test "$(complete_words mlt knn fit data.csv --thr)" = "--threads"
check "files where a file goes" test "$(complete_words mlt knn predict model.knn d)" = "data.csv"
check "a flag's file value" test "$(complete_words mlt knn predict model.knn data.csv -o mo)" = "model.knn"
finish
