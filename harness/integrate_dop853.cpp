// The dop853 stepper: Hairer and Wanner's DOP853 (harness/dop853.hpp) in the harness's step loop.
#include <functional>

#include "harness/adaptive_loop.hpp"
#include "harness/dop853.hpp"

namespace cmb::detail {
namespace {

LoopOutcome run_dop853(Method& method, const StepperSettings& settings, Vec& x,
                       const std::vector<double>& sample_times, const SampleObserver& observer,
                       const LoopLimits& limits) {
  Dop853 stepper(settings.abs_tol, settings.rel_tol);
  if (settings.fixed_steps)
    return fixed_rk(stepper, method, settings.dt, x, sample_times, observer, limits);
  LoopOutcome out;
  State s(x.data(), x.data() + x.size());
  const CountingSystem system{&method, &out.counters.rhs_calls};
  adaptive_loop(stepper, std::cref(system), s, out, method, settings, sample_times, observer,
                limits);
  x = as_vec(s);
  return out;
}

}  // namespace
}  // namespace cmb::detail

CMB_DEFINE_STEPPER(dop853) {
  return {"dop853", cmb::StepperKind::adaptive, 8,
          "Dormand-Prince 8(5,3) as in Hairer and Wanner's DOP853, error-controlled",
          cmb::detail::run_dop853};
}
