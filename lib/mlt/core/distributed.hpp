// The ranks of a data-parallel run, behind a communicator that algorithms use without
// seeing MPI.
//
// One binary runs alone or as N ranks under an MPI launcher (`mpirun -np 4 mlt ...`,
// `srun mlt ...`). MPI is started only when a launcher started the process and the
// world has more than one rank (start_world): a plain run never calls MPI_Init, whose
// singleton start is slow, may spawn a daemon, and leaks under AddressSanitizer; and
// `-np 1` takes the single-process path, so its output is a plain run's. Every MPI call is
// in distributed.cpp.
//
// Collectives are what their names say: every rank calls them, in the same order, or
// the run hangs. An error on one rank must therefore reach the others at a point all
// of them pass: agree() is that point (each rank brings its own outcome; if any rank
// failed, every rank throws the first failing rank's error, message and status), and
// between two agreement points a rank may fail only locally.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace mlt {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;  // 0 .. size() - 1
  virtual int size() const = 0;  // >= 1
  // Every rank's `local`, in rank order, on every rank.
  virtual std::vector<std::string> allgather(const std::string& local) const = 0;
  // Every rank's `local`, in rank order, on `root`; empty on the others.
  virtual std::vector<std::string> gather(const std::string& local, int root) const = 0;
  // `bytes` of `root` on every rank (replacing theirs).
  virtual void broadcast(std::string& bytes, int root) const = 0;
};

// The one-process world: rank 0 of 1, every collective the identity.
class SingleProcess final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::vector<std::string> allgather(const std::string& local) const override { return {local}; }
  std::vector<std::string> gather(const std::string& local, int) const override { return {local}; }
  void broadcast(std::string&, int) const override {}
};
const Communicator& single_process();

// The collective failure check. `failure`: this rank's error (null: it succeeded).
// Returns when no rank failed; otherwise throws, on every rank, the error of the
// lowest-ranked failing rank: an mlt::Error with its message and exit status (any
// other exception becomes an internal error, status 70). Rank order is file order
// for a byte-range split, so the error reported is the first in the file, as one
// process reading the whole file reports it.
void agree(const Communicator& comm, std::exception_ptr failure);

// Doubles <-> bytes, to send numbers through the byte collectives (same machine
// representation on every rank: MPI's homogeneous case).
std::string to_bytes(const std::vector<double>& values);
std::vector<double> doubles_of(const std::string& bytes);

// `values` summed over the ranks, on every rank: every rank brings the same count, and
// the sum is taken in rank order (((v₀ + v₁) + v₂) + …), so it is the same bits on
// every rank and for every run of N ranks (an MPI_Allreduce may sum in any order).
// Cost: the ranks' values gathered on every rank, N·len doubles each.
void allreduce_sum(const Communicator& comm, std::vector<double>& values);
// The sum over the ranks of `local` before this one (rank 0: 0), and the total: a
// rank's first global row index is the exclusive prefix sum of the ranks' counts.
struct RankOffset {
  std::uint64_t before = 0, total = 0;
};
RankOffset exclusive_prefix_sum(const Communicator& comm, std::uint64_t local);

// The process's world: MPI's when start_world started it, else single_process().
const Communicator& world();
// Starts MPI when a launcher started this process with more than one rank: OpenMPI's
// mpirun sets OMPI_COMM_WORLD_SIZE, PMI launchers (MPICH's hydra, srun --mpi=pmi2)
// PMI_SIZE, Slurm's srun SLURM_STEP_NUM_TASKS (not set in a batch script itself, so
// a plain run there stays a plain run); a PMIx launcher that names a rank (PMIX_RANK)
// but none of those sizes is asked for the size by MPI itself. Call once, early in
// main, before any thread starts. Under a launcher of one rank, or none, does nothing.
void start_world(int& argc, char**& argv);
// Ends MPI if start_world started it (every rank must call it on its way out).
void stop_world();

}  // namespace mlt
