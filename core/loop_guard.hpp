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

  /// Adaptive loops: from now on, every kPaceWindow step attempts, stop a run whose steps have
  /// collapsed (keeps_pace) on its way to t_end.
  void watch_pace(double t_end) { t_end_ = t_end; }

  /// Step attempts (accepted and rejected) over which the pace is measured.
  static constexpr long kPaceWindow = 1000;
  /// How far beyond what is left of the step limit or RHS-call budget the pace must point.
  static constexpr double kPaceMargin = 10.0;

  template <class StateT>
  /// After a step to t with state s: false (and the outcome's status set) when the state is not
  /// finite, a step, RHS-call or wall-time limit is reached, or (watch_pace) the steps stalled.
  bool ok(double t, const StateT& s) {
    outcome_.t_reached = t;
    const long steps = outcome_.counters.steps_accepted + outcome_.counters.steps_rejected;
    if (!all_finite(s)) return fail(RunStatus::diverged, "state is not finite", t);
    if (steps >= limits_.max_steps) return fail(RunStatus::step_limit, "step limit reached", t);
    if (limits_.max_rhs_calls > 0 && outcome_.counters.rhs_calls >= limits_.max_rhs_calls)
      return fail(RunStatus::step_limit, "RHS-call budget reached", t);
    if (t_end_ > 0 && steps >= window_.steps + kPaceWindow && !keeps_pace(t, steps)) return false;
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

  /// Where the last pace window started.
  struct Window {
    double t = 0.0;
    long steps = 0, rejected = 0, rhs_calls = 0, newton_failures = 0;
  };

  /// The window that ends at (t, steps): false, with status stalled (newton_failed when Newton
  /// failures were most of its rejected steps), when at its pace — time advanced per step and
  /// per RHS call — reaching t_end would take more than kPaceMargin times what is left of the step
  /// limit or of the RHS-call budget. Such a run could only end at its limit, much later.
  bool keeps_pace(double t, long steps) {
    const LoopCounters& c = outcome_.counters;
    const Window w = window_;
    window_ = {t, steps, c.steps_rejected, c.rhs_calls, c.newton_failures};
    const double advanced = t - w.t, remaining = t_end_ - t;
    auto beyond = [&](double per_window, double left) {
      return !(advanced > 0.0) || remaining / advanced * per_window > kPaceMargin * left;
    };
    const bool steps_short = beyond(static_cast<double>(steps - w.steps),
                                    static_cast<double>(limits_.max_steps - steps));
    const bool calls_short = limits_.max_rhs_calls > 0 &&
                             beyond(static_cast<double>(c.rhs_calls - w.rhs_calls),
                                    static_cast<double>(limits_.max_rhs_calls - c.rhs_calls));
    if (!steps_short && !calls_short) return true;
    const long newton = c.newton_failures - w.newton_failures;
    std::ostringstream msg;
    msg.precision(3);
    msg << "stalled: the last " << steps - w.steps << " step attempts advanced t by " << advanced
        << " s";
    if (newton > 0) msg << " (" << newton << " of them failed to converge in Newton's iteration)";
    msg << "; at that pace the remaining " << remaining << " s need more than " << kPaceMargin
        << " times what is left of the " << (steps_short ? "step limit" : "RHS-call budget");
    const long rejected = c.steps_rejected - w.rejected;
    return fail(2 * newton > rejected ? RunStatus::newton_failed : RunStatus::stalled, msg.str(),
                t);
  }

  const LoopLimits& limits_;
  LoopOutcome& outcome_;
  double t_end_ = 0.0;  ///< watched when > 0 (watch_pace)
  Window window_;
  std::chrono::steady_clock::time_point start_;
  long next_clock_check_ = 0;
};

}  // namespace cmb
