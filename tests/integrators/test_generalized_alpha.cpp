// generalized_alpha: second order in q on simple_pendulum (exact reference), Φ = 0 held by the
// Newton iteration, the velocity projection, and the refusals of what the index-3 form cannot do.
#include <cmath>

#include "fixed_step_support.hpp"

namespace cmb::test {
namespace {

const char* const kGeneralizedAlpha = "generalized_alpha";

// [ArnoldBruls2007] prove order 2 for q (with the perturbed start): halving h from 2 ms to 1 ms
// and to 0.5 ms divides the position error by 4 each time, ± the next term (order 2 ± 0.2).
TEST(GeneralizedAlpha, PositionsConvergeAtOrderTwo) {
  const double e1 = position_error(pendulum_run(kGeneralizedAlpha, 2e-3, 1.0));
  const double e2 = position_error(pendulum_run(kGeneralizedAlpha, 1e-3, 1.0));
  const double e3 = position_error(pendulum_run(kGeneralizedAlpha, 5e-4, 1.0));
  EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.2);
  EXPECT_NEAR(std::log2(e2 / e3), 2.0, 0.2);
}

// Over t = 10 at h = 0.1 ms: from the error at 1 ms, an order of at least 1.8 over the factor 10
// bounds it by e(1 ms)·10^-1.8; Φ = 0 holds to the Newton tolerance (1e-10 of the pendulum's
// length 1) at every sample.
TEST(GeneralizedAlpha, AtTenSecondsTheErrorIsWithinItsOrderBound) {
  const double coarse = position_error(pendulum_run(kGeneralizedAlpha, 1e-3, 10.0));
  const auto fine = pendulum_run(kGeneralizedAlpha, 1e-4, 10.0);
  EXPECT_LT(position_error(fine), coarse * std::pow(10.0, -1.8));
  EXPECT_LT(fine["metrics"]["drift"]["position"]["max"].get<double>(), 1e-10);
}

// Without projections J v = ν holds to O(h²); the velocity projection makes it exact (to
// rounding on a unit-size mechanism) at the same order in q.
TEST(GeneralizedAlpha, TheVelocityProjectionPutsVOnTheConstraints) {
  const auto plain = pendulum_run(kGeneralizedAlpha, 1e-3, 1.0);
  const auto projected = pendulum_run(kGeneralizedAlpha, 1e-3, 1.0, {{"projections", "velocity"}});
  EXPECT_GT(plain["metrics"]["drift"]["velocity"]["max"].get<double>(), 1e-9);
  EXPECT_LT(projected["metrics"]["drift"]["velocity"]["max"].get<double>(), 1e-12);
  EXPECT_LT(position_error(projected), 2 * position_error(plain));
}

// Nonholonomic rows have no position form (unsupported); redundant rows make the iteration
// matrix singular at the first step, recorded as for the methods (singular).
TEST(GeneralizedAlpha, RefusesWhatItsFormulationCannotHold) {
  const auto short_run = [](const char* problem) {
    RunConfig c;
    c.problem = problem;
    c.integrator = kGeneralizedAlpha;
    c.dt = 1e-3;
    c.t_end = 0.01;
    return quick_run(c);
  };
  for (const char* problem : {"chaplygin_sleigh", "rolling_disk"}) {
    const auto r = short_run(problem);
    EXPECT_EQ(r["status"], "unsupported") << problem;
    EXPECT_NE(r["message"].get<std::string>().find("nonholonomic"), std::string::npos)
        << r["message"];
  }
  const auto bricard = short_run("bricard");
  EXPECT_EQ(bricard["status"], "singular");
  EXPECT_NE(bricard["message"].get<std::string>().find("redundant"), std::string::npos)
      << bricard["message"];
}

}  // namespace
}  // namespace cmb::test
