// The state a run starts from: rejection or projection of inconsistent initial states, and
// deliberate perturbations, checked through the Baumgarte impulse responses of
// [Notes-Baumgarte-ja] (docs/sources.md) — the stabilized constraint error obeys
// Φ̈ + 2αΦ̇ + β²Φ = 0 exactly, so a run started with Φ(0) = 0, Φ̇(0) = w must follow w·h(t), h the
// impulse response of 1/(s² + 2αs + β²).
#include <gtest/gtest.h>

#include <cmath>

#include "catalog/catalog.hpp"
#include "core/errors.hpp"
#include "harness/run/initial_state.hpp"
#include "harness/run/run_settings.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

// Impulse response of 1/(s² + 2αs + β²) (h(0) = 0, ḣ(0) = 1) and its derivative.
struct Response {
  double h, dh;
};
Response impulse_response(double alpha, double beta, double t) {
  const double decay = std::exp(-alpha * t);
  if (alpha < beta) {
    const double w = std::sqrt(beta * beta - alpha * alpha);
    return {decay * std::sin(w * t) / w, decay * (std::cos(w * t) - alpha * std::sin(w * t) / w)};
  }
  if (alpha == beta) return {t * decay, decay * (1.0 - alpha * t)};
  const double r = std::sqrt(alpha * alpha - beta * beta);
  const double s1 = -alpha + r, s2 = -alpha - r;
  return {(std::exp(s1 * t) - std::exp(s2 * t)) / (s1 - s2),
          (s1 * std::exp(s1 * t) - s2 * std::exp(s2 * t)) / (s1 - s2)};
}

// Largest |simulated Φ − analytic| over the samples, relative to the largest |analytic|.
// Free response from Φ(0) = p, Φ̇(0) = 0 is p·(ḣ + 2αh); impulse response from Φ̇(0) = w is w·h.
double response_mismatch(double alpha, double beta, double position, double velocity) {
  RunConfig config = tight_run("simple_pendulum", "baumgarte", 1e-12);
  config.method_params = {{"alpha", alpha}, {"beta", beta}};
  config.t_end = 1.0;
  config.sample_dt = 0.005;
  config.initial.perturb_position = position;
  config.initial.perturb_velocity = velocity;
  const RunResult result = run_in_process(config);
  EXPECT_EQ(cmb::to_json(result.record)["status"], "ok") << cmb::to_json(result.record).dump();
  EXPECT_EQ(result.series.phi.size(), result.series.t.size());
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < result.series.t.size(); ++i) {
    const Response r = impulse_response(alpha, beta, result.series.t[i]);
    const double analytic = velocity * r.h + position * (r.dh + 2.0 * alpha * r.h);
    worst = std::max(worst, std::abs(result.series.phi[i](0) - analytic));
    scale = std::max(scale, std::abs(analytic));
  }
  return worst / scale;
}

// fehlberg78 at 1e-12 keeps the global error in x, y near 1e-10; Φ = x² + y² − L² inherits
// about twice that, against signals of order 1e-4 (w = 0.01 times max h ≈ 0.01–0.04): 1e-5
// relative leaves a margin of 10 or more, while a wrong gain (α for 2α, β for β²) is O(1).
constexpr double kResponseTol = 1e-5;

TEST(InitialState, BaumgarteImpulseResponseMatchesTheThreeRegimesOfSeed002) {
  EXPECT_LT(response_mismatch(10, 20, 0.0, 0.01), kResponseTol) << "alpha < beta (underdamped)";
  EXPECT_LT(response_mismatch(20, 20, 0.0, 0.01), kResponseTol) << "alpha = beta (critical)";
  EXPECT_LT(response_mismatch(20, 10, 0.0, 0.01), kResponseTol) << "alpha > beta (overdamped)";
}

TEST(InitialState, PositionPerturbationDecaysAsTheFreeResponse) {
  EXPECT_LT(response_mismatch(10, 20, 1e-3, 0.0), kResponseTol);
  EXPECT_LT(response_mismatch(20, 10, 1e-3, 0.0), kResponseTol);
}

TEST(InitialState, PerturbationSetsEveryHolonomicRowAndIsRecorded) {
  const auto problem = make_problem("slider_crank", {});
  InitialStateOptions options;
  options.perturb_position = 1e-4;
  options.perturb_velocity = -2e-3;
  const Sizes s = problem->sizes();
  Vec q(s.nq), v(s.nq), Phi(s.mh), nu(s.m());
  Mat J(s.m(), s.nq);
  const auto block = make_initial_state(*problem, options, q, v);
  problem->constraints(0.0, q, Phi);
  problem->jacobian(0.0, q, J);
  problem->velocity_rhs(0.0, q, nu);
  const Vec rate = J.topRows(s.mh) * v - nu.head(s.mh);
  for (int i = 0; i < s.mh; ++i) {
    EXPECT_NEAR(Phi(i), 1e-4, 1e-13) << "row " << i;  // the assembly tolerance
    EXPECT_NEAR(rate(i), -2e-3, 1e-13) << "row " << i;
  }
  ASSERT_TRUE(block.perturbation.has_value());
  EXPECT_EQ(block.perturbation->position, 1e-4);
  EXPECT_EQ(block.perturbation->velocity, -2e-3);
  EXPECT_FALSE(block.projected);
}

