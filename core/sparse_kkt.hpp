/// \file
/// Sparse KKT solve for large mechanisms whose problem offers sparse evaluation: the symmetric
/// indefinite matrix K = [M Jᵀ; J 0] (upper triangle) is assembled from the problem's entries
/// into a pattern fixed at bind, factorized as K = LDLᵀ by Eigen's SimplicialLDLT in the natural
/// order (coordinates first, so the pivots of M come first and those of −J M⁻¹Jᵀ after them),
/// with the symbolic analysis done once. Cost per call is linear in the number of nonzeros for
/// chain-like mechanisms (n_four_bar, n_pendulum). Allocation-free after bind.
#pragma once

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <vector>

#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

/// The sparse LDLᵀ KKT solver of large chain-like mechanisms (see the file's comment).
class SparseKktSolver {
 public:
  /// Records the pattern of M and J and analyses K. The problem must have sparse evaluation.
  /// identity_mass: the coordinate block is I instead of M (Euclidean projections).
  void bind(const Problem& problem, bool identity_mass = false);
  /// Fills K's values at (t, q); false if any value is not finite.
  bool evaluate(double t, CVecRef q);
  /// out = J v from the current values.
  void jacobian_times(CVecRef v, VecRef out) const;
  /// out = Jᵀ y from the current values.
  void jacobian_transpose_times(CVecRef y, VecRef out) const;
  /// out = M v, from the last evaluate (M's upper triangle as stored in K).
  void mass_times(CVecRef v, VecRef out) const;
  /// After factorize_quasi_definite: the smallest |pivot| of the multiplier block (the pivots of
  /// J M⁻¹Jᵀ + I/α in elimination order; +∞ without constraints).
  double smallest_multiplier_pivot() const;
  /// Solves K [q̈; λ] = [Q; γ]. Returns false when the factorization breaks down or J M⁻¹Jᵀ
  /// has a pivot below pivot_tol relative to its largest (J has lost row rank).
  bool solve(CVecRef Q, CVecRef gamma, double pivot_tol, VecRef qdd, VecRef lambda);
  /// Smallest over largest |pivot| of J M⁻¹Jᵀ at the last solve (1 without constraints).
  double last_pivot_ratio() const { return last_pivot_ratio_; }
  /// After solve() reported rank loss: solves [M Jᵀ; J −εI][q̈; λ] = [Q; γ] with
  /// ε = pivot_tol · (largest |pivot| of J M⁻¹Jᵀ), which bounds every multiplier direction's gain
  /// by 1/ε as dropping the pivots below pivot_tol·max bounds it (rank_policy = truncate).
  /// False if M is not positive definite.
  bool solve_regularized(CVecRef Q, CVecRef gamma, double pivot_tol, VecRef qdd, VecRef lambda);

  /// For the penalty form (augmented_lagrangian): with −ε on the multiplier diagonal,
  /// K = [M Jᵀ; J −εI] eliminates to (M + JᵀJ/ε) on the coordinates, so solving with right-hand
  /// side [b; 0] gives (M + JᵀJ/ε)⁻¹ b without forming JᵀJ. Call after evaluate().
  void set_multiplier_diagonal(double value);
  /// Factorizes K as it stands; false unless M's pivots are > 0 and the others < 0.
  bool factorize_quasi_definite();
  /// x ← K⁻¹ x (x of size n + m) with the current factorization.
  void solve_in_place(VecRef x) const;
  /// [q̈; λ] = K⁻¹ [Q; γ] with the current factorization.
  void solve_factorized(CVecRef Q, CVecRef gamma, VecRef qdd, VecRef lambda);

