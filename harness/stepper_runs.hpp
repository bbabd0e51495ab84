// The run function of each stepper, named run_<id>: the shared step loop (step_loop.hpp) with
// the odeint type the stepper stands for. Fixed-step ones live in integrate_fixed.cpp, adaptive
// ones in integrate_adaptive.cpp (two translation units: a 2-core build compiles them at once).
#pragma once

#include <vector>

#include "harness/steppers.hpp"

namespace cmb::detail {

// One function type for all of them (the type behind StepperRun).
using StepperRunFunction = LoopOutcome(Method& method, const StepperSettings& settings, Vec& x,
                                       const std::vector<double>& sample_times,
                                       const SampleObserver& observer, const LoopLimits& limits);

StepperRunFunction run_euler, run_rk4, run_rk_gill, run_adams_bashforth_moulton;
StepperRunFunction run_cash_karp54, run_dopri5, run_fehlberg78, run_bulirsch_stoer, run_rosenbrock4;

}  // namespace cmb::detail