// The pendulum with its initial position 1 % too far out: Φ(0) = 1.01² − 1 ≈ 0.02.
class MisassembledPendulum : public ProblemBase {
 public:
  explicit MisassembledPendulum(bool contradictory_rows = false)
      : ProblemBase(
            {"misassembled_pendulum", "pendulum started off its circle (test)", "tests", {}},
            Params(nlohmann::json{{"t_end", 1.0}}, {}), Sizes{2, contradictory_rows ? 2 : 1, 0}),
        pendulum_(make_problem("simple_pendulum", {})) {}
  void initial_state(VecRef q, VecRef v) const override {
    pendulum_->initial_state(q, v);
    q *= 1.01;
  }
  void mass_matrix(double t, CVecRef q, MatRef M) const override {
    pendulum_->mass_matrix(t, q, M);
  }
  void forces(double t, CVecRef q, CVecRef v, VecRef Q) const override {
    pendulum_->forces(t, q, v, Q);
  }
  // With contradictory rows the second row is twice the first: same zero set, but no state
  // offsets both rows by the same nonzero amount.
  void constraints(double, CVecRef q, VecRef Phi) const override {
    for (Eigen::Index i = 0; i < Phi.size(); ++i) Phi(i) = (i + 1) * (q.squaredNorm() - 1.0);
  }
  void jacobian(double, CVecRef q, MatRef J) const override {
    for (Eigen::Index i = 0; i < J.rows(); ++i) J.row(i) = 2.0 * (i + 1) * q.transpose();
  }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    for (Eigen::Index i = 0; i < gamma.size(); ++i) gamma(i) = -2.0 * (i + 1) * v.squaredNorm();
  }
  std::vector<std::string> output_names() const override { return {"x"}; }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override { y(0) = q(0); }

 private:
  std::unique_ptr<Problem> pendulum_;
};

RunStatus failure_status(const Problem& problem, const InitialStateOptions& options,
                         std::string* message) {
  Vec q(problem.sizes().nq), v(problem.sizes().nq);
  try {
    make_initial_state(problem, options, q, v);
  } catch (const NumericalFailure& failure) {
    *message = failure.what();
    return failure.status();
  }
  return RunStatus::ok;
}

TEST(InitialState, InconsistentStateIsRejectedByDefaultWithAnExplanation) {
  std::string message;
  EXPECT_EQ(failure_status(MisassembledPendulum(), InitialStateOptions{}, &message),
            RunStatus::invalid_input);
  EXPECT_NE(message.find("violates the constraints"), std::string::npos) << message;
  EXPECT_NE(message.find("initial_assembly = project"), std::string::npos) << message;
}

TEST(InitialState, ProjectionAssemblesAndRecordsIt) {
  const MisassembledPendulum problem;
  InitialStateOptions options;
  options.assembly = "project";
  Vec q(2), v(2);
  const auto block = make_initial_state(problem, options, q, v);
  EXPECT_TRUE(block.projected);
  EXPECT_GT(block.position_residual, 0.02);
  EXPECT_NEAR(q.norm(), 1.0, 1e-12);
  EXPECT_NEAR(q.dot(v), 0.0, 1e-12);
}

TEST(InitialState, UnreachablePerturbationIsInvalidInput) {
  InitialStateOptions options;
  options.assembly = "project";
  options.perturb_position = 1e-3;
  std::string message;
  EXPECT_EQ(failure_status(MisassembledPendulum(true), options, &message),
            RunStatus::invalid_input);
  EXPECT_NE(message.find("cannot be reached"), std::string::npos) << message;
}

TEST(InitialState, BadOptionsAreInputErrors) {
  RunConfig bad_mode;
  bad_mode.initial.assembly = "fix";
  EXPECT_THROW(check_run_settings(bad_mode), InputError);
  RunConfig bad_tol;
  bad_tol.initial.tolerance = -1.0;
  EXPECT_THROW(check_run_settings(bad_tol), InputError);
  RunConfig bad_perturbation;
  bad_perturbation.initial.perturb_velocity = std::nan("");
  EXPECT_THROW(check_run_settings(bad_perturbation), InputError);
  EXPECT_NO_THROW(check_run_settings(RunConfig{}));
}

}  // namespace
}  // namespace cmb::test
