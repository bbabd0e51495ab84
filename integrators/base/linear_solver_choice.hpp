// The `linear_solver` parameter of the DAE integrators (generalized_alpha, ali3p, ida) and the
// choice it makes: dense LU, or the sparse path — iteration matrices assembled from the problem's
// entries and factorized by KLU — which needs the problem's sparse entries of M and J and its
// residual tangents (and, for ida, holonomic rows only).
#pragma once

#include <string>

#include "core/errors.hpp"
#include "core/params.hpp"

namespace cmb {

inline ParamSpec linear_solver_param() {
  return choice_param("linear_solver", {"auto", "dense", "sparse"},
                      "iteration matrices: dense LU, sparse LU (KLU; needs the problem's sparse "
                      "entries and residual tangents), or auto: sparse where the problem allows "
                      "it (generalized_alpha, ali3p: from kSparseFromSize unknowns)");
}

// Measured crossover (docs/integrators.md, "Sparse iteration matrices"): at 15 unknowns
// (n_pendulum N = 5) both paths cost the same per step; from 17 (n_four_bar N = 1) the sparse one
// is faster (generalized_alpha 1.35 against 2.29 µs per step).
constexpr int kSparseFromSize = 16;

// Whether `choice` (auto | dense | sparse) takes the sparse path for a system of `unknowns`.
// `missing` is empty when the problem allows it, else what it lacks: then sparse is refused
// (unsupported, naming what is missing) and auto stays dense. auto is sparse from `from_size`
// unknowns (ida's sparse path was the faster at every size measured, down to 6 unknowns: 0).
inline bool choose_sparse_path(const std::string& integrator, const std::string& choice,
                               const std::string& missing, int unknowns,
                               int from_size = kSparseFromSize) {
  if (choice == "sparse" && !missing.empty())
    throw NumericalFailure(RunStatus::unsupported, integrator + ": linear_solver = sparse needs " +
                                                       missing + "; use dense or auto");
  if (choice == "dense" || !missing.empty()) return false;
  return choice == "sparse" || unknowns >= from_size;
}

}  // namespace cmb
