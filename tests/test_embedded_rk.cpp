// The dop853 stepper (steppers/dop853.hpp): its error estimate, its work per step, its order with
// constant steps and its tolerance in a run. The tableau's order conditions are checked in
// decimal arithmetic by tests/check_rk_tableau.py (ctest
// dop853_tableau_satisfies_its_order_conditions).
#include <gtest/gtest.h>

#include <boost/array.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <vector>

#include "steppers/dop853.hpp"
#include "steppers/dopri87.hpp"
#include "steppers/steppers.hpp"
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

// Boost.Odeint's generic embedded Runge–Kutta stepper with the RK8(7)13M tableau: how dopri87 ran
// before cmbench stepped it itself.
namespace pd87 = detail::prince_dormand87;
namespace odeint = boost::numeric::odeint;
using OdeintPair = odeint::explicit_error_generic_rk<13, 8, 8, 7, std::vector<double>, double,
                                                     std::vector<double>, double>;
template <std::size_t N>
boost::array<double, N> to_boost(const std::array<double, N>& a) {
  boost::array<double, N> out;
  for (std::size_t j = 0; j < N; ++j) out[j] = a[j];
  return out;
}
OdeintPair odeint_pair() {
  OdeintPair::coef_a_type a(to_boost(pd87::kA2), to_boost(pd87::kA3), to_boost(pd87::kA4),
                            to_boost(pd87::kA5), to_boost(pd87::kA6), to_boost(pd87::kA7),
                            to_boost(pd87::kA8), to_boost(pd87::kA9), to_boost(pd87::kA10),
                            to_boost(pd87::kA11), to_boost(pd87::kA12), to_boost(pd87::kA13));
  OdeintPair::coef_b_type error;
  for (std::size_t i = 0; i < error.size(); ++i) error[i] = pd87::kB[i] - pd87::kBHat[i];
  return OdeintPair(a, to_boost(pd87::kB), error, to_boost(pd87::kC));
}

// The pendulum in Cartesian-free form, θ'' = −sin θ: nonlinear, smooth, with enough variation
// of the error over a period that the controller both grows and cuts steps.
struct Pendulum {
  template <class In, class Out>
  void operator()(const In& x, Out& dxdt, double) const {
    dxdt[0] = x[1];
    dxdt[1] = -std::sin(x[0]);
  }
};

// dopri87's rules are odeint's: from the same state and trial step both must accept or reject
// the same attempts and propose the same next steps, up to rounding. The error estimate is a sum
// of O(1) terms that cancels to about the tolerance, so its rounding is relative u / 1e-9 ≈ 1e-7
// here; a step proposal (err to the power −1/6 or −1/8) inherits a fraction of it, and the steps
// and states after it follow: 1e-6 relative is asked. A different rule (an exponent, a factor, a
// threshold) changes the proposals by per cents.
TEST(Dopri87, TakesTheStepsOfOdeintsGenericStepperAndController) {
  using Controlled = odeint::controlled_runge_kutta<OdeintPair>;
  Controlled reference(Controlled::error_checker_type(1e-9, 1e-9), Controlled::step_adjuster_type(),
                       odeint_pair());
  detail::PrinceDormand87 ours(1e-9, 1e-9);
  std::vector<double> x_ref = {2.5, 0.0}, x = x_ref;
  double t_ref = 0.0, t = 0.0, dt_ref = 1.0, dt = 1.0;  // a first trial far too large
  int rejections = 0;
  for (int attempt = 0; attempt < 60; ++attempt) {
    const auto a = reference.try_step(Pendulum{}, x_ref, t_ref, dt_ref);
    const auto b = ours.try_step(Pendulum{}, x, t, dt);
    ASSERT_EQ(a, b) << "attempt " << attempt;
    if (a == odeint::fail) ++rejections;
    EXPECT_NEAR(dt, dt_ref, 1e-6 * dt_ref) << "attempt " << attempt;
    EXPECT_NEAR(t, t_ref, 1e-6 * t_ref) << "attempt " << attempt;
    for (int i = 0; i < 2; ++i) EXPECT_NEAR(x[i], x_ref[i], 1e-6) << "attempt " << attempt;
  }
  EXPECT_GE(rejections, 2);  // the comparison covers rejections, not only growth
  EXPECT_GT(t, 3.0);         // and most of a period
}

}  // namespace
}  // namespace cmb::test
