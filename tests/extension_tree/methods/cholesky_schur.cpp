// cholesky_schur — the range-space KKT solve with Eigen's own factorizations, the method
// scripts/check_extension.sh adds to a copy of the tree to show that a method is one file.
//
// Equations: M = P L D Lᵀ Pᵀ (Eigen's pivoted Cholesky, LDLT), A = M⁻¹Jᵀ column by column, the
// Schur complement S = J A factored the same way, then λ = S⁻¹(J M⁻¹Q − γ) and
// q̈ = M⁻¹Q − A λ: the same KKT solution as index1, by another code path (no shared kernel).
// Allocation-free at any size: every workspace is sized at bind, LDLT factors without blocking,
// and S = J A is a coefficient-wise (lazy) product — Eigen's blocked LLT and matrix products
// take heap workspace on large problems (the conformance suite's n_four_bar at its default N).
// Source: e.g. [LaulusaBauchau2008], §2 (keys in docs/sources.md).
// Parameters: none.
// State: x = [q; v].
// Fails when: J loses row rank (redundant constraints, singular configurations): S is then
// singular and λ meaningless, so it declares no support for redundant rows.
#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "core/registry.hpp"
#include "methods/base/acceleration_method.hpp"

namespace cmb {
namespace {

class CholeskySchur : public AccelerationMethod {
 public:
  explicit CholeskySchur(const Params& params) : AccelerationMethod(params, {}) {}

 private:
  void bind_solver() override {
    mass_ = Eigen::LDLT<Mat>(n_);
    schur_ = Eigen::LDLT<Mat>(m_);
    minv_jt_.setZero(n_, m_);
    s_.setZero(m_, m_);
    free_.setZero(n_);
    rhs_.setZero(m_);
  }

  void solve_accelerations(double) override {
    mass_.compute(M_);
    minv_jt_ = J_.transpose();
    for (Eigen::Index j = 0; j < m_; ++j) {
      auto column = minv_jt_.col(j);
      mass_.solveInPlace(column);
    }
    s_.noalias() = J_.lazyProduct(minv_jt_);
    schur_.compute(s_);
    free_ = Q_;
    mass_.solveInPlace(free_);  // the unconstrained accelerations M⁻¹Q
    rhs_.noalias() = J_ * free_;
    rhs_ -= gamma_;
    schur_.solveInPlace(rhs_);
    lambda_ = rhs_;
    qdd_ = free_;
    qdd_.noalias() -= minv_jt_ * lambda_;
  }

  Eigen::LDLT<Mat> mass_;
  Eigen::LDLT<Mat> schur_;
  Mat minv_jt_, s_;
  Vec free_, rhs_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_METHOD(cholesky_schur) {
  cmb::MethodEntry entry;
  entry.id = "cholesky_schur";
  entry.display_name = "Cholesky Schur";
  entry.summary = "range-space KKT solve with Eigen's LDLT of M and of J M^-1 J^T";
  entry.capabilities.nonholonomic = true;  // nonholonomic rows are rows of J like any other
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::CholeskySchur>(p); };
  return entry;
}
