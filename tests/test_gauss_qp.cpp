// gauss_qp: the QP library path agrees with the exact fast path; unilateral supports carry the
// weight and let go; priority levels are honoured; softness accepts drift.
#include <gtest/gtest.h>

#include "catalog/catalog.hpp"
#include "core/qp.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

constexpr double kQpGravity = 9.81;

// Both paths minimize the same strictly convex function over the same affine set, so they find
// the same point; the library's stopping tolerance is 1e-12, and 1e-9 leaves room for the
// conditioning of M.
TEST(GaussQp, LibraryPathAgreesWithFastPath) {
  if (!DenseQp::available()) GTEST_SKIP() << "built without ALGLIB";
  for (const auto& p : problem_registry()) {
    auto problem = make_problem(p.id, conformance_params(p.id));
    auto fast = make_method("gauss_qp", nlohmann::json::object());
    auto qp = make_method("gauss_qp", {{"solver", "qp"}});
    fast->bind(*problem);
    qp->bind(*problem);
    std::mt19937 rng(5);
    Vec x(fast->state_size()), dxdt(fast->state_size());
    int checked = 0;
    for (int attempt = 0; attempt < 20 && checked < 3; ++attempt) {
      ConsistentState s;
      if (!random_consistent_state(*problem, rng, 0.05, s, !has_tag(*problem, "redundant")))
        continue;
      ++checked;
      fast->pack(s.t, s.q, s.v, x);
      fast->rhs(x, dxdt, s.t);
      qp->rhs(x, dxdt, s.t);
      const double scale = std::max(1.0, fast->accelerations().lpNorm<Eigen::Infinity>());
      EXPECT_LE((qp->accelerations() - fast->accelerations()).lpNorm<Eigen::Infinity>(),
                1e-9 * scale)
          << p.id;
    }
    EXPECT_GE(checked, 2) << p.id;
  }
}

// A 2 kg point mass resting on the floor y ≥ 0, pulled up by F(t) = m g t. The support carries
// m g (1 − t) until t = 1; then the mass lifts off with ÿ = g (t − 1), y = g (t − 1)³ / 6.
class PulledMassOnFloor : public ProblemBase {
 public:
  PulledMassOnFloor()
      : ProblemBase(
            {"pulled_mass_on_floor", "point mass on a unilateral floor (test)", "tests", {}},
            Params(nlohmann::json{{"t_end", 2.0}}, {}), Sizes{2, 0, 0, 1}) {}
  void initial_state(VecRef q, VecRef v) const override {
    q.setZero();
    v.setZero();
  }
  void mass_matrix(double, CVecRef, MatRef M) const override { M = kMass * Mat::Identity(2, 2); }
  void forces(double t, CVecRef, CVecRef, VecRef Q) const override {
    Q << 0.0, -kMass * kQpGravity + kMass * kQpGravity * t;
  }
  void constraints(double, CVecRef, VecRef) const override {}
  void jacobian(double, CVecRef, MatRef) const override {}
  void acceleration_rhs(double, CVecRef, CVecRef, VecRef) const override {}
  void unilateral_gaps(double, CVecRef q, VecRef g) const override { g(0) = q(1); }
  void unilateral_jacobian(double, CVecRef, MatRef G) const override { G << 0.0, 1.0; }
  void unilateral_acceleration_rhs(double, CVecRef, CVecRef, VecRef d) const override {
    d.setZero();
  }
  std::vector<std::string> output_names() const override { return {"x", "y"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y = q; }
  ReferenceInfo reference_info() const override {
    return {ReferenceKind::analytic, "lift-off", 1e-15};
  }
  Mat reference_outputs(const std::vector<double>& times) const override {
    Mat out = Mat::Zero(times.size(), 2);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const double s = std::max(0.0, times[i] - 1.0);
      out(i, 1) = kQpGravity * s * s * s / 6.0;
    }
    return out;
  }
  static constexpr double kMass = 2.0;
};

TEST(GaussQp, UnilateralSupportCarriesTheWeightThenLetsGo) {
  if (!DenseQp::available()) GTEST_SKIP() << "built without ALGLIB";
  PreparedRun run;
  run.config.method = "gauss_qp";
  run.config.repeat = 0;
  run.problem = std::make_unique<PulledMassOnFloor>();
  run.method = make_method("gauss_qp", nlohmann::json::object());
  run.stepper = &find_stepper("rk4");
  run.settings.dt = 1e-3;
  run.t_end = 2.0;
  for (int i = 1; i <= 200; ++i) run.sample_times.push_back(0.01 * i);
  run.key = "pulled_mass_on_floor";
  const RunResult result = run_with_reference(run);
  ASSERT_EQ(cmb::to_json(result.record)["status"], "ok") << cmb::to_json(result.record)["message"];
  const auto& s = result.series;
  for (std::size_t i = 0; i < s.t.size(); ++i) {
    const double t = s.t[i];
    // λ_c ≤ 0 is the support pushing up: support force = −λ_c = m g (1 − t) while in contact.
    if (t < 0.99) {
      EXPECT_NEAR(-s.multipliers[i](0), PulledMassOnFloor::kMass * kQpGravity * (1.0 - t), 1e-6)
          << t;
      EXPECT_NEAR(s.outputs[i](1), 0.0, 1e-9) << t;
    }
    if (t > 1.05) {
      EXPECT_EQ(s.multipliers[i](0), 0.0) << t;  // separated: the row is inactive
    }
  }
  // After lift-off RK4 integrates a cubic exactly; the only error is where the kink at t = 1
  // falls inside a step: O(g·dt³) ≈ 1e-8.
  EXPECT_NEAR(s.outputs.back()(1), kQpGravity / 6.0, 1e-6);
  EXPECT_EQ(s.multipliers.front().size(), 1);
}

