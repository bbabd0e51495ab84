/// \file
/// X ← L⁻¹ X for the Cholesky factor of M = L Lᵀ. With X = Jᵀ this gives Bᵀ for B = J L⁻ᵀ, the
/// constraint matrix in the coordinates Lᵀq̈ that the Schur complement (S = B Bᵀ), Udwadia–Kalaba's
/// Cholesky variant and Gauss's prioritized solve are built from.
#pragma once

#include <Eigen/Cholesky>

#include "core/types.hpp"

namespace cmb {

/// Column by column: the blocked triangular solve would take heap workspace for large problems,
/// and RHS evaluations must not allocate.
inline void lower_solve_in_place(const Eigen::LLT<Mat>& llt, MatRef X) {
  for (Eigen::Index j = 0; j < X.cols(); ++j) llt.matrixL().solveInPlace(X.col(j));
}

}  // namespace cmb
