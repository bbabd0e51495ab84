// The example's own check, beside cmbench's conformance suites: its method solves its problem to
// rounding. The exact solution is quadratic in t and the constraint linear, so RK4 (exact for
// polynomials of degree ≤ 4) leaves only rounding error, ~1e-15 relative at |q| ~ 10.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

TEST(Example, MethodSolvesProblemToRounding) {
  cmb::RunConfig c;
  c.problem = "example_incline";
  c.method = "example_kkt_lu";
  c.stepper = "rk4";
  c.dt = 0.01;
  const auto r = cmb::test::quick_run(c);
  ASSERT_EQ(r["status"], "ok") << r["message"];
  EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-12);
  EXPECT_LT(r["metrics"]["multipliers"]["max_rel_error"].get<double>(), 1e-12);
}

}  // namespace
