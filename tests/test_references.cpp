// References are checked independently of the code under test, and simulations are checked
// against them.
#include <gtest/gtest.h>

#include <boost/math/special_functions/ellint_1.hpp>
#include <filesystem>

#include "catalog/catalog.hpp"
#include "core/kkt.hpp"
#include "problems/planar_linkage.hpp"
#include "test_support.hpp"

namespace cmb::test {
namespace {

constexpr double kG = 9.81;

// The elliptic-function solution must satisfy what any pendulum solution satisfies: the rod
// length, zero energy (released at rest from y = 0), v = dP/dt, and the known quarter period.
TEST(SimplePendulumReference, ExactSolutionIsAPendulumSolution) {
  auto problem = make_problem("simple_pendulum", {});
  std::vector<double> times;
  for (int i = 0; i <= 200; ++i) times.push_back(0.05 * i);
  const Mat ref = problem->reference_outputs(times);
  for (int i = 0; i < ref.rows(); ++i) {
    const double x = ref(i, 0), y = ref(i, 1), vx = ref(i, 2), vy = ref(i, 3);
    EXPECT_NEAR(x * x + y * y, 1.0, 1e-13);
    EXPECT_NEAR(0.5 * (vx * vx + vy * vy) + kG * y, 0.0, 1e-12);
  }
  const double h = 1e-5;
  const Mat around = problem->reference_outputs({3.0 - h, 3.0, 3.0 + h});
  EXPECT_NEAR((around(2, 0) - around(0, 0)) / (2 * h), around(1, 2), 1e-8);
  EXPECT_NEAR((around(2, 1) - around(0, 1)) / (2 * h), around(1, 3), 1e-8);
  const double quarter = boost::math::ellint_1(std::sqrt(0.5)) / std::sqrt(kG);
  const Mat bottom = problem->reference_outputs({quarter, 4 * quarter});
  EXPECT_NEAR(bottom(0, 0), 0.0, 1e-13);
  EXPECT_NEAR(bottom(0, 1), -1.0, 1e-13);
  EXPECT_NEAR(bottom(1, 0), 1.0, 1e-12);  // one full period: back at the start
}

// Acceptance: fehlberg78 at tight tolerance reaches the exact solution at t = 10 s to better
// than 1e-8, and λ the exact rod tension to 1e-6 relative.
TEST(SimplePendulumReference, TightSimulationMatchesExactSolution) {
  for (const std::string method : {"index1", "baumgarte"}) {
    const auto r = quick_run(tight_run("simple_pendulum", method));
    ASSERT_EQ(r["status"], "ok") << method;
    EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-8) << method;
    EXPECT_LT(r["metrics"]["multipliers"]["max_rel_error"].get<double>(), 1e-6) << method;
  }
}

// The problem's specification quotes the crank angle at 10 s as about −3.5299 rad (5 significant
// digits; docs/sources.md, "Problems defined for cmbench").
TEST(ChartReference, CrankRockerMatchesQuotedCrankAngle) {
  auto problem = make_problem("crank_rocker", {});
  const Mat ref = problem->reference_outputs({10.0});
  EXPECT_NEAR(ref(0, 0), -3.5299, 5e-5);
}

// The claimed accuracy (kChartAccuracy) of the default integration is estimated by its distance
// to a 10× tighter one.
TEST(ChartReference, ClaimedAccuracyHolds) {
  for (const std::string id : {"crank_rocker", "slider_crank", "n_four_bar"}) {
    auto problem = make_problem(id, {});
    auto* linkage = dynamic_cast<PlanarLinkage*>(problem.get());
    ASSERT_NE(linkage, nullptr);
    const Chart chart = [&](const Jet2& phi, std::vector<Jet2>& q) { linkage->chart(phi, q); };
    const int nq = problem->sizes().nq;
    Vec q0(nq), v0(nq);
    problem->initial_state(q0, v0);
    std::vector<double> times;
    for (int i = 1; i <= 20; ++i) times.push_back(problem->t_end() * i / 20);
    const double phi0 = linkage->phi0(), phidot0 = linkage->phidot0();
    const Mat tight = integrate_chart(*problem, chart, phi0, phidot0, times, kChartTolerance);
    const Mat tighter =
        integrate_chart(*problem, chart, phi0, phidot0, times, kChartTolerance / 10);
    EXPECT_LT((tight - tighter).lpNorm<Eigen::Infinity>(), kChartAccuracy) << id;
    // Energy is conserved along the reference: an independent check of the reduced equation.
    Vec q(nq), v(nq);
    const double e0 = problem->energy(0.0, q0, v0);
    for (std::size_t i = 0; i < times.size(); ++i) {
      chart_state(chart, nq, tight(i, 0), tight(i, 1), q, v);
      EXPECT_NEAR(problem->energy(times[i], q, v), e0, 1e-9 * std::max(1.0, std::abs(e0))) << id;
    }
  }
}

// Every problem is simulated to its reference with a stabilized method at tight tolerance.
TEST(ChartReference, SimulationsFollowReferences) {
  for (const std::string id : {"crank_rocker", "slider_crank"}) {
    const auto r = quick_run(tight_run(id, "baumgarte"));
    ASSERT_EQ(r["status"], "ok") << id;
    EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-7) << id;
    EXPECT_LT(r["metrics"]["energy"]["max_rel"].get<double>(), 1e-8) << id;
  }
}

