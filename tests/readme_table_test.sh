#!/usr/bin/env bash
# The README's performance table is what `scripts/bench --table` makes of the committed
# results, byte for byte: no figure in it is edited by hand or left from older results.
set -euo pipefail
cd "$(dirname "$0")/.."
in_readme=$(sed -n '/^<!-- bench-table/,/^<!-- end bench-table/p' README.md | sed '1d;$d')
generated=$(/usr/bin/python3 scripts/bench --table)
if [ "$in_readme" != "$generated" ]; then
  diff -u <(printf '%s\n' "$in_readme") <(printf '%s\n' "$generated") | head -20 >&2
  echo "FAIL: README.md's table is not scripts/bench --table's: run scripts/bench --table --update-readme" >&2
  exit 1
fi
echo "README.md's table matches scripts/bench --table"
