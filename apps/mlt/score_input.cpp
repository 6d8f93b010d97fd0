#include "score_input.hpp"

#include <algorithm>

#include "mlt/core/error.hpp"
#include "mlt/labels.hpp"

namespace mlt::app {

Cells read_cells(const DataOptions& data, const Names& refs) {
  io::ColumnSelection sel;
  sel.verbatim = true;
  const io::Table t = io::read_csv(data.path, csv_options(data), sel);
  std::vector<const io::TextColumn*> cols;
  for (const std::string& r : refs) {
    const auto named = std::find_if(t.text.begin(), t.text.end(), [&](const io::TextColumn& c) { return c.name == r; });
    std::size_t k = 0;
    if (named != t.text.end()) k = static_cast<std::size_t>(named - t.text.begin()) + 1;
    else if (!r.empty() && r.find_first_not_of("0123456789") == std::string::npos && r.size() < 9) k = std::stoul(r);
    if (k < 1 || k > t.text.size()) throw UsageError(t.source + ": no column named \"" + r + "\"");
    cols.push_back(&t.text[k - 1]);
  }
  Cells c;
  for (const auto* col : cols) c.names.push_back(col->name);
  c.columns.resize(cols.size());
  const bool drop = data.na == "drop";
  double ignored;
  for (std::size_t i = 0; i < t.lines.size(); ++i) {
    bool missing = false;
    for (std::size_t j = 0; j < cols.size() && !missing; ++j)
      if (io::parse_cell(cols[j]->values[i], ignored) == io::CellStatus::missing) {
        if (!drop)
          throw DataError(t.source + ":" + std::to_string(t.lines[i]) + ": missing value in column \"" +
                          cols[j]->name + "\" (--na drop skips such rows)");
        missing = true;
      }
    if (missing) continue;
    for (std::size_t j = 0; j < cols.size(); ++j) c.columns[j].push_back(cols[j]->values[i]);
    c.lines.push_back(t.lines[i]);
  }
  if (c.lines.empty()) throw DataError(t.source + ": no rows to score");
  return c;
}

arma::vec numbers(const Cells& c, std::size_t j, const std::string& source) {
  return parse_numeric_target(c.columns[j], c.names[j], source, c.lines);
}

std::optional<std::size_t> class_of(const std::string& column, const Names& classes) {
  std::optional<std::size_t> best;
  for (std::size_t k = 0; k < classes.size(); ++k) {
    const std::string& c = classes[k];
    const bool match = column == c || (column.size() > c.size() && column.ends_with("_" + c));
    if (match && (!best || classes[*best].size() < c.size())) best = k;
  }
  return best;
}

}  // namespace mlt::app
