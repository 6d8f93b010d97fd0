// Files in and out, with the guarantees scripts rely on: an output is written to a
// temporary file beside its target and renamed into place only when complete, so a
// failed or interrupted run leaves the previous file (or none), never half a file.
//
// What the target is decides how it is written, as GNU tools do:
//   absent or a regular file  temporary beside it, renamed over it on commit
//   a symbolic link           the same, for the file the link resolves to: the link stays
//   a character device, FIFO  opened and written directly (/dev/null, /dev/stdout, a
//   (anything not a regular   pipe): renaming over one would replace the device itself
//   file or directory)
//   a directory               refused (OutputError)
#pragma once

#include <string>
#include <string_view>

namespace mlt::io {

// Installs SIGINT, SIGTERM and SIGHUP handlers that remove unfinished temporary
// files, then let the signal take its default effect. Call once, early in main.
void install_cleanup_handlers();

class OutputFile {
 public:
  // "-" is standard output (written through, no temporary). Otherwise the temporary
  // file (or the device) is opened at once, so an unwritable place fails
  // (OutputError) before any long computation. Temporaries of the same target left
  // by killed runs (SIGKILL, SIGXFSZ) are removed on commit.
  explicit OutputFile(const std::string& path);
  ~OutputFile();  // an uncommitted temporary is removed
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Buffered; throws IoError (disk full, ...) or BrokenPipe (reader gone).
  void write(std::string_view data);
  // Flushes, syncs, and renames the temporary onto the target (then syncs the
  // directory, so the rename itself survives a crash). A device is only flushed.
  void commit();
  const std::string& path() const { return path_; }

 private:
  void flush();
  void remove_stale_temporaries() const;
  std::string path_;
  std::string target_;     // path_ with symbolic links resolved: what is replaced
  std::string temp_path_;  // empty when writing directly (standard output, a device)
  std::string buffer_;
  int fd_ = -1;
  bool owns_fd_ = false;  // false for standard output
  int slot_ = -1;  // in the signal handler's list of temporaries
  bool committed_ = false;
};

// The whole content of a file, or of standard input for "-".
// Throws InputError if it cannot be opened (missing, a directory, no permission).
std::string read_whole_file(const std::string& path);

// The same, held for as long as the object lives, without a copy where it can: a
// regular file is mapped read-only, so its bytes are the page cache's own (a 50 MB
// model costs no 50 MB buffer, nor the 12,000 page faults of filling one); standard
// input, pipes and devices are read. A file truncated in place while mapped would
// fault (SIGBUS) when read; mlt replaces its files by renaming a complete one over
// them, which never changes the mapped one.
class FileBytes {
 public:
  explicit FileBytes(const std::string& path);  // InputError, IoError as read_whole_file
  ~FileBytes();
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  std::string_view view() const;

 private:
  void* map_ = nullptr;  // the mapping, or null: the bytes are in read_
  std::size_t size_ = 0;
  std::string read_;
};

// True when both paths name the same existing file (through ./, links, ...).
bool same_file(const std::string& a, const std::string& b);

}  // namespace mlt::io
