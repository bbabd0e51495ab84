// The symmetric top's reference against what the top's integrals alone predict and against an
// independent quaternion integration in long double at every release the problem accepts, and
// both models (Euler parameters, natural coordinates) against that reference.
#include <gtest/gtest.h>

#include <array>
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <random>

#include "catalog/catalog.hpp"
#include "conformance/test_support.hpp"
#include "problems/symmetric_top.hpp"

namespace cmb::test {
namespace {

using symmetric_top::kArm;
using symmetric_top::kAxial;
using symmetric_top::kG;
using symmetric_top::kMass;
using symmetric_top::kTransverse;

// With u = cos θ the energy and the two momenta give u̇² = f(u), a cubic with f(±1) < 0 and a
// positive leading coefficient ([Goldstein2002] §5.7): u swings between its two roots in
// [−1, 1], u₁ < u₂, with period T = 4 K(k) / √(β (u₃ − u₁)), k² = (u₂ − u₁)/(u₃ − u₁) (the
// substitution u = u₁ + (u₂ − u₁) sin² s). Released with θ̇ = 0, cos θ₀ is one of the two.
struct Nutation {
  double low, high, period;
};

Nutation nutation_from_integrals(double theta0, double spin, double phidot0) {
  const double a0 = kTransverse + kMass * kArm * kArm;
  const double u0 = std::cos(theta0), sin2 = 1.0 - u0 * u0;
  const double p_psi = kAxial * spin, p_phi = a0 * phidot0 * sin2 + p_psi * u0;
  const double energy = 0.5 * a0 * phidot0 * phidot0 * sin2 + kMass * kG * kArm * u0;
  const double alpha = 2.0 * energy / a0, beta = 2.0 * kMass * kG * kArm / a0;
  const double a = p_psi / a0, b = p_phi / a0;
  // f(u) = β u³ − (α + a²) u² + (2ab − β) u + (α − b²) = (u − u₀)(β u² + c₁ u + c₀).
  const double c2 = beta, c1 = -(alpha + a * a) + beta * u0, c0 = (2 * a * b - beta) + c1 * u0;
  const double disc = std::sqrt(c1 * c1 - 4 * c2 * c0);
  const double r1 = (-c1 - disc) / (2 * c2), r2 = (-c1 + disc) / (2 * c2);  // r1 < r2
  // The roots in [−1, 1] are u₀ and the one of r1, r2 inside; the third, u₃, lies above 1.
  const double other = std::abs(r1) <= 1.0 ? r1 : r2, third = std::abs(r1) <= 1.0 ? r2 : r1;
  const double low = std::min(u0, other), high = std::max(u0, other);
  const double k = std::sqrt((high - low) / (third - low));
  return {low, high, 4.0 * boost::math::ellint_1(k) / std::sqrt(beta * (third - low))};
}

// Over generated tops: cos θ = z/l of the reference is back at cos θ₀ after one period from the
// quadrature and at the other root after half of it; the two are turning points, where a time
// error costs nothing to first order, so the bound is the reference's own claim in z doubled
// (divided by l for u), each side held to it.
TEST(LagrangeTopReference, NutatesBetweenTheRootsOfItsCubicWithTheQuadraturePeriod) {
  std::mt19937 generator(30);
  std::uniform_real_distribution<double> tilt(0.2, 2.5), spin(10.0, 100.0), precession(0.0, 5.0);
  for (int trial = 0; trial < 12; ++trial) {
    const double theta0 = tilt(generator), w = spin(generator), phidot0 = precession(generator);
    const Nutation n = nutation_from_integrals(theta0, w, phidot0);
    auto problem =
        make_problem("lagrange_top", {{"theta0", theta0}, {"spin", w}, {"phidot0", phidot0}});
    const double bound = 2.0 * problem->reference_info().accuracy / kArm;
    const Mat ref = problem->reference_outputs({0.5 * n.period, n.period, 2.0 * n.period});
    const double u0 = std::cos(theta0);
    const double other = std::abs(u0 - n.low) < std::abs(u0 - n.high) ? n.high : n.low;
    SCOPED_TRACE("theta0 " + std::to_string(theta0) + ", spin " + std::to_string(w) + ", phidot0 " +
                 std::to_string(phidot0));
    EXPECT_NEAR(ref(0, 2) / kArm, other, bound);
    EXPECT_NEAR(ref(1, 2) / kArm, u0, bound);
    EXPECT_NEAR(ref(2, 2) / kArm, u0, bound);
  }
}

// An independent computation of the same top: Euler's equations for the body rates ω̄ with the
// gravity moment in body axes, J̄ ω̄' = m̄ − ω̄ × J̄ ω̄ (J̄ = diag(A₀, A₀, C) about the tip), and
// the orientation as a unit quaternion, q' = q ⊗ (0, ω̄)/2, in long double at tolerance 1e-18.
// It shares nothing with the reference but the data: no axis–momentum split, no closed-form
// spin, no chart. Returns cm_x, cm_y, cm_z and body_x_z at `times` (from 0).
using LongState = std::array<long double, 7>;  // q (w, x, y, z), ω̄
std::vector<std::array<double, 4>> quaternion_top(double theta0, double spin, double phidot0,
                                                  const std::vector<long double>& times) {
  using LD = long double;
  const LD a0 = LD(kTransverse) + LD(kMass) * kArm * kArm, c = kAxial, mgl = LD(kMass) * kG * kArm;
  auto rotation_column = [](const LongState& x, int column, LD out[3]) {
    const LD n = std::sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    const LD w = x[0] / n, a = x[1] / n, b = x[2] / n, d = x[3] / n;
    const LD r[3][3] = {{1 - 2 * (b * b + d * d), 2 * (a * b - w * d), 2 * (a * d + w * b)},
                        {2 * (a * b + w * d), 1 - 2 * (a * a + d * d), 2 * (b * d - w * a)},
                        {2 * (a * d - w * b), 2 * (b * d + w * a), 1 - 2 * (a * a + b * b)}};
    for (int i = 0; i < 3; ++i) out[i] = r[i][column];
  };
  auto rhs = [&](const LongState& x, LongState& dx, LD) {
    // The vertical in body axes is the third row of R, i.e. (R e_x)_z, (R e_y)_z, (R e_z)_z.
    LD cx[3], cy[3], cz[3];
    rotation_column(x, 0, cx);
    rotation_column(x, 1, cy);
    rotation_column(x, 2, cz);
    const LD up[3] = {cx[2], cy[2], cz[2]};
    // Moment of gravity about the tip: (0, 0, l) × (−m g up) in body axes.
    const LD m1 = mgl * up[1], m2 = -mgl * up[0];
    const LD w1 = x[4], w2 = x[5], w3 = x[6];
    dx[4] = (m1 - (c - a0) * w2 * w3) / a0;
    dx[5] = (m2 - (a0 - c) * w3 * w1) / a0;
    dx[6] = 0;  // (A₀ − A₀) ω̄1 ω̄2 and no moment about the axis
    dx[0] = -(x[1] * w1 + x[2] * w2 + x[3] * w3) / 2;
    dx[1] = (x[0] * w1 + x[2] * w3 - x[3] * w2) / 2;
    dx[2] = (x[0] * w2 + x[3] * w1 - x[1] * w3) / 2;
    dx[3] = (x[0] * w3 + x[1] * w2 - x[2] * w1) / 2;
  };
  std::vector<std::array<double, 4>> out;
  auto record = [&](const LongState& x, LD) {
    LD cx[3], cz[3];
    rotation_column(x, 0, cx);
    rotation_column(x, 2, cz);
    out.push_back(
        {double(kArm * cz[0]), double(kArm * cz[1]), double(kArm * cz[2]), double(cx[2])});
  };
  // The release is a rotation by θ0 about x: q = (cos θ0/2, sin θ0/2, 0, 0).
  const LD half = LD(theta0) / 2;
  LongState x{std::cos(half), std::sin(half), 0, 0, 0, LD(phidot0) * std::sin(LD(theta0)), spin};
  boost::numeric::odeint::bulirsch_stoer<LongState, LD> stepper(1e-18L, 1e-18L);
  boost::numeric::odeint::integrate_times(stepper, rhs, x, times.begin(), times.end(), 1e-5L,
                                          record);
  return out;
}

// Over generated releases anywhere the problem accepts them (θ0 in (0, π), spin up to 200 rad/s,
// precession up to 10 rad/s: tops that pass next to or through the downward vertical, fast
// spinners) and the whole 10 s horizon, every output of the reference is within its claimed
// accuracy of the quaternion integration.
TEST(LagrangeTopReference, HoldsItsClaimedAccuracyAtEveryRelease) {
  std::mt19937 generator(31);
  std::uniform_real_distribution<double> tilt(0.0, M_PI), spin(0.0, 200.0), precession(0.0, 10.0);
  std::vector<double> times;
  std::vector<long double> long_times{0.0L};
  for (int i = 1; i <= 200; ++i) {
    times.push_back(0.05 * i);
    long_times.push_back(static_cast<long double>(i) / 20);
  }
  // The releases the issue found off: a top that falls to θ = 177.8°, and a fast spinner.
  std::vector<std::array<double, 3>> releases = {{0.5, 0.0, 3.0}, {0.5, 200.0, 0.0}};
  for (int trial = 0; trial < 24; ++trial)
    releases.push_back({std::max(1e-3, tilt(generator)), trial % 3 == 0 ? 0.0 : spin(generator),
                        trial % 4 == 1 ? 0.0 : precession(generator)});
  for (const auto& [theta0, w, phidot0] : releases) {
    auto problem =
        make_problem("lagrange_top", {{"theta0", theta0}, {"spin", w}, {"phidot0", phidot0}});
    const double claim = problem->reference_info().accuracy;
    const Mat ref = problem->reference_outputs(times);
    const auto exact = quaternion_top(theta0, w, phidot0, long_times);
    SCOPED_TRACE("theta0 " + std::to_string(theta0) + ", spin " + std::to_string(w) + ", phidot0 " +
                 std::to_string(phidot0));
    double worst = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i)
      for (int k = 0; k < 4; ++k) worst = std::max(worst, std::abs(ref(i, k) - exact[i + 1][k]));
    EXPECT_LT(worst, claim);
  }
}

// The Euler-parameter model (four rows, a mass matrix singular without its norm term) and the
// natural-coordinate one (six rows, a constant mass matrix) against the reference over
// 2 s (100 spin turns, 3 nutations). At tolerance 1e-12 the runs themselves are off by ~3e-10 m
// (projection, measured; 1.3e-11 at 1e-14), so 1e-8 m, issue #4's bound for reduced-ODE references,
// leaves a margin. Over the 10 s horizon the spin's phase error grows to 4.6e-9 (projection)
// and 9.7e-8 (index1, whose drift is not corrected) at 1e-12.
TEST(LagrangeTop, BothModelsFollowTheReferenceTop) {
  for (const std::string problem : {"lagrange_top", "lagrange_top_natural"})
    for (const std::string method : {"index1", "projection"}) {
      RunConfig c = tight_run(problem, method);
      c.t_end = 2.0;
      const auto r = quick_run(c);
      ASSERT_EQ(r["status"], "ok") << problem << ", " << method << ": " << r["message"];
      EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-8) << problem << ", " << method;
    }
}

}  // namespace
}  // namespace cmb::test
