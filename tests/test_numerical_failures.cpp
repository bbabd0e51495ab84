// A numerical failure (NumericalFailure) is a run's recorded status wherever in the instrumented
// run it is thrown: while the state is packed, in the stepping loop, at a sample, in the metrics.
// In the timed repetitions after it, the run stays ok and its timing says why it was not timed.
// Generated cases: a problem that evaluates like simple_pendulum until its k-th model
// evaluation, and from then on throws, so that nothing can step around it. Over every method and
// integrator of the catalog and k drawn across all of a run's evaluations, the run returns a
// record and never throws. (spatial_chain with N ≥ 84 under svd_null_space threw from the first
// pack, outside the loop, and the command line reported an internal error.)
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "harness/run/run.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// simple_pendulum whose model evaluations fail from the `fail_at`-th on (0: never); counts them.
class FailingFrom : public Problem {
 public:
  FailingFrom(std::unique_ptr<Problem> inner, long fail_at, RunStatus status)
      : inner_(std::move(inner)), fail_at_(fail_at), status_(status) {}
  long evaluations() const { return count_; }

  const ProblemInfo& info() const override { return inner_->info(); }
  Sizes sizes() const override { return inner_->sizes(); }
  double t_end() const override { return inner_->t_end(); }
  const nlohmann::json& params() const override { return inner_->params(); }
  void initial_state(VecRef q, VecRef v) const override { inner_->initial_state(q, v); }
  void mass_matrix(double t, CVecRef q, MatRef M) const override {
    tick();
    inner_->mass_matrix(t, q, M);
  }
  void forces(double t, CVecRef q, CVecRef v, VecRef Q) const override {
    tick();
    inner_->forces(t, q, v, Q);
  }
  void constraints(double t, CVecRef q, VecRef Phi) const override {
    tick();
    inner_->constraints(t, q, Phi);
  }
  void jacobian(double t, CVecRef q, MatRef J) const override {
    tick();
    inner_->jacobian(t, q, J);
  }
  void acceleration_rhs(double t, CVecRef q, CVecRef v, VecRef gamma) const override {
    tick();
    inner_->acceleration_rhs(t, q, v, gamma);
  }
  bool has_energy() const override { return inner_->has_energy(); }
  double energy(double t, CVecRef q, CVecRef v) const override {
    tick();
    return inner_->energy(t, q, v);
  }
  std::vector<std::string> output_names() const override { return inner_->output_names(); }
  void outputs(double t, CVecRef q, CVecRef v, VecRef y) const override {
    tick();
    inner_->outputs(t, q, v, y);
  }
  ReferenceInfo reference_info() const override { return inner_->reference_info(); }
  Mat reference_outputs(const std::vector<double>& times) const override {
    return inner_->reference_outputs(times);
  }

 private:
  void tick() const {
    ++count_;
    if (fail_at_ > 0 && count_ >= fail_at_)
      throw NumericalFailure(status_, "generated failure at evaluation " + std::to_string(count_));
  }
  std::unique_ptr<Problem> inner_;
  long fail_at_;
  RunStatus status_;
  mutable long count_ = 0;
};

RunConfig pendulum_with(const std::string& formulation, bool is_integrator, int repeat) {
  RunConfig c;
  c.problem = "simple_pendulum";
  (is_integrator ? c.integrator : c.method) = formulation;
  if (!is_integrator) c.stepper = "rk4";
  c.dt = 0.01;
  c.t_end = 0.2;
  c.sample_dt = 0.05;
  c.repeat = repeat;
  c.timing_min_s = 0.0;
  return c;
}

// The record of the run with its evaluations failing from `fail_at` on, and how many it made.
std::pair<RunRecord, long> run_failing_from(const RunConfig& config, long fail_at,
                                            RunStatus status) {
  PreparedRun run = prepare_run(config);
  auto failing = std::make_unique<FailingFrom>(std::move(run.problem), fail_at, status);
  const FailingFrom* counter = failing.get();
  run.problem = std::move(failing);
  RunResult result = execute_run(run);
  return {std::move(result.record), counter->evaluations()};
}

std::vector<std::pair<std::string, bool>> every_formulation() {
  std::vector<std::pair<std::string, bool>> formulations;
  for (const auto& entry : method_registry()) formulations.emplace_back(entry.id, false);
  for (const auto& entry : integrator_registry()) formulations.emplace_back(entry.id, true);
  return formulations;
}

TEST(NumericalFailures, AreTheRunsStatusWhereverTheyAreThrown) {
  const RunStatus statuses[] = {RunStatus::singular, RunStatus::newton_failed,
                                RunStatus::unsupported, RunStatus::diverged};
  std::mt19937 rng(20261203);
  for (const auto& [id, is_integrator] : every_formulation()) {
    // The fixed-step integrators need no tolerance; ida is adaptive.
    RunConfig untimed = pendulum_with(id, is_integrator, 0);
    if (id == "ida") untimed.abs_tol = untimed.rel_tol = 1e-6;
    RunConfig timed = untimed;
    timed.repeat = 1;
    const auto [clean, instrumented] = run_failing_from(untimed, 0, RunStatus::singular);
    const long total = run_failing_from(timed, 0, RunStatus::singular).second;
    ASSERT_EQ(clean.status, RunStatus::ok) << id << ": " << clean.message;
    ASSERT_GT(instrumented, 2) << id;
    ASSERT_GT(total, instrumented) << id << ": the repetition evaluates the model";
    // The first, second and last evaluations of the instrumented run, the first and last of the
    // repetition, and generated ones over both.
    std::vector<long> moments = {1, 2, instrumented, instrumented + 1, total};
    std::uniform_int_distribution<long> pick(1, total);
    for (int i = 0; i < 12; ++i) moments.push_back(pick(rng));
    for (const long k : moments) {
      const RunStatus status = statuses[k % 4];
      const std::string where = id + ": evaluation " + std::to_string(k) + " of " +
                                std::to_string(instrumented) + " + " +
                                std::to_string(total - instrumented) + " timed";
      RunRecord record;
      ASSERT_NO_THROW(record = run_failing_from(timed, k, status).first) << where;
      if (k <= instrumented) {
        EXPECT_EQ(record.status, status) << where << ": " << record.message;
        EXPECT_NE(record.message.find("generated failure"), std::string::npos)
            << where << ": " << record.message;
      } else {
        EXPECT_EQ(record.status, RunStatus::ok) << where << ": " << record.message;
        ASSERT_TRUE(record.timing && record.timing->note) << where;
        EXPECT_EQ(record.timing->note->rfind("not timed", 0), 0u)
            << where << ": " << *record.timing->note;
      }
    }
  }
}

}  // namespace
}  // namespace cmb::test
