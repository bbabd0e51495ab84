/// \file
/// Range-space (Schur complement) solve of the KKT system, the workhorse of index1 and baumgarte:
///   M = LLᵀ,  a_f = M⁻¹Q,  S = J M⁻¹ Jᵀ,  S λ = J a_f − γ,  q̈ = a_f − M⁻¹Jᵀλ.
/// Allocation-free after bind. S loses definiteness when J loses row rank; that is reported as
/// RunStatus::singular instead of returning an arbitrary λ.
#pragma once

#include <Eigen/Cholesky>

#include "core/small_schur_kernel.hpp"
#include "core/types.hpp"

namespace cmb {

/// The range-space KKT solver of index1 and baumgarte (see the file's comment).
class SchurKktSolver {
 public:
  /// Small systems take SmallSchurKernel unless generic_only (tests compare the two).
  void bind(int n, int m, bool generic_only = false);
  /// pivot_tol: S counts as singular when min|D_ii| < pivot_tol · max|D_ii| in S = PᵀLDLᵀP.
  /// The solve without exceptions (they allocate: callers with a fallback use this one).
  SchurOutcome try_solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol,
                         RankPolicy policy, VecRef qdd, VecRef lambda, double softness = 0.0);
  /// min|D_ii| / max|D_ii| of S at the last solve (1 without constraints).
  double last_pivot_ratio() const { return last_pivot_ratio_; }
  /// Returns false when pivots were truncated (λ then not unique). softness s ≥ 0 adds the
  /// MuJoCo-style regularization R = s·diag(J M⁻¹Jᵀ) to the Schur complement (soft constraints).
  bool solve(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma, double pivot_tol, RankPolicy policy,
             double t, VecRef qdd, VecRef lambda, double softness = 0.0);

 private:
  bool small_ = false;
  SmallSchurKernel small_kernel_;
  Eigen::LLT<Mat> llt_M_;
  Eigen::LDLT<Mat> ldlt_S_;
  Mat Y_;  ///< L⁻¹ Jᵀ
  Mat S_;
  Vec a_f_, r_;
  double last_pivot_ratio_ = 1.0;
};

}  // namespace cmb
