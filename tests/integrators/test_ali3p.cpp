// ali3p: second order in q on simple_pendulum (exact reference), Φ = 0 and J q̇ = ν held by the
// augmented Lagrangian iteration and the projections, and redundant rows (Bricard) carried by the
// penalty form where the KKT-based schemes stop.
#include <cmath>
#include <regex>

#include "fixed_step_support.hpp"

namespace cmb::test {
namespace {

const char* const kAli3p = "ali3p";

// The trapezoidal rule is of order 2: halving h from 2 ms to 1 ms and to 0.5 ms divides the
// position error by 4 each time, ± the next term (order 2 ± 0.2).
TEST(Ali3p, PositionsConvergeAtOrderTwo) {
  const double e1 = position_error(pendulum_run(kAli3p, 2e-3, 1.0));
  const double e2 = position_error(pendulum_run(kAli3p, 1e-3, 1.0));
  const double e3 = position_error(pendulum_run(kAli3p, 5e-4, 1.0));
  EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.2);
  EXPECT_NEAR(std::log2(e2 / e3), 2.0, 0.2);
}

// Over t = 10 at h = 0.1 ms: an order of at least 1.8 over the factor 10 from 1 ms bounds the
// error by e(1 ms)·10^-1.8. Φ and J q̇ − ν stay within the Newton tolerance (1e-10 of the unit
// length) and the projection's penalty residual.
TEST(Ali3p, AtTenSecondsTheErrorIsWithinItsOrderBound) {
  const double coarse = position_error(pendulum_run(kAli3p, 1e-3, 10.0));
  const auto fine = pendulum_run(kAli3p, 1e-4, 10.0);
  EXPECT_LT(position_error(fine), coarse * std::pow(10.0, -1.8));
  EXPECT_LT(fine["metrics"]["drift"]["position"]["max"].get<double>(), 1e-10);
  EXPECT_LT(fine["metrics"]["drift"]["velocity"]["max"].get<double>(), 1e-8);
}

// Bricard's mechanism has a rank-deficient J: M + (h²/4)JᵀαJ stays positive definite, so ALI3-P
// runs where index1 and generalized_alpha end singular, and keeps Φ = 0.
TEST(Ali3p, RunsThroughRedundantRows) {
  RunConfig c;
  c.problem = "bricard";
  c.integrator = kAli3p;
  c.dt = 1e-3;
  c.t_end = 1.0;
  const auto r = quick_run(c);
  ASSERT_EQ(r["status"], "ok") << r["message"];
  EXPECT_LT(r["metrics"]["drift"]["position"]["max"].get<double>(), 1e-9);
}

TEST(Ali3p, RefusesNonholonomicRows) {
  for (const char* problem : {"chaplygin_sleigh", "rolling_disk"}) {
    RunConfig c;
    c.problem = problem;
    c.integrator = kAli3p;
    c.dt = 1e-3;
    c.t_end = 0.01;
    const auto r = quick_run(c);
    EXPECT_EQ(r["status"], "unsupported") << problem;
    EXPECT_NE(r["message"].get<std::string>().find("nonholonomic"), std::string::npos);
  }
}

// A run of ali3p at h = 1 ms to t_end.
RunConfig short_run(const std::string& problem, const nlohmann::json& problem_params,
                    const nlohmann::json& method_params, double t_end) {
  RunConfig c;
  c.problem = problem;
  c.problem_params = problem_params;
  c.integrator = kAli3p;
  c.method_params = method_params;
  c.dt = 1e-3;
  c.t_end = t_end;
  return c;
}

// The row penalties are set at the run's start (from alpha_rel, or alpha itself when given): the
// record carries those in use, here the given α on the pendulum's one row.
TEST(Ali3p, RecordsThePenaltiesItUsed) {
  const auto r =
      quick_run(short_run("simple_pendulum", nlohmann::json::object(), {{"alpha", 5e8}}, 0.01));
  ASSERT_EQ(r["status"], "ok") << r["message"];
  EXPECT_EQ(r["method"]["params"]["alpha_min"].get<double>(), 5e8);
  EXPECT_EQ(r["method"]["params"]["alpha_max"].get<double>(), 5e8);
}

// On a long chain the augmented-Lagrangian update, not Newton, sets the pace: its contraction
// 1/(1 + alpha_rel·σ) (header) falls towards 1 as σ falls like 1/N² on n_pendulum (predicted
// 0.9849 at N = 200 from σ at q₀, observed 0.9845). With the default alpha_rel such runs must end
// newton_failed, with the slow contraction they observed (Newton's own phase contracts far faster
// than 0.9) and the remedy in the message; the same runs with alpha_rel = 1e6 must end ok.
TEST(Ali3p, OnALongChainTheDefaultPenaltyContractsSlowlyAndSaysSo) {
  for (const int n : {200, 400}) {
    for (const double theta_deg : {30.0, 60.0}) {
      RunConfig c = short_run("n_pendulum", {{"N", n}, {"theta0_deg", theta_deg}},
                              nlohmann::json::object(), 0.02);
      const auto r = quick_run(c);
      ASSERT_EQ(r["status"], "newton_failed") << n;
      const std::string message = r["message"];
      std::smatch found;
      ASSERT_TRUE(std::regex_search(message, found, std::regex("contraction ([0-9.e+-]+)")))
          << message;
      const double observed = std::stod(found[1]);
      EXPECT_GT(observed, 0.9) << message;
      EXPECT_LT(observed, 1.0) << message;
      EXPECT_NE(message.find("a larger alpha_rel"), std::string::npos) << message;
      c.method_params = {{"alpha_rel", 1e6}};
      EXPECT_EQ(quick_run(c)["status"], "ok") << "N = " << n << ", theta0 = " << theta_deg;
    }
  }
}

// With alpha_rel = 1e6 the longest chain the catalog allows (N = 1000, 2000 coordinates) runs,
// in 6.6 iterations per step (measured; the scaling measurement of docs/integrators.md), and Φ
// stays within the Newton bound.
TEST(Ali3p, ALargerPenaltyCarriesTheLongestChain) {
  const auto r = quick_run(short_run("n_pendulum", {{"N", 1000}}, {{"alpha_rel", 1e6}}, 0.02));
  ASSERT_EQ(r["status"], "ok") << r["message"];
  EXPECT_LT(r["metrics"]["drift"]["position"]["max"].get<double>(), 1e-10);
}

}  // namespace
}  // namespace cmb::test
