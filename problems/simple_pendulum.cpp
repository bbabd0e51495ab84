// simple_pendulum — IFToMM A01: a point mass on a rigid massless rod, in Cartesian coordinates.
//
// Data (IFToMM A01 [IFToMM; Gonzalez2006] in docs/sources.md): m = 1 kg, L = 1 m, pivot at
// the origin, g = 9.81 m/s² along −y; released at rest from the horizontal position P = (L, 0).
// Coordinates q = (x, y): nq = 2, one holonomic row Φ = x² + y² − L².
// Reference (exact): with θ the angle from the downward vertical, k = sin(θ₀/2) = 1/√2 and
// ω = √(g/L), sin(θ/2) = k sn(K(k) − ωt, k) and θ̇ = −2kω cn(K(k) − ωt, k) (Jacobi elliptic
// functions, Boost.Math); the period is 4K(k)/ω. Rod tension T = m(Lθ̇² + g cos θ) = 3mg cos θ,
// so λ = T/(2L) under M q̈ = Q − Jᵀλ with J = 2[x y]. Energy ½m|v|² + mgy is exactly 0.
// Parameters: t_end (default 10 s; long horizons ≥ 1000 s are where drift shows).
// Outputs: x, y [m], vx, vy [m/s].
#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>
#include <cmath>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kMass = 1.0, kLength = 1.0, kG = 9.81;

class SimplePendulum : public ProblemBase {
 public:
  explicit SimplePendulum(const Params& params)
      : ProblemBase({"simple_pendulum",
                     "IFToMM A01: simple pendulum in Cartesian coordinates",
                     "IFToMM benchmark A01 [IFToMM; Gonzalez2006]; "
                     "exact solution through Jacobi elliptic functions",
                     {}},
                    params, Sizes{2, 1, 0}) {}

  void initial_state(VecRef q, VecRef v) const override {
    q << kLength, 0.0;
    v << 0.0, 0.0;
  }
  void mass_matrix(double, CVecRef, MatRef M) const override {
    M.setIdentity();
    M *= kMass;
  }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override { Q << 0.0, -kMass * kG; }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    Phi(0) = q.squaredNorm() - kLength * kLength;
  }
  void jacobian(double, CVecRef q, MatRef J) const override { J << 2 * q(0), 2 * q(1); }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    gamma(0) = -2.0 * v.squaredNorm();
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    return 0.5 * kMass * v.squaredNorm() + kMass * kG * q(1);
  }

  std::vector<std::string> output_names() const override { return {"x", "y", "vx", "vy"}; }
  void outputs(double, CVecRef q, CVecRef v, VecRef y) const override { y << q, v; }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::analytic,
            "exact solution through Jacobi elliptic functions (Boost.Math jacobi_elliptic, "
            "ellint_1)",
            1e-13};
  }

  Mat reference_outputs(const std::vector<double>& times) const override {
    Mat out(times.size(), 4);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const Exact e = exact(times[i]);
      out.row(i) << kLength * std::sin(e.theta), -kLength * std::cos(e.theta),
          kLength * std::cos(e.theta) * e.theta_dot, kLength * std::sin(e.theta) * e.theta_dot;
    }
    return out;
  }

  bool reference_multipliers(double t, VecRef lambda) const override {
    const double tension = 3.0 * kMass * kG * std::cos(exact(t).theta);
    lambda(0) = tension / (2.0 * kLength);
    return true;
  }

 private:
  struct Exact {
    double theta, theta_dot;
  };

  static Exact exact(double t) {
    const double k = std::sqrt(0.5);  // sin(θ₀/2) with θ₀ = π/2
    const double omega = std::sqrt(kG / kLength);
    const double u = boost::math::ellint_1(k) - omega * t;
    double cn = 0.0, dn = 0.0;
    const double sn = boost::math::jacobi_elliptic(k, u, &cn, &dn);
    return {2.0 * std::asin(k * sn), -2.0 * k * omega * cn};
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(simple_pendulum) {
  cmb::ProblemEntry entry;
  entry.id = "simple_pendulum";
  entry.display_name = "Simple pendulum";
  entry.units.outputs = {{"x", "m"}, {"y", "m"}, {"vx", "m/s"}, {"vy", "m/s"}};
  entry.units.holonomic = {"m²"};
  entry.summary = "IFToMM A01 pendulum, Cartesian, released horizontally; exact reference";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::SimplePendulum>(p); };
  return entry;
}
