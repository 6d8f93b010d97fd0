#include "output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "cli_support.hpp"
#include "mlt/core/error.hpp"

#include "mlt/io/number_format.hpp"
#include "mlt/metrics.hpp"
#include "mlt/core/validate.hpp"
#include "mlt/io/json_text.hpp"

namespace mlt::app {

void Spool::open() {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir && *dir ? dir : "/tmp") + "/mlt-part-XXXXXX";
  fd_ = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd_ < 0) throw OutputError("cannot create a temporary file in " + path.substr(0, path.rfind('/')) + ": " +
                                 std::strerror(errno));
  ::unlink(path.c_str());  // nameless from now on: nothing left behind, whatever ends the process
}

Spool::~Spool() {
  if (fd_ >= 0) ::close(fd_);
}

void Spool::write(std::string_view data) {
  if (fd_ < 0) open();
  for (std::size_t off = 0; off < data.size();) {
    const ssize_t w = ::write(fd_, data.data() + off, data.size() - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) throw IoError(std::string("a temporary file of this rank's output: write failed: ") + std::strerror(errno));
    off += static_cast<std::size_t>(w);
  }
  size_ += data.size();
}

std::string Spool::read(std::size_t max, std::uint64_t skip) {
  if (!reading_) read_at_ = skip, reading_ = true;
  if (fd_ < 0) return {};  // nothing was written
  std::string out(static_cast<std::size_t>(std::min<std::uint64_t>(max, size_ - std::min(size_, read_at_))), '\0');
  for (std::size_t off = 0; off < out.size();) {
    const ssize_t r = ::pread(fd_, out.data() + off, out.size() - off, static_cast<off_t>(read_at_ + off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw IoError(std::string("a temporary file of this rank's output: read failed: ") +
                    (r < 0 ? std::strerror(errno) : "shorter than written"));
    off += static_cast<std::size_t>(r);
  }
  read_at_ += out.size();
  return out;
}

void CsvWriter::separate() {
  if (!first_) buf_ += delimiter_;
  first_ = false;
}

void CsvWriter::text(std::string_view cell) {
  separate();
  io::append_cell(buf_, cell, delimiter_);
}

void CsvWriter::number(double value) {
  // The last line of defence of "no NaN output ever": a non-finite result that the
  // estimator did not refuse stops the write, and nothing appears at the target.
  if (!std::isfinite(value))
    throw DataError(name_ + ": line " + std::to_string(rows_ + 1) +
                    ": a result is not finite (inf or NaN): the input or the model is out of range");
  separate();
  io::append_number(buf_, value);
}

void CsvWriter::hand_on() {
  if (file_) file_->write(buf_);
  else spool_->write(buf_);
  bytes_ += buf_.size();
  buf_.clear();
}

void CsvWriter::end_row() {
  buf_ += '\n';
  first_ = true;
  ++rows_;
  if (buf_.size() > (1 << 16)) hand_on();
}

void CsvWriter::commit() {
  hand_on();
  if (file_) file_->commit();
}

void CsvStream::write(const CsvColumns& c) {
  if (!header_written_) {
    for (const auto& n : c.text_names) csv_.text(n);
    for (const auto& n : c.names) csv_.text(n);
    csv_.end_row();
    header_bytes_ = csv_.bytes();
    header_written_ = true;
  }
  const arma::uword n_rows = c.values ? c.values->n_rows : (c.text.empty() ? 0 : c.text[0]->size());
  for (arma::uword i = 0; i < n_rows; ++i) {
    for (const auto* col : c.text) csv_.text((*col)[i]);
    if (c.values)
      for (arma::uword j = 0; j < c.values->n_cols; ++j) csv_.number((*c.values)(i, j));
    csv_.end_row();
  }
}

RankOrderedCsv::RankOrderedCsv(const std::string& path, const Communicator& comm)
    : comm_(comm), part_(spool_, (path == "-" ? std::string("standard output") : path) + " (rank " +
                                     std::to_string(comm.rank()) + "'s part)") {
  std::exception_ptr failure;
  try {
    if (comm.rank() == 0) out_ = std::make_unique<io::OutputFile>(path);
  } catch (...) {
    failure = std::current_exception();
  }
  agree(comm, failure);
}

void RankOrderedCsv::commit(std::exception_ptr failure, std::uint64_t rows, const std::string& no_rows) {
  if (!failure) try {
      part_.commit();  // into the spool
    } catch (...) {
      failure = std::current_exception();
    }
  agree(comm_, failure);

  // Every part's rows, bytes and header bytes, on every rank.
  struct Part {
    std::uint64_t rows, bytes, header;
  };
  const Part mine{rows, spool_.size(), part_.header_bytes()};
  std::vector<Part> parts;
  for (const std::string& s : comm_.allgather(std::string(reinterpret_cast<const char*>(&mine), sizeof mine))) {
    Part theirs;
    std::memcpy(&theirs, s.data(), sizeof theirs);
    parts.push_back(theirs);
  }
  std::size_t first = parts.size();  // the first part with rows: its header is the output's
  for (std::size_t r = parts.size(); r-- > 0;)
    if (parts[r].rows > 0) first = r;
  if (first == parts.size()) throw DataError(no_rows);

  // Rank 0 writes; a failure on the way (a full disk, a failed read of a spool) is
  // kept while every rank goes on with the same gathers, and agreed on at the end.
  const int rank = comm_.rank();
  failure = nullptr;
  for (std::size_t r = 0; r < parts.size(); ++r) {
    if (parts[r].rows == 0) continue;
    const std::uint64_t skip = r == first ? 0 : parts[r].header;
    const std::uint64_t blocks = (parts[r].bytes - skip + kBlock - 1) / kBlock;
    for (std::uint64_t b = 0; b < blocks; ++b) {
      std::string block;
      if (static_cast<std::size_t>(rank) == r && !failure) try {
          block = spool_.read(kBlock, skip);
        } catch (...) {
          failure = std::current_exception();
        }
      if (r != 0) {
        std::vector<std::string> gathered = comm_.gather(block, 0);
        if (rank == 0) block = std::move(gathered[r]);
      }
      if (rank == 0 && !failure) try {
          out_->write(block);
        } catch (...) {
          failure = std::current_exception();
        }
    }
  }
  agree(comm_, failure);
  // Only now, every part written whole: the rename (or the last flush of standard
  // output).
  if (rank == 0) try {
      out_->commit();
    } catch (...) {
      failure = std::current_exception();
    }
  agree(comm_, failure);
}

void write_csv(const std::string& path, const CsvColumns& c) {
  CsvStream csv(path);
  csv.write(c);
  csv.commit();
}

void print_scores(const std::vector<std::pair<std::string, double>>& scores, bool json,
                  const nlohmann::json& extra) {
  std::string text;
  if (json) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : scores) j[k] = v;
    if (extra.is_object())
      for (auto it = extra.begin(); it != extra.end(); ++it) j[it.key()] = it.value();
    text = io::json_text(j) + "\n";
  } else {
    for (const auto& [k, v] : scores) {
      text += k + ' ';
      io::append_number(text, v);
      text += '\n';
    }
  }
  io::OutputFile out("-");
  out.write(text);
  out.commit();
}

