// Every registered problem: consistent initial state, J, ν (= −Φ_t), γ and declared residual
// tangents against central differences, M symmetric positive definite, sparse entries equal to
// the dense matrices, sizes coherent, and its reference against its own initial state and, where
// the reference is its own (analytic or a reduced ODE), against an integration of the problem
// (reference_checks.hpp). New problems are picked up from the registry; a program with entries of
// its own checks only its own problems (as method_conformance.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "catalog/catalog.hpp"
#include "core/assembly.hpp"
#include "reference_checks.hpp"
#include "steppers/steppers.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

class ProblemConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { problem = make_problem(GetParam(), conformance_params(GetParam())); }
  std::unique_ptr<Problem> problem;
};

std::vector<std::string> problem_ids() {
  std::vector<std::string> ids;
  const ProgramEntries& own = program_entries();
  for (const auto& e : problem_registry())
    if (own.empty() || own.problems.count(e.id)) ids.push_back(e.id);
  return ids;
}

// Central differences with h ≈ 1e-6 have truncation error O(h²·|f'''|) ≈ 1e-12 and round-off
// O(ε/h) ≈ 1e-10 relative to the function's scale: 1e-7 leaves a wide margin yet catches any
// wrong term (which is O(1)).
constexpr double kFdTol = 1e-7;

TEST_P(ProblemConformance, InitialStateIsConsistent) {
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq);
  problem->initial_state(q, v);
  EXPECT_LE(position_residual(*problem, 0.0, q), 1e-12);
  EXPECT_LE(velocity_residual(*problem, 0.0, q, v), 1e-12);
}

TEST_P(ProblemConformance, DescribesItself) {
  const auto& info = problem->info();
  EXPECT_EQ(info.id, GetParam());
  EXPECT_FALSE(info.title.empty());
  EXPECT_FALSE(info.source.empty());
  EXPECT_GT(problem->t_end(), 0.0);
  EXPECT_FALSE(problem->output_names().empty());
  if (!has_tag(*problem, "fault_injection")) {  // the test-only faulty model has none
    EXPECT_NE(problem->reference_info().kind, ReferenceKind::none)
        << "every catalog problem needs a reference";
  }
}

// The figures name an entry and label its axes from what the entry declares in its own file
// (python/cmbench/names.py reads them through `cmbench list --json`): a display name, and for a
// problem the unit of every output it scores and of each kind of constraint row it has.
TEST_P(ProblemConformance, EntryDeclaresDisplayNameAndUnits) {
  const ProblemEntry& entry = find_problem(GetParam());
  EXPECT_FALSE(entry.display_name.empty()) << "set entry.display_name";
  std::vector<std::string> declared;
  for (const auto& [name, unit] : entry.units.outputs) {
    declared.push_back(name);
    EXPECT_FALSE(unit.empty()) << "output " << name << " has an empty unit";
  }
  std::vector<std::string> outputs = problem->output_names();
  std::sort(declared.begin(), declared.end());
  std::sort(outputs.begin(), outputs.end());
  EXPECT_EQ(declared, outputs) << "entry.units.outputs must give one unit per output";
  const Sizes s = problem->sizes();
  EXPECT_EQ(entry.units.holonomic.empty(), s.mh == 0)
      << "entry.units.holonomic: the units of the rows Phi, given exactly when there are any";
  EXPECT_EQ(entry.units.nonholonomic.empty(), s.mn == 0)
      << "entry.units.nonholonomic: the units of the velocity rows, given exactly when there are "
         "any";
}

TEST(EntryNames, EveryMethodIntegratorAndStepperDeclaresADisplayName) {
  for (const auto& e : method_registry()) EXPECT_FALSE(e.display_name.empty()) << e.id;
  for (const auto& e : integrator_registry()) EXPECT_FALSE(e.display_name.empty()) << e.id;
  for (const auto& s : stepper_list()) EXPECT_FALSE(s.display_name.empty()) << s.id;
}

