// The two implementations of the range-space KKT solve (core/schur_kkt.hpp): the plain-loop
// kernel for n, m ≤ 16 and the generic Eigen path, against the dense KKT oracle and each other.
// Tolerances: the systems below have well-conditioned M (eigenvalues in [1, ~10]) and J with
// singular values O(1)…O(10³), so KKT condition numbers stay below ~1e7 and backward-stable
// solves agree with the oracle far below the 1e-8 relative bound used (1e-16 · 1e7 = 1e-9).
#include <gtest/gtest.h>

#include <random>

#include "core/kkt.hpp"
#include "methods/base/schur_kkt_method.hpp"

namespace cmb {
namespace {

struct System {
  Mat M, J;
  Vec Q, gamma;
};

// M symmetric positive definite, J with rows scaled over three decades (so the pivoted LDLᵀ
// of J M⁻¹Jᵀ really reorders), Q and γ random.
System random_system(int n, int m, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  auto random_matrix = [&](int rows, int cols) {
    Mat A(rows, cols);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) A(i, j) = normal(rng);
    return A;
  };
  System s;
  const Mat A = random_matrix(n, n);
  s.M = A * A.transpose() / n + Mat::Identity(n, n);
  s.J = random_matrix(m, n);
  for (int i = 0; i < m; ++i) s.J.row(i) *= std::pow(10.0, 3.0 * i / std::max(1, m - 1) - 1.0);
  s.Q = random_matrix(n, 1);
  s.gamma = random_matrix(m, 1);
  return s;
}

struct Solution {
  SchurOutcome outcome;
  Vec qdd, lambda;
};

Solution solve(const System& s, bool generic_only, RankPolicy policy = RankPolicy::fail,
               double softness = 0.0) {
  const int n = static_cast<int>(s.M.rows()), m = static_cast<int>(s.J.rows());
  SchurKktSolver solver;
  solver.bind(n, m, generic_only);
  Solution out{SchurOutcome::full_rank, Vec::Zero(n), Vec::Zero(m)};
  out.outcome =
      solver.try_solve(s.M, s.J, s.Q, s.gamma, 1e-12, policy, out.qdd, out.lambda, softness);
  return out;
}

double relative_difference(const Vec& a, const Vec& b) {
  return (a - b).norm() / std::max(1.0, b.norm());
}

TEST(SmallSchurKernel, SizesItTakes) {
  EXPECT_TRUE(SmallSchurKernel::fits(2, 1));
  EXPECT_TRUE(SmallSchurKernel::fits(16, 16));
  EXPECT_FALSE(SmallSchurKernel::fits(17, 1));
  EXPECT_FALSE(SmallSchurKernel::fits(2, 17));
}

TEST(SmallSchurKernel, FullRankSystemsMatchTheOracleAndTheGenericPath) {
  std::mt19937 rng(7);
  // Every compile-time instance (n ≤ 4, 1 ≤ m ≤ n) and run-time sizes up to the limit.
  const std::pair<int, int> sizes[] = {{1, 0}, {1, 1}, {2, 1},  {2, 2},   {3, 1}, {3, 2},
                                       {3, 3}, {4, 1}, {4, 2},  {4, 3},   {4, 4}, {5, 5},
                                       {7, 6}, {9, 8}, {16, 5}, {16, 16}, {12, 3}};
  for (const auto& [n, m] : sizes)
    for (int trial = 0; trial < 5; ++trial) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
      const System s = random_system(n, m, rng);
      const KktSolution oracle = kkt_oracle(s.M, s.J, s.Q, s.gamma);
      const Solution small = solve(s, false), generic = solve(s, true);
      ASSERT_EQ(small.outcome, SchurOutcome::full_rank);
      ASSERT_EQ(generic.outcome, SchurOutcome::full_rank);
      EXPECT_LT(relative_difference(small.qdd, oracle.qdd), 1e-8);
      EXPECT_LT(relative_difference(small.lambda, oracle.lambda), 1e-8);
      EXPECT_LT(relative_difference(generic.qdd, oracle.qdd), 1e-8);
      EXPECT_LT(relative_difference(small.lambda, generic.lambda), 1e-8);
    }
}

