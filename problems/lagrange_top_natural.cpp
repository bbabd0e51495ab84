// lagrange_top_natural — the heavy symmetric top in natural coordinates: the columns of its
// rotation matrix, with a constant mass matrix.
//
// Model ([Goldstein2002] §5.7 for the top; [HairerLubichWanner2006] VII.5 for the rigid body as a
// constrained system in its rotation matrix): the top of problems/symmetric_top.hpp (its data,
// release and reference), the same as lagrange_top's, in other coordinates.
// Coordinates q = (u, v, w) [1]: the body axes x̄, ȳ, z̄ in the fixed frame, the columns of the
// rotation R = [u v w]; nq = 9. The tip is fixed, so no translation is needed: the centre of mass
// is l·w. Six holonomic rows [1] make R orthonormal: (uᵀu − 1)/2, (vᵀv − 1)/2, (wᵀw − 1)/2,
// uᵀv, uᵀw, vᵀw (det R = +1 carries over from the start by continuity).
// Kinetic energy about the tip: with J_O = diag(A₀, A₀, C), A₀ = A + m l², and Ṙ = R ω̄^,
// ½ ω̄ᵀJ_O ω̄ = ½ Σᵢ dᵢ |ṙᵢ|² over the columns rᵢ, with dᵢ = ½ tr J_O − (J_O)ᵢᵢ: d₁ = d₂ = C/2,
// d₃ = A₀ − C/2. So M = blockdiag(d₁ I₃, d₂ I₃, d₃ I₃) is constant — what a splitting scheme
// such as RATTLE needs (its refusal of lagrange_top is over M(q)) — and the only force is gravity
// on the potential m g l w_z: Q = −m g l at w_z.
// γ = −J̇ v: −|u̇|², −|v̇|², −|ẇ|², −2 u̇ᵀv̇, −2 u̇ᵀẇ, −2 v̇ᵀẇ.
// Initial state: the release of symmetric_top.hpp, R = R_x(theta0) and Ṙ = R ω̄^ with
// ω̄ = (0, phidot0 sin θ0, spin).
// Reference: lagrange_top's (the top as its axis and angular momentum, reduced ODE, claimed
// 2e-10).
// Outputs: the centre of mass x, y, z [m] (l·w) and u_z [1], the z component of the body axis x̄,
// as lagrange_top's. Energy is conserved. Horizon 10 s.
// Fails when: nothing in the model (six independent rows wherever R is orthonormal).
#include <cmath>
#include <string>
#include <vector>

#include "core/registry.hpp"
#include "problems/symmetric_top.hpp"

namespace cmb {
namespace {

using symmetric_top::kArm;
using symmetric_top::kAxial;
using symmetric_top::kG;
using symmetric_top::kMass;

// The pairs of columns (i, j) of the six orthonormality rows, in row order.
constexpr int kRowPairs[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};

class LagrangeTopNatural : public ProblemBase {
 public:
  explicit LagrangeTopNatural(const Params& params)
      : ProblemBase({"lagrange_top_natural",
                     "Heavy symmetric top on a fixed tip, in natural coordinates",
                     "heavy symmetric top ([Goldstein2002] §5.7) in its rotation matrix's "
                     "columns ([HairerLubichWanner2006] VII.5); reference: the top as its axis and "
                     "angular momentum",
                     {"spatial", "natural_coordinates"}},
                    params, Sizes{9, 6, 0}),
        release_(symmetric_top::release_from(params, "lagrange_top_natural")) {
    const double a0 = symmetric_top::tip_transverse();
    column_mass_ << 0.5 * kAxial, 0.5 * kAxial, a0 - 0.5 * kAxial;
  }

