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
# installed_man ROOT: every page of man/ is under ROOT's usr/share/man, gzipped, in the
# directory of its section (man/mlt.1 as man1/mlt.1.gz, man/mlt-model.5 as
# man5/mlt-model.5.gz) with its text unchanged, and nothing else is there.
installed_man() {
  local want got page name
  want=$(cd "$SRC/man" && for page in *; do echo "man${page##*.}"; echo "man${page##*.}/$page.gz"; done | sort -u)
  got=$(cd "$1/usr/share/man" && find . -mindepth 1 | sed 's|^\./||' | sort)
  if [ "$want" != "$got" ]; then
    echo "installed man pages: expected <, found >:" >&2
    diff <(echo "$want") <(echo "$got") | grep '^[<>]' >&2
    return 1
  fi
  for page in "$SRC"/man/*; do
    name=$(basename "$page")
    gzip -dc "$1/usr/share/man/man${name##*.}/$name.gz" 2>/dev/null | cmp -s - "$page" ||
      { echo "installed man pages: man${name##*.}/$name.gz is not man/$name gzipped" >&2; return 1; }
  done
}
check "every man page, gzipped, in the directory of its section, and nothing else" installed_man root
check "bash completion where bash-completion loads it" test -s root/usr/share/bash-completion/completions/mlt
check "zsh's beside it" test -s root/usr/share/mlt/mlt.zsh
expect_status 0 "the control file" dpkg-deb -f "$deb" Package Version Depends Section
check "... package mlt, the project's version" grep -qx "Package: mlt" <<<"$out"
check "... version" grep -qx "Version: $("$MLT" --version | awk 'NR==1{print $2}')" <<<"$out"
check "... depends on OpenBLAS and libcrypto (found by dpkg-shlibdeps)" \
  bash -c "grep '^Depends:' <<<'$out' | grep -q openblas && grep '^Depends:' <<<'$out' | grep -q libssl"
finish
