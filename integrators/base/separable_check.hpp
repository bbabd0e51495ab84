// What a splitting of H = ½ vᵀM v + U (RATTLE) needs of a problem, checked by evaluating it: a
// mass matrix that does not change with q or t, and forces Q(t, q) that do not depend on v. The
// Problem interface declares neither, so bind evaluates M at the initial state and at a point a
// hundredth of the mechanism's size away (at a later time), and Q at the initial velocities and
// at others; a smooth model that passes both is constant and velocity-free to rounding.
// Header-only: it needs no build rule of its own.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>

#include "core/errors.hpp"
#include "core/problem.hpp"

namespace cmb {

// Relative change that counts as "varies": far above rounding, far below any modelled effect.
inline constexpr double kSeparableTolerance = 1e-12;

// Throws NumericalFailure(unsupported), naming the problem and what varies, unless the problem's
// M is constant and its Q independent of v.
inline void refuse_unless_separable(const Problem& problem, const std::string& integrator) {
  const int n = problem.sizes().nq;
  Vec q(n), v(n), dq(n), dv(n);
  problem.initial_state(q, v);
  const double size = std::max(q.lpNorm<Eigen::Infinity>(), 1.0);
  const double speed = std::max(v.lpNorm<Eigen::Infinity>(), 1.0);
  for (int j = 0; j < n; ++j) {
    const double pattern = (1.0 + j % 3) * (j % 2 ? -1.0 : 1.0);
    dq(j) = 1e-2 * size * pattern;
    dv(j) = 0.1 * speed * pattern;
  }
  Mat m0(n, n), m1(n, n);
  problem.mass_matrix(0.0, q, m0);
  problem.mass_matrix(0.37 * problem.t_end(), q + dq, m1);
  const std::string what = integrator + ": " + problem.info().id + "'s ";
  const char* needs =
      "; the scheme splits H = ½vᵀMv + U and needs a constant M and forces "
      "Q(t, q) (use generalized_alpha, ida or an ODE method)";
  const double mass_change = (m1 - m0).lpNorm<Eigen::Infinity>();
  if (!(mass_change <= kSeparableTolerance * m0.lpNorm<Eigen::Infinity>())) {
    std::ostringstream msg;
    msg << what << "mass matrix changes with the configuration (by " << mass_change
        << " in ‖·‖∞ a hundredth of its size away from the initial state)" << needs;
    throw NumericalFailure(RunStatus::unsupported, msg.str());
  }
  Vec f0(n), f1(n);
  problem.forces(0.0, q, v, f0);
  problem.forces(0.0, q, v + dv, f1);
  const double force_change = (f1 - f0).lpNorm<Eigen::Infinity>();
  if (!(force_change <= kSeparableTolerance * std::max(f0.lpNorm<Eigen::Infinity>(), 1e-300))) {
    std::ostringstream msg;
    msg << what << "forces depend on the velocities (Q changes by " << force_change
        << " in ‖·‖∞ when v does)" << needs;
    throw NumericalFailure(RunStatus::unsupported, msg.str());
  }
}

}  // namespace cmb
