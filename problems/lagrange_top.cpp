// lagrange_top — the heavy symmetric top on a fixed tip, a spatial rigid body in Euler parameters.
//
// Model ([Goldstein2002] §5.7 for the top; [Haug1989] ch. 11 for the Euler-parameter form): the
// top of problems/symmetric_top.hpp (its data, release and reference), a rigid body symmetric
// about its body axis z̄ with its tip pinned at the origin.
// Coordinates q = (r, p): the centre of mass r = (x, y, z) [m] and the Euler parameters
// p = (e0, e1, e2, e3) of the body's orientation, R(p) = (e0² − eᵀe) I + 2 e eᵀ + 2 e0 ẽ
// (a rotation times |p|²). nq = 7 and four holonomic rows: the spherical joint at the tip,
// r − R(p) s̄ = 0 (s̄ = (0, 0, l), three rows [m]), and the normalization (pᵀp − 1)/2 = 0 [1].
// Body angular velocity ω̄ = 2 G(p) ṗ with G(p) = [−e, e0 I − ẽ]; kinetic energy
// m|ṙ|²/2 + ω̄ᵀ J̄ ω̄/2 (J̄ = diag(A, A, C)), so Lagrange's equations in p read
// 4 Gᵀ J̄ G p̈ = 8 G(ṗ)ᵀ J̄ G(ṗ) p + the constraint forces. 4GᵀJ̄G is singular along p (G p = 0):
// the mass matrix adds 4A·p pᵀ to it, which only moves the normalization row's multiplier
// (4A·p pᵀ p̈ lies along that row's Jᵀ = p), so every method sees a positive definite M and the
// same motion.
// γ: the spherical rows are quadratic in p, r − f(p), so γ = 2 f(ṗ); the normalization −ṗᵀṗ.
// Initial state: the release of symmetric_top.hpp (Euler angles φ = ψ = 0, θ = theta0, body
// angular velocity (0, phidot0 sin θ0, spin)).
// Reference (reduced ODE, shared with lagrange_top_natural): the same top as its body axis e and
// its angular momentum L about the tip, A₀ = A + m l²: L' = m g l ẑ × e, e' = ω⊥ × e with
// ω⊥ = (L − (L·e) e)/A₀, and a unit vector n ⊥ e carried by ω⊥ (n' = ω⊥ × n); the spin
// ω_z̄ = spin is constant, so the body's x axis is n turned by spin·t about e. Nine smooth
// equations with no chart, so no release is singular (the Euler-angle form it replaced lost
// accuracy near the vertical, 1.3e-9 at a release that falls to θ = 177.8°); Bulirsch–Stoer at
// tolerance 1e-13. Checked without it (tests/test_top_reference.cpp): cos θ = e_z swings between
// two roots of a cubic set by the energy and the momenta, with a period given by a complete
// elliptic integral; and over generated releases anywhere in (0, π) every output is within the
// claimed 2e-10 of Euler's equations with a quaternion in long double.
// Outputs: the centre of mass x, y, z [m] and the z component of the body axis x̄ [1] (sin θ sin ψ,
// which shows the spin). Energy is conserved, and so are p_φ and p_ψ. Horizon 10 s.
// Fails when: nothing in the model (a spatial joint and a norm row of full rank).
#include <cmath>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "problems/euler_body.hpp"
#include "problems/symmetric_top.hpp"

