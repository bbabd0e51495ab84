// Bringing a state onto the constraint manifold: Gauss–Newton on Φ(t,q) = 0 with minimum-norm
// corrections, and the minimum-norm velocity correction for J v = ν. Used for initial assembly
// and by tests to make random consistent states. Allocates.
#pragma once

#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

struct AssemblyResult {
  bool converged = false;
  int iterations = 0;
  double residual = 0.0;  // max |Φ_i| after the last iteration
};

AssemblyResult assemble_positions(const Problem& problem, double t, VecRef q,
                                  double tol = 1e-13, int max_iterations = 50);

// Returns max |ψ_i| after the correction.
double assemble_velocities(const Problem& problem, double t, CVecRef q, VecRef v);

// Max-norm residuals of the position rows (Φ) and of all velocity rows (ψ = J v − ν).
double position_residual(const Problem& problem, double t, CVecRef q);
double velocity_residual(const Problem& problem, double t, CVecRef q, CVecRef v);

}  // namespace cmb
