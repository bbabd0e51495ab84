// The spatial problems' self-converged references, checked without them: spatial_chain with one
// link is a heavy symmetric body on a fixed point, which problems/symmetric_top's
// reduced ODE integrates independently of the natural coordinates; spatial_slider_crank has one
// degree of freedom, so its motion follows from the energy integral in the crank angle by
// quadrature, and the IFToMM benchmark publishes a solution of it.
#include <gtest/gtest.h>

#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <random>

#include "conformance/test_support.hpp"
#include "harness/run/run.hpp"
#include "problems/symmetric_top.hpp"

namespace cmb::test {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

// The link of problems/spatial_chain.cpp's header: a solid cylinder, l = 0.5 m, r = 0.02 m,
// m = 1 kg, hanging from its end (its centroid l/2 from the fixed point).
constexpr double kLength = 0.5, kRadius = 0.02, kMass = 1.0;
constexpr double kTransverse = kMass * (3.0 * kRadius * kRadius + kLength * kLength) / 12.0;
constexpr double kAxial = 0.5 * kMass * kRadius * kRadius;
constexpr symmetric_top::TopData kLink{kMass, 0.5 * kLength, kTransverse, kAxial, 9.81};

// Over generated releases the tip (twice the centroid's offset) follows the reduced ODE
// released at θ₀ = π − tilt0 with φ̇₀ = omega0 and spin omega0·cos θ₀ (a rigid turn about the
// vertical). Both sides are integrations to ~1e-10 (fehlberg78 at 1e-12; Bulirsch–Stoer at
// 1e-13), so 1e-8 m, issue #4's bound for reduced-ODE references, leaves a margin of 100.
TEST(SpatialChainReference, OneLinkFollowsTheSymmetricBodyOnAFixedPoint) {
  std::mt19937 generator(33);
  std::uniform_real_distribution<double> tilt(0.2, 1.4), rate(1.0, 6.0);
  for (int trial = 0; trial < 6; ++trial) {
    const double tilt0 = tilt(generator), omega0 = rate(generator);
    RunConfig c = tight_run("spatial_chain", "projection");
    c.problem_params = {{"N", 1}, {"tilt0", tilt0}, {"omega0", omega0}};
    c.t_end = 2.0;
    c.sample_dt = 0.05;
    c.compute_reference = false;
    const RunResult run = run_in_process(c);
    SCOPED_TRACE("tilt0 " + std::to_string(tilt0) + ", omega0 " + std::to_string(omega0));
    ASSERT_EQ(to_json(run.record)["status"], "ok");
    const double theta0 = kPi - tilt0;
    const symmetric_top::Release release{theta0, omega0 * std::cos(theta0), omega0};
    const Mat ref = symmetric_top::reference_outputs(kLink, release, run.series.t);
    double worst = 0.0;
    for (std::size_t i = 0; i < run.series.t.size(); ++i)
      worst = std::max(worst, (run.series.outputs[i] - 2.0 * ref.row(i).head<3>().transpose())
                                  .lpNorm<Eigen::Infinity>());
    EXPECT_LT(worst, 1e-8);
  }
}

// spatial_slider_crank reduced to its crank angle θ, from the data of the problem's header alone:
// A = (0, 0.1, 0.12), crank 0.08 m with its centroid c from A, rod 0.3 m, masses 0.12, 0.5, 2 kg;
// the crank's 1e-4 kg·m² about the axis, the rod's 4e-3 transverse and 4e-4 about itself.
class ReducedSliderCrank {
 public:
  ReducedSliderCrank(double centroid, double omega0)
      : c_(centroid), energy_(0.5 * mass(0.0) * omega0 * omega0 + potential(0.0)) {}

  // The time the crank takes from θ₀ to θ₁: ∫ dθ / θ̇, θ̇ from T + V = E with T = m(θ) θ̇²/2.
  // Gauss–Kronrod to 1e-11 relative, above the integrand's rounding (~1e-11, see mass).
  double time_between(double theta0, double theta1) const {
    auto inverse_rate = [this](double a) {
      return std::sqrt(mass(a) / (2.0 * (energy_ - potential(a))));
    };
    return boost::math::quadrature::gauss_kronrod<double, 31>::integrate(inverse_rate, theta0,
                                                                         theta1, 10, 1e-11);
  }

 private:
  static constexpr double kAy = 0.1, kAz = 0.12, kCrank = 0.08, kRod = 0.3, kG = 9.81;
  static constexpr double kCrankMass = 0.12, kRodMass = 0.5, kSliderMass = 2.0;
  static constexpr double kCrankInertia = 1e-4, kRodAcross = 4e-3, kRodAlong = 4e-4;

