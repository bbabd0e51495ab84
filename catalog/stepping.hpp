// The stepper of a run, by id: an ODE stepper from the stepper table (steppers/), or the own
// time stepping of a DAE integrator (integrators/), which a run records as the stepper "dae".
// This needs both tables, so it sits in the catalog, above them.
#pragma once

#include <string>

#include "steppers/steppers.hpp"

namespace cmb {

// The stepper of a DAE integrator's runs: id "dae" (the integrator steps itself), the kind and
// order of its scheme, and a run function that hands the loop to the integrator
// (core/integrator.hpp). A run pairs it with the integrator as its method.
inline constexpr const char* kDaeStepper = "dae";
const StepperSpec& integrator_stepper(const std::string& integrator_id);
// The stepper of a run: integrator_stepper(method) for "dae", else find_stepper(stepper).
const StepperSpec& stepper_of_run(const std::string& stepper, const std::string& method);

}  // namespace cmb
