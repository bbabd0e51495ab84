// The stall rule of adaptive loops (core/loop_guard.hpp, LoopGuard::watch_pace): over generated
// step-size histories, a run whose steps collapse is stopped within three pace windows, with the
// status that names the cause, and a run that can reach t_end within its limits never is; and the
// reported grinding run ends at once.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/loop_guard.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// Drives a LoopGuard as an adaptive loop would: after every step attempt the counters grow and
// ok() is asked. `step_size(attempt, t)` gives the step of each attempt; every `reject_every`-th
// attempt is rejected (newton: by a Newton failure). Returns the attempt at which the guard
// stopped the loop (-1 when t_end was reached).
struct Drive {
  double t_end = 1.0;
  LoopLimits limits;
  int reject_every = 0;
  bool newton = false;
  LoopOutcome out;
  template <class StepSize>
  long run(StepSize step_size, long max_attempts) {
    LoopGuard guard(limits, out);
    guard.watch_pace(t_end);
    double t = 0.0;
    Vec state = Vec::Zero(2);
    for (long attempt = 0; attempt < max_attempts; ++attempt) {
      out.counters.rhs_calls += 6;
      if (reject_every > 0 && attempt % reject_every == 0) {
        ++out.counters.steps_rejected;
        if (newton) ++out.counters.newton_failures;
      } else {
        ++out.counters.steps_accepted;
        t = std::min(t_end, t + step_size(attempt, t));
      }
      if (!guard.ok(t, state)) return attempt;
      if (t >= t_end) return -1;
    }
    return -1;
  }
};

// The window that holds the collapse and the next one may still carry the last large steps of a
// slow decay; the one after cannot.
TEST(Stall, CollapsingStepsAreStoppedWithinThreeWindows) {
  std::mt19937 rng(46);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    Drive d;
    d.t_end = std::pow(10.0, 3 * unit(rng) - 1);
    d.limits.max_steps = static_cast<long>(std::pow(10.0, 5 + 3 * unit(rng)));
    if (trial % 2) d.limits.max_rhs_calls = 6 * d.limits.max_steps / 10;
    const double h = d.t_end * std::pow(10.0, -2 - 2 * unit(rng));  // healthy steps before
    const double t_stall = d.t_end * (0.05 + 0.9 * unit(rng));
    // After t_stall the steps fall by a generated factor per attempt towards a tiny floor.
    const double decay = 0.5 + 0.48 * unit(rng);
    const double floor = d.t_end * std::pow(10.0, -13 - 3 * unit(rng));
    d.reject_every = trial % 3 == 0 ? 2 + static_cast<int>(4 * unit(rng)) : 0;
    d.newton = trial % 6 == 0;
    long collapsed_at = -1;
    auto steps = [&](long attempt, double t) {
      if (t < t_stall) return h;
      if (collapsed_at < 0) collapsed_at = attempt;
      return std::max(floor, h * std::pow(decay, attempt - collapsed_at));
    };
    const long stopped = d.run(steps, 100'000'000);
    ASSERT_GE(stopped, 0) << "trial " << trial << " reached t_end";
    EXPECT_LE(stopped - collapsed_at, 3 * LoopGuard::kPaceWindow) << "trial " << trial;
    const RunStatus expected = d.newton ? RunStatus::newton_failed : RunStatus::stalled;
    EXPECT_EQ(d.out.status, expected) << d.out.message;
    EXPECT_NE(d.out.message.find("stalled: the last"), std::string::npos) << d.out.message;
  }
}

// Runs whose pace can reach t_end within a tenth of their limits are never stopped, even with
// slow stretches (a thousandfold smaller steps for up to 900 attempts, as at a singular
// position) and many rejections.
TEST(Stall, RunsThatCanFinishWithinTheirLimitsAreNeverStopped) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 200; ++trial) {
    Drive d;
    d.t_end = std::pow(10.0, 3 * unit(rng) - 1);
    const long attempts = static_cast<long>(std::pow(10.0, 3 + 3 * unit(rng)));
    d.limits.max_steps = 2 * attempts;
    if (trial % 2) d.limits.max_rhs_calls = 12 * attempts;
    d.reject_every = trial % 3 == 0 ? 2 + static_cast<int>(4 * unit(rng)) : 0;
    d.newton = trial % 6 == 0;
    const double accepted_share = d.reject_every ? 1.0 - 1.0 / d.reject_every : 1.0;
    const double h = d.t_end / (attempts * accepted_share) * 1.001;
    const long slow_from = static_cast<long>(attempts * unit(rng));
    const long slow_for = static_cast<long>(900 * unit(rng));
    auto steps = [&](long attempt, double) {
      return attempt >= slow_from && attempt < slow_from + slow_for ? h * 1e-3 : h;
    };
    EXPECT_EQ(d.run(steps, 3 * attempts), -1) << "trial " << trial << ": " << d.out.message;
    EXPECT_EQ(d.out.status, RunStatus::ok);
  }
}

// The reported case: IDA at tolerance 1e-10 on the top spinning at 200 rad/s stopped advancing at
// t = 1.10 s (steps below the resolution of t, every third attempt a Newton failure) and ran on
// until its 5e7-step limit, hours later. Now it ends newton_failed at once.
TEST(Stall, TheGrindingIdaRunEndsNewtonFailed) {
  RunConfig c;
  c.problem = "lagrange_top";
  c.problem_params = {{"spin", 200.0}};
  c.integrator = "ida";
  c.abs_tol = c.rel_tol = 1e-10;
  const nlohmann::json record = quick_run(c);
  EXPECT_EQ(record["status"], "newton_failed") << record["message"];
  EXPECT_LT(record["t_reached"].get<double>(), 2.0);
  EXPECT_LT(record["work"]["steps_accepted"].get<long>(), 10 * LoopGuard::kPaceWindow);
}

}  // namespace
}  // namespace cmb::test
