#include "mlt/kernel_graphs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "mlt/core/error.hpp"
#include "mlt/core/parallel.hpp"

namespace mlt {
namespace {

struct Graph {
  std::vector<double> labels;                      // packed, one per vertex
  std::vector<std::vector<std::uint32_t>> adjacent;  // neighbours of each vertex, once each
};

bool is_blank(char c) { return c == ' ' || c == '\t'; }

// One cell -> row values [tag, n, m, labels..., edges...].
std::vector<double> parse_graph(const std::string& cell, const std::string& where) {
  const auto fail = [&](std::size_t at, const std::string& what) -> void {
    throw DataError(where + ": offset " + std::to_string(at + 1) + " of the graph \"" +
                    (cell.size() > 40 ? cell.substr(0, 40) + "..." : cell) + "\": " + what +
                    " (graphs are written \"a b c|0-1 1-2\": vertex labels, a bar, edges)");
  };
  const std::size_t bar = cell.find('|');
  if (bar == std::string::npos) fail(cell.size() ? cell.size() - 1 : 0, "no bar between the labels and the edges");
  std::vector<double> labels;
  for (std::size_t p = 0; p < bar;) {
    if (is_blank(cell[p])) {
      ++p;
      continue;
    }
    std::size_t q = p;
    while (q < bar && !is_blank(cell[q])) ++q;
    if (q - p > static_cast<std::size_t>(kMaxGraphLabel))
      fail(p, "a vertex label longer than " + std::to_string(kMaxGraphLabel) + " bytes");
    // Base 256 after a leading 1, so that "a" and "\0a" differ: below 2^49, exact.
    std::uint64_t key = 1;
    for (std::size_t r = p; r < q; ++r) key = (key << 8) | static_cast<unsigned char>(cell[r]);
    labels.push_back(static_cast<double>(key));
    p = q;
  }
  if (labels.empty()) fail(0, "no vertex");
  const std::size_t n = labels.size();
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  const auto number = [&](std::size_t& p) {
    const std::size_t start = p;
    std::uint64_t v = 0;
    for (; p < cell.size() && cell[p] >= '0' && cell[p] <= '9'; ++p)
      v = std::min<std::uint64_t>(v * 10 + static_cast<std::uint64_t>(cell[p] - '0'), n);  // n: too large
    if (p == start) fail(p, "expected a vertex number");
    if (v >= n)
      fail(start, "vertex " + cell.substr(start, std::min<std::size_t>(20, p - start)) +
                      " does not exist: the graph has " + std::to_string(n) + " vertices, numbered from 0");
    return static_cast<std::uint32_t>(v);
  };
  for (std::size_t p = bar + 1; p < cell.size();) {
    if (is_blank(cell[p])) {
      ++p;
      continue;
    }
    const std::uint32_t u = number(p);
    if (p >= cell.size() || cell[p] != '-') fail(p, "expected '-' between the two vertices of an edge");
    ++p;
    const std::uint32_t v = number(p);
    if (p < cell.size() && !is_blank(cell[p])) fail(p, "expected a space after an edge");
    edges.emplace_back(std::min(u, v), std::max(u, v));
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::vector<double> row = {kGraphTag, static_cast<double>(n), static_cast<double>(edges.size())};
  row.insert(row.end(), labels.begin(), labels.end());
  for (const auto& [u, v] : edges) {
    row.push_back(u);
    row.push_back(v);
  }
  return row;
}

Graph graph_of(const arma::mat& A, arma::uword i) {
  const auto bad = [i]() -> void {
    throw DataError("row " + std::to_string(i + 1) + " is not an encoded graph (the walk kernel reads a graph column)");
  };
  if (A.n_cols < 3 || A(i, 0) != kGraphTag) bad();
  const double n = A(i, 1), m = A(i, 2);
  if (!(n >= 1 && m >= 0 && n == std::floor(n) && m == std::floor(m) && 3 + n + 2 * m <= double(A.n_cols))) bad();
  Graph g;
  const std::size_t nv = static_cast<std::size_t>(n), ne = static_cast<std::size_t>(m);
  g.labels.resize(nv);
  g.adjacent.resize(nv);
  for (std::size_t v = 0; v < nv; ++v) g.labels[v] = A(i, 3 + v);
  for (std::size_t e = 0; e < ne; ++e) {
    const double u = A(i, 3 + nv + 2 * e), v = A(i, 4 + nv + 2 * e);
    if (!(u >= 0 && v >= 0 && u < n && v < n && u == std::floor(u) && v == std::floor(v))) bad();
    const auto a = static_cast<std::uint32_t>(u), b = static_cast<std::uint32_t>(v);
    g.adjacent[a].push_back(b);
    if (a != b) g.adjacent[b].push_back(a);
  }
  return g;
}

std::vector<Graph> graphs_of(const arma::mat& A) {
  std::vector<Graph> out(A.n_rows);
  for (arma::uword i = 0; i < A.n_rows; ++i) out[i] = graph_of(A, i);
  return out;
}

// 1ᵀ A×ⁿ 1 by X_{l+1} = M ∘ (A_G X_l A_Hᵀ), X_0 = M. X is n_G x n_H, row-major in a
// vector. Sums of products of integers: exact below 2^53, checked at the end of each
// step (every partial sum is below the total, all terms being >= 0).
double walk(const Graph& g, const Graph& h, int length) {
  const std::size_t ng = g.labels.size(), nh = h.labels.size();
  std::vector<double> M(ng * nh), X(ng * nh), Y(ng * nh);
  for (std::size_t v = 0; v < ng; ++v)
    for (std::size_t w = 0; w < nh; ++w) M[v * nh + w] = g.labels[v] == h.labels[w] ? 1.0 : 0.0;
  X = M;
  constexpr double kExact = 9007199254740992.0;  // 2^53
  for (int l = 0; l < length; ++l) {
    // Y = A_G X: row v of Y is the sum of the rows of X at v's neighbours.
    std::fill(Y.begin(), Y.end(), 0.0);
    for (std::size_t v = 0; v < ng; ++v)
      for (std::uint32_t u : g.adjacent[v])
        for (std::size_t w = 0; w < nh; ++w) Y[v * nh + w] += X[u * nh + w];
    // X = M ∘ (Y A_Hᵀ): column w is the sum of Y's columns at w's neighbours.
    double total = 0;
    for (std::size_t v = 0; v < ng; ++v)
      for (std::size_t w = 0; w < nh; ++w) {
        double s = 0;
        if (M[v * nh + w] != 0)
          for (std::uint32_t x : h.adjacent[w]) s += Y[v * nh + x];
        X[v * nh + w] = s;
        total += s;
      }
    if (total >= kExact)
      throw DataError("walk counts exceed 2^53 and would be rounded: lower `walk_length` (now " +
                      std::to_string(length) + ")");
  }
  double k = 0;
  for (double x : X) k += x;
  return k;
}

}  // namespace

arma::mat encode_graphs(const std::vector<std::string>& cells, const CellWhere& where) {
  std::vector<std::vector<double>> rows(cells.size());
  std::size_t width = 3;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    rows[i] = parse_graph(cells[i], where(i));
    width = std::max(width, rows[i].size());
  }
  arma::mat X(cells.size(), width, arma::fill::zeros);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t c = 0; c < rows[i].size(); ++c) X(i, c) = rows[i][c];
  return X;
}

arma::mat walk_gram(const arma::mat& A, const arma::mat& B, int length) {
  if (length < 0) throw UsageError("`walk_length` must be >= 0, got " + std::to_string(length));
  const bool same = &A == &B;
  const std::vector<Graph> ga = graphs_of(A);
  const std::vector<Graph> gb = same ? std::vector<Graph>{} : graphs_of(B);
  const std::vector<Graph>& rb = same ? ga : gb;
  const std::size_t m = ga.size(), n = rb.size();
  arma::mat K(m, n);
  parallel_for(n, [&](std::size_t j) {
    for (std::size_t i = same ? j : 0; i < m; ++i) K(i, j) = walk(ga[i], rb[j], length);
  });
  if (same) K = arma::symmatl(K);
  return K;
}

arma::vec walk_diagonal(const arma::mat& A, int length) {
  if (length < 0) throw UsageError("`walk_length` must be >= 0, got " + std::to_string(length));
  const std::vector<Graph> g = graphs_of(A);
  arma::vec d(A.n_rows);
  parallel_for(g.size(), [&](std::size_t i) { d[i] = walk(g[i], g[i], length); });
  return d;
}

}  // namespace mlt
