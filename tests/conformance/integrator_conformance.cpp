// Every registered DAE integrator × every registered problem: it binds or refuses only what it
// declares it cannot handle, its consistent start (pack) holds the KKT oracle's q̈ and λ at random
// consistent states, a short run ends with a recorded status (and, when ok, finite metrics), and
// its residual and iteration matrix allocate nothing once bound. A program with entries of its
// own runs only the pairs that involve one of them (as method_conformance.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "alloc_counter.hpp"
#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

using Pair = std::tuple<std::string, std::string>;  // integrator, problem

// Whether the problem's M is constant and its Q free of v (what Capabilities::separable_only
// integrators need), judged at random points about its initial state: M at two configurations
// and times, Q at two velocity vectors.
bool separable(const Problem& problem) {
  const int n = problem.sizes().nq;
  Vec q(n), v(n);
  problem.initial_state(q, v);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  auto near = [&](const Vec& x, double spread) {
    Vec y = x;
    for (int j = 0; j < n; ++j) y(j) += spread * unit(rng);
    return y;
  };
  Mat m0(n, n), m1(n, n);
  problem.mass_matrix(0.1, near(q, 0.05), m0);
  problem.mass_matrix(0.6, near(q, 0.05), m1);
  Vec f0(n), f1(n);
  problem.forces(0.2, q, near(v, 0.5), f0);
  problem.forces(0.2, q, near(v, 0.5), f1);
  const double scale = m0.lpNorm<Eigen::Infinity>(), forces = f0.lpNorm<Eigen::Infinity>();
  return (m1 - m0).lpNorm<Eigen::Infinity>() <= 1e-12 * scale &&
         (f1 - f0).lpNorm<Eigen::Infinity>() <= 1e-12 * std::max(forces, 1e-300);
}

class IntegratorConformance : public ::testing::TestWithParam<Pair> {
 protected:
  void SetUp() override {
    const auto& [integrator_id, problem_id] = GetParam();
    problem = make_problem(problem_id, conformance_params(problem_id));
    integrator = make_integrator(integrator_id, nlohmann::json::object());
    const Capabilities caps = find_integrator(integrator_id).capabilities;
    const Sizes s = problem->sizes();
    redundant = has_tag(*problem, "redundant");
    const bool declared_unable = (s.mn > 0 && !caps.nonholonomic) ||
                                 (s.mu > 0 && !caps.inequality) || (redundant && !caps.redundant) ||
                                 (caps.separable_only && !separable(*problem));
    try {
      integrator->bind(*problem);
    } catch (const NumericalFailure& failure) {
      ASSERT_EQ(failure.status(), RunStatus::unsupported) << failure.what();
      ASSERT_TRUE(declared_unable) << "refused without a declared reason: " << failure.what();
      GTEST_SKIP() << failure.what();
    }
    if (redundant && !caps.redundant) GTEST_SKIP() << "integrator declares no redundancy support";
    ASSERT_FALSE(declared_unable) << "accepted a problem it declares it cannot handle";
  }
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Integrator> integrator;
  bool redundant = false;
};

std::vector<Pair> all_pairs() {
  std::vector<Pair> pairs;
  const ProgramEntries& own = program_entries();
  for (const auto& i : integrator_registry())
    for (const auto& p : problem_registry())
      if (own.empty() || own.integrators.count(i.id) || own.problems.count(p.id))
        pairs.emplace_back(i.id, p.id);
  return pairs;
}

// The start of an integration is the KKT solve at (q, v): the same backward-stable solves as the
// methods' (method_conformance.cpp), so the same tolerances.
TEST_P(IntegratorConformance, ConsistentStartHoldsTheKktSolution) {
  std::mt19937 rng(17);
  int checked = 0;
  Vec x(integrator->state_size());
  for (int attempt = 0; attempt < 20 && checked < 3; ++attempt) {
    ConsistentState s;
    if (!random_consistent_state(*problem, rng, 0.05, s, !redundant)) continue;
    ++checked;
    integrator->pack(s.t, s.q, s.v, x);
    integrator->evaluate_at(s.t, x);
    Vec q(s.q.size()), v(s.v.size());
    integrator->unpack(s.t, x, q, v);
    EXPECT_EQ(q, s.q);
    EXPECT_EQ(v, s.v);
    const KktSolution oracle = kkt_oracle(*problem, s.t, s.q, s.v);
    const double a_scale = std::max(1.0, oracle.qdd.lpNorm<Eigen::Infinity>());
    EXPECT_LE((integrator->accelerations() - oracle.qdd).lpNorm<Eigen::Infinity>(), 1e-9 * a_scale);
    if (redundant) continue;  // only Jᵀλ is determined
    const double l_scale = std::max(1.0, oracle.lambda.lpNorm<Eigen::Infinity>());
    EXPECT_LE((integrator->multipliers() - oracle.lambda).lpNorm<Eigen::Infinity>(),
              1e-8 * l_scale);
  }
  EXPECT_GE(checked, 2);
}

// A short run (50 steps of the default horizon's first 1 %, or tolerance 1e-6) through the
// harness ends with one of the statuses of docs/json_schema.md; an ok run has finite drift and
// counts its residual evaluations.
TEST_P(IntegratorConformance, AShortRunEndsWithARecordedStatus) {
  const auto& [integrator_id, problem_id] = GetParam();
  RunConfig c;
  c.problem = problem_id;
  c.problem_params = conformance_params(problem_id);
  c.problem_params.erase("t_end");
  c.integrator = integrator_id;
  c.t_end = 0.01 * problem->t_end();
  if (find_integrator(integrator_id).kind == StepperKind::fixed)
    c.dt = *c.t_end / 50;
  else
    c.abs_tol = c.rel_tol = 1e-6;
  c.sample_dt = *c.t_end / 10;
  c.compute_reference = false;  // the status and the drift are what this checks
  const nlohmann::json r = quick_run(c);
  const std::string status = r["status"];
  static const std::set<std::string> known = {"ok",          "diverged",      "step_limit",
                                              "time_limit",  "singular",      "newton_failed",
                                              "unsupported", "branch_switch", "reference_failed"};
  EXPECT_TRUE(known.count(status)) << status << ": " << r["message"];
  if (status != "ok") return;
  EXPECT_TRUE(std::isfinite(r["metrics"]["drift"]["position"]["max"].get<double>()));
  EXPECT_GT(r["work"]["rhs_calls"].get<long>(), 0);
}

TEST_P(IntegratorConformance, CallbacksAllocateNothing) {
  if (!AllocationCounter::available()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  Vec q(problem->sizes().nq), v(problem->sizes().nq);
  problem->initial_state(q, v);
  Vec x(integrator->state_size());
  integrator->pack(0.0, q, v, x);
  integrator->evaluate_callbacks(0.0, x);  // warm-up: lazily sized internals may allocate once
  long allocations = 0;
  {
    Eigen::internal::set_is_malloc_allowed(false);
    AllocationCounter counter;
    for (int i = 0; i < 3; ++i) integrator->evaluate_callbacks(0.001 * i, x);
    allocations = counter.count();
    Eigen::internal::set_is_malloc_allowed(true);
  }
  EXPECT_EQ(allocations, 0);
}

INSTANTIATE_TEST_SUITE_P(AllIntegratorsAllProblems, IntegratorConformance,
                         ::testing::ValuesIn(all_pairs()), [](const auto& info) {
                           return std::get<0>(info.param) + "__" + std::get<1>(info.param);
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(IntegratorConformance);

}  // namespace
}  // namespace cmb::test