TEST(SmallSchurKernel, SoftConstraintsMatchTheGenericPath) {
  // No oracle for the regularized system: the generic path is the independent implementation.
  std::mt19937 rng(11);
  for (double softness : {1e-3, 0.1, 1.0}) {
    const System s = random_system(9, 8, rng);
    const Solution small = solve(s, false, RankPolicy::fail, softness);
    const Solution generic = solve(s, true, RankPolicy::fail, softness);
    ASSERT_EQ(small.outcome, SchurOutcome::full_rank);
    EXPECT_LT(relative_difference(small.qdd, generic.qdd), 1e-10);
    EXPECT_LT(relative_difference(small.lambda, generic.lambda), 1e-10);
    // Softness changes the answer: a test that could not tell the two systems apart is void.
    EXPECT_GT(relative_difference(small.lambda, solve(s, false).lambda), softness * 1e-3);
  }
}

// J with a repeated row (times 2) and γ consistent with it: λ is not unique, q̈ and Jᵀλ are.
System redundant_system(int n, int m, std::mt19937& rng) {
  System s = random_system(n, m, rng);
  s.J.row(m - 1) = 2.0 * s.J.row(0);
  s.gamma(m - 1) = 2.0 * s.gamma(0);
  return s;
}

TEST(SmallSchurKernel, RankLossFailsOrTruncatesLikeTheGenericPath) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 6; ++trial) {
    const System s = trial % 2 ? redundant_system(6, 4, rng) : redundant_system(4, 3, rng);
    EXPECT_EQ(solve(s, false).outcome, SchurOutcome::rank_deficient);
    EXPECT_EQ(solve(s, true).outcome, SchurOutcome::rank_deficient);
    const KktSolution oracle = kkt_oracle(s.M, s.J, s.Q, s.gamma);
    for (bool generic_only : {false, true}) {
      const Solution truncated = solve(s, generic_only, RankPolicy::truncate);
      ASSERT_EQ(truncated.outcome, SchurOutcome::truncated);
      EXPECT_LT(relative_difference(truncated.qdd, oracle.qdd), 1e-8);
      const Vec force = s.J.transpose() * truncated.lambda;
      EXPECT_LT(relative_difference(force, s.J.transpose() * oracle.lambda), 1e-8);
    }
  }
}

// More rows than coordinates (m > n: necessarily redundant), with γ in J's range so that the
// system is consistent: these sizes take the run-time kernel, whatever n and m are.
TEST(SmallSchurKernel, MoreRowsThanCoordinatesTruncateToTheOracle) {
  std::mt19937 rng(13);
  const std::pair<int, int> sizes[] = {{1, 9}, {2, 9}, {3, 12}, {2, 3}, {4, 16}};
  for (const auto& [n, m] : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n) + ", m = " + std::to_string(m));
    System s = random_system(n, m, rng);
    s.gamma = s.J * random_system(n, 1, rng).Q;  // consistent: γ = J z
    const KktSolution oracle = kkt_oracle(s.M, s.J, s.Q, s.gamma);
    EXPECT_EQ(solve(s, false).outcome, SchurOutcome::rank_deficient);
    const Solution truncated = solve(s, false, RankPolicy::truncate);
    ASSERT_EQ(truncated.outcome, SchurOutcome::truncated);
    EXPECT_LT(relative_difference(truncated.qdd, oracle.qdd), 1e-8);
  }
}

TEST(SmallSchurKernel, ZeroJacobianIsRankLossNotADivisionByZero) {
  std::mt19937 rng(5);
  System s = random_system(3, 2, rng);
  s.J.setZero();
  s.gamma.setZero();
  EXPECT_EQ(solve(s, false).outcome, SchurOutcome::rank_deficient);
  EXPECT_EQ(solve(s, true).outcome, SchurOutcome::rank_deficient);
  const Solution truncated = solve(s, false, RankPolicy::truncate);
  ASSERT_EQ(truncated.outcome, SchurOutcome::truncated);
  EXPECT_TRUE(truncated.lambda.isZero());
  EXPECT_LT(relative_difference(truncated.qdd, s.M.llt().solve(s.Q)), 1e-12);
}

TEST(SmallSchurKernel, MassMatrixThatIsNotPositiveDefiniteIsReported) {
  std::mt19937 rng(9);
  System s = random_system(4, 2, rng);
  s.M(2, 2) = -1.0;
  EXPECT_EQ(solve(s, false).outcome, SchurOutcome::mass_not_positive_definite);
  EXPECT_EQ(solve(s, true).outcome, SchurOutcome::mass_not_positive_definite);
  s.M(2, 2) = std::nan("");
  EXPECT_EQ(solve(s, false).outcome, SchurOutcome::mass_not_positive_definite);
}

}  // namespace
}  // namespace cmb