std::vector<std::pair<std::string, double>> regression_scores(const arma::mat& y, const arma::mat& prediction) {
  std::vector<std::pair<std::string, double>> s;
  for (const std::string& name : metrics::names(metrics::Task::regression))
    s.emplace_back(name, metrics::regression_score(name, y, prediction));
  return s;
}

void print_regression_scores(const arma::mat& y, const arma::mat& prediction, const Names& targets, bool json,
                             const nlohmann::json& fields) {
  // A model's predictions overflow where its inputs lie far beyond its training data
  // (a polynomial kernel of inputs 1e100 times larger): refused, not scored as inf.
  try {
    check_values(y, "true values");
    check_values(prediction, "predictions");
  } catch (const DataError& e) {
    throw DataError(std::string(e.what()) + " (inputs far outside the training data's scale?)");
  }
  std::vector<std::pair<std::string, double>> s = regression_scores(y, prediction);
  nlohmann::json extra = fields.is_object() ? fields : nlohmann::json::object();
  if (y.n_cols > 1 && targets.size() == y.n_cols) {
    const metrics::PerTarget t = metrics::per_target(y, prediction);
    const std::vector<std::pair<std::string, const arma::rowvec*>> rows = {
        {"mse", &t.mse}, {"rmse", &t.rmse}, {"mae", &t.mae}, {"r2", &t.r2}};
    nlohmann::json per = nlohmann::json::object();
    for (arma::uword j = 0; j < y.n_cols; ++j)
      for (const auto& [name, v] : rows) {
        per[targets[j]][name] = (*v)(j);
        if (!json) s.emplace_back(name + "[" + targets[j] + "]", (*v)(j));
      }
    extra["per_target"] = per;
  }
  print_scores(s, json, extra);
}

