// The dense KKT oracle every method is tested against:
//   [ M  Jᵀ ] [ q̈ ]   [ Q ]
//   [ J  0  ] [ λ  ] = [ γ ]      (M q̈ = Q − Jᵀλ, J q̈ = γ)
// solved by a complete orthogonal decomposition of the whole matrix, so q̈ is right even when J
// is rank-deficient (λ is then the minimum-norm choice). Allocates: tests and diagnostics only.
#pragma once

#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

struct KktSolution {
  Vec qdd;
  Vec lambda;
  int rank_J = 0;
  bool lambda_unique = true;  // J has full row rank
};

KktSolution kkt_oracle(CMatRef M, CMatRef J, CVecRef Q, CVecRef gamma);

// Evaluates the problem's terms at (t, q, v) and solves.
KktSolution kkt_oracle(const Problem& problem, double t, CVecRef q, CVecRef v);

// Numerical row rank of J: singular values above rel_tol · σ_max.
int row_rank(CMatRef J, double rel_tol = 1e-10);

}  // namespace cmb
