#!/usr/bin/env bash
# The man pages follow the flags the commands take (derived from each algorithm's
# declared parameters, apps/mlt/param_flags.hpp and cv_command.hpp):
#  - every long flag that `mlt ALGO VERB --help` lists appears in man/mlt-ALGO.1,
#    in troff's escaped form (\-\-n\-init), for every verb of the six algorithms
#    (and `mlt score --help`'s in man/mlt-score.1);
#  - every long flag of `mlt --help`, `mlt split --help`, `mlt info --help`, and
#    those every cv verb shares, appears in man/mlt.1;
#  - every long flag a page names, on every page of man/ (sections 1, 5 and 7), is a
#    flag of some mlt command, so that a renamed flag cannot linger: mlt refuses the old
#    names, and only NEWS keeps them. The exceptions, by page, are in EXAMPLES below.
# -h,--help is every command's and is not looked for.
# shellcheck source=lib.sh source-path=SCRIPTDIR disable=SC1091  # followed with shellcheck -x
source "$(dirname "$0")/lib.sh" "$@"
MAN=${MAN_DIR:-$SRC/man}

# subcommands CMD...: the subcommands `mlt CMD... --help` lists, one a line.
subcommands() {
  "$MLT" "$@" --help 2>/dev/null | sed -n '/^Subcommands:/,/^$/{/^  [a-z]/{s/^  \([a-z]*\).*/\1/;p}}'
}
# Every algorithm command mlt has (all but info and split), with its verbs: a new
# command without its man page fails here.
declare -A VERBS=()
ALGOS=()
while read -r algo; do
  case $algo in info | split | completion) continue ;; esac
  ALGOS+=("$algo")
  VERBS[$algo]=$(subcommands "$algo" | tr '\n' ' ')
done < <(subcommands)
check "the algorithm commands are found (${ALGOS[*]})" test "${#ALGOS[@]}" -ge 7
# Long flags a page names that are no mlt command's, on purpose: mlt-design.7 shows
# `scripts/test --fast` (the test script's flag), and the "did you mean" message for a
# misspelt flag (--lamda).
declare -A EXAMPLES=([mlt-design.7]="--fast --lamda")

# long_flags CMD...: the long flags in the options column of `mlt CMD... --help`, one a
# line, sorted; sets help_ok=0 when the help fails or lists none.
long_flags() {
  local help
  help_ok=1
  if ! help=$("$MLT" "$@" --help 2>&1); then
    help_ok=0
    return
  fi
  flags=$(awk '/^Options:/ { on = 1; next }
               /^[^ ]/ { on = 0 }
               on && /^ +-/ { n = split($1, f, ",")
                              for (i = 1; i <= n; i++) if (f[i] ~ /^--/ && f[i] != "--help") print f[i] }' \
            <<<"$help" | sort -u)
  [ -n "$flags" ] || help_ok=0
}

# in_page PAGE FLAG: PAGE names FLAG as troff writes it (--n-init as \-\-n\-init), not
# as the start of a longer flag (\-\-seed in \-\-seed\-x, \-\-na in \-\-name).
in_page() {
  local re=${2//-/\\\\-}
  grep -qE -- "${re}(\$|[^A-Za-z0-9\\]|\\\\([^-]|\$))" "$1"
}

# page_flags PAGE: the long flags PAGE names, unescaped, one a line.
page_flags() {
  grep -oE '(\\-){2}[A-Za-z0-9]+((\\-)[A-Za-z0-9+]+)*' "$1" | sed 's/\\-/-/g' | sort -u
}

all_flags=--help$'\n'
cv_shared=""
first_cv=1
for algo in "${ALGOS[@]}"; do
  page=$MAN/mlt-$algo.1
  check "$page exists" test -f "$page"
  # A command without verbs (mlt score) is checked as itself, written ".".
  for verb in ${VERBS[$algo]:-.}; do
    if [ "$verb" = . ]; then long_flags "$algo"; else long_flags "$algo" "$verb"; fi
    if [ "$help_ok" -ne 1 ]; then
      fail "mlt $algo $verb --help: fails or lists no long flag"
      continue
    fi
    all_flags+=$flags$'\n'
    # (`mlt plot cv` draws a cv report; it is not a cv verb.)
    if [ "$verb" = cv ] && [ "$algo" != plot ]; then
      if [ "$first_cv" -eq 1 ]; then cv_shared=$flags; first_cv=0
      else cv_shared=$(comm -12 <(echo "$cv_shared") <(echo "$flags")); fi
    fi
    while read -r flag; do
      if in_page "$page" "$flag"; then pass
      else fail "mlt $algo $verb $flag: not in man/mlt-$algo.1 (as ${flag//-/\\-})"; fi
    done <<<"$flags"
  done
done

# mlt.1: the global options, split, info and the flags of every cv verb.
for cmd in "" split info; do
  # shellcheck disable=SC2086  # "" is the program itself
  long_flags $cmd
  if [ "$help_ok" -ne 1 ]; then fail "mlt $cmd --help: fails or lists no long flag"; continue; fi
  all_flags+=$flags$'\n'
  while read -r flag; do
    if in_page "$MAN/mlt.1" "$flag"; then pass
    else fail "mlt $cmd $flag: not in man/mlt.1"; fi
  done <<<"$flags"
done
check "the cv verbs share their own flags (--fold-seed)" grep -qx -- --fold-seed <<<"$cv_shared"
while read -r flag; do
  if in_page "$MAN/mlt.1" "$flag"; then pass
  else fail "cv $flag (every cv verb's): not in man/mlt.1"; fi
done <<<"$cv_shared"

# No page names a flag that no command has: the commands' pages (section 1), the model
# file's (5) and the guides (7).
all_flags=$(sort -u <<<"$all_flags")
pages=("$MAN"/*.[1-9])
check "the pages of sections 1, 5 and 7 are found (${#pages[@]})" test -f "$MAN/mlt.1" -a -f "$MAN/mlt-model.5" \
  -a -f "$MAN/mlt-data.7"
for page in "${pages[@]}"; do
  examples=${EXAMPLES[$(basename "$page")]:-}
  while read -r flag; do
    [ -z "$flag" ] && continue
    if grep -qx -- "$flag" <<<"$all_flags"; then pass
    elif grep -qx -- "$flag" <(tr ' ' '\n' <<<"$examples"); then pass
    else fail "$(basename "$page") names $flag, which no mlt command takes"; fi
  done < <(page_flags "$page")
done

finish
