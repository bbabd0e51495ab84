// What a run records as the stepper of a DAE integrator (integrators/), which steps itself: the
// id "dae", its scheme's kind and order. This needs the integrator table, so it sits in the
// catalog, beside the stepper table it mirrors.
#pragma once

#include <string>

#include "steppers/steppers.hpp"

namespace cmb {

// The stepper id of every DAE integrator's runs, in records, keys and campaign exclusions.
inline constexpr const char* kDaeStepper = "dae";
// The stepper block of an integrator's runs: id "dae", the kind and order of its scheme, and no
// run function (the harness calls Integrator::integrate).
const StepperSpec& integrator_stepper(const std::string& integrator_id);

}  // namespace cmb
