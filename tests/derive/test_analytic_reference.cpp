// A model file may give its reference in closed form (reference=dict(analytic=...)): the
// test-only tests/derive/models/bead_on_rotating_wire.py, generated into tests/derive/generated/
// (ctest bead_on_rotating_wire_generated_code_is_current). A bead on a straight wire spun at the
// rate Ω moves along it as r0 cosh(Ωt); the generated problem must report that reference as
// analytic and give it at any times, and a run must follow it.
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "test_support.hpp"
#include "tests/derive/generated/bead_on_rotating_wire.cpp"

namespace cmb::test {
namespace {

std::unique_ptr<Problem> bead(const nlohmann::json& given = nlohmann::json::object()) {
  const ProblemEntry entry = cmb_problem_entry_bead_on_rotating_wire();
  return entry.make(parse_params("problem 'bead_on_rotating_wire'", given, entry.params));
}

// The closed form, written here from the physics (not from the generated code): along the wire
// r̈ = Ω² r from r0 at rest relative to the wire.
std::array<double, 2> on_the_wire(double t, double rate, double r0) {
  const double r = r0 * std::cosh(rate * t);
  return {r * std::cos(rate * t), r * std::sin(rate * t)};
}

// The generated closed form evaluates the same expression in another order (common
// subexpressions hoisted): a few ulps of outputs of order 1, so 1e-14 relative to max(1, |y|).
TEST(AnalyticReference, IsReportedAndGivenAtAnyTimes) {
  const nlohmann::json params = {{"Omega", 1.7}, {"r0", 0.3}};
  const auto problem = bead(params);
  EXPECT_EQ(problem->reference_info().kind, ReferenceKind::analytic);
  EXPECT_EQ(problem->reference_info().accuracy, 1e-14);
  const std::vector<double> times = {0.0, 0.05, 0.5, 1.3, 2.0};
  const Mat ref = problem->reference_outputs(times);
  ASSERT_EQ(ref.rows(), 5);
  ASSERT_EQ(ref.cols(), 2);
  for (std::size_t i = 0; i < times.size(); ++i) {
    const auto y = on_the_wire(times[i], 1.7, 0.3);
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(ref(i, j), y[j], 1e-14 * std::max(1.0, std::abs(y[j]))) << "t = " << times[i];
  }
}

// projection with dopri5 at tolerance 1e-12 over t ∈ [0, 2]: a few hundred steps with local
// errors of order 1e-12 amplified at most by e^{Ωt} ≈ 7.4 (the unstable cosh mode) keep the global
// error below 1e-9 on outputs of order 1, so 1e-8 bounds it, while a wrong time term in ν or γ
// (of order Ω² r ≈ 1) would leave the closed form at once.
TEST(AnalyticReference, ARunFollowsIt) {
  const RunResult r = run_unregistered(bead(), "projection", {}, "dopri5", 1e-12);
  const auto record = cmb::to_json(r.record);
  ASSERT_EQ(record["status"], "ok") << record["message"];
  EXPECT_EQ(record["reference"]["kind"], "analytic");
  ASSERT_GT(r.series.t.size(), 50u);
  for (std::size_t i = 0; i < r.series.t.size(); ++i) {
    const double t = r.series.t[i];
    const auto y = on_the_wire(t, 1.0, 0.5);
    for (int j = 0; j < 2; ++j) {
      EXPECT_NEAR(r.series.outputs[i](j), y[j], 1e-8) << "t = " << t;
      EXPECT_NEAR(r.reference(i, j), y[j], 1e-13) << "t = " << t;
    }
  }
  EXPECT_LE(record["metrics"]["error"]["final_abs_max"].get<double>(), 1e-8);
}

}  // namespace
}  // namespace cmb::test
