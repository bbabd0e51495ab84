// Steppers against the exact pendulum solution: fixed-step steppers show their nominal order,
// adaptive ones meet their tolerance.
#include <cmath>

#include <gtest/gtest.h>

#include "harness/steppers.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

double final_error(const std::string& stepper, double dt_or_tol) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "index1";
  c.stepper = stepper;
  c.t_end = 1.0;
  if (find_stepper(stepper).kind == StepperKind::fixed)
    c.dt = dt_or_tol;
  else
    c.abs_tol = c.rel_tol = dt_or_tol;
  const auto r = quick_run(c);
  EXPECT_EQ(r["status"], "ok") << stepper;
  return r["metrics"]["error"]["final_abs_max"].get<double>();
}

// Least-squares slope of log(error) against log(dt).
double observed_order(const std::string& stepper, const std::vector<double>& dts) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (double dt : dts) {
    const double x = std::log(dt), y = std::log(final_error(stepper, dt));
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = dts.size();
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

// Step sizes chosen inside each stepper's asymptotic range: errors between ~1e-3 and ~1e-10,
// above round-off and below the pre-asymptotic regime.
TEST(FixedStepOrder, MatchesNominalOrderWithin0_3) {
  const std::vector<std::pair<std::string, std::vector<double>>> cases = {
      {"euler", {2e-4, 1e-4, 5e-5}},
      {"rk4", {0.02, 0.01, 0.005}},
      {"rk_gill", {0.02, 0.01, 0.005}},
      {"adams_bashforth_moulton", {0.01, 0.005, 0.0025}},
  };
  for (const auto& [stepper, dts] : cases) {
    const double p = observed_order(stepper, dts);
    EXPECT_NEAR(p, find_stepper(stepper).order, 0.3) << stepper;
  }
}

// Local errors are held below tol·(1 + |x|) per step (|x| ≤ 4 here); their sum over the accepted
// steps, grown by at most e^{Lt} with L ≈ ω = √g ≈ 3.1 over t = 1 s, bounds the global error.
TEST(AdaptiveSteppers, MeetTheirTolerance) {
  for (const std::string stepper :
       {"cash_karp54", "dopri5", "fehlberg78", "bulirsch_stoer", "rosenbrock4"}) {
    for (double tol : {1e-6, 1e-9}) {
      RunConfig c;
      c.problem = "simple_pendulum";
      c.method = "index1";
      c.stepper = stepper;
      c.t_end = 1.0;
      c.abs_tol = c.rel_tol = tol;
      const auto r = quick_run(c);
      ASSERT_EQ(r["status"], "ok") << stepper;
      const double steps = r["work"]["steps_accepted"].get<double>();
      const double bound = 5.0 * tol * steps * std::exp(std::sqrt(9.81));
      EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), bound)
          << stepper << " tol " << tol;
    }
    EXPECT_LT(final_error(stepper, 1e-9), final_error(stepper, 1e-6)) << stepper;
  }
}

TEST(AdaptiveSteppers, CountRejectionsAndRhsCalls) {
  RunConfig c;
  c.problem = "simple_pendulum";
  c.method = "index1";
  c.stepper = "dopri5";
  c.abs_tol = c.rel_tol = 1e-8;
  const auto r = quick_run(c);
  const auto& w = r["work"];
  // dopri5 is FSAL: 6 new RHS calls per attempted step, +1 to start and after each reset.
  const long attempts = w["steps_accepted"].get<long>() + w["steps_rejected"].get<long>();
  EXPECT_GE(w["rhs_calls"].get<long>(), 6 * attempts);
  EXPECT_LE(w["rhs_calls"].get<long>(), 7 * attempts + 1);
}

}  // namespace
}  // namespace cmb::test
