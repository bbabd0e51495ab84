/// \file
/// The Moore–Penrose pseudo-inverse of an m × n matrix A (m ≤ n: constraint rows against
/// coordinates) and an orthonormal basis of its null space, in O(n m² + m³) per factorization,
/// without heap allocation.
///
/// Both paths start from a Householder QR of Aᵀ: Aᵀ = Q R, R m × m upper triangular, so
/// A = Rᵀ Q₁ᵀ with Q₁ the first m columns of Q, Q₂ the remaining n − m.
/// - Certified full rank (the common case): ‖R‖_F ‖R⁻¹‖_F bounds κ(A) = σ₁/σ_m from above (each
///   factor is within √m of its 2-norm), so when 1/(‖R‖_F ‖R⁻¹‖_F) > confident_tol every singular
///   value of A clears both thresholds the callers use (rel_tol < confident_tol): the rank is m,
///   A⁺ = Q₁ R⁻ᵀ and null(A) = span Q₂ — the same numbers an SVD would define, no SVD needed.
/// - Otherwise (rank-deficient, near a singular configuration, or a rank cap below m): the SVD of
///   the small factor, Rᵀ = U Σ Vᵀ (two-sided Jacobi, m × m), gives A = U Σ (Q₁V)ᵀ: the
///   singular values and vectors of A itself, and the rank decision σ_i > rel_tol·σ₁ exactly as
///   a full SVD of A would make it (the QR preconditioning of LAPACK's and Eigen's SVDs).
/// The rank decision is therefore always the SVD's; the QR path only skips the SVD where its
/// answer is certain. More rows than columns (redundant rows beyond the coordinates, where the
/// rank is below m anyway) fall back to the padded SVD of core/padded_svd.hpp, O(m³).
#pragma once

#include <Eigen/Householder>
#include <Eigen/SVD>

#include "core/padded_svd.hpp"
#include "core/types.hpp"

namespace cmb {

/// Pseudo-inverse and null-space basis of a constraint matrix by QR, or SVD where the rank is in
/// doubt.
class PseudoInverse {
 public:
  /// Sizes the workspace for rows × cols matrices; compute allocates nothing after it.
  void bind(int rows, int cols);
  /// Factorizes A. rank(): singular values above rel_tol·σ₁; confident_rank(): above
  /// confident_tol·σ₁ (≥ rel_tol); at most max_rank of them are kept (the rest count as zero).
  void compute(CMatRef A, double rel_tol, double confident_tol, int max_rank);

  /// Singular values above rel_tol·σ₁ at the last compute (at most max_rank).
  int rank() const { return rank_; }
  /// Singular values above confident_tol·σ₁ at the last compute.
  int confident_rank() const { return confident_rank_; }
  /// Whether the last compute needed the SVD (false: the certified QR path).
  bool used_svd() const { return used_svd_; }
  /// The smallest kept singular value on the SVD path; on the QR path a certified lower bound.
  double smallest_kept_singular_value_bound() const { return smallest_bound_; }

  /// x = A⁺ b (minimum-norm least squares); b has `rows` entries, x has `cols`.
  void solve(CVecRef b, VecRef x);
  /// x = (Aᵀ)⁺ b; b has `cols` entries, x has `rows`.
  void solve_transposed(CVecRef b, VecRef x);
  /// Orthonormal basis of null(A): cols − rank columns, written into the left of N (cols × cols);
  /// only when rows ≤ cols.
  void null_space(MatRef N);

 private:
  void householder_qr();
  bool invert_r();
  void compute_svd(double rel_tol, double confident_tol, int max_rank);
  void reflect(int k, VecRef x) const;   ///< x ← H_k x, the k-th Householder reflector of Q
  void apply_q(VecRef x) const;          ///< x ← Q x
  void apply_q_adjoint(VecRef x) const;  ///< x ← Qᵀ x

  using Svd = Eigen::JacobiSVD<Mat, Eigen::NoQRPreconditioner>;
  Svd svd_;
  PaddedSvd wide_;  ///< rows > cols
  Mat At_, R_inv_, Rt_;
  Vec tau_, work_n_, work_m_;
  int rows_ = 0, cols_ = 0, rank_ = 0, confident_rank_ = 0;
  bool used_svd_ = false, wide_path_ = false;
  double smallest_bound_ = 0.0;
};

}  // namespace cmb
