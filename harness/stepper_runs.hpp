// The run function of each stepper, named run_<id>: the shared step loop (step_loop.hpp) with
// the odeint type the stepper stands for. Fixed-step ones live in integrate_fixed.cpp, adaptive
// ones in integrate_adaptive.cpp (two translation units: a 2-core build compiles them at once).
#pragma once

#include <vector>

#include "harness/steppers.hpp"

namespace cmb::detail {

LoopOutcome run_euler(Method& method, const StepperSettings& settings, Vec& x,
                     const std::vector<double>& sample_times,
                     const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_rk4(Method& method, const StepperSettings& settings, Vec& x,
                   const std::vector<double>& sample_times,
                   const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_rk_gill(Method& method, const StepperSettings& settings, Vec& x,
                       const std::vector<double>& sample_times,
                       const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_adams_bashforth_moulton(Method& method, const StepperSettings& settings, Vec& x,
                                       const std::vector<double>& sample_times,
                                       const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_cash_karp54(Method& method, const StepperSettings& settings, Vec& x,
                           const std::vector<double>& sample_times,
                           const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_dopri5(Method& method, const StepperSettings& settings, Vec& x,
                      const std::vector<double>& sample_times,
                      const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_fehlberg78(Method& method, const StepperSettings& settings, Vec& x,
                          const std::vector<double>& sample_times,
                          const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_bulirsch_stoer(Method& method, const StepperSettings& settings, Vec& x,
                              const std::vector<double>& sample_times,
                              const SampleObserver& observer, const LoopLimits& limits);
LoopOutcome run_rosenbrock4(Method& method, const StepperSettings& settings, Vec& x,
                           const std::vector<double>& sample_times,
                           const SampleObserver& observer, const LoopLimits& limits);

}  // namespace cmb::detail
