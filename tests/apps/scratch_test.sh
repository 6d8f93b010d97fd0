#!/usr/bin/env bash
# The test scripts cannot contaminate each other: a script whose scratch directory
# cannot be created stops at once (status 1, one FATAL line) without running a
# command or writing a file, and a working script leaves nothing behind. A spy stands
# in for the mlt binary and logs each call, so "no command ran" is observed, not
# assumed; the controls show the spy does see the commands of a script that runs.
source "$(dirname "$0")/lib.sh" "$@"
APPS=$SRC/tests/apps

cat > spy <<SPY
#!/bin/sh
echo "\$*" >> "$WORK/spy.log"
SPY
chmod +x spy
# A minimal test script: one command through the helpers.
cat > mini_test.sh <<MINI
source "$APPS/lib.sh" "\$@"
expect_status 0 "the spy runs" "\$MLT" hello
finish
MINI

# Runs SCRIPT with TMPDIR=$1 from the empty directory cwd/, the spy as the binary.
run_with_tmpdir() {
  local tmpdir=$1 script=$2
  rm -f spy.log
  rm -rf cwd && mkdir cwd
  run sh -c 'cd cwd && TMPDIR="$1" exec bash "$2" "$3" "$4"' sh "$tmpdir" "$script" "$WORK/spy" "$SRC"
}

# Controls: with a usable TMPDIR (absolute, or relative to the current directory) the
# spy sees the command and the helpers work; the scratch directory is removed.
mkdir tmp
run_with_tmpdir "$WORK/tmp" "$WORK/mini_test.sh"
check "control: exit 0 (stderr: $err)" test "$rc" -eq 0
check "control: the spy saw the command" test "$(cat spy.log 2>/dev/null)" = "hello"
check "control: scratch directory removed" test -z "$(ls -A tmp)"
check "control: nothing written in the current directory" test -z "$(ls -A cwd)"
run sh -c 'mkdir -p cwd/rel && cd cwd && TMPDIR=rel exec bash "$1" "$2" "$3"' sh "$WORK/mini_test.sh" "$WORK/spy" "$SRC"
check "relative TMPDIR: exit 0 (stderr: $err)" test "$rc" -eq 0
check "relative TMPDIR: scratch directory removed" test -z "$(ls -A cwd/rel)"

# No scratch directory: the mini script and every real test script stop before any
# command, with one FATAL line, status 1, and no file written.
for tmpdir in /nonexistent/mlt-scratch "$WORK/spy"; do  # a missing folder; a file
  run_with_tmpdir "$tmpdir" "$WORK/mini_test.sh"
  check "mini, TMPDIR=$tmpdir: status 1" test "$rc" -eq 1
  check "mini, TMPDIR=$tmpdir: FATAL message" grep -q "^mini_test.sh: FATAL: cannot create or enter a scratch directory" <<<"$err"
  check "mini, TMPDIR=$tmpdir: no command ran" test ! -e spy.log
  check "mini, TMPDIR=$tmpdir: no summary line" test -z "$out"
done
n=0
for script in "$APPS"/*_test.sh; do
  name=$(basename "$script")
  [ "$name" = scratch_test.sh ] && continue
  n=$((n + 1))
  run_with_tmpdir /nonexistent/mlt-scratch "$script"
  check "$name, no scratch directory: status 1, got $rc" test "$rc" -eq 1
  check "$name, no scratch directory: FATAL message (stderr: $err)" grep -q "^$name: FATAL: " <<<"$err"
  check "$name, no scratch directory: no command ran ($(head -3 spy.log 2>/dev/null))" test ! -e spy.log
  check "$name, no scratch directory: nothing written in the current directory" test -z "$(ls -A cwd)"
done
check "every other test script was tried ($n)" test "$n" -ge 10
finish
