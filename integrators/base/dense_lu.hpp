// LU factorization with partial pivoting, P A = L U, in preallocated storage, for the iteration
// matrices of the index-3 integrators (generalized_alpha, ali3p): square, unsymmetric (the
// difference-quotient tangents K and C are) and, for generalized-α, a saddle point with a zero
// block. Written out column by column because Eigen's blocked PartialPivLU takes heap workspace
// for its matrix products beyond a few hundred rows (measured with a malloc hook: 4 allocations
// per factorization at 485 rows, none at 243), and a step must not allocate. The right-looking
// update as column axpy runs at about half the speed of the blocked kernel (measured: 7 ms
// against 3.8 ms at 485 rows, 55 against 31 ms at 1000).
// Header-only: it needs no build rule of its own.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <limits>
#include <utility>

#include "core/types.hpp"

namespace cmb {

class DenseLu {
 public:
  void bind(int size) {
    lu_.setZero(size, size);
    rows_.setZero(size);
  }

  // The matrix to factorize: the caller writes it, factorize() overwrites it with L and U.
  Mat& matrix() { return lu_; }

  // Factorizes matrix() in place and returns min |u_kk| / max |u_kk|, the pivot ratio the
  // callers compare with their singularity threshold (0 when a column vanishes: then the factors
  // must not be used).
  double factorize() {
    const Eigen::Index n = lu_.rows();
    double largest = 0.0;
    double smallest = std::numeric_limits<double>::infinity();
    for (Eigen::Index k = 0; k < n; ++k) {
      Eigen::Index p = 0;
      const double pivot = lu_.col(k).tail(n - k).cwiseAbs().maxCoeff(&p);
      p += k;
      rows_(k) = static_cast<int>(p);
      if (p != k) lu_.row(k).swap(lu_.row(p));
      largest = std::max(largest, pivot);
      smallest = std::min(smallest, pivot);
      if (pivot == 0.0) continue;
      const Eigen::Index below = n - k - 1;
      lu_.col(k).tail(below) /= lu_(k, k);
      for (Eigen::Index j = k + 1; j < n; ++j)
        lu_.col(j).tail(below) -= lu_(k, j) * lu_.col(k).tail(below);
    }
    if (n == 0) return 1.0;
    return largest > 0.0 ? smallest / largest : 0.0;
  }

  // b ← A⁻¹ b with the last factorization.
  void solve_in_place(VecRef b) const {
    for (Eigen::Index k = 0; k < rows_.size(); ++k)
      if (rows_(k) != k) std::swap(b(k), b(rows_(k)));
    lu_.triangularView<Eigen::UnitLower>().solveInPlace(b);
    lu_.triangularView<Eigen::Upper>().solveInPlace(b);
  }

 private:
  Mat lu_;
  Eigen::VectorXi rows_;  // row k was swapped with row rows_(k) at step k
};

}  // namespace cmb
