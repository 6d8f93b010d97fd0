#include "mlt/labels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>
#include <unordered_map>

#include "mlt/core/error.hpp"
#include "mlt/io/csv.hpp"

namespace mlt {

Labels LabelEncoder::fit_encode(const std::vector<std::string>& labels) {
  std::vector<std::string> distinct(labels.begin(), labels.end());
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  bool numeric = true;
  std::vector<double> values(distinct.size());
  // A leading '+' counts as a sign here (LIBSVM's "+1"/"-1" labels), though not in a
  // feature cell; the class keeps its text.
  for (std::size_t i = 0; i < distinct.size() && numeric; ++i) {
    const std::string_view cell = distinct[i];
    const bool plus = cell.size() > 1 && cell[0] == '+' && cell[1] != '-' && cell[1] != '+';
    numeric = io::parse_cell(plus ? cell.substr(1) : cell, values[i]) == io::CellStatus::number;
  }
  if (numeric) {
    std::vector<std::size_t> order(distinct.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    Names sorted;
    for (auto i : order) sorted.push_back(distinct[i]);
    distinct = sorted;
  }
  classes_ = distinct;
  return encode(labels);
}

Labels LabelEncoder::encode(const std::vector<std::string>& labels, const std::string& source,
                            const std::vector<std::uint64_t>* lines) const {
  std::unordered_map<std::string, arma::uword> index;
  for (std::size_t k = 0; k < classes_.size(); ++k) index.emplace(classes_[k], k);
  Labels out(labels.size());
  for (std::size_t i = 0; i < labels.size(); ++i) {
    auto it = index.find(labels[i]);
    if (it == index.end())
      throw DataError((lines ? source + ":" + std::to_string((*lines)[i]) + ": " : std::string()) + "class \"" + labels[i] +
                      "\" was not seen in training");
    out[i] = it->second;
  }
  return out;
}

std::vector<std::string> LabelEncoder::decode(const Labels& indices) const {
  std::vector<std::string> out(indices.n_elem);
  for (arma::uword i = 0; i < indices.n_elem; ++i) {
    if (indices[i] >= classes_.size())
      throw DataError("class index " + std::to_string(indices[i]) + " has no name: the model lists " +
                      std::to_string(classes_.size()) + " classes");
    out[i] = classes_[indices[i]];
  }
  return out;
}

arma::vec parse_numeric_target(const std::vector<std::string>& cells, const std::string& column,
                               const std::string& source, const std::vector<std::uint64_t>& lines) {
  arma::vec y(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    double v = 0;
    if (io::parse_cell(cells[i], v) != io::CellStatus::number)
      throw DataError(source + ":" + std::to_string(lines[i]) + ": expected a number in target column \"" + column + "\", found \"" +
                      cells[i] + "\"");
    y[i] = v;
  }
  return y;
}

bool looks_continuous(const std::vector<std::string>& labels) {
  for (const auto& s : labels) {
    double v = 0;
    if (io::parse_cell(s, v) != io::CellStatus::number) return false;
    if (v != std::floor(v)) return true;
  }
  return false;
}

}  // namespace mlt