TEST_P(ProblemConformance, JacobianAndGammaMatchFiniteDifferences) {
  std::mt19937 rng(7);
  const Sizes s = problem->sizes();
  int checked = 0;
  for (int attempt = 0; attempt < 20 && checked < 4; ++attempt) {
    ConsistentState state;
    // Structurally redundant problems have rank-deficient J at every consistent state.
    if (!random_consistent_state(*problem, rng, 0.05, state, !has_tag(*problem, "redundant")))
      continue;
    ++checked;
    Mat J(s.m(), s.nq);
    problem->jacobian(state.t, state.q, J);
    const Mat J_fd = fd_constraint_jacobian(*problem, state.t, state.q);
    const double j_scale = std::max(1.0, J.lpNorm<Eigen::Infinity>());
    EXPECT_LE((J.topRows(s.mh) - J_fd).lpNorm<Eigen::Infinity>(), kFdTol * j_scale);

    Vec gamma(s.m());
    problem->acceleration_rhs(state.t, state.q, state.v, gamma);
    const Vec gamma_fd = fd_gamma(*problem, state.t, state.q, state.v);
    const double g_scale = std::max(1.0, gamma_fd.lpNorm<Eigen::Infinity>());
    EXPECT_LE((gamma - gamma_fd).lpNorm<Eigen::Infinity>(), kFdTol * g_scale);
  }
  EXPECT_GE(checked, 2) << "could not draw consistent regular states";
}

// ν on the holonomic rows is −Φ_t: central differences of Φ in t at fixed q,
// −(Φ(t + h, q) − Φ(t − h, q))/(2h) with h = 1e-6·max(1, |t|). Truncation O(h²·|Φ_ttt|) ≈ 1e-12
// × |Φ_ttt| (car_axis: |Φ_ttt| ≤ r w³ |q| ≈ 100, so 1e-10) and round-off O(ε·|terms of Φ|/h) ≈
// 2e-10 × the size of Φ's terms: kFdTol (1e-7) relative to max(1, |ν|∞) leaves over two orders
// of margin, while a wrong time term is far larger (car_axis: ν = 0 is off by ≈ 0.5, a sign error
// in ẋb by up to 2·ẋb·xl ≈ 1e-2: both fail here). A problem whose
// Φ does not depend on t (the differences are then exactly zero) is scleronomic: its ν must be
// exactly zero there, and a problem with t in Φ must be tagged "rheonomic". The nonholonomic
// rows' c(t, q) has no Φ to difference and is not checked here.
TEST_P(ProblemConformance, VelocityRhsIsMinusPhiT) {
  std::mt19937 rng(11);
  const Sizes s = problem->sizes();
  if (s.mh == 0) GTEST_SKIP() << "no holonomic rows";
  int checked = 0;
  bool depends_on_t = false;
  for (int attempt = 0; attempt < 20 && checked < 4; ++attempt) {
    ConsistentState state;
    if (!random_consistent_state(*problem, rng, 0.05, state, !has_tag(*problem, "redundant")))
      continue;
    ++checked;
    Vec nu(s.m());
    problem->velocity_rhs(state.t, state.q, nu);
    const double h = 1e-6 * std::max(1.0, std::abs(state.t));
    Vec plus(s.mh), minus(s.mh);
    problem->constraints(state.t + h, state.q, plus);
    problem->constraints(state.t - h, state.q, minus);
    const Vec nu_fd = -(plus - minus) / (2 * h);
    const double scale = std::max(1.0, nu_fd.lpNorm<Eigen::Infinity>());
    EXPECT_LE((nu.head(s.mh) - nu_fd).lpNorm<Eigen::Infinity>(), kFdTol * scale)
        << "at t = " << state.t << ": nu = " << nu.head(s.mh).transpose()
        << ", -Phi_t by differences = " << nu_fd.transpose();
    if (nu_fd.isZero(0.0)) {
      EXPECT_TRUE(nu.head(s.mh).isZero(0.0))
          << "Phi does not depend on t, so nu must be exactly 0 on the holonomic rows";
    } else {
      depends_on_t = true;
    }
  }
  EXPECT_GE(checked, 2) << "could not draw consistent regular states";
  if (depends_on_t) {
    EXPECT_TRUE(has_tag(*problem, "rheonomic")) << "Phi changes with t: tag the problem rheonomic";
  }
}

