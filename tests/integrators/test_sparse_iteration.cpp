// The index-3 integrators' sparse iteration matrices (integrators/base/sparse_lu.hpp) and their
// Newton matrix reuse: KLU's solves against the matrices they factor over generated sparse
// saddle-point systems, the sparse and dense paths on the same run, the problems' analytic
// tangents in place of difference quotients, a matrix carried over from earlier steps at the
// same accuracy, and the sizes only the sparse path reaches.
#include <Eigen/Dense>
#include <cmath>
#include <random>
#include <stdexcept>

#include "fixed_step_support.hpp"
#include "integrators/base/sparse_lu.hpp"

namespace cmb::test {
namespace {

// A generated sparse saddle-point matrix [A Bᵀ; B 0] (A: a random sparse diagonally dominant
// block, B: random sparse rows with one guaranteed entry each, full row rank with probability 1),
// the structure of generalized_alpha's iteration matrix, as a dense matrix.
Mat saddle_point_matrix(std::mt19937& rng, int n, int m) {
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::bernoulli_distribution sparse_entry(3.0 / n);
  Mat K = Mat::Zero(n + m, n + m);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (i != j && sparse_entry(rng)) K(i, j) = unit(rng);
    K(i, i) = 4.0 + unit(rng);
  }
  for (int r = 0; r < m; ++r) {
    for (int j = 0; j < n; ++j)
      if (sparse_entry(rng)) K(n + r, j) = unit(rng);
    K(n + r, r % n) = 1.0 + std::abs(unit(rng));
  }
  K.topRightCorner(n, m) = K.bottomLeftCorner(m, n).transpose();
  return K;
}

// Sends K's nonzeros to `lu`, each split into two entries (sums at one position must add).
void send(const Mat& K, SparseLu& lu) {
  lu.begin();
  for (int j = 0; j < K.cols(); ++j)
    for (int i = 0; i < K.rows(); ++i)
      if (K(i, j) != 0.0) {
        lu.add(i, j, 0.25 * K(i, j));
        lu.add(i, j, 0.75 * K(i, j));
      }
}

// Backward stability: KLU's threshold partial pivoting (tolerance 1e-3) bounds the growth, so a
// solve's residual is of the order of n·ε·‖K‖·‖x‖ times a moderate growth factor; 1e-10 relative
// leaves a margin of 1e3 over 60 unknowns at ε = 2.2e-16 with growth up to 10, while a wrong
// slot, a dropped duplicate or a stale pivot sequence leaves O(1).
double relative_residual(const Mat& K, const Vec& x, const Vec& b) {
  return (K * x - b).lpNorm<Eigen::Infinity>() /
         (K.lpNorm<Eigen::Infinity>() * std::max(1.0, x.lpNorm<Eigen::Infinity>()));
}

TEST(SparseLu, SolvesItsMatricesAcrossRefactorizationsOverGeneratedCases) {
  std::mt19937 rng(29);
  std::uniform_int_distribution<int> size(1, 40);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = size(rng);
    const int m = std::uniform_int_distribution<int>(0, n)(rng);
    Mat K = saddle_point_matrix(rng, n, m);
    SparseLu lu;
    lu.reset(n + m);
    // The same pattern with three sets of values: the first factorization pivots, the later
    // ones refactorize (or pivot anew when the old pivots no longer serve).
    for (int round = 0; round < 3; ++round) {
      if (round > 0)
        for (int j = 0; j < K.cols(); ++j)
          for (int i = 0; i < K.rows(); ++i)
            if (K(i, j) != 0.0 && (i < n || j < n)) K(i, j) *= 1.0 + 0.5 * std::sin(i + 3.0 * j);
      K.topRightCorner(n, m) = K.bottomLeftCorner(m, n).transpose();
      send(K, lu);
      const double ratio = lu.factorize();
      ASSERT_GT(ratio, 0.0) << "trial " << trial << ", n = " << n << ", m = " << m;
      Vec b = Vec::LinSpaced(n + m, -1.0, 2.0);
      Vec x = b;
      lu.solve_in_place(x);
      EXPECT_LT(relative_residual(K, x, b), 1e-10)
          << "trial " << trial << " round " << round << ", n = " << n << ", m = " << m;
    }
  }
}

TEST(SparseLu, RefusesAnEntrySequenceThatDiffersFromThePattern) {
  std::mt19937 rng(3);
  const Mat K = saddle_point_matrix(rng, 6, 2);
  SparseLu lu;
  lu.reset(8);
  send(K, lu);
  lu.factorize();
  send(K, lu);
  lu.add(0, 0, 1.0);  // one entry more than the pattern holds
  EXPECT_THROW(lu.factorize(), std::logic_error);
}

// A vanishing pivot (a singular matrix: a zero column) gives ratio 0, the integrators' singular
// status, not a crash.
TEST(SparseLu, ReportsASingularMatrixByAZeroPivotRatio) {
  Mat K = Mat::Identity(4, 4);
  K(2, 2) = 0.0;
  K(0, 2) = 0.0;
  SparseLu lu;
  lu.reset(4);
  lu.begin();
  for (int i = 0; i < 4; ++i) lu.add(i, i, K(i, i));
  EXPECT_EQ(lu.factorize(), 0.0);
}

nlohmann::json four_bar_run(const std::string& integrator, nlohmann::json params, int n,
                            double t_end, double dt = 1e-3) {
  RunConfig c;
  c.problem = "n_four_bar";
  c.problem_params = {{"N", n}};
  c.integrator = integrator;
  c.method_params = std::move(params);
  c.dt = dt;
  c.t_end = t_end;
  return quick_run(c);
}

