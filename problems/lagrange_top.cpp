// lagrange_top — the heavy symmetric top on a fixed tip, a spatial rigid body in Euler parameters.
//
// Model ([Goldstein2002] §5.7 for the top; [Haug1989] ch. 11 for the Euler-parameter form): a
// rigid body symmetric about its body axis z̄, its tip pinned at the origin, its centre of mass
// at distance l along z̄; gravity g along −z. Data chosen for cmbench (docs/sources.md): m = 1 kg,
// l = 0.1 m, inertia about the centre of mass A = 0.002 kg·m² (transverse) and C = 0.004 kg·m²
// (about z̄), g = 9.81 m/s².
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
// Initial state: tip up, axis tilted theta0 from the vertical in the y–z plane (Euler angles
// z-x-z: φ = ψ = 0, θ = theta0), spinning at `spin` [rad/s] about z̄, precessing at phidot0, no
// nutation rate.
// Reference (reduced ODE): the same top in Euler angles (φ, θ, ψ), its two momenta
// p_φ and p_ψ = C ω_z̄ constant, θ̈ from Lagrange's equation with A₀ = A + m l²,
// A₀ θ̈ = A₀ φ̇² sin θ cos θ − p_ψ φ̇ sin θ + m g l sin θ, φ̇ = (p_φ − p_ψ cos θ)/(A₀ sin²θ),
// ψ̇ = p_ψ/C − φ̇ cos θ, integrated by Bulirsch–Stoer at tolerance 1e-13. Checked without it
// (tests/test_top_reference.cpp): cos θ swings between two roots of a cubic set by the energy
// and the momenta, with a period given by a complete elliptic integral. Claimed accuracy 2e-10:
// over 10 s the spin's phase error reaches ~1e-10 in body_x_z (the same equations in long
// double at tolerance 1e-18 are the yardstick there).
// Outputs: the centre of mass x, y, z [m] and the z component of the body axis x̄ [1] (sin θ sin ψ,
// which shows the spin). Energy is conserved, and so are p_φ and p_ψ. Horizon 10 s.
// Fails when: nothing in the model (a spatial joint and a norm row of full rank). The reference's
// chart is singular at sin θ = 0, which the motion never reaches while p_φ ≠ ±p_ψ: refused
// otherwise (theta0 in (0, π) with phidot0 = 0 always qualifies).
#include <array>
#include <boost/numeric/odeint.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/registry.hpp"

namespace cmb {
namespace {

constexpr double kMass = 1.0, kArm = 0.1, kTransverse = 0.002, kAxial = 0.004, kG = 9.81;
constexpr double kPi = 3.141592653589793238462643383279502884;

using Quaternion = Eigen::Vector4d;
using Matrix34 = Eigen::Matrix<double, 3, 4>;

Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d s;
  s << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return s;
}

// ω̄ = 2 G(p) ṗ: the body angular velocity's map from Euler-parameter rates.
Matrix34 body_rate_map(const Quaternion& p) {
  Matrix34 G;
  G.col(0) = -p.tail<3>();
  G.rightCols<3>() = p(0) * Eigen::Matrix3d::Identity() - skew(p.tail<3>());
  return G;
}

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

// The Euler-angle state of the reference: θ, θ̇, φ, ψ.
using AngleState = std::array<double, 4>;

class LagrangeTop : public ProblemBase {
 public:
  explicit LagrangeTop(const Params& params)
      : ProblemBase({"lagrange_top",
                     "Heavy symmetric top on a fixed tip, in Euler parameters",
                     "heavy symmetric top ([Goldstein2002] §5.7) in Euler parameters "
                     "([Haug1989] ch. 11); reference: the same top in Euler angles",
                     {"spatial", "euler_parameters"}},
                    params, Sizes{7, 4, 0}),
        theta0_(params.number("theta0")),
        spin_(params.number("spin")),
        phidot0_(params.number("phidot0")),
        inertia_(kTransverse, kTransverse, kAxial) {
    const double p_phi = precession_momentum(), p_psi = kAxial * spin_;
    const double scale = std::abs(p_phi) + std::abs(p_psi);
    if (std::abs(p_phi - p_psi) <= 1e-9 * scale || std::abs(p_phi + p_psi) <= 1e-9 * scale)
      throw InputError(
          "problem 'lagrange_top': with these theta0, spin and phidot0 the top passes through the "
          "vertical (p_phi = +-p_psi), where the reference's Euler angles are singular; give "
          "spin > 0 with phidot0 = 0, or another phidot0");
  }

