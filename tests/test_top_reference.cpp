// The symmetric top's Euler-angle reference against what the top's integrals alone predict and
// against its own equations in long double, and both models (Euler parameters, natural
// coordinates) against that reference.
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

// The reference's equations again, in long double at tolerance 1e-18: where the reference's
// claimed accuracy comes from (the double-precision run at 1e-13 loses the spin's phase slowly).
// Euler angles (θ, θ̇, φ, ψ) as in problems/lagrange_top.cpp; returns z/l and body_x_z at `times`.
using LongAngles = std::array<long double, 4>;
std::vector<std::array<double, 2>> long_double_top(double theta0, double spin, double phidot0,
                                                   const std::vector<long double>& times) {
  const long double a0 = kTransverse + kMass * kArm * kArm, mgl = kMass * kG * kArm;
  const long double s0 = std::sin(static_cast<long double>(theta0));
  const long double p_psi = kAxial * static_cast<long double>(spin);
  const long double p_phi = a0 * phidot0 * s0 * s0 + p_psi * std::cos((long double)theta0);
  auto rhs = [&](const LongAngles& x, LongAngles& dx, long double) {
    const long double s = std::sin(x[0]), c = std::cos(x[0]);
    const long double phi_rate = (p_phi - p_psi * c) / (a0 * s * s);
    dx = {x[1], (a0 * phi_rate * phi_rate * s * c - p_psi * phi_rate * s + mgl * s) / a0, phi_rate,
          p_psi / kAxial - phi_rate * c};
  };
  std::vector<std::array<double, 2>> out;
  auto record = [&](const LongAngles& x, long double) {
    out.push_back({static_cast<double>(std::cos(x[0])),
                   static_cast<double>(std::sin(x[0]) * std::sin(x[3]))});
  };
  LongAngles x{theta0, 0.0L, 0.0L, 0.0L};
  boost::numeric::odeint::bulirsch_stoer<LongAngles, long double> stepper(1e-18L, 1e-18L);
  boost::numeric::odeint::integrate_times(stepper, rhs, x, times.begin(), times.end(), 1e-4L,
                                          record);
  return out;
}

// Over generated tops and the whole 10 s horizon, every output the reference gives that depends
// on θ and ψ (z and body_x_z) is within its claimed accuracy of the long-double integration.
TEST(LagrangeTopReference, HoldsItsClaimedAccuracyOverTheHorizon) {
  std::mt19937 generator(31);
  std::uniform_real_distribution<double> tilt(0.2, 2.5), spin(10.0, 100.0), precession(0.0, 5.0);
  std::vector<double> times;
  std::vector<long double> long_times{0.0L};
  for (int i = 1; i <= 200; ++i) {
    times.push_back(0.05 * i);
    long_times.push_back(static_cast<long double>(i) / 20);
  }
  for (int trial = 0; trial < 6; ++trial) {
    const double theta0 = tilt(generator), w = spin(generator), phidot0 = precession(generator);
    auto problem =
        make_problem("lagrange_top", {{"theta0", theta0}, {"spin", w}, {"phidot0", phidot0}});
    const double claim = problem->reference_info().accuracy;
    const Mat ref = problem->reference_outputs(times);
    const auto exact = long_double_top(theta0, w, phidot0, long_times);
    SCOPED_TRACE("theta0 " + std::to_string(theta0) + ", spin " + std::to_string(w) + ", phidot0 " +
                 std::to_string(phidot0));
    double worst = 0.0;
    for (std::size_t i = 0; i < times.size(); ++i) {
      worst = std::max(worst, std::abs(ref(i, 2) - kArm * exact[i + 1][0]));
      worst = std::max(worst, std::abs(ref(i, 3) - exact[i + 1][1]));
    }
    EXPECT_LT(worst, claim);
  }
}

// The Euler-parameter model (four rows, a mass matrix singular without its norm term) and the
// natural-coordinate one (six rows, a constant mass matrix) against the Euler-angle reference over
// 2 s (100 spin turns, 3 nutations). At tolerance 1e-12 the runs themselves are off by ~3e-10 m
// (projection, measured; 1.3e-11 at 1e-14), so 1e-8 m, issue #4's bound for reduced-ODE references,
// leaves a margin. Over the 10 s horizon the spin's phase error grows to 4.6e-9 (projection)
// and 9.7e-8 (index1, whose drift is not corrected) at 1e-12.
TEST(LagrangeTop, BothModelsFollowTheEulerAngleTop) {
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
