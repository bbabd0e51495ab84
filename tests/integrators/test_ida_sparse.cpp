// ida's sparse path (integrators/base/ida_sparse_matrix.hpp): the column colouring over generated
// patterns, the sparse residual and iteration matrix against the dense ones at random states, the
// same run through both linear solvers, a matrix's cost that does not grow with the chain, the
// sizes only the sparse path reaches, and what it refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.hpp"
#include "harness/run/run.hpp"
#include "integrators/base/ida_residual.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

using Entries = std::vector<std::pair<int, int>>;

// Greedy colouring: no two columns of a colour share a row, every column with entries has a
// colour and the others none, and at most Δ + 1 colours, Δ the most columns any one column
// shares a row with (a greedy colouring never needs more).
TEST(ColourColumns, NoTwoColumnsOfAColourShareARowOverGeneratedPatterns) {
  std::mt19937 rng(31);
  for (int trial = 0; trial < 200; ++trial) {
    const int rows = std::uniform_int_distribution<int>(1, 30)(rng);
    const int columns = std::uniform_int_distribution<int>(1, 30)(rng);
    std::bernoulli_distribution present(std::uniform_real_distribution<double>(0.02, 0.5)(rng));
    Entries entries;
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < columns; ++c)
        if (present(rng)) entries.emplace_back(r, c);
    std::shuffle(entries.begin(), entries.end(), rng);
    if (!entries.empty()) entries.push_back(entries.front());  // a duplicate entry
    const std::vector<int> colour = colour_columns(columns, entries);
    ASSERT_EQ(static_cast<int>(colour.size()), columns);
    std::vector<std::set<int>> row_columns(rows), neighbours(columns);
    for (const auto& [r, c] : entries) row_columns[r].insert(c);
    for (const auto& in_row : row_columns)
      for (int a : in_row)
        for (int b : in_row)
          if (a != b) neighbours[a].insert(b);
    std::set<int> has_entries;
    for (const auto& [r, c] : entries) has_entries.insert(c);
    std::size_t degree = 0;
    for (const auto& n : neighbours) degree = std::max(degree, n.size());
    for (int c = 0; c < columns; ++c) {
      EXPECT_EQ(colour[c] >= 0, has_entries.count(c) == 1) << "trial " << trial;
      EXPECT_LE(colour[c], static_cast<int>(degree)) << "trial " << trial;
      for (int other : neighbours[c]) EXPECT_NE(colour[c], colour[other]) << "trial " << trial;
    }
  }
}

// A random state near the problem's start: q moved by 1e-3 of its size (Φ need not hold: the
// matrices are defined everywhere), v, y' and the multipliers random of order one.
void random_state(const Problem& problem, const IdaResidual& system, std::mt19937& rng, Vec& y,
                  Vec& yp) {
  std::normal_distribution<double> normal;
  const int n = system.n();
  Vec q(n), v(n);
  problem.initial_state(q, v);
  y.setZero(system.size());
  yp.setZero(system.size());
  for (int i = 0; i < system.size(); ++i) {
    y(i) = normal(rng);
    yp(i) = normal(rng);
  }
  const double size = std::max(1.0, q.lpNorm<Eigen::Infinity>());
  y.head(n) = q + 1e-3 * size * y.head(n);
}

// The sparse residual is the dense one evaluated from entries (rounding apart: 1e-12 of the
// largest term). The sparse iteration matrix differs from the dense one by their difference
// quotients' errors: forward differences with increments ~√ε relative err by ~√ε·‖F''‖/‖F'‖,
// 1e-8 relative here, so 1e-6 of the matrix's largest entry bounds it, while a wrong block or
// sign leaves entries of order one.
TEST(IdaSparseMatrix, MatchesTheDenseResidualAndIterationMatrix) {
  const std::vector<std::pair<std::string, nlohmann::json>> problems = {
      {"n_four_bar", {{"N", 3}}},
      {"n_pendulum", {{"N", 4}}},
      {"crank_rocker", nlohmann::json::object()},
      {"slider_crank", nlohmann::json::object()}};
  std::mt19937 rng(7);
  for (const auto& [id, params] : problems) {
    const auto problem = make_problem(id, params);
    ASSERT_TRUE(problem->has_sparse_evaluation() && problem->has_residual_tangents()) << id;
    for (IdaFormulation formulation : {IdaFormulation::ggl, IdaFormulation::index1}) {
      IdaResidual dense, sparse;
      dense.bind(*problem, formulation, false);
      sparse.bind(*problem, formulation, true);
      const int N = dense.size();
      for (int trial = 0; trial < 3; ++trial) {
        Vec y, yp;
        random_state(*problem, dense, rng, y, yp);
        Vec r_dense(N), r_sparse(N);
        dense.residual(0.3, y.data(), yp.data(), r_dense.data());
        sparse.residual(0.3, y.data(), yp.data(), r_sparse.data());
        EXPECT_LE((r_sparse - r_dense).lpNorm<Eigen::Infinity>(),
                  1e-12 * std::max(1.0, r_dense.lpNorm<Eigen::Infinity>()))
            << id << " residual";
        const Vec ewt = (1e-8 * y.cwiseAbs().array() + 1e-8).inverse().matrix();
        const double h = 1e-3, cj = 1.0 / h;
        Mat expected(N, N);
        ASSERT_TRUE(dense.iteration_matrix(0.3, cj, y.data(), yp.data(), r_dense.data(), ewt.data(),
                                           h, expected.data()));
        ASSERT_TRUE(sparse.sparse_iteration_matrix(0.3, cj, y.data(), yp.data(), ewt.data(), h));
        const SparseAssembly& a = sparse.sparse_matrix();
        Mat got = Mat::Zero(N, N);
        for (int j = 0; j < N; ++j)
          for (int k = a.column_start()[j]; k < a.column_start()[j + 1]; ++k)
            got(a.row_index()[k], j) += a.values()[k];
        const double scale = expected.cwiseAbs().maxCoeff();
        EXPECT_LE((got - expected).cwiseAbs().maxCoeff(), 1e-6 * scale)
            << id << (formulation == IdaFormulation::ggl ? " ggl" : " index1") << " trial "
            << trial;
      }
    }
  }
}

