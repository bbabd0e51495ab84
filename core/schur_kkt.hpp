// Range-space (Schur complement) solve of the KKT system, the workhorse of index1 and baumgarte:
//   M = LLᵀ,  a_f = M⁻¹Q,  S = J M⁻¹ Jᵀ,  S λ = J a_f − γ,  q̈ = a_f − M⁻¹Jᵀλ.
// Allocation-free after bind. S loses definiteness when J loses row rank; that is reported as
// RunStatus::singular instead of returning an arbitrary λ.
#pragma once

#include <Eigen/Cholesky>

#include "core/acceleration_method.hpp"
#include "core/params.hpp"
#include "core/types.hpp"

namespace cmb {

// The `pivot_tol`, `rank_policy` and `linear_solver` parameters of the methods that use it.
std::vector<ParamSpec> schur_param_specs();


// What to do when J M⁻¹Jᵀ has pivots below pivot_tol: stop with `singular` (the honest default
// for a method that assumes full row rank), or drop those pivots (minimum-norm-like λ, flagged
// non-unique) to pass isolated singular configurations such as IFToMM A02's horizontal rockers.
enum class RankPolicy { fail, truncate };

enum class SchurOutcome { full_rank, truncated, rank_deficient, mass_not_positive_definite };

class SchurKktSolver {
 public:
  void bind(int n, int m);
  // pivot_tol: S counts as singular when min|D_ii| < pivot_tol · max|D_ii| in S = PᵀLDLᵀP.
  // The solve without exceptions (they allocate: callers with a fallback use this one).
  SchurOutcome try_solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                         RankPolicy policy, VecRef qdd, VecRef lambda, double softness = 0.0);
  // Returns false when pivots were truncated (λ then not unique). softness s ≥ 0 adds the
  // MuJoCo-style regularization R = s·diag(J M⁻¹Jᵀ) to the Schur complement (soft constraints).
  bool solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol, RankPolicy policy,
             double t, VecRef qdd, VecRef lambda, double softness = 0.0);

 private:
  Eigen::LLT<Mat> llt_M_;
  Eigen::LDLT<Mat> ldlt_S_;
  Mat Y_;  // L⁻¹ Jᵀ
  Mat S_;
  Vec a_f_, r_;
  double last_pivot_ratio_ = 1.0;
};

// index1, baumgarte and projection: the Schur-complement solve (dense) or the sparse LDLᵀ of
// the whole KKT matrix (core/sparse_kkt.hpp), with or without Baumgarte terms in γ.
class SchurKktMethod : public AccelerationMethod {
 public:
  SchurKktMethod(Params params, BaumgarteGains gains);
  bool multipliers_unique() const override { return unique_; }

 protected:
  bool uses_dense_matrices(const Problem& problem) const override;
  void bind_solver() override;
  void solve_accelerations(double t) override;

 private:
  SchurKktSolver solver_;
  double pivot_tol_;
  RankPolicy policy_;
  std::string linear_solver_;
  bool unique_ = true;
};

}  // namespace cmb
