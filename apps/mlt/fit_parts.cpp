#include "fit_parts.hpp"

#include <glob.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <fstream>
#include <unordered_map>

#include "cli_support.hpp"
#include "mlt/core/error.hpp"

namespace mlt::app {

std::vector<std::string> shard_paths(const std::string& spec) {
  std::vector<std::string> paths;
  if (!spec.empty() && spec[0] == '@') {
    std::ifstream list(spec.substr(1));
    if (!list) throw InputError(spec.substr(1) + ": cannot open the list of shards");
    for (std::string line; std::getline(list, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (!line.empty()) paths.push_back(line);
    }
    if (paths.empty()) throw UsageError(spec.substr(1) + ": the list of shards names no file");
    return paths;
  }
  glob_t found{};
  const int status = ::glob(spec.c_str(), 0, nullptr, &found);
  if (status == 0)
    for (std::size_t i = 0; i < found.gl_pathc; ++i) paths.emplace_back(found.gl_pathv[i]);
  ::globfree(&found);
  if (status == GLOB_NOMATCH || paths.empty())
    throw UsageError("--shards: no file matches \"" + spec + "\" (quote the pattern, so that the shell leaves it to mlt)");
  if (status != 0) throw InputError("--shards: cannot list \"" + spec + "\"");
  return paths;
}

// One read of the part: the whole input alone, this rank's byte range under ranks
// (opened lazily: the range reader starts its feeding thread).
struct FitParts::Reader {
  std::unique_ptr<io::CsvChunks> whole;
  std::unique_ptr<io::CsvRangeChunks> range;
  // Shards: the files left to read after `whole` (the one open), the counts of those
  // read, the columns every one must have, and what to open them with.
  std::vector<std::string> next_shards;
  std::uint64_t done_rows = 0, done_dropped = 0;
  const FitParts* parts = nullptr;
  bool next(io::Table& chunk) {
    if (range) return range->next(chunk);
    while (true) {
      if (whole && whole->next(chunk)) return true;
      if (next_shards.empty()) return false;
      if (whole) done_rows += whole->rows(), done_dropped += whole->dropped_rows();
      whole = std::make_unique<io::CsvChunks>(next_shards.front(), parts->csv_, parts->sel_, parts->chunk_bytes_);
      if (whole->feature_names() != parts->shard_columns_)
        throw DataError(next_shards.front() + ": columns " + joined(whole->feature_names()) + " differ from " +
                        parts->shards_.front() + "'s (" + joined(parts->shard_columns_) + "): shards must share them");
      next_shards.erase(next_shards.begin());
    }
  }
  std::uint64_t rows() const { return range ? range->rows() : done_rows + (whole ? whole->rows() : 0); }
  std::uint64_t dropped() const {
    return range ? range->dropped_rows() : done_dropped + (whole ? whole->dropped_rows() : 0);
  }
  bool finished = false;
  io::Table chunk;
  // Labels met in this read, for the local dictionary: label -> index in seen_.
  std::unordered_map<std::string, std::size_t> local;
};

FitParts::FitParts(const DataOptions& data, std::size_t chunk_bytes, Names targets, TargetKind kind,
                   const Communicator& comm, bool hold, bool once, bool shards)
    : path_(data.path), csv_(csv_options(data)), chunk_bytes_(chunk_bytes), kind_(kind), comm_(comm),
      hold_(hold), once_(once) {
  sel_.text = std::move(targets);
  sel_.ignore = data.ignore;
  const std::size_t size = static_cast<std::size_t>(comm.size()), rank = static_cast<std::size_t>(comm.rank());
  if (shards) {
    // Every rank lists the shards alike (the same pattern, the same file system); a
    // failure to list them, or to read the first one's columns, is agreed.
    std::exception_ptr failure;
    try {
      shards_ = shard_paths(path_);
      io::CsvChunks first(shards_.front(), csv_, sel_, chunk_bytes_);
      shard_columns_ = first.feature_names();
    } catch (...) {
      failure = std::current_exception();
    }
    agree(comm, failure);
    shard_begin_ = rank * shards_.size() / size;
    shard_end_ = (rank + 1) * shards_.size() / size;
    return;
  }
  if (size == 1) {
    struct stat st;
    if (!once_ && !hold_ && (path_ == "-" || (::stat(path_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))))
      throw UsageError("this streamed fit reads DATA more than once, and " +
                       (path_ == "-" ? std::string("standard input") : path_ + " (not a regular file)") +
                       " can be read only once: give a file, or leave out --stream and --memory");
    return;
  }
  RankPart part = rank_part(data, comm);
  split_ = std::move(part.split);
  range_ = part.range;
}

FitParts::~FitParts() = default;

std::unique_ptr<FitParts::Reader> FitParts::open_reader() const {
  auto reader = std::make_unique<Reader>();
  reader->parts = this;
  if (!shards_.empty())
    reader->next_shards.assign(shards_.begin() + static_cast<std::ptrdiff_t>(shard_begin_),
                               shards_.begin() + static_cast<std::ptrdiff_t>(shard_end_));
  else if (split_)
    reader->range = std::make_unique<io::CsvRangeChunks>(path_, *split_, range_, csv_, sel_, chunk_bytes_);
  else
    reader->whole = std::make_unique<io::CsvChunks>(path_, csv_, sel_, chunk_bytes_);
  return reader;
}

bool FitParts::read_chunk(Reader& reader, bool first_pass, arma::mat& X, arma::mat& Y) {
  if (reader.finished) return false;
  io::Table& chunk = reader.chunk;
  if (!reader.next(chunk)) {
    reader.finished = true;
    return false;
  }
  if (first_pass) ++first_chunks_;
  X = std::move(chunk.X);
  target_names_.clear();
  for (const auto& col : chunk.text) target_names_.push_back(col.name);
  if (kind_ == TargetKind::numeric) {
    Y.set_size(X.n_rows, chunk.text.size());
    for (std::size_t t = 0; t < chunk.text.size(); ++t)
      Y.col(t) = parse_numeric_target(chunk.text[t].values, chunk.text[t].name, chunk.source, chunk.lines);
  } else if (kind_ == TargetKind::labels) {
    const std::vector<std::string>& labels = chunk.text.at(0).values;
    Y.set_size(X.n_rows, 1);
    if (labels_known_) {
      const Labels y = encoder_.encode(labels, chunk.source, &chunk.lines);
      for (std::size_t i = 0; i < y.n_elem; ++i) Y(i, 0) = static_cast<double>(y[i]);
    } else {
      for (std::size_t i = 0; i < labels.size(); ++i) {
        auto [at, added] = reader.local.try_emplace(labels[i], seen_.size());
        if (added) seen_.push_back(labels[i]);
        Y(i, 0) = static_cast<double>(at->second);
      }
    }
  } else {
    Y.reset();
  }
  return true;
}

RowPasses FitParts::passes() {
  return [this]() -> RowChunks {
    ++passes_;
    if (hold_) {
      auto at = std::make_shared<std::size_t>(0);
      return [this, at]() -> const RowChunk* {
        if (!loaded_) {
          // The first read loads the whole part (a reader error leaves it unloaded:
          // the fit stops on it).
          first_ = open_reader();
          RowChunk c;
          c.held = true;  // a move leaves it set, and X and Y empty for the next read
          while (read_chunk(*first_, true, c.X, c.Y)) held_.push_back(std::move(c));
          loaded_ = true;
        }
        // The held chunk itself: RowChunks hands it out read-only.
        return *at == held_.size() ? nullptr : &held_[(*at)++];
      };
    }
    if (passes_ > 1 && once_)
      throw Error("internal: a fit that reads its data once opened a second pass", kExitSoftware);
    // Opened by the pass's first read, where the estimator catches what it throws.
    auto reader = std::make_shared<std::shared_ptr<Reader>>();
    auto chunk = std::make_shared<RowChunk>();
    return [this, reader, chunk]() -> const RowChunk* {
      if (!*reader) {
        *reader = open_reader();
        if (!first_) first_ = *reader;
      }
      return read_chunk(**reader, *reader == first_, chunk->X, chunk->Y) ? chunk.get() : nullptr;
    };
  };
}

void FitParts::label_pass() {
  if (kind_ != TargetKind::labels) throw std::logic_error("FitParts::label_pass without labels");
  std::exception_ptr failure;
  try {
    const RowChunks pass = passes()();
    while (pass()) {
    }
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm_, failure);
  // Every rank's labels (each ends in a NUL byte), unioned and sorted.
  std::string mine;
  for (const std::string& label : seen_) mine += label + '\0';
  std::vector<std::string> all;
  for (const std::string& theirs : comm_.allgather(mine))
    for (std::size_t at = 0, end; at < theirs.size(); at = end + 1) {
      end = theirs.find('\0', at);
      all.push_back(theirs.substr(at, end - at));
    }
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  const std::string column = sel_.text.empty() ? std::string() : target_names_.empty() ? sel_.text[0] : target_names_[0];
  if (all.empty()) {
    labels_known_ = true;  // no rows anywhere: the fit says so
    return;
  }
  if (looks_continuous(all))
    throw DataError(path_ + ": target column \"" + column +
                    "\" holds non-integer numbers: labels look continuous (a regression target?)");
  encoder_ = LabelEncoder();
  encoder_.fit_encode(all);
  if (encoder_.n_classes() < 2)
    throw DataError(path_ + ": only one class (\"" + encoder_.classes()[0] + "\") in column \"" + column +
                    "\"; a classifier needs at least two");
  labels_known_ = true;
  // Held chunks carry the local dictionary's indices: now the classes'.
  if (hold_) {
    const Labels global = encoder_.encode(seen_);
    for (RowChunk& c : held_) c.Y.transform([&](double local) { return static_cast<double>(global[static_cast<std::size_t>(local)]); });
  }
}

FitParts::Totals FitParts::totals() const {
  const Reader* first = first_.get();
  const std::uint64_t mine[4] = {first ? first->rows() : 0, first ? first->dropped() : 0, first_chunks_,
                                 first && first->finished};
  std::string local(reinterpret_cast<const char*>(mine), sizeof mine);
  for (const std::string& name : target_names_) local += name + '\0';
  Totals all;
  all.passes = passes_;
  for (const std::string& s : comm_.allgather(local)) {
    std::uint64_t theirs[4];
    std::memcpy(theirs, s.data(), sizeof theirs);
    all.rows += theirs[0], all.dropped += theirs[1], all.chunks += theirs[2], all.finished += theirs[3];
    if (theirs[0] > 0 && all.target_names.empty())
      for (std::size_t at = sizeof theirs, end; at < s.size(); at = end + 1) {
        end = s.find('\0', at);
        all.target_names.push_back(s.substr(at, end - at));
      }
  }
  return all;
}

io::Table FitParts::summary() const {
  io::Table t;
  if (first_ && first_->range) t = first_->range->summary();
  else if (first_ && first_->whole) t = first_->whole->summary();
  if (!shards_.empty()) {
    // Of many files: their sizes' sum; no hash (one reader of every byte would be needed).
    t.source = path_;
    t.feature_names = shard_columns_;
    t.bytes = 0;
    t.data_hash.clear();
    for (const std::string& shard : shards_) {
      struct stat st;
      if (::stat(shard.c_str(), &st) == 0) t.bytes += static_cast<std::uint64_t>(st.st_size);
    }
  }
  return t;
}

}  // namespace mlt::app
