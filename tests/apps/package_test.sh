#!/usr/bin/env bash
# The Debian package (cpack -G DEB, configured in CMakeLists.txt): built from this
# build directory, unpacked into a scratch root (dpkg-deb -x, as dpkg would install
# it, without touching the system), its mlt runs from there and finds what it
# installs: man pages and completion in their Debian places, dependencies declared.
source "$(dirname "$0")/lib.sh" "$@"

build=$(dirname "$MLT")
command -v cpack >/dev/null && command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
  { echo "SKIP: cpack, dpkg-deb or dpkg-shlibdeps missing (scripts/install-deps installs them)"; exit 77; }
check "cpack builds the package" sh -c "cd '$build' && cpack -G DEB -B '$PWD/pkg' > '$PWD/cpack.log' 2>&1"
deb=$(ls pkg/mlt_*.deb 2>/dev/null | head -1)
check "one .deb named by Debian's convention" test -n "$deb"
check "the package unpacks into a scratch root" dpkg-deb -x "$deb" root
expect_status 0 "mlt --version from the package" env LD_LIBRARY_PATH= root/usr/bin/mlt --version
check "... names mlt" grep -q "^mlt " <<<"$out"
expect_status 0 "it fits from there" root/usr/bin/mlt pca fit "$SRC/data/iris.csv" --ignore species -k 2 -o iris.pca -q
check "every man page" test "$(ls root/usr/share/man/man1 | sort | tr '\n' ' ')" = \
  "$(ls "$SRC/man" | sed 's/$/.gz/' | sort | tr '\n' ' ')"
check "bash completion where bash-completion loads it" test -s root/usr/share/bash-completion/completions/mlt
check "zsh's beside it" test -s root/usr/share/mlt/mlt.zsh
expect_status 0 "the control file" dpkg-deb -f "$deb" Package Version Depends Section
check "... package mlt, the project's version" grep -qx "Package: mlt" <<<"$out"
check "... version" grep -qx "Version: $("$MLT" --version | awk 'NR==1{print $2}')" <<<"$out"
check "... depends on OpenBLAS and libcrypto (found by dpkg-shlibdeps)" \
  bash -c "grep '^Depends:' <<<'$out' | grep -q openblas && grep '^Depends:' <<<'$out' | grep -q libssl"
finish
