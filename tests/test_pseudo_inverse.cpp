// core/pseudo_inverse.hpp against an independent Moore–Penrose inverse (Eigen's
// CompleteOrthogonalDecomposition with the same threshold) and against the definition of a null
// space basis (AN = 0, NᵀN = I). Matrices: rows scaled over three decades, so κ(A) stays below
// ~1e4 in the full-rank cases; backward-stable solves then agree to ~κ·ε ≈ 1e-12 relative, and
// 1e-10 is asked. The rank-deficient cases duplicate combinations of rows exactly.
#include <gtest/gtest.h>

#include <random>

#include "core/pseudo_inverse.hpp"

namespace cmb {
namespace {

Mat random_matrix(int rows, int cols, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Mat A(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) A(i, j) = normal(rng) * std::pow(10.0, 3.0 * i / rows);
  return A;
}

Vec random_vector(int size, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  Vec v(size);
  for (int i = 0; i < size; ++i) v(i) = normal(rng);
  return v;
}

// Compares x = A⁺b and y = (Aᵀ)⁺c with the reference, and the null-space basis.
void expect_matches_reference(const Mat& A, PseudoInverse& pinv, int expected_rank,
                              std::mt19937& rng) {
  const int m = static_cast<int>(A.rows()), n = static_cast<int>(A.cols());
  Eigen::CompleteOrthogonalDecomposition<Mat> cod(A);
  cod.setThreshold(1e-10);
  ASSERT_EQ(cod.rank(), expected_rank);
  const Mat reference = cod.pseudoInverse();
  const Vec b = random_vector(m, rng), c = random_vector(n, rng);
  Vec x(n), y(m);
  pinv.solve(b, x);
  pinv.solve_transposed(c, y);
  const Vec x_ref = reference * b, y_ref = reference.transpose() * c;
  EXPECT_LT((x - x_ref).norm(), 1e-10 * x_ref.norm()) << m << "×" << n;
  EXPECT_LT((y - y_ref).norm(), 1e-10 * y_ref.norm()) << m << "×" << n;
  if (m > n) return;
  Mat N(n, n);
  pinv.null_space(N);
  const int k = n - pinv.rank();
  EXPECT_LT((A * N.leftCols(k)).norm(), 1e-12 * A.norm()) << m << "×" << n;
  EXPECT_LT((N.leftCols(k).transpose() * N.leftCols(k) - Mat::Identity(k, k)).norm(), 1e-13);
}

TEST(PseudoInverse, FullRankIsCertifiedWithoutAnSvdAndMatchesTheReference) {
  std::mt19937 rng(7);
  for (const auto& [m, n] : {std::pair{1, 3}, {8, 9}, {10, 20}, {6, 6}, {40, 45}}) {
    const Mat A = random_matrix(m, n, rng);
    PseudoInverse pinv;
    pinv.bind(m, n);
    pinv.compute(A, 1e-10, 1e-5, m);
    EXPECT_FALSE(pinv.used_svd()) << m << "×" << n;
    EXPECT_EQ(pinv.rank(), m);
    EXPECT_EQ(pinv.confident_rank(), m);
    // The certified bound is a lower bound of σ_m.
    Eigen::JacobiSVD<Mat> svd(A);
    EXPECT_LE(pinv.smallest_kept_singular_value_bound(), svd.singularValues()(m - 1) * 1.000001);
    expect_matches_reference(A, pinv, m, rng);
  }
}

TEST(PseudoInverse, RankDeficiencyTakesTheSvdAndDropsTheDependentRows) {
  std::mt19937 rng(11);
  for (const auto& [m, n] : {std::pair{5, 5}, {6, 9}, {9, 6}}) {
    Mat A = random_matrix(m, n, rng);
    A.row(m - 1) = 2.0 * A.row(0) - A.row(1);  // rank m − 1 (at most n)
    const int rank = std::min(m - 1, n);
    PseudoInverse pinv;
    pinv.bind(m, n);
    pinv.compute(A, 1e-10, 1e-5, m);
    EXPECT_TRUE(pinv.used_svd());
    EXPECT_EQ(pinv.rank(), rank) << m << "×" << n;
    expect_matches_reference(A, pinv, rank, rng);
  }
}

// A rank cap below the full rank: the smallest singular direction is dropped, as the SVD with
// that many kept values would do (the rank hold of the acceleration methods relies on it).
TEST(PseudoInverse, ARankCapDropsTheSmallestSingularDirection) {
  std::mt19937 rng(13);
  const Mat A = random_matrix(4, 7, rng);
  PseudoInverse pinv;
  pinv.bind(4, 7);
  pinv.compute(A, 1e-10, 1e-5, 3);
  EXPECT_TRUE(pinv.used_svd());
  EXPECT_EQ(pinv.rank(), 3);
  Eigen::JacobiSVD<Mat> svd(A, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Vec b = random_vector(4, rng);
  const Vec s = svd.singularValues();
  const Vec expected = svd.matrixV().leftCols(3) *
                       (svd.matrixU().leftCols(3).transpose() * b).cwiseQuotient(s.head(3));
  Vec x(7);
  pinv.solve(b, x);
  EXPECT_LT((x - expected).norm(), 1e-10 * expected.norm());
}

// Singular values between the two thresholds: rank counts at rel_tol, not at confident_tol, and
// the certificate must not claim full confidence.
TEST(PseudoInverse, ANearlyDependentRowIsCountedButNotConfident) {
  std::mt19937 rng(17);
  Mat A = random_matrix(5, 8, rng);
  A.row(4) = A.row(0) + 1e-7 * A.row(4).normalized() * A.row(0).norm();
  PseudoInverse pinv;
  pinv.bind(5, 8);
  pinv.compute(A, 1e-10, 1e-5, 5);
  EXPECT_TRUE(pinv.used_svd());
  EXPECT_EQ(pinv.rank(), 5);
  EXPECT_EQ(pinv.confident_rank(), 4);
}

}  // namespace
}  // namespace cmb
