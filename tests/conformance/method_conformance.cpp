// Every registered method × every registered problem: q̈ and λ agree with the dense KKT oracle
// at random consistent, regular states, and rhs allocates nothing after bind. A method that
// declares approximate accelerations (Capabilities::approximation_param) is held to the error
// bounds it states on top of the exact tolerances, and its agreement must improve along its
// declared sweep of the parameter until rounding takes over. A program with entries of its own
// (cmbench_add_conformance_tests) runs only the pairs that involve one of them: the catalog's
// own pairs are cmbench's tests' (catalog/catalog.hpp, program_entries).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "alloc_counter.hpp"
#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "core/kkt.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

using Pair = std::tuple<std::string, std::string>;  // method, problem

class MethodConformance : public ::testing::TestWithParam<Pair> {
 protected:
  void SetUp() override {
    const auto& [method_id, problem_id] = GetParam();
    problem = make_problem(problem_id, conformance_params(problem_id));
    method = make_method(method_id, nlohmann::json::object());
    // A method may refuse a problem only for a feature it declares it cannot handle.
    const Capabilities caps = find_method(method_id).capabilities;
    const Sizes s = problem->sizes();
    redundant = has_tag(*problem, "redundant");
    approximate = caps.approximate();
    const bool declared_unable = (s.mn > 0 && !caps.nonholonomic) ||
                                 (s.mu > 0 && !caps.inequality) || (redundant && !caps.redundant);
    try {
      method->bind(*problem);
    } catch (const NumericalFailure& failure) {
      ASSERT_EQ(failure.status(), RunStatus::unsupported) << failure.what();
      ASSERT_TRUE(declared_unable) << "refused without a declared reason: " << failure.what();
      GTEST_SKIP() << failure.what();
    }
    // Full-rank methods bind to redundant problems and report `singular` when run; the
    // redundancy tests (test_methods.cpp, test_references.cpp) check that.
    if (redundant && !caps.redundant) GTEST_SKIP() << "method declares no redundancy support";
    ASSERT_FALSE(declared_unable) << "accepted a problem it declares it cannot handle";
  }
  std::unique_ptr<Problem> problem;
  std::unique_ptr<Method> method;
  bool redundant = false;
  bool approximate = false;
};

std::string pair_name(const ::testing::TestParamInfo<Pair>& info) {
  return std::get<0>(info.param) + "__" + std::get<1>(info.param);
}

std::vector<Pair> all_pairs() {
  std::vector<Pair> pairs;
  const ProgramEntries& own = program_entries();
  for (const auto& m : method_registry())
    for (const auto& p : problem_registry())
      if (own.empty() || own.methods.count(m.id) || own.problems.count(p.id))
        pairs.emplace_back(m.id, p.id);
  return pairs;
}

// Both solves are backward stable; at the regular states drawn here (σ_min(J)/σ_max(J) > 1e-6)
// the accelerations of the two agree to a few hundred ε times the condition numbers involved,
// far below 1e-9 relative.
constexpr double kOracleTol = 1e-9;

// λ, and the constraint force Jᵀλ, a decade looser: λ is determined through J M⁻¹Jᵀ, whose
// condition number is the square of J M^{-1/2}'s. The force is compared where λ is not unique
// (redundant rows) and for approximate methods, which state their bounds on it.
constexpr double kForceTol = 1e-8;

Vec constraint_force(const Problem& problem, const ConsistentState& s, const Vec& lambda) {
  Mat J(problem.sizes().m(), problem.sizes().nq);
  problem.jacobian(s.t, s.q, J);
  return J.transpose() * lambda.head(J.rows());
}

// The distances of a method's q̈ and Jᵀλ from the oracle's at s, with the scales they are
// relative to (at least 1, as for every tolerance of the suite).
struct Agreement {
  double qdd_error, qdd_scale, force_error, force_scale;
};

Agreement agreement(Method& method, const Problem& problem, const ConsistentState& s,
                    const KktSolution& oracle) {
  Vec x(method.state_size()), dxdt(method.state_size());
  method.pack(s.t, s.q, s.v, x);
  method.rhs(x, dxdt, s.t);
  const Vec expected = constraint_force(problem, s, oracle.lambda);
  return {(method.accelerations() - oracle.qdd).lpNorm<Eigen::Infinity>(),
          std::max(1.0, oracle.qdd.lpNorm<Eigen::Infinity>()),
          (constraint_force(problem, s, method.multipliers()) - expected).lpNorm<Eigen::Infinity>(),
          std::max(1.0, expected.lpNorm<Eigen::Infinity>())};
}

TEST_P(MethodConformance, AgreesWithKktOracleAtConsistentStates) {
  std::mt19937 rng(11);
  int checked = 0;
  for (int attempt = 0; attempt < 20 && checked < 5; ++attempt) {
    ConsistentState s;
    if (!random_consistent_state(*problem, rng, 0.05, s, !redundant)) continue;
    ++checked;
    const KktSolution oracle = kkt_oracle(*problem, s.t, s.q, s.v);
    const Agreement a = agreement(*method, *problem, s, oracle);
    // Only a declared approximation earns bounds: exact methods keep 1e-9 and 1e-8 alone.
    const ApproximationBounds bounds =
        approximate ? method->approximation_bounds() : ApproximationBounds{};
    EXPECT_LE(a.qdd_error, kOracleTol * a.qdd_scale + bounds.accelerations.total());
    ASSERT_EQ(oracle.lambda_unique, !redundant);
    if (redundant || approximate) {  // only the force is determined, or bounded
      EXPECT_LE(a.force_error, kForceTol * a.force_scale + bounds.constraint_force.total());
      continue;
    }
    const double l_scale = std::max(1.0, oracle.lambda.lpNorm<Eigen::Infinity>());
    EXPECT_LE((method->multipliers() - oracle.lambda).lpNorm<Eigen::Infinity>(),
              kForceTol * l_scale);
  }
  EXPECT_GE(checked, 3);
}

