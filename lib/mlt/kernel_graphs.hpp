// The walk kernel on vertex-labelled graphs (Gärtner, Flach and Wrobel, "On graph
// kernels: hardness results and efficient alternatives", COLT 2003; the lecture
// notes): K(G, H) = the number of pairs (walk in G, walk in H) of length exactly n
// (`walk_length`, n edges, n + 1 vertices) with the same sequence of vertex labels,
// that is the sum over label sequences of the products of their walk counts.
// Computed on the direct product graph G×H, whose vertices are the pairs (v, w) of
// equally-labelled vertices and whose edges join (v, w) and (v', w') when v–v' is
// an edge of G and w–w' one of H: K(G, H) = 1ᵀ A×ⁿ 1. The Kronecker product is never
// formed: a vector on G×H is an n_G x n_H matrix X masked by M (M_vw = 1 when v and w
// have the same label), A× acts as X -> M ∘ (A_G X A_Hᵀ), and
//   X_0 = M,  X_{l+1} = M ∘ (A_G X_l A_Hᵀ),  K(G, H) = Σ_vw (X_n)_vw,
// with A_G X and X A_Hᵀ taken over adjacency lists: O(n (m_G n_H + n_G m_H)) per pair
// for graphs of m_G and m_H edges, below the dense O(n n_G n_H (n_G + n_H)). Counts are
// integers, exact while below 2^53 (beyond, DataError: lower `walk_length`).
// Graphs are undirected; a self-loop i-i is a walk step from i to itself.
// (The geometric sum over all lengths with a decay is not offered: its decay must be
// below 1 / the largest eigenvalue of every product graph to converge, a bound that
// depends on the test data; fixed lengths are always defined.)
//
// Notation of a graph in one CSV cell: the vertex labels separated by spaces, a bar,
// then the edges as i-j pairs of 0-based vertex numbers separated by spaces:
//   "C C O|0-1 1-2"   three vertices labelled C, C, O; edges 0–1 and 1–2
//   "N|"              one vertex, no edge
// A label is 1 to 6 bytes other than space, tab and bar (packed exactly into
// a double). Repeated edges count once.
//
// Encoding (as the strings': mlt/kernel_strings.hpp): a graph becomes the row
// [kGraphTag, n_vertices, n_edges, label_1..label_n, u_1, v_1, ..., u_m, v_m], padded
// with zeros to the batch's widest graph; rows of different widths mix freely.
#pragma once

#include <string>
#include <vector>

#include "mlt/core/types.hpp"
#include "mlt/kernel_strings.hpp"

namespace mlt {

inline constexpr double kGraphTag = 2;
inline constexpr int kMaxGraphLabel = 6;  // bytes, exact in a double's 53 bits

// Parses and encodes each cell. DataError "where(i): offset 7 of the cell: ..."
// (1-based byte offset) for a malformed graph.
arma::mat encode_graphs(const std::vector<std::string>& cells, const CellWhere& where);

// K(i, j) = the walk kernel of A's row i and B's row j (encoded graphs), walks of
// `length` edges (0: the number of equally-labelled vertex pairs). m x n.
arma::mat walk_gram(const arma::mat& A, const arma::mat& B, int length);
arma::vec walk_diagonal(const arma::mat& A, int length);

}  // namespace mlt
