// Reading CSV data into a matrix, and writing CSV results.
//
// Input follows RFC 4180 (quoted fields, "" escapes, quoted newlines) and what real
// files carry: CRLF or lone CR line ends, a UTF-8 byte-order mark, a missing final
// newline, blank lines (skipped). Every rejection names the file, the physical line,
// the column and what was expected; see read_csv below for the rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mlt/column_encoding.hpp"
#include "mlt/core/names.hpp"
#include "mlt/core/types.hpp"

namespace mlt::io {

enum class MissingPolicy {
  error,  // the first empty / NA / NaN cell stops the read with its location
  drop,   // rows with a missing feature or text-column cell are skipped and counted
  // Internal (no name: not a choice of the command line): a missing feature cell is
  // kept, as NaN in X or "" in a categorical column, for imputation to fill; a
  // missing cell of a `text` column (a target) is an error as under `error`.
  keep,
};
inline constexpr NameTable<MissingPolicy, 2> kMissingPolicyNames{
    "missing-value policy", {{{MissingPolicy::error, "error"}, {MissingPolicy::drop, "drop"}}}};
constexpr const auto& name_table(MissingPolicy) { return kMissingPolicyNames; }

struct CsvOptions {
  bool header = true;   // the first record names the columns
  char delimiter = 0;   // 0: detect among ',' TAB ';' from the first record
  MissingPolicy missing = MissingPolicy::error;
  unsigned threads = 0; // parser threads; 0: one per core
};

// A column reference meaning "the last column" (the default target).
inline constexpr const char* kLastColumn = "@last";

// Which columns become what. A reference is a header name or a 1-based index; a
// name wins when a header cell is literally "3". kLastColumn names the last column.
struct ColumnSelection {
  // When non-empty: exactly these columns are the features, in this order (the
  // columns a model was trained on); other columns are not parsed. When empty: every
  // column not named in `text` or `ignore` is a feature.
  Names features;
  // Columns kept verbatim as text: a target, class labels, fold numbers. Returned in
  // this order. Not features.
  Names text;
  // Columns skipped (an id column, say).
  Names ignore;
  // Every column is kept as text, cells verbatim, missing ones included (for tools
  // that move rows around without interpreting them, like `mlt split`).
  bool verbatim = false;
  // The feature columns are kept as text, after `text`, and X has no columns: for a
  // kernel on structured samples (a string, a graph), whose one feature column is
  // encoded by mlt/kernel_strings.hpp or mlt/kernel_graphs.hpp. feature_names still
  // names them.
  bool features_as_text = false;
  // Feature columns read as text (categories to one-hot encode, mlt/column_encoding.hpp),
  // returned after `text` in feature order; by reference (`categorical`, each must
  // be a feature column) or by their 0-based index among the features
  // (`categorical_features`, for a model matched by position). Their cells are kept
  // verbatim but for a missing cell under MissingPolicy::keep, which reads as "".
  Names categorical = {};
  std::vector<std::size_t> categorical_features = {};
};

struct TextColumn {
  std::string name;
  std::vector<std::string> values;  // one per kept row
  std::size_t position = 0;         // 1-based column in the file, for messages
};

struct Table {
  std::string source;          // the path, or "<stdin>", for messages
  arma::mat X;                 // n_rows x n_features, one sample per row
  Names feature_names;
  std::vector<TextColumn> text;
  // Every column of the input in file order, whatever its role: the header's names (an
  // empty one as "column<N>"), or "1" .. "n" without a header.
  Names column_names;
  // Every feature column in feature order, the categorical ones (ColumnSelection::
  // categorical) included; feature_names when there are none.
  Names feature_columns;
  // Set by the caller that encodes the columns (the command line's data layer): the
  // fitted encoding X went through (feature_names then name X's encoded columns).
  ColumnEncoding encoding;
  std::vector<std::uint64_t> lines;  // physical line number of each kept row
  std::size_t dropped_rows = 0;      // under MissingPolicy::drop
  bool had_header = true;
  char delimiter = ',';              // as given or detected
  std::uint64_t bytes = 0;           // size of the input
  std::string data_hash;             // of the input's bytes: io/data_hash.hpp, hex

  std::size_t n_rows() const { return X.n_rows; }
  // The column named `name` among `text` (throws if it was not requested).
  const TextColumn& text_column(const std::string& name) const;
};

// Reads a CSV file ("-" for standard input) into a Table.
// Throws InputError if the file cannot be opened, DataError (with file:line:column)
// for malformed or non-numeric feature cells, missing values under the `error`
// policy, infinities, values out of double range, NUL bytes, UTF-16 input, ragged
// rows, duplicate column names, and inputs with no data rows; UsageError for a
// column reference that names no column (listing the columns).
Table read_csv(const std::string& path, const CsvOptions& options,
               const ColumnSelection& columns);

namespace detail {
// Whether the calling thread's last read_csv placed rows straight into the matrix
// (a regular file without quotes, see csv.cpp), for the tests of that path.
bool last_read_placed_rows();
}  // namespace detail

// Parses one numeric cell the way read_csv does: ASCII spaces and tabs around the
// number are ignored, the whole rest must be a decimal number in double range.
enum class CellStatus { number, missing, not_finite, out_of_range, not_a_number };
CellStatus parse_cell(std::string_view cell, double& value);

}  // namespace mlt::io
