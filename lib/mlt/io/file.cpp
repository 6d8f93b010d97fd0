#include "mlt/io/file.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include "mlt/core/error.hpp"

namespace mlt::io {
namespace {

// Temporaries in flight, for the signal handler. Plain arrays and atomics only:
// a handler may touch nothing else.
constexpr int kSlots = 16;
constexpr std::size_t kPathMax = 4096;
char temp_paths[kSlots][kPathMax];
std::atomic<bool> slot_used[kSlots];

void remove_temporaries(int sig) {
  for (int i = 0; i < kSlots; ++i)
    if (slot_used[i].load()) ::unlink(temp_paths[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

int claim_slot(const std::string& path) {
  if (path.size() >= kPathMax) return -1;
  for (int i = 0; i < kSlots; ++i) {
    bool expected = false;
    if (slot_used[i].load() == false) {
      std::memcpy(temp_paths[i], path.c_str(), path.size() + 1);
      if (slot_used[i].compare_exchange_strong(expected, true)) return i;
    }
  }
  return -1;
}

std::string directory_of(const std::string& path) {
  auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Writes all n bytes, retrying interrupted and partial writes.
void write_all(int fd, const std::string& path, const char* p, std::size_t left) {
  while (left > 0) {
    ssize_t w = ::write(fd, p, left);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EPIPE) throw BrokenPipe();
      throw IoError((path == "-" ? std::string("standard output") : path) + ": write failed: " + std::strerror(errno));
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
}

// SIGBUS: the CSV reader maps regular files in memory (csv.cpp), and a mapped page
// past the end of a file truncated meanwhile cannot be read. Said in one line (with
// write(2): nothing else is safe in a handler), then as any other fatal signal.
void input_truncated(int sig) {
  static const char message[] = "mlt: error: an input file was truncated while it was read (SIGBUS)\n";
  [[maybe_unused]] const ssize_t w = ::write(2, message, sizeof message - 1);
  remove_temporaries(sig);
}

}  // namespace

void install_cleanup_handlers() {
  // Past a file-size limit (ulimit -f) a write fails with EFBIG instead of the signal
  // killing the process: the error is reported and the temporary removed as for any
  // failed write.
  ::signal(SIGXFSZ, SIG_IGN);
  // A reader that went away (| head) makes a write fail with EPIPE, which ends the run
  // as an error does (BrokenPipe, status 141), unwinding: the temporaries of the other
  // outputs are removed. The signal's default would kill the process with them left.
  ::signal(SIGPIPE, SIG_IGN);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGBUS}) {
    struct sigaction sa {};
    sa.sa_handler = sig == SIGBUS ? input_truncated : remove_temporaries;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

namespace {

// The file a chain of symbolic links ends at (which may not exist yet: a dangling
// link is written through, creating its target, as open(2) would).
std::string resolve_links(const std::string& path) {
  std::string p = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    std::vector<char> buf(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 2);
    const ssize_t n = ::readlink(p.c_str(), buf.data(), buf.size() - 1);
    if (n < 0) throw OutputError(path + ": cannot read the link: " + std::strerror(errno));
    const std::string link(buf.data(), static_cast<std::size_t>(n));
    p = link.starts_with('/') ? link : directory_of(p) + "/" + link;
  }
  throw OutputError(path + ": cannot create: " + std::strerror(ELOOP));
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path) {
  if (path == "-") {
    fd_ = 1;
    return;
  }
  target_ = resolve_links(path);
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw OutputError(path + ": is a directory");
  if (::stat(target_.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    // A device or a FIFO: written in place. Renaming a file over it would replace
    // the device (run as root, -o /dev/null would destroy /dev/null).
    fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) throw OutputError(path + ": cannot open: " + std::strerror(errno));
    owns_fd_ = true;
    buffer_.reserve(1 << 20);
    return;
  }
  const std::string dir = directory_of(target_);
  // Hidden name beside the target, so the rename stays on one file system.
  const std::string templ = (target_.find('/') == std::string::npos ? std::string() : dir + "/") + "." +
                            base_name(target_) + ".tmp-XXXXXX";
  for (int attempt = 0;; ++attempt) {
    std::vector<char> name(templ.begin(), templ.end());
    name.push_back('\0');
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) throw OutputError(path + ": cannot create: " + std::strerror(errno));
    owns_fd_ = true;
    temp_path_ = name.data();
    // The lock marks the temporary as in use: remove_stale_temporaries() of another
    // run removes only unlocked ones, and the kernel drops the lock when this process
    // dies, however it dies. Between creating and locking, another run may have taken
    // the file for stale and removed it; then start again.
    struct stat mine, there;
    const bool locked = ::flock(fd_, LOCK_EX | LOCK_NB) == 0;
    if ((locked || errno != EWOULDBLOCK) && ::fstat(fd_, &mine) == 0 && ::stat(temp_path_.c_str(), &there) == 0 &&
        mine.st_ino == there.st_ino && mine.st_dev == there.st_dev)
      break;
    ::close(fd_);
    fd_ = -1;
    if (attempt == 3) throw OutputError(path + ": cannot create a temporary file beside it");
  }
  slot_ = claim_slot(temp_path_);
  // mkstemp creates 0600; give the file the permissions a plain creat() would.
  mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  buffer_.reserve(1 << 20);
}

OutputFile::~OutputFile() {
  if (owns_fd_ && fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_path_.empty()) ::unlink(temp_path_.c_str());
  if (slot_ >= 0) slot_used[slot_].store(false);
}

void OutputFile::write(std::string_view data) {
  if (buffer_.size() + data.size() < (1 << 20)) {
    buffer_.append(data);
    return;
  }
  // A large write (a model's binary section) goes to the file as it is, not through
  // a copy in the buffer.
  flush();
  write_all(fd_, path_, data.data(), data.size());
}

void OutputFile::flush() {
  write_all(fd_, path_, buffer_.data(), buffer_.size());
  buffer_.clear();
}

void OutputFile::commit() {
  flush();
  if (!owns_fd_) return;  // standard output
  if (temp_path_.empty()) {  // a device or FIFO: no fsync (a character device may refuse it)
    const int rc = ::close(fd_);
    fd_ = -1;
    if (rc != 0) throw IoError(path_ + ": write failed: " + std::strerror(errno));
    committed_ = true;
    return;
  }
  if (::fsync(fd_) != 0 || ::close(fd_) != 0) {
    int err = errno;
    fd_ = -1;
    throw IoError(path_ + ": write failed: " + std::strerror(err));
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), target_.c_str()) != 0)
    throw OutputError(path_ + ": cannot rename into place: " + std::strerror(errno));
  committed_ = true;
  int dfd = ::open(directory_of(target_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  remove_stale_temporaries();
}

// Temporaries of this target whose run was killed (SIGKILL: no handler runs)
// are known by name and by holding no lock; one that a running process still writes
// is locked and kept.
void OutputFile::remove_stale_temporaries() const {
  const std::string dir = directory_of(target_);
  // Appended rather than "." + base_name(...): GCC 12 warns on that operator+ at -O3
  // (-Wstringop-overflow, a false positive: GCC bug 105651).
  std::string prefix = ".";
  prefix.append(base_name(target_)).append(".tmp-");
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* entry = ::readdir(d)) {
    const std::string name = entry->d_name;
    if (name.size() != prefix.size() + 6 || !name.starts_with(prefix)) continue;
    const std::string stale = (target_.find('/') == std::string::npos ? std::string() : dir + "/") + name;
    if (stale == temp_path_) continue;
    const int fd = ::open(stale.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) continue;
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0)
      ::unlink(stale.c_str());
    ::close(fd);
  }
  ::closedir(d);
}

namespace {
// Opens a file to read ("-": standard input, fd 0); InputError if it cannot be
// opened or is a directory. `st` is its status.
int open_to_read(const std::string& path, struct stat& st) {
  int fd = 0;
  if (path != "-") {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  }
  if (::fstat(fd, &st) != 0) st = {};
  if (S_ISDIR(st.st_mode)) {
    if (fd) ::close(fd);
    throw InputError(path + ": is a directory");
  }
  return fd;
}

// Everything left to read from fd into `out` (sized once when the file says how big
// it is; /proc files and pipes say 0 and grow it as they come), then closes it.
void read_rest(int fd, const std::string& path, const struct stat& st, std::string& out) {
  if (S_ISREG(st.st_mode) && st.st_size > 0) out.reserve(static_cast<std::size_t>(st.st_size));
  char buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r == 0) break;
    if (r < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      if (fd) ::close(fd);
      throw IoError(path + ": read failed: " + std::strerror(err));
    }
    out.append(buf, static_cast<std::size_t>(r));
  }
  if (fd) ::close(fd);
}
}  // namespace

std::string read_whole_file(const std::string& path) {
  struct stat st;
  const int fd = open_to_read(path, st);
  std::string out;
  read_rest(fd, path, st, out);
  return out;
}

FileBytes::FileBytes(const std::string& path) {
  struct stat st;
  const int fd = open_to_read(path, st);
  if (fd != 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto size = static_cast<std::size_t>(st.st_size);
    void* m = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (m != MAP_FAILED) {
      ::close(fd);
      map_ = m;
      size_ = size;
      return;
    }
  }
  read_rest(fd, path, st, read_);
}

FileBytes::~FileBytes() {
  if (map_) ::munmap(map_, size_);
}

std::string_view FileBytes::view() const {
  return map_ ? std::string_view(static_cast<const char*>(map_), size_) : std::string_view(read_);
}

bool same_file(const std::string& a, const std::string& b) {
  if (a == "-" || b == "-") return false;
  struct stat sa, sb;
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

}  // namespace mlt::io
