// Every MPI call of mlt (see distributed.hpp).
#include "mlt/core/distributed.hpp"

// The C API only: not the C++ bindings MPI-3 removed.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "mlt/core/error.hpp"

namespace mlt {
namespace {

// Byte counts go to MPI as int: a payload of 2 GiB or more is a bug here (the
// largest is a p x p scatter, p in the thousands), said instead of truncated.
int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(INT_MAX))
    throw Error("internal: an MPI message of " + std::to_string(n) + " bytes", kExitSoftware);
  return static_cast<int>(n);
}

void check(int status, const char* what) {
  if (status != MPI_SUCCESS) throw Error(std::string("MPI: ") + what + " failed", kExitSoftware);
}

class MpiWorld final : public Communicator {
 public:
  MpiWorld() {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }

  std::vector<std::string> allgather(const std::string& local) const override {
    std::vector<int> counts(size_), offsets(size_);
    const int mine = count_of(local.size());
    check(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD), "MPI_Allgather");
    std::string all = receive_buffer(counts, offsets);
    check(MPI_Allgatherv(local.data(), mine, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return split(all, counts, offsets);
  }

  std::vector<std::string> gather(const std::string& local, int root) const override {
    std::vector<int> counts(size_), offsets(size_);
    const int mine = count_of(local.size());
    check(MPI_Gather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, root, MPI_COMM_WORLD), "MPI_Gather");
    std::string all = rank_ == root ? receive_buffer(counts, offsets) : std::string();
    check(MPI_Gatherv(local.data(), mine, MPI_CHAR, all.data(), counts.data(), offsets.data(), MPI_CHAR, root,
                      MPI_COMM_WORLD),
          "MPI_Gatherv");
    return rank_ == root ? split(all, counts, offsets) : std::vector<std::string>{};
  }

  void broadcast(std::string& bytes, int root) const override {
    unsigned long long n = bytes.size();
    check(MPI_Bcast(&n, 1, MPI_UNSIGNED_LONG_LONG, root, MPI_COMM_WORLD), "MPI_Bcast");
    bytes.resize(n);
    check(MPI_Bcast(bytes.data(), count_of(n), MPI_CHAR, root, MPI_COMM_WORLD), "MPI_Bcast");
  }

 private:
  static std::string receive_buffer(const std::vector<int>& counts, std::vector<int>& offsets) {
    std::size_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
      offsets[r] = count_of(total);
      total += static_cast<std::size_t>(counts[r]);
    }
    count_of(total);
    return std::string(total, '\0');
  }
  static std::vector<std::string> split(const std::string& all, const std::vector<int>& counts,
                                        const std::vector<int>& offsets) {
    std::vector<std::string> parts;
    for (std::size_t r = 0; r < counts.size(); ++r) parts.push_back(all.substr(offsets[r], counts[r]));
    return parts;
  }

  int rank_ = 0, size_ = 1;
};

std::unique_ptr<MpiWorld> mpi_world;

// The launcher's world size, or 0 if no launcher said one.
long launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* v = std::getenv(name)) return std::strtol(v, nullptr, 10);
  return 0;
}

}  // namespace

const Communicator& single_process() {
  static const SingleProcess one;
  return one;
}

const Communicator& world() { return mpi_world ? static_cast<const Communicator&>(*mpi_world) : single_process(); }

void start_world(int& argc, char**& argv) {
  const long size = launcher_size();
  if (size == 1 || (size == 0 && !std::getenv("PMIX_RANK"))) return;
  // Threads (the CSV parser's, OpenBLAS's) never call MPI: only the main thread does.
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  mpi_world = std::make_unique<MpiWorld>();
  if (mpi_world->size() == 1) stop_world();  // a PMIx launcher of one rank
}

void stop_world() {
  if (!mpi_world) return;
  mpi_world.reset();
  MPI_Finalize();
}

void agree(const Communicator& comm, std::exception_ptr failure) {
  // Each rank's outcome: "" (success) or its exit status, a space and its message.
  std::string mine;
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const Error& e) {
      mine = std::to_string(e.exit_status()) + " " + e.what();
    } catch (const std::bad_alloc&) {
      mine = std::to_string(kExitSoftware) + " out of memory";
    } catch (const std::exception& e) {
      mine = std::to_string(kExitSoftware) + " internal error: " + e.what();
    }
  }
  if (comm.size() == 1) {
    if (failure) std::rethrow_exception(failure);
    return;
  }
  for (const std::string& outcome : comm.allgather(mine)) {
    if (outcome.empty()) continue;
    if (failure && outcome == mine) std::rethrow_exception(failure);  // this rank's own, with its type
    const std::size_t space = outcome.find(' ');
    throw Error(outcome.substr(space + 1), std::atoi(outcome.substr(0, space).c_str()));
  }
}

std::string to_bytes(const std::vector<double>& values) {
  std::string bytes(values.size() * sizeof(double), '\0');
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<double> doubles_of(const std::string& bytes) {
  if (bytes.size() % sizeof(double) != 0)
    throw Error("internal: " + std::to_string(bytes.size()) + " bytes are not doubles", kExitSoftware);
  std::vector<double> values(bytes.size() / sizeof(double));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

void allreduce_sum(const Communicator& comm, std::vector<double>& values) {
  if (comm.size() == 1) return;
  const std::vector<std::string> all = comm.allgather(to_bytes(values));
  std::vector<double> sum = doubles_of(all[0]);
  for (std::size_t r = 1; r < all.size(); ++r) {
    const std::vector<double> theirs = doubles_of(all[r]);
    if (theirs.size() != sum.size())
      throw Error("internal: allreduce_sum of " + std::to_string(theirs.size()) + " values against " +
                      std::to_string(sum.size()),
                  kExitSoftware);
    for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += theirs[i];
  }
  values = std::move(sum);
}

RankOffset exclusive_prefix_sum(const Communicator& comm, std::uint64_t local) {
  RankOffset at;
  const std::vector<std::string> all =
      comm.allgather(std::string(reinterpret_cast<const char*>(&local), sizeof local));
  for (std::size_t r = 0; r < all.size(); ++r) {
    std::uint64_t theirs;
    std::memcpy(&theirs, all[r].data(), sizeof theirs);
    if (static_cast<int>(r) < comm.rank()) at.before += theirs;
    at.total += theirs;
  }
  return at;
}

}  // namespace mlt