nlohmann::json ida_four_bar(int n, double t_end, const std::string& linear_solver,
                            double tol = 1e-8, const std::string& formulation = "ggl") {
  RunConfig c;
  c.problem = "n_four_bar";
  c.problem_params = {{"N", n}};
  c.integrator = "ida";
  c.method_params = {{"linear_solver", linear_solver}, {"formulation", formulation}};
  c.abs_tol = c.rel_tol = tol;
  c.t_end = t_end;
  return quick_run(c);
}

double b0_error(const nlohmann::json& r) {
  const auto& outputs = r["metrics"]["error"]["outputs"];
  return std::max(outputs["B0_x"]["max_abs"].get<double>(),
                  outputs["B0_y"]["max_abs"].get<double>());
}

TEST(IdaSparse, SparseAndDensePathsGiveTheSameRun) {
  for (const char* formulation : {"ggl", "index1"}) {
    const auto dense = ida_four_bar(4, 0.5, "dense", 1e-8, formulation);
    const auto sparse = ida_four_bar(4, 0.5, "sparse", 1e-8, formulation);
    ASSERT_EQ(dense["status"], "ok") << dense["message"];
    ASSERT_EQ(sparse["status"], "ok") << sparse["message"];
    EXPECT_NEAR(b0_error(sparse), b0_error(dense), 0.1 * b0_error(dense)) << formulation;
  }
}

// A matrix costs one evaluation of the constraint rows per colour (plus the unperturbed one): the
// colours of a chain are fixed by the neighbours a body's coordinates share rows with, not by the
// chain's length, so the evaluations per matrix are the same at N = 10 and N = 100, while dense
// difference quotients would grow tenfold.
TEST(IdaSparse, AMatrixCostsTheSameEvaluationsWhateverTheChainLength) {
  std::vector<double> per_matrix;
  for (int n : {10, 100}) {
    const auto r = ida_four_bar(n, 0.02, "sparse");
    ASSERT_EQ(r["status"], "ok") << r["message"];
    const double matrices = r["work"]["jacobian_evaluations"].get<double>();
    ASSERT_GT(matrices, 0.0);
    per_matrix.push_back(r["work"]["method"]["force_evaluations"].get<double>() / matrices);
  }
  EXPECT_EQ(per_matrix[0], per_matrix[1]);
  EXPECT_LE(per_matrix[0], 20.0);  // a handful, where dense differences take n = 63 residuals
}

// The dense path refuses more than 1000 coordinates; the sparse one runs IFToMM A02 at
// N = 1000 (6003 coordinates) with Φ held to the tolerance (GGL's Φ rows are equations Newton
// meets to it). Tolerance 1e-6 and t_end 0.02 (first step 2e-8 s): with the fixed multiplier
// tolerance GGL's Newton fails at t = 0 on long chains at 1e-8 (docs/integrators.md).
TEST(IdaSparse, RunsBeyondTheDenseLimit) {
  EXPECT_EQ(ida_four_bar(1000, 0.02, "dense", 1e-6)["status"], "unsupported");
  const auto sparse = ida_four_bar(1000, 0.02, "auto", 1e-6);
  ASSERT_EQ(sparse["status"], "ok") << sparse["message"];
  EXPECT_LT(sparse["metrics"]["drift"]["position"]["max"].get<double>(), 1e-6);
}

TEST(IdaSparse, NamesWhatAProblemOrTheParametersLack) {
  const auto refusal = [](const std::string& problem, nlohmann::json params) {
    RunConfig c;
    c.problem = problem;
    c.integrator = "ida";
    params["linear_solver"] = "sparse";
    c.method_params = params;
    c.abs_tol = c.rel_tol = 1e-6;
    c.t_end = 0.01;
    const auto r = quick_run(c);
    EXPECT_EQ(r["status"], "unsupported") << problem;
    return r["message"].get<std::string>();
  };
  const auto mentions = [](const std::string& message, const char* what) {
    return message.find(what) != std::string::npos;
  };
  EXPECT_TRUE(mentions(refusal("andrews_squeezer", {}), "no residual tangents"));
  EXPECT_TRUE(mentions(refusal("simple_pendulum", {}), "no sparse evaluation"));
  EXPECT_TRUE(mentions(refusal("crank_rocker", {{"jacobian", "internal"}}), "jacobian = internal"));
}

}  // namespace
}  // namespace cmb::test
