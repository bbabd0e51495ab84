// Self-converged references, checked against a problem whose independent reference is known:
// the crank-rocker's reduced one-coordinate ODE (accurate to 1e-9, tests/test_references.cpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "catalog/catalog.hpp"
#include "harness/self_converged.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

TEST(SelfConverged, AgreesWithAnIndependentReferenceAndIsCached) {
  const std::string cache = scratch_path("self_converged_test").string();
  std::filesystem::remove_all(cache);
  auto problem = make_problem("crank_rocker", {});
  const double t_end = 2.0;
  const SelfConvergedReference ref =
      self_converged_reference("crank_rocker", problem->params(), t_end, nullptr, cache);
  EXPECT_FALSE(ref.from_cache);
  // Two tolerance-1e-12 runs over 2 s agree to ~1e-12; 1e-9 is the accuracy claimed for the
  // reduced-ODE reference they are compared with below.
  EXPECT_LT(ref.agreement, 1e-9);
  const Mat independent = problem->reference_outputs(ref.grid);
  EXPECT_LT((ref.outputs - independent).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_TRUE(std::filesystem::exists(ref.cache_file));

  const SelfConvergedReference again =
      self_converged_reference("crank_rocker", problem->params(), t_end, nullptr, cache);
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ((again.outputs - ref.outputs).cwiseAbs().maxCoeff(), 0.0);

  // Off-grid times have no reference value; grid times do.
  const Mat sampled = sample_reference(ref, {0.02, 0.021, 2.0});
  EXPECT_TRUE(std::isfinite(sampled(0, 0)));
  EXPECT_TRUE(std::isnan(sampled(1, 0)));
  EXPECT_EQ(sampled(2, 0), ref.outputs(ref.outputs.rows() - 1, 0));
  std::filesystem::remove_all(cache);
}

// Steps longer than the sampling interval (here Bricard's first 0.2 s sampled every 2 ms at
// tolerance 1e-12) must still stop on every grid time, including those inside the last
// step: an earlier version jumped from the last-but-few sample straight to t_end, leaving the
// two reference runs with different row counts.
TEST(SelfConverged, EveryGridTimeIsLandedOnEvenInsideTheLastStep) {
  const std::string cache = scratch_path("self_converged_grid").string();
  std::filesystem::remove_all(cache);
  auto problem = make_problem("bricard", {});
  const SelfConvergedReference ref =
      self_converged_reference("bricard", problem->params(), 0.2, nullptr, cache);
  ASSERT_EQ(ref.grid.size(), 101u);
  EXPECT_EQ(ref.outputs.rows(), 101);
  // Both tolerance-1e-12 runs over 0.2 s: agreement near 1e-12, far below any step error.
  EXPECT_LT(ref.agreement, 1e-9);
  std::filesystem::remove_all(cache);
}

// A run is a leaf: its self-converged reference is resolved before it starts, and when that
// reference cannot be computed the run ends reference_failed without integrating — never `ok`
// with errors silently missing. Here the recipe cannot pass A02's singular position (t ≈ 0.72 s,
// every rocker horizontal): its augmented-Lagrangian run stops there (newton_failed), as every
// method without rank truncation does.
TEST(SelfConverged, AReferenceThatCannotBeComputedEndsTheRunReferenceFailed) {
  const std::string cache = scratch_path("self_converged_failed").string();
  std::filesystem::remove_all(cache);
  RunConfig c;
  c.problem = "n_four_bar";
  c.problem_params = {{"N", 20}, {"t_end", 1.0}};
  c.method = "index1";
  c.stepper = "dopri5";
  c.abs_tol = c.rel_tol = 1e-6;
  c.repeat = 0;
  c.reference = "self_converged";
  c.reference_cache = cache;
  PreparedRun run = prepare_run(c);
  // Without resolving first, execute_run refuses to run without the reference it needs.
  EXPECT_THROW(execute_run(run), std::logic_error);
  resolve_reference(run);
  ASSERT_FALSE(run.reference_failure.empty());
  const nlohmann::json record = execute_run(run).record;
  EXPECT_EQ(record["status"], "reference_failed");
  const std::string message = record["message"];
  EXPECT_EQ(message.rfind("the self-converged reference could not be computed: "
                          "self-converged reference run n_four_bar[N=20]/",
                          0),
            0u)
      << message;
  EXPECT_FALSE(record.contains("metrics"));
  EXPECT_EQ(record["reference"]["kind"], "self_converged");
  EXPECT_EQ(record["reference"]["accuracy"], nullptr);
  // The cache may hold the lock its computation took, but no reference.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cache, ec))
    EXPECT_NE(entry.path().extension(), ".json")
        << "a failed reference was cached: " << entry.path();
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace cmb::test