double output_error(const nlohmann::json& r, const char* output) {
  return r["metrics"]["error"]["outputs"][output]["max_abs"].get<double>();
}

// The same run through both linear solvers: each step's Newton solution meets tol·ℓ = 1e-12·4 m
// whichever factorization solved it, so over 500 steps before the first singular position the
// positions may part by at most about 500 such errors (2e-9), below the scheme's own error
// (1e-6 here): 1e-8 bounds the difference, while a wrong entry of the sparse matrix would leave
// Newton unconverged (newton_failed) or the error at the scheme's level. Velocities are not
// compared: ali3p's come from q through (2/h)Δq, which multiplies those differences by 2000.
TEST(SparseIteration, SparseAndDensePathsGiveTheSameRun) {
  for (const char* integrator : {"generalized_alpha", "ali3p"}) {
    nlohmann::json params = {{"tol", 1e-12}};
    params["linear_solver"] = "dense";
    const auto dense = four_bar_run(integrator, params, 4, 0.5);
    params["linear_solver"] = "sparse";
    const auto sparse = four_bar_run(integrator, params, 4, 0.5);
    ASSERT_EQ(dense["status"], "ok") << integrator << ": " << dense["message"];
    ASSERT_EQ(sparse["status"], "ok") << integrator << ": " << sparse["message"];
    for (const char* output : {"B0_x", "B0_y"})
      EXPECT_NEAR(output_error(sparse, output), output_error(dense, output), 1e-8)
          << integrator << " " << output;
    EXPECT_EQ(sparse["work"]["steps_accepted"], dense["work"]["steps_accepted"]);
  }
}

// With the problem's own tangents a Newton iteration evaluates the residual once and nothing
// else (rhs_calls = newton_iterations); with difference quotients (andrews_squeezer declares no
// tangents) every matrix costs 2n + 1 more force evaluations.
TEST(SparseIteration, AnalyticTangentsReplaceTheDifferenceQuotients) {
  const auto tangents = four_bar_run("generalized_alpha", {{"linear_solver", "dense"}}, 2, 0.05);
  ASSERT_EQ(tangents["status"], "ok") << tangents["message"];
  EXPECT_EQ(tangents["work"]["rhs_calls"], tangents["work"]["method"]["newton_iterations"]);

  RunConfig c;
  c.problem = "andrews_squeezer";
  c.integrator = "generalized_alpha";
  c.dt = 1e-5;
  c.t_end = 1e-3;
  const auto quotients = quick_run(c);
  ASSERT_EQ(quotients["status"], "ok") << quotients["message"];
  const long n = 7;
  EXPECT_EQ(quotients["work"]["rhs_calls"].get<long>(),
            quotients["work"]["method"]["newton_iterations"].get<long>() +
                (2 * n + 1) * quotients["work"]["jacobian_evaluations"].get<long>());
}

TEST(SparseIteration, TheSparsePathNamesWhatAProblemLacks) {
  for (const char* integrator : {"generalized_alpha", "ali3p"}) {
    RunConfig c;
    c.integrator = integrator;
    c.method_params = {{"linear_solver", "sparse"}};
    c.dt = 1e-3;
    c.t_end = 0.01;
    c.problem = "andrews_squeezer";  // sparse entries, no residual tangents
    auto r = quick_run(c);
    EXPECT_EQ(r["status"], "unsupported");
    EXPECT_NE(r["message"].get<std::string>().find("no residual tangents"), std::string::npos)
        << r["message"];
    c.problem = "simple_pendulum";  // neither
    r = quick_run(c);
    EXPECT_EQ(r["status"], "unsupported");
    EXPECT_NE(r["message"].get<std::string>().find("no sparse evaluation"), std::string::npos)
        << r["message"];
  }
}

// generalized_alpha's matrix carried over from earlier steps (iteration_matrix = kept): at most
// half as many matrices as forming one per step, and the same run to within the Newton
// tolerance's accumulation (1000 steps of 1e-10 of the pendulum's 1 m: 1e-7, bound 1e-6).
TEST(SparseIteration, AKeptMatrixFormsFewerMatricesAtTheSameAccuracy) {
  const char* const integrator = "generalized_alpha";
  const auto kept = pendulum_run(integrator, 1e-3, 1.0, {{"iteration_matrix", "kept"}});
  const auto fresh = pendulum_run(integrator, 1e-3, 1.0, {{"iteration_matrix", "per_step"}});
  EXPECT_LT(2 * kept["work"]["jacobian_evaluations"].get<long>(),
            fresh["work"]["jacobian_evaluations"].get<long>());
  EXPECT_NEAR(position_error(kept), position_error(fresh), 1e-6);
}

// The dense path refuses more than 1000 coordinates; the sparse path runs IFToMM A02 at
// N = 1000 (6003 coordinates), its start and samples through the sparse KKT solver.
TEST(SparseIteration, TheSparsePathRunsBeyondTheDenseLimit) {
  for (const char* integrator : {"generalized_alpha", "ali3p"}) {
    const auto dense = four_bar_run(integrator, {{"linear_solver", "dense"}}, 1000, 0.002);
    EXPECT_EQ(dense["status"], "unsupported") << integrator;
    const auto sparse = four_bar_run(integrator, nlohmann::json::object(), 1000, 0.002);
    EXPECT_EQ(sparse["status"], "ok") << integrator << ": " << sparse["message"];
    EXPECT_LT(sparse["metrics"]["drift"]["position"]["max"].get<double>(), 1e-6) << integrator;
  }
}

}  // namespace
}  // namespace cmb::test
