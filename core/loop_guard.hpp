/// \file
/// The checks every time-integration loop makes after a step — finite state, step and work
/// limits, wall time, the branch indicators — recording the first one that fails into the loop's
/// outcome. Shared by the odeint step loop (steppers/step_loop.hpp) and the DAE integrators.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <string>

#include "core/integration.hpp"

namespace cmb {

template <class StateT>
/// Whether every entry of a state (an Eigen vector or a std::vector) is finite.
bool all_finite(const StateT& s) {
  for (decltype(s.size()) i = 0; i < s.size(); ++i)
    if (!std::isfinite(s[i])) return false;
  return true;
}

template <class StateT>
/// A state held in contiguous storage, viewed as an Eigen vector without a copy.
Eigen::Map<Vec> as_vec(StateT& s) {
  return Eigen::Map<Vec>(&s[0], static_cast<Eigen::Index>(s.size()));
}

/// Step, wall-time and finiteness checks; records the first limit hit into the outcome.
class LoopGuard {
 public:
  /// Checks against `limits`, writing into `outcome`; the wall clock starts now.
  LoopGuard(const LoopLimits& limits, LoopOutcome& outcome)
      : limits_(limits), outcome_(outcome), start_(std::chrono::steady_clock::now()) {}

  template <class StateT>
  /// After a step to t with state s: false (and the outcome's status set) when the state is not
  /// finite or a step, RHS-call or wall-time limit is reached.
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

  /// The problem's branch indicators at an accepted step (LoopLimits::branch_check).
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

  /// Records `status` with the message "`what` at t = ..." and returns false.
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
  /// Reading the clock costs about as much as a step of the smallest problems, so it is read
  /// after roughly a millisecond of steps: every step when steps are slow, at most every 64.
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

}  // namespace cmb
