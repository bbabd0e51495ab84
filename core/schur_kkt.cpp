#include "core/schur_kkt.hpp"

#include <cmath>
#include <sstream>

#include "core/errors.hpp"
#include "core/lower_solve.hpp"

namespace cmb {

void SchurKktSolver::bind(int n, int m, bool generic_only) {
  small_ = !generic_only && SmallSchurKernel::fits(n, m);
  if (small_) {
    small_kernel_.bind(n, m);
    return;
  }
  llt_M_ = Eigen::LLT<Mat>(n);
  ldlt_S_ = Eigen::LDLT<Mat>(m);
  Y_.setZero(n, m);
  S_.setZero(m, m);
  a_f_.setZero(n);
  r_.setZero(m);
}

SchurOutcome SchurKktSolver::try_solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma,
                                       double pivot_tol, RankPolicy policy, VecRef qdd,
                                       VecRef lambda, double softness) {
  if (small_)
    return small_kernel_.solve(M, J, Q, gamma, pivot_tol, policy, qdd, lambda, softness,
                               last_pivot_ratio_);
  llt_M_.compute(M);
  if (llt_M_.info() != Eigen::Success) return SchurOutcome::mass_not_positive_definite;
  a_f_ = Q;
  llt_M_.solveInPlace(a_f_);
  if (J.rows() == 0) {
    qdd = a_f_;
    return SchurOutcome::full_rank;
  }
  // Y = L⁻¹Jᵀ and a coefficient-based product: the blocked kernels would take heap workspace for
  // large problems, and rhs must not allocate.
  Y_ = J.transpose();
  lower_solve_in_place(llt_M_, Y_);
  S_.noalias() = Y_.transpose().lazyProduct(Y_);
  if (softness > 0.0) S_.diagonal() *= 1.0 + softness;
  ldlt_S_.compute(S_);
  // S is positive semi-definite: pivots may come out as tiny negatives when J is (nearly)
  // rank-deficient, which Eigen reports as a numerical issue; only |d_i| against the cutoff and
  // a clearly negative pivot matter here.
  const auto d = ldlt_S_.vectorD();
  const double cutoff = pivot_tol * d.cwiseAbs().maxCoeff();
  last_pivot_ratio_ = d.cwiseAbs().minCoeff() / d.cwiseAbs().maxCoeff();
  const bool full_rank = d.cwiseAbs().maxCoeff() > 0.0 && d.minCoeff() >= cutoff;
  const bool indefinite = d.minCoeff() < -cutoff;
  if (!std::isfinite(cutoff) || indefinite || (!full_rank && policy == RankPolicy::fail))
    return SchurOutcome::rank_deficient;
  r_.noalias() = J * a_f_;
  r_ -= gamma;
  // λ = S⁺ r through PᵀLDLᵀP, dropping pivots below the cutoff (none when full_rank).
  r_ = ldlt_S_.transpositionsP() * r_;
  ldlt_S_.matrixL().solveInPlace(r_);
  for (Eigen::Index i = 0; i < r_.size(); ++i)
    r_(i) = std::abs(d(i)) >= cutoff && d(i) != 0.0 ? r_(i) / d(i) : 0.0;
  ldlt_S_.matrixU().solveInPlace(r_);
  lambda = ldlt_S_.transpositionsP().transpose() * r_;
  // q̈ = a_f − L⁻ᵀ (Y λ)
  qdd.noalias() = Y_ * lambda;
  llt_M_.matrixU().solveInPlace(qdd);
  qdd = a_f_ - qdd;
  return full_rank ? SchurOutcome::full_rank : SchurOutcome::truncated;
}

bool SchurKktSolver::solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                           RankPolicy policy, double t, VecRef qdd, VecRef lambda,
                           double softness) {
  const SchurOutcome outcome = try_solve(M, J, Q, gamma, pivot_tol, policy, qdd, lambda, softness);
  if (outcome == SchurOutcome::mass_not_positive_definite)
    fail_not_positive_definite("mass matrix", t);
  if (outcome == SchurOutcome::rank_deficient) {
    std::ostringstream msg;
    msg << "KKT Schur complement J M⁻¹ Jᵀ is singular at t = " << t << " (pivot ratio "
        << last_pivot_ratio_ << " < " << pivot_tol
        << "): J has lost row rank (redundant constraints or a singular configuration)";
    throw NumericalFailure(RunStatus::singular, msg.str());
  }
  return outcome == SchurOutcome::full_rank;
}

}  // namespace cmb
