// The adaptive step loop shared by every error-controlled stepper (steppers/integrate_adaptive.cpp
// for odeint's, steppers/integrate_embedded_rk.cpp for dop853 and dopri87). A stepper here is
// anything with odeint's controlled-stepper call try_step(system, x, t, dt) -> success | fail,
// which on success advances x and t and proposes the next dt, and on failure only shrinks dt.
#pragma once

#include <boost/numeric/odeint/stepper/controlled_step_result.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "steppers/step_loop.hpp"

namespace cmb::detail {

// What a step the method rejected (StepRejected) leaves behind: the stepper is reset (its FSAL
// derivative or extrapolation table may hold values of the abandoned step) and the step is
// retried from the saved state with half the trial size. Returns false when the size underflows.
template <class Stepper>
bool retry_smaller(Stepper& stepper, const StepRejected& rejection, double t, double& dt,
                   LoopOutcome& out, LoopGuard& guard) {
  reset_stepper(stepper, 0);
  ++out.counters.steps_rejected;
  ++out.counters.method_rejections;
  dt *= 0.5;
  if (dt >= 1e-14 * std::max(1.0, std::abs(t))) return true;
  guard.fail(rejection.status(),
             std::string(rejection.what()) + "; retrying with smaller steps did not avoid it", t);
  return false;
}

// The next trial step: the controller's proposal capped by max_dt, then cut to land on the next
// sample (when asked to) or on t_end.
struct Trial {
  double dt;
  bool on_sample, last;
};
inline Trial next_trial(double dt, double t, double t_end, const StepperSettings& settings,
                        const std::vector<double>& sample_times, std::size_t next_sample) {
  Trial trial{settings.max_dt > 0.0 ? std::min(dt, settings.max_dt) : dt, false, false};
  // Landing on a sample comes first: a last step that would jump over the remaining samples
  // must stop at each of them (the final sample, t_end itself, is the last step's target).
  if (settings.land_on_samples && next_sample < sample_times.size() &&
      sample_times[next_sample] < t_end && t + trial.dt >= sample_times[next_sample]) {
    trial.dt = sample_times[next_sample] - t;
    trial.on_sample = true;
  }
  trial.last = !trial.on_sample && trial.dt >= t_end - t;
  if (trial.last) trial.dt = t_end - t;
  return trial;
}

// Steps from t to t_end with the controller's own step sizes; only the last step is shortened to
// land on t_end. Samples are taken at the first accepted step at or after each sample time, so
// sampling never constrains the step sequence (work-precision comparisons stay honest).
template <class Stepper, class System, class StateT>
void adaptive_steps(Stepper& stepper, System system, StateT& s, double& t, double t_end,
                    const StepperSettings& settings, const std::vector<double>& sample_times,
                    const SampleObserver& observer, Method& method, LoopOutcome& out,
                    LoopGuard& guard) {
  double dt = std::isfinite(settings.dt) ? settings.dt : 1e-4 * t_end;
  std::size_t next_sample = 0;
  StateT before = s;
  while (true) {
    if (t_end - t <= 4.0 * std::numeric_limits<double>::epsilon() * std::abs(t_end)) return;
    const Trial step = next_trial(dt, t, t_end, settings, sample_times, next_sample);
    double trial = step.dt;
    before = s;
    const double t_before = t;
    bool accepted = false;
    try {
      accepted = stepper.try_step(system, s, t, trial) == boost::numeric::odeint::success;
      if (accepted) {
        ++out.counters.steps_accepted;
        // A step too small to change t (e.g. a trial step that underflowed to 0) would repeat
        // forever: fail at once rather than after max_steps steps of no progress.
        if (!(t > t_before) && !step.last && !step.on_sample) {
          guard.fail(RunStatus::step_limit, "step size underflow (the step did not advance t)", t);
          return;
        }
        if (step.last) t = t_end;
        if (step.on_sample) t = sample_times[next_sample];
        if (!guard.ok(t, s)) return;
        if (method.post_step(t, as_vec(s))) {
          reset_stepper(stepper, 0);
          ++out.counters.stepper_resets;
        }
      }
    } catch (const StepRejected& rejection) {
      if (accepted) --out.counters.steps_accepted;
      s = before;
      t = t_before;
      dt = step.dt;
      if (!retry_smaller(stepper, rejection, t, dt, out, guard) || !guard.ok(t, s)) return;
      continue;
    }
    if (!accepted) {
      ++out.counters.steps_rejected;
      dt = trial;
      if (dt < 1e-14 * std::max(1.0, std::abs(t))) {
        guard.fail(RunStatus::step_limit, "step size underflow (dt < 1e-14·t)", t);
        return;
      }
      if (!guard.ok(t, s)) return;
      continue;
    }
    dt = step.on_sample ? std::max(trial, dt) : trial;
    if (!guard.on_branch(t, s)) return;
    const bool due = next_sample < sample_times.size() && sample_times[next_sample] <= t;
    while (next_sample < sample_times.size() && sample_times[next_sample] <= t) ++next_sample;
    if (due && observer) observer(t, as_vec(s));
    if (step.last) return;
  }
}

template <class Stepper, class System, class StateT>
LoopOutcome adaptive_loop(Stepper& stepper, System system, StateT& s, LoopOutcome& out,
                          Method& method, const StepperSettings& settings,
                          const std::vector<double>& sample_times, const SampleObserver& observer,
                          const LoopLimits& limits) {
  LoopGuard guard(limits, out);
  guard.watch_pace(sample_times.back());
  double t = 0.0;
  try {
    if (observer) observer(0.0, as_vec(s));
    adaptive_steps(stepper, system, s, t, sample_times.back(), settings, sample_times, observer,
                   method, out, guard);
  } catch (const NumericalFailure& failure) {
    out.status = failure.status();
    out.message = failure.what();
    out.t_reached = t;
  }
  return out;
}

}  // namespace cmb::detail
