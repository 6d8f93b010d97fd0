#!/usr/bin/env bash
# I/O faults (BAD-INPUTS.md E): unwritable places, full disks, closed pipes, signals.
# Nothing half-written: a target is either its old content or absent.
source "$(dirname "$0")/lib.sh" "$@"
IRIS=$DATA/iris.csv

expect_error 73 "cannot create" "output directory missing" "$MLT" pca fit "$IRIS" --ignore species -o nodir/m.pca
check "nothing created" test ! -e nodir
if [ "$(id -u)" -ne 0 ]; then
  mkdir ro && chmod 555 ro
  expect_error 73 "cannot create" "output directory read-only" "$MLT" pca fit "$IRIS" --ignore species -o ro/m.pca
fi
mkdir adir
expect_error 73 "is a directory" "output is a directory" "$MLT" pca fit "$IRIS" --ignore species -o adir

# Full disk on standard output: 74 with the system's words.
if [ -w /dev/full ]; then
  "$MLT" pca fit "$IRIS" --ignore species -o m.pca
  expect_error 74 "No space left on device" "stdout is /dev/full" sh -c "'$MLT' pca transform m.pca '$IRIS' > /dev/full"
fi

# A failed run keeps the previous model.
"$MLT" pca fit "$IRIS" --ignore species -k 2 -o keep.pca
before=$(sha256sum keep.pca)
printf 'a,b\n1,x\n' > bad.csv
expect_status 65 "failing fit" "$MLT" pca fit bad.csv -o keep.pca
check "previous model intact" test "$(sha256sum keep.pca)" = "$before"
check "no temporary left" test -z "$(ls -A | grep '\.tmp-')"

# A closed pipe: quiet, status 141 (SIGPIPE), as any filter. 40,000 rows: 2.4 MB of
# output, past mlt's 1 MiB output buffer and the 64 KiB a pipe holds, so that a write
# is still to come when the reader goes.
"$PYTHON" - <<'PY'
import random
random.seed(1)
with open("big.csv", "w") as f:
    f.write("a,b,c\n")
    for i in range(40000):
        f.write("%r,%r,%r\n" % (random.random(), random.random(), random.random()))
PY
"$MLT" pca fit big.csv -o big.pca
run bash -c "'$MLT' pca transform big.pca big.csv | head -1; exit \${PIPESTATUS[0]}"
check "head -1: status 141" test "$rc" -eq 141
check "head -1: nothing on stderr" test -z "$err"
# With SIGPIPE ignored by the parent, EPIPE is still a quiet stop.
run "$PYTHON" -c "
import signal, subprocess, sys
signal.signal(signal.SIGPIPE, signal.SIG_IGN)
p = subprocess.Popen(['$MLT', 'pca', 'transform', 'big.pca', 'big.csv'], stdout=subprocess.PIPE, stderr=subprocess.PIPE, restore_signals=False)
p.stdout.readline(); p.stdout.close()
err = p.stderr.read(); sys.stderr.write(err.decode()); sys.exit(p.wait())"
check "EPIPE: status 141" test "$rc" -eq 141
check "EPIPE: nothing on stderr" test -z "$err"

# Killed while writing: the target holds the old content, no temporary remains.
"$PYTHON" - <<'PY'
import random
random.seed(2)
with open("wide.csv", "w") as f:
    f.write(",".join("x%d" % j for j in range(300)) + "\n")
    for i in range(3000):
        f.write(",".join("%r" % random.random() for j in range(300)) + "\n")
PY
"$MLT" pca fit "$IRIS" --ignore species -o target.pca
before=$(sha256sum target.pca)
for sig in INT TERM; do
  for delay in 0.05 0.2 0.5; do
    "$MLT" pca fit wide.csv -o target.pca 2>/dev/null &
    pid=$!
    sleep "$delay"
    kill -s "$sig" "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    now=$(sha256sum target.pca)
    # Either the old model, or (if the fit finished first) a complete new one.
    if [ "$now" != "$before" ]; then
      "$MLT" info target.pca >/dev/null 2>&1
      check "SIG$sig after ${delay}s: new model is complete" test $? -eq 0
      "$MLT" pca fit "$IRIS" --ignore species -o target.pca
      before=$(sha256sum target.pca)
    else
      pass
    fi
    check "SIG$sig after ${delay}s: no temporary left" test -z "$(ls -A | grep '\.tmp-')"
  done
done

# ulimit -f below the model size: the kernel stops the write, the target survives.
"$MLT" pca fit "$IRIS" --ignore species -o small.pca
before=$(sha256sum small.pca)
run bash -c "ulimit -f 1; '$MLT' pca fit wide.csv -o small.pca"
check "file size limit: failure status" test "$rc" -ne 0
check "file size limit: target intact" test "$(sha256sum small.pca)" = "$before"

# Durability: fsync of the temporary before the rename, then of the directory.
if command -v strace >/dev/null; then
  run strace -f -e trace=fsync,rename,renameat,renameat2 -o trace.txt "$MLT" pca fit "$IRIS" --ignore species -o d.pca
  order=$(grep -oE '^[0-9]+ +(fsync|rename[a-z0-9]*)' trace.txt | awk '{print $2}' | tr '\n' ' ')
  check "fsync(temp), rename, fsync(dir): got '$order'" test "$order" = "fsync rename fsync "
fi
finish
