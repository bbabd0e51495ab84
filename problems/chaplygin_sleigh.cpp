// chaplygin_sleigh — a planar body on a knife edge: one nonholonomic constraint, closed-form
// reference.
//
// Model: mass m, inertia I about the centre of mass G, knife edge at P = G + a e(θ) with
// e = (cos θ, sin θ) the body axis and e⊥ = (−sin θ, cos θ); P cannot slide sideways:
//   A_nh v = −sin θ ẋ + cos θ ẏ + a θ̇ = 0,   γ = θ̇ (cos θ ẋ + sin θ ẏ).
// Coordinates q = (x_G, y_G, θ): nq = 3, mh = 0, mn = 1. No applied forces (horizontal plane).
// In body components u = v_G·e (forward speed), w = v_G·e⊥ = −aω, ω = θ̇:
//   u̇ = −a ω²,   (I + m a²) ω̇ = m a u ω,   and ½ m u² + ½ (I + m a²) ω² = E is conserved.
// Closed form (derived for cmbench): with U² = 2E/m, κ = m a / (I + m a²) and
// φ(t) = κ U t + artanh(−u₀/U):  u = −U tanh φ,  ω = sgn(ω₀) U √(m/(I + m a²)) sech φ,
// θ = θ₀ + sgn(ω₀) √(m/(I + m a²)) (gd φ − gd φ(0)) / κ, gd = Gudermann function.
// Parameters (documented choice): m = 1 kg, I = 0.1 kg·m², a = 0.5 m, u₀ = 1 m/s, ω₀ = 1 rad/s,
// θ₀ = 0, G at the origin; horizon 10 s.
// Outputs: u [m/s], ω [rad/s], θ [rad] (positions have no closed form and are not scored).
#include <cmath>

#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kMass = 1.0, kInertia = 0.1, kArm = 0.5, kU0 = 1.0, kOmega0 = 1.0;

class ChaplyginSleigh : public ProblemBase {
 public:
  explicit ChaplyginSleigh(const Params& params)
      : ProblemBase({"chaplygin_sleigh",
                     "Chaplygin sleigh (knife edge, nonholonomic)",
                     "Chaplygin (1911) [Chaplygin1911]; Neimark & Fufaev, Dynamics of Nonholonomic "
                     "Systems [NeimarkFufaev1972]; closed form derived in the source header",
                     {"nonholonomic"}},
                    params, Sizes{3, 0, 1}) {}

  void initial_state(VecRef q, VecRef v) const override {
    q.setZero();
    // v_G = u e + w e⊥ with w = −a ω at θ = 0.
    v << kU0, -kArm * kOmega0, kOmega0;
  }
  void mass_matrix(double, CVecRef, MatRef M) const override {
    M.setZero();
    M.diagonal() << kMass, kMass, kInertia;
  }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override { Q.setZero(); }
  void constraints(double, CVecRef, VecRef) const override {}
  void jacobian(double, CVecRef q, MatRef J) const override {
    J << -std::sin(q(2)), std::cos(q(2)), kArm;
  }
  void acceleration_rhs(double, CVecRef q, CVecRef v, VecRef gamma) const override {
    gamma(0) = v(2) * (std::cos(q(2)) * v(0) + std::sin(q(2)) * v(1));
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef, CVecRef v) const override {
    return 0.5 * kMass * v.head<2>().squaredNorm() + 0.5 * kInertia * v(2) * v(2);
  }
  std::vector<std::string> output_names() const override { return {"u", "omega", "theta"}; }
  void outputs(double, CVecRef q, CVecRef v, VecRef y) const override {
    y << std::cos(q(2)) * v(0) + std::sin(q(2)) * v(1), v(2), q(2);
  }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::analytic, "closed form of the sleigh's body-frame dynamics (tanh/sech)",
            1e-14};
  }
  Mat reference_outputs(const std::vector<double>& times) const override {
    const double J = kInertia + kMass * kArm * kArm;
    const double U = std::sqrt((kMass * kU0 * kU0 + J * kOmega0 * kOmega0) / kMass);
    const double kappa = kMass * kArm / J;
    const double phi0 = std::atanh(-kU0 / U);
    const double sign = kOmega0 >= 0 ? 1.0 : -1.0;
    const double root = std::sqrt(kMass / J);
    auto gd = [](double x) { return std::atan(std::sinh(x)); };
    Mat out(times.size(), 3);
    for (std::size_t i = 0; i < times.size(); ++i) {
      const double phi = kappa * U * times[i] + phi0;
      out.row(i) << -U * std::tanh(phi), sign * U * root / std::cosh(phi),
          sign * root * (gd(phi) - gd(phi0)) / kappa;
    }
    return out;
  }
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(chaplygin_sleigh) {
  cmb::ProblemEntry entry;
  entry.id = "chaplygin_sleigh";
  entry.display_name = "Chaplygin sleigh";
  entry.units.outputs = {{"u", "m/s"}, {"omega", "rad/s"}, {"theta", "rad"}};
  entry.units.nonholonomic = {"m/s"};
  entry.summary = "Chaplygin sleigh: one nonholonomic row, closed-form reference";
  entry.params = {cmb::t_end_param(10.0)};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::ChaplyginSleigh>(p); };
  return entry;
}