// Acceleration-level priorities on a free 2-D point mass (unit mass, no forces, a_f = 0):
//  level 0: ẍ + ÿ = 0;  level 1: ẍ = 1 and ÿ = 1 (conflicting with level 0);
//  level 2: ẍ = 3 and ẍ = 5 (conflicting with each other and with the levels above).
class PrioritizedMass : public ProblemBase {
 public:
  explicit PrioritizedMass(std::vector<int> levels, Mat J, Vec gamma)
      : ProblemBase({"prioritized_mass", "priority test", "tests", {}},
                    Params(nlohmann::json{{"t_end", 1.0}}, {}),
                    Sizes{2, static_cast<int>(levels.size()), 0}),
        levels_(std::move(levels)),
        J_(std::move(J)),
        gamma_(std::move(gamma)) {}
  void initial_state(VecRef q, VecRef v) const override {
    q.setZero();
    v.setZero();
  }
  void mass_matrix(double, CVecRef, MatRef M) const override { M.setIdentity(); }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  void constraints(double, CVecRef, VecRef Phi) const override { Phi.setZero(); }
  void jacobian(double, CVecRef, MatRef J) const override { J = J_; }
  void acceleration_rhs(double, CVecRef, CVecRef, VecRef gamma) const override { gamma = gamma_; }
  int row_priority(int row) const override { return levels_[row]; }
  std::vector<std::string> output_names() const override { return {"x"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y(0) = q(0); }

 private:
  std::vector<int> levels_;
  Mat J_;
  Vec gamma_;
};

Vec prioritized_accelerations(const PrioritizedMass& problem) {
  auto method = make_method("gauss_qp", nlohmann::json::object());
  method->bind(problem);
  Vec x = Vec::Zero(4), dxdt(4);
  method->rhs(x, dxdt, 0.0);
  return method->accelerations();
}

TEST(GaussQp, HigherPriorityIsExactLowerIsLeastSquares) {
  Mat J(3, 2);
  J << 1, 1, 1, 0, 0, 1;
  Vec gamma(3);
  gamma << 0, 1, 1;
  // Level 0 forces ẍ = −ÿ; within that line, ẍ = ÿ = 1 is matched best (least squares) at 0.
  const Vec a = prioritized_accelerations(PrioritizedMass({0, 1, 1}, J, gamma));
  EXPECT_NEAR(a(0) + a(1), 0.0, 1e-14);
  EXPECT_NEAR(a(0), 0.0, 1e-14);
  // Swapping the levels: ẍ = ÿ = 1 exactly, and ẍ + ÿ = 0 cannot be met at all.
  const Vec b = prioritized_accelerations(PrioritizedMass({1, 0, 0}, J, gamma));
  EXPECT_NEAR(b(0), 1.0, 1e-14);
  EXPECT_NEAR(b(1), 1.0, 1e-14);
  // ẍ = 3 above ẍ = 5: the higher one wins exactly; the free direction ÿ keeps Gauss's
  // minimizer (a_f = 0).
  Mat K(2, 2);
  K << 1, 0, 1, 0;
  Vec c(2);
  c << 3, 5;
  const Vec d = prioritized_accelerations(PrioritizedMass({0, 1}, K, c));
  EXPECT_NEAR(d(0), 3.0, 1e-14);
  EXPECT_NEAR(d(1), 0.0, 1e-14);
  // The same two rows on one level of a prioritized problem (a third, consistent row on a
  // higher level keeps the priority path in use): least squares between them, ẍ = 4.
  Mat L(3, 2);
  L << 0, 1, 1, 0, 1, 0;
  Vec e(3);
  e << 0, 3, 5;
  const Vec f = prioritized_accelerations(PrioritizedMass({0, 1, 1}, L, e));
  EXPECT_NEAR(f(0), 4.0, 1e-14);
  EXPECT_NEAR(f(1), 0.0, 1e-14);
}

// Soft constraints trade drift for smoothness: with the same stabilization, a larger softness
// lets the position residual grow (R > 0 relaxes J q̈ = γ̃).
TEST(GaussQp, SoftnessAcceptsDrift) {
  double previous = 0.0;
  for (double softness : {0.0, 0.01, 0.1}) {
    RunConfig c;
    c.problem = "simple_pendulum";
    c.method = "gauss_qp";
    c.method_params = {{"softness", softness}, {"omega0", 10.0}};
    c.stepper = "dopri5";
    c.abs_tol = c.rel_tol = 1e-10;
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok");
    const double drift = r["metrics"]["drift"]["position"]["max"].get<double>();
    EXPECT_GT(drift, 10.0 * previous) << softness;
    previous = drift;
  }
}

}  // namespace
}  // namespace cmb::test
