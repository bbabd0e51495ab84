// RATTLE's linear algebra with a constant M (integrators/rattle.cpp): W = M⁻¹J(q_n)ᵀ, SHAKE's
// Newton matrix J(q_k) W and the velocity half's J M⁻¹Jᵀ. Dense: W, J W and J M⁻¹Jᵀ as dense
// matrices (LU and Cholesky), O(n m²) per matrix. Sparse (a problem that sends J and M as entries,
// M diagonal): J kept as its entries, W never formed, both matrices summed from the pairs of J's
// entries that share a column and factorized by KLU (jacobian_entries.hpp).
#pragma once

#include <Eigen/Cholesky>
#include <string>

#include "core/errors.hpp"
#include "core/problem.hpp"
#include "integrators/base/dense_lu.hpp"
#include "integrators/base/jacobian_entries.hpp"
#include "integrators/base/sparse_lu.hpp"

namespace cmb {

class RattleMatrices {
 public:
  // Sizes and the path (linear_solver: auto | dense | sparse); sparse without what it needs is
  // refused (unsupported).
  void bind(const Problem& problem, const std::string& linear_solver, double pivot_tol);
  // M at (t, q), factorized once for the run (a diagonal one inverted); returns "" or why M
  // cannot be used (not positive definite). On the sparse path also records J's pattern.
  std::string set_mass(double t, CVecRef q);
  // Whether bind chose the sparse path.
  bool sparse() const { return sparse_; }
  // At (t, q) (= q_{n+1}): J and W, and J M⁻¹Jᵀ factorized. Throws singular or diverged.
  void end_of_step(double t, CVecRef q);
  // SHAKE's J(q_k) W at the iterate q_k, factorized; returns its pivot ratio.
  double form_newton(double t, CVecRef q);
  void solve_newton(VecRef b) {
    if (sparse_)
      newton_lu_.solve_in_place(b);
    else
      newton_matrix_.solve_in_place(b);
  }
  void solve_velocity(VecRef b) {
    if (sparse_)
      velocity_lu_.solve_in_place(b);
    else
      velocity_matrix_.solveInPlace(b);
  }
  // out = J x, J at the last end_of_step's q.
  void multiply_j(CVecRef x, VecRef out) const {
    if (sparse_)
      J_n_.multiply(x, out);
    else
      out.noalias() = J_ * x;
  }
  // y −= W x, W = M⁻¹Jᵀ of the last end_of_step.
  template <typename Derived>
  void subtract_w(CVecRef x, Eigen::MatrixBase<Derived>& y) {
    if (!sparse_) {
      y.noalias() -= W_ * x;
      return;
    }
    J_n_.multiply_transpose(x, jt_x_);
    y -= inverse_mass_diagonal_.cwiseProduct(jt_x_);
  }
  // x ← M⁻¹x (a diagonal M, common in Cartesian and natural coordinates, by its inverse).
  template <typename Derived>
  void solve_with_mass(Eigen::MatrixBase<Derived>& x) const {
    if (diagonal_mass_)
      x = inverse_mass_diagonal_.asDiagonal() * x;
    else
      mass_.solveInPlace(x);
  }

 private:
  std::string set_diagonal_mass(double t, CVecRef q);
  void multiply_jw(Mat& out) const;
  std::string singular_message(const char* what, double t) const;

  const Problem* problem_ = nullptr;
  int n_ = 0, m_ = 0;
  double pivot_tol_ = 0.0;
  bool sparse_ = false, diagonal_mass_ = false;
  Mat M_, J_, W_, velocity_block_;
  Eigen::LLT<Mat> mass_, velocity_matrix_;
  DenseLu newton_matrix_;
  JacobianEntries J_n_, J_k_;  // sparse: J(q_n) and the iterate's J(q_k)
  DiagonalProductPlan plan_;
  SparseLu newton_lu_, velocity_lu_;
  Vec inverse_mass_diagonal_, jt_x_;
};

}  // namespace cmb