  void initial_state(VecRef q, VecRef v) const override {
    const double c = std::cos(release_.theta0), s = std::sin(release_.theta0);
    Eigen::Matrix3d R;
    R << 1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c;
    const Eigen::Vector3d w = symmetric_top::release_body_rate(release_);
    Eigen::Matrix3d w_hat;
    w_hat << 0.0, -w.z(), w.y(), w.z(), 0.0, -w.x(), -w.y(), w.x(), 0.0;
    const Eigen::Matrix3d R_rate = R * w_hat;
    for (int i = 0; i < 3; ++i) {
      q.segment<3>(3 * i) = R.col(i);
      v.segment<3>(3 * i) = R_rate.col(i);
    }
  }
  void mass_matrix(double, CVecRef, MatRef M) const override {
    M.setZero();
    for (int i = 0; i < 9; ++i) M(i, i) = column_mass_(i / 3);
  }
  void forces(double, CVecRef, CVecRef, VecRef Q) const override {
    Q.setZero();
    Q(8) = -kMass * kG * kArm;
  }
  void constraints(double, CVecRef q, VecRef Phi) const override {
    for (int k = 0; k < 6; ++k) {
      const int i = kRowPairs[k][0], j = kRowPairs[k][1];
      const double dot = q.segment<3>(3 * i).dot(q.segment<3>(3 * j));
      Phi(k) = i == j ? 0.5 * (dot - 1.0) : dot;
    }
  }
  void jacobian(double, CVecRef q, MatRef J) const override {
    J.setZero();
    for (int k = 0; k < 6; ++k) {
      const int i = kRowPairs[k][0], j = kRowPairs[k][1];
      if (i == j) {
        J.block<1, 3>(k, 3 * i) = q.segment<3>(3 * i).transpose();
      } else {
        J.block<1, 3>(k, 3 * i) = q.segment<3>(3 * j).transpose();
        J.block<1, 3>(k, 3 * j) = q.segment<3>(3 * i).transpose();
      }
    }
  }
  void acceleration_rhs(double, CVecRef, CVecRef v, VecRef gamma) const override {
    for (int k = 0; k < 6; ++k) {
      const int i = kRowPairs[k][0], j = kRowPairs[k][1];
      const double dot = v.segment<3>(3 * i).dot(v.segment<3>(3 * j));
      gamma(k) = i == j ? -dot : -2.0 * dot;
    }
  }
  bool has_energy() const override { return true; }
  double energy(double, CVecRef q, CVecRef v) const override {
    double kinetic = 0.0;
    for (int i = 0; i < 3; ++i)
      kinetic += 0.5 * column_mass_(i) * v.segment<3>(3 * i).squaredNorm();
    return kinetic + kMass * kG * kArm * q(8);
  }
  std::vector<std::string> coordinate_names() const override {
    return {"u_x", "u_y", "u_z", "v_x", "v_y", "v_z", "w_x", "w_y", "w_z"};
  }
  std::vector<std::string> output_names() const override { return symmetric_top::output_names(); }
  void outputs(double, CVecRef q, CVecRef, VecRef y) const override {
    y << kArm * q.segment<3>(6), q(2);
  }

  ReferenceInfo reference_info() const override { return symmetric_top::reference_info(); }
  Mat reference_outputs(const std::vector<double>& times) const override {
    return symmetric_top::reference_outputs(release_, times);
  }

 private:
  symmetric_top::Release release_;
  Eigen::Vector3d column_mass_;  // d₁, d₂, d₃
};

}  // namespace
}  // namespace cmb

CMB_DEFINE_PROBLEM(lagrange_top_natural) {
  cmb::ProblemEntry entry;
  entry.id = "lagrange_top_natural";
  entry.display_name = "Lagrange top (natural coordinates)";
  entry.units.outputs = {{"cm_x", "m"}, {"cm_y", "m"}, {"cm_z", "m"}, {"body_x_z", "1"}};
  entry.units.holonomic = {"1"};
  entry.summary =
      "heavy symmetric top in its rotation matrix's columns (six orthonormality rows, constant "
      "M); axis-momentum ODE as reference";
  entry.params = cmb::symmetric_top::params();
  entry.make = [](const cmb::Params& p) { return std::make_unique<cmb::LagrangeTopNatural>(p); };
  return entry;
}