// Issue #4's acceptance for Andrews' squeezer. The published positions are good to about
// 2.7e-10 relative (problems/andrews_squeezer.cpp; [IVPTestSet] in docs/sources.md), so a
// solution accurate to ~1e-11 scores scd ≈ 9.5; scd ≥ 9 asks for agreement to 1e-9. Multipliers
// to 1e-5 relative and the energy invariant to 1e-8 J are the bounds; fehlberg78 at
// 1e-12 keeps the solution error near 1e-11.
TEST(AndrewsSqueezer, MatchesThePublishedReference) {
  RunConfig c = tight_run("andrews_squeezer", "index1");
  const auto r = quick_run(c);
  ASSERT_EQ(r["status"], "ok");
  const auto& m = r["metrics"];
  EXPECT_GE(m["error"]["scd"].get<double>(), 9.0);
  EXPECT_LT(m["multipliers"]["final_rel_error"].get<double>(), 1e-5);
  EXPECT_LT(m["energy"]["max_abs"].get<double>(), 1e-8);
}

// car_axis (Bari test set, rheonomic constraints) against the published solution at t = 3. The
// published positions are good to ~3e-13 and fehlberg78 at 1e-13 lands within 3.3e-13 of them
// (index1; projection never needs to project at that tolerance), so 1e-10 leaves a wide margin.
// It fails when a time term is wrong: with ν = 0 the initial state is refused (J v − ν = 0.5), and
// without the ÿb·yl term of γ index1 leaves the branch (branch_switch at t ≈ 1.07).
// Multipliers: the published λ is good to ~2e-10 absolute (tight runs here — fehlberg78 and
// bulirsch_stoer; index1, projection, coordinate_partitioning — agree with each other to ~1e-13
// and with it to 1.6e-10 in λ_0, 8.0e-11 in λ_1); the run's own λ error is below 1e-13
// (1e-12 and 1e-13 runs differ by 8e-14), counted as 1e-11, so the bound is 2.1e-10 absolute.
// The comparison also checks the sign conversion: λ_source = −λ_cmbench is 9.5e-3 away.
TEST(CarAxis, MatchesThePublishedReference) {
  const auto r = quick_run(tight_run("car_axis", "index1", 1e-13));
  ASSERT_EQ(r["status"], "ok") << r["message"];
  const auto& m = r["metrics"];
  EXPECT_DOUBLE_EQ(m["error"]["t"].get<double>(), 3.0);
  EXPECT_LT(m["error"]["final_abs_max"].get<double>(), 1e-10);
  const auto& lambda = m["multipliers"];
  ASSERT_TRUE(lambda.contains("reference_final")) << "no published multipliers at t = 3";
  for (int i = 0; i < 2; ++i)
    EXPECT_NEAR(lambda["final"][i].get<double>(), lambda["reference_final"][i].get<double>(),
                2.1e-10)
        << "lambda_" << i;
  EXPECT_GT(lambda["reference_final"][0].get<double>(), 0.0) << "sign not converted";
}

