// The text form of numbers and cells in everything mlt writes: CSV outputs, model
// files, cv reports, grids, messages. Locale-independent. (Reading a number is the
// CSV reader's: io::parse_cell in csv.hpp.)
#pragma once

#include <string>
#include <string_view>

namespace mlt::io {

// Shortest text that reads back as exactly `value` (std::to_chars).
void append_number(std::string& out, double value);

// A cell quoted for CSV if it needs to be (delimiter, quote, CR or LF inside).
void append_cell(std::string& out, std::string_view text, char delimiter = ',');

}  // namespace mlt::io