TEST_P(ProblemConformance, MassMatrixIsSymmetricPositiveDefinite) {
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq);
  problem->initial_state(q, v);
  Mat M(s.nq, s.nq);
  problem->mass_matrix(0.0, q, M);
  EXPECT_LE((M - M.transpose()).lpNorm<Eigen::Infinity>(), 1e-14 * M.lpNorm<Eigen::Infinity>());
  Eigen::SelfAdjointEigenSolver<Mat> eig(M);
  EXPECT_GT(eig.eigenvalues().minCoeff(), 0.0);
}

// Counts the entries a problem sends: the sparse KKT path fixes their sequence at bind.
class CountingSink : public SparseSink {
 public:
  int count = 0;

 private:
  void put(int, int, double) override { ++count; }
};

// Sparse evaluation (M and J sent as entries) must describe the same matrices as the dense
// calls: products accumulated entry by entry (ProductSink, used by the observer and the chart
// references) against the dense products. Only summation order differs: 1e-13 relative.
TEST_P(ProblemConformance, SparseEntriesGiveTheDenseProducts) {
  if (!problem->has_sparse_evaluation()) GTEST_SKIP() << "no sparse evaluation";
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const Sizes s = problem->sizes();
  std::vector<int> mass_counts, jacobian_counts;
  for (int trial = 0; trial < 2; ++trial) {
    ConsistentState state;
    ASSERT_TRUE(random_consistent_state(*problem, rng, 0.05, state, true));
    Vec x(s.nq);
    for (int i = 0; i < s.nq; ++i) x(i) = unit(rng);
    Mat M(s.nq, s.nq), J(s.m(), s.nq);
    problem->mass_matrix(state.t, state.q, M);
    problem->jacobian(state.t, state.q, J);
    Vec Mx(s.nq), Jx(s.m());
    ProductSink mass_product(x, Mx);
    problem->mass_matrix_entries(state.t, state.q, mass_product);
    ProductSink jacobian_product(x, Jx);
    problem->jacobian_entries(state.t, state.q, jacobian_product);
    const Vec Mx_dense = M * x, Jx_dense = J * x;
    EXPECT_LE((Mx - Mx_dense).lpNorm<Eigen::Infinity>(),
              1e-13 * std::max(1.0, M.lpNorm<Eigen::Infinity>()));
    EXPECT_LE((Jx - Jx_dense).lpNorm<Eigen::Infinity>(),
              1e-13 * std::max(1.0, J.lpNorm<Eigen::Infinity>()));
    CountingSink mass_count, jacobian_count;
    problem->mass_matrix_entries(state.t, state.q, mass_count);
    problem->jacobian_entries(state.t, state.q, jacobian_count);
    mass_counts.push_back(mass_count.count);
    jacobian_counts.push_back(jacobian_count.count);
  }
  EXPECT_EQ(mass_counts[0], mass_counts[1]) << "M's entry sequence changed with the state";
  EXPECT_EQ(jacobian_counts[0], jacobian_counts[1]) << "J's entry sequence changed with the state";
}

// Records the (row, col) sequence of the entries a problem sends, and their dense sum.
class PatternSink : public SparseSink {
 public:
  explicit PatternSink(int n) : dense(Mat::Zero(n, n)) {}
  std::vector<std::pair<int, int>> pattern;
  Mat dense;

 private:
  void put(int row, int col, double value) override {
    pattern.emplace_back(row, col);
    dense(row, col) += value;
  }
};

// r(q, v) = M(q) a − Q(q, v) + J_h(q)ᵀw, dense, as the index-3 integrators define it.
Vec force_residual(const Problem& problem, double t, CVecRef q, CVecRef v, CVecRef a, CVecRef w) {
  const Sizes s = problem.sizes();
  Mat M(s.nq, s.nq), J(s.m(), s.nq);
  Vec Q(s.nq);
  problem.mass_matrix(t, q, M);
  problem.jacobian(t, q, J);
  problem.forces(t, q, v, Q);
  return M * a - Q + J.topRows(s.mh).transpose() * w;
}

