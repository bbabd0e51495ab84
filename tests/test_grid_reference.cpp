// Grid references read between grid times (harness/run/grid_reference.hpp): the interpolant and
// its error bounds on generated smooth functions, and on the self-converged references of the
// catalog against runs that land exactly where the interpolant reads; every sample of adaptive
// runs scored.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "catalog/catalog.hpp"
#include "harness/run/grid_reference.hpp"
#include "harness/run/self_converged.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// A smooth function of t with generated frequencies, phases and amplitudes, one per column.
struct Waves {
  std::vector<double> omega, phase, amplitude;
  double at(int column, double t) const {
    return amplitude[column] * std::sin(omega[column] * t + phase[column]);
  }
};

// The estimate bounds the interpolant's true error wherever the grid resolves the function
// (here 2 to 40 grid intervals per period of the fastest wave), and the interpolant reproduces
// grid values exactly at grid times.
TEST(GridReference, TheEstimatedBoundHoldsOnGeneratedSmoothFunctions) {
  std::mt19937 rng(46);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int trial = 0; trial < 40; ++trial) {
    const double t_end = 0.5 + 10 * unit(rng);
    const long intervals = 16L << static_cast<int>(6 * unit(rng));  // 16 … 1024
    const double per_period = 2 + 38 * unit(rng);
    Waves w;
    for (int c = 0; c < 3; ++c) {
      w.omega.push_back(2 * M_PI * intervals / (t_end * per_period) * (0.3 + 0.7 * unit(rng)));
      w.phase.push_back(2 * M_PI * unit(rng));
      w.amplitude.push_back(std::pow(10.0, 4 * unit(rng) - 2));
    }
    GridReference ref;
    ref.outputs.resize(intervals + 1, 3);
    for (long k = 0; k <= intervals; ++k) {
      ref.grid.push_back(t_end * k / intervals);
      for (int c = 0; c < 3; ++c) ref.outputs(k, c) = w.at(c, ref.grid.back());
    }
    ref.interval_errors = interpolation_errors(ref.grid, ref.outputs);
    std::vector<double> times;
    for (int i = 0; i < 200; ++i) times.push_back(t_end * unit(rng));
    times.push_back(ref.grid[intervals / 2]);
    const SampledReference read = sample_reference(ref, times);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const long k = std::min<long>(intervals - 1, static_cast<long>(times[i] / t_end * intervals));
      for (int c = 0; c < 3; ++c)
        EXPECT_LE(std::abs(read.values(i, c) - w.at(c, times[i])),
                  ref.interval_errors[k] + 1e-14 * w.amplitude[c])
            << "trial " << trial << ", t = " << times[i] << ", " << per_period << " per period";
    }
    EXPECT_EQ(read.values.row(times.size() - 1), ref.outputs.row(intervals / 2));
    EXPECT_TRUE(read.interpolated);
  }
}

std::vector<std::string> self_converged_problems() {
  std::vector<std::string> ids;
  for (const auto& entry : problem_registry())
    if (make_problem(entry.id, conformance_params(entry.id))->reference_info().kind ==
        ReferenceKind::self_converged)
      ids.push_back(entry.id);
  return ids;
}

// The horizon the tests below use: a tenth of the problem's, so that each reference is computed
// once (and quickly) for all of them.
double test_horizon(const Problem& problem) { return 0.1 * problem.t_end(); }

