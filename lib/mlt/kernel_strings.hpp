// The spectrum kernel on strings (Leslie, Eskin and Noble, "The spectrum kernel: a
// string kernel for SVM protein classification", PSB 2002; the lecture notes):
//   k(x, y) = sum over k-mers u of c_u(x) c_u(y),
// c_u(x) the number of (overlapping) occurrences of the k bytes u in x. With the
// kernel's `normalize`, k(x, y) / sqrt(k(x, x) k(y, y)), the usual choice, so that
// long strings do not dominate.
//
// Design. Every kernel method stores its training samples as rows of an arma::mat
// and calls Kernel::gram(A, B) (mlt/kernel.hpp). A string is therefore *encoded*
// into a numeric row once, when it is read: [kStringTag, L, byte_1, ..., byte_L],
// padded with zeros to the longest string of the batch (n x (2 + max L)). The
// encoding is the string itself, not its k-mer counts, so it does not depend on k:
// one read serves a cv grid over `kmer`, and a model file holds its training strings
// exactly. Rows of one matrix may be of different widths than another's (a test
// string longer than every training string): each row carries its own length.
//
// Evaluation, per call: each row's k-mers are packed exactly into 64-bit keys (k <=
// kMaxKmer = 8 bytes, so no hashing and no collision), sorted, and counted:
// O(L log L) per row. Then either
//  - the merge: k(x, y) by walking the two sorted (key, count) lists together,
//    O(|x| + |y|) per pair (rather than O(k(|x| + |y|)): the k bytes of a key are
//    compared at once); or
//  - when the k-mers present are few against the rows' lengths (DNA: at most 4^k),
//    the dense count matrices C_A (m x V) and C_B (n x V) over the V k-mers present
//    and K = C_A C_Bᵀ by BLAS, O(m n V) at the hardware's peak (in single precision
//    when the largest k-mer totals of A's and B's rows multiply to less than 2^24:
//    every partial sum is then an integer below 2^24, exact in a float).
// Both are exact: every count and every partial sum is an integer below 2^53, so
// the Gram matrix is the same bits for any summation order, blocking or thread count
// (and from both paths). Cost: O((m + n) L log L + m n min(L, V)); memory O((m + n)
// L), or O((m + n) V) for the dense path. The spectra are not kept between calls: a
// caller that asks for one kernel column at a time (SMO's column cache, the
// perceptron's dual loop) pays the O(n L log L) spectra of the training rows per
// column, about log L times the merges themselves; a per-matrix cache of spectra is
// what would remove it.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "mlt/core/types.hpp"

namespace mlt {

inline constexpr int kMaxKmer = 8;        // bytes in a 64-bit key
inline constexpr double kStringTag = 1;   // first entry of an encoded string

// Where a cell is, for a message: "data.csv:12:3" for row i of the batch.
using CellWhere = std::function<std::string(std::size_t row)>;

// texts -> n x (2 + max length) rows [kStringTag, L, bytes (0..255)...].
// A string shorter than k has no k-mer: its row of the Gram matrix is zero (and the
// normalized kernel refuses it). Missing values are the reader's to refuse. Throws
// DataError (prefixed by where(i)) for a string longer than 2^31 bytes.
arma::mat encode_strings(const std::vector<std::string>& texts, const CellWhere& where);

// K(i, j) = the spectrum kernel of A's row i and B's row j (encoded strings, any
// widths), k-mers of k bytes, 1 <= k <= kMaxKmer. m x n. DataError for a row that is
// not an encoded string.
arma::mat spectrum_gram(const arma::mat& A, const arma::mat& B, int k);
// k(x_i, x_i) = sum of squared k-mer counts, for each row of A.
arma::vec spectrum_diagonal(const arma::mat& A, int k);

}  // namespace mlt
