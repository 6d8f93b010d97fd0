// Passes over rows held in matrices, for tests of the streamed and distributed fits
// (mlt/core/row_passes.hpp): what FitParts hands a fit from a CSV, here from X and Y.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "mlt/core/row_passes.hpp"

namespace mlt::test {

// Passes over the rows of X and Y, `rows` at a time, the last chunk shorter; each pass
// counted in *opened when given. Y empty (an unsupervised fit): every chunk's Y has
// the chunk's rows and no column. The passes hold their own copies of X and Y.
inline RowPasses passes_of(const arma::mat& X, const arma::mat& Y, arma::uword rows,
                           std::shared_ptr<int> opened = nullptr) {
  const auto data = std::make_shared<const RowChunk>(RowChunk{X, Y});
  return [data, rows, opened]() -> RowChunks {
    if (opened) ++*opened;
    auto at = std::make_shared<arma::uword>(0);
    auto chunk = std::make_shared<RowChunk>();
    return [data, rows, at, chunk]() -> const RowChunk* {
      const arma::mat &X = data->X, &Y = data->Y;
      if (*at >= X.n_rows) return nullptr;
      const arma::uword last = std::min(X.n_rows, *at + rows) - 1;
      chunk->X = X.rows(*at, last);
      chunk->Y = Y.is_empty() ? arma::mat(chunk->X.n_rows, 0) : arma::mat(Y.rows(*at, last));
      *at = last + 1;
      return chunk.get();
    };
  };
}

inline RowPasses passes_of(const arma::mat& X, arma::uword rows, std::shared_ptr<int> opened = nullptr) {
  return passes_of(X, arma::mat(), rows, std::move(opened));
}

// The passes of `inner` as FitParts gives a rank's part that it holds: the first pass
// keeps the chunks, and every pass hands out the kept chunks themselves, marked held.
inline RowPasses held(const RowPasses& inner) {
  auto chunks = std::make_shared<std::vector<RowChunk>>();
  auto loaded = std::make_shared<bool>(false);
  return [inner, chunks, loaded]() -> RowChunks {
    auto at = std::make_shared<std::size_t>(0);
    return [inner, chunks, loaded, at]() -> const RowChunk* {
      if (!*loaded) {
        const RowChunks next = inner();
        while (const RowChunk* c = next()) {
          chunks->push_back(*c);
          chunks->back().held = true;
        }
        *loaded = true;
      }
      return *at == chunks->size() ? nullptr : &(*chunks)[(*at)++];
    };
  };
}

// The passes of `inner`, where on(pass, chunk) runs before each chunk is handed out
// (both counted from 1; chunk 0 at the end of a pass): to throw a reader's error, or
// return true to end the pass early (rows that vanish between passes).
inline RowPasses intercepted(const RowPasses& inner, std::function<bool(int pass, int chunk)> on) {
  auto opened = std::make_shared<int>(0);
  return [inner, on, opened]() -> RowChunks {
    const int pass = ++*opened;
    const RowChunks next = inner();
    auto count = std::make_shared<int>(0);
    return [=]() -> const RowChunk* {
      const RowChunk* chunk = next();
      if (on(pass, chunk ? ++*count : 0)) return nullptr;
      return chunk;
    };
  };
}

}  // namespace mlt::test
