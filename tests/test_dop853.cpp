// The dop853 stepper (harness/dop853.hpp): its error estimate, its work per step, its order with
// constant steps and its tolerance in a run. The tableau's order conditions are checked in
// decimal arithmetic by tests/check_rk_tableau.py (ctest
// dop853_tableau_satisfies_its_order_conditions).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "harness/dop853.hpp"
#include "harness/steppers.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// y' = y², y(0) = 1/2: y(t) = 1 / (2 − t), a nonlinear scalar problem with a known solution (on
// y' = y the elementary differentials of each order coincide and hide some error terms).
struct Quadratic {
  template <class In, class Out>
  void operator()(const In& y, Out& dydt, double) const {
    dydt[0] = y[0] * y[0];
  }
};

// DOP853's err of one step of size h from t = 0 (tolerances 1: err is the raw estimate).
double estimate_of_one_step(double h) {
  detail::Dop853 stepper(1.0, 1.0);
  std::vector<double> y = {0.5};
  double t = 0.0, dt = h;
  stepper.try_step(Quadratic{}, y, t, dt);
  return stepper.last_error();
}

// The 8th-order solution's local error after one constant step of size h.
double local_error(double h) {
  detail::Dop853 stepper(1.0, 1.0);
  std::vector<double> y = {0.5};
  stepper.do_step(Quadratic{}, y, 0.0, h);
  return std::abs(y[0] - 1.0 / (2.0 - h));
}

// err = |h| ‖e5‖² / sqrt(‖e5‖² + 0.01 ‖e3‖²) with e5 = O(h⁵), e3 = O(h³) (the stages' weighted
// differences, before the factor h): err = O(h⁸) once ‖e5‖ ≪ 0.1 ‖e3‖. Halving h must divide it
// by 2⁸, up to the next terms of both expansions, relative O(h): measured log₂ of the ratio 8.2
// from h = 0.4, 8.07 from 0.2, 8.03 from 0.1. Without the ‖e3‖ term it would be O(h¹¹); an e5 or
// b3 row of the wrong order gives another power.
TEST(Dop853, ErrorEstimateScalesLikeTheEighthPower) {
  const double ratio = estimate_of_one_step(0.1) / estimate_of_one_step(0.05);
  EXPECT_NEAR(std::log2(ratio), 8.0, 0.1) << ratio;
}

// An 8th-order step has a local error O(h⁹): halving h divides it by at least 2⁹ asymptotically
// (measured: 2^9.98 from h = 0.4 to 0.2 — this problem's h⁹ term nearly cancels; smaller steps
// reach rounding). A wrong weight or node leaves an O(h^k) error with k ≤ 8: a ratio ≤ 2⁸.
TEST(Dop853, LocalErrorOfAnEighthOrderStep) {
  EXPECT_GE(std::log2(local_error(0.4) / local_error(0.2)), 8.8);
}

// An accepted step costs 12 RHS calls (its first stage is the derivative at the state it starts
// from, evaluated once), a rejected one 11 (the first stage is kept for the retry).
TEST(Dop853, TwelveRhsCallsPerAcceptedStepElevenPerRejected) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "index1";
  c.stepper = "dop853";
  c.abs_tol = c.rel_tol = 1e-10;
  c.dt = 1.0;  // a first trial step far too large: the run starts with rejections
  const auto r = quick_run(c);
  ASSERT_EQ(r["status"], "ok");
  const auto& w = r["work"];
  EXPECT_GT(w["steps_rejected"].get<long>(), 0);
  EXPECT_EQ(w["rhs_calls"].get<long>(),
            12 * w["steps_accepted"].get<long>() + 11 * w["steps_rejected"].get<long>());
}

// With constant steps on car_axis (the RHS depends on t). Its spring mode (45 rad/s) keeps the
// error pre-asymptotic down to small steps: local slopes measured 6.4, 7.2, 7.5, 7.6, 7.7, 7.8, 8.0
// from dt = 0.025 to 0.006, rising toward 8 from below (below 0.006 the error nears the
// reference's 3e-13). At dt = 0.01, 0.008, 0.0075 (errors 1.4e-10 … 1.5e-11, above 50× the
// reference's accuracy) the fitted slope must exceed 7.5: a 7th-order scheme approaches 7 from
// below here, and a mistyped coefficient breaks a lower-order condition whose term then
// dominates these errors.
TEST(Dop853, EighthOrderWithConstantSteps) {
  std::vector<double> dts = {0.01, 0.008, 0.0075}, errors;
  for (double dt : dts) {
    RunConfig c;
    c.problem = "car_axis";
    c.method = "index1";
    c.stepper = "dop853";
    c.repeat = 0;
    c.abs_tol = c.rel_tol = 1.0;  // unused: no error control
    PreparedRun run = prepare_run(c);
    run.settings.fixed_steps = true;
    run.settings.dt = dt;
    run.sample_times = {3.0};
    const RunResult result = run_with_reference(run);
    ASSERT_EQ(result.record["status"], "ok") << dt;
    errors.push_back(result.record["metrics"]["error"]["final_abs_max"].get<double>());
  }
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < dts.size(); ++i) {
    const double x = std::log(dts[i]), y = std::log(errors[i]);
    sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double n = static_cast<double>(dts.size());
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  EXPECT_GE(slope, 7.5) << errors.front() << " … " << errors.back();
  EXPECT_LE(slope, 9.0) << errors.front() << " … " << errors.back();
}

}  // namespace
}  // namespace cmb::test
