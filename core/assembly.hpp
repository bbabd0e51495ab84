/// \file
/// Bringing a state onto the constraint manifold: Gauss–Newton on Φ(t,q) = 0 with minimum-norm
/// corrections, and the minimum-norm velocity correction for J v = ν. Used for initial assembly
/// and by tests to make random consistent states. Allocates.
#pragma once

#include "core/problem.hpp"
#include "core/types.hpp"

namespace cmb {

/// The outcome of assemble_positions.
struct AssemblyResult {
  bool converged = false;  ///< whether the residual reached the tolerance
  int iterations = 0;      ///< Gauss–Newton iterations taken
  double residual = 0.0;   ///< max |Φ_i| after the last iteration
};

/// Moves q onto Φ(t, q) = 0 by Gauss–Newton with minimum-norm corrections, to `tol` (max |Φ_i|).
/// With `offset` ≠ 0 it solves Φ_i(t,q) = offset for every holonomic row instead (a deliberate,
/// uniform constraint violation); the residual is then max |Φ_i − offset|.
AssemblyResult assemble_positions(const Problem& problem, double t, VecRef q, double tol = 1e-13,
                                  int max_iterations = 50, double offset = 0.0);

/// Minimum-norm correction to J v − ν = r with r_i = holonomic_rate on the holonomic rows and 0
/// on the nonholonomic ones. Returns max |J v − ν − r| after the correction.
double assemble_velocities(const Problem& problem, double t, CVecRef q, VecRef v,
                           double holonomic_rate = 0.0);

/// Max-norm residuals of the position rows (Φ) and of all velocity rows (ψ = J v − ν).
double position_residual(const Problem& problem, double t, CVecRef q);
/// Max-norm residual of all velocity rows, ψ = J v − ν (holonomic and nonholonomic).
double velocity_residual(const Problem& problem, double t, CVecRef q, CVecRef v);

}  // namespace cmb