namespace cmb {
namespace {

using symmetric_top::kArm;
using symmetric_top::kAxial;
using symmetric_top::kG;
using symmetric_top::kMass;
using symmetric_top::kTransverse;

using euler_body::Matrix34;
using euler_body::Quaternion;
using euler_body::rotation;

// f(p) = R(p) s̄ / l = R(p)'s third column, quadratic in p.
Eigen::Vector3d axis(const Quaternion& p) {
  const double e0 = p(0), e1 = p(1), e2 = p(2), e3 = p(3);
  return {2.0 * (e1 * e3 + e0 * e2), 2.0 * (e2 * e3 - e0 * e1),
          e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3};
}

// ∂axis/∂p (linear in p).
Matrix34 axis_jacobian(const Quaternion& p) {
  const double e0 = p(0), e1 = p(1), e2 = p(2), e3 = p(3);
  Matrix34 B;
  B << e2, e3, e0, e1, -e1, -e0, e3, e2, e0, -e1, -e2, e3;
  return 2.0 * B;
}

class LagrangeTop : public ProblemBase {
 public:
  explicit LagrangeTop(const Params& params)
      : ProblemBase(
            {"lagrange_top",
             "Heavy symmetric top on a fixed tip, in Euler parameters",
             "heavy symmetric top ([Goldstein2002] §5.7) in Euler parameters "
             "([Haug1989] ch. 11); reference: the same top as its axis and angular momentum",
             {"spatial", "euler_parameters"}},
            params, Sizes{7, 4, 0}),
        release_(symmetric_top::release_from(params, "lagrange_top")),
        inertia_(kTransverse, kTransverse, kAxial) {}

  void initial_state(VecRef q, VecRef v) const override {
    const double theta0 = release_.theta0;
    const Quaternion p(std::cos(0.5 * theta0), std::sin(0.5 * theta0), 0.0, 0.0);
    const Eigen::Vector3d body_rate = symmetric_top::release_body_rate(release_);
    const Eigen::Vector3d r = kArm * axis(p);
    const Eigen::Vector3d spatial_rate = rotation(p) * body_rate;
    q << r, p;
    v << spatial_rate.cross(r), euler_body::parameter_rates(p, body_rate);
  }
  void mass_matrix(double, CVecRef q, MatRef M) const override {
    M.setZero();
    M.topLeftCorner<3, 3>() = kMass * Eigen::Matrix3d::Identity();
    M.bottomRightCorner<4, 4>() = euler_body::rotational_mass(q.tail<4>(), inertia_);
  }
  void forces(double, CVecRef q, CVecRef v, VecRef Q) const override {
    Q.head<3>() << 0.0, 0.0, -kMass * kG;
    Q.tail<4>() = euler_body::rotational_forces(q.tail<4>(), v.tail<4>(), inertia_);
  }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    const Quaternion p = q.tail<4>();
    Phi.head<3>() = q.head<3>() - kArm * axis(p);
    Phi(3) = 0.5 * (p.squaredNorm() - 1.0);
  }
  void jacobian(double, CVecRef q, MatRef J) const override {
    const Quaternion p = q.tail<4>();
    J.setZero();
    J.topLeftCorner<3, 3>().setIdentity();
    J.topRightCorner<3, 4>() = -kArm * axis_jacobian(p);
    J.block<1, 4>(3, 3) = p.transpose();
  }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    const Quaternion p_rate = v.tail<4>();
    gamma.head<3>() = 2.0 * kArm * axis(p_rate);
    gamma(3) = -p_rate.squaredNorm();
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    return 0.5 * kMass * v.head<3>().squaredNorm() +
           euler_body::rotational_energy(q.tail<4>(), v.tail<4>(), inertia_) + kMass * kG * q(2);
  }
  std::vector<std::string> coordinate_names() const override {
    return {"x", "y", "z", "e0", "e1", "e2", "e3"};
  }
  std::vector<std::string> output_names() const override { return symmetric_top::output_names(); }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    const Quaternion p = q.tail<4>();
    y << q.head<3>(), rotation(p)(2, 0);
  }

  ReferenceInfo reference_info() const override { return symmetric_top::reference_info(); }
  Mat reference_outputs(const std::vector<double>& times) const override {
    return symmetric_top::reference_outputs(release_, times);
  }

 private:
  symmetric_top::Release release_;
  Eigen::Vector3d inertia_;
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(lagrange_top) {
  cmb::ProblemEntry entry;
  entry.id = "lagrange_top";
  entry.display_name = "Lagrange top";
  entry.units.outputs = {{"cm_x", "m"}, {"cm_y", "m"}, {"cm_z", "m"}, {"body_x_z", "1"}};
  entry.units.holonomic = {"m", "1"};
  entry.summary =
      "heavy symmetric top in Euler parameters (spherical joint + unit-norm row); "
      "axis-momentum ODE as reference";
  entry.params = cmb::symmetric_top::params();
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::LagrangeTop>(p); };
  return entry;
}
