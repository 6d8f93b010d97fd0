#!/usr/bin/env bash
# Runs a test on one OpenBLAS core type, so that a result that holds only on the
# kernel of the developer's machine fails there and not on a user's.
# Usage: run_on_core.sh CORE MLT COMMAND...   (MLT: the mlt binary, to confirm the core)
# Exit 77 (skipped) when this processor cannot run that core's kernel, or when that
# kernel is the one mlt runs on in this environment: the base run (tier fast) used it.
set -euo pipefail
core=$1 mlt=$2
shift 2
flags=$(grep -m1 '^flags' /proc/cpuinfo)
has() { for f in "$@"; do grep -qw "$f" <<<"$flags" || return 1; done; }
case "$core" in
  Prescott) ;;
  Haswell | Zen) has avx2 fma || { echo "skipped: no AVX2/FMA for $core"; exit 77; } ;;
  SkylakeX) has avx512f avx512dq avx512bw avx512vl || { echo "skipped: no AVX-512 for $core"; exit 77; } ;;
  *) echo "run_on_core.sh: unknown core $core" >&2; exit 2 ;;
esac
base=$("$mlt" --version | sed -n 's/.*kernel \([A-Za-z0-9]*\),.*/\1/p')
[ "$base" != "$core" ] || { echo "skipped: $core is the kernel mlt selects, which the base run used"; exit 77; }
export OPENBLAS_CORETYPE=$core
running=$("$mlt" --version | sed -n 's/.*kernel \([A-Za-z0-9]*\),.*/\1/p')
if [ "$running" != "$core" ]; then
  echo "run_on_core.sh: asked for the $core kernel, OpenBLAS runs $running" >&2
  exit 1
fi
exec "$@"