// Every registered method runs the rheonomic car_axis to a recorded status (no exception); a
// method that cannot handle it must say so (a non-ok status with a message), and one that ends
// ok must be right: dopri5 at 1e-8 reaches the published solution to ≤ 1.0e-7 with every method
// (measured), so 1e-6 leaves a 10× margin. A method that dropped a time term of γ would be off by
// more: without the ÿb·yl term, baumgarte ends ok 3.9e-3 off, coordinate_partitioning 3.0e-4
// and even projection (which restores Φ = 0 and J v = ν after every step) 8.6e-6.
TEST(CarAxis, EveryMethodEndsWithAStatus) {
  for (const auto& entry : method_registry()) {
    RunConfig c;
    c.problem = "car_axis";
    c.method = entry.id;
    c.stepper = "dopri5";
    c.abs_tol = c.rel_tol = 1e-8;
    nlohmann::json r;
    ASSERT_NO_THROW(r = quick_run(c)) << entry.id;
    ASSERT_TRUE(r["status"].is_string()) << entry.id;
    if (r["status"] == "ok") {
      EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-6) << entry.id;
    } else {
      EXPECT_FALSE(r["message"].get<std::string>().empty()) << entry.id << ": " << r["status"];
    }
  }
}

// The closed form is exact: its own consistency is checked (energy, and ω̇ = κ u ω by central
// differences), then every nonholonomic-capable method at tolerance 1e-12 must reach it to 1e-8
// at t = 10 s (issue #4's bound; ~1e-12 is expected).
TEST(ChaplyginSleigh, ClosedFormIsASolutionAndMethodsReachIt) {
  auto problem = make_problem("chaplygin_sleigh", {});
  const double h = 1e-5, J = 0.1 + 0.25, kappa = 0.5 / J;
  const Mat ref = problem->reference_outputs({3.0 - h, 3.0, 3.0 + h});
  const double u = ref(1, 0), omega = ref(1, 1);
  EXPECT_NEAR(0.5 * u * u + 0.5 * J * omega * omega, 0.5 * (1.0 + J), 1e-14);
  EXPECT_NEAR((ref(2, 1) - ref(0, 1)) / (2 * h), kappa * u * omega, 1e-8);
  EXPECT_NEAR((ref(2, 0) - ref(0, 0)) / (2 * h), -0.5 * omega * omega, 1e-8);
  EXPECT_NEAR((ref(2, 2) - ref(0, 2)) / (2 * h), omega, 1e-8);
  for (const auto& entry : method_registry()) {
    if (!entry.capabilities.nonholonomic) continue;
    RunConfig c = tight_run("chaplygin_sleigh", entry.id);
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok") << entry.id;
    EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-8) << entry.id;
  }
}

// Issue #4's acceptance for kane_pendulum: Lagrange's equations in redundant coordinates with
// two constraints, integrated by a drift-free method, against Kane's equations in minimal
// coordinates. At tolerance 1e-12 over 2 s both sides are accurate to ~1e-12, so 1e-8 is the
// issue's bound with four orders of margin.
TEST(KanePendulum, ConstrainedFormulationMatchesKaneEquations) {
  for (const std::string method : {"projection", "coordinate_partitioning"}) {
    RunConfig c = tight_run("kane_pendulum", method);
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok") << method;
    EXPECT_LT(r["metrics"]["error"]["final_abs_max"].get<double>(), 1e-8) << method;
    EXPECT_DOUBLE_EQ(r["metrics"]["error"]["t"].get<double>(), 2.0);
  }
}

