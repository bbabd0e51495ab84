// lagrange_top's Euler-angle reference against what the top's integrals alone predict, and the
// Euler-parameter model against that reference.
#include <gtest/gtest.h>

#include <boost/math/special_functions/ellint_1.hpp>
#include <cmath>
#include <random>

#include "catalog/catalog.hpp"
#include "conformance/test_support.hpp"

namespace cmb::test {
namespace {

// The data of problems/lagrange_top.cpp's header.
constexpr double kMass = 1.0, kArm = 0.1, kTransverse = 0.002, kAxial = 0.004, kG = 9.81;

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
// error costs nothing to first order, so the bound is the reference's own claim (1e-10 in z,
// 1e-9 in u) doubled, each side held to it.
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

// The Euler-parameter model (four rows, a mass matrix singular without its norm term) against
// the Euler-angle reference over 2 s (100 spin turns, 3 nutations). At tolerance 1e-12 the runs
// themselves are off by ~3e-10 m (projection, measured; 1.3e-11 at 1e-14), so 1e-8 m, issue #4's
// bound for reduced-ODE references, leaves a margin. Over the 10 s horizon the spin's phase error
// grows to 4.6e-9 (projection) and 9.7e-8 (index1, whose drift is not corrected) at 1e-12.
TEST(LagrangeTop, EulerParameterModelFollowsTheEulerAngleTop) {
  for (const std::string method : {"index1", "projection"}) {
    RunConfig c = tight_run("lagrange_top", method);
    c.t_end = 2.0;
    const auto r = quick_run(c);
    ASSERT_EQ(r["status"], "ok") << method << ": " << r["message"];
    EXPECT_LT(r["metrics"]["error"]["max_abs"].get<double>(), 1e-8) << method;
  }
}

}  // namespace
}  // namespace cmb::test
