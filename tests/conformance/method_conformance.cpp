// Every registered method × every registered problem: q̈ and λ agree with the dense KKT oracle
// at random consistent, regular states, and rhs allocates nothing after bind.
#include <gtest/gtest.h>

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
};

std::vector<Pair> all_pairs() {
  std::vector<Pair> pairs;
  for (const auto& m : method_registry())
    for (const auto& p : problem_registry()) pairs.emplace_back(m.id, p.id);
  return pairs;
}

// Both solves are backward stable; at the regular states drawn here (σ_min(J)/σ_max(J) > 1e-6)
// the accelerations of the two agree to a few hundred ε times the condition numbers involved,
// far below 1e-9 relative.
constexpr double kOracleTol = 1e-9;

TEST_P(MethodConformance, AgreesWithKktOracleAtConsistentStates) {
  std::mt19937 rng(11);
  int checked = 0;
  Vec x(method->state_size()), dxdt(method->state_size());
  for (int attempt = 0; attempt < 20 && checked < 5; ++attempt) {
    ConsistentState s;
    if (!random_consistent_state(*problem, rng, 0.05, s, !redundant)) continue;
    ++checked;
    method->pack(s.t, s.q, s.v, x);
    method->rhs(x, dxdt, s.t);
    const KktSolution oracle = kkt_oracle(*problem, s.t, s.q, s.v);
    const double a_scale = std::max(1.0, oracle.qdd.lpNorm<Eigen::Infinity>());
    EXPECT_LE((method->accelerations() - oracle.qdd).lpNorm<Eigen::Infinity>(),
              kOracleTol * a_scale);
    ASSERT_EQ(oracle.lambda_unique, !redundant);
    if (redundant) {
      // Only the constraint force Jᵀλ is determined.
      Mat J(problem->sizes().m(), problem->sizes().nq);
      problem->jacobian(s.t, s.q, J);
      const Vec force = J.transpose() * method->multipliers().head(J.rows());
      const Vec expected = J.transpose() * oracle.lambda;
      EXPECT_LE((force - expected).lpNorm<Eigen::Infinity>(),
                1e-8 * std::max(1.0, expected.lpNorm<Eigen::Infinity>()));
      continue;
    }
    const double l_scale = std::max(1.0, oracle.lambda.lpNorm<Eigen::Infinity>());
    EXPECT_LE((method->multipliers() - oracle.lambda).lpNorm<Eigen::Infinity>(), 1e-8 * l_scale);
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

INSTANTIATE_TEST_SUITE_P(AllMethodsAllProblems, MethodConformance, ::testing::ValuesIn(all_pairs()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "__" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace cmb::test
