/// \file
/// A small interface to a dense convex QP solver:
///   minimize ½ (x − a)ᵀ H (x − a)   subject to   A_eq x = b_eq,   A_in x ≥ b_in,
/// with H symmetric positive definite. Backed by ALGLIB's minqp (dense augmented-Lagrangian
/// algorithm; Debian libalglib-dev, GPL-2.0+), which copes with redundant equality rows. The
/// solver allocates internally: it is the general path of gauss_qp, not a hot path to optimize.
#pragma once

#include <memory>

#include "core/types.hpp"

namespace cmb {

/// The outcome of DenseQp::solve.
struct QpResult {
  bool ok = false;      ///< the solver reported a solution
  int termination = 0;  ///< the library's code, for messages
};

/// A reusable dense QP solver (ALGLIB minqp): the general path of gauss_qp.
class DenseQp {
 public:
  /// Creates the solver; its state is built at the first solve.
  DenseQp();
  /// Releases the solver's state.
  ~DenseQp();
  static bool available();  ///< false when built with -DCMB_ALGLIB=OFF

  /// Multipliers in cmbench's convention: H (x − a) = −A_eqᵀ λ_eq − A_inᵀ λ_in, so λ_in ≤ 0 for
  /// an active "≥" row.
  QpResult solve(CMatRef H, CVecRef a, CMatRef A_eq, CVecRef b_eq, CMatRef A_in, CVecRef b_in,
                 double tol, VecRef x, VecRef lambda_eq, VecRef lambda_in);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cmb