// The analytic tangents K = ∂r/∂q and C = −∂Q/∂v a problem declares for the index-3 integrators
// against central differences of r (kFdTol relative, as for J: the same step, error terms and
// margin), at random consistent states with random a and w of unit size, and their (row, col)
// sequence fixed across states (the sparse iteration matrices analyse it once).
TEST_P(ProblemConformance, ResidualTangentsMatchFiniteDifferences) {
  if (!problem->has_residual_tangents()) GTEST_SKIP() << "no analytic residual tangents";
  std::mt19937 rng(13);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  const Sizes s = problem->sizes();
  std::vector<std::vector<std::pair<int, int>>> k_patterns, c_patterns;
  for (int attempt = 0; attempt < 20 && k_patterns.size() < 3; ++attempt) {
    ConsistentState state;
    if (!random_consistent_state(*problem, rng, 0.05, state, !has_tag(*problem, "redundant")))
      continue;
    Vec a(s.nq), w(s.mh);
    for (int i = 0; i < s.nq; ++i) a(i) = unit(rng);
    for (int i = 0; i < s.mh; ++i) w(i) = unit(rng);
    PatternSink K(s.nq), C(s.nq);
    problem->residual_tangent_entries(state.t, state.q, state.v, a, w, K, C);
    Mat K_fd(s.nq, s.nq), C_fd(s.nq, s.nq);
    for (int j = 0; j < s.nq; ++j) {
      Vec plus = state.q, minus = state.q;
      const double hq = 1e-6 * std::max(1.0, std::abs(state.q(j)));
      plus(j) += hq;
      minus(j) -= hq;
      K_fd.col(j) = (force_residual(*problem, state.t, plus, state.v, a, w) -
                     force_residual(*problem, state.t, minus, state.v, a, w)) /
                    (2 * hq);
      Vec faster = state.v, slower = state.v;
      const double hv = 1e-6 * std::max(1.0, std::abs(state.v(j)));
      faster(j) += hv;
      slower(j) -= hv;
      C_fd.col(j) = (force_residual(*problem, state.t, state.q, faster, a, w) -
                     force_residual(*problem, state.t, state.q, slower, a, w)) /
                    (2 * hv);
    }
    const double scale =
        std::max({1.0, K_fd.lpNorm<Eigen::Infinity>(), C_fd.lpNorm<Eigen::Infinity>()});
    EXPECT_LE((K.dense - K_fd).lpNorm<Eigen::Infinity>(), kFdTol * scale)
        << "K = dr/dq at t = " << state.t;
    EXPECT_LE((C.dense - C_fd).lpNorm<Eigen::Infinity>(), kFdTol * scale)
        << "C = -dQ/dv at t = " << state.t;
    k_patterns.push_back(K.pattern);
    c_patterns.push_back(C.pattern);
  }
  ASSERT_GE(k_patterns.size(), 2u) << "could not draw consistent regular states";
  for (std::size_t i = 1; i < k_patterns.size(); ++i) {
    EXPECT_EQ(k_patterns[i], k_patterns[0]) << "K's entry sequence changed with the state";
    EXPECT_EQ(c_patterns[i], c_patterns[0]) << "C's entry sequence changed with the state";
  }
}

// A reference that starts elsewhere than the problem scores every run against a wrong curve:
// a closed form with a slip (an elliptic function losing digits), an initial condition typed
// twice and differently.
TEST_P(ProblemConformance, ReferenceStartsAtTheInitialState) {
  const ReferenceKind kind = problem->reference_info().kind;
  if (kind == ReferenceKind::none || kind == ReferenceKind::self_converged)
    GTEST_SKIP() << "no reference of its own (a self-converged one starts at the initial state)";
  EXPECT_EQ(reference_start_mismatch(*problem), "");
}

TEST_P(ProblemConformance, OwnReferenceFollowsTheProblemOverAShortHorizon) {
  const ReferenceKind kind = problem->reference_info().kind;
  if (kind != ReferenceKind::analytic && kind != ReferenceKind::reduced_ode)
    GTEST_SKIP() << "the reference is not a closed form or a reduced ODE";
  const std::string id = GetParam();
  EXPECT_EQ(
      reference_integration_mismatch([&] { return make_problem(id, conformance_params(id)); }), "");
}

TEST_P(ProblemConformance, EnergyIsFiniteWhenDeclared) {
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq);
  problem->initial_state(q, v);
  if (problem->has_energy()) {
    EXPECT_TRUE(std::isfinite(problem->energy(0.0, q, v)));
  }
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ProblemConformance);
INSTANTIATE_TEST_SUITE_P(AllProblems, ProblemConformance, ::testing::ValuesIn(problem_ids()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace cmb::test