namespace {

std::vector<std::pair<std::string, double>> classification_scores(const Labels& y, const Labels& prediction,
                                                                  const arma::mat* probabilities,
                                                                  const arma::mat* scores, const Names& classes,
                                                                  nlohmann::json& extra) {
  std::vector<std::pair<std::string, double>> s;
  for (const std::string& name :
       metrics::names(metrics::Task::classification, probabilities != nullptr, scores != nullptr)) {
    const metrics::Metric& m = metrics::find(name);
    if (!m.needs_scores) {
      s.emplace_back(name, metrics::classification_score(name, y, prediction, probabilities));
      continue;
    }
    try {
      s.emplace_back(name, m.classification(y, prediction, scores, classes.size()));
    } catch (const DataError& e) {
      note(name + " left out: " + e.what());
    }
  }
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  std::vector<std::vector<arma::uword>> rows(c.n_rows);
  for (arma::uword i = 0; i < c.n_rows; ++i) rows[i] = arma::conv_to<std::vector<arma::uword>>::from(c.row(i));
  const metrics::ClassificationReport r = metrics::classification_report(y, prediction, classes.size());
  nlohmann::json per = nlohmann::json::object();
  for (arma::uword j = 0; j < r.classes.n_elem; ++j)
    per[classes.at(r.classes(j))] = {
        {"precision", r.precision(j)}, {"recall", r.recall(j)}, {"f1", r.f1(j)}, {"support", r.support(j)}};
  extra["classes"] = classes;
  extra["report"] = {
      {"per_class", per},
      {"macro_avg", {{"precision", r.macro_precision}, {"recall", r.macro_recall}, {"f1", r.macro_f1}}},
      {"weighted_avg", {{"precision", r.weighted_precision}, {"recall", r.weighted_recall}, {"f1", r.weighted_f1}}},
      {"zero_division", 0}};
  extra["confusion_matrix"] = rows;  // rows: true class, columns: predicted
  extra["n_samples"] = y.n_elem;
  return s;
}

// A text table: each column as wide as its widest cell, two blanks between columns,
// lines without trailing blanks.
struct TextTable {
  std::string title;
  std::vector<std::vector<std::string>> rows{{}};
  // A label past 40 bytes is cut to 37 and "..." (the JSON report has it whole): a
  // table is for reading, and a 10,000-character class would widen every line of it.
  void cell(const std::string& s) {
    if (s.size() <= 40) return rows.back().push_back(s);
    std::size_t cut = 37;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    rows.back().push_back(s.substr(0, cut) + "...");
  }
  void end_line() { rows.emplace_back(); }
  std::string text() const {
    std::vector<std::size_t> width;
    for (const auto& r : rows)
      for (std::size_t j = 0; j < r.size(); ++j) {
        if (width.size() <= j) width.push_back(0);
        width[j] = std::max(width[j], r[j].size());
      }
    std::string out = title;
    for (std::size_t i = 0; i + 1 < rows.size(); ++i) {  // the last row is the one end_line opened
      std::string line;
      for (std::size_t j = 0; j < rows[i].size(); ++j)
        line += rows[i][j] + std::string(j + 1 < rows[i].size() ? width[j] + 2 - rows[i][j].size() : 0, ' ');
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out += line + "\n";
    }
    return out;
  }
};

std::string fixed4(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

// As scikit-learn's classification_report prints it, 4 digits (--json has them all).
std::string report_text(const Labels& y, const Labels& prediction, const Names& classes) {
  const metrics::ClassificationReport r = metrics::classification_report(y, prediction, classes.size());
  TextTable t{"classification report (zero_division=0)\n"};
  for (const char* h : {"", "precision", "recall", "f1", "support"}) t.cell(h);
  t.end_line();
  const auto row = [&t](const std::string& name, double p, double rc, double f, const std::string& support) {
    t.cell(name);
    for (double v : {p, rc, f}) t.cell(fixed4(v));
    t.cell(support);
    t.end_line();
  };
  for (arma::uword j = 0; j < r.classes.n_elem; ++j)
    row(classes.at(r.classes(j)), r.precision(j), r.recall(j), r.f1(j), std::to_string(r.support(j)));
  const std::string n = std::to_string(arma::accu(r.support));
  row("macro avg", r.macro_precision, r.macro_recall, r.macro_f1, n);
  row("weighted avg", r.weighted_precision, r.weighted_recall, r.weighted_f1, n);
  return t.text();
}

std::string confusion_text(const Labels& y, const Labels& prediction, const Names& classes) {
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  TextTable t{"confusion matrix (rows: true, columns: predicted)\n"};
  t.cell("");
  for (const auto& k : classes) t.cell(k);
  t.end_line();
  for (arma::uword i = 0; i < c.n_rows; ++i) {
    t.cell(classes[i]);
    for (arma::uword j = 0; j < c.n_cols; ++j) t.cell(std::to_string(c(i, j)));
    t.end_line();
  }
  return t.text();
}

}  // namespace

void print_classification_scores(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                 const arma::mat* scores, const Names& classes, bool json,
                                 const nlohmann::json& fields) {
  nlohmann::json extra;
  if (fields.is_object()) extra = fields;
  print_scores(classification_scores(y, prediction, probabilities, scores, classes, extra), json, extra);
  if (json) return;
  io::OutputFile out("-");
  out.write(report_text(y, prediction, classes) + confusion_text(y, prediction, classes));
  out.commit();
}

}  // namespace mlt::app
