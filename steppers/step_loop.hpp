// Internals of the step loop shared by the fixed-step and adaptive translation units (the odeint
// templates are split in two so a 2-core build compiles them in parallel).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <type_traits>
#include <vector>

#include "core/loop_guard.hpp"
#include "steppers/steppers.hpp"

namespace cmb::detail {

using State = std::vector<double>;

// The odeint system: forwards to Method::rhs through Eigen maps and counts calls.
struct CountingSystem {
  Method* method;
  long* calls;
  long budget = 0;  // LoopLimits::max_rhs_calls: no call past it, even inside a step; 0: none
  template <class StateIn, class DerivOut>
  void operator()(const StateIn& x, DerivOut& dxdt, double t) const {
    if (budget > 0 && *calls >= budget)
      throw NumericalFailure(RunStatus::step_limit,
                             "RHS-call budget reached inside a step (its " +
                                 std::to_string(budget) +
                                 " calls used, the last accepted step is the end)");
    ++*calls;
    const Eigen::Map<const Vec> xm(&x[0], static_cast<Eigen::Index>(x.size()));
    Eigen::Map<Vec> dm(&dxdt[0], static_cast<Eigen::Index>(dxdt.size()));
    method->rhs(xm, dm, t);
  }
};

template <class S>
auto reset_stepper(S& stepper, int) -> decltype(stepper.reset(), void()) {
  stepper.reset();
}
template <class S>
void reset_stepper(S&, long) {}  // steppers without memory: nothing to forget

using cmb::all_finite;
using cmb::as_vec;
using cmb::LoopGuard;

// Constant steps dt from 0 to sample_times.back(); the sample times are multiples of dt.
template <class Stepper, class System, class StateT>
void fixed_loop(Stepper& stepper, System system, StateT& s, double dt, Method& method,
                const std::vector<double>& sample_times, const SampleObserver& observer,
                LoopOutcome& out, const LoopLimits& limits) {
  LoopGuard guard(limits, out);
  const long total = std::lround(sample_times.back() / dt);
  std::size_t next_sample = 0;
  try {
    if (observer) observer(0.0, as_vec(s));
    for (long k = 1; k <= total; ++k) {
      stepper.do_step(system, s, (k - 1) * dt, dt);
      const double t = k * dt;
      ++out.counters.steps_accepted;
      if (!guard.ok(t, s)) break;
      if (method.post_step(t, as_vec(s))) {
        reset_stepper(stepper, 0);
        ++out.counters.stepper_resets;
      }
      if (!guard.on_branch(t, s)) break;
      while (next_sample < sample_times.size() &&
             std::lround(sample_times[next_sample] / dt) <= k) {
        if (observer) observer(t, as_vec(s));
        ++next_sample;
      }
    }
  } catch (const StepRejected& rejection) {
    ++out.counters.method_rejections;
    out.status = rejection.status();
    out.message = std::string(rejection.what()) +
                  " (a fixed-step stepper cannot retry the step with a smaller one)";
  } catch (const NumericalFailure& failure) {
    out.status = failure.status();
    out.message = failure.what();
  }
}

// fixed_loop over the std::vector state and the counting system of the explicit steppers.
template <class Stepper>
LoopOutcome fixed_rk(Stepper& stepper, Method& method, double dt, Vec& x,
                     const std::vector<double>& sample_times, const SampleObserver& observer,
                     const LoopLimits& limits) {
  LoopOutcome out;
  State s(x.data(), x.data() + x.size());
  const CountingSystem system{&method, &out.counters.rhs_calls, limits.max_rhs_calls};
  fixed_loop(stepper, std::cref(system), s, dt, method, sample_times, observer, out, limits);
  x = as_vec(s);
  return out;
}

}  // namespace cmb::detail