// Issue #4's acceptance for rolling_disk: steady turning is an exact solution (derived and
// checked in problems/derive/rolling_disk.py); the drift-free projection method must keep lean,
// yaw rate and spin rate constant to 1e-8 over 10 s, and energy must hold.
TEST(RollingDisk, SteadyTurningStaysSteady) {
  RunConfig c = tight_run("rolling_disk", "projection");
  const auto r = quick_run(c);
  ASSERT_EQ(r["status"], "ok");
  EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-8);
  EXPECT_LT(r["metrics"]["drift"]["velocity"]["max"].get<double>(), 1e-11);
  EXPECT_LT(r["metrics"]["energy"]["max_rel"].get<double>(), 1e-8);
}

// Issue #4's acceptance for Bricard: the structural rank deficiency is detected (rank 4 of 5
// rows everywhere on the configuration curve), the redundancy-capable methods run the 10 s
// horizon against the self-converged reference with energy and residual recorded, and index1
// reports `singular`. Bounds: dopri5 at 1e-8 takes about 240 steps over the 10 s, each with a
// local error up to the tolerance, so the global error may reach a few 1e-6 (every sample is
// scored) and the drift and relative energy error stay below 1e-6; 1e-5 still flags a method
// that leaves the solution, whose errors are O(1e-2) and more.
TEST(Bricard, RedundancyIsDetectedAndCapableMethodsRun) {
  auto problem = make_problem("bricard", {});
  Vec q(5), v(5);
  problem->initial_state(q, v);
  Mat J(5, 5);
  problem->jacobian(0.0, q, J);
  EXPECT_EQ(row_rank(J), 4);
  const std::string cache = scratch_path("bricard_reference").string();
  for (const std::string method :
       {"svd_null_space", "udwadia_kalaba", "gauss_qp", "augmented_lagrangian"}) {
    RunConfig c;
    c.problem = "bricard";
    c.method = method;
    c.stepper = "dopri5";
    c.abs_tol = c.rel_tol = 1e-8;
    c.reference_cache = cache;
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok") << method << ": " << r["message"];
    EXPECT_EQ(r["reference"]["kind"], "self_converged");
    EXPECT_LT(r["reference"]["accuracy"].get<double>(), 1e-9);
    EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-5) << method;
    EXPECT_LT(r["metrics"]["energy"]["max_rel"].get<double>(), 1e-6) << method;
    EXPECT_LT(r["metrics"]["drift"]["position"]["max"].get<double>(), 1e-6) << method;
    EXPECT_FALSE(r["metrics"]["multipliers"]["unique"].get<bool>()) << method;
  }
  RunConfig c;
  c.problem = "bricard";
  c.method = "index1";
  c.stepper = "dopri5";
  c.abs_tol = c.rel_tol = 1e-8;
  EXPECT_EQ(quick_run(c)["status"], "singular");
  std::filesystem::remove_all(cache);
}

// Issue #4's acceptance for the flyball governor: the stiff rosenbrock4 and an explicit stepper
// both reach the self-converged reference at tolerance 1e-6. Strongly damped modes forget local
// errors, so the global error stays within a few hundred times the tolerance; 1e-4 m (0.02% of
// s) is that bound. The work each needs is reported in the closing note of issue #4. Under the
// sanitizers (kSanitizedBuild) the horizon is the first second.
TEST(FlyballGovernor, StiffAndExplicitSteppersReachTheReference) {
  const std::string cache = scratch_path("flyball_reference").string();
  for (const std::string stepper : {"rosenbrock4", "dopri5"}) {
    RunConfig c;
    c.problem = "flyball_governor";
    c.t_end = horizon(10.0, 1.0);
    c.method = "index1";
    c.stepper = stepper;
    c.abs_tol = c.rel_tol = 1e-6;
    c.reference_cache = cache;
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok") << stepper;
    EXPECT_LT(r["reference"]["accuracy"].get<double>(), 1e-8);
    EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-4) << stepper;
  }
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace cmb::test