// Values read between grid times against the first recipe run landing exactly on those times:
// both are that run's configuration, each as accurate as the agreement of the two recipe runs,
// so they may differ by twice the agreement plus the interpolation bound of the interval read —
// and by the recipe's tolerance (relative to the outputs' size), which two runs of the same
// configuration landing on different times may differ by even where the two recipe runs happen
// to agree more closely (a short horizon: agreements near 1e-14).
TEST(GridReference, ValuesBetweenGridTimesMatchARunLandingThere) {
  const std::string cache = scratch_path("grid_reference_landing").string();
  std::mt19937 rng(7);
  for (const auto& id : self_converged_problems()) {
    auto problem = make_problem(id, conformance_params(id));
    const double t_end = test_horizon(*problem);
    const SelfConvergedReference ref =
        self_converged_reference(*problem, t_end, problem->reference_info().recipe, cache);
    std::vector<double> times;
    std::uniform_real_distribution<double> anywhere(0.0, t_end);
    for (int i = 0; i < 40; ++i) times.push_back(anywhere(rng));
    std::sort(times.begin(), times.end());
    times.push_back(t_end);
    const nlohmann::json recipe = ref.provenance.at("runs").at(0);
    RunConfig c = tight_run(id, recipe.at("method"), recipe.at("tol"));
    c.problem_params = conformance_params(id);
    c.method_params = recipe.value("method_params", nlohmann::json::object());
    c.stepper = recipe.at("stepper");
    c.t_end = t_end;
    c.repeat = 0;
    c.compute_reference = false;
    PreparedRun run = prepare_run(c);
    run.sample_times = times;
    run.settings.land_on_samples = true;
    const RunResult landed = execute_run(run);
    ASSERT_EQ(landed.record.status, RunStatus::ok) << landed.record.message;
    const SampledReference read = sample_reference(ref, times);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const long k =
          std::lower_bound(ref.grid.begin(), ref.grid.end(), times[i]) - ref.grid.begin() - 1;
      const double rounding = recipe.at("tol").get<double>() *
                              std::max(1.0, landed.series.outputs[i + 1].lpNorm<Eigen::Infinity>());
      const double bound = 2 * ref.agreement + ref.interval_errors[std::max(0L, k)] + rounding;
      EXPECT_LE(
          (read.values.row(i).transpose() - landed.series.outputs[i + 1]).lpNorm<Eigen::Infinity>(),
          bound)
          << id << " at t = " << times[i];
    }
  }
  std::filesystem::remove_all(cache);
}

// Adaptive steppers sample at the first accepted step at or after each sample time, which is
// rarely a grid time of the reference: every such sample is scored, and max_abs is the largest
// error over all of them. Generated configurations (method, stepper, tolerance, sampling) of
// every problem whose reference is self-converged.
TEST(GridReference, EverySampleOfAnAdaptiveRunIsScored) {
  const std::string cache = scratch_path("grid_reference_adaptive").string();
  std::mt19937 rng(2026);
  const std::vector<std::string> steppers = {"dopri5", "cash_karp54",    "fehlberg78",
                                             "dop853", "bulirsch_stoer", "rosenbrock4"};
  const std::vector<std::string> methods = {"index1", "baumgarte", "projection", "svd_null_space",
                                            "augmented_lagrangian"};
  auto pick = [&](const std::vector<std::string>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng)];
  };
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto problems = self_converged_problems();
  ASSERT_GE(problems.size(), 4u);
  for (const auto& id : problems) {
    int scored = 0;
    for (int attempt = 0; attempt < 40 && scored < 3; ++attempt) {
      RunConfig c;
      c.problem = id;
      c.problem_params = conformance_params(id);
      c.method = pick(methods);
      c.stepper = pick(steppers);
      c.abs_tol = c.rel_tol = std::pow(10.0, -5 - 4 * unit(rng));
      c.t_end = test_horizon(*make_problem(id, c.problem_params));
      c.sample_dt = *c.t_end / (20 + 130 * unit(rng));
      c.repeat = 0;
      c.reference = "self_converged";
      c.reference_cache = cache;
      PreparedRun run = prepare_run(c);
      const RunResult result = run_with_reference(run);
      if (result.record.status != RunStatus::ok) continue;  // a method the problem refuses
      ++scored;
      const SampleSeries& s = result.series;
      ASSERT_EQ(result.reference.rows(), static_cast<Eigen::Index>(s.t.size())) << run.key;
      EXPECT_TRUE(result.reference.allFinite()) << run.key << ": a sample without reference";
      double largest = 0.0;
      for (std::size_t i = 0; i < s.t.size(); ++i)
        largest = std::max(
            largest,
            (s.outputs[i] - result.reference.row(i).transpose()).lpNorm<Eigen::Infinity>());
      const ErrorMetrics& e = *result.record.metrics->error;
      EXPECT_EQ(e.max_abs, largest) << run.key;
      EXPECT_GE(e.max_abs, e.final_abs_max) << run.key;
    }
    EXPECT_EQ(scored, 3) << id << ": too few generated runs ended ok";
  }
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace cmb::test
