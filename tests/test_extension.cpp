// Built only into cmb_extension_tests, whose registry also reads tests/extension/*.def: the
// test-only method and problem must show up in the registry (and so in every conformance suite
// compiled into that binary) without any other edit, and work end to end.
#include <gtest/gtest.h>

#include "core/registry.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

TEST(Extension, TestOnlyEntriesAreRegistered) {
  EXPECT_NO_THROW(find_method("test_full_kkt_lu"));
  EXPECT_NO_THROW(find_problem("test_incline"));
}

TEST(Extension, TestOnlyMethodSolvesTestOnlyProblem) {
  RunConfig c;
  c.problem = "test_incline";
  c.method = "test_full_kkt_lu";
  c.stepper = "rk4";
  c.dt = 0.01;
  const auto r = quick_run(c);
  ASSERT_EQ(r["status"], "ok");
  // The exact solution is quadratic in t and the constraint linear: RK4 is exact up to rounding.
  EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-12);
  EXPECT_LT(r["metrics"]["multipliers"]["max_rel_error"].get<double>(), 1e-12);
}

}  // namespace
}  // namespace cmb::test