  static Eigen::Vector3d tip(double a) {
    return {0.0, kAy - kCrank * std::sin(a), kAz + kCrank * std::cos(a)};
  }
  static Eigen::Vector3d slider(double a) {
    const Eigen::Vector3d B = tip(a);
    return {std::sqrt(kRod * kRod - B.y() * B.y() - B.z() * B.z()), 0.0, 0.0};
  }
  // The rod's frame: its axis, and the direction across it that the universal joint keeps
  // perpendicular to the slider's x axis.
  static Eigen::Matrix3d rod_frame(double a) {
    const Eigen::Vector3d d = (slider(a) - tip(a)) / kRod;
    const Eigen::Vector3d across = Eigen::Vector3d::UnitX().cross(d).normalized();
    Eigen::Matrix3d F;
    F << d, across, d.cross(across);
    return F;
  }
  // m(θ) = 2T/θ̇², each velocity per unit θ̇ by central differences (step 1e-5: truncation
  // ~1e-10·|third derivative|, rounding ~1e-11).
  double mass(double a) const {
    const double h = 1e-5;
    const Eigen::Vector3d tip_rate = (tip(a + h) - tip(a - h)) / (2.0 * h);
    const Eigen::Vector3d slider_rate = (slider(a + h) - slider(a - h)) / (2.0 * h);
    const Eigen::Matrix3d spin =
        (rod_frame(a + h) - rod_frame(a - h)) / (2.0 * h) * rod_frame(a).transpose();
    const Eigen::Vector3d w(spin(2, 1), spin(0, 2), spin(1, 0));
    const double along = w.dot(rod_frame(a).col(0));
    return kCrankInertia + kCrankMass * c_ * c_ + kSliderMass * slider_rate.squaredNorm() +
           kRodMass * (0.5 * (tip_rate + slider_rate)).squaredNorm() +
           kRodAcross * (w.squaredNorm() - along * along) + kRodAlong * along * along;
  }
  double potential(double a) const {
    return kG * (kCrankMass * (kAz + c_ * std::cos(a)) + kRodMass * 0.5 * tip(a).z());
  }

  double c_, energy_;
};

// The crank angle of each sample, unwrapped, from the outputs crank_tip_y and crank_tip_z.
std::vector<double> crank_angles(const RunResult& run) {
  std::vector<double> angles;
  double previous = 0.0;
  for (const Vec& y : run.series.outputs) {
    double a = std::atan2(-(y(1) - 0.1), y(2) - 0.12);
    a += 2.0 * kPi * std::round((previous - a) / (2.0 * kPi));
    angles.push_back(previous = a);
  }
  return angles;
}

// Over both centroid readings and generated crank speeds the model reaches each sampled angle
// at the time the quadrature gives. The run is good to ~1e-10 m (fehlberg78 at 1e-12), ~1e-9 rad
// of crank angle, 2e-10 s at the slowest crank rate (~5 rad/s); the quadrature adds 1e-11
// relative: 1e-9 s.
TEST(SpatialSliderCrankReference, ReachesEachCrankAngleWhenTheEnergyIntegralSays) {
  std::mt19937 generator(12);
  std::uniform_real_distribution<double> rate(4.0, 9.0);
  for (const double centroid : {0.0, 0.04}) {
    const double omega0 = rate(generator);
    RunConfig c = tight_run("spatial_slider_crank", "index1");
    c.problem_params = {{"crank_centroid", centroid}, {"omega0", omega0}};
    c.sample_dt = 0.02;
    c.compute_reference = false;
    const RunResult run = run_in_process(c);
    SCOPED_TRACE("crank_centroid " + std::to_string(centroid) + ", omega0 " +
                 std::to_string(omega0));
    ASSERT_EQ(to_json(run.record)["status"], "ok");
    const ReducedSliderCrank reduced(centroid, omega0);
    const std::vector<double> angles = crank_angles(run);
    double worst = 0.0, t = 0.0;
    for (std::size_t i = 1; i < angles.size(); ++i) {
      t += reduced.time_between(angles[i - 1], angles[i]);
      worst = std::max(worst, std::abs(t - run.series.t[i]));
    }
    EXPECT_LT(worst, 1e-9);
  }
}

// The IFToMM benchmark's solution published under the name González: the slider's x [m] at
// these times [s] (of its 0.01 s table over 5 s), crank released at 6 rad/s.
constexpr double kPublished[][2] = {{0.1, 0.226785384}, {0.2, 0.263034975}, {0.3, 0.28194126},
                                    {0.4, 0.222848664}, {0.5, 0.184952803}, {0.6, 0.205149298},
                                    {0.7, 0.233436939}, {0.8, 0.272248997}, {0.9, 0.269894777},
                                    {1.0, 0.211754668}, {1.5, 0.25696554},  {2.0, 0.289063554},
                                    {2.5, 0.256509783}, {3.0, 0.228450093}, {3.5, 0.206512886},
                                    {4.0, 0.188208161}, {4.5, 0.199295373}, {5.0, 0.240761815}};

double worst_against_published(double centroid) {
  RunConfig c;
  c.problem = "spatial_slider_crank";
  c.method = "index1";
  c.stepper = "rk4";  // fixed steps sample at exactly the published times
  c.dt = 1e-3;
  c.t_end = 5.0;
  c.sample_dt = 0.1;
  c.compute_reference = false;
  c.problem_params = {{"crank_centroid", centroid}};
  const RunResult run = run_in_process(c);
  EXPECT_EQ(to_json(run.record)["status"], "ok");
  double worst = 0.0;
  for (const auto& point : kPublished) {
    const std::size_t i = std::lround(point[0] / 0.1);
    EXPECT_NEAR(run.series.t[i], point[0], 1e-12);
    worst = std::max(worst, std::abs(run.series.outputs[i](0) - point[1]));
  }
  return worst;
}

// The published solution states no error; it and MBDyn's (the other IFToMM solution) differ by
// up to 9e-4 m. With the crank's centroid at mid-crank the model stays within 1e-4 m, 0.1 % of the
// slider's stroke, over the 5 s (rk4 at 1 ms adds < 1e-6); with it on the axis it is off by more
// than 1e-2 m within the first second: the published motion settles that reading.
TEST(SpatialSliderCrankReference, FollowsTheIFToMMPublishedSolution) {
  EXPECT_LT(worst_against_published(0.04), 1e-4);
  EXPECT_GT(worst_against_published(0.0), 1e-2);
}

}  // namespace
}  // namespace cmb::test
