#include "core/integrator.hpp"

#include <cmath>

#include "core/loop_guard.hpp"

namespace cmb {

LoopOutcome run_fixed_steps(double dt, Vec& x, const std::vector<double>& sample_times,
                            const SampleObserver& observer, const LoopLimits& limits,
                            const FixedStep& step) {
  LoopOutcome out;
  LoopGuard guard(limits, out);
  const long total = std::lround(sample_times.back() / dt);
  std::size_t next_sample = 0;
  try {
    if (observer) observer(0.0, x);
    for (long k = 1; k <= total; ++k) {
      step((k - 1) * dt, dt, x, out.counters);
      const double t = k * dt;
      ++out.counters.steps_accepted;
      if (!guard.ok(t, x) || !guard.on_branch(t, x)) break;
      while (next_sample < sample_times.size() &&
             std::lround(sample_times[next_sample] / dt) <= k) {
        if (observer) observer(t, x);
        ++next_sample;
      }
    }
  } catch (const NumericalFailure& failure) {
    out.status = failure.status();
    out.message = failure.what();
  }
  return out;
}

}  // namespace cmb