  void initial_state(VecRef q, VecRef v) const override {
    const Quaternion p(std::cos(0.5 * theta0_), std::sin(0.5 * theta0_), 0.0, 0.0);
    const Eigen::Vector3d body_rate(0.0, phidot0_ * std::sin(theta0_), spin_);
    const Eigen::Vector3d r = kArm * axis(p);
    const Eigen::Vector3d spatial_rate = rotation(p) * body_rate;
    q << r, p;
    v << spatial_rate.cross(r), 0.5 * body_rate_map(p).transpose() * body_rate;
  }
  void mass_matrix(double, CVecRef q, MatRef M) const override {
    const Quaternion p = q.tail<4>();
    const Matrix34 G = body_rate_map(p);
    M.setZero();
    M.topLeftCorner<3, 3>() = kMass * Eigen::Matrix3d::Identity();
    M.bottomRightCorner<4, 4>() =
        4.0 * G.transpose() * inertia_.asDiagonal() * G + 4.0 * kTransverse * p * p.transpose();
  }
  void forces(double, CVecRef q, CVecRef v, VecRef Q) const override {
    const Matrix34 G_rate = body_rate_map(v.tail<4>());
    Q.head<3>() << 0.0, 0.0, -kMass * kG;
    Q.tail<4>() = 8.0 * G_rate.transpose() * inertia_.asDiagonal() * (G_rate * q.tail<4>());
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
    const Eigen::Vector3d body_rate = 2.0 * body_rate_map(q.tail<4>()) * v.tail<4>();
    return 0.5 * kMass * v.head<3>().squaredNorm() +
           0.5 * body_rate.dot(inertia_.asDiagonal() * body_rate) + kMass * kG * q(2);
  }
  std::vector<std::string> coordinate_names() const override {
    return {"x", "y", "z", "e0", "e1", "e2", "e3"};
  }
  std::vector<std::string> output_names() const override {
    return {"cm_x", "cm_y", "cm_z", "body_x_z"};
  }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    const Quaternion p = q.tail<4>();
    y << q.head<3>(), rotation(p)(2, 0);
  }

  ReferenceInfo reference_info() const override {
    return {ReferenceKind::reduced_ode,
            "the same top in Euler angles (z-x-z) with its two momenta constant, Lagrange's "
            "equation for the nutation, Bulirsch-Stoer at tolerance 1e-13",
            2e-10};
  }
  Mat reference_outputs(const std::vector<double>& times) const override;

 private:
  static Eigen::Matrix3d rotation(const Quaternion& p) {
    const Eigen::Vector3d e = p.tail<3>();
    return (p(0) * p(0) - e.squaredNorm()) * Eigen::Matrix3d::Identity() + 2.0 * e * e.transpose() +
           2.0 * p(0) * skew(e);
  }
  // About the tip: A₀ = A + m l².
  static double tip_transverse() { return kTransverse + kMass * kArm * kArm; }
  double precession_momentum() const {
    const double s = std::sin(theta0_);
    return tip_transverse() * phidot0_ * s * s + kAxial * spin_ * std::cos(theta0_);
  }

  double theta0_, spin_, phidot0_;
  Eigen::Vector3d inertia_;
};

Mat LagrangeTop::reference_outputs(const std::vector<double>& times) const {
  const double a0 = tip_transverse(), p_phi = precession_momentum(), p_psi = kAxial * spin_;
  const double mgl = kMass * kG * kArm;
  auto precession_rate = [=](double theta) {
    const double s = std::sin(theta);
    return (p_phi - p_psi * std::cos(theta)) / (a0 * s * s);
  };
  auto euler_angles = [=](const AngleState& s, AngleState& ds, double) {
    const double theta = s[0], phi_rate = precession_rate(theta);
    ds[0] = s[1];
    ds[1] = (a0 * phi_rate * phi_rate * std::sin(theta) * std::cos(theta) -
             p_psi * phi_rate * std::sin(theta) + mgl * std::sin(theta)) /
            a0;
    ds[2] = phi_rate;
    ds[3] = p_psi / kAxial - phi_rate * std::cos(theta);
  };
  std::vector<double> grid = times;
  const bool prepend_zero = grid.empty() || grid.front() != 0.0;
  if (prepend_zero) grid.insert(grid.begin(), 0.0);
  Mat out(grid.size(), 4);
  std::size_t row = 0;
  auto record = [&](const AngleState& s, double) {
    const double theta = s[0], phi = s[2], psi = s[3];
    out.row(row++) << kArm * std::sin(phi) * std::sin(theta),
        -kArm * std::cos(phi) * std::sin(theta), kArm * std::cos(theta),
        std::sin(theta) * std::sin(psi);
  };
  AngleState s{theta0_, 0.0, 0.0, 0.0};
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<AngleState> stepper(1e-13, 1e-13);
  odeint::integrate_times(stepper, euler_angles, s, grid.begin(), grid.end(), 1e-4, record);
  return prepend_zero ? Mat(out.bottomRows(times.size())) : out;
}

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
      "Euler-angle ODE as reference";
  cmb::ParamSpec theta0 = cmb::positive_number(
      "theta0", 0.5, "initial tilt of the body axis from the upward vertical [rad]");
  theta0.max = 3.0;
  entry.params = {cmb::t_end_param(10.0), theta0,
                  cmb::nonnegative_number("spin", 50.0, "spin rate about the body axis [rad/s]"),
                  cmb::nonnegative_number("phidot0", 0.0, "initial precession rate [rad/s]")};
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::LagrangeTop>(p); };
  return entry;
}