  /// Bounds on the extreme singular values of C = L_b |D_b|^{1/2}, the factor of one diagonal
  /// block of the last factorization (its pivots nonzero): for the coordinates C Cᵀ = M, for the
  /// multipliers C Cᵀ = J M⁻¹Jᵀ, so C's singular values are those of J M^{-1/2}. They hold for the
  /// computed factor: σ_max ≤ min(‖C‖_F, √(‖C‖₁‖C‖∞)) and σ_min ≥ 1/√(‖C⁻¹‖₁‖C⁻¹‖∞), where
  /// |L_b⁻¹| is bounded entrywise by the inverse of L_b's comparison matrix (unit diagonal,
  /// −|l_ij| off it) [Higham2002, ch. 8]: one forward and one backward solve with it, O(nonzeros of
  /// the block). The bounds are exact for a diagonal block and tight for bidiagonal ones (a chain).
  struct SingularValueBounds {
    double largest = 0.0;   ///< ≥ σ_max(C)
    double smallest = 0.0;  ///< ≤ σ_min(C); 0 when the bound overflows
  };
  /// The diagonal block of K whose factor singular_value_bounds bounds.
  enum class Block { coordinates, multipliers };
  /// The bounds above for one block of the last factorization.
  SingularValueBounds singular_value_bounds(Block block);
  /// The most nonzeros in a row of L (fixed at bind): the length of the longest inner product in
  /// the factorization, which sets its rounding error (≈ row length · u relative).
  int longest_factor_row() const { return longest_factor_row_; }
  /// ‖M‖∞ and ‖JᵀJ‖∞ from the current values (JᵀJ is never formed: its rows are accumulated
  /// one at a time in workspace sized at bind).
  double mass_norm_inf();
  /// ‖JᵀJ‖∞ (see mass_norm_inf).
  double jtj_norm_inf();

 private:
  class Recorder;
  class Writer;

  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0;
  bool identity_mass_ = false;
  std::vector<int> coordinate_diagonal_;  ///< value positions of K(i, i), i < n
  Eigen::SparseMatrix<double> K_;
  /// Eigen's factorize() copies its input into a temporary (an allocation per call); with the
  /// upper triangle in natural order that copy is an identity, so the factorization runs on K_.
  /// The numeric factorization replays Eigen's up-looking LDLᵀ with the row patterns of L
  /// recorded once at analysis (Eigen recomputes them from the elimination tree at every call):
  /// the same operations in the same order, so the same factor to the last bit.
  class Ldlt : public Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>, Eigen::Upper,
                                            Eigen::NaturalOrdering<int>> {
   public:
    void analyze(const Eigen::SparseMatrix<double>& upper);
    void factorize_in_place(const Eigen::SparseMatrix<double>& upper);
    // x ← K⁻¹ x: L, D and Lᵀ solves in the operation order of Eigen's sparse triangular solvers
    // (plain loops: for the catalog's sizes the iterator set-up is most of their cost).
    void solve_in_place(double* x) const;
    // vectorD() returns a copy (an allocation); the stored diagonal is what it copies.
    const Vec& diagonal() const { return this->m_diag; }
    int longest_row() const;
    // L's strict lower triangle, by columns, rows ascending within each column.
    const Eigen::SparseMatrix<double>& strict_lower() const { return this->m_matrix; }

   private:
    std::vector<int> row_pattern_;        // for each row k of L, its columns in solve order
    std::vector<int> row_pattern_start_;  // row k's columns: [start[k], start[k + 1])
    std::vector<int> row_slot_;           // position in L's values of each row_pattern_ entry
    Vec y_;                               // the row being eliminated (all zero between calls)
  };

  /// Position in K_'s value array of each entry the problem sends, in sending order (−1: lower
  /// triangle of M, ignored); M's entries first, then J's (stored as Jᵀ above the diagonal).
  std::vector<int> slot_;
  std::vector<int> multiplier_diagonal_;  ///< value positions of K(n + r, n + r)
  /// Per coordinate i, the (constraint row r, value position of J(r, i)) pairs.
  std::vector<std::vector<std::pair<int, int>>> jacobian_columns_;
  Ldlt ldlt_;
  Vec solution_, row_work_, bound_work_;
  std::vector<int> touched_, mark_;  ///< coordinates of the JᵀJ row being accumulated
  double last_pivot_ratio_ = 1.0;
  int longest_factor_row_ = 0;
  double last_largest_pivot_ = 0.0;  ///< largest |pivot| of J M⁻¹Jᵀ in the last factorization
};

}  // namespace cmb
