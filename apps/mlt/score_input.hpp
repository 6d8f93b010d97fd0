// What `mlt score` reads of a predictions CSV: the cells of the columns it names, and
// which class a probability or decision column is about. Apart from cmd_score.cpp,
// which keeps its flags and the choice of report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data_options.hpp"

namespace mlt::app {

// The cells of the columns `refs` (names, or 1-based numbers when no column has the
// name), rows with a missing cell dropped under --na drop and refused otherwise
// (DataError naming the line and the column).
struct Cells {
  Names names;
  std::vector<std::vector<std::string>> columns;  // one per ref, one cell per kept row
  std::vector<std::uint64_t> lines;
};
Cells read_cells(const DataOptions& data, const Names& refs);

// Column j's cells as numbers (DataError naming the first that is not one).
arma::vec numbers(const Cells& c, std::size_t j, const std::string& source);

// The class a probability or decision column is about: its name is the class's, or
// ends with "_" and it (p_setosa, decision_setosa); the longest such class wins.
std::optional<std::size_t> class_of(const std::string& column, const Names& classes);

}  // namespace mlt::app
