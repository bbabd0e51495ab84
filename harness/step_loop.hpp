// Internals of the step loop shared by the fixed-step and adaptive translation units (the odeint
// templates are split in two so a 2-core build compiles them in parallel).
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <type_traits>
#include <vector>

#include "harness/steppers.hpp"

namespace cmb::detail {

using State = std::vector<double>;

// The odeint system: forwards to Method::rhs through Eigen maps and counts calls.
struct CountingSystem {
  Method* method;
  long* calls;
  template <class StateIn, class DerivOut>
  void operator()(const StateIn& x, DerivOut& dxdt, double t) const {
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

template <class StateT>
bool all_finite(const StateT& s) {
  for (std::size_t i = 0; i < s.size(); ++i)
    if (!std::isfinite(s[i])) return false;
  return true;
}

template <class StateT>
Eigen::Map<Vec> as_vec(StateT& s) {
  return Eigen::Map<Vec>(&s[0], static_cast<Eigen::Index>(s.size()));
}

// Step, wall-time and finiteness checks; records the first limit hit into the outcome.
class LoopGuard {
 public:
  LoopGuard(const LoopLimits& limits, LoopOutcome& outcome)
      : limits_(limits), outcome_(outcome), start_(std::chrono::steady_clock::now()) {}

  template <class StateT>
  bool ok(double t, const StateT& s) {
    outcome_.t_reached = t;
    const long steps = outcome_.counters.steps_accepted + outcome_.counters.steps_rejected;
    if (!all_finite(s)) return fail(RunStatus::diverged, "state is not finite", t);
    if (steps >= limits_.max_steps) return fail(RunStatus::step_limit, "step limit reached", t);
    if (limits_.max_rhs_calls > 0 && outcome_.counters.rhs_calls >= limits_.max_rhs_calls)
      return fail(RunStatus::step_limit, "RHS-call budget reached", t);
    if (limits_.wall_time_limit > 0 && steps >= next_clock_check_) {
      const std::chrono::duration<double> used = std::chrono::steady_clock::now() - start_;
      if (used.count() > limits_.wall_time_limit)
        return fail(RunStatus::time_limit, "wall-time limit reached", t);
      next_clock_check_ = steps + clock_check_stride(used.count(), steps);
    }
    return true;
  }

  // The problem's branch indicators at an accepted step (LoopLimits::branch_check).
  template <class StateT>
  bool on_branch(double t, StateT& s) {
    if (!limits_.branch_check) return true;
    std::string message;
    if (limits_.branch_check(t, as_vec(s), message)) return true;
    outcome_.status = RunStatus::branch_switch;
    outcome_.message = message;
    outcome_.t_reached = t;
    return false;
  }

  bool fail(RunStatus status, const std::string& what, double t) {
    std::ostringstream msg;
    msg.precision(10);
    msg << what << " at t = " << t;
    outcome_.status = status;
    outcome_.message = msg.str();
    outcome_.t_reached = t;
    return false;
  }

 private:
  // Reading the clock costs about as much as a step of the smallest problems, so it is read
  // after roughly a millisecond of steps: every step when steps are slow, at most every 64.
  static long clock_check_stride(double seconds, long steps) {
    if (steps == 0 || seconds <= 0.0) return 1;
    const double per_step = seconds / static_cast<double>(steps);
    return std::clamp(static_cast<long>(1e-3 / per_step), 1L, 64L);
  }

  const LoopLimits& limits_;
  LoopOutcome& outcome_;
  std::chrono::steady_clock::time_point start_;
  long next_clock_check_ = 0;
};

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
  const CountingSystem system{&method, &out.counters.rhs_calls};
  fixed_loop(stepper, std::cref(system), s, dt, method, sample_times, observer, out, limits);
  x = as_vec(s);
  return out;
}

}  // namespace cmb::detail
