#!/usr/bin/env bash
# Hardening (issue #12): each finding of the bad-input sweep as a regression test.
# What -o does with what it points at, inputs that must be refused as data (status
# 65, never the internal-error 70), declared sizes checked before allocating, crafted
# model files with a valid checksum, limits on flags and lines, and the smaller ones.
source "$(dirname "$0")/lib.sh" "$@"
IRIS=$DATA/iris.csv

# --- 1. -o writes through what it points at --------------------------------------
# A symbolic link: the file it points to is replaced (atomically), the link stays.
"$MLT" pca fit "$IRIS" --ignore species -k 1 -o old.pca
mkdir sub && "$MLT" pca fit "$IRIS" --ignore species -k 1 -o sub/real.pca
ln -s sub/real.pca link.pca
expect_status 0 "-o through a symlink" "$MLT" pca fit "$IRIS" --ignore species -k 2 -o link.pca
check "the symlink is still a symlink" test -L link.pca
check "its target was rewritten" test "$(grep -c "^matrix components 2 4" sub/real.pca)" -eq 1
check "no temporary beside the link or the target" test -z "$(ls -A . sub | grep '\.tmp-')"
# A dangling link creates its target.
ln -s sub/new.pca dangling.pca
expect_status 0 "-o through a dangling symlink" "$MLT" pca fit "$IRIS" --ignore species -o dangling.pca
check "dangling link: target created, link kept" test -L dangling.pca -a -f sub/new.pca
# A FIFO is written directly: a reader gets the model, the FIFO stays a FIFO.
mkfifo pipe.pca
timeout 60 cat pipe.pca > from_fifo.pca &
reader=$!
expect_status 0 "-o to a FIFO" "$MLT" pca fit "$IRIS" --ignore species -o pipe.pca
wait "$reader"
check "FIFO still a FIFO" test -p pipe.pca
check "the reader got the whole model" test "$(tail -c 72 from_fifo.pca | head -c 7)" = "sha256 "
expect_status 0 "model read back from what the FIFO carried" "$MLT" info from_fifo.pca
# A character device is written directly: never replaced by a regular file. First
# on a private copy of /dev/null (root only); the real one only if the copy survived,
# so a broken build run as root cannot take /dev/null away from the machine.
device_ok=1
if [ "$(id -u)" -eq 0 ] && mknod nul c 1 3 2>/dev/null; then
  expect_status 0 "-o to a character device" "$MLT" pca fit "$IRIS" --ignore species -o nul
  check "the device is still a device" test -c nul || device_ok=0
  test -c nul || device_ok=0
fi
if [ "$device_ok" -eq 1 ]; then
  expect_status 0 "-o /dev/null" "$MLT" pca fit "$IRIS" --ignore species -o /dev/null
  check "/dev/null is still a character device" test -c /dev/null
  expect_status 0 "transform -o /dev/null" "$MLT" pca transform old.pca "$IRIS" -o /dev/null
  check "/dev/null is still a character device" test -c /dev/null
fi
# A directory, directly or through a link, is refused and left alone.
mkdir adir && ln -s adir dirlink
expect_error 73 "is a directory" "-o a directory" "$MLT" pca fit "$IRIS" --ignore species -o adir
expect_error 73 "is a directory" "-o a link to a directory" "$MLT" pca fit "$IRIS" --ignore species -o dirlink
check "the directory is empty" test -z "$(ls -A adir)"

finish
