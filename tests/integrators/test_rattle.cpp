// rattle: second order on simple_pendulum (exact reference), on the top in natural coordinates and
// on the rheonomic car_axis, the constraints held at every step, an energy error that does not
// grow, its multipliers against the pendulum's exact tension, and the refusals of what its
// splitting cannot integrate.
#include <cmath>

#include "core/method.hpp"
#include "fixed_step_support.hpp"

namespace cmb::test {
namespace {

const char* const kRattle = "rattle";

nlohmann::json run(const char* problem, double dt, double t_end,
                   const nlohmann::json& params = nlohmann::json::object()) {
  RunConfig c;
  c.problem = problem;
  c.integrator = kRattle;
  c.method_params = params;
  c.dt = dt;
  c.t_end = t_end;
  return quick_run(c);
}

// [HairerLubichWanner2006] VII.1 prove order 2: halving h from 2 ms to 1 ms and to 0.5 ms
// divides the position error by 4 each time, ± the next term (order 2 ± 0.2).
TEST(Rattle, PositionsConvergeAtOrderTwo) {
  const double e1 = position_error(pendulum_run(kRattle, 2e-3, 1.0));
  const double e2 = position_error(pendulum_run(kRattle, 1e-3, 1.0));
  const double e3 = position_error(pendulum_run(kRattle, 5e-4, 1.0));
  EXPECT_NEAR(std::log2(e1 / e2), 2.0, 0.2);
  EXPECT_NEAR(std::log2(e2 / e3), 2.0, 0.2);
}

// Halves the step twice from dt on `problem` over [0, t_end] and checks that each halving divides
// the error (the record's metrics.error[`error`]) by 4, ± the next term (order 2 ± 0.2).
void expect_order_two(const char* problem, double dt, double t_end, const char* error) {
  double errors[3];
  for (int k = 0; k < 3; ++k) {
    const auto r = run(problem, dt / (1 << k), t_end);
    EXPECT_EQ(r["status"], "ok") << problem << ": " << r["message"];
    errors[k] = r["status"] == "ok" ? r["metrics"]["error"][error].get<double>() : 1.0;
  }
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 2.0, 0.2) << problem;
  EXPECT_NEAR(std::log2(errors[1] / errors[2]), 2.0, 0.2) << problem;
}

// Rheonomic rows: Φ(t_{n+1}, q_{n+1}) = 0 and J v = ν(t_{n+1}) keep the order (car_axis, against
// its published solution at t = 3, whose accuracy, 2e-10, is far below these errors).
TEST(Rattle, RheonomicRowsKeepOrderTwo) {
  expect_order_two("car_axis", 1e-3, 3.0, "final_abs_max");
}

// The top in its rotation matrix (constant M, six quadratic rows) spinning at 50 rad/s: the
// same order over its first second against the Euler-angle reference (claimed 2e-10, far below).
TEST(Rattle, TheTopInNaturalCoordinatesConvergesAtOrderTwo) {
  expect_order_two("lagrange_top_natural", 1e-3, 1.0, "max_abs");
}

// Both halves end on the constraints: Φ = 0 to the Newton tolerance (1e-10 of the pendulum's
// length 1) and J v = 0 to the rounding of one linear solve, at every sample.
TEST(Rattle, EveryStepEndsOnTheConstraints) {
  const auto r = pendulum_run(kRattle, 1e-2, 100.0);
  EXPECT_LT(r["metrics"]["drift"]["position"]["max"].get<double>(), 1e-10);
  EXPECT_LT(r["metrics"]["drift"]["velocity"]["max"].get<double>(), 1e-13);
}

// Symplectic on the constraint manifold: the energy error of a long run oscillates within the
// band of its first stretch instead of growing. Over 1000 s (≈ 400 swings) it stays within twice
// its largest value over the first 100 s; a secular drift, linear in t, makes it 10 times larger,
// as projection with the (non-symplectic) rk4 shows at the same step.
TEST(Rattle, EnergyErrorDoesNotGrowOverLongRuns) {
  auto energy_error = [](const nlohmann::json& r) {
    EXPECT_EQ(r["status"], "ok") << r["message"];
    return r["metrics"]["energy"]["max_abs"].get<double>();  // E0 = 0: absolute
  };
  const double first = energy_error(pendulum_run(kRattle, 1e-2, 100.0));
  const double whole = energy_error(pendulum_run(kRattle, 1e-2, 1000.0));
  EXPECT_LT(whole, 2.0 * first);
  RunConfig rk4;
  rk4.problem = "simple_pendulum";
  rk4.method = "projection";
  rk4.stepper = "rk4";
  rk4.dt = 1e-2;
  rk4.t_end = 100.0;
  const double rk4_first = energy_error(quick_run(rk4));
  rk4.t_end = 1000.0;
  EXPECT_GT(energy_error(quick_run(rk4)), 5.0 * rk4_first);
}

// Samples report the KKT multipliers at the step's (q, v), second order like q and v: the
// tension of the exact pendulum is matched to 10^(−2 ± 0.2) less per tenfold smaller step.
TEST(Rattle, MultipliersFollowTheExactTensionAtOrderTwo) {
  auto tension_error = [](double dt, const char* multipliers) {
    const auto r = run("simple_pendulum", dt, 1.0, {{"multipliers", multipliers}});
    EXPECT_EQ(r["status"], "ok") << r["message"];
    return r["metrics"]["multipliers"]["max_rel_error"].get<double>();
  };
  const double coarse = tension_error(1e-3, "kkt"), fine = tension_error(1e-4, "kkt");
  EXPECT_NEAR(std::log10(coarse / fine), 2.0, 0.2);
  // The scheme's own μ is the velocity half's multiplier, first order.
  const double mu_coarse = tension_error(1e-3, "scheme"), mu_fine = tension_error(1e-4, "scheme");
  EXPECT_NEAR(std::log10(mu_coarse / mu_fine), 1.0, 0.2);
}

// What the splitting cannot integrate is refused at bind with the reason: velocity-level rows,
// a configuration-dependent mass matrix (the Euler-parameter top) and velocity-dependent forces.
TEST(Rattle, RefusesWhatItsSplittingCannotIntegrate) {
  const struct {
    const char* problem;
    const char* reason;
  } cases[] = {{"chaplygin_sleigh", "nonholonomic"},
               {"lagrange_top", "mass matrix changes"},
               {"kane_pendulum", "mass matrix changes"}};
  for (const auto& k : cases) {
    const auto r = run(k.problem, 1e-3, 0.01);
    EXPECT_EQ(r["status"], "unsupported") << k.problem;
    EXPECT_NE(r["message"].get<std::string>().find(k.reason), std::string::npos)
        << k.problem << ": " << r["message"];
  }
}

// The sparse path (J's entries, W = M⁻¹Jᵀ never formed, KLU for J M⁻¹Jᵀ) solves the same
// equations as the dense one. With Newton at 1e-13 of ℓ both stop at rounding, so the chain's tip
// (spatial_chain, N = 4: m = 36) agrees to 1e-10 m over 200 steps: a margin of 1000 over the
// rounding of 200 steps of an O(1) motion, and far below any wrong term (a missing entry or a
// transposed product changes the motion at the first step).
TEST(Rattle, TheSparsePathFollowsTheDensePath) {
  Mat tips[2];
  const char* const solvers[2] = {"dense", "sparse"};
  for (int k = 0; k < 2; ++k) {
    RunConfig c;
    c.problem = "spatial_chain";
    c.problem_params = {{"N", 4}};
    c.integrator = kRattle;
    c.method_params = {{"linear_solver", solvers[k]}, {"tol", 1e-13}};
    c.dt = 1e-3;
    c.t_end = 0.2;
    c.sample_dt = 0.01;
    c.compute_reference = false;
    const RunResult r = run_in_process(c);
    ASSERT_EQ(to_json(r.record)["status"], "ok") << solvers[k];
    tips[k].resize(static_cast<Eigen::Index>(r.series.outputs.size()), 3);
    for (std::size_t i = 0; i < r.series.outputs.size(); ++i)
      tips[k].row(static_cast<Eigen::Index>(i)) = r.series.outputs[i].transpose();
  }
  ASSERT_EQ(tips[0].rows(), tips[1].rows());
  EXPECT_LT((tips[0] - tips[1]).lpNorm<Eigen::Infinity>(), 1e-10);
}

// linear_solver = sparse needs the problem's entries and a diagonal M: refused, naming that, on a
// problem without sparse evaluation; auto stays dense there.
TEST(Rattle, TheSparsePathIsRefusedWhereTheProblemLacksEntries) {
  const auto refused = run("simple_pendulum", 1e-3, 0.01, {{"linear_solver", "sparse"}});
  EXPECT_EQ(refused["status"], "unsupported");
  EXPECT_NE(refused["message"].get<std::string>().find("sparse entries"), std::string::npos)
      << refused["message"];
  EXPECT_EQ(run("simple_pendulum", 1e-3, 0.01, {{"linear_solver", "auto"}})["status"], "ok");
}

// The dense path refuses more than kMaxDenseCoordinates coordinates (its n × n solves); the
// sparse path has none, its start and samples included: spatial_chain with N = 90 (n = 1080).
TEST(Rattle, TheSparsePathHasNoDenseSizeLimit) {
  static_assert(12 * 90 > kMaxDenseCoordinates, "the chain must exceed the dense limit");
  const char* const solvers[2] = {"dense", "sparse"};
  for (const char* solver : solvers) {
    RunConfig c;
    c.problem = "spatial_chain";
    c.problem_params = {{"N", 90}};
    c.integrator = kRattle;
    c.method_params = {{"linear_solver", solver}};
    c.dt = 1e-3;
    c.t_end = 3e-3;
    c.compute_reference = false;
    const auto record = to_json(run_in_process(c).record);
    EXPECT_EQ(record["status"], std::string(solver) == "dense" ? "unsupported" : "ok")
        << solver << ": " << record["message"];
  }
}

}  // namespace
}  // namespace cmb::test
