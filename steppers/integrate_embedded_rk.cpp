// The steppers cmbench implements itself on its stage engine (steppers/explicit_rk.hpp):
// dop853 (steppers/dop853.hpp) and dopri87 (steppers/dopri87.hpp), in the harness's step loop.
#include <functional>

#include "steppers/adaptive_loop.hpp"
#include "steppers/dop853.hpp"
#include "steppers/dopri87.hpp"

namespace cmb::detail {
namespace {

template <class Stepper>
LoopOutcome run_embedded_rk(Method& method, const StepperSettings& settings, Vec& x,
                            const std::vector<double>& sample_times, const SampleObserver& observer,
                            const LoopLimits& limits) {
  Stepper stepper(settings.abs_tol, settings.rel_tol);
  if (settings.fixed_steps)
    return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
  LoopOutcome out;
  State s(x.data(), x.data() + x.size());
  const CountingSystem system{&method, &out.counters.rhs_calls, limits.max_rhs_calls};
  adaptive_loop(stepper, std::cref(system), s, out, method, settings, sample_times, observer,
                limits);
  x = as_vec(s);
  return out;
}

}  // namespace
}  // namespace cmb::detail

using cmb::detail::run_embedded_rk;

CMB_DEFINE_STEPPER(dop853) {
  return {"dop853",
          cmb::StepperKind::adaptive,
          8,
          "Dormand-Prince 8(5,3) as in Hairer and Wanner's DOP853, error-controlled",
          run_embedded_rk<cmb::detail::Dop853>,
          "DOP853"};
}
CMB_DEFINE_STEPPER(dopri87) {
  return {"dopri87",
          cmb::StepperKind::adaptive,
          8,
          "Prince-Dormand 8(7) (RK8(7)13M), error-controlled",
          run_embedded_rk<cmb::detail::PrinceDormand87>,
          "Prince–Dormand 8(7)"};
}
