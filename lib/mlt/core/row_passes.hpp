// Rows read several times: for a streaming fit that needs more than one pass over its
// data (k-means' Lloyd iterations), where RowChunks (core/scatter.hpp) is one pass.
#pragma once

#include <functional>

#include "mlt/core/scatter.hpp"

namespace mlt {

// Opens one pass over the rows: a fresh RowChunks from the first row. Every pass must
// give the same rows in the same order (a fit may check the count and stop with a
// DataError when it changes).
using RowPasses = std::function<RowChunks()>;

}  // namespace mlt
