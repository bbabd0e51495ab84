// A run's result does not depend on how it is sampled: a sample evaluates the method at the
// accepted state (for its λ and q̈), a call the run's own steps never asked for, and a method that
// warm-starts its next call from its last one (augmented_lagrangian's λ iteration) must not let
// that call change what follows. Every method of the catalog, on problems of each kind, with a
// fixed-step and an adaptive stepper, sampled at two unrelated rates: the same work and the same
// final state to the last bit (what also lets a timed repetition, which samples nothing, repeat
// the instrumented run: harness/run/timing.hpp).
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

TEST(Sampling, ARunDoesTheSameWorkAndEndsInTheSameStateAtAnySampling) {
  const std::vector<std::string> problems = {"simple_pendulum", "crank_rocker", "andrews_squeezer",
                                             "chaplygin_sleigh", "spatial_slider_crank"};
  int compared = 0;
  for (const auto& method : method_registry())
    for (const auto& problem : problems)
      for (const bool adaptive : {false, true}) {
        auto run = [&](double samples) {
          RunConfig c;
          c.problem = problem;
          c.method = method.id;
          c.stepper = adaptive ? "dopri5" : "rk4";
          if (adaptive) c.abs_tol = c.rel_tol = 1e-8;
          c.dt = adaptive ? std::optional<double>() : std::optional<double>(1e-3);
          c.t_end = 0.03;  // andrews_squeezer's horizon; the others' first 30 ms
          c.sample_dt = 0.03 / samples;
          c.compute_reference = false;
          return run_in_process(c);
        };
        const RunResult a = run(30), b = run(7);
        if (a.record.status != RunStatus::ok) {
          EXPECT_EQ(b.record.status, a.record.status) << method.id << " on " << problem;
          continue;
        }
        ++compared;
        const std::string what =
            method.id + " on " + problem + " with " + (adaptive ? "dopri5" : "rk4");
        ASSERT_EQ(b.record.status, RunStatus::ok) << what;
        EXPECT_EQ(a.record.work->rhs_calls, b.record.work->rhs_calls) << what;
        EXPECT_EQ(a.record.work->steps_accepted, b.record.work->steps_accepted) << what;
        EXPECT_EQ(a.record.work->steps_rejected, b.record.work->steps_rejected) << what;
        EXPECT_EQ(a.series.outputs.back(), b.series.outputs.back()) << what;
      }
  EXPECT_GE(compared, 40);
}

// The same for the DAE integrators, which sample their own state.
TEST(Sampling, AnIntegratorsRunDoesNotDependOnItsSampling) {
  int compared = 0;
  for (const auto& integrator : integrator_registry())
    for (const std::string problem : {"simple_pendulum", "crank_rocker", "spatial_slider_crank"}) {
      auto run = [&](double samples) {
        RunConfig c;
        c.problem = problem;
        c.integrator = integrator.id;
        if (integrator.kind == StepperKind::adaptive)
          c.abs_tol = c.rel_tol = 1e-8;
        else
          c.dt = 1e-3;
        c.t_end = 0.03;
        c.sample_dt = 0.03 / samples;
        c.compute_reference = false;
        return run_in_process(c);
      };
      const RunResult a = run(30), b = run(7);
      const std::string what = integrator.id + " on " + problem;
      ASSERT_EQ(b.record.status, a.record.status) << what;
      if (a.record.status != RunStatus::ok) continue;
      ++compared;
      EXPECT_EQ(a.record.work->rhs_calls, b.record.work->rhs_calls) << what;
      EXPECT_EQ(a.record.work->steps_accepted, b.record.work->steps_accepted) << what;
      EXPECT_EQ(a.series.outputs.back(), b.series.outputs.back()) << what;
    }
  EXPECT_GE(compared, 8);
}

}  // namespace
}  // namespace cmb::test
