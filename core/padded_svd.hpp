/// \file
/// Allocation-free SVD of an m × n matrix for the pseudo-inverse and null-space methods. Eigen's
/// rectangular JacobiSVD runs a QR preconditioner whose blocked Householder kernels take heap
/// workspace on large problems; padding the matrix with zeros to s × s (s = max(m, n)) lets the
/// two-sided Jacobi SVD run without one. The first r = rank columns of U and V are the singular
/// vectors of the original matrix; padding only adds zero singular values.
#pragma once

#include <Eigen/SVD>
#include <algorithm>

#include "core/types.hpp"

namespace cmb {

/// Allocation-free SVD of a rows × cols matrix, padded to a square one (see the file's comment).
class PaddedSvd {
 public:
  /// Sizes the workspace for rows × cols matrices; compute allocates nothing after it.
  void bind(int rows, int cols);
  /// Numerical rank: singular values above rel_tol · σ₁.
  void compute(CMatRef A, double rel_tol);

  /// The rank decided by the last compute (after limit_rank).
  int rank() const { return rank_; }
  /// Number of singular values above rel_tol · σ₁ (another threshold than compute's).
  int rank_above(double rel_tol) const {
    const auto& s = svd_.singularValues();
    int r = 0;
    while (r < std::min(rows_, cols_) && s(r) > rel_tol * s(0)) ++r;
    return r;
  }
  /// Treats the singular values beyond max_rank as zero too (AccelerationMethod::rank_cap).
  void limit_rank(int max_rank) { rank_ = std::min(rank_, std::max(max_rank, 0)); }
  /// All singular values of the padded matrix, decreasing (the padding adds zeros).
  const Vec& singular_values() const { return svd_.singularValues(); }
  /// Singular vectors restricted to the original rows/columns; columns 0..rank-1 are valid.
  auto U() const { return svd_.matrixU().topRows(rows_); }
  /// Right singular vectors restricted to the original columns; columns 0..rank-1 are valid.
  auto V() const { return svd_.matrixV().topRows(cols_); }
  /// Orthonormal basis of the null space (cols − rank columns); only when rows ≤ cols.
  auto null_space() const { return svd_.matrixV().rightCols(cols_ - rank_); }

  /// x = A⁺ b (minimum-norm least squares); b has `rows` entries, x has `cols`.
  void solve(CVecRef b, VecRef x);
  /// x = (Aᵀ)⁺ b; b has `cols` entries, x has `rows`.
  void solve_transposed(CVecRef b, VecRef x);

 private:
  using Svd = Eigen::JacobiSVD<Mat, Eigen::NoQRPreconditioner>;
  Svd svd_;
  Mat padded_;
  Vec work_;
  int rows_ = 0, cols_ = 0, rank_ = 0;
};

}  // namespace cmb