TEST_P(MethodConformance, RhsAllocatesNothing) {
  if (!AllocationCounter::available()) GTEST_SKIP() << "malloc hook disabled under sanitizers";
  Vec q(problem->sizes().nq), v(problem->sizes().nq);
  problem->initial_state(q, v);
  Vec x(method->state_size()), dxdt(method->state_size());
  method->pack(0.0, q, v, x);
  method->rhs(x, dxdt, 0.0);  // warm-up: lazily sized internals may allocate once
  long allocations = 0;
  {
    Eigen::internal::set_is_malloc_allowed(false);
    AllocationCounter counter;
    for (int i = 0; i < 3; ++i) method->rhs(x, dxdt, 0.01 * i);
    allocations = counter.count();
    Eigen::internal::set_is_malloc_allowed(true);
  }
  EXPECT_EQ(allocations, 0);
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MethodConformance);
INSTANTIATE_TEST_SUITE_P(AllMethodsAllProblems, MethodConformance, ::testing::ValuesIn(all_pairs()),
                         pair_name);

// A method with approximate accelerations, at each value of its declared sweep of the parameter
// and at each state: within its stated bounds (on top of the exact tolerances), and, while the
// previous value's error lies above the new value's floor (exact tolerance plus rounding bound),
// closer than there by at least √r when the parameter grows r-fold — half the decades of an
// O(1/α) penalty, whose error falls r-fold once α·σ_min(J M⁻¹Jᵀ) ≫ 1 (a sweep starts there).
// Below the floor only the bounds apply: rounding has taken over. At least one step per problem
// must fall in the first regime for q̈ or for the force, or the sweep showed nothing.
class ApproximateMethodConformance : public MethodConformance {
 protected:
  // Counts a step as an improvement check when `previous` lies above the floor.
  static int improved(double previous, double error, double rate, double floor, const char* what,
                      double value) {
    if (previous / rate <= floor) return 0;
    EXPECT_LE(error, previous / rate) << what << " did not improve enough at " << value;
    return 1;
  }
};

TEST_P(ApproximateMethodConformance, ImprovesAlongItsParameterUntilRounding) {
  const std::string& id = std::get<0>(GetParam());
  const Capabilities caps = find_method(id).capabilities;
  const std::vector<double>& sweep = caps.approximation_sweep;
  ASSERT_GE(sweep.size(), 2u);
  ASSERT_TRUE(std::adjacent_find(sweep.begin(), sweep.end(), std::greater_equal<>()) == sweep.end())
      << "the sweep must increase";
  std::mt19937 rng(11);
  int checked = 0, qdd_steps = 0, force_steps = 0;
  for (int attempt = 0; attempt < 20 && checked < 5; ++attempt) {
    ConsistentState s;
    if (!random_consistent_state(*problem, rng, 0.05, s, !redundant)) continue;
    ++checked;
    const KktSolution oracle = kkt_oracle(*problem, s.t, s.q, s.v);
    Agreement previous{};
    for (std::size_t k = 0; k < sweep.size(); ++k) {
      auto m = make_method(id, {{caps.approximation_param, sweep[k]}});
      m->bind(*problem);
      const Agreement a = agreement(*m, *problem, s, oracle);
      const ApproximationBounds b = m->approximation_bounds();
      const double qdd_floor = kOracleTol * a.qdd_scale + b.accelerations.rounding;
      const double force_floor = kForceTol * a.force_scale + b.constraint_force.rounding;
      EXPECT_LE(a.qdd_error, qdd_floor + b.accelerations.approximation) << "at " << sweep[k];
      EXPECT_LE(a.force_error, force_floor + b.constraint_force.approximation) << "at " << sweep[k];
      if (k > 0) {
        const double rate = std::sqrt(sweep[k] / sweep[k - 1]);
        qdd_steps += improved(previous.qdd_error, a.qdd_error, rate, qdd_floor, "q̈", sweep[k]);
        force_steps +=
            improved(previous.force_error, a.force_error, rate, force_floor, "Jᵀλ", sweep[k]);
      }
      previous = a;
    }
  }
  EXPECT_GE(checked, 3);
  // Jᵀ(λ − λ*) = −M e: the force's error is q̈'s weighted by M, so either one improving shows the
  // O(1/α) regime. On an ill-conditioned M (spatial_chain's spans 1 to 1e-4) q̈'s rounding floor,
  // which grows like 1/μ_min(M), can cover the whole sweep while the force's does not.
  EXPECT_GE(qdd_steps + force_steps, 1) << "no step of the sweep had an error above its floor";
}

std::vector<Pair> approximate_pairs() {
  std::vector<Pair> pairs;
  for (const auto& [method, problem] : all_pairs())
    if (find_method(method).capabilities.approximate()) pairs.emplace_back(method, problem);
  return pairs;
}

// Programs without an approximate method (cmbench's own tests) instantiate it with no pairs.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ApproximateMethodConformance);
INSTANTIATE_TEST_SUITE_P(ApproximateMethods, ApproximateMethodConformance,
                         ::testing::ValuesIn(approximate_pairs()), pair_name);

}  // namespace
}  // namespace cmb::test
