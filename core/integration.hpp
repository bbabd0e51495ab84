/// \file
/// What a time-integration loop is asked and what it reports: the settings of a step-size or
/// tolerance sweep point, the limits that stop it with a status, its work counters and outcome,
/// and the sample observer. Shared by the odeint step loop (steppers/steppers.hpp) and the DAE
/// integrators that own their stepping (core/integrator.hpp).
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/types.hpp"

namespace cmb {

/// How a stepper is controlled: fixed steps of dt, or adaptive steps to a tolerance.
enum class StepperKind { fixed, adaptive };

/// The settings of one point of a step-size or tolerance sweep.
struct StepperSettings {
  double dt = std::numeric_limits<double>::quiet_NaN();  ///< fixed step, or first trial step
  double abs_tol = 1e-6;  ///< absolute error tolerance (adaptive steppers)
  double rel_tol = 1e-6;  ///< relative error tolerance (adaptive steppers)
  double max_dt = 0.0;    ///< 0: no bound
  /// Adaptive steppers: shorten steps to land exactly on every sample time (reference
  /// computations need values there; ordinary runs keep their natural step sequence).
  bool land_on_samples = false;
  /// Adaptive steppers with a fixed order: constant steps dt of the underlying scheme, no error
  /// control (order tests; the sample times must be multiples of dt).
  bool fixed_steps = false;
};

/// Called after every accepted step (after the method's post_step) with the state the loop goes
/// on from; returning false ends the run with status branch_switch and the message it set.
using BranchCheck = std::function<bool(double t, CVecRef x, std::string& message)>;

/// When the loop must stop short of t_end.
struct LoopLimits {
  long max_steps = 50'000'000;   ///< accepted + rejected
  long max_rhs_calls = 0;        ///< RHS-call budget of the stepper (incl. rosenbrock4's
                                 ///< Jacobians); 0: none. Work, not time: the same build stops
                                 ///< at the same step on an idle or a busy machine.
  double wall_time_limit = 0.0;  ///< seconds; 0: none
  BranchCheck branch_check;      ///< none: not checked
};

/// The work counters of a time-integration loop.
struct LoopCounters {
  long rhs_calls = 0;       ///< for a DAE integrator: evaluations of its residual
  long steps_accepted = 0;  ///< steps accepted
  long steps_rejected = 0;  ///< steps rejected by the error control or by the method
  long stepper_resets =
      0;  ///< restarts of the stepper after a method changed the state (Method::post_step)
  long jacobian_evaluations = 0;  ///< rosenbrock4's, and the DAE integrators' iteration matrices
  long method_rejections = 0;  ///< steps the method rejected (StepRejected), part of steps_rejected
  /// Steps rejected because a Newton iteration did not converge (IDA's), part of steps_rejected.
  long newton_failures = 0;
};

/// How a time-integration loop ended.
struct LoopOutcome {
  RunStatus status = RunStatus::ok;  ///< ok, or the status of the limit or failure that stopped it
  std::string message;               ///< what stopped it (empty when ok)
  double t_reached = 0.0;            ///< the last time reached
  LoopCounters counters;             ///< the work done
};

/// Called with the ODE state at t = 0 and at every sample time.
using SampleObserver = std::function<void(double t, CVecRef x)>;

}  // namespace cmb
