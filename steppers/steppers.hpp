// The Boost.Odeint steppers cmbench can drive, and the step loop that drives them. The harness
// owns the loop (never odeint's integrate* functions) because a method's post-step projection
// must reset FSAL, multistep and extrapolation steppers, and because every RHS call, accepted and
// rejected step is counted.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/integration.hpp"
#include "core/method.hpp"
#include "core/types.hpp"

namespace cmb {

// One entry per stepper: what it is, and the function that runs the shared step loop
// (steppers/step_loop.hpp) with the odeint type it stands for.
using StepperRun = LoopOutcome (*)(Method& method, const StepperSettings& settings, Vec& x,
                                   const std::vector<double>& sample_times,
                                   const SampleObserver& observer, const LoopLimits& limits);

struct StepperSpec {
  std::string id;
  StepperKind kind;
  int order;  // nominal order (of the solution, for embedded pairs); 0 = variable
  std::string summary;
  StepperRun run;
  std::string display_name;  // how figures and tables name it ("Dormand–Prince 5(4)")
};

// Sorted by id: every CMB_STEPPER(id) of steppers/steppers.def, and those a program added.
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
// One CMB_STEPPER(rk4) line in steppers/steppers.def registers it; as for methods and problems
// there is no static self-registration: the table calls every listed entry function.
#define CMB_DEFINE_STEPPER(id) cmb::StepperSpec cmb_stepper_entry_##id()
