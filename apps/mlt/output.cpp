#include "output.hpp"

#include <algorithm>
#include <cmath>

#include "mlt/core/error.hpp"

#include "mlt/io/number_format.hpp"
#include "mlt/metrics.hpp"

namespace mlt::app {

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
    throw DataError(out_.path() + ": line " + std::to_string(rows_ + 1) +
                    ": a result is not finite (inf or NaN): the input or the model is out of range");
  separate();
  io::append_number(buf_, value);
}

void CsvWriter::end_row() {
  buf_ += '\n';
  first_ = true;
  ++rows_;
  if (buf_.size() > (1 << 16)) {
    out_.write(buf_);
    buf_.clear();
  }
}

void CsvWriter::commit() {
  out_.write(buf_);
  buf_.clear();
  out_.commit();
}

void write_csv(const std::string& path, const CsvColumns& c) {
  CsvWriter csv(path);
  for (const auto& n : c.text_names) csv.text(n);
  for (const auto& n : c.names) csv.text(n);
  csv.end_row();
  const arma::uword n_rows = c.values ? c.values->n_rows : (c.text.empty() ? 0 : c.text[0]->size());
  for (arma::uword i = 0; i < n_rows; ++i) {
    for (const auto* col : c.text) csv.text((*col)[i]);
    if (c.values)
      for (arma::uword j = 0; j < c.values->n_cols; ++j) csv.number((*c.values)(i, j));
    csv.end_row();
  }
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
    text = j.dump() + "\n";
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

namespace {

std::vector<std::pair<std::string, double>> classification_scores(const Labels& y, const Labels& prediction,
                                                                  const arma::mat* probabilities,
                                                                  const Names& classes, nlohmann::json& extra) {
  std::vector<std::pair<std::string, double>> s;
  for (const std::string& name : metrics::names(metrics::Task::classification, probabilities != nullptr))
    s.emplace_back(name, metrics::classification_score(name, y, prediction, probabilities));
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  std::vector<std::vector<arma::uword>> rows(c.n_rows);
  for (arma::uword i = 0; i < c.n_rows; ++i) rows[i] = arma::conv_to<std::vector<arma::uword>>::from(c.row(i));
  extra["classes"] = classes;
  extra["confusion_matrix"] = rows;  // rows: true class, columns: predicted
  extra["n_samples"] = y.n_elem;
  return s;
}

std::string confusion_text(const Labels& y, const Labels& prediction, const Names& classes) {
  const arma::umat c = metrics::confusion_matrix(y, prediction, classes.size());
  std::string out = "confusion matrix (rows: true, columns: predicted)\n";
  std::size_t width = 4;
  for (const auto& k : classes) width = std::max(width, k.size());
  auto pad = [&](const std::string& s) { return s + std::string(width + 2 - std::min(width + 1, s.size()), ' '); };
  const auto end_line = [&out] {  // no trailing blanks
    while (!out.empty() && out.back() == ' ') out.pop_back();
    out += "\n";
  };
  out += pad("");
  for (const auto& k : classes) out += pad(k);
  end_line();
  for (arma::uword i = 0; i < c.n_rows; ++i) {
    out += pad(classes[i]);
    for (arma::uword j = 0; j < c.n_cols; ++j) out += pad(std::to_string(c(i, j)));
    end_line();
  }
  return out;
}

}  // namespace

void print_classification_scores(const Labels& y, const Labels& prediction, const arma::mat* probabilities,
                                 const Names& classes, bool json, const nlohmann::json& fields) {
  nlohmann::json extra;
  if (fields.is_object()) extra = fields;
  print_scores(classification_scores(y, prediction, probabilities, classes, extra), json, extra);
  if (json) return;
  io::OutputFile out("-");
  out.write(confusion_text(y, prediction, classes));
  out.commit();
}

}  // namespace mlt::app
