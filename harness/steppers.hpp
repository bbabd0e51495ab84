// The Boost.Odeint steppers cmbench can drive, and the step loop that drives them. The harness
// owns the loop (never odeint's integrate* functions) because a method's post-step projection
// must reset FSAL, multistep and extrapolation steppers, and because every RHS call, accepted and
// rejected step is counted.
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/method.hpp"
#include "core/types.hpp"

namespace cmb {

enum class StepperKind { fixed, adaptive };

struct StepperSettings {
  double dt = std::numeric_limits<double>::quiet_NaN();  // fixed step, or first trial step
  double abs_tol = 1e-6;
  double rel_tol = 1e-6;
  double max_dt = 0.0;  // 0: no bound
  // Adaptive steppers: shorten steps to land exactly on every sample time (reference
  // computations need values there; ordinary runs keep their natural step sequence).
  bool land_on_samples = false;
  // Adaptive steppers with a fixed order: constant steps dt of the underlying scheme, no error
  // control (order tests; the sample times must be multiples of dt).
  bool fixed_steps = false;
};

// Called after every accepted step (after the method's post_step) with the state the loop goes
// on from; returning false ends the run with status branch_switch and the message it set.
using BranchCheck = std::function<bool(double t, CVecRef x, std::string& message)>;

// When the loop must stop short of t_end.
struct LoopLimits {
  long max_steps = 50'000'000;   // accepted + rejected
  long max_rhs_calls = 0;        // RHS-call budget of the stepper (incl. rosenbrock4's
                                 // Jacobians); 0: none. Work, not time: the same build stops
                                 // at the same step on an idle or a busy machine.
  double wall_time_limit = 0.0;  // seconds; 0: none
  BranchCheck branch_check;      // none: not checked
};

struct LoopCounters {
  long rhs_calls = 0;
  long steps_accepted = 0;
  long steps_rejected = 0;
  long stepper_resets = 0;
  long jacobian_evaluations = 0;  // rosenbrock4 only
  long method_rejections = 0;  // steps the method rejected (StepRejected), part of steps_rejected
};

struct LoopOutcome {
  RunStatus status = RunStatus::ok;
  std::string message;
  double t_reached = 0.0;
  LoopCounters counters;
};

// Called with the ODE state at t = 0 and at every sample time.
using SampleObserver = std::function<void(double t, CVecRef x)>;

// One entry per stepper: what it is, and the function that runs the shared step loop
// (harness/step_loop.hpp) with the odeint type it stands for.
using StepperRun = LoopOutcome (*)(Method& method, const StepperSettings& settings, Vec& x,
                                   const std::vector<double>& sample_times,
                                   const SampleObserver& observer, const LoopLimits& limits);

struct StepperSpec {
  std::string id;
  StepperKind kind;
  int order;  // nominal order (of the solution, for embedded pairs); 0 = variable
  std::string summary;
  StepperRun run;
};

// Sorted by id: every CMB_STEPPER(id) of harness/steppers.def, and those a program added.
const std::vector<StepperSpec>& stepper_list();
// Steppers defined outside the tree (CMB_DEFINE_STEPPER in the program's own files), added once
// at program start before any look-up, like catalog's add_methods. std::invalid_argument for an
// id that is not snake_case or already in the table.
void add_steppers(std::vector<StepperSpec> entries);
const StepperSpec& find_stepper(const std::string& id);  // InputError lists the valid ids

// Integrates the bound method from t = 0 to sample_times.back() (= t_end, reached exactly).
// Fixed-step: sample times are multiples of dt and observed exactly. Adaptive: the observer sees
// the first accepted step at or after each sample time, so sampling never shortens steps.
// Numerical failures and limits end the loop with a status; they never throw.
LoopOutcome integrate(Method& method, const StepperSpec& stepper, const StepperSettings& settings,
                      Vec& x, const std::vector<double>& sample_times,
                      const SampleObserver& observer, const LoopLimits& limits);

}  // namespace cmb

// Defines a stepper's entry at namespace scope, next to its run function:
//   CMB_DEFINE_STEPPER(rk4) { return {"rk4", cmb::StepperKind::fixed, 4, "...", run_rk4}; }
// One CMB_STEPPER(rk4) line in harness/steppers.def registers it; as for methods and problems
// there is no static self-registration: the table calls every listed entry function.
#define CMB_DEFINE_STEPPER(id) cmb::StepperSpec cmb_stepper_entry_##id()
