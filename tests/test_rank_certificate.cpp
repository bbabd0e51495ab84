// SparseKktSolver::singular_value_bounds — the full-rank certificate of the pseudo-inverse
// methods' sparse path — against singular values computed densely, independently of the sparse
// factorization: Eigen's JacobiSVD of J M^{-1/2} and the eigenvalues of M.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/SVD>
#include <cmath>
#include <random>

#include "catalog/catalog.hpp"
#include "core/sparse_kkt.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

struct Factored {
  SparseKktSolver solver;
  Mat M, J;
};

// The problem's state with every coordinate moved by up to `spread` (J need not be consistent:
// the bounds are about the matrices, not the motion).
void factor_at(const Problem& problem, double spread, unsigned seed, Factored& f) {
  const Sizes s = problem.sizes();
  Vec q(s.nq), v(s.nq);
  problem.initial_state(q, v);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> shift(-spread, spread);
  for (int i = 0; i < s.nq; ++i) q(i) += shift(rng);
  f.solver.bind(problem);
  ASSERT_TRUE(f.solver.evaluate(0.0, q));
  ASSERT_TRUE(f.solver.factorize_quasi_definite());
  f.M.setZero(s.nq, s.nq);
  f.J.setZero(s.m(), s.nq);
  problem.mass_matrix(0.0, q, f.M);
  problem.jacobian(0.0, q, f.J);
}

// Singular values of B = J L⁻ᵀ (M = LLᵀ): those of J M^{-1/2}, descending.
Vec scaled_jacobian_singular_values(const Mat& M, const Mat& J) {
  const Eigen::LLT<Mat> llt(M);
  const Mat B = llt.matrixL().solve(J.transpose()).transpose();
  return Eigen::JacobiSVD<Mat>(B).singularValues();
}

// The bounds hold for the computed factor, whose product differs from J M⁻¹Jᵀ by rounding
// relative to its norm; at these well-conditioned states (κ(B) < 1e3) that moves a singular
// value of B by far less than 1e-9 relative.
constexpr double kRounding = 1e-9;

TEST(RankCertificate, BoundsEncloseTheSingularValuesOnEveryProblemWithEntries) {
  const std::vector<std::pair<std::string, nlohmann::json>> problems = {
      {"crank_rocker", {}},       {"slider_crank", {}},       {"andrews_squeezer", {}},
      {"n_pendulum", {{"N", 6}}}, {"n_four_bar", {{"N", 4}}},
  };
  for (const auto& [id, params] : problems)
    for (unsigned seed = 1; seed <= 5; ++seed) {
      const auto problem = make_problem(id, params);
      ASSERT_TRUE(problem->has_sparse_evaluation()) << id;
      Factored f;
      factor_at(*problem, seed == 1 ? 0.0 : 0.05, seed, f);
      const Vec sigma = scaled_jacobian_singular_values(f.M, f.J);
      const double m = static_cast<double>(sigma.size());
      const auto b = f.solver.singular_value_bounds(SparseKktSolver::Block::multipliers);
      SCOPED_TRACE(id + " seed " + std::to_string(seed));
      EXPECT_GE(b.largest, sigma(0) * (1 - kRounding));
      EXPECT_LE(b.largest, std::sqrt(m) * sigma(0) * (1 + kRounding));  // ‖C‖_F ≤ √m σ_max
      EXPECT_LE(b.smallest, sigma(sigma.size() - 1) * (1 + kRounding));
      EXPECT_GT(b.smallest, 0.0);
      const Vec mass = Eigen::SelfAdjointEigenSolver<Mat>(f.M).eigenvalues();  // ascending
      const auto c = f.solver.singular_value_bounds(SparseKktSolver::Block::coordinates);
      EXPECT_GE(c.largest, std::sqrt(mass(mass.size() - 1)) * (1 - kRounding));
      EXPECT_LE(c.smallest, std::sqrt(mass(0)) * (1 + kRounding));
    }
}

// Where the certificate is exact: a diagonal M (n_pendulum's point masses), and a bidiagonal
// factor — the chain's J M⁻¹Jᵀ is tridiagonal — whose inverse has entries that are products of
// its off-diagonals, so |L⁻¹| equals the inverse of the comparison matrix and the 1- and ∞-norms
// of C⁻¹ come out exactly: the bound is then 1/√(‖C⁻¹‖₁‖C⁻¹‖∞) of the dense Cholesky factor.
TEST(RankCertificate, ExactForADiagonalMassAndForAChainsBidiagonalFactor) {
  const auto linkage = make_problem("crank_rocker", {});  // diagonal M: masses and inertias
  Factored l;
  factor_at(*linkage, 0.0, 1, l);
  const auto c = l.solver.singular_value_bounds(SparseKktSolver::Block::coordinates);
  ASSERT_TRUE(l.M.isDiagonal(0.0));
  EXPECT_NEAR(c.smallest / std::sqrt(l.M.diagonal().minCoeff()), 1.0, 1e-14);
  EXPECT_NEAR(c.largest / std::sqrt(l.M.diagonal().maxCoeff()), 1.0, 1e-14);

  const auto chain = make_problem("n_pendulum", {{"N", 8}});
  Factored f;
  factor_at(*chain, 0.1, 7, f);

  const Mat G = f.J * f.M.diagonal().cwiseInverse().asDiagonal() * f.J.transpose();
  const Mat C = Eigen::LLT<Mat>(G).matrixL();
  const Mat C_inv = C.inverse();
  auto norm_1 = [](const Mat& A) { return A.cwiseAbs().colwise().sum().maxCoeff(); };
  auto norm_inf = [](const Mat& A) { return A.cwiseAbs().rowwise().sum().maxCoeff(); };
  const auto b = f.solver.singular_value_bounds(SparseKktSolver::Block::multipliers);
  EXPECT_NEAR(b.smallest * std::sqrt(norm_1(C_inv) * norm_inf(C_inv)), 1.0, 1e-10);
  const double largest = std::min(C.norm(), std::sqrt(norm_1(C) * norm_inf(C)));
  EXPECT_NEAR(b.largest / largest, 1.0, 1e-10);
}

}  // namespace
}  // namespace cmb::test
