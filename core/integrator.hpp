/// \file
/// A DAE integrator: a time-stepping scheme for the constrained equations themselves (BDF on the
/// stabilized index-2 system, generalized-α or the augmented Lagrangian on the index-3 one), as
/// multibody codes integrate them, instead of an ODE formulation handed to an ODE stepper. A
/// sibling of Method under Formulation: it owns its stepping, and a run of it is an integrator
/// without a stepper (docs/extending.md), recorded like any other run (its stepper block says
/// "dae": the integrator's own stepping).
///
/// Its state x holds q, v and whatever else the scheme carries (accelerations, multipliers): pack
/// builds a consistent x from (q, v) — the multipliers and accelerations of the KKT solve at that
/// state —, unpack reads q and v, and evaluate_at makes multipliers() and accelerations() those
/// held in x (what the sample recorder reads).
#pragma once

#include <functional>
#include <vector>

#include "core/formulation.hpp"
#include "core/integration.hpp"

namespace cmb {

/// The interface a DAE integrator implements: it steps the constrained equations itself
/// (integrators/*.cpp; docs/extending.md, "A DAE integrator").
class Integrator : public Formulation {
 public:
  /// Constructed from its parsed parameters, as every Formulation.
  using Formulation::Formulation;

  /// Integrates from x at t = 0 to sample_times.back() (= t_end, reached exactly), calling
  /// observer with the state at t = 0 and at every sample time, within the limits; a numerical
  /// failure ends it with a status, never an exception. Counters: rhs_calls = residual
  /// evaluations, jacobian_evaluations = iteration matrices formed, accepted and rejected steps;
  /// stats(): newton_iterations, linear_solves, error_test_failures, convergence_failures.
  virtual LoopOutcome integrate(const StepperSettings& settings, Vec& x,
                                const std::vector<double>& sample_times,
                                const SampleObserver& observer, const LoopLimits& limits) = 0;

  /// Evaluates the residual and forms the iteration matrix once at x, as a step would (tests
  /// check that nothing is allocated once bound).
  virtual void evaluate_callbacks(double t, CVecRef x) = 0;
};

/// The loop of a fixed-step integrator: steps of dt from t = 0 to sample_times.back() (the sample
/// times are multiples of dt, as the harness makes them), the observer with the state at 0 and at
/// every sample time, and after every step the limits and the branch check. `step(t, h, x,
/// counters)` advances x from t to t + h, counting its residual evaluations and iteration
/// matrices, and throws NumericalFailure to end the run with that status and message.
using FixedStep = std::function<void(double t, double h, Vec& x, LoopCounters& counters)>;
/// Runs the fixed-step loop described above with `step`, returning the loop's outcome.
LoopOutcome run_fixed_steps(double dt, Vec& x, const std::vector<double>& sample_times,
                            const SampleObserver& observer, const LoopLimits& limits,
                            const FixedStep& step);

}  // namespace cmb
