# How the MPI tests run mpirun, in one place (sourced by mpi_test.sh and
# mpi_predict_test.sh after lib.sh): as root (containers, CI) only when told so, more
# ranks than cores, and the shared-memory transport without the single-copy mechanism
# (CMA needs ptrace rights that containers often lack).
if ! command -v mpirun >/dev/null; then
  echo "$(basename "$0"): FAIL: mpirun not found (scripts/install-deps installs openmpi-bin)" >&2
  exit 1
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Under the sanitizer build the ranks run without LeakSanitizer (AddressSanitizer and
# UBSan stay on, and every single-process run keeps leak checks): OpenMPI leaves
# allocations behind in components it dlopens and unloads at MPI_Finalize, so the
# leaks' frames are "<unknown module>" and no suppression can name them narrowly.
# mpi N CMD...: CMD on N ranks.
mpi() {
  local n=$1
  shift
  local asan=${ASAN_OPTIONS:-}
  [ -n "${MLT_SANITIZED:-}" ] && asan="${asan:+$asan:}detect_leaks=0"
  ASAN_OPTIONS=$asan mpirun --oversubscribe --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
    -np "$n" "$@"
}

# count PATTERN TEXT: how many lines of TEXT match (a message said once, by rank 0).
count() { grep -cE -- "$1" <<<"$2"; }
